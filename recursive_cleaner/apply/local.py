"""Apply a cleaning_functions.py to a whole dataset: streamed, in parallel, input order kept.

The input is cut into batches of ``batch_size`` records and sent round-robin to N persistent
workers; replies are collected in the order the batches were sent, so the output keeps the input
order without sorting, and at most ``2 × workers`` batches are in flight: memory depends on the
batch size, never on the file size. JSONL batches are raw lines, parsed by the workers (this process
only cuts lines, so it is not the bottleneck); lines that are not UTF-8, not JSON or not an object
are skipped and reported with the reasons and line numbers ``parsers.iter_records`` gives. Every
format gives its batches (``read.formats``, ``Format.batches``): CSV, JSON, Parquet and Excel as
parsed records. Output goes to a temporary file beside the target, renamed over it at the end: a
failed run leaves nothing at the target (and an existing target untouched).

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
streamed array; CSV (TSV for ``.tsv``), whose header is the first output record's keys followed by
any new keys of the rest of the first batch, in order of first appearance. Keys first seen after the
first batch are left out of the CSV and listed in ``ApplyResult.dropped_keys``; cells: None → empty,
str as is, int/float via str(), bool, list and dict as JSON. Parquet and Excel (optional extras
``parquet`` / ``excel``) follow the same header rule; Parquet column types are fixed by the first
batch, and a later value that does not fit fails the run (ApplyError): see ``table_writers``.

Cross-row steps (``CROSS_ROW_STEPS`` in the file, read as a literal, never run here; off with
``cross_row=False``): two passes. Pass 1 is the above, written to a temporary JSONL file beside the
output while this process fits the steps on the records as they stream back (memory per distinct
key); pass 2 transforms that file (the library's code, here) into the output, which keeps the
input's order (and the output's format); the temporary file is always removed. ``apply_records``
spools pass 1 (in memory up to 32 MB) and yields nothing before it ends. ``audit_path``: a log of
every changed cell, by function (the workers call them one by one) and cross-row step. Details in
``_apply_cross_row``; the final counts also come as an ``apply_complete`` event. Steps the goals did
not ask for (a dedup step without ``"asked": True``) may drop at most ``max_drop`` (5%) of the
records: past that the run stops with DataLossError and writes nothing.
"""

from __future__ import annotations

import ast
import errno
import itertools
import json
import math
import os
import sys
import time
import warnings
from collections import deque
from contextlib import nullcontext
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from .fields import missing_fields, output_format, sample_records
from .cross_row import AuditLog, spool, step_label, two_passes
from .functions_plan import FunctionsPlan, read_plan
from .batch import Batch, input_batches
from .result import ApplyError, ApplyResult, check_input_format, positive_int, read_functions
from .writers import AtomicFile, output_writer
from ..read.json_stream import dump_json
from ..crossrow.guard import MAX_DROP_SHARE as MAX_DROP
from ..errors import CleanerError
from ..read.rows import SkippedRecord
from ..judge.sandbox import CHILD_PATH, TRUSTED_ENVIRONMENT, BatchReply, SandboxWorker
from ..judge.validation import check_code_safety
from ..run.setup import check_distinct_paths

__all__ = [
    "ApplyError",
    "ApplyResult",
    "apply_file",
    "apply_records",
    # shared with apply.on_dask, which runs the same batches on a cluster
    "ApplyRun",
    "Batch",
    "start_workers",
    "positive_int",
    "APPLY_FORMATS",
    "KEEP_SKIPS",
    "read_functions",
    "check_input_format",
]

