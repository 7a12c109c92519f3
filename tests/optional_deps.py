"""Optional libraries in tests: skipped when missing locally, but CI (CI=true, dev extra installed) must have them."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def optional(name: str) -> ModuleType:
    """Import ``name`` or skip the calling test module; in CI a missing library is an error."""
    if os.environ.get("CI", "").lower() == "true":
        return importlib.import_module(name)
    return pytest.importorskip(name)
