"""Streaming readers of every registered format (``read.formats``); a file is never loaded whole.

The functions here take a path and an optional format name (None: the one its extension names,
``detect_format``) and ask the format registry; each format's module documents its reading:

* JSONL (``formats.jsonl``): bad lines skipped and reported through ``on_skip`` with their 1-based
  line number; blank lines ignored silently.
* CSV/TSV (``formats.delimited``): the header row gives the keys; rows with the wrong number of
  fields and a quote never closed are skipped and reported; ``.tsv`` files use a tab delimiter.
* JSON (``formats.json_doc``): a top-level array of objects, or an object holding one, streamed;
  non-object elements skipped and reported; syntax errors raise InputError naming line and column.
* text (``formats.text``): chunks of at most ``chunk_size`` characters at sentence boundaries,
  each after the first repeating up to ``overlap`` characters of the previous one.
* Parquet and Excel (``formats.tabular``, optional extras): see ``tables``; without the library
  the call raises ModuleNotFoundError with the pip command.

Every text format (JSONL, CSV/TSV, JSON, text, gzipped) is read in ``encoding`` (UTF-8 by
default; another is transcoded to UTF-8: ``formats.encoding``); bytes that do not decode raise
InputEncodingError (an InputError) with ``path``, ``line``, ``byte_offset`` and a hint, the same
in every format. Parquet and Excel take no encoding (ValueError for any but UTF-8).
"""

from __future__ import annotations

import os
from typing import Iterator

from .formats import BLOCK_SIZE, SkipCallback, detect, resolve
from .formats.encoding import DEFAULT_ENCODING
from .formats.delimited import UNCLOSED_QUOTE, csv_records
from .formats.jsonl import jsonl_problem
from .formats.text import text_chunks
from .rows import SkippedRecord

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
"""The built-in formats' names; ``read.formats.names()`` lists every registered one."""

_text_chunks = text_chunks  # the name tests of the chunker's overlaps call


def detect_format(path: str | os.PathLike) -> str:
    """The name of the format a path's extension names (``read.formats.detect``); else text."""
    return detect(str(path)).name


def iter_records(
    path: str,
    fmt: str | None = None,
    *,
    on_skip: SkipCallback | None = None,
    block_size: int = BLOCK_SIZE,
    encoding: str = DEFAULT_ENCODING,
) -> Iterator[dict]:
    """Yield the records (dicts) of a structured file one at a time; bad records go to
    ``on_skip``."""
    path, kind = resolve(path, fmt, encoding)
    return kind.records(path, on_skip, block_size)


def iter_chunks(
    path: str,
    chunk_size: int,
    fmt: str | None = None,
    *,
    overlap: int | None = None,
    on_skip: SkipCallback | None = None,
    block_size: int = BLOCK_SIZE,
    encoding: str = DEFAULT_ENCODING,
) -> Iterator[list]:
    """Yield lists of up to ``chunk_size`` records, or for text one-string lists of at most
    ``chunk_size`` chars.

    Text only: each chunk after the first starts with up to ``overlap`` characters of whole
    sentences from the end of the previous one; None means 200, at most ``chunk_size // 4``.
    """
    _check_size(chunk_size)
    path, kind = resolve(path, fmt, encoding)
    return kind.chunks(path, chunk_size, overlap, on_skip, block_size)


def count_records(
    path: str,
    fmt: str | None = None,
    *,
    exact: bool = False,
    block_size: int = BLOCK_SIZE,
    encoding: str = DEFAULT_ENCODING,
) -> int:
    """Records iter_records would yield (text: the number of characters), streaming.

    JSONL is counted by a binary scan for lines starting with ``{``; that equals the
    number of records unless such a line is malformed (pass ``exact=True`` to parse
    every line instead). Parquet: the row count in the file's metadata.
    """
    path, kind = resolve(path, fmt, encoding)
    return kind.count(path, exact, block_size)


def count_chunks(
    path: str,
    chunk_size: int,
    fmt: str | None = None,
    *,
    overlap: int | None = None,
    block_size: int = BLOCK_SIZE,
    encoding: str = DEFAULT_ENCODING,
) -> int:
    """Exactly the number of chunks ``iter_chunks(path, chunk_size, fmt, overlap=overlap)`` yields,
    streaming.

    Structured formats: ceil(records / chunk_size), JSONL lines parsed one by one
    (``count_records(..., exact=True)``). Text: the chunks are cut and counted, since a
    chunk ends early at a sentence boundary and repeats the overlap.
    """
    _check_size(chunk_size)
    path, kind = resolve(path, fmt, encoding)
    return kind.count_chunks(path, chunk_size, overlap, block_size)


def _check_size(chunk_size: int) -> None:
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
