"""apply_dask's tasks: cutting a file into parts at apply's batch boundaries, and cleaning one part.

A *part* (``read.formats.Part``) is a file, or its bytes [start, end) for JSONL and CSV (whole
``batch_size`` batches, cut where ``apply_file`` cuts them: each format's ``plan`` and
``part_batches``); ``clean_part`` runs it through apply's pipeline with one
sandboxed worker started inside the Dask worker process. ``part_batches`` is the reading both
``clean_part`` and the cross-row spooling (``dask_fit``) use.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass
from typing import Any, Iterator

from .batch import Batch, part_input_batches
from .pipeline import KEEP_SKIPS, ApplyRun
from .result import ApplyResult
from ..read import formats
from ..read.formats import Part
from ..read.json_stream import dump_json
from ..read.rows import SkippedRecord

__all__ = [
    "Part",
    "PartResult",
    "RejectLines",
    "plan_file",
    "part_batches",
    "clean_part",
    "renumbered",
    "add_counts",
    "PARSING",
    "started",
]

# CPython 3.11's ast.parse is not thread-safe ("AST constructor recursion depth mismatch",
# gh-106905): tasks
# that share a process (dask's threaded scheduler, a LocalCluster with processes=False) set up one
# at a time.
PARSING = threading.Lock()
# how apply writes a reject line: dump_json({"index": n, "error": ..., "record": ...})
_INDEX = b'{"index": '


@dataclass
class PartResult:
    """What a part gives back: apply's (payload, count) per batch, its counts and its reject
    lines."""

    payloads: list[tuple[bytes, int]]
    records_in: int
    records_out: int
    failed: int
    skipped_input: int
    skipped: list[SkippedRecord]
    rejects: list[bytes]


def plan_file(
    item: tuple[str, str], batch_size: int, per_batches: int, encoding: str = "utf-8"
) -> list[Part]:
    """The parts of one file (a Dask task): its format's ``plan`` (JSONL and CSV in UTF-8: every
    ``per_batches`` batches; a file in another ``encoding``: one part)."""
    path, fmt = item
    return formats.get(fmt).encoded(encoding).plan(path, batch_size, per_batches)


class RejectLines(list):
    """Collects apply's reject lines (one ``write`` each) for the calling process to number."""

    def write(self, data: bytes) -> None:
        self.append(data)


def clean_part(
    part: Part, code: str, filename: str, trusted: bool, size: int, timeout: float, rejects: bool
) -> PartResult:
    """Clean one part (a Dask task): apply's pipeline with one sandboxed worker, started in this
    process."""
    with PARSING:
        run = ApplyRun(code, filename, part.path, 1, trusted, timeout, None, cross_row=False)
    lines = RejectLines() if rejects else None
    payloads = list(started(run.cleaned(part_batches(part, size, run), lines)))
    r = run.result
    return PartResult(
        payloads,
        r.records_in,
        r.records_out,
        r.failed,
        r.skipped_input,
        r.skipped,
        list(lines or ()),
    )


def started(items: Iterator[Any]) -> Iterator[Any]:
    """``items`` with its first item (apply's worker start: the code parsed and checked) taken under
    ``PARSING``."""
    with PARSING:
        first = list(itertools.islice(items, 1))
    return itertools.chain(first, items)


def part_batches(part: Part, size: int, run: ApplyRun) -> Iterator[Batch]:
    """The batches of a part, as apply_file cuts the whole file (rows that cannot be read ride on
    them to ``run``'s counts and reject lines)."""
    kind = formats.get(part.fmt).encoded(part.encoding)
    return part_input_batches(kind, part, size)


def renumbered(line: bytes, first: int) -> bytes:
    """A reject line of a part with its index counted over the file, not the part."""
    number, _, rest = line[len(_INDEX) :].partition(b", ")
    if line.startswith(_INDEX) and number.isdigit():
        return _INDEX + b"%d, " % (int(number) + first) + rest
    entry = json.loads(line)  # not as apply writes it today: the same, the slow way
    if "index" not in entry:  # a malformed input row: its line is the file's already
        return line
    entry["index"] += first
    return dump_json(entry) + b"\n"


def add_counts(result: ApplyResult, part: PartResult) -> None:
    """Add a part's counts (and its first skipped lines) to ``result``."""
    result.records_in += part.records_in
    result.records_out += part.records_out
    result.failed += part.failed
    result.skipped_input += part.skipped_input
    result.skipped.extend(part.skipped[: KEEP_SKIPS - len(result.skipped)])
