"""The commands over a whole data file: ``apply`` the functions to it, ``validate`` it by a spec."""

from __future__ import annotations

import warnings

import click

from ..options import BY_NAME
from ..read.formats import output_extensions
from .cli_common import (
    SectionedCommand,
    debug_option,
    distinct,
    echo,
    need_file,
    progress_display,
    progress_option,
)
from .cli_dask import LOCAL_CLUSTER, apply_on_dask
from .cli_options import click_option

__all__ = ["FAILED_RECORDS_EXIT", "apply_cmd", "validate"]

encoding_option = click_option(BY_NAME["encoding"])  # declared once, in options.Chunking

# apply finished, but more input rows than --max-failures were not cleaned (malformed, or clean_data
# failed on them)
FAILED_RECORDS_EXIT = 1


@click.command("apply", cls=SectionedCommand)
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
    help="Write records clean_data fails on here (JSONL) instead of unchanged to the output, and "
    "input rows that cannot be read (with their line).",
)
@click.option(
    "--max-failures",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="N",
    help="Exit 0 (with a warning) when at most N input rows are not cleaned (malformed, or "
    "clean_data failed); exit 1 past N.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Records sent to a worker at a time.",
)
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
@encoding_option
@click.option(
    "--report",
    "report_path",
    default=None,
    metavar="PATH",
    help="Write an HTML page: per field, wrong values before and after counted on the whole file "
    "(by the spec), real before → after examples, the cross-row steps.",
)
@click.option(
    "--spec",
    "spec_path",
    default=None,
    metavar="PATH",
    help="The field spec: blanks of its number and date fields are written as nulls, Parquet "
    "columns get their types, --report counts by it [default: the one the run that wrote "
    "FUNCTIONS wrote beside them, FUNCTIONS-STEM.spec.json].",
)
@progress_option
@debug_option
def apply_cmd(
    functions: str,
    file: str,
    output: str,
    trusted: bool,
    workers: int | None,
    reject_file: str | None,
    max_failures: int,
    batch_size: int,
    timeout: float,
    audit: str | None,
    no_cross_row: bool,
    allow_drop: bool,
    dask_address: str | None,
    partition_size: int,
    encoding: str,
    report_path: str | None,
    spec_path: str | None,
    progress: str,
) -> None:
    """Apply cleaning functions to a whole file.

    Runs clean_data from FUNCTIONS (a cleaning_functions.py) on every record of FILE, in worker
    processes (sandboxed unless --trusted), then the file's cross-row steps (a second pass),
    and writes the records in order to OUTPUT, in the format its extension names. FILE is
    {formats}.
    """
    from ..apply.local import MAX_DROP, apply_file
    from ..apply.report import find_spec, write_apply_report
    from ..run.setup import check_distinct_paths

    need_file(functions, "functions file")
    need_file(file, "data file")
    found_spec = None
    if spec_path is not None:
        need_file(spec_path, "spec file")
    else:  # the spec the run that wrote FUNCTIONS wrote for them; a stale one is said so
        found = find_spec(functions)
        found_spec = found.path
        if found.note:
            echo(f"note: {found.note}", err=True)
    spec_read = {"--spec": spec_path} if spec_path else {f"the spec of {functions}": found_spec}
    distinct(
        check_distinct_paths,
        {"FUNCTIONS": functions, "FILE": file, **spec_read},
        {"-o": output, "--reject-file": reject_file, "--audit": audit, "--report": report_path},
    )
    options = dict(
        batch_size=batch_size,
        trusted=trusted,
        reject_path=reject_file,
        timeout_per_batch=timeout,
        cross_row=not no_cross_row,
        max_drop=1.0 if allow_drop else MAX_DROP,
        encoding=encoding,
        # the field spec types the output; one that cannot be read is an error, named
        spec=spec_path or found_spec or False,
    )
    with progress_display(progress) as on_progress, warnings.catch_warnings():
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
        echo(
            f"warning: {file} has no field {', '.join(map(repr, result.missing_fields))} that "
            f"{functions} "
            "reads; were the functions written for other data?",
            err=True,
        )
    malformed = (
        f", {result.skipped_input:,} malformed input row(s) "
        f"({f'in {reject_file}' if reject_file else 'left out'}; line(s) "
        f"{', '.join(str(s.line) for s in result.skipped[:5])}"
        f"{', ...' if result.skipped_input > 5 else ''})"
        if result.skipped_input
        else ""
    )
    failed = f", {result.failed} failed" + (
        f" (in {reject_file})"
        if reject_file and result.failed
        else " (written unchanged)"
        if result.failed
        else ""
    )
    echo(
        f"wrote {output}: {result.records_out:,} of {result.rows_in:,} records{malformed}{failed}, "
        f"{result.seconds:.1f}s "
        f"({result.records_per_s:,.0f} records/s, {result.workers} "
        f"{'trusted' if result.trusted else 'sandboxed'} worker(s)"
        + ("" if dask_address is None else f" on Dask {dask_address}")
        + ")"
    )
    if result.cross_row_steps:
        changed = sum(n for fields in result.cross_row_changed.values() for n in fields.values())
        echo(
            f"cross-row steps: {len(result.cross_row_steps)}, {result.dropped_duplicates:,} "
            "duplicates dropped, "
            f"{changed:,} cells changed"
        )
    if audit:
        by_step = (
            ", ".join(f"{name} {n:,}" for name, n in result.changes_by_step.items()) or "no changes"
        )
        echo(f"audit {audit}: {result.audit_rows:,} rows; records changed: {by_step}")
    if result.dropped_keys:
        echo(
            f"warning: keys first seen after the first batch are not in the CSV: "
            f"{', '.join(result.dropped_keys)}",
            err=True,
        )
    if report_path:
        spec = spec_path or found_spec
        write_apply_report(
            functions, file, output, result, report_path, spec=spec, encoding=encoding
        )
        counted = f"wrong values counted by {spec}" if spec else "no field spec: nothing counted"
        echo(f"report {report_path} ({counted})")
    # the output is whole, but not every input row was cleaned (malformed, or clean_data failed):
    # past --max-failures, the exit code
    if result.rejected:
        where = f"in {reject_file}" if reject_file else f"written unchanged to {output}"
        what = f"clean_data failed on {result.failed:,} record(s), {where}"
        if result.skipped_input:
            from ..apply.local import unread

            what = unread(result, file, reject_file) + (f"; {what}" if result.failed else "")
        over = result.rejected > max_failures
        echo(
            f"{'error' if over else 'warning'}: {what} (--max-failures {max_failures}"
            + (f": exit {FAILED_RECORDS_EXIT})" if over else ")"),
            err=True,
        )
        if over:
            raise click.exceptions.Exit(FAILED_RECORDS_EXIT)


