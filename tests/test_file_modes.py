"""Written files honour the umask like any other tool: 0644 under 022 (generated functions, report,
spec, state, apply output)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.write.state import atomic_write_text
from tests.fakes import FakeBackend, make_reply

LOWER = """\
def lower_emails(record):
    record["email"] = record["email"].lower()
    return record
"""


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_run_writes_functions_report_spec_and_state_0644_under_umask_022(tmp_path, umask_022):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"id": i, "email": f"A{i}@X.COM"}) + "\n" for i in range(6)))
    backend = FakeBackend(lambda prompt: make_reply("lower_emails", LOWER))
    DataCleaner(
        backend,
        str(data),
        chunk_size=3,
        instructions="email: lower case",
        max_iterations=1,
        output_path=str(tmp_path / "cleaning_functions.py"),
        report_path=str(tmp_path / "report.md"),
        state_file=str(tmp_path / "state.json"),
        holdout_ratio=0,
    ).run()
    written = [tmp_path / n for n in ("cleaning_functions.py", "report.md", "state.json")]
    written += list(tmp_path.glob("*spec*.json"))
    assert len(written) >= 4
    assert {p.name: mode(p) for p in written} == {p.name: 0o644 for p in written}
    out = tmp_path / "clean.jsonl"
    apply_file(str(tmp_path / "cleaning_functions.py"), str(data), str(out), workers=1)
    assert mode(out) == 0o644


def test_a_stricter_umask_and_an_existing_files_mode_are_kept(tmp_path):
    old = os.umask(0o077)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
        assert mode(tmp_path / "a.txt") == 0o600
        (tmp_path / "b.txt").write_text("old")
        os.chmod(tmp_path / "b.txt", 0o640)
        atomic_write_text(tmp_path / "b.txt", "new")
        assert mode(tmp_path / "b.txt") == 0o640 and (tmp_path / "b.txt").read_text() == "new"
    finally:
        os.umask(old)
