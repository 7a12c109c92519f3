"""apply_dask's cross-row steps and audit log: apply_file's two passes as per-part tasks and merged
counts.

For one input file (its parts from ``dask_parts``), with ``CROSS_ROW_STEPS`` or an audit log:

1. **Spool** (a task per part): apply's pipeline with one sandboxed worker, as ``clean_part``; the
   cleaned records go to a spool file beside the output (``row<TAB>JSON``, the local pass 1's
   form), the part's records are counted into a ``crossrow.steps.Summary`` (each step's kind counts:
   vocabulary the values, majority per raw key the counts of each field's values, or of (value,
   source) pairs for a weighted vote), and the functions' audit rows go to a piece file, numbered
   within the part.
2. **Fit**: the summaries are merged in part order by a tree of tasks (``split_every`` at a
   time; each kind's ``merge``: counts add, first sight keeps its order), so the merged summary is
   the one apply_file's single pass counts; the calling process picks the winners from it
   (``Summary.fitted``, the local code). A capped cell (a vocabulary field with more than 5,000
   distinct values) is recounted over the spools for the values kept.
3. **Duplicate keys** (a ``keeps_first`` kind, dedup; a round per such step, in order): each part's
   dedup keys after the steps before it, merged in part order into "the first part that has
   this key"; only keys in two or more parts are kept and sent to the parts.
4. **Transform** (a task per part): the fitted steps on the spooled records, a record dropped
   when its key was seen earlier in its part or belongs to an earlier part; the audit pieces
   (renumbered over the file, in the log's format). The calling process re-cuts the parts'
   records into apply_file's batches (the same CSV header and Parquet types), writes them in
   order, and joins the audit pieces: the functions' rows of every part, then the steps' rows.

Nothing but counts and winners crosses the network besides the output itself; no group of
rows is ever gathered. Spools and pieces are removed at the end, whatever happens.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import time
from collections import Counter
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from .cross_row import AUDIT_FIELDS, AuditLog, loss_message, step_label
from .dask_parts import (
    PARSING,
    Part,
    PartResult,
    RejectLines,
    add_counts,
    part_batches,
    renumbered,
    started,
)
from .pipeline import ApplyRun
from .result import ApplyError, ApplyResult
from .writers import AtomicFile, output_writer
from ..crossrow.steps import CrossRowStep, Fitted, Summary, kind_of
from ..errors import DataLossError
from ..read.json_stream import dump_json

__all__ = [
    "CrossRowJob",
    "SPLIT_EVERY",
    "spool_part",
    "merge_summaries",
    "run_file",
    "with_owners",
    "dedup_keys",
    "merge_keys",
    "owners_of",
]

SPLIT_EVERY = 8  # summaries merged per task of the tree


@dataclass(frozen=True)
class CrossRowJob:
    """What every task of one file needs: the functions, the options and where its temporary files
    go."""

    code: str
    filename: str
    trusted: bool
    size: int
    timeout: float
    rejects: bool
    steps: tuple[CrossRowStep, ...]
    audit: bool
    audit_csv: bool
    # the folder of the temporary files, beside the output: "<output dir>/.<output name>.<id>.dask"
    temp: str

    def path(self, k: int, what: str) -> str:
        return os.path.join(self.temp, f"{k}.{what}.tmp")


@dataclass
class _Spooled:
    """A spooled part: apply's counts and reject lines, rows in the spool, the functions' audit
    counts."""

    result: PartResult
    rows: int
    by_step: Counter = field(default_factory=Counter)
    audit_rows: int = 0


class _PieceLog(AuditLog):
    """The functions' audit rows of one part, as JSON lists numbered within the part (renumbered
    later)."""

    def write_row(self, row: int, fld: Any, old: Any, new: Any, step: str, kind: str) -> None:
        self.rows += 1
        self.out.write(dump_json([row, fld, old, new, step, kind]) + b"\n")


def spool_part(job: CrossRowJob, k: int, part: Part) -> tuple[_Spooled, Summary]:
    """Clean part ``k`` (a Dask task) into its spool file; its counts and its ``Summary``."""
    with PARSING:
        run = ApplyRun(
            job.code,
            job.filename,
            part.path,
            1,
            job.trusted,
            job.timeout,
            None,
            cross_row=False,
            audit=job.audit,
        )
    summary = Summary(list(job.steps))
    lines = RejectLines() if job.rejects else None
    rows = 0
    with (
        open(job.path(k, "pass1"), "wb") as spool,
        open(job.path(k, "audit1"), "wb") if job.audit else nullcontext() as log,
    ):
        run.audit = _PieceLog(log) if log is not None else None
        for payload, count, numbers in started(
            run.cleaned_rows(part_batches(part, job.size, run), lines)
        ):
            if count:
                texts = payload.split(b"\n")
                spool.write(b"".join(b"%d\t%s\n" % pair for pair in zip(numbers, texts)))
                for text in texts:
                    summary.add(json.loads(text))
                rows += count
    r = run.result
    done = PartResult(
        [], r.records_in, r.records_out, r.failed, r.skipped_input, r.skipped, list(lines or ())
    )
    piece = run.audit
    return _Spooled(
        done, rows, piece.by_step if piece else Counter(), piece.rows if piece else 0
    ), summary


def merge_summaries(steps: list[CrossRowStep], *summaries: Summary) -> Summary:
    """The summaries of consecutive parts, in order, as one (a new object: the inputs are left
    alone)."""
    return functools.reduce(Summary.merge, summaries, Summary(list(steps)))


def _records(path: str) -> Iterator[tuple[int, Any]]:
    with open(path, "rb") as spool:
        for line in spool:
            row, _, text = line.partition(b"\t")
            yield int(row), json.loads(text)


def _recount(summary: Summary, cells: list, path: str) -> dict:
    return summary.recount(cells, (record for _, record in _records(path)))


def _added(counts: list[dict]) -> dict:
    total: dict = {}
    for part in counts:
        for cell, counter in part.items():
            total.setdefault(cell, Counter()).update(counter)
    return total


class _SeenBefore(set):
    """A ``keeps_first`` step's keys seen in this part, and (``owners``) an earlier part's."""

    def __init__(self, owners: dict, part: int) -> None:
        super().__init__()
        self.owners, self.part = owners, part

    def __contains__(self, key: object) -> bool:
        return set.__contains__(self, key) or self.owners.get(key, self.part) < self.part


def with_owners(fitted: Fitted, owners: dict[int, dict], k: int) -> Fitted:
    """A copy of ``fitted`` for part ``k``: own counters; ``keeps_first`` steps know older keys."""
    copy = dataclasses.replace(fitted, changed=Counter(), dropped=0, dropped_by=Counter(), seen={})
    for j, owner in owners.items():
        copy.seen[j] = _SeenBefore(owner, k)
    return copy


def dedup_keys(
    records: Iterable[Any], fitted: Fitted, owners: dict[int, dict], j: int, k: int
) -> dict:
    """Dedup step ``j``'s keys in part ``k`` (after the steps before it), each -> (k, False);
    ``None``: how many."""
    local = with_owners(fitted, owners, k)
    keys: dict = {}
    keyed = 0
    for record in records:
        if not isinstance(record, dict):
            continue
        out = dict(record)
        if all(local.apply_step(i, out) for i in range(j)):
            key = local.key(j, out)
            if key is not None:
                keyed += 1
                keys.setdefault(key, (k, False))
    keys[None] = keyed  # a key is never None: the slot carries the count
    return keys


def _dedup_part(job: CrossRowJob, fitted: Fitted, owners: dict[int, dict], j: int, k: int) -> dict:
    return dedup_keys(
        (record for _, record in _records(job.path(k, "pass1"))), fitted, owners, j, k
    )


def merge_keys(*parts: dict) -> dict:
    """Keys of consecutive parts, in order: key -> (first part, seen in more than one part)."""
    out: dict = {None: 0}
    for keys in parts:
        for key, value in keys.items():
            if key is None:
                out[None] += value
            elif key in out:
                out[key] = (out[key][0], True)
            else:
                out[key] = value
    return out


def owners_of(merged: dict) -> tuple[dict, int]:
    """(key -> first part, for keys in two or more parts; records the step drops)."""
    keyed = merged.pop(None)
    return {key: first for key, (first, many) in merged.items() if many}, keyed - len(merged)


@dataclass
class _Transformed:
    payload: bytes
    lines: int
    dropped: list[int]
    changed: Counter
    dropped_by: Counter
    by_step: Counter
    audit_rows: int


def _transform_part(
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
        for row, record in _records(job.path(k, "pass1")):
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


def run_file(
    cluster: Any,
    job: CrossRowJob,
    path: str,
    fmt: str,
    parts: list[Part],
    target: str,
    reject: str | None,
    audit_path: str | None,
    total: ApplyResult,
    max_drop: float,
    started: float,
    on_progress: Callable[[dict], None] | None,
) -> ApplyResult:
    """One input file with cross-row steps and/or an audit log (see the module docstring); its
    ApplyResult.

    ``cluster`` (apply_dask's): ``dask``, ``compute(*delayed)`` -> values, ``ordered(delayeds)`` ->
    values in order a window at a time, ``share(value)`` -> a value sent once to every worker, for
    tasks to take.
    """
    dask, compute = cluster.dask, cluster.compute
    done = ApplyResult(workers=total.workers, trusted=total.trusted)
    steps = list(job.steps)
    labels = [step_label(i, s) for i, s in enumerate(steps)]
    done.cross_row_steps = labels
    os.mkdir(job.temp)  # the umask's mode: workers running as another user must write here
    try:
        spooled = [
            dask.delayed(spool_part, nout=2, pure=False)(job, k, part)
            for k, part in enumerate(parts)
        ]
        level = [s for _, s in spooled]
        while len(level) > 1:
            level = [
                dask.delayed(merge_summaries)(steps, *level[i : i + SPLIT_EVERY])
                for i in range(0, len(level), SPLIT_EVERY)
            ]
        *stats, summary = compute(*[st for st, _ in spooled], level[0])
        capped = sorted(summary.capped)
        if capped:
            counts = compute(
                *[
                    dask.delayed(_recount)(summary, capped, job.path(k, "pass1"))
                    for k in range(len(parts))
                ]
            )
            summary.recounted(_added(list(counts)))
        fitted = summary.fitted()
        fitted_d = cluster.share(fitted)
        owners: dict[int, dict] = {}
        drops: dict[int, int] = {}
        for j in (i for i, s in enumerate(steps) if kind_of(s).keeps_first):
            known = cluster.share(owners)
            level = [
                dask.delayed(_dedup_part)(job, fitted_d, known, j, k) for k in range(len(parts))
            ]
            while len(level) > 1:
                level = [
                    dask.delayed(merge_keys)(*level[i : i + SPLIT_EVERY])
                    for i in range(0, len(level), SPLIT_EVERY)
                ]
            owners[j], drops[j] = compute(
                dask.delayed(owners_of)(dask.delayed(merge_keys)(level[0]))
            )[0]
        rows = sum(s.rows for s in stats)
        if sum(n for j, n in drops.items() if not steps[j].asked) > max_drop * rows:
            raise DataLossError(
                loss_message(drops, steps, labels, rows, max_drop),
                sum(n for j, n in drops.items() if not steps[j].asked),
                rows,
            )
        bases = [0]
        for s in stats:
            bases.append(bases[-1] + s.result.records_in)
        known = cluster.share(owners)
        transformed = cluster.ordered(
            [
                dask.delayed(_transform_part)(job, fitted_d, known, k, bases[k])
                for k in range(len(parts))
            ]
        )
        _write(
            job,
            path,
            fmt,
            stats,
            transformed,
            target,
            reject,
            audit_path,
            done,
            total,
            started,
            on_progress,
        )
    # a task still running after a failure finds no folder to write in: nothing is left behind
    finally:
        shutil.rmtree(job.temp, ignore_errors=True)
    return done


def _write(
    job: CrossRowJob,
    path: str,
    fmt: str,
    stats: list[_Spooled],
    transformed: Iterator[_Transformed],
    target: str,
    reject: str | None,
    audit_path: str | None,
    done: ApplyResult,
    total: ApplyResult,
    started: float,
    on_progress: Callable[[dict], None] | None,
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
        writer = output_writer(fmt, out, path)
        try:
            for payload, count in _batches(counted(), job.size):
                try:
                    writer.write(payload, count)
                # a record the output format cannot hold (see table_writers)
                except ValueError as exc:
                    raise ApplyError(f"{target}: {exc}") from None
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
