"""What the commands share: their terminal lines, file and path checks, --progress and --debug."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any, Callable

import click

from ..errors import PathConflictError, clip_text
from ..escape import terminal_text

__all__ = [
    "PROG",
    "DEBUG",
    "RESUME",
    "echo",
    "one_line",
    "need_file",
    "distinct",
    "progress_display",
    "progress_option",
    "debug_option",
]

PROG = "recursive-cleaner"
DEBUG, RESUME = "recursive_cleaner.debug", "recursive_cleaner.resume_hint"  # ctx.meta keys


def echo(text: str, err: bool = False) -> None:
    """Every line the CLI prints: field names, goals, a report's text may hold terminal escape
    sequences."""
    click.echo(terminal_text(text), err=err)


def one_line(text: str) -> str:
    """One line for the terminal: whitespace runs as one space, at most 2,000 characters, no escape
    sequences."""
    return " ".join(clip_text(text, 2000).split())


def need_file(path: str, what: str) -> None:
    """FileNotFoundError naming ``what`` unless ``path`` is a file."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"{what} not found: {path}")


def distinct(check: Callable, *args: Any, **kwargs: Any) -> None:
    """Run a path check (``run.setup``); an output over an input or another output is a usage
    error."""
    try:
        check(*args, **kwargs)
    except PathConflictError as exc:
        raise click.UsageError(str(exc)) from None


def progress_display(mode: str) -> Any:
    """A LiveProgress for ``--progress auto|bar|plain``, or nothing for ``off``."""
    if mode == "off":
        return nullcontext(None)
    from .progress import LiveProgress

    return LiveProgress(live={"auto": None, "bar": True, "plain": False}[mode])


progress_option = click.option(
    "--progress",
    "progress",
    type=click.Choice(["auto", "bar", "plain", "off"]),
    default="auto",
    show_default=True,
    help="Live bar on a terminal (auto), always the bar, plain lines, or nothing.",
)


def _set_debug(ctx: click.Context, _param: Any, value: bool) -> None:
    if value:
        ctx.meta[DEBUG] = True


def debug_option(f: Callable) -> Callable:
    """``--debug``: an error shows its traceback as well."""
    return click.option(
        "--debug",
        is_flag=True,
        default=False,
        expose_value=False,
        is_eager=True,
        callback=_set_debug,
        help="Show the traceback of an error.",
    )(f)
