"""CSV and TSV (``.csv``, ``.tsv``: a tab delimiter): the csv module over the file's lines.

Quoted newlines, BOM and CRLF are handled; the header row gives the keys (empty names become
``column_N``, repeats get ``_2``, ``_3``...); values stay strings; blank lines are ignored; rows
with the wrong number of fields are skipped and reported; a quote never closed (which would take
every later line into one field) skips and reports its line, and the lines after it are read as
records; bytes that do not decode raise InputEncodingError (``encoding``). Dask parts are cut at
row boundaries every ``per_batches`` whole batches. Output: a header of every key, in order of
first appearance (``CsvWriter``).
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import json
import re
from typing import IO, Any, BinaryIO, Iterable, Iterator

from ...errors import InputEncodingError, InputError
from ..rows import SkippedRecord, unique_header
from ._base import Format, Opener, Part, SkipCallback
from .output import Header, TableWriter, widen_csv
from .encoding import encoding_error

__all__ = ["CsvFormat", "CsvWriter", "csv_records", "csv_cell", "open_text", "UNCLOSED_QUOTE"]

_BOM = codecs.BOM_UTF8
_ESCAPED = re.compile("[\udc80-\udcff]")  # bytes that surrogateescape could not decode
UNCLOSED_QUOTE = "unclosed quote"  # how a CSV record whose quote is never closed is reported
_END = "\ufffe\uffffrecursive_cleaner: end of input\uffff"  # noncharacters: in no real CSV
# read after the last line: a row of its own, or the tail of an unclosed quoted field
_END_LINE = _END + "\n"


def _csv_encoding_error(path: str, first_line: int, opener: Opener) -> InputEncodingError:
    """Find the first undecodable byte at or after ``first_line`` (rescans; only on error)."""
    with opener(path, "rb") as f:
        sample = f.read(4096)
    with open_text(opener, path) as f:
        offset = 3 if sample.startswith(_BOM) else 0
        for lineno, line in enumerate(f, 1):
            match = _ESCAPED.search(line) if lineno >= first_line else None
            if match:
                offset += len(line[: match.start()].encode("utf-8", "surrogateescape"))
                return encoding_error(path, lineno, offset, ord(match.group()) - 0xDC00, sample)
            offset += len(line.encode("utf-8", "surrogateescape"))
    return InputEncodingError(
        f"{path}: not valid UTF-8 near line {first_line}", path, first_line
    )  # pragma: no cover


def open_text(opener: Opener, path: str) -> IO[str]:
    """A CSV file as text: UTF-8 (BOM dropped), bad bytes kept as surrogates, newlines untouched."""
    if opener is open:
        return open(path, newline="", encoding="utf-8-sig", errors="surrogateescape")
    return opener(path, "rt", newline="", encoding="utf-8-sig", errors="surrogateescape")


def _iter_csv(
    path: str, on_skip: SkipCallback | None, delimiter: str, opener: Opener
) -> Iterator[dict]:
    with open_text(opener, path) as f:
        yield from csv_records(f, path, on_skip, delimiter, opener=opener)


def csv_records(
    lines: Iterable[str],
    path: str,
    on_skip: SkipCallback | None,
    delimiter: str,
    keys: list[str] | None = None,
    line: int = 0,
    *,
    opener: Opener = open,
) -> Iterator[dict]:
    """The records of CSV text lines (a file opened as ``open_text`` does, or a span of one).

    A span that starts after the header passes its ``keys`` and the number of ``line``s before it
    (apply.on_dask reads a file in spans cut at row boundaries); the header row is read otherwise.
    ``opener`` opens the file again to find an undecodable byte (``gzip.open``: a compressed one).
    A quote never closed makes the csv module read every later line into one field: that record
    is skipped and reported (``UNCLOSED_QUOTE``, with its line and the lines it took), and the
    lines after it are read again as records (an unclosed quote in the header is an InputError).
    """
    source: Iterable[str] | None = lines
    while source is not None:
        # set when the reader takes the end mark: the row it then gives is the last
        ended: list[bool] = []
        reader = csv.reader(itertools.chain(source, _end_mark(ended)), delimiter=delimiter)
        rows, source, end = iter(reader), None, line
        while True:
            try:
                row = next(rows)
            except StopIteration:
                return
            except csv.Error as exc:
                hint = (
                    f"; the csv module reads fields of at most {csv.field_size_limit():,} "
                    "characters: a longer "
                    "value, or a quote never closed"
                    if "field larger" in str(exc)
                    else ""
                )
                raise InputError(
                    f"{path}: line {end + 1}: malformed CSV: {exc}{hint}", path, end + 1
                ) from None
            start, end = end + 1, line + reader.line_num
            if not row:
                continue  # blank line
            if ended:  # the end mark's own row, or a quoted field that ran to the end
                if row[-1].endswith(_END_LINE):
                    source, line = _unclosed(row[-1], path, end - 1, keys is None, on_skip)
                    break
                if len(row) == 1 and row[0] == _END:
                    return
            joined = "".join(row)
            if not joined.isascii():
                try:
                    joined.encode("utf-8")
                except UnicodeEncodeError:
                    raise _csv_encoding_error(path, start, opener) from None
            if keys is None:
                keys = unique_header(row)
            elif len(row) == len(keys):
                yield dict(zip(keys, row))
            elif on_skip is not None:
                on_skip(
                    SkippedRecord(
                        path,
                        start,
                        f"expected {len(keys)} fields (from the header), got {len(row)}",
                    )
                )


def _end_mark(ended: list[bool]) -> Iterator[str]:
    """The line read after the input's last line, noting that it was read."""
    ended.append(True)
    yield _END_LINE


