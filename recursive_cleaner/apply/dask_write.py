"""apply_dask's transform and output (step 4 of ``dask_fit``): a part's spool through the fitted
steps; the parts' records, rejects and audit pieces written in order as apply_file writes them."""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from collections import Counter
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator

from .audit import AuditLog
from .cross_row import step_label
from .dask_keys import with_owners
from .dask_parts import add_counts, renumbered
from .dask_spool import CrossRowJob, Spooled, spooled_records
from .fields import output_format
from .result import ApplyError, ApplyResult, no_records
from .writers import AtomicFile, output_writer
from ..crossrow.steps import Fitted
from ..read.json_stream import dump_json

__all__ = ["transform_part", "write_output"]


@dataclass
class _Transformed:
    payload: bytes
    lines: int
    dropped: list[int]
    changed: Counter
    dropped_by: Counter
    by_step: Counter
    audit_rows: int


def transform_part(
    job: CrossRowJob, fitted: Fitted, owners: dict[int, dict], k: int, base: int
) -> _Transformed:
    """Part ``k``'s spool through the fitted steps (a Dask task); its audit pieces numbered from
    ``base``."""
    local = with_owners(fitted, owners, k)
    labels = [step_label(i, s) for i, s in enumerate(job.steps)]
    texts, dropped, lines = [], [], 0
    with ExitStack() as stack:
        log = None
        if job.audit:
            functions = AuditLog(
                stack.enter_context(open(job.path(k, "audit1.out"), "wb")), job.audit_csv, False
            )
            with open(job.path(k, "audit1"), "rb") as piece:
                for line in piece:
                    row, fld, old, new, step, kind = json.loads(line)
                    functions.write_row(base + row, fld, old, new, step, kind)
            functions.finish()
            log = AuditLog(
                stack.enter_context(open(job.path(k, "audit2"), "wb")), job.audit_csv, False
            )
        for row, record in spooled_records(job.path(k, "pass1")):
            out = (
                local.transform(record)
                if log is None
                else log.transform(local, record, base + row, labels)
            )
            if out is None:
                dropped.append(lines)
            else:
                texts.append(dump_json(out))
            lines += 1
        if log is not None:
            log.finish()
    return _Transformed(
        b"\n".join(texts),
        lines,
        dropped,
        local.changed,
        local.dropped_by,
        log.by_step if log else Counter(),
        log.rows if log else 0,
    )


def _batches(parts: Iterator[_Transformed], size: int) -> Iterator[tuple[bytes, int]]:
    """The parts' records re-cut as apply_file's pass 2 cuts its spool: ``size`` spooled lines a
    batch."""
    held: list[bytes] = []
    lines = 0
    for part in parts:
        texts = part.payload.split(b"\n") if part.lines > len(part.dropped) else []
        gone, t = set(part.dropped), 0
        for n in range(part.lines):
            if n not in gone:
                held.append(texts[t])
                t += 1
            lines += 1
            if lines == size:
                yield b"\n".join(held), len(held)
                held, lines = [], 0
    if lines:
        yield b"\n".join(held), len(held)


def write_output(
    job: CrossRowJob,
    path: str,
    stats: list[Spooled],
    transformed: Iterator[_Transformed],
    target: str,
    reject: str | None,
    audit_path: str | None,
    done: ApplyResult,
    total: ApplyResult,
    started: float,
    on_progress: Callable[[dict], None] | None,
    column_types: dict | None = None,
) -> None:
    """The output, rejects and audit log of one file, from its parts in order; the counts into
    ``done`` and ``total``."""
    changed: Counter = Counter()
    by_step: Counter = Counter()
    for s in stats:
        by_step.update(s.by_step)
        done.audit_rows += s.audit_rows
    seen: list[_Transformed] = []

    def counted() -> Iterator[_Transformed]:
        for part in transformed:
            seen.append(dataclasses.replace(part, payload=b""))
            yield part

    with (
        AtomicFile(target) as out,
        AtomicFile(reject) if reject else nullcontext() as rejects,
        AtomicFile(audit_path) if audit_path else nullcontext() as audit,
    ):
        # the format the output's extension names, as apply_file writes it
        writer = output_writer(output_format(target), out, target, column_types)
        try:
            for payload, count in _batches(counted(), job.size):
                try:
                    writer.write(payload, count)
                # a record the output format cannot hold (see table_writers)
                except ValueError as exc:
                    raise ApplyError(f"{target}: {exc}") from None
            if not sum(s.result.records_in for s in stats):  # as apply_file: an error
                counts = ApplyResult()
                for s in stats:
                    add_counts(counts, s.result)
                raise no_records(path, counts)
            writer.finish()
        except BaseException:
            getattr(writer, "abort", lambda: None)()  # Parquet/Excel: release the half-written file
            raise
        for s in stats:
            for line in s.result.rejects:
                rejects.write(renumbered(line, done.records_in))
            for result in (done, total):
                add_counts(result, s.result)
        if audit is not None:
            _join_audit(audit, job, len(stats))
    for part in seen:
        changed.update({(i, fld): n for (i, fld), n in part.changed.items()})
        done.dropped_duplicates += sum(part.dropped_by.values())
        by_step.update(part.by_step)
        done.audit_rows += part.audit_rows
    done.records_out -= done.dropped_duplicates
    total.records_out -= done.dropped_duplicates
    total.dropped_duplicates += done.dropped_duplicates
    labels = done.cross_row_steps
    for (i, fld), n in sorted(changed.items(), key=lambda item: item[0][0]):
        done.cross_row_changed.setdefault(labels[i], {})[fld] = n
    done.changes_by_step = dict(by_step) if job.audit else {}
    done.dropped_keys = sorted(getattr(writer, "dropped", ()))
    if on_progress is not None:
        on_progress(
            {
                "type": "apply_progress",
                "path": path,
                "records_in": total.records_in,
                "records_out": total.records_out,
                "failed": total.failed,
                "skipped_input": total.skipped_input,
                "seconds": time.monotonic() - started,
            }
        )


def _join_audit(audit: BinaryIO, job: CrossRowJob, n: int) -> None:
    """The log: its CSV header, the functions' rows of every part, then the steps' rows of every
    part."""
    if job.audit_csv:
        AuditLog(audit, as_csv=True).finish()
    for what in ("audit1.out", "audit2"):
        for k in range(n):
            with open(job.path(k, what), "rb") as piece:
                shutil.copyfileobj(piece, audit, 1 << 20)
