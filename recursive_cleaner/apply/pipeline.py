"""apply's pipeline: one run's options and counts, and its ordered stream of cleaned batches."""

from __future__ import annotations

import json
import math
import time
import warnings
from collections import deque
from typing import Any, BinaryIO, Callable, Iterator

from .audit import AuditLog, named_twice
from .batch import Batch, Malformed
from .cross_row import step_label, two_passes
from .functions_plan import FunctionsPlan, read_plan
from .pool import start_workers, worker_count
from .result import ApplyError, ApplyResult
from ..read.json_stream import dump_json
from ..read.rows import SkippedRecord
from ..judge.sandbox import BatchReply, SandboxWorker

__all__ = ["ApplyRun", "KEEP_SKIPS", "malformed_entry"]

KEEP_SKIPS = 100
_FINAL_COUNTS = (
    "records_in",
    "records_out",
    "failed",
    "skipped_input",
    "rows_in",
    "rejected",
    "dropped_duplicates",
    "cross_row_changed",
    "changes_by_step",
    "seconds",
)


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
        if not 0 < timeout < math.inf:
            raise ValueError(f"timeout_per_batch must be a positive finite number, not {timeout!r}")
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
        self.result = ApplyResult(workers=worker_count(workers), trusted=trusted)
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
            # rows that could not be read: counted, reported, and kept in the reject file
            for row in batch.malformed(self.path, reply.skipped):
                self.skip(row.skipped)
                if rejects is not None:
                    rejects.write(_json_out(malformed_entry(row)) + b"\n")
            first = result.records_in
            result.records_in += reply.n
            payload, count, rows = reply.payload, reply.n, range(first, first + reply.n)
            if self.plan.audited and reply.n:  # each text is {"record", "trail"}: log the trail
                payload = AuditLog.unwrap(payload, first, self.plan.names, self.audit)
            failures = list(reply.failed) + _named_twice(batch, reply, payload)
            if failures:
                result.failed += len(failures)
                texts: list[bytes | None] = list(payload.split(b"\n"))
                for failed in sorted(failures, key=lambda item: item[0]):
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
                if batch.empty:  # only the rows skipped after the last record: nothing to send
                    pending.append((batch, None, first))
                    continue
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

    def _collect(
        self, batch: Batch, worker: SandboxWorker | None, first: int
    ) -> tuple[Batch, BatchReply]:
        if worker is None:
            return batch, BatchReply()
        reply = worker.receive(self.timeout)
        if not reply.ok:
            raise ApplyError(f"{self.path}: {batch.where(first)}: {reply.error}")
        return batch, reply


def _named_twice(batch: Batch, reply: BatchReply, payload: bytes) -> list[list]:
    """Failures for the records whose JSON names a key twice (``audit.named_twice``), as a worker
    reports one: [index, error] (+ the line of a raw JSONL batch)."""
    if not reply.n or payload.count(b"{") <= reply.n:  # no nested object anywhere
        return []
    found = [[k, error] for k, error in named_twice(payload.split(b"\n"))]
    if found and batch.records is None:  # the line of each record: not skipped, not blank
        skipped = set(reply.skipped)
        lines = [o for o, raw in enumerate(batch.lines) if o not in skipped and raw.strip()]
        for item in found:
            item.append(lines[item[0]])
    return found


def malformed_entry(row: Malformed) -> dict:
    """The reject file's line for an input row that could not be read: ``path``, ``line`` (1-based),
    ``error`` (why), and ``text``, the raw line, when apply holds it (JSONL)."""
    entry: dict[str, Any] = {
        "path": row.skipped.path,
        "line": row.skipped.line,
        "error": f"malformed input row: {row.skipped.reason}",
    }
    if row.text is not None:
        entry["text"] = row.text
    return entry


def _json_out(value: Any) -> bytes:
    """``dump_json(value)`` with NaN and infinities (an input line may hold them) as null, as
    workers send them."""
    data = dump_json(value)
    if b"NaN" in data or b"Infinity" in data:
        data = dump_json(json.loads(data, parse_constant=lambda _name: None))
    return data
