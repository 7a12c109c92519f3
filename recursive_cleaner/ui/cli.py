"""The ``recursive-cleaner`` command line (also ``python -m recursive_cleaner``), built with click.

Commands: ``generate`` (write cleaning_functions.py), ``analyze`` (issues report, no code),
``resume`` (carry on from a state file), ``apply`` (run the functions over a whole file) and
``report`` (print a report, or the summary of a state file). An error prints ONE line on stderr
and exits 1 (2 for a usage error, 130 on Ctrl-C, 143 on SIGTERM); ``--debug`` shows the traceback as
well. SIGTERM cleans up as Ctrl-C does (sandbox children and their folders, partial output files);
a second SIGTERM ends the process at once.
"""

from __future__ import annotations

import contextlib

import logging
import signal
import sys
import threading
import traceback
import warnings
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Callable

import click

from .._version import __version__
from ..errors import CleanerError, LLMCallError, PathConflictError, clip_text
from ..escape import terminal_text
from ..read.formats import output_extensions
from .cli_dask import LOCAL_CLUSTER, apply_on_dask
from .cli_options import backend_option, default_backend, run_kwargs, run_options

__all__ = ["cli", "main", "make_backend", "error_message", "state_summary"]

PROG = "recursive-cleaner"


def _echo(text: str, err: bool = False) -> None:
    """Every line the CLI prints: field names, goals, a report's text may hold terminal escape
    sequences."""
    click.echo(terminal_text(text), err=err)


_DEBUG, _RESUME = "recursive_cleaner.debug", "recursive_cleaner.resume_hint"
FAILED_RECORDS_EXIT = 3  # apply finished, but clean_data failed on some records
# import name of an optional dependency -> how to install it
_INSTALL = {
    "xllamacpp": "pip install 'recursive-data-cleaner[local]'",
    "llama_cpp": "pip install llama-cpp-python",
    "mlx_lm": "pip install 'recursive-data-cleaner[mlx]' (Apple Silicon only)",
    "mlx": "pip install 'recursive-data-cleaner[mlx]' (Apple Silicon only)",
    "rich": "pip install 'recursive-data-cleaner[progress]'",
}


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


# ---------------------------------------------------------------------------- errors
def _one_line(text: str) -> str:
    """One line for the terminal: whitespace runs as one space, at most 2,000 characters, no escape
    sequences."""
    return " ".join(clip_text(text, 2000).split())


