"""One JSON document (``.json``): a top-level array of objects, or an object holding one, streamed.

Read record by record by ``json_stream.JsonRecordStream`` (see there) over the file's decoded text
blocks (``text_blocks``: UTF-8, or transcoded to it); non-object elements are skipped and
reported; syntax errors raise InputError naming line and column. Output: one streamed array, one
record per line.
"""

from __future__ import annotations

from typing import BinaryIO, Iterator

from ..json_stream import JsonRecordStream
from ..rows import SkippedRecord
from ._base import Format, SkipCallback
from .jsonl import JsonlWriter
from .text import text_blocks

__all__ = ["JsonFormat", "JsonWriter"]


class JsonWriter(JsonlWriter):
    """A streamed JSON array, one record per line."""

    wrote = False

    def write(self, payload: bytes, count: int) -> None:
        if count:
            self.out.write(b",\n" if self.wrote else b"[\n")
            self.out.write(payload.replace(b"\n", b",\n"))
            self.wrote = True

    def finish(self) -> None:
        self.out.write(b"\n]\n" if self.wrote else b"[]\n")


class JsonFormat(Format):
    """A JSON array of records (or ``{"data": [...]}``)."""

    name = "json"
    label = "JSON"
    extensions = writes = (".json",)

    def records(self, path: str, on_skip: SkipCallback | None, block_size: int) -> Iterator[dict]:
        report = (
            None
            if on_skip is None
            else (lambda line, reason: on_skip(SkippedRecord(path, line, reason)))
        )
        blocks = text_blocks(path, block_size, self.opener)
        return JsonRecordStream(blocks, path, block_size, report).records()

    def writer(self, out: BinaryIO, path: str) -> JsonWriter:
        return JsonWriter(out)
