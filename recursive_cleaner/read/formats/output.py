"""apply's batches (JSON texts joined by newlines) and what every tabular writer shares: the header,
blanks as nulls in typed columns, a spool file beside the output, a CSV body widened in place."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import IO, Any, BinaryIO, Iterable, Mapping

from ..rows import SHEET_CELLS, SHEET_RATIO

__all__ = [
    "load_batch",
    "Header",
    "TableWriter",
    "is_blank",
    "null_blanks",
    "spool_file",
    "widen_csv",
]


def load_batch(payload: bytes) -> list:
    """The records of a worker's batch: JSON texts joined by b"\\n"."""
    return [json.loads(text) for text in payload.split(b"\n")]


def is_blank(value: Any) -> bool:
    """None, or a string of nothing but whitespace (a CSV's empty cell)."""
    return value is None or (isinstance(value, str) and not value.strip())


def null_blanks(records: Iterable[dict], fields: Iterable[str]) -> int:
    """Blank strings of ``fields`` (a typed column: a number, a date) made None, in place; how
    many."""
    names, n = tuple(fields), 0
    for record in records:
        for name in names:
            value = record.get(name)
            if isinstance(value, str) and not value.strip():
                record[name] = None
                n += 1
    return n


def spool_file(out: IO[bytes]) -> IO[bytes]:
    """A temporary binary file, removed when closed: beside ``out`` when it names its file (an
    output may be larger than the temporary folder), else in the temporary folder."""
    name = getattr(out, "name", None)
    folder = os.path.dirname(os.path.abspath(name)) if isinstance(name, str) else None
    return tempfile.TemporaryFile(dir=folder)


class Header:
    """A tabular output's columns: every key of the records in order of first appearance.

    ``start`` fixes the first batch's keys; ``add`` appends keys first seen later (a writer that
    can place them) or lists them in ``dropped`` (one that cannot: a CSV written to a stream).
    """

    def __init__(self) -> None:
        self.keys: dict[str, None] | None = None
        self.dropped: set[str] = set()

    def start(self, records: Iterable[dict]) -> bool:
        """Fix the columns from the first batch; True the first time (write the header row then)."""
        if self.keys is not None:
            return False
        self.keys = {key: None for record in records for key in record}
        return True

    def add(self, records: Iterable[dict], keep: bool = True) -> list[str]:
        """The keys of ``records`` that have no column yet, in order: appended (``keep``) or listed
        in ``dropped``."""
        new: dict[str, None] = {}
        for record in records:
            if not record.keys() <= self.keys.keys():
                new.update((k, None) for k in record if k not in self.keys)
        if keep:
            self.keys.update(new)
        else:
            self.dropped.update(new)
        return list(new)


class TableWriter:
    """A tabular writer: columns from every batch (``Header``); ``start`` writes the header,
    ``rows`` the records, ``widen`` hears of columns first seen after the first batch.

    Subclasses set ``self.header = Header()`` and define ``start(records)`` and ``rows(records)``.
    ``column_types`` (set by apply from the field spec: name -> its type, see
    ``apply.out_types``): blanks of those columns are written as nulls.
    """

    header: Header
    column_types: Mapping[str, Any] = {}
    records_seen = 0  # records written so far, and the keys they held (``check_cells``)
    values_seen = 0

    @property
    def dropped(self) -> set[str]:
        """Keys first seen after the first batch that have no column (only a writer that cannot
        rewrite what it wrote drops them)."""
        return self.header.dropped

    @property
    def widens(self) -> bool:
        """Whether a column first seen after the first batch can be added."""
        return True

    def write(self, payload: bytes, count: int) -> None:
        """Write ``count`` records given as JSON texts joined by b"\\n"."""
        if not count:
            return
        records = load_batch(payload)
        if self.column_types:
            null_blanks(records, self.column_types)
        if self.header.start(records):
            self.start(records)
        else:
            new = self.header.add(records, self.widens)
            if new and self.widens:
                self.widen(new)
        self.check_cells(records)
        self.rows(records)

    def check_cells(self, records: list[dict]) -> None:
        """ValueError once the table would hold more than ``SHEET_CELLS`` cells and more than
        ``SHEET_RATIO`` cells per value the records hold (the bound the readers put on a sheet):
        records that each bring a key of their own make a column each, every row a cell in it
        (2,000 such records are 4,000,000 cells; a 126 KB JSONL took 32 s and 683 MB as
        Parquet)."""
        self.records_seen += len(records)
        self.values_seen += sum(len(r) for r in records if isinstance(r, dict))
        cells = self.records_seen * len(self.header.keys or ())
        if cells > SHEET_CELLS and cells > SHEET_RATIO * self.values_seen:
            raise ValueError(
                f"by record {self.records_seen:,} the table holds {cells:,} cells for "
                f"{self.values_seen:,} values (more than {SHEET_RATIO} cells a value: records "
                "with keys of their own make a column each); write JSONL instead"
            )

    def start(self, records: list[dict]) -> None:
        raise NotImplementedError

    def rows(self, records: list[dict]) -> None:
        raise NotImplementedError

    def widen(self, keys: list[str]) -> None:
        """Columns first seen in this batch, appended to ``header.keys`` (nothing to do for a
        writer that writes at ``finish``)."""


def widen_csv(
    out: BinaryIO, body: int, widths: list[tuple[int, int]], header: bytes, delimiter: bytes
) -> None:
    """Rewrite a CSV written with a growing header: ``header`` (the last, whole row), then every
    row from byte ``body`` on, padded with empty cells to its width.

    ``widths``: (byte offset, width) where rows of each width begin, in order. Rows are found by
    their ``\\r\\n`` outside quotes: in ``csv.writer``'s output every ``"`` opens, closes or is
    doubled inside a quoted field, so the parity of the quotes before a line end says whether it
    ends a row. The body is copied to a spool file first (the rewrite is longer than it).
    """
    final = widths[-1][1]
    with spool_file(out) as copy:
        out.flush()
        out.seek(body)
        shutil.copyfileobj(out, copy, 1 << 20)
        copy.seek(0)
        out.seek(0)
        out.truncate()
        out.write(header)
        position, quoted, segment = body, False, 0
        for line in copy:
            while segment + 1 < len(widths) and position >= widths[segment + 1][0]:
                segment += 1
            position += len(line)
            quoted ^= line.count(b'"') & 1
            missing = final - widths[segment][1]
            if missing and not quoted and line.endswith(b"\r\n"):
                line = line[:-2] + delimiter * missing + b"\r\n"
            out.write(line)
