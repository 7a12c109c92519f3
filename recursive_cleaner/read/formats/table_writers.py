"""Parquet (pyarrow) and Excel .xlsx (openpyxl): apply's writers for the optional formats.

Both libraries are imported only when such a file is read or written (``_extras.require``:
a missing one raises ModuleNotFoundError with the pip command).

Writing (``apply_file``): the batches are spooled (their JSON texts, in a temporary file beside the
output, removed when it closes) and the file is written at ``finish``, when every record has been
seen: the columns are every key in order of first appearance (a key first seen in a later batch
has its column, null before it), and each column's type is decided on all of its values.

* Parquet: a column's type is the one pyarrow infers for its values, batch by batch (ints,
  floats, strings, bools, lists, structs), when every batch gives the same one (ints in some
  batches and floats in others give double). A column all null, or whose values have no one type
  (ints and strings, structs with other keys), is a string column: strings as they are, other
  values as JSON text; nothing is dropped or truncated. A column with a type from the field spec
  (``column_types``, set by apply: a number, a whole number, an ISO date or timestamp) is of that
  type (double, int64, date32, timestamp) when every value converts (``convert(value)`` ->
  (value, type name)), blanks as nulls; otherwise as above. Rows are written in row groups of
  ``ROW_GROUP_ROWS`` rows.
* Excel: one sheet "Sheet1"; None is an empty cell; bool, int and float are cells of
  that type (NaN and infinities: empty; an int past 2**53, which a sheet's double cannot hold,
  is written as its digits, a text cell); lists and dicts are JSON text. A text longer than a
  cell holds (32,767 characters) fails the run with a ValueError: it is never cut. Strings are
  always text cells, also when they start with "=" (no formula injection); the control
  characters a sheet cannot hold are replaced by U+FFFD. More than 1,048,576 rows (the
  sheet limit, header included) fail the run with a ValueError as soon as they are counted.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from typing import Any, BinaryIO

from ..._extras import require
from .output import Header, TableWriter, load_batch, null_blanks, spool_file

__all__ = [
    "ParquetWriter",
    "ExcelWriter",
    "ROW_GROUP_ROWS",
    "EXCEL_MAX_ROWS",
    "EXCEL_CELL_CHARS",
    "EXCEL_EXACT",
    "ARROW_TYPES",
]

ROW_GROUP_ROWS = 65536
EXCEL_MAX_ROWS = 1_048_576
EXCEL_CELL_CHARS = 32_767  # a longer text is refused
EXCEL_EXACT = 2**53  # a bigger int is written as its digits (text)
# the type names a ``column_types`` entry converts to -> the pyarrow type
ARROW_TYPES = {
    "int64": lambda pa: pa.int64(),
    "double": lambda pa: pa.float64(),
    "date32": lambda pa: pa.date32(),
    "timestamp": lambda pa: pa.timestamp("us"),
    "timestamp_utc": lambda pa: pa.timestamp("us", tz="UTC"),
}


def _too_many() -> str:
    return (
        f"an Excel sheet holds at most {EXCEL_MAX_ROWS:,} rows (header included); "
        "write JSONL, CSV or Parquet instead"
    )


def _too_long(n: int) -> str:
    return (
        f"an Excel cell holds at most {EXCEL_CELL_CHARS:,} characters ({n:,} here); write JSONL, "
        "CSV or Parquet instead"
    )


def _cell_text(value: Any) -> str:
    """A non-string value of a string column: JSON text (as CSV cells are written)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _Spooled(TableWriter):
    """A writer that keeps every batch in a spool file and writes the output at ``finish``."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.header = Header()
        self.spool: Any = None
        self.count = 0
        self.batches: list[int] = []  # records per batch spooled

    def write(self, payload: bytes, count: int) -> None:
        if not count:
            return
        super().write(payload, count)
        if self.spool is None:
            self.spool = spool_file(self.out)
        self.spool.write(payload + b"\n")
        self.count += count
        self.batches.append(count)

    def start(self, records: list[dict]) -> None:
        """Nothing yet: the header is written at ``finish``, when every key is known."""

    def spooled(self, size: int) -> Any:
        """The spooled records again, whole batches gathered up to at least ``size`` (or the rest),
        blanks of typed columns as nulls."""
        self.spool.seek(0)
        counts = iter(self.batches)
        while True:
            n = 0
            for count in counts:
                n += count
                if n >= size:
                    break
            if not n:
                return
            records = [json.loads(line) for line in itertools.islice(self.spool, n)]
            if self.column_types:
                null_blanks(records, self.column_types)
            yield records

    def close_spool(self) -> None:
        if self.spool is not None:
            self.spool.close()
            self.spool = None


# ---------------------------------------------------------------------------- Parquet


class ParquetWriter(_Spooled):
    """Records to a Parquet file, each column's type decided on all its values (see the module
    docstring)."""

    def __init__(self, out: BinaryIO, delimiter: str = ",") -> None:
        super().__init__(out)
        self.pa = require("pyarrow", "writing .parquet")
        self.pq = require("pyarrow.parquet", "writing .parquet")
        self.seen: dict[str, set] = {}  # column -> the types its batches infer (None: no one type)
        self.converted: dict[str, set | None] = {}  # typed column -> type names (None: one failed)

    def rows(self, records: list[dict]) -> None:
        pa = self.pa
        for name in self.header.keys:
            values = [record.get(name) for record in records]
            kinds = self.seen.setdefault(name, set())
            try:
                kinds.add(pa.array(values).type)
            except (pa.ArrowException, ValueError, TypeError, OverflowError):
                kinds.add(None)
            typed = self.column_types.get(name)
            if typed is not None and self.converted.get(name, set()) is not None:
                self.converted[name] = _converted(typed, values, self.converted.get(name, set()))

    def finish(self) -> None:
        pa = self.pa
        if self.header.keys is None:  # no records: a valid file with no columns
            self.pq.write_table(pa.table({}), self.out)
            return
        schema = pa.schema([pa.field(name, self._type(name)) for name in self.header.keys])
        writer = self.pq.ParquetWriter(self.out, schema)
        try:
            for records in self.spooled(ROW_GROUP_ROWS):
                arrays = [self._array(f, [r.get(f.name) for r in records]) for f in schema]
                writer.write_table(pa.Table.from_batches([pa.record_batch(arrays, schema=schema)]))
        finally:
            writer.close()
            self.close_spool()

    def abort(self) -> None:
        """The run failed: drop the spooled records."""
        self.close_spool()

    def _type(self, name: str) -> Any:
        """A column's type: the spec's when every value converts, else the one its values have, else
        text."""
        pa, names = self.pa, self.converted.get(name)
        typed = self.column_types.get(name)
        if typed is not None and names is not None:
            if names <= {"int64", "double"} and len(names) == 2:
                names = {"double"}
            if len(names) <= 1:
                return ARROW_TYPES[next(iter(names), typed.default)](pa)
        kinds = {k for k in self.seen.get(name, ()) if k is None or not pa.types.is_null(k)}
        if kinds == {pa.int64(), pa.float64()}:
            return pa.float64()
        if len(kinds) == 1 and None not in kinds and not _unsettled(pa, next(iter(kinds))):
            return next(iter(kinds))
        return pa.string()

    def _array(self, field: Any, values: list) -> Any:
        pa = self.pa
        typed = self.column_types.get(field.name)
        if typed is not None and self.converted.get(field.name) is not None:
            values = [None if v is None else typed.convert(v)[0] for v in values]
        elif pa.types.is_string(field.type):
            values = [None if v is None else _cell_text(v) for v in values]
        return pa.array(values, type=field.type)


def _converted(typed: Any, values: list, names: set) -> set | None:
    """The type names ``typed.convert`` gives ``values`` added to ``names``; None when one fails."""
    for value in values:
        if value is None:
            continue
        try:
            names.add(typed.convert(value)[1])
        except (ValueError, TypeError, OverflowError):
            return None
    return names


def _unsettled(pa: Any, kind: Any) -> bool:
    """A type with null inside (all values None, empty lists...): other batches could not fit it."""
    if pa.types.is_null(kind):
        return True
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _unsettled(pa, kind.value_type)
    if pa.types.is_struct(kind):
        return kind.num_fields == 0 or any(
            _unsettled(pa, kind.field(i).type) for i in range(kind.num_fields)
        )
    return False


# ---------------------------------------------------------------------------- Excel


class ExcelWriter(_Spooled):
    """Records to one sheet of an .xlsx workbook, written row by row at ``finish`` (openpyxl's
    write-only mode)."""

    def __init__(self, out: BinaryIO, delimiter: str = ",") -> None:
        super().__init__(out)
        openpyxl = require("openpyxl", "writing .xlsx")
        from openpyxl.cell import WriteOnlyCell
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        self.cell_type, self.illegal = WriteOnlyCell, ILLEGAL_CHARACTERS_RE
        self.book = openpyxl.Workbook(write_only=True)
        self.sheet = self.book.create_sheet("Sheet1")
        self.sheet_rows = 0

    def rows(self, records: list[dict]) -> None:
        if self.count + len(records) + 1 > EXCEL_MAX_ROWS:  # the header row included
            raise ValueError(_too_many())
        for record in records:  # found here, while apply can still name the run's output
            for key, value in record.items():
                n = len(_cell_text(value)) if isinstance(value, (str, list, dict)) else 0
                if max(n, len(key)) > EXCEL_CELL_CHARS:
                    raise ValueError(_too_long(max(n, len(key))))

    def finish(self) -> None:
        try:
            if self.header.keys is not None:
                keys = list(self.header.keys)
                self._append([self._cell(key) for key in keys])
                for records in self.spooled(4096):
                    for record in records:
                        self._append([self._cell(record.get(key)) for key in keys])
            self.book.save(self.out)
        finally:
            self.close_spool()

    def abort(self) -> None:
        """The run failed: end the sheet's temporary file (openpyxl would complain when it is
        collected) and drop the spooled records."""
        self.close_spool()
        with contextlib.suppress(Exception):
            self.sheet.close()
            self.sheet._writer.cleanup()

    def _append(self, cells: list) -> None:
        self.sheet_rows += 1
        if self.sheet_rows > EXCEL_MAX_ROWS:
            raise ValueError(_too_many())
        self.sheet.append(cells)

    def _cell(self, value: Any) -> Any:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):  # a sheet's numbers are doubles: a bigger int as its digits
            return value if abs(value) <= EXCEL_EXACT else self._cell(str(value))
        if isinstance(value, float):
            return value if math.isfinite(value) else None
        text = self.illegal.sub("\ufffd", _cell_text(value))
        if len(text) > EXCEL_CELL_CHARS:  # openpyxl would cut it without a word
            raise ValueError(_too_long(len(text)))
        if text.startswith("="):  # a text cell, never a formula
            cell = self.cell_type(self.sheet, value=text)
            cell.data_type = "s"
            return cell
        return text
