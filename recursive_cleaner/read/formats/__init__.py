"""File formats, one class per format in one registry (issue 30, point 2).

A format says how a file is detected (its extensions, two suffixes first: ``.csv.gz``), read
(records or text chunks, with the skip and error behaviour of each), counted, cut into parts for
apply's workers and for Dask, and written (apply's writer), with the optional package it needs
and the pip command that installs it. Reading (``read.parsers``), generate, apply (local and
Dask), the output-extension check (``apply.fields.output_format``) and the CLI ask the registry,
never a table of their own.

The built-ins are registered here, in this order; a plug-in registers its own through the same
door (``register(MyFormat())``). A path no extension names is text.

- ``jsonl``: JSON Lines; ``delimited``: CSV and TSV; ``json_doc``: a JSON array of records;
- ``tabular``: Parquet and Excel (optional extras); ``text``: anything else;
- ``gzipped``: gzip-compressed JSON Lines and CSV/TSV (``.jsonl.gz``, ``.csv.gz``...).
"""

from __future__ import annotations

from ._base import (
    BLOCK_SIZE,
    REGISTRY,
    Format,
    Lines,
    Part,
    SkipCallback,
    batched,
    described,
    detect,
    find,
    get,
    names,
    output_extensions,
    output_format,
    register,
    resolve,
    unregister,
)
from ..rows import SkippedRecord
from .delimited import CsvFormat
from .gzipped import GzipCsvFormat, GzipJsonlFormat
from .json_doc import JsonFormat
from .jsonl import JsonlFormat
from .tabular import ExcelFormat, ParquetFormat
from .text import TextFormat

__all__ = [
    "Format",
    "Lines",
    "Part",
    "SkipCallback",
    "SkippedRecord",
    "REGISTRY",
    "BLOCK_SIZE",
    "register",
    "get",
    "unregister",
    "find",
    "detect",
    "names",
    "output_format",
    "output_extensions",
    "resolve",
    "batched",
    "described",
]

for _format in (
    JsonlFormat(),
    CsvFormat(),
    JsonFormat(),
    TextFormat(),
    ParquetFormat(),
    ExcelFormat(),
    GzipJsonlFormat(),
    GzipCsvFormat(),
):
    register(_format)
