"""Parquet (pyarrow) and Excel .xlsx (openpyxl): apply's writers for the optional formats, in
batches.

Both libraries are imported only when such a file is read or written (``_extras.require``:
a missing one raises ModuleNotFoundError with the pip command).

Writing (``apply_file``): the column order is the first batch's keys in order of first
appearance; keys first seen later are left out and listed (``dropped``), as for CSV.

* Parquet: each column's type is inferred by pyarrow from the first batch (ints, floats,
  strings, bools, lists, structs; ints mixed with floats give double). A column that is
  all null in the first batch, or whose values pyarrow cannot give one type, is a string
  column: strings as they are, other values as JSON text. A later value that does not fit
  its column's type (a string or a fraction in an int column, a new key inside a struct:
  pyarrow would truncate or drop it silently) fails the run with a ValueError naming the
  column. Rows are gathered into row groups of at least ``ROW_GROUP_ROWS`` rows (or the rest).
* Excel: one sheet "Sheet1"; None is an empty cell; bool, int and float are cells of
  that type (NaN and infinities: empty); lists and dicts are JSON text. Strings are always
  text cells, also when they start with "=" (no formula injection); the control
  characters a sheet cannot hold are replaced by U+FFFD. More than 1,048,576 rows (the
  sheet limit, header included) fail the run with a ValueError.
"""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any, BinaryIO

from ..._extras import require
from .output import Header, TableWriter

__all__ = ["ParquetWriter", "ExcelWriter", "ROW_GROUP_ROWS", "EXCEL_MAX_ROWS"]

ROW_GROUP_ROWS = 65536
EXCEL_MAX_ROWS = 1_048_576


