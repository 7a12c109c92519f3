"""Parquet (pyarrow, extra ``parquet``) and Excel .xlsx (openpyxl, extra ``excel``): optional
formats.

The readers are ``read.tables``, the writers ``table_writers``; both import their library only when
a file is read or written (a missing one: ModuleNotFoundError with the pip command). ``.xls``, the
old binary Excel format, is detected as Excel and refused with a hint to save it as .xlsx. Neither
is read as text: ``encoding`` does not apply (any but UTF-8 is a ValueError).
"""

from __future__ import annotations

from typing import Any, BinaryIO, Iterator

from ._base import Format, SkipCallback

__all__ = ["ParquetFormat", "ExcelFormat"]


class ParquetFormat(Format):
    """Parquet, streamed by record batches; counted from the file's metadata."""

    name = "parquet"
    label = "Parquet"
    extensions = writes = (".parquet", ".pq")
    module, extra = "pyarrow", "parquet"
    decodes = False  # no text encoding applies (``encoded``: UTF-8 only)

    def records(self, path: str, on_skip: SkipCallback | None, block_size: int) -> Iterator[dict]:
        from .. import tables

        return tables.iter_parquet(path)

    def count(self, path: str, exact: bool, block_size: int) -> int:
        from .. import tables

        return tables.count_parquet(path)

    def writer(self, out: BinaryIO, path: str) -> Any:
        from .table_writers import ParquetWriter  # pyarrow is imported only when Parquet is written

        return ParquetWriter(out)


class ExcelFormat(Format):
    """The first sheet of an .xlsx / .xlsm workbook (header row); one sheet "Sheet1" written."""

    name = "excel"
    label = "Excel"
    extensions = (".xlsx", ".xlsm", ".xls")
    writes = (".xlsx", ".xlsm")
    module, extra = "openpyxl", "excel"
    decodes = False

    def records(self, path: str, on_skip: SkipCallback | None, block_size: int) -> Iterator[dict]:
        from .. import tables

        return tables.iter_excel(path, on_skip)

    def writer(self, out: BinaryIO, path: str) -> Any:
        from .table_writers import ExcelWriter  # openpyxl is imported only when Excel is written

        return ExcelWriter(out)
