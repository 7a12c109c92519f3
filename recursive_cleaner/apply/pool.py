"""apply's worker pool: sandboxed (``trusted=True``: plain) processes that load the file once."""

from __future__ import annotations

import ast
import math
import os
import sys

from .result import ApplyError, positive_int
from ..judge.sandbox import CHILD_PATH, TRUSTED_ENVIRONMENT, SandboxWorker
from ..judge.validation import check_code_safety

__all__ = ["FUNCTION_NAME", "start_workers", "worker_count"]

FUNCTION_NAME = "clean_data"
# The trusted worker: the batch-mode server of the sandbox child, without its lock-down.
# The functions' folder and the working folder go LAST on sys.path (python -c puts the working
# folder first): a json.py lying beside cleaning_functions.py must not replace the standard
# library's (issue 28); helper modules of your own there are still found.
_BOOT = (
    "import os, sys; d = os.path.dirname(os.path.abspath(sys.argv[2])); w = os.getcwd(); "
    "sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) not in (d, w)] + [d, w]; "
    "import importlib.util as u; s = u.spec_from_file_location('_rc_batch', sys.argv[1]); "
    "m = u.module_from_spec(s); s.loader.exec_module(m); m.serve_batches(sys.argv[2])"
)


class _TrustedWorker(SandboxWorker):
    """NOT sandboxed (``trusted=True``): a plain Python process running the file as a normal
    module."""

    def __init__(self, code: str, filename: str, function: str = FUNCTION_NAME) -> None:
        super().__init__(code, function, dict_only=True)
        self._filename = filename

    def _command(self) -> tuple[list[str], str, dict]:
        env = {k: v for k, v in os.environ.items() if k in TRUSTED_ENVIRONMENT}  # no keys or tokens
        return (
            [sys.executable, "-B", "-c", _BOOT, str(CHILD_PATH), self._filename],
            os.getcwd(),
            env,
        )


def start_workers(
    code: str,
    filename: str,
    n: int,
    trusted: bool,
    timeout: float,
    *,
    function: str = FUNCTION_NAME,
) -> list[SandboxWorker]:
    """``n`` started workers that loaded ``code``; ApplyError if it does not parse, is refused by
    the policy (unless ``trusted``) or does not load."""
    try:
        ast.parse(code, filename)
    except SyntaxError as exc:
        raise ApplyError(
            f"cannot load {filename}: SyntaxError: {exc.msg} (line {exc.lineno})"
        ) from None
    # a null byte; nested too deeply for the parser
    except (ValueError, RecursionError, MemoryError) as exc:
        why = (
            "it holds a null byte"
            if isinstance(exc, ValueError)
            else "it is nested too deeply for Python's parser"
        )
        raise ApplyError(f"cannot load {filename}: {why}") from None
    if not trusted:
        problems = check_code_safety(code)
        if problems:
            raise ApplyError(
                f"{filename} is refused by the safety policy: {'; '.join(problems[:3])} "
                "(review it and pass trusted=True to run it without the sandbox)"
            )
    pool: list[SandboxWorker] = []
    try:
        for _ in range(n):
            pool.append(
                _TrustedWorker(code, filename, function)
                if trusted
                else SandboxWorker(
                    code, function, cpu_seconds=math.ceil(timeout) + 1, dict_only=True
                )
            )
            loaded = pool[-1].start()
            if not loaded.ok:
                raise ApplyError(f"cannot load {filename}: {loaded.error}")
    except BaseException:
        for worker in pool:
            worker.close(kill=True)
        raise
    return pool


def worker_count(workers: int | None) -> int:
    """``workers``, checked; None means one per available core."""
    if workers is None:
        return (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
    return positive_int(workers, "workers")