def _unclosed(
    field: str, path: str, last: int, header: bool, on_skip: SkipCallback | None
) -> tuple[list[str], int]:
    """(the lines after the one whose quote is never closed, lines before them); that line is
    reported.

    Inside a quoted field the csv module keeps every character and reads ``""`` as ``"``; a field
    that runs to the end holds no other quote, so doubling its quotes gives back the raw text.
    """
    text = io.StringIO(field[: -len(_END_LINE)].replace('"', '""'), newline="")
    text.readline()  # the rest of the line the quote opened on
    following = text.readlines()
    opened = last - len(following)
    if header:
        raise InputError(f"{path}: line {opened}: {UNCLOSED_QUOTE} in the header row", path, opened)
    if on_skip is not None:
        taken = (
            f"it took the {len(following)} following line(s) into one field; " if following else ""
        )
        on_skip(
            SkippedRecord(
                path,
                opened,
                f"{UNCLOSED_QUOTE}: {taken}this line is skipped"
                + (", the lines after it are read again" if following else ""),
            )
        )
    return following, opened


# ---------------------------------------------------------------------------- Dask parts
class _Counted:
    """Text lines, counting them and their UTF-8 bytes (csv.reader reads exactly each row's
    lines)."""

    def __init__(self, lines: Iterator[str], offset: int) -> None:
        self.lines, self.offset, self.count = lines, offset, 0

    def __iter__(self) -> _Counted:
        return self

    def __next__(self) -> str:
        text = next(self.lines)
        self.offset += len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))
        self.count += 1
        return text


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


# ---------------------------------------------------------------------------- output
class CsvWriter(TableWriter):
    """CSV rows under a header of every key in order of first appearance.

    Keys first seen after the first batch get their columns at the end: the rows go on with the
    wider header, and ``finish`` rewrites the file once (``output.widen_csv``: the whole header, the
    earlier rows padded with empty cells). An output that cannot be read back (a stream) keeps the
    first batch's header and lists the later keys in ``dropped``.
    """

    def __init__(self, out: BinaryIO, delimiter: str = ",") -> None:
        self.out, self.delimiter = out, delimiter
        self.text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
        self.csv = csv.writer(self.text, delimiter=delimiter)
        self.header = Header()
        self.widths: list[tuple[int, int]] = []  # (byte offset, width) where rows of a width begin

    @property
    def widens(self) -> bool:
        try:
            return self.out.seekable() and self.out.readable()
        except (AttributeError, ValueError):
            return False

    def start(self, records: list[dict]) -> None:
        self.csv.writerow(self.header.keys)
        if self.widens:
            self.widths = [(self.out.tell(), len(self.header.keys))]

    def widen(self, keys: list[str]) -> None:
        self.widths.append((self.out.tell(), len(self.header.keys)))

    def rows(self, records: list[dict]) -> None:
        for record in records:
            self.csv.writerow([csv_cell(record.get(key)) for key in self.header.keys])

    def finish(self) -> None:
        self.text.flush()
        self.text.detach()
        if len(self.widths) > 1:
            header = io.StringIO(newline="")
            csv.writer(header, delimiter=self.delimiter).writerow(self.header.keys)
            widen_csv(
                self.out,
                self.widths[0][0],
                self.widths,
                header.getvalue().encode("utf-8"),
                self.delimiter.encode("ascii"),
            )


