"""How a command ends badly: one stderr line, an exit code, the resume hint; SIGTERM as Ctrl-C."""

from __future__ import annotations

import contextlib
import signal
import threading
import traceback
from pathlib import Path
from typing import Any

import click

from ..errors import CleanerError, LLMCallError
from .cli_common import DEBUG, PROG, RESUME, echo, one_line
from .cli_options import default_backend

__all__ = ["error_message", "fail", "OneLineErrors", "Terminated", "sigterm_as_interrupt"]

# import name of an optional dependency -> how to install it
_INSTALL = {
    "xllamacpp": "pip install 'recursive-data-cleaner[local]'",
    "llama_cpp": "pip install llama-cpp-python",
    "mlx_lm": "pip install 'recursive-data-cleaner[mlx]' (Apple Silicon only)",
    "mlx": "pip install 'recursive-data-cleaner[mlx]' (Apple Silicon only)",
    "rich": "pip install 'recursive-data-cleaner[progress]'",
}


def error_message(exc: BaseException) -> str:
    """The one line a shell user sees for ``exc``."""
    if isinstance(exc, ImportError):
        text = str(exc) or f"No module named {exc.name!r}"
        hint = _INSTALL.get((exc.name or "").split(".")[0])
        if "pip install" in text:
            return one_line(text)
        return one_line(
            f"missing dependency: {text}" + (f"; install it with: {hint}" if hint else "")
        )
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return one_line(f"{exc.strerror}: {exc.filename}")
    text = str(exc)
    if isinstance(exc, (CleanerError, ValueError, OSError)) or type(exc).__module__.startswith(
        "recursive_cleaner.backends"
    ):
        return one_line(text or type(exc).__name__)
    return one_line(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def fail(ctx: click.Context, message: str, code: int) -> None:
    """Print ``Error: message`` (the traceback too with --debug) and exit with ``code``."""
    if ctx.meta.get(DEBUG):
        traceback.print_exc()
    echo(f"Error: {message}", err=True)
    raise click.exceptions.Exit(code)


class OneLineErrors(click.Group):
    """Turns every error of a command into one line on stderr and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt as exc:
            hint, what = (
                _resume_hint(ctx),
                "terminated" if isinstance(exc, Terminated) else "interrupted",
            )
            fail(
                ctx,
                what + (f"; progress is saved, carry on with: {hint}" if hint else ""),
                143 if isinstance(exc, Terminated) else 130,
            )
        except Exception as exc:  # noqa: BLE001 - the one place that reports any error to the shell
            message, hint = error_message(exc), _resume_hint(ctx)
            if isinstance(exc, LLMCallError) and hint:
                message += f" (progress is saved; carry on with: {hint})"
            fail(ctx, message, 1)


def _resume_hint(ctx: click.Context) -> str | None:
    """The command that carries on this run, once it has a state file (saved after each chunk and
    on Ctrl-C / SIGTERM inside one)."""
    import shlex

    from ..errors import StateFileError
    from ..run.resume import CLI_NAMES, resume_paths
    from ..write.state import load_state

    state, backend = ctx.meta.get(RESUME, (None, None))
    if not state or not Path(state).is_file():
        return None
    hint = [PROG, "resume", shlex.quote(state)]
    # the flags resume would ask for: a state file names no backend or path that is not given again
    try:
        options = load_state(state).get("options", {})
    except (OSError, ValueError):
        return " ".join(hint)
    if backend != default_backend():
        hint += ["-b", shlex.quote(backend)]
    for flag, key in (("-o", "output_path"), ("--report", "report_path")):
        try:
            resume_paths(
                state,
                options,
                {"output_path": options.get("output_path")} if flag != "-o" else {},
                names=CLI_NAMES,
            )
        except StateFileError:
            hint += [flag, shlex.quote(options.get(key) or "")]
    return " ".join(hint)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so the cleanup of Ctrl-C runs (exit code 143)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    # a second SIGTERM during the cleanup ends the process at once
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise Terminated()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Any:
    """While the command runs, SIGTERM raises like Ctrl-C does (only the main thread can install
    handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
