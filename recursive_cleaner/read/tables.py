"""Parquet (pyarrow) and Excel .xlsx (openpyxl): the optional formats, read streaming.

Both libraries are imported only when such a file is read or written (``_extras.require``:
a missing one raises ModuleNotFoundError with the pip command).

Reading gives JSON-ready records, as every other format does (the model and the sandbox see
JSON): ``plain_value`` turns dates into ISO strings ("2024-01-05", "2024-01-05T10:30:00"),
Decimal into float, NaN into None, bytes into text (UTF-8, bad bytes replaced), numpy scalars
into Python ones; keys are the column names (empty ones ``column_N``, repeats ``_2``... as
for CSV).

* Parquet: streamed by record batches (``ParquetFile.iter_batches``). A timestamp column
  gives full ISO strings; ``count_parquet`` reads the row count from the metadata. A few KB of
  Parquet can hold hundreds of MB (a value repeated through a dictionary or a prefix, zstd): the
  values its metadata declares are checked before anything is read, then each batch's as read
  (dictionary columns are read as dictionaries and measured before they are decoded), against
  ``rows.PARQUET_RATIO`` times the file's size (at least ``rows.PARQUET_MB``); a batch holds
  about ``rows.PARQUET_BATCH_MB`` of values as declared.
* Excel: the first worksheet, in openpyxl's read-only mode with cached formula values
  (``data_only=True``; a formula never calculated reads as None). The first non-blank row
  is the header; blank rows are ignored; a row with cells beyond the header's last column
  is skipped and reported (``on_skip``, with its sheet row as the line), as is each record of
  the other sheets (rows holding a value after their first), which are not read. Every record has
  every column up to the header's last: a sheet whose records would be mostly blanks filled in
  (``rows.SHEET_RATIO``, past ``rows.SHEET_CELLS``) is refused, as is one whose values come to
  more text than ``rows.SHEET_TEXT_RATIO`` times the file (past ``rows.SHEET_TEXT_MB``: a shared
  string is stored once, any number of cells may name it). A date cell at
  midnight reads as "YYYY-MM-DD", any other date-time as "YYYY-MM-DDTHH:MM:SS". The old
  binary ``.xls`` format is refused with a hint to save it as .xlsx.

The writers for these formats are in ``recursive_cleaner.apply.table_writers``.
"""

from __future__ import annotations

import datetime
import decimal
import os
from typing import Any, Callable, Iterator

from .._extras import require
from . import rows
from .parquet_plan import ParquetPlan, decoded, value_bytes
from .rows import SkippedRecord, check_zip_expansion, unique_header

__all__ = ["plain_value", "iter_parquet", "count_parquet", "iter_excel"]

# pandas.NA and pandas.NaT, recognised without importing pandas
_MISSING_TYPES = ("NAType", "NaTType")


def plain_value(value: Any) -> Any:
    """A JSON-ready Python value: None, bool, int, float (not NaN), str, list or dict with str
    keys."""
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
    # a float when it is exactly that float, else its exact text
    if isinstance(value, decimal.Decimal):
        if value.is_nan():
            return None
        number = float(value)
        return number if decimal.Decimal(repr(number)) == value else str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return plain_value(value.tolist())
    return str(value)


# ---------------------------------------------------------------------------- Parquet
def iter_parquet(path: str) -> Iterator[dict]:
    """The records of a Parquet file, streamed by record batches (pyarrow checked at call time)."""
    pq = require("pyarrow.parquet", "reading .parquet")
    return _parquet_records(pq, path)


def _open_parquet(pq: Any, path: str, **options: Any) -> Any:
    from ..errors import InputError

    try:
        return pq.ParquetFile(path, **options)
    except (OSError, ValueError) as exc:  # ArrowInvalid is a ValueError, ArrowIOError an OSError
        raise InputError(f"{path}: not a readable Parquet file: {exc}", path) from None


def count_parquet(path: str) -> int:
    """Rows of a Parquet file, from its metadata (0 if it has no columns)."""
    pq = require("pyarrow.parquet", "reading .parquet")
    with _open_parquet(pq, path) as source:
        return source.metadata.num_rows if source.schema_arrow.names else 0


def _parquet_records(pq: Any, path: str) -> Iterator[dict]:
    with _open_parquet(pq, path) as probe:
        metadata = probe.metadata
    plan = ParquetPlan(metadata, path)
    with _open_parquet(pq, path, metadata=metadata, read_dictionary=plan.dictionaries) as source:
        names = unique_header([str(n) for n in source.schema_arrow.names])
        read = 0
        for groups, size in plan.reads:
            for batch in _batches(source, path, size, groups):
                read += value_bytes(batch)
                plan.check(read, "as read")
                columns = [_arrow_values(column) for column in batch.columns]
                for row in zip(*columns):
                    yield dict(zip(names, row))


def _batches(source: Any, path: str, size: int, groups: list[int]) -> Iterator[Any]:
    """The record batches of some row groups; what pyarrow cannot read an InputError."""
    from ..errors import InputError

    try:
        yield from source.iter_batches(batch_size=size, row_groups=groups)
    except (NotImplementedError, OSError, ValueError) as exc:  # ArrowInvalid, a damaged page...
        where = f"row group {groups[0] + 1}" + (f" to {groups[-1] + 1}" if groups[1:] else "")
        raise InputError(f"{path}: {where} cannot be read: {exc}", path) from None