def csv_cell(value: Any) -> str:
    """A CSV cell: None empty, text as is, bool / list / dict as JSON, numbers by ``str``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


class CsvFormat(Format):
    """CSV, or TSV for a path ending with ``tab_suffix``; ``opener`` opens the file (``open``)."""

    name = "csv"
    label = "CSV/TSV"
    extensions = writes = (".csv", ".tsv")
    strings_only = True
    tab_suffix = ".tsv"
    opener: Opener = staticmethod(open)

    def delimiter(self, path: str) -> str:
        """A tab for a path ending with ``tab_suffix``, else a comma."""
        return "\t" if path.lower().endswith(self.tab_suffix) else ","

    def records(self, path: str, on_skip: SkipCallback | None, block_size: int) -> Iterator[dict]:
        return _iter_csv(path, on_skip, self.delimiter(path), self.opener)

    def plan(self, path: str, batch_size: int, per_batches: int) -> list[Part]:
        """Parts of ``per_batches`` whole batches, cut at row boundaries by the csv parser (a
        transcoded file, which cannot seek: one part)."""
        if self.transcodes:
            return super().plan(path, batch_size, per_batches)
        per = batch_size * per_batches
        with self.opener(path, "rb") as raw:
            bom = raw.read(3) == _BOM
        parts, start, cut = [], Part(path, self.name), None
        unclosed: list[SkippedRecord] = []  # past an unclosed quote lines were read twice: no cuts

        def skipped(record: SkippedRecord) -> None:
            if record.reason.startswith(UNCLOSED_QUOTE):
                unclosed.append(record)

        with open_text(self.opener, path) as f:
            lines = _Counted(f, 3 if bom else 0)
            records = csv_records(lines, path, skipped, self.delimiter(path), opener=self.opener)
            for count, record in enumerate(records, 1):
                if cut is not None:  # a record after a full part: the part ends where the last did
                    parts.append(
                        Part(
                            path,
                            self.name,
                            start.start,
                            cut[0],
                            start.line,
                            start.record,
                            start.keys,
                        )
                    )
                    start = Part(path, self.name, cut[0], -1, cut[1], cut[2], tuple(record))
                    cut = None
                if count % per == 0 and not unclosed:
                    cut = (lines.offset, lines.count, count)
        return parts + [start]

    def part_records(self, part: Part, on_skip: SkipCallback | None) -> Iterator[dict]:
        """The records of a part, read as ``records`` reads the whole file."""
        with self.opener(part.path, "rb") as raw:
            if part.start:
                raw.seek(part.start)
            data = raw if part.end < 0 else io.BufferedReader(_Slice(raw, part.end - part.start))
            encoding = "utf-8-sig" if part.start == 0 else "utf-8"
            text = io.TextIOWrapper(data, encoding=encoding, errors="surrogateescape", newline="")
            keys = None if part.keys is None else list(part.keys)
            delimiter = self.delimiter(part.path)
            yield from csv_records(
                text, part.path, on_skip, delimiter, keys, part.line, opener=self.opener
            )

    def part_batches(self, part: Part, size: int, on_skip: SkipCallback | None) -> Iterator[list]:
        records = self.part_records(part, on_skip)
        return iter(lambda: list(itertools.islice(records, size)), [])

    def writer(self, out: BinaryIO, path: str) -> CsvWriter:
        return CsvWriter(out, self.delimiter(path))