def _cell_text(value: Any) -> str:
    """A non-string value of a string column: JSON text (as CSV cells are written)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------- Parquet


class ParquetWriter(TableWriter):
    """Records to a Parquet file, column types fixed by the first batch (see the module
    docstring)."""

    def __init__(self, out: BinaryIO, delimiter: str = ",") -> None:
        self.pa = require("pyarrow", "writing .parquet")
        self.pq = require("pyarrow.parquet", "writing .parquet")
        self.out = out
        self.header = Header()
        self.schema: Any = None
        self.text: set[str] = set()  # string columns holding other values as JSON text
        # columns with an int or struct inside: pyarrow would drop data silently
        self.checked: set[str] = set()
        self.writer: Any = None
        self.pending: list = []
        self.pending_rows = 0

    def rows(self, records: list[dict]) -> None:
        arrays = []
        for field in self.schema:
            values = [record.get(field.name) for record in records]
            if field.name in self.text:
                values = [None if v is None else _cell_text(v) for v in values]
            arrays.append(self._array(field, values))
        self.pending.append(self.pa.record_batch(arrays, schema=self.schema))
        self.pending_rows += len(records)
        if self.pending_rows >= ROW_GROUP_ROWS:
            self._flush()

    def finish(self) -> None:
        if self.header.keys is None:  # no records: a valid file with no columns
            self.pq.write_table(self.pa.table({}), self.out)
            return
        self._flush()
        self.writer.close()

    def abort(self) -> None:
        """The run failed: close the half-written file quietly."""
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()

    def start(self, records: list[dict]) -> None:
        pa = self.pa
        fields = []
        for name in self.header.keys:
            values = [record.get(name) for record in records]
            try:
                kind = pa.array(values).type
            except (pa.ArrowException, ValueError, TypeError, OverflowError):
                kind = None
            if kind is None or _unsettled(pa, kind):
                kind = pa.string()
                self.text.add(name)
            elif _needs_check(pa, kind):
                self.checked.add(name)
            fields.append(pa.field(name, kind))
        self.schema = pa.schema(fields)
        self.writer = self.pq.ParquetWriter(self.out, self.schema)

    def _array(self, field: Any, values: list) -> Any:
        pa = self.pa
        try:
            array = pa.array(values, type=field.type)
        except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
            raise ValueError(
                f"column {field.name!r} is {field.type} (set by the first batch of records) but a "
                f"later record holds a value that does not fit: {exc}; a Parquet column has one "
                "type, "
                f"so make clean_data return one type per field (or raise batch_size)"
            ) from None
        if field.name in self.checked:
            lost = next((v for v in values if _loses(pa, v, field.type)), None)
            if lost is not None:
                raise ValueError(
                    f"column {field.name!r} is {field.type} (set by the first batch of records) "
                    "but a "
                    f"later record holds a value that does not fit (a fraction in an int, or a key "
                    f"the struct has no place for): {str(lost)[:200]}"
                )
        return array

    def _flush(self) -> None:
        if self.pending:
            self.writer.write_table(self.pa.Table.from_batches(self.pending, schema=self.schema))
            self.pending, self.pending_rows = [], 0


def _unsettled(pa: Any, kind: Any) -> bool:
    """A type with null inside (all values None, empty lists...): later batches could not fit it."""
    if pa.types.is_null(kind):
        return True
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _unsettled(pa, kind.value_type)
    if pa.types.is_struct(kind):
        return kind.num_fields == 0 or any(
            _unsettled(pa, kind.field(i).type) for i in range(kind.num_fields)
        )
    return False


def _needs_check(pa: Any, kind: Any) -> bool:
    if pa.types.is_integer(kind) or pa.types.is_struct(kind):
        return True
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _needs_check(pa, kind.value_type)
    return False


def _loses(pa: Any, value: Any, kind: Any) -> bool:
    """True if pyarrow would silently change ``value`` converting it to ``kind``: 1.5 -> 1 in an
    int, or a dict key the struct type has no field for (dropped)."""
    if value is None:
        return False
    if pa.types.is_integer(kind):
        # NaN and infinities are not integers
        return isinstance(value, float) and not value.is_integer()
    if pa.types.is_struct(kind) and isinstance(value, dict):
        fields = {kind.field(i).name: kind.field(i).type for i in range(kind.num_fields)}
        return any(k not in fields or _loses(pa, v, fields[k]) for k, v in value.items())
    if (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and isinstance(value, list):
        return any(_loses(pa, v, kind.value_type) for v in value)
    return False


# ---------------------------------------------------------------------------- Excel


class ExcelWriter(TableWriter):
    """Records to one sheet of an .xlsx workbook, written row by row (openpyxl's write-only
    mode)."""

    def __init__(self, out: BinaryIO, delimiter: str = ",") -> None:
        openpyxl = require("openpyxl", "writing .xlsx")
        from openpyxl.cell import WriteOnlyCell
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        self.cell_type, self.illegal = WriteOnlyCell, ILLEGAL_CHARACTERS_RE
        self.out = out
        self.book = openpyxl.Workbook(write_only=True)
        self.sheet = self.book.create_sheet("Sheet1")
        self.header = Header()
        self.sheet_rows = 0

    def start(self, records: list[dict]) -> None:
        self._append([self._cell(key) for key in self.header.keys])

    def rows(self, records: list[dict]) -> None:
        for record in records:
            self._append([self._cell(record.get(key)) for key in self.header.keys])

    def finish(self) -> None:
        self.book.save(self.out)

    def abort(self) -> None:
        """The run failed: end the sheet's temporary file (openpyxl would complain when it is
        collected)."""
        with contextlib.suppress(Exception):
            self.sheet.close()
            self.sheet._writer.cleanup()

    def _append(self, cells: list) -> None:
        self.sheet_rows += 1
        if self.sheet_rows > EXCEL_MAX_ROWS:
            raise ValueError(
                f"an Excel sheet holds at most {EXCEL_MAX_ROWS:,} rows (header included); "
                "write JSONL, CSV or Parquet instead"
            )
        self.sheet.append(cells)

    def _cell(self, value: Any) -> Any:
        if value is None or isinstance(value, (bool, int)):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else None
        text = self.illegal.sub("\ufffd", _cell_text(value))
        if text.startswith("="):  # a text cell, never a formula
            cell = self.cell_type(self.sheet, value=text)
            cell.data_type = "s"
            return cell
        return text
