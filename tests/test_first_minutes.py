"""Small things a new user notices (issue 19): report examples keep their spaces, the goals are
quoted whole, analyze counts an issue once, unusable replies are counted, resume counters, and a
finished run's resume."""

from __future__ import annotations

import json

from recursive_cleaner import DataCleaner
from recursive_cleaner.run.dry_run import distinct_issues
from recursive_cleaner.ui.progress import ProgressTally
from recursive_cleaner.write.report import ReportData, render_report
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

LOWER = """\
def lower_emails(record):
    record["email"] = record["email"].lower()
    return record
"""


def test_report_examples_keep_leading_and_trailing_spaces_visible():
    issues = [
        {
            "field": "status",
            "issue": "status: spelled differently",
            "count": 2,
            "chunk_index": 0,
            "offending": ["PENDING ", " active", "ok"],
        }
    ]
    md = render_report(ReportData(dry_run=True, issues=issues))
    row = next(line for line in md.splitlines() if line.startswith("| `status`"))
    assert "`'PENDING '`" in row and "`' active'`" in row and "`ok`" in row


def test_the_goals_are_quoted_whole():
    goals = "\n".join(
        f"- field_{i}: rule number {i} with a long explanation of what clean means"
        for i in range(40)
    )
    md = render_report(ReportData(instructions=goals))
    assert len(goals) > 2000 and "> - field_39: rule number 39" in md and "…" not in md


def test_analyze_counts_each_issue_once_across_chunks():
    issues = [
        {
            "field": "date",
            "issue": "date: 3 of 10 not ISO",
            "count": 3,
            "offending": ["x"],
            "chunk_index": 0,
        },
        {
            "field": "date",
            "issue": "date: 2 of 10 not ISO",
            "count": 2,
            "offending": ["y"],
            "chunk_index": 1,
        },
        {"field": None, "issue": "duplicate  customers", "count": None, "chunk_index": 0},
        {"field": None, "issue": "duplicate customers", "count": None, "chunk_index": 1},
    ]
    merged = distinct_issues(issues)
    assert [(i["field"], i["count"]) for i in merged] == [("date", 5), (None, None)]
    tally = ProgressTally()
    for chunk in (issues[:1] + issues[2:3], issues[1:2] + issues[3:]):
        tally.update({"type": "issues_detected", "issues": chunk}, 0.0)
    assert tally.issues == 2


def _data(tmp_path, n=6):
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps({"id": i, "email": f"A{i}@X.COM"}) + "\n" for i in range(n)))
    return str(path)


def test_unusable_replies_are_in_the_result_and_the_report(tmp_path):
    backend = FakeBackend(
        ["this is not the XML the prompt asked for", make_reply("lower_emails", LOWER)],
        default=CLEAN_REPLY,
    )
    result = DataCleaner(
        backend,
        _data(tmp_path),
        chunk_size=6,
        instructions="email: lower case",
        holdout_ratio=0,
        output_path=str(tmp_path / "f.py"),
        report_path=str(tmp_path / "r.md"),
        hint_functions=False,
    ).run()
    assert result.unusable_replies == 1 and result.functions == ["lower_emails"]
    assert "1 unusable replies (asked again)" in (tmp_path / "r.md").read_text()


def test_resuming_a_finished_run_asks_the_model_nothing_and_counts_its_functions(tmp_path):
    from tests.fakes import StructuredFakeBackend

    data = _data(tmp_path, 12)
    draft = '{"email": {"kind": "email"}}'

    backend = StructuredFakeBackend([draft, make_reply("lower_emails", LOWER)], default=CLEAN_REPLY)
    state = str(tmp_path / "st.json")
    first = DataCleaner(
        backend,
        data,
        chunk_size=6,
        instructions="email: lower case",
        holdout_ratio=0,
        state_file=state,
        draft_spec=True,
        output_path=str(tmp_path / "f.py"),
        report_path=None,
        hint_functions=False,
    ).run()
    # the draft was asked once
    assert first.functions == ["lower_emails"] and len(backend.schemas) == 1
    silent = StructuredFakeBackend([])  # any call raises AssertionError
    again = DataCleaner.resume(state, silent, output_path=str(tmp_path / "f.py")).run()
    assert silent.calls == 0 and again.functions == ["lower_emails"] and again.spec == first.spec


def test_a_resumed_run_shows_the_functions_it_already_has(tmp_path):
    from recursive_cleaner.ui.progress import LiveProgress

    data = _data(tmp_path, 12)
    state = str(tmp_path / "st.json")
    backend = FakeBackend([make_reply("lower_emails", LOWER)], default=CLEAN_REPLY)

    def interrupt(event):
        if event["type"] == "chunk_done":
            raise KeyboardInterrupt

    import pytest

    with pytest.raises(KeyboardInterrupt):
        cleaner = DataCleaner(
            backend,
            data,
            chunk_size=6,
            instructions="email: lower case",
            holdout_ratio=0,
            state_file=state,
            output_path=str(tmp_path / "f.py"),
            report_path=None,
        )
        # stop after chunk 1
        cleaner._emit = lambda kind, **fields: interrupt({"type": kind, **fields})
        cleaner.run()
    import io

    progress = LiveProgress(live=False, stream=io.StringIO())
    DataCleaner.resume(
        state,
        FakeBackend([], default=CLEAN_REPLY),
        on_progress=progress,
        output_path=str(tmp_path / "f.py"),
    ).run()
    assert progress.tally.accepted == 1 and progress.tally.chunks_done == 2


def test_the_progress_says_which_model_call_of_the_chunk_not_attempt():
    tally = ProgressTally()
    tally.update({"type": "chunk_start", "chunk_index": 0, "total_chunks": 12, "records": 5}, 0.0)
    tally.update({"type": "iteration", "chunk_index": 0, "iteration": 3}, 0.0)
    tally.update({"type": "llm_request", "call": 1, "purpose": "generate"}, 0.0)
    # issue 31: the iteration is no call (the library's own functions are tried first)
    assert tally.activity == "chunk 1/12: calling the model (call 1 for this chunk)"
    assert "attempt" not in tally.activity
