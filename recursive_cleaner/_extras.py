"""Optional dependencies (pyarrow, openpyxl, pandas, matplotlib, dask, pypdf, python-docx, pandera):
imported only when used.

A missing one raises ModuleNotFoundError whose message is the pip command, e.g.
``reading .parquet needs pyarrow: pip install 'recursive-data-cleaner[parquet]'``. A module
that is installed but fails to import (a broken build) raises its own error unchanged.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "require"]

EXTRAS = {
    "pyarrow": "parquet",
    "openpyxl": "excel",
    "pandas": "pandas",
    "dask": "dask",
    "distributed": "dask",
    "pypdf": "documents",
    "docx": "documents",
    "pandera": "pandera",
}
"""Top-level module -> the extra of recursive-cleaner that installs it (matplotlib has none)."""


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` (e.g. "pyarrow.parquet"), or raise ModuleNotFoundError telling how to
    install it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not missing or not (module == missing or module.startswith(missing + ".")):
            raise  # something the module itself imports is missing: not ours to explain
        top = module.partition(".")[0]
        extra = EXTRAS.get(top)
        how = f"pip install 'recursive-data-cleaner[{extra}]'" if extra else f"pip install {top}"
        raise ModuleNotFoundError(f"{purpose} needs {top}: {how}", name=top) from None
