"""The Parquet and Excel writers: their home is ``read.formats.table_writers``."""

from ..read.formats.table_writers import EXCEL_MAX_ROWS, ROW_GROUP_ROWS, ExcelWriter, ParquetWriter

__all__ = ["ParquetWriter", "ExcelWriter", "ROW_GROUP_ROWS", "EXCEL_MAX_ROWS"]