def _arrow_values(column: Any) -> list:
    """One column of a record batch as JSON-ready values (converted only where the type needs
    it)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = decoded(column)
    kind, values = column.type, column.to_pylist()
    if (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_integer(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_null(kind)
    ):
        return values
    if pa.types.is_floating(kind):
        return (
            [None if v != v else v for v in values] if pc.any(pc.is_nan(column)).as_py() else values
        )
    if pa.types.is_map(kind):
        return [None if v is None else {str(k): plain_value(x) for k, x in v} for v in values]
    return [plain_value(v) for v in values]


# ---------------------------------------------------------------------------- Excel
def iter_excel(path: str, on_skip: Callable | None = None) -> Iterator[dict]:
    """The records of the first sheet of an .xlsx workbook (openpyxl checked at call time)."""
    from ..errors import InputError

    if path.lower().endswith(".xls"):
        raise InputError(
            f"{path}: the old binary .xls format cannot be read; open it in Excel or LibreOffice "
            "and save it as .xlsx",
            path,
        )
    openpyxl = require("openpyxl", "reading .xlsx")
    return _excel_records(openpyxl, path, on_skip)


def _excel_value(value: Any) -> Any:
    if (
        isinstance(value, datetime.datetime)
        and value.tzinfo is None
        and value.time() == datetime.time()
    ):
        return value.date().isoformat()
    return plain_value(value)


def _excel_records(openpyxl: Any, path: str, on_skip: Callable | None) -> Iterator[dict]:
    import zipfile

    from ..errors import InputError

    from openpyxl.utils.exceptions import InvalidFileException

    check_zip_expansion(path)  # the shared strings are held whole, even in read-only mode
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
        cells = values_seen = 0  # cells read (blanks filled in included) and those with a value
        text, text_limit = 0, _text_limit(path)  # characters of the values read (others: 8)
        for number, row in enumerate(sheet.iter_rows(values_only=True), 1):
            values = [None if v is None else _excel_value(v) for v in row]
            filled = [i for i, v in enumerate(values) if v is not None and v != ""]
            cells += max(len(values), len(keys or ()))
            values_seen += len(filled)
            if cells > rows.SHEET_CELLS and cells > rows.SHEET_RATIO * values_seen:
                raise _too_sparse(path, number, cells, values_seen, len(keys or values))
            text += sum(len(values[i]) if type(values[i]) is str else 8 for i in filled)
            if text > text_limit:
                raise _too_much_text(path, number, text_limit)
            if not filled:
                continue  # blank row
            if keys is None:
                keys = unique_header(
                    ["" if v is None else str(v) for v in values[: filled[-1] + 1]]
                )
            elif filled[-1] >= len(keys):
                if on_skip is not None:
                    on_skip(
                        SkippedRecord(
                            path,
                            number,
                            f"a value in column {filled[-1] + 1}, beyond the header's "
                            f"{len(keys)} columns",
                        )
                    )
            else:
                values += [None] * (len(keys) - len(values))
                yield dict(zip(keys, values))
        for other in book.worksheets[1:]:
            _unread_sheet(other, path, on_skip)
    finally:
        book.close()


def _unread_sheet(sheet: Any, path: str, on_skip: Callable | None) -> None:
    """Each record of a sheet after the first (rows holding a value, past its first): a reported
    skip, never a quiet loss (only the first worksheet is read)."""
    from ..errors import clip_text

    if on_skip is None:
        return
    sheet.reset_dimensions()
    header, cells, values_seen = False, 0, 0
    for number, row in enumerate(sheet.iter_rows(values_only=True), 1):
        filled = sum(1 for v in row if v is not None and v != "")
        cells, values_seen = cells + len(row), values_seen + filled
        if cells > rows.SHEET_CELLS and cells > rows.SHEET_RATIO * values_seen:
            raise _too_sparse(path, number, cells, values_seen, len(row))
        if filled and header:
            title = clip_text(str(sheet.title), 40)
            on_skip(
                SkippedRecord(
                    path,
                    number,
                    f"in sheet {title!r}, which is not read: only the first worksheet is (save "
                    "that sheet as a file of its own)",
                )
            )
        header = header or bool(filled)


def _too_sparse(path: str, row: int, cells: int, values: int, columns: int) -> Exception:
    """The refusal of a sheet whose records would be mostly blanks filled in
    (``rows.SHEET_RATIO``)."""
    from ..errors import InputError

    return InputError(
        f"{path}: by sheet row {row} the records hold {cells:,} cells for {values:,} values "
        f"({columns:,} columns a row), more than {rows.SHEET_RATIO} cells per value (bound: "
        "rows.SHEET_RATIO); delete the empty columns between the used ones and save it again",
        path,
        row,
    )


def _text_limit(path: str) -> int:
    """The characters a sheet's values may come to (``rows.SHEET_TEXT_RATIO`` times the file's
    size, at least ``rows.SHEET_TEXT_MB``)."""
    return max(rows.SHEET_TEXT_MB << 20, rows.SHEET_TEXT_RATIO * os.path.getsize(path))


def _too_much_text(path: str, row: int, limit: int) -> Exception:
    """The refusal of a sheet whose values grow past ``rows.SHEET_TEXT_RATIO`` times its file."""
    from ..errors import InputError

    return InputError(
        f"{path}: by sheet row {row} its values come to more than {limit >> 20} MB of text, over "
        f"{rows.SHEET_TEXT_RATIO} times its {rows.size_text(os.path.getsize(path))} (cells naming "
        "one shared string again and again?); it is not read (bound: rows.SHEET_TEXT_RATIO)",
        path,
        row,
    )
