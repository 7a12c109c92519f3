"""apply_dask's tasks: cutting a file into parts at apply's batch boundaries, and cleaning one part.

A *part* is a file, or its bytes [start, end) for JSONL and CSV (whole ``batch_size`` batches,
cut where ``apply_file`` cuts them); ``clean_part`` runs it through apply's pipeline with one
sandboxed worker started inside the Dask worker process. ``part_batches`` is the reading both
``clean_part`` and the cross-row spooling (``dask_fit``) use.
"""

from __future__ import annotations

import codecs
import io
import itertools
import json
import threading
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from .local import KEEP_SKIPS, ApplyResult, ApplyRun, Batch
from ..read.json_stream import dump_json
from ..read.parsers import UNCLOSED_QUOTE, SkippedRecord, csv_records, iter_chunks

__all__ = ["Part", "PartResult", "RejectLines", "plan_file", "part_batches", "clean_part", "renumbered", "add_counts",
           "PARSING", "started"]

_BOM = codecs.BOM_UTF8
# CPython 3.11's ast.parse is not thread-safe ("AST constructor recursion depth mismatch", gh-106905): tasks
# that share a process (dask's threaded scheduler, a LocalCluster with processes=False) set up one at a time.
PARSING = threading.Lock()
_INDEX = b'{"index": '  # how apply writes a reject line: dump_json({"index": n, "error": ..., "record": ...})

@dataclass(frozen=True)
class Part:
    """A file, or its bytes [start, end) (end -1: to the end) after ``line`` lines and ``record`` records."""

    path: str
    fmt: str
    start: int = 0
    end: int = -1
    line: int = 0
    record: int = 0
    keys: tuple[str, ...] | None = None  # CSV: the header, for a part that starts after it


@dataclass
class PartResult:
    """What a part gives back: apply's (payload, count) per batch, its counts and its reject lines."""

    payloads: list[tuple[bytes, int]]
    records_in: int
    records_out: int
    failed: int
    skipped_input: int
    skipped: list[SkippedRecord]
    rejects: list[bytes]


def plan_file(item: tuple[str, str], batch_size: int, per_batches: int) -> list[Part]:
    """The parts of one file (a Dask task): JSONL and CSV cut every ``per_batches`` whole batches."""
    path, fmt = item
    if fmt == "jsonl":
        return _plan_jsonl(path, batch_size, per_batches)
    if fmt == "csv":
        return _plan_csv(path, batch_size * per_batches)
    return [Part(path, fmt)]


def _plan_jsonl(path: str, batch_size: int, per_batches: int) -> list[Part]:
    cuts, offset, lines, batches = [(0, 0)], 0, 0, 0
    with open(path, "rb") as f:
        while batch := list(itertools.islice(f, batch_size)):
            if batches == per_batches:
                cuts.append((offset, lines))
                batches = 0
            offset, lines, batches = offset + sum(map(len, batch)), lines + len(batch), batches + 1
    ends = [start for start, _ in cuts[1:]] + [-1]
    return [Part(path, "jsonl", start, end, line) for (start, line), end in zip(cuts, ends)]


class _Counted:
    """Text lines, counting them and their UTF-8 bytes (csv.reader reads exactly the lines of each row)."""

    def __init__(self, lines: Iterator[str], offset: int) -> None:
        self.lines, self.offset, self.count = lines, offset, 0

    def __iter__(self) -> _Counted:
        return self

    def __next__(self) -> str:
        text = next(self.lines)
        self.offset += len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))
        self.count += 1
        return text


def _plan_csv(path: str, per: int) -> list[Part]:
    with open(path, "rb") as raw:
        bom = raw.read(3) == _BOM
    delimiter = "\t" if path.lower().endswith(".tsv") else ","
    parts, start, cut = [], Part(path, "csv"), None
    unclosed: list[SkippedRecord] = []  # past an unclosed quote the lines were read twice: no more cuts

    def skipped(record: SkippedRecord) -> None:
        if record.reason.startswith(UNCLOSED_QUOTE):
            unclosed.append(record)

    with open(path, newline="", encoding="utf-8-sig", errors="surrogateescape") as f:
        lines = _Counted(f, 3 if bom else 0)
        for count, record in enumerate(csv_records(lines, path, skipped, delimiter), 1):
            if cut is not None:  # a record after a full part: the part ends where the last one did
                parts.append(Part(path, "csv", start.start, cut[0], start.line, start.record, start.keys))
                start, cut = Part(path, "csv", cut[0], -1, cut[1], cut[2], tuple(record)), None
            if count % per == 0 and not unclosed:
                cut = (lines.offset, lines.count, count)
    return parts + [start]


