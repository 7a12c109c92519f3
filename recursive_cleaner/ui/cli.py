"""The ``recursive-cleaner`` command line (also ``python -m recursive_cleaner``), built with click.

Commands: ``generate`` (write cleaning_functions.py), ``analyze`` (issues report, no code),
``resume`` (carry on from a state file), ``apply`` (run the functions over a whole file),
``validate`` (check a file against a field spec) and ``report`` (print a report, or the summary of
a state file); this module holds the group and the run commands, ``cli_apply`` / ``cli_report``
the others, ``cli_errors`` how an error ends a command, ``cli_common`` what they share. An error
prints ONE line on stderr and exits 1 (2 for a usage error, 130 on Ctrl-C, 143 on SIGTERM);
``--debug`` shows the traceback as well. SIGTERM cleans up as Ctrl-C does (sandbox children and
their folders, partial output files); a second SIGTERM ends the process at once.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from .._version import __version__
from .cli_apply import FAILED_RECORDS_EXIT, apply_cmd, validate
from .cli_plan import plan
from .cli_common import (
    PROG,
    RESUME,
    SectionedCommand,
    debug_option,
    distinct,
    echo,
    goals_text,
    need_file,
    one_line,
    progress_display,
    progress_option,
)
from .cli_examples import add_examples
from .cli_errors import OneLineErrors, Terminated, error_message, fail, sigterm_as_interrupt
from .cli_options import backend_option, default_backend, run_kwargs, run_options
from .cli_report import print_result, report, state_summary

__all__ = [
    "cli",
    "main",
    "make_backend",
    "error_message",
    "state_summary",
    "FAILED_RECORDS_EXIT",
    "PROG",
]


def make_backend(spec: str, **options: Any) -> Any:
    """The backend for ``-b SPEC`` (``local``, ``openai:MODEL@URL``, ``ollama:MODEL``,
    ``mlx:PATH``); ``options`` from ``--backend-option``."""
    from ..run.setup import resolve_backend

    try:
        return resolve_backend(spec, **options)
    except TypeError as exc:  # an option the backend does not take
        if not options:
            raise
        raise click.BadParameter(
            str(exc), ctx=click.get_current_context(silent=True), param_hint="'--backend-option'"
        ) from None
    except ValueError as exc:  # an unknown prefix or a spec without its model: a usage error
        raise click.BadParameter(
            str(exc), ctx=click.get_current_context(silent=True), param_hint="'-b' / '--backend'"
        ) from None


def _build_backend(spec: str, items: tuple[str, ...], saved: dict[str, Any] | None = None) -> Any:
    """``make_backend`` with the ``--backend-option`` values, else ``saved`` (tests replace
    make_backend(spec))."""
    from ..run.setup import remember_spec
    from .cli_options import parse_backend_options

    options = parse_backend_options(items) if items else dict(saved or {})
    return remember_spec(
        make_backend(spec, **options) if options else make_backend(spec), spec, options
    )


_RUN_NAMES = {
    "file_path": "FILE",
    "ground_truth": "--ground-truth",
    "output_path": "-o",
    "report_path": "--report",
    "state_file": "--state",
    "log_calls": "--log-calls",
}


class _StderrNow:
    """sys.stderr as it is when written to (so log lines go above a live progress bar)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


# ---------------------------------------------------------------------------- options
def _options(*decorators: Callable) -> Callable:
    def apply(f: Callable) -> Callable:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return apply


_backend = click.option(
    "-b",
    "--backend",
    default=None,
    metavar="SPEC",
    help="local, local:0.5b, openai:MODEL[@URL], ollama:MODEL[@URL] or mlx:PATH "
    "[default: $RECURSIVE_CLEANER_BACKEND, else local].",
)
_common = _options(
    click.argument("file"),
    _backend,
    click.option(
        "--state",
        default=None,
        metavar="PATH",
        help="State file saved after every chunk; an existing one for the same job is resumed "
        "(one made with other goals, spec, options or data is refused: --restart).",
    ),
)
_tail = _options(progress_option, debug_option)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name=PROG)
@debug_option
def cli() -> None:
    """recursive-cleaner: an LLM writes, one tested function at a time, the code that cleans your
    data."""
    logging.basicConfig(
        level=logging.WARNING, format="%(levelname)s: %(message)s", stream=_StderrNow()
    )


