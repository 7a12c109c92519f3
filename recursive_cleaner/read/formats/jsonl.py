"""JSON Lines (``.jsonl``, ``.ndjson``): one object per line, read by a binary line scan.

Memory is bounded by the longest line; bad lines (invalid JSON, valid JSON that is not an object)
are skipped and reported through ``on_skip`` with their 1-based line number; blank lines are
ignored silently. Bytes that do not decode stop the reading, as in every format (``encoding``:
InputEncodingError naming the line and byte). apply's workers parse the lines themselves
(``Lines``, UTF-8: this process checks a batch that is not ASCII, and a file in another encoding
comes transcoded): this process only cuts batches, and for Dask parts, at batch boundaries.
Output: one JSON text per line.
"""

from __future__ import annotations

import codecs
import itertools
import json
import re
from typing import IO, BinaryIO, Iterator

from ..json_stream import json_type_name
from ..rows import SkippedRecord
from ._base import Format, Lines, Opener, Part, SkipCallback
from .encoding import encoding_error, utf8_error

__all__ = ["JsonlFormat", "JsonlWriter", "jsonl_problem", "iter_jsonl", "count_jsonl"]

_BOM = codecs.BOM_UTF8
_JSONL_RECORD_START = re.compile(rb"\n[ \t\r]*\{")
_SCANNER = json.JSONDecoder()  # its C scan_once decodes one value with no Python overhead
_LINE_ENDS = ("\n", "\r\n", "")


def jsonl_problem(raw: bytes, exc: BaseException, line_offset: int) -> str | None:
    """Why a JSONL line was skipped, or None for a blank line (ignored silently); a worker's line
    that is not UTF-8 too (the readers stop on one before: ``encoding``)."""
    if isinstance(exc, UnicodeDecodeError):
        return (
            f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {line_offset + exc.start}"
        )
    if not raw.strip():
        return None
    if isinstance(exc, RecursionError):
        return "invalid JSON: nested too deeply"
    try:  # again without the line ending, so the column points into the line
        json.loads(raw.decode().rstrip("\r\n"))
    except json.JSONDecodeError as again:
        return f"invalid JSON: {again.msg} (column {again.colno})"
    except (ValueError, RecursionError) as again:
        return f"invalid JSON: {again}"
    return f"invalid JSON: {exc}"  # pragma: no cover


def iter_jsonl(
    path: str, on_skip: SkipCallback | None, size: int, opener: Opener = open
) -> Iterator:
    """Lists of ``size`` records (the last may be shorter), or records one by one if size is 0."""
    scan, loads = _SCANNER.scan_once, json.loads
    chunk: list = []
    with opener(path, "rb") as f:
        first = f.readline()
        start = 0
        if first.startswith(_BOM):
            first, start = first[3:], 3
        for lineno, raw in itertools.chain(((1, first),), enumerate(f, 2)):
            try:
                text = raw.decode()
                try:
                    obj, end = scan(text, 0)
                except StopIteration:  # leading whitespace, blank line, or no JSON value
                    end = -1
                if end < 0 or text[end:] not in _LINE_ENDS:
                    obj = loads(text)  # the general (slow) path; raises the usual error
            except UnicodeDecodeError as exc:  # stops the reading, as every format does
                raise _not_utf8(f, path, lineno, raw, exc, start) from None
            except (ValueError, RecursionError) as exc:
                if on_skip is not None:
                    offset = start if lineno == 1 else f.tell() - len(raw)
                    reason = jsonl_problem(raw, exc, offset)
                    if reason is not None:
                        on_skip(SkippedRecord(path, lineno, reason))
                continue
            if type(obj) is dict:
                if not size:
                    yield obj
                    continue
                chunk.append(obj)
                if len(chunk) >= size:
                    yield chunk
                    chunk = []
            elif on_skip is not None:
                on_skip(
                    SkippedRecord(
                        path, lineno, f"valid JSON but not an object (got {json_type_name(obj)})"
                    )
                )
    if chunk:
        yield chunk


def _not_utf8(
    f: IO[bytes], path: str, lineno: int, raw: bytes, exc: UnicodeDecodeError, start: int
) -> Exception:
    """The encoding error of line ``lineno`` (``raw``, just read from ``f``)."""
    try:
        offset = start if lineno == 1 else f.tell() - len(raw)
    except (OSError, ValueError):  # pragma: no cover - a stream that cannot tell
        offset = 0
    return encoding_error(path, lineno, offset + exc.start, raw[exc.start], raw)


