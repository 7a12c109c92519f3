"""Every command's --help ends with copy-paste examples, and each one runs (issue 45): parsed out
of the help text and run, in a folder holding the bundled sample, with the shared FakeBackend in
place of the model (no network); the formats the help lists are the format registry's."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from recursive_cleaner.read import formats
from recursive_cleaner.ui.cli import cli
from recursive_cleaner.ui.cli_examples import EXAMPLES
from tests.cli_helpers import invoke
from tests.fakes import CLEAN_REPLY, FakeBackend

ROOT = Path(__file__).resolve().parents[2]
HEADER = "Examples (from a clone's folder; the bundled sample is test_cases/):"
# generate writes what the others read; the group's own examples last
ORDER = ("generate", "plan", "analyze", "apply", "validate", "report", "resume", "")
# validate exits 1 when values break the spec: the raw sample does, by design
EXIT = {"validate test_cases/crm_customers.jsonl": 1}


def _help(name: str) -> str:
    result = invoke(*([name] if name else []), "--help")
    assert result.exit_code == 0, result.output
    return result.output


def examples_in(text: str) -> list[str]:
    """The example lines of a help text: every line of its last section, which is the examples."""
    head, found, tail = text.partition(HEADER)
    assert found, "no examples section"
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    assert lines and all(line.startswith("recursive-cleaner ") for line in lines), lines
    return lines


def test_every_command_and_the_group_end_with_examples():
    assert set(ORDER) == {"", *cli.commands}
    for name in ORDER:
        lines = examples_in(_help(name))
        assert lines == list(EXAMPLES[name]), name


def test_the_formats_listed_are_the_registrys():
    generate = " ".join(_help("generate").split())
    for fmt in formats.REGISTRY.values():
        assert all(ext in generate for ext in fmt.extensions), fmt.name
    assert "Parquet" in generate and "Excel" in generate and ".pdf .docx" in generate
    assert "JSONL, CSV, JSON or plain text" not in generate  # issue 45: the old, short list
    applied = " ".join(_help("apply").split())
    assert "Parquet (.parquet .pq" in applied and "plain text" not in applied


def test_a_format_registered_later_is_listed():
    class Feather(formats.Format):
        name, label, extensions = "feather-test", "Feather", (".feather",)

    formats.register(Feather())
    try:
        assert "Feather (.feather)" in " ".join(_help("plan").split())
    finally:
        formats.unregister("feather-test")


@pytest.fixture
def clone(tmp_path, monkeypatch):
    """A folder with the bundled sample, as a clone's: the examples' working directory."""
    (tmp_path / "test_cases").mkdir()
    for name in ("crm_customers.jsonl", "crm_instructions.txt", "ecommerce_products.csv"):
        shutil.copy(ROOT / "test_cases" / name, tmp_path / "test_cases" / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_example_runs(clone, use):
    specs = use(FakeBackend(default=CLEAN_REPLY))
    ran = []
    for name in ORDER:
        for line in examples_in(_help(name)):
            args = shlex.split(line)[1:]
            result = invoke(*args)
            want = next(
                (
                    code
                    for start, code in EXIT.items()
                    if line.startswith(f"recursive-cleaner {start}")
                ),
                0,
            )
            assert result.exit_code == want, (line, result.output, result.stderr)
            ran.append(line)
    assert len(ran) == sum(len(v) for v in EXAMPLES.values())
    assert "ollama:qwen2.5-coder:7b" in specs  # -b reached the backend factory, faked here
    cleaned = (clone / "cleaned.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(cleaned) == 300
    for written in (
        "products_functions.py",
        "product_issues.md",
        "apply_report.html",
        "changes.jsonl",
    ):
        assert (clone / written).is_file(), written
