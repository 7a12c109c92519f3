"""Streaming readers for JSONL, CSV/TSV, JSON and plain text; a file is never loaded whole.

* JSONL: binary line scan (memory is bounded by the longest line); bad lines (invalid
  JSON, valid JSON that is not an object, not UTF-8) are skipped and reported through
  ``on_skip`` with their 1-based line number; blank lines are ignored silently.
* CSV/TSV: the csv module (quoted newlines, BOM, CRLF); the header row gives the keys
  (empty names become ``column_N``, repeats get ``_2``, ``_3``...); values stay strings;
  blank lines are ignored; rows with the wrong number of fields are skipped and reported;
  a quote never closed (which would take every later line into one field) skips and reports
  its line, and the lines after it are read as records; bytes that are not UTF-8 raise
  InputEncodingError. ``.tsv`` files use a tab delimiter.
* JSON: a top-level array of objects, or a top-level object holding the records in a list
  of objects under some key (``{"data": [{...}, ...], "count": 3}``), streamed record by
  record by ``json_stream.JsonRecordStream`` (see there); non-object elements are skipped
  and reported; syntax errors raise InputError naming line and column.
* text: decoded in blocks (UTF-8, BOM dropped, newlines untouched) and cut by
  ``text_chunker`` into chunks of at most ``chunk_size`` characters at sentence boundaries
  (an over-long sentence at its last whitespace before the limit, else at the limit); each
  chunk after the first repeats up to ``overlap`` characters of whole sentences from the end
  of the previous one (default: 200, at most a quarter of ``chunk_size``). A chunk that adds
  only whitespace joins the previous chunk (leading whitespace: the first chunk) when the
  result stays within ``2 * chunk_size``. With ``overlap=0`` joining the chunks gives back
  the text exactly; a file with no non-whitespace character gives no chunks.

* Parquet (``.parquet``, ``.pq``; needs the ``parquet`` extra, pyarrow) and Excel
  (``.xlsx``, ``.xlsm``, first sheet, header row; needs the ``excel`` extra, openpyxl): see
  ``tables``. The library is imported only when such a file is read; without it the call
  raises ModuleNotFoundError with the pip command. Values are made JSON-ready (dates as
  ISO strings). ``.xls`` (the old binary format) is refused with a hint to save as .xlsx.

Bad bytes raise InputEncodingError (an InputError) with ``path``, ``line`` and
``byte_offset``, except in JSONL, where the line is skipped and reported instead.
"""

from __future__ import annotations

import codecs
import csv
import errno
import io
import itertools
import json
import os
import re
from typing import Callable, Iterable, Iterator

from ..errors import InputEncodingError, InputError
from .json_stream import JsonRecordStream, json_type_name
from .rows import SkippedRecord, unique_header
from .text_chunker import DEFAULT_OVERLAP, TextChunk, iter_overlapped_chunks

__all__ = [
    "csv_records",
    "UNCLOSED_QUOTE",
    "jsonl_problem",
    "FORMATS",
    "BLOCK_SIZE",
    "SkippedRecord",
    "detect_format",
    "iter_records",
    "iter_chunks",
    "count_records",
    "count_chunks",
]

FORMATS = ("jsonl", "csv", "json", "text", "parquet", "excel")
BLOCK_SIZE = 1 << 20  # bytes read per block (JSON, text, counting)

_BOM = codecs.BOM_UTF8
_EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "csv", ".json": "json",
               ".parquet": "parquet", ".pq": "parquet", ".xlsx": "excel", ".xlsm": "excel", ".xls": "excel"}
_ESCAPED = re.compile("[\udc80-\udcff]")  # bytes that surrogateescape could not decode
_JSONL_RECORD_START = re.compile(rb"\n[ \t\r]*\{")
_SCANNER = json.JSONDecoder()  # its C scan_once decodes one value with no Python overhead
_LINE_ENDS = ("\n", "\r\n", "")
UNCLOSED_QUOTE = "unclosed quote"  # how a CSV record whose quote is never closed is reported
_END = "\ufffe\uffffrecursive_cleaner: end of input\uffff"  # noncharacters: in no real CSV
_END_LINE = _END + "\n"  # read after the last line: a row of its own, or the tail of an unclosed quoted field


