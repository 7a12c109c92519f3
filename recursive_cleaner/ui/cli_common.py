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
    "goals_text",
    "distinct",
    "progress_display",
    "progress_option",
    "debug_option",
    "COMMON",
    "SectionedCommand",
    "FORMATS",
    "input_formats",
    "with_formats",
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


COMMON = frozenset(
    {
        "instructions",
        "backend",
        "state",
        "output",
        "output_path",
        "report",
        "report_path",
        "spec",
        "spec_path",
        "scope",
        "dry_run",
        "chunk_size",
        "restart",
        "encoding",
        "workers",
        "reject_file",
        "max_failures",
        "audit",
        "dask_address",
        "progress",
    }
)
"""The parameters --help lists under "Common options"; every other one is "Advanced"."""


class SectionedCommand(click.Command):
    """A command whose --help lists its common options first, then the advanced ones; ``{formats}``
    in its help is the format registry's list (``with_formats``)."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        text = self.help or ""
        self.help = with_formats(text, self.name or "")
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = text

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows: dict[bool, list[tuple[str, str]]] = {True: [], False: []}
        help_option = self.get_help_option(ctx)
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None and isinstance(param, click.Option):
                rows[param.name in COMMON or param is help_option].append(record)
        for title, common in (("Common options", True), ("Advanced options", False)):
            if rows[common]:
                with formatter.section(title):
                    formatter.write_dl(rows[common])


RECORDS_ONLY = ("apply", "validate")  # commands that read records: no text, no documents
FORMATS = "{formats}"
"""In a command's help, replaced by ``input_formats()`` when the help is shown."""


def input_formats(*, applied: bool = False) -> str:
    """The files a command reads, from the format registry (and the documents read as text);
    ``applied``: those apply reads (records only)."""
    from ..read.documents import DOCUMENT_SUFFIXES
    from ..read.formats import described

    listed = described(applied=applied)
    if applied:
        return listed
    return f"{listed}; documents, read as text ({' '.join(DOCUMENT_SUFFIXES)})"


def with_formats(text: str, command: str) -> str:
    """``text`` with ``{formats}`` replaced by the registry's formats (``RECORDS_ONLY``: those
    read as records)."""
    if FORMATS not in text:
        return text
    return text.replace(FORMATS, input_formats(applied=command in RECORDS_ONLY))


def goals_text(value: str) -> str:
    """The goals of ``-i``: inline text, or ``@path`` to read them from a UTF-8 file."""
    if not value.startswith("@"):
        return value
    need_file(value[1:], "instructions file")
    try:
        return Path(value[1:]).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise click.UsageError(
            f"instructions file {value[1:]} is not UTF-8 text ({exc.reason} at byte "
            f"{exc.start}); re-encode it to UTF-8"
        ) from None
