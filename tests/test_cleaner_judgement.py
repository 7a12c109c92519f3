"""DataCleaner with the judgement options of issue 6: optimize, early_termination, reflection.

The scripted fake backend answers generation, consolidation and saturation prompts by their
text, like a model would see them.
"""

from __future__ import annotations

import json

import pytest
import textwrap

from recursive_cleaner import DataCleaner
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply
from tests.optimizer.test_consolidation import reply as consolidation_reply

ROWS = [
    {"id": i, "email": e}
    for i, e in enumerate(["  A@X.COM ", "b@x.com ", " C@x.com", "d@X.com", "E@x.com ", " f@x.com"])
]
STRIP = textwrap.dedent('''\
    def strip_email(record):
        """Strips the email.
        Tags: email, whitespace"""
        record = dict(record)
        record["email"] = str(record.get("email") or "").strip()
        return record''')
LOWER = textwrap.dedent('''\
    def lower_email(record):
        """Lowercases the email.
        Tags: email, case"""
        record = dict(record)
        record["email"] = str(record.get("email") or "").lower()
        return record''')
MERGED = textwrap.dedent("""\
    def clean_email(record):
        record = dict(record)
        record["email"] = str(record.get("email") or "").strip().lower()
        return record""")
WRONG_MERGE = MERGED.replace(".strip().lower()", ".lower()")


def _data(tmp_path, rows=ROWS):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _run(backend, path, tmp_path, **kw):
    events = []
    kw.setdefault("chunk_size", 6)
    kw.setdefault("holdout_ratio", 0.0)
    kw.setdefault("profile_fields", False)
    result = DataCleaner(
        backend,
        str(path),
        instructions="Emails lower case, no spaces.",
        on_progress=events.append,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        **kw,
    ).run()
    return result, events


def _generation_then(consolidation: str):
    replies = [make_reply("strip_email", STRIP), make_reply("lower_email", LOWER), CLEAN_REPLY]

    def handler(prompt: str) -> str:
        if "consolidat" in prompt.lower() and "<merged_functions>" in prompt:
            return consolidation
        return replies.pop(0) if replies else CLEAN_REPLY

    return FakeBackend(handler)


# --------------------------------------------------------------------------- optimize
def test_optimize_merges_functions_that_give_the_same_output(tmp_path):
    backend = _generation_then(
        consolidation_reply([("clean_email", ["strip_email", "lower_email"], MERGED)])
    )
    result, events = _run(backend, _data(tmp_path), tmp_path, optimize=True, optimize_threshold=2)
    assert result.functions == ["clean_email"]
    assert result.optimization["original"] == 2 and result.optimization["final"] == 1
    kinds = [e["type"] for e in events if e["type"].startswith("optimize_")]
    assert (
        kinds[0] == "optimize_start"
        and kinds[-1] == "optimize_complete"
        and "optimize_group" in kinds
    )
    assert "Tags:" in backend.history[0]  # the prompt asks for tagged docstrings when optimizing
    assert "Consolidation: 2 functions → 1" in (tmp_path / "cleaning_report.md").read_text()


def test_optimize_keeps_the_originals_when_the_merge_differs(tmp_path):
    backend = _generation_then(
        consolidation_reply([("clean_email", ["strip_email", "lower_email"], WRONG_MERGE)])
    )
    result, _ = _run(backend, _data(tmp_path), tmp_path, optimize=True, optimize_threshold=2)
    assert result.functions == ["strip_email", "lower_email"]
    assert result.optimization["refused"] and "differs" in result.optimization["refused"][0]
    assert "kept apart" in (tmp_path / "cleaning_report.md").read_text()


def test_optimize_below_threshold_makes_no_call(tmp_path):
    backend = _generation_then("never asked")
    result, events = _run(backend, _data(tmp_path), tmp_path, optimize=True, optimize_threshold=3)
    assert result.functions == ["strip_email", "lower_email"] and result.optimization == {}
    assert not any(e["type"].startswith("optimize_") for e in events)
    assert "Tags:" in backend.history[0] and backend.calls == 3


