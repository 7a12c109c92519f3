"""pyproject.toml's dependency bounds: each lower bound is what .ci/oldest-constraints.txt pins
(issue 33)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_EXTRAS = ("progress", "parquet", "excel", "pandas", "documents", "dask", "pandera")
# dev tools whose lower bound the oldest run pins too (the others resolve newest)
PINNED_TOOLS = ("ruff",)


def _requirements() -> list[str]:
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    tools = [req for req in extras["dev"] if re.match(r"[A-Za-z0-9_.-]+", req)[0] in PINNED_TOOLS]
    return [
        *project["dependencies"],
        *(req for name in RUNTIME_EXTRAS for req in extras[name]),
        *tools,
    ]


def _pins() -> dict[str, str]:
    text = (ROOT / ".ci" / "oldest-constraints.txt").read_text(encoding="utf-8")
    return dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", text, re.M))


def test_every_lower_bound_is_the_version_the_oldest_run_pins():
    pins = _pins()
    bounds = {}
    for req in _requirements():
        match = re.match(r"([A-Za-z0-9_.-]+)(?:\[[^]]*\])?\s*>=\s*([^,;\s]+)", req)
        assert match, f"{req!r} has no lower bound"
        bounds[match[1].lower()] = match[2]
    assert bounds == {name.lower(): version for name, version in pins.items() if name != "numpy"}