@click.command(cls=SectionedCommand)
@click.argument("file")
@click.option(
    "--spec",
    "spec_path",
    default=None,
    metavar="PATH",
    help="The field spec to check against (a run's NAME.spec.json, edited or not) [default: "
    "cleaning_functions.spec.json, the one generate writes here].",
)
@encoding_option
@debug_option
def validate(file: str, spec_path: str | None, encoding: str) -> None:
    """Check FILE against a field spec: per field, the values that break it.

    Exit 0 when every checked value meets the spec, 1 when some do not (blanks are counted apart).
    FILE is {formats}.
    """
    from ..apply.check import validate as check
    from ..apply.report import find_spec
    from ..run.resume import DEFAULT_OUTPUT

    need_file(file, "data file")
    if spec_path is None:  # the spec of the functions generate writes here by default
        found = find_spec(DEFAULT_OUTPUT)
        if found.path is None:
            raise click.UsageError(
                found.note
                or "no field spec here: pass --spec PATH (generate writes NAME.spec.json beside "
                "its functions, analyze REPORT.spec.json beside its report)"
            )
        if found.note:
            echo(f"note: {found.note}", err=True)
        spec_path = found.path
    need_file(spec_path, "spec file")
    result = check(file, spec_path, encoding=encoding)
    echo(result.summary())
    if not result.ok:
        raise click.exceptions.Exit(1)
