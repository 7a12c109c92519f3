"""apply's unit of work: a batch of records, or of raw JSONL lines the worker parses, with the
input rows that could not be read while it was cut (``skips``: they go to the reject file in
order)."""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..judge.sandbox import SandboxWorker
from ..read.formats import Format, Lines, Part, SkipCallback
from ..read.formats.jsonl import jsonl_problem
from ..read.json_stream import json_type_name
from ..read.rows import SkippedRecord

__all__ = ["Batch", "Malformed", "NumberedBatch", "input_batches", "part_input_batches"]

_NL = b"\n"


@dataclass(frozen=True)
class Malformed:
    """An input row that could not be read as a record: where and why, and its raw text when apply
    holds it (a JSONL line)."""

    skipped: SkippedRecord
    text: str | None = None


@dataclass
class Batch:
    """Parsed records, or (JSONL fast path) raw lines that the worker parses, from ``line`` at byte
    ``offset``; ``skips``: rows the reader could not read while it cut this batch."""

    records: list | None = None
    data: bytes = b""
    line: int = 1
    offset: int = 0
    skips: list[SkippedRecord] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """No record and no line to clean (the last malformed rows of a file ride on one)."""
        return self.records == [] or (self.records is None and not self.data)

    def submit(self, worker: SandboxWorker) -> None:
        if self.records is None:
            worker.submit_lines(self.data)
        else:
            worker.submit(self.records)

    def where(self, first: int) -> str:
        if self.records is None:
            return f"lines {self.line}-{self.line + self.data.count(_NL) - 1}"
        return f"records {first}-{first + len(self.records) - 1}"

    @functools.cached_property
    def lines(self) -> list[bytes]:
        return self.data.split(b"\n")

    def original(self, failed: tuple) -> Any:
        """The input record of a failed entry (index, error[, line offset])."""
        if self.records is not None:
            return self.records[failed[0]]
        return json.loads(self.lines[failed[2]])

    def skipped(self, path: str, offsets: list[int]) -> Iterator[SkippedRecord]:
        """The lines a worker could not read, with the reasons parsers gives for them."""
        for row in self.malformed(path, offsets):
            yield row.skipped

    def malformed(self, path: str, offsets: list[int]) -> Iterator[Malformed]:
        """The rows of this batch that could not be read: the reader's (``skips``), then the lines
        a worker could not read (``offsets``), with their text."""
        for skipped in self.skips:
            yield Malformed(skipped)
        if not offsets:
            return
        lines = self.lines
        starts = list(itertools.accumulate((len(raw) + 1 for raw in lines), initial=self.offset))
        for k in offsets:
            try:
                value = json.loads(lines[k].decode())
                reason = f"valid JSON but not an object (got {json_type_name(value)})"
            except (ValueError, RecursionError) as exc:
                reason = jsonl_problem(lines[k], exc, starts[k]) or "blank line"
            text = lines[k].decode("utf-8", "replace")
            yield Malformed(SkippedRecord(path, self.line + k, reason), text)


@dataclass
class NumberedBatch(Batch):
    """A batch of records whose numbers in messages count from the file's start, not the part's."""

    base: int = 0

    def where(self, first: int) -> str:
        return super().where(self.base + first)


def _batch(piece: Lines | list, base: int | None = None) -> Batch:
    if isinstance(piece, Lines):
        return Batch(data=piece.data, line=piece.line, offset=piece.offset)
    return Batch(piece) if base is None else NumberedBatch(records=piece, base=base)


def _with_skips(
    pieces: Iterator[Lines | list], skips: list[SkippedRecord], base: int | None
) -> Iterator[Batch]:
    """The batches of ``pieces``, each with the rows the reader skipped (into ``skips``) while
    cutting it; rows skipped after the last record ride on a last, empty batch."""
    for piece in pieces:
        batch = _batch(piece, base)
        batch.skips = skips[:]
        skips.clear()
        yield batch
    if skips:
        yield Batch([], skips=skips[:])


def input_batches(kind: Format, path: str, size: int) -> Iterator[Batch]:
    """apply_file's batches of a file in format ``kind`` (``Format.batches``)."""
    skips: list[SkippedRecord] = []
    return _with_skips(iter(kind.batches(path, size, skips.append)), skips, None)


def part_input_batches(kind: Format, part: Part, size: int) -> Iterator[Batch]:
    """The batches of one Dask part, cut where ``input_batches`` cuts the whole file."""
    skips: list[SkippedRecord] = []
    pieces = iter(kind.part_batches(part, size, skips.append))
    return _with_skips(pieces, skips, part.record)
