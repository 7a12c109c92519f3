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
    "recursive_cleaner/__main__.py",
    "recursive_cleaner/_extras.py",
    "recursive_cleaner/_toolkit_data.py",
    "recursive_cleaner/_toolkit_dates.py",
    "recursive_cleaner/_toolkit_numbers.py",
    "recursive_cleaner/_toolkit_units.py",
    "recursive_cleaner/_toolkit_text.py",
    "recursive_cleaner/_version.py",
    "recursive_cleaner/context.py",
    "recursive_cleaner/cross_row.py",
    "recursive_cleaner/errors.py",
    "recursive_cleaner/escape.py",
    "recursive_cleaner/schema.py",
    "recursive_cleaner/toolkit.py",
    "recursive_cleaner/types.py",
    "recursive_cleaner/validation.py",
    "recursive_cleaner/profiling",
    "recursive_cleaner/write",
    "recursive_cleaner/judge/__init__.py",
    "recursive_cleaner/judge/_child.py",
    "recursive_cleaner/judge/assembly.py",
    "recursive_cleaner/judge/dedup.py",
    "recursive_cleaner/judge/policy.py",
    "recursive_cleaner/judge/reflection_measure.py",
    "recursive_cleaner/judge/reply_check.py",
    "recursive_cleaner/judge/sandbox.py",
    "recursive_cleaner/judge/validation.py",
    "recursive_cleaner/run/__init__.py",
    "recursive_cleaner/run/checkpoint.py",
    "recursive_cleaner/run/dry_run.py",
    "recursive_cleaner/run/fingerprint.py",
    "recursive_cleaner/run/finish.py",
    "recursive_cleaner/run/lock.py",
    "recursive_cleaner/run/measure.py",
    "recursive_cleaner/run/result.py",
    "recursive_cleaner/run/state.py",
    "bench/style_wrap.py",
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