@cli.command(cls=SectionedCommand)
@_common
@run_options("generate")
@backend_option
@_tail
def generate(**opts: Any) -> None:
    """Write cleaning_functions.py for FILE.

    FILE is {formats}. The model reads it chunk by chunk and writes one tested function at a
    time; the functions, a markdown report and (with --state) a state file are written.
    """
    _clean(opts, dry_run=opts.pop("dry_run"))


@cli.command(cls=SectionedCommand)
@_common
@run_options("analyze")
@backend_option
@_tail
def analyze(**opts: Any) -> None:
    """Report the issues of FILE, write no code.

    A dry run: the field profile and one detection call per chunk; the report lists the issues, in
    analysis_report.md unless --report is given (a generate run's cleaning_report.md is left as it
    is). FILE is {formats}.
    """
    source = click.get_current_context().get_parameter_source("report_path")
    if source == click.core.ParameterSource.DEFAULT:
        opts["report_path"] = ANALYSIS_REPORT
    _clean(opts, dry_run=True)


ANALYSIS_REPORT = "analysis_report.md"
# analyze writes no functions: its -o only places the report, which has its own default
_ANALYZE_HELP = {
    "output_path": "Analyze writes no functions: a bare --report name goes in this path's folder.",
    "report_path": f"The issues report, markdown ('' for none)  [default: {ANALYSIS_REPORT}].",
}
for _param in analyze.params:
    if isinstance(_param, click.Option) and _param.name in _ANALYZE_HELP:
        _param.help, _param.show_default = _ANALYZE_HELP[_param.name], False


def _clean(opts: dict, *, dry_run: bool) -> None:
    from ..cleaner import DataCleaner
    from ..run.setup import beside, check_run_paths

    file, state, backend = (
        opts.pop("file"),
        opts.pop("state"),
        opts.pop("backend") or default_backend(),
    )
    kwargs = run_kwargs(opts)  # every declared option's flag, by its DataCleaner keyword
    if kwargs["sampling_strategy"] == "stratified" and not kwargs["stratify_field"]:
        raise click.UsageError("--sampling stratified needs --stratify-field")
    need_file(file, "data file")
    if kwargs.get("ground_truth"):
        need_file(kwargs["ground_truth"], "ground-truth file")
    if kwargs.get("spec"):
        need_file(kwargs["spec"], "spec file")
    if kwargs.get("labels"):
        need_file(kwargs["labels"], "labels file")
    output, report = kwargs["output_path"], kwargs["report_path"]
    distinct(
        check_run_paths,
        file,
        output,
        beside(report, output),
        state,
        kwargs.get("ground_truth"),
        names=_RUN_NAMES,
        log_calls=kwargs.get("log_calls"),
        dry_run=dry_run,
    )
    instructions = goals_text(kwargs.pop("instructions"))
    llm = _build_backend(backend, opts.pop("backend_options"))
    click.get_current_context().meta[RESUME] = (state, backend)
    kwargs["dry_run"] = dry_run
    if not instructions.strip():
        echo(
            "warning: no goals given: every field the data check flags may change; pass -i TEXT "
            "or -i @FILE",
            err=True,
        )
    with progress_display(opts.pop("progress")) as on_progress:
        cleaner: Any = None

        def events(event: dict) -> None:
            # on a terminal, the goals' reading before the first model call (issue 42 point 5)
            spec = cleaner.ctx.state.spec if cleaner is not None else None
            if event.get("type") == "spec_ready" and spec is not None:
                from ..run.review import plan_lines

                echo("\n".join(plan_lines(spec)))
            if on_progress is not None:
                on_progress(event)

        cleaner = DataCleaner(
            llm,
            file,
            instructions=instructions,
            state_file=state,
            on_progress=events if sys.stdout.isatty() and not dry_run else on_progress,
            **kwargs,
        )
        result = cleaner.run()
    _finished(result, dry_run, file)


