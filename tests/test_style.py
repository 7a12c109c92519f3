"""House rules a tool keeps: no line over 100 characters (pyproject.toml's ``[tool.ruff]``).

``python bench/style_wrap.py PATH...`` formats a path and wraps what it can mechanically; it lists
the lines left for a hand. ``CHECKED`` grows as the package is brought in line.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALL_HINT = "ruff is not installed: pip install -e '.[dev]' (or pip install 'ruff>=0.9.0')"
CHECKED = [
    "tests/test_style.py",
]


def _ruff() -> list[str]:
    if importlib.util.find_spec("ruff") is None and os.environ.get("CI", "").lower() != "true":
        pytest.skip(INSTALL_HINT)  # in CI (dev extra installed) a missing ruff fails below instead
    return [sys.executable, "-m", "ruff"]


def test_checked_paths_exist():
    assert [p for p in CHECKED if not (ROOT / p).exists()] == []


def test_no_line_over_100_characters():
    """E501 at pyproject.toml's line-length (100) on every checked path."""
    done = subprocess.run(
        [*_ruff(), "check", "--no-cache", "--select", "E501", *CHECKED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
