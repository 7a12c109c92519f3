"""apply_dask's cross-row spooling (steps 1 and 2 of ``dask_fit``): a part cleaned into its spool
file and counted into a ``Summary``; summaries merged; capped cells recounted."""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Iterator

from .audit import AuditLog
from .dask_parts import PARSING, Part, PartResult, RejectLines, part_batches, started
from .pipeline import ApplyRun
from ..crossrow.steps import CrossRowStep, Summary
from ..read.json_stream import dump_json

__all__ = [
    "CrossRowJob",
    "Spooled",
    "spool_part",
    "merge_summaries",
    "spooled_records",
    "recount",
    "added",
]


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
class Spooled:
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


def spool_part(job: CrossRowJob, k: int, part: Part) -> tuple[Spooled, Summary]:
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
    return Spooled(
        done, rows, piece.by_step if piece else Counter(), piece.rows if piece else 0
    ), summary


def merge_summaries(steps: list[CrossRowStep], *summaries: Summary) -> Summary:
    """The summaries of consecutive parts, in order, as one (a new object: the inputs are left
    alone)."""
    return functools.reduce(Summary.merge, summaries, Summary(list(steps)))


def spooled_records(path: str) -> Iterator[tuple[int, Any]]:
    """(input row, record) per line of a part's spool file."""
    with open(path, "rb") as spool:
        for line in spool:
            row, _, text = line.partition(b"\t")
            yield int(row), json.loads(text)


def recount(summary: Summary, cells: list, path: str) -> dict:
    """The capped ``cells``' counts over one part's spool (a Dask task)."""
    return summary.recount(cells, (record for _, record in spooled_records(path)))


def added(counts: list[dict]) -> dict:
    """The parts' recounts added up, cell by cell."""
    total: dict = {}
    for part in counts:
        for cell, counter in part.items():
            total.setdefault(cell, Counter()).update(counter)
    return total
