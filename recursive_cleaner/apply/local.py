"""Apply a cleaning_functions.py to a whole dataset: streamed, in parallel, input order kept.

The input is cut into batches of ``batch_size`` records and sent round-robin to N persistent
workers; replies are collected in the order the batches were sent, so the output keeps the input
order without sorting, and at most ``2 × workers`` batches are in flight: memory depends on the
batch size, never on the file size. JSONL batches are raw lines, parsed by the workers (this
process only cuts lines, so it is not the bottleneck). Every format gives its batches
(``read.formats``, ``Format.batches``): CSV, JSON, Parquet and Excel as parsed records. Input rows
that cannot be read (not UTF-8, not JSON or not an object; a CSV row with the wrong number of
fields...) ride on the batch they were met in: counted (``skipped_input``, the first 100 in
``skipped``, reasons and lines as ``parsers.iter_records`` gives them) and, with ``reject_path``,
written there in file order (``{"path", "line", "error"}``, JSONL's raw line as ``"text"``); they
count against ``max_failures`` with the failed records (``ApplyResult.rejected``). An input with no
record is an InputError. Output goes to a temporary file beside the target, renamed over it at the
end: a failed run leaves nothing at the target (and an existing target untouched).

Workers. By default (``trusted=False``) the file must pass the AST policy
(``validation.check_code_safety``) and every worker is a
:class:`~recursive_cleaner.judge.sandbox.SandboxWorker`: the sandbox's locked-down child, kept
alive across batches (the code is loaded once; each batch is one message each way).
``trusted=True`` runs plain ``python -B`` processes (fresh interpreters, not forks) that run
the file as a normal module (any import, files, no limits; the environment holds only the locale and
search-path variables of ``TRUSTED_ENVIRONMENT``, no keys or tokens) under the
same protocol: for a file you have reviewed. Workers keep module state between the records
they see, so a function that depends on earlier records gives results that depend on
``workers`` and ``batch_size``; pure functions give byte-identical output for any of them.

Per record: ``clean_data`` raising, or returning something that is not a JSON-serialisable dict (or
one whose JSON is over 16M characters or nests deeper than 100 levels: see ``judge.sandbox``), makes
the record *failed*: it is written unchanged, or, with ``reject_path``, written there instead (JSONL
``{"index": n, "error": "...", "record": {...}}``, index counted from 0 over the records read). The
run as a whole fails with :class:`ApplyError` (nothing written) on a load error, a refused operation
(the code touched files, processes, the network...), a batch over ``timeout_per_batch``, the memory
limit, or a crashed worker.

Output is in the format its extension names (``apply.fields.output_format``, the registry's
``Format.writer``; any other extension is refused before anything runs), whatever the input's
format: JSONL, one ``json.dumps(record, ensure_ascii=False)`` per line, always valid JSON (a float
NaN or infinity, in a returned record or a failed input line, is written as null); JSON, one
streamed array; CSV (TSV for ``.tsv``), Parquet and Excel (optional extras ``parquet`` /
``excel``) with a column for every key in order of first appearance (a key first seen in a later
batch too: ``read.formats.output``); cells: None → empty, str as is, int/float via str(), bool,
list and dict as JSON. Parquet column types are decided on every value (``table_writers``). With
a field spec (``spec``: ``apply.out_types``) blanks of number and date fields are written as nulls
and such Parquet columns get their real type. A record whose JSON names a key twice (keys 1 and
"1" of a nested dict) fails like one clean_data raised on.

Cross-row steps (``CROSS_ROW_STEPS`` in the file, read as a literal, never run here; off with
``cross_row=False``): two passes. Pass 1 is the above, written to a temporary JSONL file beside the
output while this process fits the steps on the records as they stream back (memory per distinct
key); pass 2 transforms that file (the library's code, here) into the output, which keeps the
input's order (and the output's format); the temporary file is always removed. ``apply_records``
spools pass 1 (in memory up to 32 MB) and yields nothing before it ends. ``audit_path``: a log of
every changed cell, by function (the workers call them one by one) and cross-row step. Details in
``apply.cross_row`` and ``apply.functions_plan``; the final counts also come as an
``apply_complete`` event. Steps the goals did not ask for (a dedup step without ``"asked": True``)
may drop at most ``max_drop`` (5%) of the records: past that the run stops with DataLossError and
writes nothing.

Here: the two entry points. The run's counts and ordered stream of batches are
``apply.pipeline.ApplyRun``; the workers, ``apply.pool``.
"""

from __future__ import annotations

import errno
import itertools
import json
from contextlib import nullcontext
from typing import Any, Callable, Iterable, Iterator

