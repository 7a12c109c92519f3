"""DataCleaner's option checks and small helpers, kept out of the loop's module."""

from __future__ import annotations

import json
import math
import os
from typing import Any

from ..errors import OutputError, PathConflictError
from ..model.response import ParsedResponse
from ..read.sampling import STRATEGIES
from ..types import BackendLike, as_backend
from ..write.report_html import html_report_path
from ..write.state import check_output_path
from .lock import lock_path
from .sidecar import spec_path_for

BACKEND_ENV = "RECURSIVE_CLEANER_BACKEND"
"""Environment variable naming the backend used when none is given (``clean``, ``resume`` and the
command line)."""


def default_backend() -> str:
    """The backend spec from ``RECURSIVE_CLEANER_BACKEND``, else ``"local"`` (the embedded
    model)."""
    return os.environ.get(BACKEND_ENV, "").strip() or "local"


__all__ = [
    "BACKEND_ENV",
    "default_backend",
    "check_options",
    "check_distinct_paths",
    "check_run_paths",
    "same_file",
    "first_issue",
    "beside",
    "resolve_backend",
    "backend_spec",
    "remember_spec",
    "saved_backend_options",
    "restorable_backend_options",
]


def check_options(
    chunk_size: int,
    max_iterations: int,
    mode: str,
    holdout_ratio: float,
    strategy: str,
    stratify_field: str | None,
    scope: str = "mentioned",
    chunk_view: str = "varied",
    sandbox_timeout: float = 10.0,
) -> None:
    """ValueError for an option no run could use."""
    problems = [
        # inf: no CPU limit can be set from it (was a raw OverflowError at the first candidate)
        (not 0 < sandbox_timeout < math.inf, "sandbox_timeout must be a positive finite number"),
        (chunk_size < 1, "chunk_size must be at least 1"),
        (max_iterations < 1, "max_iterations must be at least 1"),
        (mode not in ("auto", "structured", "text"), "mode must be 'auto', 'structured' or 'text'"),
        (not 0 <= holdout_ratio < 1, "holdout_ratio must be at least 0 and below 1"),
        (strategy not in STRATEGIES, f"sampling_strategy must be one of {', '.join(STRATEGIES)}"),
        (
            strategy == "stratified" and not stratify_field,
            "sampling_strategy='stratified' needs stratify_field",
        ),
        (scope not in ("mentioned", "all"), "scope must be 'mentioned' or 'all'"),
        (chunk_view not in ("varied", "all"), "chunk_view must be 'varied' or 'all'"),
    ]
    for bad, message in problems:
        if bad:
            raise ValueError(message)


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name one file: the same resolved path (symlinks followed), or, both
    existing, one inode."""
    if os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): different files
        return False


def check_distinct_paths(inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
    """PathConflictError when an output path is one of the inputs or another output; None entries
    are ignored. OutputError (``write.state.check_output_path``) when an output is a symlink or not
    a regular file, or a folder above it is a plain file: found here, before any model call or
    worker, not when it is written.

    The keys name the paths in the message (``output_path``, or the CLI's ``-o``).
    """
    seen = [(name, os.fspath(path)) for name, path in inputs.items() if path]
    for name, path in outputs.items():
        if not path:
            continue
        path = os.fspath(path)
        for other, earlier in seen:
            if same_file(path, earlier):
                what = "an input" if other in inputs else "another output"
                raise PathConflictError(
                    f"{name} {path} is the same file as {other} {earlier} ({what}): "
                    "writing it would lose data; give each output its own path"
                )
        seen.append((name, path))
    for name, path in outputs.items():
        try:
            if path:
                check_output_path(path)
        except OutputError as exc:
            raise OutputError(f"{name}: {exc}") from None


def check_run_paths(
    file_path: str,
    output_path: str,
    report_path: str | None,
    state_file: str | None,
    ground_truth: str | None = None,
    *,
    names: dict[str, str] | None = None,
    document: str | None = None,
    log_calls: str | None = None,
    dry_run: bool = False,
    labels: str | None = None,
) -> None:
    """PathConflictError when a file a run writes (functions, report, its HTML page, field spec,
    state, call log) is its data or another one; OutputError when one cannot be a regular file
    (a link, a FIFO, a device, under /proc, /sys or /dev): before the first model call.

    ``names`` renames the paths in the message (the CLI's ``-o``, ``--report``...); ``document``:
    the PDF/Word/HTML file ``file_path`` holds the text of (an input too); ``dry_run``: the spec
    is named after the report (``run.sidecar.spec_path_for``).
    """
    name = {
        "file_path": "file_path",
        "ground_truth": "ground_truth",
        "output_path": "output_path",
        "report_path": "report_path",
        "spec": "the field spec",
        "state_file": "state_file",
        "log_calls": "log_calls",
        **(names or {}),
    }
    inputs = {
        name["file_path"]: file_path,
        name["ground_truth"]: ground_truth,
        "the document": document,
        "the labels": labels,
    }
    lock = lock_path(state_file) if state_file else None
    for what, path in inputs.items():  # the lock is truncated to a pid line and removed at the end
        if lock and path and same_file(lock, path):
            raise PathConflictError(
                f"{name['state_file']} {state_file} is locked through {lock}, which is {what} "
                f"{path}: the lock would overwrite it; choose another state file"
            )
    check_distinct_paths(
        inputs,
        {
            name["output_path"]: output_path,
            name["report_path"]: report_path,
            "the HTML report": html_report_path(report_path),
            name["state_file"]: state_file,
            name["spec"]: spec_path_for(output_path, report_path, dry_run=dry_run),
            name["log_calls"]: log_calls,
        },
    )


def first_issue(parsed: ParsedResponse) -> str:
    unsolved = [i.description for i in parsed.issues if not i.solved]
    return unsolved[0] if unsolved else ""


def beside(report_path: str | None, output_path: str) -> str | None:
    """A bare report file name goes next to cleaning_functions.py; any other path is used as
    given."""
    if not report_path or os.path.dirname(report_path):
        return report_path
    return os.path.join(os.path.dirname(output_path), report_path)


def resolve_backend(backend: BackendLike | str, **options: Any):
    """A backend object, a callable, or a backend string looked up in ``backends`` (the object
    remembers its spec).

    ``options`` go to a string backend's constructor (``timeout=60``, ``max_tokens=2048``, ...).
    """
    if isinstance(backend, str):
        from ..backends import get_backend  # imported only when a string is used
        from ..model.prompt import STOP_SEQUENCES

        built = get_backend(backend, **{"stop": list(STOP_SEQUENCES), **options})
        return remember_spec(built, backend, options)
    if options:
        raise TypeError(
            "backend options are for a backend given as a spec string; configure your object "
            "instead"
        )
    return as_backend(backend)


def remember_spec(built: Any, spec: str, options: dict[str, Any] | None = None) -> Any:
    """Mark a backend with the spec string and options it was built from, so the state file keeps
    them for resume."""
    try:
        # so a run given the object (the CLI's way) still saves the string
        built.backend_spec = spec
        built.backend_options = dict(options or {})
    except AttributeError:
        pass
    return built


_SECRET_WORDS = {
    "key",
    "apikey",
    "token",
    "secret",
    "password",
    "passwd",
    "auth",
    "authorization",
    "header",
    "headers",
    "credential",
    "credentials",
    "cookie",
}


# where data goes or files are read and written: a state file never chooses these (issue 28)
_STEERING_WORDS = {
    "url",
    "uri",
    "host",
    "hostname",
    "base",
    "endpoint",
    "address",
    "server",
    "proxy",
    "port",
    "env",
    "path",
    "dir",
    "directory",
    "folder",
    "cache",
    "file",
    "socket",
}


def _looks_secret(name: str) -> bool:
    """``api_key``, ``access_token``, ``extra_headers`` ... (a word of the name, so ``max_tokens``
    is not)."""
    return bool(_SECRET_WORDS & set(name.lower().replace("-", "_").split("_")))


def _steers(name: str) -> bool:
    """``base_url``, ``api_base``, ``host``, ``api_key_env``, ``model_path``, ``prompt_cache`` ...
    (a word of the name)."""
    return bool(_STEERING_WORDS & set(name.lower().replace("-", "_").split("_")))


def saved_backend_options(backend: Any) -> dict[str, Any] | None:
    """The options a backend string was built with, as the state file may keep them: plain JSON
    values only, never a key whose name looks like a secret (``api_key``, ``extra_headers``, ...) or
    an endpoint or path (``base_url``, ``host``, ``api_key_env``, ``model_path``, ``prompt_cache``,
    ...)."""
    options = getattr(backend, "backend_options", None)
    return restorable_backend_options(options)


def restorable_backend_options(options: Any) -> dict[str, Any] | None:
    """What ``resume`` may take from a state file's ``backend_options``: the same filter as saving,
    applied again on reading (an edited file may hold anything); None when nothing is left."""
    return (_without_secrets(options) or None) if isinstance(options, dict) else None


def _without_secrets(options: dict) -> dict[str, Any]:
    """``options`` less secret-looking and steering names, at any depth (``extra_body={"api_key":
    ...}``), and non-JSON values."""
    kept: dict[str, Any] = {}
    for key, value in options.items():
        if (
            not isinstance(key, str)
            or _looks_secret(key)
            or _steers(key)
            and not isinstance(value, (bool, type(None)))
        ):
            # a steering name keeps an on/off value only (prompt_cache=false), never a URL or a path
            continue
        if isinstance(value, dict):
            value = _without_secrets(value)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            continue
        kept[key] = value
    return kept


def backend_spec(backend: Any) -> str | None:
    """The spec string a backend was given as or built from (``resolve_backend``); None for other
    objects."""
    if isinstance(backend, str):
        return backend
    spec = getattr(backend, "backend_spec", None)
    return spec if isinstance(spec, str) else None