class _Slice(io.RawIOBase):
    """At most ``size`` bytes of a binary file, from where it stands."""

    def __init__(self, f: BinaryIO, size: int) -> None:
        self.f, self.left = f, size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.left <= 0:
            return 0
        n = self.f.readinto(memoryview(buffer)[: min(len(buffer), self.left)]) or 0
        self.left -= n
        return n


def _csv_part(part: Part, on_skip: Callable[[SkippedRecord], None]) -> Iterator[dict]:
    """The records of a CSV part, read as parsers._iter_csv reads the whole file."""
    with open(part.path, "rb") as raw:
        raw.seek(part.start)
        data = raw if part.end < 0 else io.BufferedReader(_Slice(raw, part.end - part.start))
        encoding = "utf-8-sig" if part.start == 0 else "utf-8"
        text = io.TextIOWrapper(data, encoding=encoding, errors="surrogateescape", newline="")
        keys = None if part.keys is None else list(part.keys)
        yield from csv_records(text, part.path, on_skip, "\t" if part.path.lower().endswith(".tsv") else ",",
                                keys, part.line)


def _jsonl_part(part: Part, size: int) -> Iterator[Batch]:
    """Raw JSONL batches of a part, as apply's _jsonl_batches cuts the whole file (BOM dropped)."""
    with open(part.path, "rb") as f:
        f.seek(part.start)
        line, offset = part.line + 1, part.start
        while (part.end < 0 or offset < part.end) and (lines := list(itertools.islice(f, size))):
            if offset == 0 and lines[0].startswith(_BOM):
                lines[0], offset = lines[0][3:], 3
            data = b"".join(lines)
            yield Batch(data=data if data.endswith(b"\n") else data + b"\n", line=line, offset=offset)
            line, offset = line + len(lines), offset + len(data)


@dataclass
class _NumberedBatch(Batch):
    """A batch of records whose numbers in messages count from the start of the file, not of the part."""

    base: int = 0

    def where(self, first: int) -> str:
        return super().where(self.base + first)


class RejectLines(list):
    """Collects apply's reject lines (one ``write`` each) for the calling process to number."""

    def write(self, data: bytes) -> None:
        self.append(data)


def clean_part(part: Part, code: str, filename: str, trusted: bool, size: int, timeout: float,
                rejects: bool) -> PartResult:
    """Clean one part (a Dask task): apply's pipeline with one sandboxed worker, started in this process."""
    with PARSING:
        run = ApplyRun(code, filename, part.path, 1, trusted, timeout, None, cross_row=False)
    lines = RejectLines() if rejects else None
    payloads = list(started(run.cleaned(part_batches(part, size, run), lines)))
    r = run.result
    return PartResult(payloads, r.records_in, r.records_out, r.failed, r.skipped_input, r.skipped, list(lines or ()))


def started(items: Iterator[Any]) -> Iterator[Any]:
    """``items`` with its first item (apply's worker start: the code parsed and checked) taken under ``PARSING``."""
    with PARSING:
        first = list(itertools.islice(items, 1))
    return itertools.chain(first, items)


def part_batches(part: Part, size: int, run: ApplyRun) -> Iterator[Batch]:
    """The batches of a part, as apply_file cuts the whole file (skipped input lines reported to ``run``)."""
    if part.fmt == "jsonl":
        return _jsonl_part(part, size)
    if part.fmt == "csv":
        records = _csv_part(part, run.skip)
        chunks = iter(lambda: list(itertools.islice(records, size)), [])
        return (_NumberedBatch(records=chunk, base=part.record) for chunk in chunks)
    return map(Batch, iter_chunks(part.path, size, part.fmt, on_skip=run.skip))


def renumbered(line: bytes, first: int) -> bytes:
    """A reject line of a part with its index counted over the file, not the part."""
    number, _, rest = line[len(_INDEX):].partition(b", ")
    if line.startswith(_INDEX) and number.isdigit():
        return _INDEX + b"%d, " % (int(number) + first) + rest
    entry = json.loads(line)  # not as apply writes it today: the same, the slow way
    entry["index"] += first
    return dump_json(entry) + b"\n"


def add_counts(result: ApplyResult, part: PartResult) -> None:
    """Add a part's counts (and its first skipped lines) to ``result``."""
    result.records_in += part.records_in
    result.records_out += part.records_out
    result.failed += part.failed
    result.skipped_input += part.skipped_input
    result.skipped.extend(part.skipped[: KEEP_SKIPS - len(result.skipped)])
