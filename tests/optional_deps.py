"""Optional libraries in tests: skipped when missing locally, but CI (CI=true, dev extra installed)
must have them."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

from recursive_cleaner._extras import EXTRAS


def optional(name: str) -> ModuleType:
    """Import ``name`` or skip the calling test module (the reason says what to install); in CI a
    missing library is an error."""
    if os.environ.get("CI", "").lower() == "true":
        return importlib.import_module(name)
    top = name.partition(".")[0]
    extra = EXTRAS.get(top)
    how = f"pip install 'recursive-data-cleaner[{extra}]'" if extra else f"pip install {top}"
    return pytest.importorskip(name, reason=f"{name} is not installed: {how}")


def write_table_file(path, records: list[dict]) -> None:
    """Write records as .parquet (pyarrow) or .xlsx (openpyxl, header row first), by the path's
    suffix."""
    path = str(path)
    if path.endswith(".parquet"):
        pa, pq = optional("pyarrow"), optional("pyarrow.parquet")
        pq.write_table(pa.Table.from_pylist(records), path)
        return
    book = optional("openpyxl").Workbook()
    sheet = book.active
    sheet.append(list(records[0]))
    for record in records:
        sheet.append(list(record.values()))
    book.save(path)