@cli.command(cls=SectionedCommand)
@click.argument("state")
@click.option(
    "-b",
    "--backend",
    default=None,
    metavar="SPEC",
    help="The backend to carry on with [default: $RECURSIVE_CLEANER_BACKEND, else local; a STATE "
    "made "
    "with another one asks for it].",
)
@click.option(
    "-o",
    "--output",
    default=None,
    metavar="PATH",
    help="Where to write the functions [default: cleaning_functions.py beside STATE; a STATE that "
    "names "
    "another path asks for it].",
)
@click.option(
    "--report",
    default=None,
    metavar="PATH",
    help="Markdown report path, '' for none [default: cleaning_report.md beside the functions].",
)
@click.option(
    "--llm-attempts",
    type=click.IntRange(min=1),
    default=None,
    help="Calls per prompt before a failing backend stops the run [default: as in STATE].",
)
@click.option(
    "--log-calls",
    default=None,
    metavar="FILE",
    help="Append one JSON line per model call to FILE (as generate --log-calls).",
)
@backend_option
@progress_option
@debug_option
def resume(
    state: str,
    backend: str | None,
    output: str | None,
    report: str | None,
    llm_attempts: int | None,
    log_calls: str | None,
    backend_options: tuple[str, ...],
    progress: str,
) -> None:
    """Carry on a run from its state file.

    The progress, the functions and every option that changes what is generated are read from
    STATE; where the data is sent (-b) and where files are written (-o, --report) are not: a
    STATE made with others names them and asks for the flag.
    """
    from ..cleaner import DataCleaner
    from ..errors import StateFileError
    from ..run.resume import CLI_NAMES, resume_backend, resume_paths
    from ..write.state import load_state

    saved = load_state(state)  # a missing or unusable state file fails before the backend is built
    kept = saved.get("options", {})
    given = {"output_path": output} if output else {}
    if report is not None:
        given["report_path"] = report or None
    try:
        # made with an object (Python): the default backend
        if backend is None and kept.get("backend") is None:
            backend = default_backend()
        spec, saved_options = resume_backend(state, kept, backend, names=CLI_NAMES)
        paths = resume_paths(state, kept, given, names=CLI_NAMES)
    except StateFileError as exc:  # a flag to give again: one line, exit 2 as for any usage error
        fail(click.get_current_context(), one_line(str(exc)), 2)
    llm = _build_backend(spec, backend_options, saved_options)
    # a finished run: said so, nothing rewritten
    done, total = saved.get("last_completed_chunk", -1) + 1, saved.get("total_chunks") or 0
    if total and done == total and _same_size(saved):  # else the run's own checks say what is off
        n = len(saved.get("functions") or ())
        echo(
            f"the run in {state} finished: {n} function(s); nothing to resume \u2014 use generate "
            "--restart to start over"
        )
        return
    click.get_current_context().meta[RESUME] = (state, spec)
    with progress_display(progress) as on_progress:
        given = {"llm_attempts": llm_attempts} if llm_attempts is not None else {}
        given.update({"log_calls": log_calls} if log_calls else {})
        cleaner = DataCleaner.resume(state, llm, on_progress=on_progress, **paths, **given)
        result = cleaner.run()
    _finished(result, bool(saved.get("options", {}).get("dry_run")), saved.get("file_path"))


cli.add_command(apply_cmd)
cli.add_command(validate)
cli.add_command(plan)
cli.add_command(report)
add_examples(cli)  # every --help ends with copy-paste examples (issue 45)


def _finished(result: Any, dry_run: bool, source: str | None) -> None:
    """A finished run's lines, and whether the open pass was needed (issue 45)."""
    print_result(result, dry_run, source=source)
    note = "" if dry_run else result.open_pass_note()
    if note:
        echo(note)


def _same_size(saved: dict) -> bool:
    """The state's data file is still the size it was (a changed one is refused by the run)."""
    try:
        return os.path.getsize(saved["file_path"]) == saved.get("file_size", -1)
    except (OSError, KeyError, TypeError):
        return False


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code instead of exiting (the console script exits with it)."""
    try:
        with sigterm_as_interrupt():
            cli.main(args=argv, prog_name=None if argv is None else PROG, standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    # SIGTERM outside a command (while parsing, after the exit code was decided)
    except Terminated:
        return 143
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