FUNCTION_NAME = "clean_data"
KEEP_SKIPS = 100
# the built-ins; ``check_input_format`` asks the registry
APPLY_FORMATS = ("jsonl", "csv", "json", "parquet", "excel")
_FULL = {errno.ENOSPC, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}
_FINAL_COUNTS = (
    "records_in",
    "records_out",
    "failed",
    "skipped_input",
    "dropped_duplicates",
    "cross_row_changed",
    "changes_by_step",
    "seconds",
)
# The trusted worker: the batch-mode server of _sandbox_child.py, without its lock-down.
# The functions' folder and the working folder go LAST on sys.path (python -c puts the working
# folder first): a
# json.py lying beside cleaning_functions.py must not replace the standard library's (issue 28);
# helper modules
# of your own there are still found.
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
    """
    check_distinct_paths(
        {"functions_path": functions_path, "input_path": input_path},
        {"output_path": output_path, "reject_path": reject_path, "audit_path": audit_path},
    )
    out_fmt = output_format(output_path)
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
    kind = check_input_format("apply_file", str(input_path), fmt)
    size = positive_int(batch_size, "batch_size")
    run.warn_missing(missing_fields(run.code, sample_records(str(input_path), kind.name)))
    # JSONL: raw lines the workers parse
    batches = input_batches(kind, str(input_path), size, run.skip)
    try:
        with (
            AtomicFile(output_path) as out,
            AtomicFile(reject_path) if reject_path else nullcontext() as rejects,
            AtomicFile(audit_path) if audit_path else nullcontext() as audit,
            spool(output_path, bool(run.steps)) as spooled,
        ):
            run.open_audit(audit, str(audit_path))
            writer = output_writer(out_fmt, out, output_path)
            try:
                for payload, count in run.output(batches, rejects, spooled, size):
                    try:
                        writer.write(payload, count)
                    # a record the output format cannot hold (see table_writers)
                    except ValueError as exc:
                        raise ApplyError(f"{output_path}: {exc}") from None
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
    return run.finish()


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
) -> Iterator[dict]:
    """Yield clean_data(record) for each record, in order; failed records unchanged (or to
    reject_path).

    Then the source's ``CROSS_ROW_STEPS`` unless ``cross_row=False`` (dropped duplicates are not
    yielded), ``audit_path`` and ``max_drop`` as for :func:`apply_file`.
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
    run.finish()