from .fields import missing_fields, output_format, sample_records
from .out_types import column_types, output_spec, spec_inputs
from .cross_row import spool
from .batch import Batch, input_batches
from .pipeline import KEEP_SKIPS, ApplyRun
from .pool import start_workers
from .result import (
    ApplyError,
    ApplyResult,
    check_input_format,
    no_records,
    positive_int,
    read_functions,
)
from .writers import AtomicFile, output_writer
from ..crossrow.guard import MAX_DROP_SHARE as MAX_DROP
from ..errors import CleanerError
from ..run.setup import check_distinct_paths

__all__ = [
    "ApplyError",
    "ApplyResult",
    "apply_file",
    "apply_records",
    "check_failures",
    "unread",
    # shared with apply.on_dask, which runs the same batches on a cluster (their homes: pipeline,
    # pool, batch, result)
    "ApplyRun",
    "Batch",
    "start_workers",
    "positive_int",
    "APPLY_FORMATS",
    "KEEP_SKIPS",
    "read_functions",
    "check_input_format",
]

# the built-ins; ``check_input_format`` asks the registry
APPLY_FORMATS = ("jsonl", "csv", "json", "parquet", "excel")
_FULL = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


def apply_file(
    functions_path: str,
    input_path: str,
    output_path: str,
    *,
    workers: int | None = None,
    batch_size: int = 2000,
    trusted: bool = False,
    reject_path: str | None = None,
    fmt: str | None = None,
    timeout_per_batch: float = 60.0,
    on_progress: Callable[[dict], None] | None = None,
    cross_row: bool = True,
    audit_path: str | None = None,
    max_drop: float = MAX_DROP,
    code: str | None = None,
    max_failures: int | None = None,
    encoding: str = "utf-8",
    spec: Any = None,
) -> ApplyResult:
    """Write clean_data(record) for every record of input_path to output_path, in order, in the
    format its extension names.

    ``workers`` None means one per available core. See the module docstring for failed records,
    ``reject_path``, the output formats and what fails the run (ApplyError); for the file's
    ``CROSS_ROW_STEPS`` (run after clean_data unless ``cross_row=False``) and ``audit_path`` (a log
    of every changed cell). Cross-row steps the goals did not ask for (``asked``) may drop at most
    ``max_drop`` of the records (DataLossError otherwise; 1.0 allows any). An output
    (``output_path``, ``reject_path``, ``audit_path``) that is an input or another output is refused
    before anything is read or written (PathConflictError, a ValueError), and so is an output
    extension that names no format apply writes (ValueError). Fields the functions read that the
    first 200 records lack are listed in ``result.missing_fields``, with a UserWarning and an
    ``apply_warning`` event (functions written for other data would add empty columns). ``code``:
    the module's source, used instead of reading ``functions_path`` (which then only names it in
    messages): a ``CleanResult`` applies its own code, never what the file holds by then.
    ``max_failures``: None (the default) returns the result whatever the failed count; a number
    raises ApplyError (its ``result`` attribute the ApplyResult) when more records failed, after
    the output and ``reject_path`` are written (the CLI's ``--max-failures``). ``encoding``: the
    input's text encoding (JSONL, CSV/TSV, JSON and their .gz; transcoded to UTF-8 for the
    workers); a byte that does not decode is an InputEncodingError naming its line. Outputs are
    UTF-8. ``spec``: the field spec that types the output (``apply.out_types``: blanks of number
    and date fields as nulls, Parquet columns of their real type): a ``CleaningSpec``, its dict or
    a path; None (the default) reads the ``cleaning_spec.json`` beside ``functions_path`` (unless
    ``code`` is given); False: none. An input with no record is an InputError, nothing written.
    Input rows that cannot be read (malformed) go to ``reject_path`` with their file and line, are
    counted in ``skipped_input`` and, like failed records, against ``max_failures``.
    """
    check_distinct_paths(
        {
            "functions_path": functions_path,
            "input_path": input_path,
            **spec_inputs(spec, functions_path, code),
        },
        {"output_path": output_path, "reject_path": reject_path, "audit_path": audit_path},
    )
    out_fmt = output_format(output_path)
    types = column_types(output_spec(spec, functions_path, code))
    source = read_functions(functions_path) if code is None else code
    run = ApplyRun(
        source,
        str(functions_path),
        str(input_path),
        workers,
        trusted,
        timeout_per_batch,
        on_progress,
        cross_row=cross_row,
        audit=audit_path is not None,
        max_drop=max_drop,
    )
    kind = check_input_format("apply_file", str(input_path), fmt).encoded(encoding)
    size = positive_int(batch_size, "batch_size")
    sample = sample_records(str(input_path), kind.name, kind.encoding)
    run.warn_missing(missing_fields(run.code, sample))
    # JSONL: raw lines the workers parse
    batches = input_batches(kind, str(input_path), size)
    try:
        with (
            AtomicFile(output_path) as out,
            AtomicFile(reject_path) if reject_path else nullcontext() as rejects,
            AtomicFile(audit_path) if audit_path else nullcontext() as audit,
            spool(output_path, bool(run.steps)) as spooled,
        ):
            run.open_audit(audit, str(audit_path))
            writer = output_writer(out_fmt, out, output_path, types)
            try:
                for payload, count in run.output(batches, rejects, spooled, size):
                    try:
                        writer.write(payload, count)
                    # a record the output format cannot hold (see table_writers)
                    except ValueError as exc:
                        raise ApplyError(f"{output_path}: {exc}") from None
                if not run.result.records_in:  # nothing written: an empty input is an error
                    raise no_records(str(input_path), run.result)
                writer.finish()
                run.close_audit()
            except BaseException:
                # Parquet/Excel: release the half-written file
                getattr(writer, "abort", lambda: None)()
                raise
    # disk full or a file-size limit: one line naming the file, no temporary file left
    except OSError as exc:
        if isinstance(exc, CleanerError) or exc.errno not in _FULL:
            raise
        raise ApplyError(
            f"cannot write {output_path}: {exc.strerror or exc} (disk full or a file-size limit); "
            "nothing was written and no temporary file is left"
        ) from None
    run.result.dropped_keys = sorted(getattr(writer, "dropped", ()))
    return check_failures(run.finish(), max_failures, str(input_path), reject_path)


