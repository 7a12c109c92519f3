"""What a resumed run takes from its state file, and what it never takes without the user giving it
again.

A state file restores progress, functions and the options that change what is generated. It
never chooses where data is sent (the backend spec, with its URL, or an endpoint option) nor
where files are written (functions, report, field spec): an edited state file could otherwise
send the data and the environment's API key to another server, or write the report over any
file the user can write. So, for ``DataCleaner.resume`` and the CLI's ``resume``:

* the backend is the one given, else the default (``$RECURSIVE_CLEANER_BACKEND``, else ``local``);
  a state file that names another backend is refused, naming it, until it is given again; the
  saved ``backend_options`` are used only with the backend they were saved for, less any endpoint,
  path or secret (``setup.restorable_backend_options``);
* the functions go where given, else to ``cleaning_functions.py`` beside the state file; the
  report where given, else ``cleaning_report.md`` beside the functions (none if the run wrote
  none). A state file naming other paths is refused, naming them, until they are given again.
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import StateFileError
from ..given_options import flat_options
from ..judge.reflection_verdict import ReflectionConfig
from ..options import Options
from ..write.state import load_state
from .setup import beside, default_backend, resolve_backend, restorable_backend_options

__all__ = [
    "PYTHON_NAMES",
    "CLI_NAMES",
    "DEFAULT_OUTPUT",
    "DEFAULT_REPORT",
    "resume_backend",
    "resume_paths",
    "resume_arguments",
]

DEFAULT_OUTPUT = "cleaning_functions.py"
DEFAULT_REPORT = "cleaning_report.md"
PYTHON_NAMES = {
    "backend": "llm_backend={spec!r}",
    "output_path": "output_path={path!r}",
    "report_path": "report_path={path!r}",
}
CLI_NAMES = {"backend": "-b {spec}", "output_path": "-o {path}", "report_path": "--report {path}"}


def resume_backend(
    state_file: str | os.PathLike,
    options: dict[str, Any],
    given: Any,
    names: dict[str, str] = PYTHON_NAMES,
) -> tuple[Any, dict[str, Any] | None]:
    """(backend or spec string to build, saved options to build it with) for a resumed run;
    StateFileError if the state file names a backend other than the default and none was given."""
    saved = options.get("backend")
    kept = restorable_backend_options(options.get("backend_options"))
    if given is not None:
        return given, (kept if isinstance(given, str) and given == saved else None)
    default = default_backend()
    if saved is None and "backend" in options:  # the run was given an object: nothing to name
        raise StateFileError(
            f"{os.fspath(state_file)} was made with a backend object, not a backend string: "
            "pass the backend to resume (llm_backend=..., CLI -b)"
        )
    if saved is not None and saved != default:
        again = names["backend"].format(spec=saved)
        raise StateFileError(
            f"state file {os.fspath(state_file)} was made with backend {saved}; to carry on with "
            "it, "
            f"give it again: {again} (a state file does not choose where the data is sent; "
            f"the default is {default})"
        )
    return default, (kept if saved == default else None)


def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def resume_paths(
    state_file: str | os.PathLike,
    options: dict[str, Any],
    given: dict[str, Any],
    names: dict[str, str] = PYTHON_NAMES,
) -> dict[str, Any]:
    """``output_path`` and ``report_path`` for a resumed run (see the module docstring);
    StateFileError naming a path the state file holds that is not the default and was not given
    again."""
    state = os.fspath(state_file)
    output = given.get("output_path")
    default = os.path.join(os.path.dirname(state), DEFAULT_OUTPUT)
    # a file from before the options object names none
    saved_output = options.get("output_path") or default
    if output is None:
        output = default
        if not _same(saved_output, output):
            _refuse(state, "writes its functions to", saved_output, names["output_path"])
    if "report_path" in given:
        return {"output_path": output, "report_path": given["report_path"]}
    saved_report = options.get("report_path", beside(DEFAULT_REPORT, saved_output))
    if saved_report and not _same(saved_report, beside(DEFAULT_REPORT, saved_output)):
        _refuse(state, "writes its report to", saved_report, names["report_path"])
    return {
        "output_path": output,
        "report_path": beside(DEFAULT_REPORT, output) if saved_report else None,
    }


def _refuse(state: str, what: str, path: str, flag: str) -> None:
    raise StateFileError(
        f"state file {state} {what} {path}; to write there, give it again: "
        f"{flag.format(path=path)} "
        "(a state file does not choose where files are written)"
    )


def resume_arguments(
    state_file: str | os.PathLike, llm_backend: Any, options: dict[str, Any]
) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """For ``DataCleaner.resume``: the state file as saved, the backend to carry on with, and the
    keyword arguments: every saved option (``chunk_size`` and ``instructions`` too) under the
    ``options`` given (flat or in their groups), the output paths of ``resume_paths``."""
    saved = load_state(state_file)
    _check_saved_options(saved.get("options", {}), state_file)
    given = flat_options(options)
    kept = Options.from_dict(
        {
            **saved.get("options", {}),
            "chunk_size": saved["chunk_size"],
            "instructions": saved["instructions"],
        }
    ).to_dict()
    backend, backend_options = resume_backend(state_file, saved.get("options", {}), llm_backend)
    if backend_options:
        backend = resolve_backend(backend, **backend_options)
    kept.pop("backend"), kept.pop("backend_options")
    kept.update(resume_paths(state_file, saved.get("options", {}), given))
    if isinstance(kept.get("reflection"), dict):
        kept["reflection"] = ReflectionConfig(**kept["reflection"])
    return saved, backend, {**kept, **given}


_KINDS = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


def _check_saved_options(saved: dict[str, Any], state_file: str | os.PathLike) -> None:
    """StateFileError naming a saved option whose value is not of its default's kind (a bool, a
    whole number, a number, text): the file is untrusted, and a wrong one was a raw TypeError in
    the option checks."""
    defaults = Options().to_dict()
    for name, value in saved.items():
        default = defaults.get(name)
        if value is None or default is None:
            continue
        kinds = (int, float) if isinstance(default, float) else type(default)
        if isinstance(value, bool) != isinstance(default, bool) or not isinstance(value, kinds):
            raise StateFileError(
                f"state file {os.fspath(state_file)}: option '{name}' must be "
                f"{_KINDS.get(type(default), type(default).__name__)}, not {value!r:.40}"
            )