def error_message(exc: BaseException) -> str:
    """The one line a shell user sees for ``exc``."""
    if isinstance(exc, ImportError):
        text = str(exc) or f"No module named {exc.name!r}"
        hint = _INSTALL.get((exc.name or "").split(".")[0])
        if "pip install" in text:
            return _one_line(text)
        return _one_line(
            f"missing dependency: {text}" + (f"; install it with: {hint}" if hint else "")
        )
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return _one_line(f"{exc.strerror}: {exc.filename}")
    text = str(exc)
    if isinstance(exc, (CleanerError, ValueError, OSError)) or type(exc).__module__.startswith(
        "recursive_cleaner.backends"
    ):
        return _one_line(text or type(exc).__name__)
    return _one_line(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def _fail(ctx: click.Context, message: str, code: int) -> None:
    if ctx.meta.get(_DEBUG):
        traceback.print_exc()
    _echo(f"Error: {message}", err=True)
    raise click.exceptions.Exit(code)


class _Group(click.Group):
    """Turns every error of a command into one line on stderr and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt as exc:
            hint, what = (
                _resume_hint(ctx),
                "terminated" if isinstance(exc, _Terminated) else "interrupted",
            )
            _fail(
                ctx,
                what + (f"; finished chunks are saved, carry on with: {hint}" if hint else ""),
                143 if isinstance(exc, _Terminated) else 130,
            )
        except Exception as exc:  # noqa: BLE001 - the one place that reports any error to the shell
            message, hint = error_message(exc), _resume_hint(ctx)
            if isinstance(exc, LLMCallError) and hint:
                message += f" (finished chunks are saved; carry on with: {hint})"
            _fail(ctx, message, 1)


def _resume_hint(ctx: click.Context) -> str | None:
    """The command that carries on this run, once its state file holds a finished chunk."""
    import shlex

    from ..errors import StateFileError
    from ..run.resume import CLI_NAMES, resume_paths
    from ..write.state import load_state

    state, backend = ctx.meta.get(_RESUME, (None, None))
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


def _set_debug(ctx: click.Context, _param: Any, value: bool) -> None:
    if value:
        ctx.meta[_DEBUG] = True


def _debug_option(f: Callable) -> Callable:
    return click.option(
        "--debug",
        is_flag=True,
        default=False,
        expose_value=False,
        is_eager=True,
        callback=_set_debug,
        help="Show the traceback of an error.",
    )(f)


def _need_file(path: str, what: str) -> None:
    if not Path(path).is_file():
        raise FileNotFoundError(f"{what} not found: {path}")


def _distinct(check: Callable, *args: Any, **kwargs: Any) -> None:
    """Run a path check (``run.setup``); an output over an input or another output is a usage
    error."""
    try:
        check(*args, **kwargs)
    except PathConflictError as exc:
        raise click.UsageError(str(exc)) from None


_RUN_NAMES = {
    "file_path": "FILE",
    "ground_truth": "--ground-truth",
    "output_path": "-o",
    "report_path": "--report",
    "state_file": "--state",
}


def _instructions(value: str) -> str:
    """Inline text, or ``@path`` to read it from a file."""
    if not value.startswith("@"):
        return value
    _need_file(value[1:], "instructions file")
    try:
        return Path(value[1:]).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise click.UsageError(
            f"instructions file {value[1:]} is not UTF-8 text ({exc.reason} at byte "
            f"{exc.start}); re-encode it to UTF-8"
        ) from None


class _StderrNow:
    """sys.stderr as it is when written to (so log lines go above a live progress bar)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _progress(mode: str) -> Any:
    """A LiveProgress for ``--progress auto|bar|plain``, or nothing for ``off``."""
    if mode == "off":
        return nullcontext(None)
    from .progress import LiveProgress

    return LiveProgress(live={"auto": None, "bar": True, "plain": False}[mode])


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
_progress_opt = click.option(
    "--progress",
    "progress",
    type=click.Choice(["auto", "bar", "plain", "off"]),
    default="auto",
    show_default=True,
    help="Live bar on a terminal (auto), always the bar, plain lines, or nothing.",
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
_tail = _options(_progress_opt, _debug_option)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name=PROG)
@_debug_option
def cli() -> None:
    """recursive-cleaner: an LLM writes, one tested function at a time, the code that cleans your
    data."""
    logging.basicConfig(
        level=logging.WARNING, format="%(levelname)s: %(message)s", stream=_StderrNow()
    )


@cli.command()
@_common
@run_options("generate")
@backend_option
@_tail
def generate(**opts: Any) -> None:
    """Write cleaning_functions.py for FILE.

    FILE is JSONL, CSV, JSON or plain text. The model reads it chunk by chunk and writes one tested
    function at a time; the functions, a markdown report and (with --state) a state file are
    written.
    """
    _clean(opts, dry_run=opts.pop("dry_run"))


@cli.command()
@_common
@run_options("analyze")
@backend_option
@_tail
def analyze(**opts: Any) -> None:
    """Report the issues of FILE, write no code.

    A dry run: the field profile and one detection call per chunk; the report lists the issues, in
    analysis_report.md unless --report is given (a generate run's cleaning_report.md is left as it
    is).
    """
    source = click.get_current_context().get_parameter_source("report_path")
    if source == click.core.ParameterSource.DEFAULT:
        opts["report_path"] = ANALYSIS_REPORT
    _clean(opts, dry_run=True)


ANALYSIS_REPORT = "analysis_report.md"


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
    _need_file(file, "data file")
    if kwargs.get("ground_truth"):
        _need_file(kwargs["ground_truth"], "ground-truth file")
    if kwargs.get("spec"):
        _need_file(kwargs["spec"], "spec file")
    output, report = kwargs["output_path"], kwargs["report_path"]
    _distinct(
        check_run_paths,
        file,
        output,
        beside(report, output),
        state,
        kwargs.get("ground_truth"),
        names=_RUN_NAMES,
    )
    instructions = _instructions(kwargs.pop("instructions"))
    llm = _build_backend(backend, opts.pop("backend_options"))
    click.get_current_context().meta[_RESUME] = (state, backend)
    kwargs["dry_run"] = dry_run
    with _progress(opts.pop("progress")) as on_progress:
        cleaner = DataCleaner(
            llm,
            file,
            instructions=instructions,
            state_file=state,
            on_progress=on_progress,
            **kwargs,
        )
        result = cleaner.run()
    if not instructions.strip():
        _echo(
            "warning: no goals were given (-i TEXT or -i @FILE): every field was in scope and the "
            "model "
            "decided what is wrong",
            err=True,
        )
    _print_result(result, dry_run)


@cli.command()
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
@backend_option
@_progress_opt
@_debug_option
def resume(
    state: str,
    backend: str | None,
    output: str | None,
    report: str | None,
    llm_attempts: int | None,
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
        _fail(click.get_current_context(), _one_line(str(exc)), 2)
    llm = _build_backend(spec, backend_options, saved_options)
    click.get_current_context().meta[_RESUME] = (state, spec)
    with _progress(progress) as on_progress:
        given = {"llm_attempts": llm_attempts} if llm_attempts is not None else {}
        cleaner = DataCleaner.resume(state, llm, on_progress=on_progress, **paths, **given)
        result = cleaner.run()
    _print_result(result, bool(saved.get("options", {}).get("dry_run")))


def _print_result(result: Any, dry_run: bool) -> None:
    llm = result.llm
    if result.chunks_total == 0:  # exit 1 below: nothing was learned, whatever was written
        _echo(
            "Error: the input holds no records (an empty file, or every line skipped): nothing to "
            "learn from",
            err=True,
        )
    if dry_run:
        from ..run.dry_run import distinct_issues

        issues = distinct_issues(result.issues)  # each chunk reports its own: count each issue once
        fields = sorted({i["field"] for i in issues if i.get("field")})
        _echo(
            f"found {len(issues)} issue(s)" + (f" in fields {', '.join(fields)}" if fields else "")
        )
    else:
        _echo(
            f"wrote {result.output_path}: {len(result.functions)} function(s) "
            f"{', '.join(result.functions)}".rstrip()
        )
    _echo(
        f"chunks {result.chunks_processed}/{result.chunks_total}"
        + (
            f" (resumed after chunk {result.resumed_from_chunk + 1})"
            if result.resumed_from_chunk is not None and result.chunks_processed
            else ""
        )
        + (
            " (every chunk was already done: nothing left to run)"
            if result.resumed_from_chunk is not None and not result.chunks_processed
            else ""
        )
        + (" (stopped early: later chunks taught nothing new)" if result.stopped_early else "")
        + f", skipped input lines {result.skipped_records}, "
        f"LLM calls {llm['calls']}, tokens {llm['prompt_tokens']}+{llm['completion_tokens']}"
        + (f", {result.unusable_replies} unusable replies" if result.unusable_replies else "")
    )
    if result.spec_path:
        _echo(f"field spec {result.spec_path} (edit it and pass it back with --spec)")
    if result.cross_row_sample:
        _echo(
            f"cross-row steps: {len(result.cross_row)}; on a sample they keep "
            f"{result.cross_row_sample - result.cross_row_dropped:,} of "
            f"{result.cross_row_sample:,} records"
        )
    if result.improvement is not None:
        _echo(str(result.improvement))
    if result.report_path:
        _echo(f"report {result.report_path}")
    if result.chunks_total == 0:
        raise click.exceptions.Exit(1)


@cli.command("apply")
@click.argument("functions")
@click.argument("file")
@click.option(
    "-o",
    "--output",
    required=True,
    help=(
        "Cleaned file to write, in the format its extension names "
        f"({' '.join(output_extensions())})."
    ),
)
@click.option(
    "--trusted",
    is_flag=True,
    default=False,
    help="Run FUNCTIONS as a normal module without the sandbox (only for code you reviewed).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes [default: one per core].",
)
@click.option(
    "--reject-file",
    default=None,
    metavar="PATH",
    help="Write records clean_data fails on here (JSONL) instead of unchanged to the output.",
)
@click.option("--batch-size", type=click.IntRange(min=1), default=2000, show_default=True)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds one batch may take.",
)
@click.option(
    "--audit",
    "audit",
    default=None,
    metavar="PATH",
    help="Log every changed cell here: row, field, old, new, step (JSONL; CSV for a .csv path).",
)
@click.option(
    "--no-cross-row",
    is_flag=True,
    default=False,
    help="Do not run the file's CROSS_ROW_STEPS after clean_data.",
)
@click.option(
    "--allow-drop",
    is_flag=True,
    default=False,
    help="Let cross-row steps the goals did not ask for drop more than 5% of the records.",
)
@click.option(
    "--dask",
    "dask_address",
    is_flag=False,
    flag_value=LOCAL_CLUSTER,
    default=None,
    metavar="[SCHEDULER_ADDRESS]",
    help="Run on Dask: the scheduler at SCHEDULER_ADDRESS (paths must be the same on every "
    "worker), or a "
    "LocalCluster of --workers processes when no address is given (needs the dask extra).",
)
@click.option(
    "--partition-size",
    type=click.IntRange(min=1),
    default=100_000,
    show_default=True,
    help="With --dask: input lines (records for CSV) per Dask task.",
)
@_progress_opt
@_debug_option
def apply_cmd(
    functions: str,
    file: str,
    output: str,
    trusted: bool,
    workers: int | None,
    reject_file: str | None,
    batch_size: int,
    timeout: float,
    audit: str | None,
    no_cross_row: bool,
    allow_drop: bool,
    dask_address: str | None,
    partition_size: int,
    progress: str,
) -> None:
    """Apply cleaning functions to a whole file.

    Runs clean_data from FUNCTIONS (a cleaning_functions.py) on every record of FILE, in worker
    processes (sandboxed unless --trusted), then the file's cross-row steps (a second pass),
    and writes the records in order to OUTPUT, in the format its extension names.
    """
    from ..apply.local import MAX_DROP, apply_file
    from ..run.setup import check_distinct_paths

    _need_file(functions, "functions file")
    _need_file(file, "data file")
    _distinct(
        check_distinct_paths,
        {"FUNCTIONS": functions, "FILE": file},
        {"-o": output, "--reject-file": reject_file, "--audit": audit},
    )
    options = dict(
        batch_size=batch_size,
        trusted=trusted,
        reject_path=reject_file,
        timeout_per_batch=timeout,
        cross_row=not no_cross_row,
        max_drop=1.0 if allow_drop else MAX_DROP,
    )
    with _progress(progress) as on_progress, warnings.catch_warnings():
        # missing fields: one "warning:" line below instead
        warnings.simplefilter("ignore", UserWarning)
        if dask_address is None:
            result = apply_file(
                functions,
                file,
                output,
                workers=workers,
                on_progress=on_progress,
                audit_path=audit,
                **options,
            )
        else:
            result = apply_on_dask(
                functions,
                file,
                output,
                dask_address,
                workers,
                partition_size,
                audit=audit,
                on_progress=on_progress,
                **options,
            )
    if result.missing_fields:
        _echo(
            f"warning: {file} has no field {', '.join(map(repr, result.missing_fields))} that "
            f"{functions} "
            "reads; were the functions written for other data?",
            err=True,
        )
    failed = f", {result.failed} failed" + (
        f" (in {reject_file})"
        if reject_file and result.failed
        else " (written unchanged)"
        if result.failed
        else ""
    )
    _echo(
        f"wrote {output}: {result.records_out:,} of {result.records_in:,} records{failed}, "
        f"skipped input lines {result.skipped_input}, {result.seconds:.1f}s "
        f"({result.records_per_s:,.0f} records/s, {result.workers} "
        f"{'trusted' if result.trusted else 'sandboxed'} worker(s)"
        + ("" if dask_address is None else f" on Dask {dask_address}")
        + ")"
    )
    if result.cross_row_steps:
        changed = sum(n for fields in result.cross_row_changed.values() for n in fields.values())
        _echo(
            f"cross-row steps: {len(result.cross_row_steps)}, {result.dropped_duplicates:,} "
            "duplicates dropped, "
            f"{changed:,} cells changed"
        )
    if audit:
        by_step = (
            ", ".join(f"{name} {n:,}" for name, n in result.changes_by_step.items()) or "no changes"
        )
        _echo(f"audit {audit}: {result.audit_rows:,} rows; records changed: {by_step}")
    if result.dropped_keys:
        _echo(
            f"warning: keys first seen after the first batch are not in the CSV: "
            f"{', '.join(result.dropped_keys)}",
            err=True,
        )
    # the output is whole, but not every record was cleaned: say so in the exit code
    if result.failed:
        where = f"in {reject_file}" if reject_file else f"written unchanged to {output}"
        _echo(
            f"warning: clean_data failed on {result.failed:,} record(s), {where} (exit 3)", err=True
        )
        raise click.exceptions.Exit(FAILED_RECORDS_EXIT)


@cli.command()
@click.argument("file")
@click.option(
    "--spec",
    "spec_path",
    default="cleaning_spec.json",
    show_default=True,
    help="The field spec to check against (a run's cleaning_spec.json, edited or not).",
)
@_debug_option
def validate(file: str, spec_path: str) -> None:
    """Check FILE against a field spec: per field, the values that break it.

    Exit 0 when every checked value meets the spec, 1 when some do not (blanks are counted apart).
    """
    from ..apply.check import validate as check

    _need_file(file, "data file")
    _need_file(spec_path, "spec file")
    result = check(file, spec_path)
    _echo(result.summary())
    if not result.ok:
        raise click.exceptions.Exit(1)


@cli.command()
@click.argument("path", default="cleaning_report.md", required=False)
@_debug_option
def report(path: str) -> None:
    """Print a report or a state file's summary.

    PATH is a markdown report (default cleaning_report.md), printed as is, or a state file,
    summarized: progress, functions, model use and the command to carry on.
    """
    _need_file(path, "report or state file")
    text = Path(path).read_text(encoding="utf-8")
    if path.lower().endswith(".json") or text.lstrip().startswith("{"):
        from ..write.state import load_state

        _echo(state_summary(load_state(path), path))
    else:
        _echo(text.rstrip("\n"))


def state_summary(state: dict, path: str) -> str:
    """A few lines about a saved run: data, progress, functions, model use, what to do next."""
    options, llm = state.get("options", {}), state.get("llm", {})
    done, total = state["last_completed_chunk"] + 1, state.get("total_chunks") or 0
    lines = [
        f"state file {path}" + (f" (saved {state['timestamp']})" if state.get("timestamp") else ""),
        f"data       {state['file_path']} (chunk size {state['chunk_size']})",
        f"progress   {done}/{total or '?'} chunks done"
        + (" (dry run)" if options.get("dry_run") else ""),
    ]
    functions = state["functions"]
    lines.append(f"functions  {len(functions)}")
    for f in functions:
        doc = _one_line(f.get("docstring", "")).split(". ")[0][:80]
        lines.append(
            f"  {f['name']}"
            + (f" [{f['field']}]" if f.get("field") else "")
            + (f": {doc}" if doc else "")
        )
    lines.append(
        f"rejected   {len(state.get('rejected', []))} candidate(s); "
        f"skipped input lines {state.get('skipped_records', 0)}"
    )
    if state.get("issues"):
        lines.append(f"issues     {len(state['issues'])} found")
    lines.append(
        f"model      {llm.get('calls', 0)} calls, "
        f"{llm.get('prompt_tokens', 0)}+{llm.get('completion_tokens', 0)} tokens"
    )
    if options.get("output_path"):
        lines.append(
            f"output     {options['output_path']}"
            + (f", report {options['report_path']}" if options.get("report_path") else "")
        )
    if not total or done < total:
        lines.append(f"next       {PROG} resume {path} [-b BACKEND]")
    return "\n".join(lines)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so the cleanup of Ctrl-C runs (exit code 143)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    # a second SIGTERM during the cleanup ends the process at once
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise _Terminated()


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Any:
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


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code instead of exiting (the console script exits with it)."""
    try:
        with _sigterm_as_interrupt():
            cli.main(args=argv, prog_name=None if argv is None else PROG, standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    # SIGTERM outside a command (while parsing, after the exit code was decided)
    except _Terminated:
        return 143
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