# --------------------------------------------------------------------------- early termination
SATURATED = (
    "<saturation_check><assessment><saturated>true</saturated><reasoning>nothing new</reasoning>"
    "<recommendation>stop</recommendation></assessment></saturation_check>"
)


def _homogeneous(tmp_path, n=60):
    return _data(tmp_path, [{"id": i, "email": f"user{i}@x.com"} for i in range(n)])


def _unexplained(tmp_path, n=60):
    """Homogeneous, but for a field with no target whose values come in two forms: with
    ``scope="all"`` the profile leaves it unexplained, so the open pass is asked (issue 45)."""
    rows = [
        {"id": i, "email": f"user{i}@x.com", "remark": ["ok", "late by 2 days"][i % 2]}
        for i in range(n)
    ]
    return _data(tmp_path, rows)


def test_early_termination_stops_when_the_model_judges_saturation(tmp_path):
    backend = FakeBackend(
        lambda p: SATURATED if "<saturation_check>" in p or "saturat" in p.lower() else CLEAN_REPLY
    )
    result, events = _run(
        backend,
        _homogeneous(tmp_path),
        tmp_path,
        chunk_size=3,
        profile_fields=True,
        early_termination=True,
        saturation_check_interval=4,
    )
    assert result.stopped_early and result.chunks_processed == 4 < result.chunks_total == 20
    assert [e for e in events if e["type"] == "early_termination"]
    assert "Early termination" in (tmp_path / "cleaning_report.md").read_text()
    calls = [e for e in events if e["type"] == "llm_call"]
    assert len(calls) == backend.calls == result.llm["calls"]  # every counted call is an event
    assert [e["purpose"] for e in calls].count("saturation") == 1 and calls[-1][
        "purpose"
    ] == "saturation"
    assert calls[-1]["chunk_index"] == 3 and calls[-1]["iteration"] == 0


def test_a_resumed_run_keeps_its_early_termination_counts(tmp_path):
    """Idle chunks and the saturation count live in the state file: a resumed run does not start
    over."""
    path, state = _unexplained(tmp_path), str(tmp_path / "state.json")

    def interrupted(prompt):
        if "saturat" in prompt.lower():
            # Ctrl-C during the first saturation check, after chunk 4 was saved
            raise KeyboardInterrupt
        return CLEAN_REPLY

    first = FakeBackend(interrupted)
    with pytest.raises(KeyboardInterrupt):
        _run(
            first,
            path,
            tmp_path,
            chunk_size=3,
            profile_fields=True,
            scope="all",
            early_termination=True,
            saturation_check_interval=4,
            state_file=state,
            idle_chunks_before_skip=2,
        )
    assert first.calls == 3  # chunks 1 and 2 asked, chunks 3 and 4 skipped as idle, then the check
    saved = json.loads(open(state).read())["early_termination"]
    assert saved["count"] == 4 and saved["idle_chunks"] == 2 and len(saved["recent"]) == 4

    second = FakeBackend(lambda p: SATURATED if "saturat" in p.lower() else CLEAN_REPLY)
    cleaner = DataCleaner.resume(
        state, second, sleep=lambda s: None, output_path=str(tmp_path / "cf.py")
    )
    assert cleaner.watch.count == 4 and cleaner.state.idle_chunks == 2
    result = cleaner.run()
    assert result.stopped_early and cleaner.last_completed_chunk == 7  # the check after chunk 8
    assert second.calls == 1 and "saturat" in second.history[0].lower()  # no open pass repeated


def test_call_every_chunk_reads_every_chunk_and_asks_about_each(tmp_path):
    backend = FakeBackend(default=CLEAN_REPLY)
    result, _ = _run(
        backend,
        _homogeneous(tmp_path),
        tmp_path,
        chunk_size=3,
        profile_fields=True,
        call_every_chunk=True,
    )
    assert not result.stopped_early and result.chunks_processed == 20 and backend.calls == 20


def test_homogeneous_data_costs_a_third_of_the_calls_or_less_with_early_termination(tmp_path):
    path = _homogeneous(tmp_path)
    on = FakeBackend(lambda p: SATURATED if "saturat" in p.lower() else CLEAN_REPLY)
    _run(
        on,
        path,
        tmp_path,
        chunk_size=3,
        profile_fields=True,
        early_termination=True,
        saturation_check_interval=8,
    )
    off = FakeBackend(default=CLEAN_REPLY)
    _run(off, path, tmp_path, chunk_size=3, profile_fields=True, call_every_chunk=True)
    assert on.calls * 3 <= off.calls


