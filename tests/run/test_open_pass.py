"""The open pass only where the profile leaves something unexplained (issue 45): the README job
costs no open-pass call and writes the same output; wrong values no function fixed, or a field in
scope with no target whose values come in several forms, still get it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.run.open_pass import NOTHING_LEFT, value_form
from tests.cli_helpers import invoke
from tests.fakes import CLEAN_REPLY, FakeBackend

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "test_cases" / "crm_customers.jsonl"
GOALS = (ROOT / "test_cases" / "crm_instructions.txt").read_text(encoding="utf-8")


def open_passes(backend: FakeBackend) -> list[str]:
    """The prompts of open passes: the whole chunk shown, no one field to fix."""
    return [p for p in backend.history if "=== DATA (" in p and "FIELD TO FIX" not in p]


def _run(tmp_path, data, goals, **options):
    backend = FakeBackend(default=CLEAN_REPLY)
    events: list[dict] = []
    result = DataCleaner(
        backend,
        str(data),
        instructions=goals,
        output_path=str(tmp_path / "cleaning_functions.py"),
        report_path=None,
        sleep=lambda s: None,
        on_progress=events.append,
        **options,
    ).run()
    return result, backend, events


def _rows(tmp_path, rows, name="data.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_readme_job_makes_no_open_pass_and_writes_what_the_open_pass_left(tmp_path):
    (tmp_path / "now").mkdir()
    (tmp_path / "asked").mkdir()
    now, backend, events = _run(tmp_path / "now", SAMPLE, GOALS)
    assert backend.calls == 0 and open_passes(backend) == []
    assert len(now.functions) == 8 and now.chunks_processed == 6
    assert now.open_passes == 0 and now.open_pass_skipped == 6
    assert now.open_pass_note() == NOTHING_LEFT
    assert [e["reason"] for e in events if e["type"] == "open_pass_skipped"] == [NOTHING_LEFT]
    # the open pass asked as before (the reference design asks on every chunk) and answered
    # "clean": the same functions, byte for byte
    asked, before, _ = _run(tmp_path / "asked", SAMPLE, GOALS, call_every_chunk=True)
    assert len(open_passes(before)) == 6 and asked.open_passes == 6 and asked.open_pass_note() == ""
    assert now.code == asked.code and now.functions == asked.functions


def test_wrong_values_no_function_fixed_get_the_open_pass(tmp_path):
    rows = [{"id": i, "status": ["active", "Pending ", "???", "churned"][i % 4]} for i in range(12)]
    result, backend, _ = _run(
        tmp_path, _rows(tmp_path, rows), "status: exactly one of active, pending or churned"
    )
    assert "status" in result.unfixable  # "???" is no status any function could write
    assert len(open_passes(backend)) == 1 and result.open_passes == 1
    assert result.open_pass_note() == ""


def test_a_field_in_scope_with_values_in_several_forms_gets_the_open_pass(tmp_path):
    rows = [{"id": i, "remark": ["ok", "late by 2 days"][i % 2]} for i in range(6)]
    result, backend, _ = _run(tmp_path, _rows(tmp_path, rows), "", scope="all")
    assert len(open_passes(backend)) == 1 and result.open_passes == 1


def test_one_form_or_a_field_left_alone_needs_no_open_pass(tmp_path):
    one_form = [{"id": i, "remark": f"late by {i} days"} for i in range(6)]
    result, backend, _ = _run(tmp_path, _rows(tmp_path, one_form), "", scope="all")
    assert backend.calls == 0 and result.open_pass_skipped == 1
    # the two forms in a field the goals leave alone: not the open pass's to explain
    varied = [{"id": i, "remark": ["ok", "late by 2 days"][i % 2]} for i in range(6)]
    goals = "id: an integer. Leave the remark alone."
    result, backend, _ = _run(tmp_path, _rows(tmp_path, varied, "v.jsonl"), goals)
    assert backend.calls == 0 and result.open_pass_note() == NOTHING_LEFT


def test_a_value_form_is_the_shapes_of_its_words():
    assert value_form("late by 2 days") == value_form("early by 10 days") == "9 a"
    assert value_form("OK") != value_form("ok") and value_form(None) == "<null>"


def test_the_counts_survive_a_resume_and_a_planted_count_reads_as_none(tmp_path):
    data = _rows(tmp_path, [{"id": i, "email": f"u{i}@x.com"} for i in range(6)])
    state = tmp_path / "state.json"
    result, _, _ = _run(tmp_path, data, "email: lower case", chunk_size=3, state_file=str(state))
    saved = json.loads(state.read_text())["early_termination"]
    assert saved["open_passes"] == 0 and saved["open_pass_skipped"] == 2
    saved.update(open_passes="9", open_pass_skipped=-4)
    whole = json.loads(state.read_text())
    whole["early_termination"] = saved
    state.write_text(json.dumps(whole))
    cleaner = DataCleaner.resume(str(state), FakeBackend(), sleep=lambda s: None)
    assert cleaner.state.open_passes == 0 and cleaner.state.open_pass_skipped == 0


@pytest.fixture
def clone(tmp_path, monkeypatch):
    (tmp_path / "test_cases").mkdir()
    shutil.copy(SAMPLE, tmp_path / "test_cases")
    (tmp_path / "goals.txt").write_text(GOALS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_command_line_says_no_open_pass_was_needed(clone, use):
    backend = FakeBackend(default=CLEAN_REPLY)
    use(backend)
    args = ("generate", "test_cases/crm_customers.jsonl", "-i", "@goals.txt", "--progress", "plain")
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    assert "LLM calls 0," in result.stdout and NOTHING_LEFT in result.stdout.splitlines()
    assert f"] {' ' * 2}{NOTHING_LEFT}" in result.stderr  # the plain progress line, once
    assert result.stderr.count(NOTHING_LEFT) == 1 and backend.calls == 0


def test_the_report_says_no_open_pass_was_needed(tmp_path):
    def report(folder, **options) -> str:
        folder.mkdir()
        DataCleaner(
            FakeBackend(default=CLEAN_REPLY),
            str(SAMPLE),
            instructions=GOALS,
            output_path=str(folder / "cleaning_functions.py"),
            report_path=str(folder / "cleaning_report.md"),
            sleep=lambda s: None,
            **options,
        ).run()
        return (folder / "cleaning_report.md").read_text(encoding="utf-8")

    assert f"- {NOTHING_LEFT}" in report(tmp_path / "now").splitlines()
    assert NOTHING_LEFT not in report(tmp_path / "asked", call_every_chunk=True)