SkipCallback = Callable[[SkippedRecord], None]


def detect_format(path: str) -> str:
    """Format by extension: .jsonl/.ndjson, .csv/.tsv, .json, .parquet/.pq, .xlsx/.xlsm/.xls; anything else is text."""
    return _EXTENSIONS.get(os.path.splitext(str(path))[1].lower(), "text")


def _resolve(path: str, fmt: str | None) -> tuple[str, str]:
    path = os.fspath(path)
    fmt = detect_format(path) if fmt is None else fmt
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "No such file", path)
    return path, fmt


def iter_records(
    path: str, fmt: str | None = None, *, on_skip: SkipCallback | None = None, block_size: int = BLOCK_SIZE
) -> Iterator[dict]:
    """Yield the records (dicts) of a structured file one at a time; bad records go to ``on_skip``."""
    path, fmt = _resolve(path, fmt)
    if fmt == "text":
        raise ValueError("text files have no records; use iter_chunks(path, size, 'text')")
    if fmt == "jsonl":
        return _iter_jsonl(path, on_skip, 0)
    if fmt == "csv":
        return _iter_csv(path, on_skip, "\t" if path.lower().endswith(".tsv") else ",")
    if fmt in ("parquet", "excel"):
        from . import tables  # the optional libraries are imported only for these formats

        return tables.iter_parquet(path) if fmt == "parquet" else tables.iter_excel(path, on_skip)
    report = None if on_skip is None else (lambda line, reason: on_skip(SkippedRecord(path, line, reason)))
    return JsonRecordStream(_text_blocks(path, block_size), path, block_size, report).records()


def iter_chunks(
    path: str,
    chunk_size: int,
    fmt: str | None = None,
    *,
    overlap: int | None = None,
    on_skip: SkipCallback | None = None,
    block_size: int = BLOCK_SIZE,
) -> Iterator[list]:
    """Yield lists of up to ``chunk_size`` records, or for text one-string lists of at most ``chunk_size`` chars.

    Text only: each chunk after the first starts with up to ``overlap`` characters of whole
    sentences from the end of the previous one; None means 200, at most ``chunk_size // 4``.
    """
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    path, fmt = _resolve(path, fmt)
    if fmt == "text":
        return ([chunk.text] for chunk in _text_chunks(path, chunk_size, overlap, block_size))
    if fmt == "jsonl":
        return _iter_jsonl(path, on_skip, chunk_size)
    return _batched(iter_records(path, fmt, on_skip=on_skip, block_size=block_size), chunk_size)


def count_records(path: str, fmt: str | None = None, *, exact: bool = False, block_size: int = BLOCK_SIZE) -> int:
    """Records iter_records would yield (text: the number of characters), streaming.

    JSONL is counted by a binary scan for lines starting with ``{``; that equals the
    number of records unless such a line is malformed (pass ``exact=True`` to parse
    every line instead). Parquet: the row count in the file's metadata.
    """
    path, fmt = _resolve(path, fmt)
    if fmt == "text":
        return sum(len(block) for block in _text_blocks(path, block_size))
    if fmt == "jsonl" and not exact:
        return _count_jsonl(path, block_size)
    if fmt == "parquet":
        from . import tables

        return tables.count_parquet(path)
    return sum(1 for _ in iter_records(path, fmt, block_size=block_size))