def count_jsonl(path: str, block_size: int, opener: Opener = open) -> int:
    """Lines starting with ``{``, by a binary scan."""
    count = 0
    with opener(path, "rb") as f:
        head = f.read(3)
        carry = b"\n" + (b"" if head == _BOM else head)
        while True:
            block = f.read(block_size)
            data = carry + block
            count += len(_JSONL_RECORD_START.findall(data))
            if not block:
                return count
            cut = data.rfind(b"\n")
            # keep a line start whose "{" may still come in the next block
            carry = data[cut:] if cut >= 0 and not data[cut + 1 :].strip(b" \t\r") else b""


class JsonlWriter:
    """One JSON text per line."""

    def __init__(self, out: BinaryIO, delimiter: str = ",") -> None:
        self.out = out

    def write(self, payload: bytes, count: int) -> None:
        """Write ``count`` records given as JSON texts joined by b"\\n"."""
        if count:
            self.out.write(payload)
            self.out.write(b"\n")

    def finish(self) -> None:
        pass


class JsonlFormat(Format):
    """JSON Lines; ``opener`` opens the file as bytes (a subclass may read it through a codec)."""

    name = "jsonl"
    label = "JSONL"
    extensions = writes = (".jsonl", ".ndjson")
    opener: Opener = staticmethod(open)

    def records(self, path: str, on_skip: SkipCallback | None, block_size: int) -> Iterator[dict]:
        return iter_jsonl(path, on_skip, 0, self.opener)

    def chunks(
        self,
        path: str,
        size: int,
        overlap: int | None,
        on_skip: SkipCallback | None,
        block_size: int,
    ) -> Iterator[list]:
        return iter_jsonl(path, on_skip, size, self.opener)

    def count(self, path: str, exact: bool, block_size: int) -> int:
        """Lines starting with ``{`` (the records unless one is malformed); ``exact``: parsed."""
        if exact:
            return sum(1 for _ in self.records(path, None, block_size))
        return count_jsonl(path, block_size, self.opener)

    def batches(self, path: str, size: int, on_skip: SkipCallback | None) -> Iterator[Lines]:
        """Raw lines, ``size`` at a time (BOM dropped): the workers parse them, not this process."""
        return self.part_batches(Part(path, self.name), size, on_skip)

    def plan(self, path: str, batch_size: int, per_batches: int) -> list[Part]:
        """Parts of ``per_batches`` whole batches of ``batch_size`` lines, cut by a line scan (a
        transcoded file, which cannot seek: one part)."""
        if self.transcodes:
            return super().plan(path, batch_size, per_batches)
        cuts, offset, lines, batches = [(0, 0)], 0, 0, 0
        with self.opener(path, "rb") as f:
            while batch := list(itertools.islice(f, batch_size)):
                if batches == per_batches:
                    cuts.append((offset, lines))
                    batches = 0
                offset, lines = offset + sum(map(len, batch)), lines + len(batch)
                batches += 1
        ends = [start for start, _ in cuts[1:]] + [-1]
        return [Part(path, self.name, start, end, line) for (start, line), end in zip(cuts, ends)]

    def part_batches(self, part: Part, size: int, on_skip: SkipCallback | None) -> Iterator[Lines]:
        with self.opener(part.path, "rb") as f:
            if part.start:
                f.seek(part.start)
            line, offset = part.line + 1, part.start
            while part.end < 0 or offset < part.end:
                lines = list(itertools.islice(f, size))
                if not lines:
                    break
                if offset == 0 and lines[0].startswith(_BOM):
                    lines[0], offset = lines[0][3:], 3
                data = b"".join(lines)
                bad = None if self.transcodes else utf8_error(data, part.path, line, offset)
                if bad is not None:  # the workers would skip it; every format stops
                    raise bad
                yield Lines(data if data.endswith(b"\n") else data + b"\n", line, offset)
                line, offset = line + len(lines), offset + len(data)

    def writer(self, out: BinaryIO, path: str) -> JsonlWriter:
        return JsonlWriter(out)
