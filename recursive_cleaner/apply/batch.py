"""apply's unit of work: a batch of records, or of raw JSONL lines the worker parses."""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass
from typing import Any, Iterator

from ..judge.sandbox import SandboxWorker
from ..read.formats import Format, Lines, Part, SkipCallback
from ..read.formats.jsonl import jsonl_problem
from ..read.json_stream import json_type_name
from ..read.rows import SkippedRecord

__all__ = ["Batch", "NumberedBatch", "input_batches", "part_input_batches"]

_NL = b"\n"


@dataclass
class Batch:
    """Parsed records, or (JSONL fast path) raw lines that the worker parses, from ``line`` at byte
    ``offset``."""

    records: list | None = None
    data: bytes = b""
    line: int = 1
    offset: int = 0

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
        lines = self.lines
        starts = list(itertools.accumulate((len(raw) + 1 for raw in lines), initial=self.offset))
        for k in offsets:
            try:
                value = json.loads(lines[k].decode())
                reason = f"valid JSON but not an object (got {json_type_name(value)})"
            except (ValueError, RecursionError) as exc:
                reason = jsonl_problem(lines[k], exc, starts[k]) or "blank line"
            yield SkippedRecord(path, self.line + k, reason)


@dataclass
class NumberedBatch(Batch):
    """A batch of records whose numbers in messages count from the file's start, not the part's."""

    base: int = 0

    def where(self, first: int) -> str:
        return super().where(self.base + first)


def _batch(piece: Lines | list) -> Batch:
    if isinstance(piece, Lines):
        return Batch(data=piece.data, line=piece.line, offset=piece.offset)
    return Batch(piece)


def input_batches(
    kind: Format, path: str, size: int, on_skip: SkipCallback | None
) -> Iterator[Batch]:
    """apply_file's batches of a file in format ``kind`` (``Format.batches``)."""
    return map(_batch, kind.batches(path, size, on_skip))


def part_input_batches(
    kind: Format, part: Part, size: int, on_skip: SkipCallback | None
) -> Iterator[Batch]:
    """The batches of one Dask part, cut where ``input_batches`` cuts the whole file."""
    for piece in kind.part_batches(part, size, on_skip):
        if isinstance(piece, Lines):
            yield _batch(piece)
        else:
            yield NumberedBatch(records=piece, base=part.record)