def check_failures(
    result: ApplyResult, max_failures: int | None, input_path: str, reject_path: str | None
) -> ApplyResult:
    """The result, or ApplyError when more input rows were not cleaned (``result.rejected``:
    malformed, or clean_data failed) than ``max_failures`` (None: no limit)."""
    if max_failures is None or result.rejected <= max_failures:
        return result
    where = f"in {reject_path}" if reject_path else "written unchanged to the output"
    failed = f"clean_data failed on {result.failed:,} record(s) of {input_path}"
    if result.skipped_input:
        failed = unread(result, input_path, reject_path) + (
            f" and {failed} ({where})" if result.failed else ""
        )
        where = f"{result.rejected:,} in all"
    error = ApplyError(f"{failed}, more than max_failures={max_failures} ({where})")
    error.result = result
    raise error


def unread(result: ApplyResult, input_path: str, reject_path: str | None) -> str:
    """'3 input row(s) of x.csv could not be read (in rejects.jsonl, the first at line 5)'."""
    first = f", the first at line {result.skipped[0].line}" if result.skipped else ""
    kept = f"in {reject_path}" if reject_path else "left out of the output"
    return (
        f"{result.skipped_input:,} input row(s) of {input_path} could not be read ({kept}{first})"
    )


def apply_records(
    functions_source: str,
    records: Iterable[dict],
    *,
    workers: int | None = None,
    batch_size: int = 2000,
    trusted: bool = False,
    reject_path: str | None = None,
    timeout_per_batch: float = 60.0,
    on_progress: Callable[[dict], None] | None = None,
    cross_row: bool = True,
    audit_path: str | None = None,
    max_drop: float = MAX_DROP,
    max_failures: int | None = None,
) -> Iterator[dict]:
    """Yield clean_data(record) for each record, in order; failed records unchanged (or to
    reject_path).

    Then the source's ``CROSS_ROW_STEPS`` unless ``cross_row=False`` (dropped duplicates are not
    yielded), ``audit_path``, ``max_drop`` and ``max_failures`` as for :func:`apply_file` (past
    ``max_failures``, ApplyError once every record is yielded).
    """
    check_distinct_paths({}, {"reject_path": reject_path, "audit_path": audit_path})
    run = ApplyRun(
        functions_source,
        "cleaning_functions.py",
        "<records>",
        workers,
        trusted,
        timeout_per_batch,
        on_progress,
        cross_row=cross_row,
        audit=audit_path is not None,
        max_drop=max_drop,
    )
    size, it = positive_int(batch_size, "batch_size"), iter(records)
    batches = map(Batch, iter(lambda: list(itertools.islice(it, size)), []))
    with (
        AtomicFile(reject_path) if reject_path else nullcontext() as rejects,
        AtomicFile(audit_path) if audit_path else nullcontext() as audit,
        spool(None, bool(run.steps)) as spooled,
    ):
        run.open_audit(audit, str(audit_path))
        for payload, count in run.output(batches, rejects, spooled, size):
            if count:
                # the worker's texts were checked on arrival (sandbox.py); JSON, nested at most
                # MAX_DEPTH
                try:
                    records = [json.loads(text) for text in payload.split(b"\n")]
                except ValueError:
                    raise ApplyError("a worker sent output that is not JSON") from None
                yield from records
        run.close_audit()
    check_failures(run.finish(), max_failures, "the input", reject_path)
