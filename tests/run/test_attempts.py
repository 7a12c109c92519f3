"""The chunk step's ends: when max_iterations is a warning and when only an event (issue 31)."""

from __future__ import annotations

import json
import logging
import textwrap

from recursive_cleaner import DataCleaner
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

ROWS = [{"id": i, "email": e} for i, e in enumerate(["A@X.COM", "b@x.com", "C@x.com", "d@x.com"])]
LOWER = textwrap.dedent("""\
    def fix_email(record):
        record = dict(record)
        record["email"] = str(record.get("email", "")).strip().lower()
        return record""")


def _run(tmp_path, backend, events):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return DataCleaner(
        backend,
        str(data),
        chunk_size=10,
        max_iterations=1,
        instructions="email: an email address, all lower case (A@X.COM -> a@x.com)",
        holdout_ratio=0,
        hint_functions=False,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        on_progress=events.append,
    ).run()


def test_a_chunk_whose_field_was_fixed_is_no_warning(tmp_path, caplog):
    events = []
    caplog.set_level(logging.WARNING, "recursive_cleaner")
    result = _run(
        tmp_path, FakeBackend([make_reply("fix_email", LOWER)], default=CLEAN_REPLY), events
    )
    assert result.functions == ["fix_email"]
    skipped = [e for e in events if e["type"] == "chunk_skipped"]
    assert skipped and skipped[0]["warned"] is False and skipped[0]["open_issues"] == {}
    assert "max_iterations" not in caplog.text


def test_a_field_the_model_failed_on_is_named_in_the_warning(tmp_path, caplog):
    events = []
    caplog.set_level(logging.WARNING, "recursive_cleaner")
    result = _run(tmp_path, FakeBackend(default="garbage"), events)
    assert result.functions == []
    skipped = [e for e in events if e["type"] == "chunk_skipped"]
    assert skipped[0]["warned"] is True and "email" in skipped[0]["open_issues"]
    assert "email still not clean after 1 model attempts (max_iterations)" in caplog.text


NOOP = textwrap.dedent("""\
    def fix_email(record):
        return dict(record)""")


def _open_passes(tmp_path, replies):
    """One chunk whose profile is clean: only open passes, three at most."""
    data = tmp_path / "clean.jsonl"
    data.write_text("".join(json.dumps({"id": i, "email": f"u{i}@x.com"}) + "\n" for i in range(4)))
    backend = FakeBackend(replies, default=CLEAN_REPLY)
    DataCleaner(
        backend,
        str(data),
        chunk_size=10,
        open_pass_attempts=3,
        call_every_chunk=True,  # the profile leaves nothing unexplained: ask anyway (issue 45)
        instructions="email: an email address, all lower case",
        holdout_ratio=0,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
    ).run()
    return backend.calls


def test_the_open_pass_stops_at_the_second_identical_refusal_of_a_chunk(tmp_path):
    """Issue 32: a refused attempt repeats at most once with the same reason."""
    assert _open_passes(tmp_path, ["garbage", "more garbage", CLEAN_REPLY]) == 2
    noop = make_reply("fix_email", NOOP)
    assert _open_passes(tmp_path, [noop, noop.replace("fix_email", "fix_email_b")]) == 2


def test_different_refusals_keep_the_open_passes(tmp_path):
    assert _open_passes(tmp_path, ["garbage", make_reply("fix_email", NOOP), CLEAN_REPLY]) == 3