# ---------------------------------------------------------------------------- the pipeline
class ApplyRun:
    """One apply run: options, counts, and the ordered stream of cleaned batches."""

    def __init__(
        self,
        code: str,
        filename: str,
        path: str,
        workers: int | None,
        trusted: bool,
        timeout: float,
        on_progress: Callable[[dict], None] | None,
        *,
        cross_row: bool = True,
        audit: bool = False,
        max_drop: float = 1.0,
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout_per_batch must be positive, got {timeout!r}")
        if not 0 <= max_drop <= 1:
            raise ValueError(f"max_drop must be a share between 0 and 1, got {max_drop!r}")
        self.max_drop = max_drop
        self.code, self.filename, self.path, self.timeout, self.on_progress = (
            code,
            filename,
            path,
            timeout,
            on_progress,
        )
        self.result = ApplyResult(workers=_worker_count(workers), trusted=trusted)
        try:
            self.plan: FunctionsPlan = read_plan(code, filename, steps=cross_row, audit=audit)
        except ValueError as exc:
            raise ApplyError(str(exc)) from None
        self.steps = self.plan.steps
        self.result.cross_row_steps = [step_label(i, s) for i, s in enumerate(self.steps)]
        self.audit: AuditLog | None = None
        self.started = time.monotonic()

    def open_audit(self, out: BinaryIO | None, path: str) -> None:
        self.audit = None if out is None else AuditLog(out, as_csv=path.lower().endswith(".csv"))

    def close_audit(self) -> None:
        if self.audit is not None:
            self.audit.finish()
            self.result.changes_by_step = dict(self.audit.by_step)
            self.result.audit_rows = self.audit.rows

    def finish(self) -> ApplyResult:
        """The result, timed; reported as an ``apply_complete`` event."""
        result = self.result
        result.seconds = time.monotonic() - self.started
        if self.on_progress is not None:
            self.on_progress(
                {"type": "apply_complete", **{k: getattr(result, k) for k in _FINAL_COUNTS}}
            )
        return result

    def warn_missing(self, fields: list[str]) -> None:
        """Record, warn about and report fields the functions read that the data does not have."""
        if not fields:
            return
        self.result.missing_fields = fields
        message = (
            f"the data has no field {', '.join(map(repr, fields))} that the cleaning functions "
            "read; "
            "were they written for other data?"
        )
        warnings.warn(message, UserWarning, stacklevel=3)
        if self.on_progress is not None:
            self.on_progress(
                {"type": "apply_warning", "message": message, "missing_fields": fields}
            )

    def skip(self, record: SkippedRecord) -> None:
        self.result.skipped_input += 1
        if len(self.result.skipped) < KEEP_SKIPS:
            self.result.skipped.append(record)
        if self.on_progress is not None:
            self.on_progress(
                {
                    "type": "record_skipped",
                    "path": record.path,
                    "line": record.line,
                    "reason": record.reason,
                }
            )

    def output(
        self, batches: Iterator[Batch], rejects: BinaryIO | None, spool: BinaryIO | None, size: int
    ) -> Iterator[tuple[bytes, int]]:
        """(payload, count) per batch of the output: clean_data's, then (with steps and a spool) the
        cross-row pass."""
        if not self.steps or spool is None:
            for payload, count, _ in self.cleaned_rows(batches, rejects):
                yield payload, count
            return
        yield from two_passes(
            self.cleaned_rows(batches, rejects),
            self.steps,
            spool,
            size,
            self.audit,
            self.result,
            self.max_drop,
        )

    def cleaned(
        self, batches: Iterator[Batch], rejects: BinaryIO | None
    ) -> Iterator[tuple[bytes, int]]:
        """(payload, count) per batch in input order: count JSON texts joined by b"\\n", failed
        records resolved."""
        for payload, count, _ in self.cleaned_rows(batches, rejects):
            yield payload, count

    def cleaned_rows(
        self, batches: Iterator[Batch], rejects: BinaryIO | None
    ) -> Iterator[tuple[bytes, int, Any]]:
        """``cleaned``, with the input index of each record of the payload (a range; a list when
        some were rejected)."""
        result = self.result
        for batch, reply in self._replies(batches):
            for record in batch.skipped(self.path, reply.skipped) if reply.skipped else ():
                self.skip(record)
            first = result.records_in
            result.records_in += reply.n
            payload, count, rows = reply.payload, reply.n, range(first, first + reply.n)
            if self.plan.audited and reply.n:  # each text is {"record", "trail"}: log the trail
                payload = AuditLog.unwrap(payload, first, self.plan.names, self.audit)
            if reply.failed:
                result.failed += len(reply.failed)
                texts: list[bytes | None] = list(payload.split(b"\n"))
                for failed in reply.failed:
                    if rejects is None:
                        texts[failed[0]] = _json_out(batch.original(failed))
                    else:
                        texts[failed[0]] = None
                        entry = {
                            "index": first + failed[0],
                            "error": failed[1],
                            "record": batch.original(failed),
                        }
                        rejects.write(_json_out(entry) + b"\n")
                        if self.audit is not None:
                            self.audit.event(first + failed[0], "clean_data", "rejected")
                rows = [first + k for k, t in enumerate(texts) if t is not None]
                kept = [texts[k - first] for k in rows]
                payload, count = b"\n".join(kept), len(kept)
            result.records_out += count
            if self.on_progress is not None:
                self.on_progress(
                    {
                        "type": "apply_progress",
                        "records_in": result.records_in,
                        "records_out": result.records_out,
                        "failed": result.failed,
                        "skipped_input": result.skipped_input,
                        "seconds": time.monotonic() - self.started,
                    }
                )
            yield payload, count, rows

    def _replies(self, batches: Iterator[Batch]) -> Iterator[tuple[Batch, BatchReply]]:
        """(batch, reply) pairs: batches sent round-robin to n workers, collected in order, at most
        2 × n in flight."""
        n = self.result.workers
        pool = start_workers(
            self.plan.code,
            self.filename,
            n,
            self.result.trusted,
            self.timeout,
            function=self.plan.function,
        )
        pending: deque = deque()
        done, first = False, 0
        try:
            for number, batch in enumerate(batches):
                if len(pending) >= 2 * n:
                    yield self._collect(*pending.popleft())
                worker = pool[number % n]
                try:
                    batch.submit(worker)
                except (TypeError, ValueError) as exc:
                    raise ApplyError(
                        f"{batch.where(first)}: a record is not JSON-serialisable: {exc}"
                    ) from None
                pending.append((batch, worker, first))
                first += len(batch.records or ())
            while pending:
                yield self._collect(*pending.popleft())
            done = True
        finally:
            for worker in pool:
                worker.close(kill=not done)

    def _collect(self, batch: Batch, worker: SandboxWorker, first: int) -> tuple[Batch, BatchReply]:
        reply = worker.receive(self.timeout)
        if not reply.ok:
            raise ApplyError(f"{self.path}: {batch.where(first)}: {reply.error}")
        return batch, reply


def start_workers(
    code: str,
    filename: str,
    n: int,
    trusted: bool,
    timeout: float,
    *,
    function: str = FUNCTION_NAME,
) -> list[SandboxWorker]:
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


def _json_out(value: Any) -> bytes:
    """``dump_json(value)`` with NaN and infinities (an input line may hold them) as null, as
    workers send them."""
    data = dump_json(value)
    if b"NaN" in data or b"Infinity" in data:
        data = dump_json(json.loads(data, parse_constant=lambda _name: None))
    return data


def _worker_count(workers: int | None) -> int:
    if workers is None:
        return (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
    return positive_int(workers, "workers")