@pytest.mark.parametrize("records", [60, 600])
def test_with_the_defaults_the_calls_do_not_grow_with_the_file(tmp_path, records):
    """Issue 18: the idle skip is always on; early_termination (off by default) only adds the
    saturation check."""
    backend = FakeBackend(default=CLEAN_REPLY)
    result, _ = _run(
        backend,
        _unexplained(tmp_path, records),
        tmp_path,
        chunk_size=3,
        profile_fields=True,
        scope="all",
    )
    assert result.chunks_processed == records // 3 and not result.stopped_early
    # one chunk that teaches nothing (idle_chunks_before_skip=1), then no call for the rest
    assert backend.calls == 1 and result.open_passes == 1


@pytest.mark.parametrize("records", [60, 600])
def test_no_open_pass_where_the_profile_leaves_nothing_unexplained(tmp_path, records):
    """Issue 45: every field in scope meets its target on every chunk: no call at all, said."""
    backend = FakeBackend(default=CLEAN_REPLY)
    result, events = _run(
        backend, _homogeneous(tmp_path, records), tmp_path, chunk_size=3, profile_fields=True
    )
    assert result.chunks_processed == records // 3 and backend.calls == 0
    assert result.open_passes == 0 and result.open_pass_skipped == records // 3
    assert result.open_pass_note() == "no open pass: nothing left unexplained"
    said = [e for e in events if e["type"] == "open_pass_skipped"]
    assert len(said) == 1 and said[0]["reason"] == result.open_pass_note()


def test_a_garbled_saturation_reply_never_stops_the_run(tmp_path):
    backend = FakeBackend(lambda p: "no idea" if "saturat" in p.lower() else CLEAN_REPLY)
    result, _ = _run(
        backend,
        _homogeneous(tmp_path),
        tmp_path,
        chunk_size=3,
        profile_fields=True,
        early_termination=True,
        saturation_check_interval=4,
    )
    assert not result.stopped_early and result.chunks_processed == 20


# --------------------------------------------------------------------------- reflection
NOT_IDEMPOTENT = textwrap.dedent("""\
    def tag_email(record):
        record = dict(record)
        record["email"] = str(record.get("email") or "").strip().lower() + "!"
        return record""")


def test_reflection_sends_a_weak_function_back_with_its_critique(tmp_path):
    backend = FakeBackend(
        [make_reply("tag_email", NOT_IDEMPOTENT), make_reply("clean_email", MERGED)],
        default=CLEAN_REPLY,
    )
    result, events = _run(backend, _data(tmp_path), tmp_path, reflection="rules")
    assert result.functions == ["clean_email"]
    assert "idempot" in backend.history[1].lower()  # the critique went back to the model
    critiqued = [e for e in events if e["type"] == "function_critiqued"]
    assert [e["decision"] for e in critiqued][-1] == "accept"
    # one task: the first candidate is critiqued as an original, the second as its refinement
    assert result.reflection["original"] == 1 and result.reflection["final"] == 1
    assert result.reflection["discarded"] + result.reflection["refined"] == 1
    complete = [e for e in events if e["type"] == "complete"][0]
    assert complete["reflection"] == result.reflection


def test_reflection_refuses_a_near_duplicate(tmp_path):
    renamed = (
        MERGED.replace("clean_email", "tidy_email")
        .replace("record = dict(record)", "rec = dict(record)")
        .replace('record["email"] = str(record.get', 'rec["email"] = str(rec.get')
        .replace("return record", "return rec")
    )
    rows = ROWS + [{"id": 9, "email": "G@X.com"}]
    backend = FakeBackend(
        [make_reply("clean_email", MERGED), make_reply("tidy_email", renamed)], default=CLEAN_REPLY
    )
    result, _ = _run(backend, _data(tmp_path, rows), tmp_path, chunk_size=4, reflection="rules")
    assert result.functions == ["clean_email"] and result.reflection["deduplicated"] == 1
