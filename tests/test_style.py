"""House rules a tool keeps: no line over 100 characters (pyproject.toml's ``[tool.ruff]``).

``python bench/style_wrap.py PATH...`` formats a path and wraps what it can mechanically; it lists
the lines left for a hand. ``CHECKED``: the library, its tests, the bench scripts that check the
code.
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
CHECKED = [  # the whole library, its tests, and the bench scripts that check the code
    "recursive_cleaner",
    "backends",
    "tests",
    "bench/golden.py",
    "bench/style_wrap.py",
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


MORE = " and more words" * 6
SAMPLE = "\n".join(
    [
        '"""A module."""',
        "HELP = dict(",
        f'    text="a long help text about what the option does{MORE}",',
        f'    other=f"{{1 + 1}} values {{{{braces}}}} and \\N{{LATIN SMALL LETTER A}}{MORE}",',
        ")",
        f'PATTERN = r"(?:first|second|third{"|fourth|fifth|sixth" * 5})"',
        "",
        "",
        "def f(x):",
        f'    """A docstring of plain prose{MORE}."""',
        f"    # a comment line{MORE}",
        f"    return x + 1  # an inline comment{MORE}",
        "",
    ]
)


def test_style_wrap_keeps_the_values_and_is_idempotent(tmp_path):
    _ruff()
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import style_wrap
    finally:
        sys.path.remove(str(ROOT / "bench"))
    path = tmp_path / "sample.py"
    path.write_text(SAMPLE, encoding="utf-8")
    assert style_wrap.main([str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    assert max(len(line) for line in text.splitlines()) <= 100
    before, after = {}, {}
    exec(compile(SAMPLE, "before", "exec"), before)
    exec(compile(text, "after", "exec"), after)
    assert after["HELP"] == before["HELP"] and after["PATTERN"] == before["PATTERN"]
    assert " ".join(after["f"].__doc__.split()) == before["f"].__doc__
    assert "# an inline comment" in text and "# a comment line" in text
    assert style_wrap.main([str(path)]) == 0 and path.read_text(encoding="utf-8") == text


MAX_LINES = 400
LONGER: dict[str, str] = {}  # a module over MAX_LINES, and why it stays one file


def test_modules_stay_under_400_lines():
    """A module over ~400 lines is a sign to split it by concern (CLAUDE.md's house rules)."""
    paths = [*(ROOT / "recursive_cleaner").rglob("*.py"), *(ROOT / "backends").glob("*.py")]
    long = {}
    for path in paths:
        name = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and name not in LONGER:
            long[name] = lines
    assert not long, long
    assert all((ROOT / name).is_file() for name in LONGER)
