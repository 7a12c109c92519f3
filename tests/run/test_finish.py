"""Ctrl-C in run(): the functions accepted so far and their report are written, then the
interrupt goes on (issue 31)."""

from __future__ import annotations

import json

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.write.state import load_state
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply
from tests.run.test_attempts import LOWER

ROWS = [{"id": i, "email": e} for i, e in enumerate(["A@X.COM", "b@x.com", "C@x.com", "d@x.com"])]


def _cleaner(tmp_path, backend, **options):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return DataCleaner(
        backend,
        str(data),
        chunk_size=2,
        instructions="email: an email address, all lower case (A@X.COM -> a@x.com)",
        holdout_ratio=0,
        hint_functions=False,
        call_every_chunk=True,
        output_path=str(tmp_path / "cf.py"),
        report_path=str(tmp_path / "report.md"),
        state_file=str(tmp_path / "st.json"),
        sleep=lambda s: None,
        **options,
    )


def test_ctrl_c_writes_what_was_accepted_then_goes_on(tmp_path):
    backend = FakeBackend([make_reply("fix_email", LOWER), KeyboardInterrupt()])
    events = []
    with pytest.raises(KeyboardInterrupt):
        _cleaner(tmp_path, backend, on_progress=events.append).run()
    code = (tmp_path / "cf.py").read_text()
    assert "def fix_email" in code and "def clean_data" in code
    report = (tmp_path / "report.md").read_text()
    assert "fix_email" in report and "**Interrupted:** the run was stopped (Ctrl-C)" in report
    assert "Interrupted: the run was stopped (Ctrl-C)" in (tmp_path / "report.html").read_text()
    assert "complete" not in [e["type"] for e in events]
    # issue 43: no chunk finished, yet the state is saved at the first chunk's start with what
    # was accepted, so resume carries on (it was saved only per finished chunk)
    saved = load_state(str(tmp_path / "st.json"))
    assert saved["last_completed_chunk"] == -1
    assert [f["name"] for f in saved["functions"]] == ["fix_email"]


def test_ctrl_c_on_a_later_chunk_keeps_the_state_of_the_finished_ones(tmp_path):
    clean = make_reply(status="clean", issues=(("Everything handled", True),))
    backend = FakeBackend([make_reply("fix_email", LOWER), clean, KeyboardInterrupt()])
    with pytest.raises(KeyboardInterrupt):
        _cleaner(tmp_path, backend).run()
    assert load_state(str(tmp_path / "st.json"))["last_completed_chunk"] == 0
    assert "def fix_email" in (tmp_path / "cf.py").read_text()


def test_a_failure_to_write_does_not_hide_the_interrupt(tmp_path, monkeypatch, caplog):
    import recursive_cleaner.run.finish as finish

    def broken(ctx):
        raise OSError("disk full")

    monkeypatch.setattr(finish, "write_functions", broken)
    backend = FakeBackend([make_reply("fix_email", LOWER), KeyboardInterrupt()])
    with pytest.raises(KeyboardInterrupt):
        _cleaner(tmp_path, backend).run()
    assert "could not be written: disk full" in caplog.text


def test_a_finished_run_does_not_say_interrupted(tmp_path):
    clean = make_reply(status="clean", issues=(("Everything handled", True),))
    backend = FakeBackend([make_reply("fix_email", LOWER), clean, clean, clean])
    _cleaner(tmp_path, backend, cross_row=False).run()
    assert "Interrupted" not in (tmp_path / "report.md").read_text()
    assert "Interrupted" not in (tmp_path / "report.html").read_text()


def test_no_records_writes_no_file(tmp_path):
    backend = FakeBackend([])
    cleaner = _cleaner(tmp_path, backend)
    (tmp_path / "data.jsonl").write_text("")
    result = cleaner.run()
    assert result.chunks_total == 0 and result.functions == [] and backend.calls == 0
    assert result.report_path is None and result.spec_path is None
    written = {"cf.py", "report.md", "report.html", "cf.spec.json", "cleaning_spec.json", "st.json"}
    assert not written & {p.name for p in tmp_path.iterdir()}


def test_a_source_weighted_vote_is_planned_and_its_sources_accuracy_reported(tmp_path):
    from tests.crossrow.test_truth import reports

    data = tmp_path / "prices.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in reports(items=60)))
    DataCleaner(
        FakeBackend(lambda p: "no rules"),
        str(data),
        chunk_size=120,
        instructions="Several sites report each item: its price and size are the same for every "
        "row of that item.",
        output_path=str(tmp_path / "cf.py"),
        report_path=str(tmp_path / "report.md"),
        sleep=lambda s: None,
    ).run()
    written = (tmp_path / "cf.py").read_text()
    assert "'weight_by': ['site']" in written and "truth discovery" in written
    report = (tmp_path / "report.md").read_text()
    line = next(x for x in report.splitlines() if "estimated accuracy of each site" in x)
    assert line.index("good 0.9") < line.index("fair") < line.index("bad")


def test_track_metrics_measures_a_field_left_alone_as_left_alone(tmp_path):
    """Issue 32: the quality table counts no wrong values in a field the goals leave alone."""
    rows = [
        {"id": i, "email": e, "joined": d}
        for i, (e, d) in enumerate(
            [("A@X.COM", "2024-01-02"), ("b@x.com", "03/04/2024"), ("C@x.com", "5 May 2024")] * 2
        )
    ]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = (
        DataCleaner(
            FakeBackend([make_reply("fix_email", LOWER)], default=CLEAN_REPLY),
            str(data),
            chunk_size=6,
            instructions="email: all lower case (A@X.COM -> a@x.com). Leave everything else alone.",
            holdout_ratio=0,
            track_metrics=True,
            output_path=str(tmp_path / "cf.py"),
            report_path=None,
            sleep=lambda s: None,
        )
        .run()
        .improvement
    )
    joined = report.fields["joined"]
    assert joined.before.conformity == joined.after.conformity == 1.0
    assert report.fields["email"].before.conformity < report.fields["email"].after.conformity