def count_chunks(
    path: str, chunk_size: int, fmt: str | None = None, *, overlap: int | None = None, block_size: int = BLOCK_SIZE
) -> int:
    """Exactly the number of chunks ``iter_chunks(path, chunk_size, fmt, overlap=overlap)`` yields, streaming.

    Structured formats: ceil(records / chunk_size), JSONL lines parsed one by one
    (``count_records(..., exact=True)``). Text: the chunks are cut and counted, since a
    chunk ends early at a sentence boundary and repeats the overlap.
    """
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    path, fmt = _resolve(path, fmt)
    if fmt == "text":
        return sum(1 for _ in _text_chunks(path, chunk_size, overlap, block_size))
    return -(-count_records(path, fmt, exact=True, block_size=block_size) // chunk_size)


def _batched(records: Iterator[dict], size: int) -> Iterator[list]:
    while True:
        chunk = list(itertools.islice(records, size))
        if not chunk:
            return
        yield chunk


# ---------------------------------------------------------------------------- encoding
def _encoding_hint(data: bytes) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or data[:64].count(0) > 8:
        return "the file looks like UTF-16; re-encode it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 IN > OUT)"
    return "the file looks like Latin-1/cp1252; re-encode it to UTF-8 (e.g. iconv -f CP1252 -t UTF-8 IN > OUT)"


def _encoding_error(path: str, line: int, offset: int, byte: int, sample: bytes) -> InputEncodingError:
    message = (
        f"{path}: line {line}: byte 0x{byte:02x} at byte offset {offset} is not valid UTF-8; "
        f"{_encoding_hint(sample)}"
    )
    return InputEncodingError(message, path, line, offset)


def _text_blocks(path: str, block_size: int) -> Iterator[str]:
    """Decode a file as UTF-8 (BOM dropped) block by block; bad bytes raise InputEncodingError."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(path, "rb") as f:
        head = f.read(3)
        consumed = 3 if head == _BOM else 0
        raw = b"" if head == _BOM else head
        lines = 0
        while True:
            raw += f.read(block_size)
            final = not raw
            pending = decoder.getstate()[0]
            try:
                text = decoder.decode(raw, final)
            except UnicodeDecodeError as exc:
                data = pending + raw
                line = lines + data.count(b"\n", 0, exc.start) + 1
                raise _encoding_error(path, line, consumed - len(pending) + exc.start, data[exc.start], data) from None
            consumed += len(raw)
            raw = b""
            if text:
                lines += text.count("\n")
                yield text
            if final:
                return


# ---------------------------------------------------------------------------- JSONL
def jsonl_problem(raw: bytes, exc: BaseException, line_offset: int) -> str | None:
    """Why a JSONL line was skipped, or None for a blank line (ignored silently)."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {line_offset + exc.start}"
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


def _iter_jsonl(path: str, on_skip: SkipCallback | None, size: int) -> Iterator:
    """Lists of ``size`` records (the last may be shorter), or records one by one if size is 0."""
    scan, loads = _SCANNER.scan_once, json.loads
    chunk: list = []
    with open(path, "rb") as f:
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
                on_skip(SkippedRecord(path, lineno, f"valid JSON but not an object (got {json_type_name(obj)})"))
    if chunk:
        yield chunk


def _count_jsonl(path: str, block_size: int) -> int:
    count = 0
    with open(path, "rb") as f:
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


# ---------------------------------------------------------------------------- CSV
def _csv_encoding_error(path: str, first_line: int) -> InputEncodingError:
    """Find the first undecodable byte at or after ``first_line`` (rescans; only on error)."""
    with open(path, "rb") as f:
        sample = f.read(4096)
    with open(path, newline="", encoding="utf-8-sig", errors="surrogateescape") as f:
        offset = 3 if sample.startswith(_BOM) else 0
        for lineno, line in enumerate(f, 1):
            match = _ESCAPED.search(line) if lineno >= first_line else None
            if match:
                offset += len(line[: match.start()].encode("utf-8", "surrogateescape"))
                return _encoding_error(path, lineno, offset, ord(match.group()) - 0xDC00, sample)
            offset += len(line.encode("utf-8", "surrogateescape"))
    return InputEncodingError(f"{path}: not valid UTF-8 near line {first_line}", path, first_line)  # pragma: no cover


def _iter_csv(path: str, on_skip: SkipCallback | None, delimiter: str) -> Iterator[dict]:
    with open(path, newline="", encoding="utf-8-sig", errors="surrogateescape") as f:
        yield from csv_records(f, path, on_skip, delimiter)


def csv_records(
    lines: Iterable[str], path: str, on_skip: SkipCallback | None, delimiter: str,
    keys: list[str] | None = None, line: int = 0,
) -> Iterator[dict]:
    """The records of CSV text lines (a file opened as ``_iter_csv`` does, or a span of one).

    A span that starts after the header passes its ``keys`` and the number of ``line``s before it
    (apply.on_dask reads a file in spans cut at row boundaries); the header row is read otherwise.
    A quote never closed makes the csv module read every later line into one field: that record
    is skipped and reported (``UNCLOSED_QUOTE``, with its line and the lines it took), and the
    lines after it are read again as records (an unclosed quote in the header is an InputError).
    """
    source: Iterable[str] | None = lines
    while source is not None:
        ended: list[bool] = []  # set when the reader takes the end mark: the row it then gives is the last
        reader = csv.reader(itertools.chain(source, _end_mark(ended)), delimiter=delimiter)
        rows, source, end = iter(reader), None, line
        while True:
            try:
                row = next(rows)
            except StopIteration:
                return
            except csv.Error as exc:
                hint = (f"; the csv module reads fields of at most {csv.field_size_limit():,} characters: a longer "
                        "value, or a quote never closed" if "field larger" in str(exc) else "")
                raise InputError(f"{path}: line {end + 1}: malformed CSV: {exc}{hint}", path, end + 1) from None
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
                    raise _csv_encoding_error(path, start) from None
            if keys is None:
                keys = unique_header(row)
            elif len(row) == len(keys):
                yield dict(zip(keys, row))
            elif on_skip is not None:
                on_skip(SkippedRecord(path, start, f"expected {len(keys)} fields (from the header), got {len(row)}"))


def _end_mark(ended: list[bool]) -> Iterator[str]:
    """The line read after the input's last line, noting that it was read."""
    ended.append(True)
    yield _END_LINE


def _unclosed(field: str, path: str, last: int, header: bool, on_skip: SkipCallback | None) -> tuple[list[str], int]:
    """(the lines after the one whose quote is never closed, lines before them); that line is reported.

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
        taken = f"it took the {len(following)} following line(s) into one field; " if following else ""
        on_skip(SkippedRecord(path, opened, f"{UNCLOSED_QUOTE}: {taken}this line is skipped"
                              + (", the lines after it are read again" if following else "")))
    return following, opened


# ---------------------------------------------------------------------------- text
def _text_overlap(size: int, overlap: int | None) -> int:
    if overlap is None:
        return min(DEFAULT_OVERLAP, size // 4)
    if not isinstance(overlap, int) or isinstance(overlap, bool) or not 0 <= overlap < size:
        raise ValueError(f"overlap must be an integer from 0 to chunk_size - 1 ({size - 1}), got {overlap!r}")
    return overlap


def _text_chunks(path: str, size: int, overlap: int | None, block_size: int) -> Iterator[TextChunk]:
    """The chunker's chunks; one that adds only whitespace joins a neighbour when that stays within 2 * size.

    Such chunks hold pieces of a cut whitespace run, so they repeat nothing of the chunk before.
    Checks ``overlap`` at call time; reads the file only when iterated.
    """
    chunks = iter_overlapped_chunks(_text_blocks(path, block_size), size, _text_overlap(size, overlap))
    return _join_blank_chunks(chunks, size)


def _join_blank_chunks(chunks: Iterator[TextChunk], size: int) -> Iterator[TextChunk]:
    pending: TextChunk | None = None  # the last chunk, held back so trailing whitespace can join it
    lead: list[str] = []  # whitespace before the first content; dropped if the file has none
    held = 0
    for chunk in chunks:
        new = chunk.new
        if new.strip():
            if lead:
                joined = "".join(lead) + new
                if len(joined) <= 2 * size:
                    chunk = TextChunk(joined, 0)
                else:
                    yield from (TextChunk(p, 0) for p in lead)
                lead, held = [], 0
        elif pending is None:
            lead.append(new)
            held += len(new)
            if held > BLOCK_SIZE:  # absurdly long leading whitespace: stop holding it
                yield from (TextChunk(p, 0) for p in lead)
                lead, held = [], 0
            continue
        elif len(pending.text) + len(new) <= 2 * size:
            pending = TextChunk(pending.text + new, pending.overlap)
            continue
        else:
            chunk = TextChunk(new, 0)
        if pending is not None:
            yield pending
        pending = chunk
    if pending is not None:
        yield pending
