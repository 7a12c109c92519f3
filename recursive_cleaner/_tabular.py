"""Parquet (pyarrow) and Excel .xlsx (openpyxl): the optional formats, read streaming and written in batches.

Both libraries are imported only when such a file is read or written (``_extras.require``:
a missing one raises ModuleNotFoundError with the pip command).

Reading gives JSON-ready records, as every other format does (the model and the sandbox see
JSON): ``plain_value`` turns dates into ISO strings ("2024-01-05", "2024-01-05T10:30:00"),
Decimal into float, NaN into None, bytes into text (UTF-8, bad bytes replaced), numpy scalars
into Python ones; keys are the column names (empty ones ``column_N``, repeats ``_2``... as
for CSV).

* Parquet: streamed by record batches (``ParquetFile.iter_batches``). A timestamp column
  gives full ISO strings; ``count_parquet`` reads the row count from the metadata.
* Excel: the first worksheet, in openpyxl's read-only mode with cached formula values
  (``data_only=True``; a formula never calculated reads as None). The first non-blank row
  is the header; blank rows are ignored; a row with cells beyond the header's last column
  is skipped and reported (``on_skip``, with its sheet row as the line). A date cell at
  midnight reads as "YYYY-MM-DD", any other date-time as "YYYY-MM-DDTHH:MM:SS". The old
  binary ``.xls`` format is refused with a hint to save it as .xlsx.

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
import datetime
import decimal
import json
import math
from typing import Any, BinaryIO, Callable, Iterator

from ._apply_output import load_batch
from ._extras import require

__all__ = ["plain_value", "iter_parquet", "count_parquet", "iter_excel", "ParquetWriter", "ExcelWriter",
           "ROW_GROUP_ROWS", "EXCEL_MAX_ROWS"]

ROW_GROUP_ROWS = 65536
EXCEL_MAX_ROWS = 1_048_576
_READ_BATCH = 8192
_MISSING_TYPES = ("NAType", "NaTType")  # pandas.NA and pandas.NaT, recognised without importing pandas


def plain_value(value: Any) -> Any:
    """A JSON-ready Python value: None, bool, int, float (not NaN), str, list or dict with str keys."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is bool:
        return value
    if isinstance(value, float):
        return None if value != value else float(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain_value(v) for v in value]
    if kind.__name__ in _MISSING_TYPES:
        return None
    if isinstance(value, (datetime.date, datetime.time)):  # datetime and pandas.Timestamp included
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return str(value)
    if isinstance(value, decimal.Decimal):
        return None if value.is_nan() else float(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return plain_value(value.tolist())
    return str(value)


def _cell_text(value: Any) -> str:
    """A non-string value of a string column: JSON text (as CSV cells are written)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------- Parquet
def iter_parquet(path: str) -> Iterator[dict]:
    """The records of a Parquet file, streamed by record batches (pyarrow checked at call time)."""
    pq = require("pyarrow.parquet", "reading .parquet")
    return _parquet_records(pq, path)


def _open_parquet(pq: Any, path: str) -> Any:
    from .errors import InputError

    try:
        return pq.ParquetFile(path)
    except (OSError, ValueError) as exc:  # ArrowInvalid is a ValueError, ArrowIOError an OSError
        raise InputError(f"{path}: not a readable Parquet file: {exc}", path) from None


def count_parquet(path: str) -> int:
    """Rows of a Parquet file, from its metadata (0 if it has no columns)."""
    pq = require("pyarrow.parquet", "reading .parquet")
    with _open_parquet(pq, path) as source:
        return source.metadata.num_rows if source.schema_arrow.names else 0


def _parquet_records(pq: Any, path: str) -> Iterator[dict]:
    from .parsers import _unique_header

    with _open_parquet(pq, path) as source:
        names = _unique_header([str(n) for n in source.schema_arrow.names])
        for batch in source.iter_batches(batch_size=_READ_BATCH):
            columns = [_arrow_values(column) for column in batch.columns]
            for row in zip(*columns):
                yield dict(zip(names, row))


def _arrow_values(column: Any) -> list:
    """One column of a record batch as JSON-ready values (converted only where the type needs it)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind, values = column.type, column.to_pylist()
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_integer(kind) \
            or pa.types.is_boolean(kind) or pa.types.is_null(kind):
        return values
    if pa.types.is_floating(kind):
        return [None if v != v else v for v in values] if pc.any(pc.is_nan(column)).as_py() else values
    if pa.types.is_map(kind):
        return [None if v is None else {str(k): plain_value(x) for k, x in v} for v in values]
    return [plain_value(v) for v in values]


class ParquetWriter:
    """Records to a Parquet file, column types fixed by the first batch (see the module docstring)."""

    def __init__(self, out: BinaryIO, delimiter: str = ",") -> None:
        self.pa = require("pyarrow", "writing .parquet")
        self.pq = require("pyarrow.parquet", "writing .parquet")
        self.out = out
        self.header: list[str] | None = None
        self.schema: Any = None
        self.text: set[str] = set()  # string columns holding other values as JSON text
        self.checked: set[str] = set()  # columns with an int or struct inside: pyarrow would drop data silently
        self.writer: Any = None
        self.pending: list = []
        self.rows = 0
        self.dropped: set[str] = set()

    def write(self, payload: bytes, count: int) -> None:
        """Write ``count`` records given as JSON texts joined by b"\\n"."""
        if not count:
            return
        records = load_batch(payload)
        if self.header is None:
            self._start(records)
        arrays = []
        for field in self.schema:
            values = [record.get(field.name) for record in records]
            if field.name in self.text:
                values = [None if v is None else _cell_text(v) for v in values]
            arrays.append(self._array(field, values))
        header = set(self.header or ())
        for record in records:
            if not record.keys() <= header:
                self.dropped.update(record.keys() - header)
        self.pending.append(self.pa.record_batch(arrays, schema=self.schema))
        self.rows += count
        if self.rows >= ROW_GROUP_ROWS:
            self._flush()

    def finish(self) -> None:
        if self.header is None:  # no records: a valid file with no columns
            self.pq.write_table(self.pa.table({}), self.out)
            return
        self._flush()
        self.writer.close()

    def abort(self) -> None:
        """The run failed: close the half-written file quietly."""
        if self.writer is not None:
            with contextlib.suppress(Exception):
                self.writer.close()

    def _start(self, records: list[dict]) -> None:
        pa = self.pa
        self.header = list(dict.fromkeys(key for record in records for key in record))
        fields = []
        for name in self.header:
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
            raise ValueError(f"column {field.name!r} is {field.type} (set by the first batch of records) but a "
                             f"later record holds a value that does not fit: {exc}; a Parquet column has one type, "
                             f"so make clean_data return one type per field (or raise batch_size)") from None
        if field.name in self.checked:
            lost = next((v for v in values if _loses(pa, v, field.type)), None)
            if lost is not None:
                raise ValueError(f"column {field.name!r} is {field.type} (set by the first batch of records) but a "
                                 f"later record holds a value that does not fit (a fraction in an int, or a key "
                                 f"the struct has no place for): {str(lost)[:200]}")
        return array

    def _flush(self) -> None:
        if self.pending:
            self.writer.write_table(self.pa.Table.from_batches(self.pending, schema=self.schema))
            self.pending, self.rows = [], 0


def _unsettled(pa: Any, kind: Any) -> bool:
    """A type with null inside (all values None, empty lists...): later batches could not fit it."""
    if pa.types.is_null(kind):
        return True
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _unsettled(pa, kind.value_type)
    if pa.types.is_struct(kind):
        return kind.num_fields == 0 or any(_unsettled(pa, kind.field(i).type) for i in range(kind.num_fields))
    return False


def _needs_check(pa: Any, kind: Any) -> bool:
    if pa.types.is_integer(kind) or pa.types.is_struct(kind):
        return True
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _needs_check(pa, kind.value_type)
    return False


def _loses(pa: Any, value: Any, kind: Any) -> bool:
    """True if pyarrow would silently change ``value`` converting it to ``kind``: 1.5 -> 1 in an int, or a
    dict key the struct type has no field for (dropped)."""
    if value is None:
        return False
    if pa.types.is_integer(kind):
        return isinstance(value, float) and not value.is_integer()  # NaN and infinities are not integers
    if pa.types.is_struct(kind) and isinstance(value, dict):
        fields = {kind.field(i).name: kind.field(i).type for i in range(kind.num_fields)}
        return any(k not in fields or _loses(pa, v, fields[k]) for k, v in value.items())
    if (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and isinstance(value, list):
        return any(_loses(pa, v, kind.value_type) for v in value)
    return False


# ---------------------------------------------------------------------------- Excel
def iter_excel(path: str, on_skip: Callable | None = None) -> Iterator[dict]:
    """The records of the first sheet of an .xlsx workbook (openpyxl checked at call time)."""
    from .errors import InputError

    if path.lower().endswith(".xls"):
        raise InputError(f"{path}: the old binary .xls format cannot be read; open it in Excel or LibreOffice "
                         "and save it as .xlsx", path)
    openpyxl = require("openpyxl", "reading .xlsx")
    return _excel_records(openpyxl, path, on_skip)


def _excel_value(value: Any) -> Any:
    if isinstance(value, datetime.datetime) and value.tzinfo is None and value.time() == datetime.time():
        return value.date().isoformat()
    return plain_value(value)


def _excel_records(openpyxl: Any, path: str, on_skip: Callable | None) -> Iterator[dict]:
    import zipfile

    from .errors import InputError
    from .parsers import SkippedRecord, _unique_header

    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise InputError(f"{path}: not a readable .xlsx workbook: {exc}", path) from None
    try:
        if not book.worksheets:
            return
        sheet = book.worksheets[0]
        sheet.reset_dimensions()  # do not trust the stored dimension: some writers get it wrong
        keys: list[str] | None = None
        for number, row in enumerate(sheet.iter_rows(values_only=True), 1):
            values = [_excel_value(v) for v in row]
            filled = [i for i, v in enumerate(values) if v is not None and v != ""]
            if not filled:
                continue  # blank row
            if keys is None:
                keys = _unique_header(["" if v is None else str(v) for v in values[: filled[-1] + 1]])
            elif filled[-1] >= len(keys):
                if on_skip is not None:
                    on_skip(SkippedRecord(path, number, f"a value in column {filled[-1] + 1}, beyond the header's "
                                                        f"{len(keys)} columns"))
            else:
                values += [None] * (len(keys) - len(values))
                yield dict(zip(keys, values))
    finally:
        book.close()


class ExcelWriter:
    """Records to one sheet of an .xlsx workbook, written row by row (openpyxl's write-only mode)."""

    def __init__(self, out: BinaryIO, delimiter: str = ",") -> None:
        openpyxl = require("openpyxl", "writing .xlsx")
        from openpyxl.cell import WriteOnlyCell
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        self.cell_type, self.illegal = WriteOnlyCell, ILLEGAL_CHARACTERS_RE
        self.out = out
        self.book = openpyxl.Workbook(write_only=True)
        self.sheet = self.book.create_sheet("Sheet1")
        self.header: dict[str, None] | None = None
        self.rows = 0
        self.dropped: set[str] = set()

    def write(self, payload: bytes, count: int) -> None:
        """Write ``count`` records given as JSON texts joined by b"\\n"."""
        if not count:
            return
        records = load_batch(payload)
        if self.header is None:
            self.header = {key: None for record in records for key in record}
            self._append([self._cell(key) for key in self.header])
        for record in records:
            self._append([self._cell(record.get(key)) for key in self.header])
            if not record.keys() <= self.header.keys():
                self.dropped.update(record.keys() - self.header.keys())

    def finish(self) -> None:
        self.book.save(self.out)

    def abort(self) -> None:
        """The run failed: end the sheet's temporary file (openpyxl would complain when it is collected)."""
        with contextlib.suppress(Exception):
            self.sheet.close()
            self.sheet._writer.cleanup()

    def _append(self, cells: list) -> None:
        self.rows += 1
        if self.rows > EXCEL_MAX_ROWS:
            raise ValueError(f"an Excel sheet holds at most {EXCEL_MAX_ROWS:,} rows (header included); "
                             "write JSONL, CSV or Parquet instead")
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
