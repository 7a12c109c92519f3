"""DataCleaner end to end with the scripted fake backend: loop, feedback, events, state, resume."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.errors import LLMCallError
from recursive_cleaner.write.state import load_state
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

ROWS = [
    {"id": i, "phone": p, "status": s, "email": e}
    for i, (p, s, e) in enumerate(
        [
            ("(555) 123-4567", "active", "A@X.COM"),
            ("555.222.3333", "actve", "b@x.com"),
            ("5554445555", "Pending ", "C@x.com"),
            ("+1 555 666 7777", "churned", "d@x.com"),
            ("555-888-9999", "CHURNED", "e@x.com"),
            ("(555) 000-1111", "pending", "F@X.com"),
            ("555 123 0000", "active", "g@x.com"),
            ("555-321-4321", "actv", "h@x.com"),
            ("5559990000", "active", "I@x.com"),
        ]
    )
]
PHONES = textwrap.dedent("""\
    import re

    def normalize_phones(record):
        record = dict(record)
        digits = re.sub(r"\\D", "", str(record.get("phone", "")))
        if len(digits) == 11 and digits.startswith("1"):
            digits = digits[1:]
        if len(digits) == 10:
            record["phone"] = "+1" + digits
        return record""")
STATUS = textwrap.dedent("""\
    from difflib import get_close_matches
    VALID = ["active", "pending", "churned"]

    def fix_status(record):
        record = dict(record)
        value = str(record.get("status", "")).strip().lower()
        match = get_close_matches(value, VALID, n=1, cutoff=0.6)
        if match:
            record["status"] = match[0]
        return record""")
EMAIL = textwrap.dedent("""\
    def lower_emails(record):
        record = dict(record)
        record["email"] = str(record.get("email", "")).strip().lower()
        return record""")


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "crm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


GOALS = "Phones to E.164; fix status typos; lowercase emails."


def _cleaner(backend, data, tmp_path, **kw):
    """The reference design's loop; the library's own field profiling is tested in test_focus.py."""
    kw.setdefault("chunk_size", 3)
    kw.setdefault("profile_fields", False)
    # every record visible; holdout is tested in test_cleaner_v04.py
    kw.setdefault("holdout_ratio", 0.0)
    return DataCleaner(
        backend,
        str(data),
        instructions=GOALS,
        output_path=str(tmp_path / "cleaning_functions.py"),
        sleep=lambda s: None,
        **kw,
    )


def _load(path):
    spec = importlib.util.spec_from_file_location("generated_cf", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_run_writes_functions_that_clean_the_records(data, tmp_path):
    backend = FakeBackend(
        [
            # chunk 0
            make_reply("normalize_phones", PHONES),
            make_reply("fix_status", STATUS),
            CLEAN_REPLY,
            make_reply("lower_emails", EMAIL),
            CLEAN_REPLY,  # chunk 1
            CLEAN_REPLY,  # chunk 2
        ]
    )
    result = _cleaner(backend, data, tmp_path).run()
    assert result.functions == ["normalize_phones", "fix_status", "lower_emails"]
    assert result.chunks_total == 3 and result.chunks_processed == 3 and result.chunks_clean == 3
    assert result.llm["calls"] == 6 == backend.calls
    cleaned = [_load(tmp_path / "cleaning_functions.py").clean_data(r) for r in ROWS]
    assert {r["status"] for r in cleaned} == {"active", "pending", "churned"}
    assert all(r["phone"].startswith("+1") and len(r["phone"]) == 12 for r in cleaned)
    assert all(r["email"] == r["email"].lower() for r in cleaned)


def test_model_sees_chunk_after_accepted_functions_and_their_docstrings(data, tmp_path):
    backend = FakeBackend(
        [make_reply("normalize_phones", PHONES, docstring="Phones to +1XXXXXXXXXX."), CLEAN_REPLY],
        default=CLEAN_REPLY,
    )
    _cleaner(backend, data, tmp_path).run()
    second = backend.history[1]
    assert "Phones to +1XXXXXXXXXX." in second
    data_part = second[second.index("=== DATA (") :]
    assert '"phone": "+15551234567"' in data_part and "(555) 123-4567" not in data_part
    assert '"phone": "+15556667777"' in backend.history[2]  # next chunk arrives already cleaned


def test_parse_error_is_fed_back_then_recovered(data, tmp_path):
    backend = FakeBackend(
        ["I am not sure what you want.", make_reply("fix_status", STATUS), CLEAN_REPLY],
        default=CLEAN_REPLY,
    )
    events = []
    result = _cleaner(backend, data, tmp_path, on_progress=events.append).run()
    assert result.functions == ["fix_status"]
    assert "No <cleaning_analysis> block found" in backend.history[1]
    assert [e for e in events if e["type"] == "parse_error"][0]["iteration"] == 1


def test_function_failing_at_runtime_is_rejected_with_reason_fed_back(data, tmp_path):
    crash = "def bad_fn(record):\n    return {'phone': record['phone'][100]}"
    backend = FakeBackend(
        [make_reply("bad_fn", crash), make_reply("fix_status", STATUS), CLEAN_REPLY],
        default=CLEAN_REPLY,
    )
    events = []
    result = _cleaner(backend, data, tmp_path, on_progress=events.append).run()
    assert result.functions == ["fix_status"]
    assert "IndexError" in backend.history[1] and "bad_fn" in backend.history[1]
    failed = [e for e in events if e["type"] == "validation_failed"]
    assert failed[0]["function_name"] == "bad_fn" and "IndexError" in failed[0]["error"]
    assert result.rejected[0][0] == "bad_fn"


def test_hostile_function_is_refused_and_library_untouched(data, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    hostile = f"def evil(record):\n    import os\n    os.remove({str(victim)!r})\n    return record"
    backend = FakeBackend([make_reply("evil", hostile)], default=CLEAN_REPLY)
    result = _cleaner(backend, data, tmp_path).run()
    assert result.functions == [] and victim.read_text() == "keep me"
    assert "os" in backend.history[1] and "rejected" in backend.history[1]


def test_duplicate_function_name_gets_feedback(data, tmp_path):
    backend = FakeBackend(
        [make_reply("fix_status", STATUS), make_reply("fix_status", STATUS), CLEAN_REPLY],
        default=CLEAN_REPLY,
    )
    result = _cleaner(backend, data, tmp_path).run()
    assert result.functions == ["fix_status"]
    assert "already exists" in backend.history[2]


def test_max_iterations_skips_chunk_and_goes_on(data, tmp_path):
    backend = FakeBackend(["garbage"] * 2, default=CLEAN_REPLY)
    events = []
    result = _cleaner(backend, data, tmp_path, max_iterations=2, on_progress=events.append).run()
    assert result.chunks_max_iterations == 1 and result.chunks_clean == 2
    skipped = [e for e in events if e["type"] == "chunk_skipped"]
    assert (
        skipped[0]["chunk_index"] == 0
        and skipped[0]["attempts"] == 2
        and "garbage" in skipped[0]["last_reply"]
    )


def test_events_cover_the_contract(data, tmp_path):
    events = []
    backend = FakeBackend(
        [make_reply("fix_status", STATUS), CLEAN_REPLY],
        default=CLEAN_REPLY,
        usage={"prompt_tokens": 100, "completion_tokens": 20},
    )
    _cleaner(backend, data, tmp_path, on_progress=events.append).run()
    types = {e["type"] for e in events}
    assert {
        "chunk_start",
        "iteration",
        "llm_call",
        "function_generated",
        "chunk_done",
        "complete",
    } <= types
    assert all(e["total_chunks"] == 3 for e in events)
    assert all(
        "chunk_index" in e
        for e in events
        if e["type"] in ("chunk_start", "iteration", "chunk_done")
    )
    call = next(e for e in events if e["type"] == "llm_call")
    assert call["latency_ms"] >= 0 and call["prompt_tokens"] == 100
    done = events[-1]
    assert done["type"] == "complete" and done["functions"] == 1 and done["llm_calls"] == 4
    assert done["prompt_tokens"] == 400 and set(done["latency_stats"]) >= {
        "min_ms",
        "max_ms",
        "avg_ms",
        "total_ms",
    }


def test_callback_that_raises_never_stops_the_run(data, tmp_path):
    def bad_callback(event):
        raise RuntimeError("callback bug")

    result = _cleaner(
        FakeBackend(default=CLEAN_REPLY), data, tmp_path, on_progress=bad_callback
    ).run()
    assert result.chunks_processed == 3


def test_plain_callable_backend(data, tmp_path):
    prompts = []

    def llm(prompt):
        prompts.append(prompt)
        return CLEAN_REPLY

    assert _cleaner(llm, data, tmp_path).run().chunks_clean == 3 and len(prompts) == 3


def test_empty_file_makes_no_llm_call(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    backend = FakeBackend([])
    result = _cleaner(backend, empty, tmp_path).run()
    assert backend.calls == 0 and result.chunks_total == 0
    # nothing was learned, so nothing is written: no identity module to mistake for a result
    assert result.functions == [] and result.code == ""
    assert not (tmp_path / "cleaning_functions.py").exists()


def test_malformed_lines_are_skipped_counted_and_reported(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text('{"a": 1}\n{"a": 2,,}\n{"a": 3}\n[1, 2]\n{"a": 4}\n')
    events = []
    result = _cleaner(
        FakeBackend(default=CLEAN_REPLY), path, tmp_path, on_progress=events.append
    ).run()
    assert result.skipped_records == 2
    assert [s.line for s in result.skipped] == [2, 4]
    assert [e["line"] for e in events if e["type"] == "record_skipped"] == [2, 4]


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        _cleaner(FakeBackend([]), tmp_path / "nope.jsonl", tmp_path).run()


def test_interrupted_run_resumes_where_it_stopped(data, tmp_path):
    state = tmp_path / "state.json"
    first = FakeBackend(
        [
            make_reply("normalize_phones", PHONES),
            CLEAN_REPLY,  # chunk 0
            make_reply("fix_status", STATUS),
            CLEAN_REPLY,  # chunk 1
            ConnectionError("server died"),
        ]
        * 1
        + [ConnectionError("still dead")] * 2
    )
    with pytest.raises(LLMCallError, match="server died|still dead"):
        _cleaner(first, data, tmp_path, state_file=str(state)).run()
    saved = load_state(state)
    assert saved["last_completed_chunk"] == 1
    assert [f["name"] for f in saved["functions"]] == ["normalize_phones", "fix_status"]

    second = FakeBackend([make_reply("lower_emails", EMAIL), CLEAN_REPLY])
    resumed = DataCleaner.resume(str(state), second, sleep=lambda s: None)
    result = resumed.run()
    assert second.calls == 2  # only chunk 2 was processed
    shown = second.history[0][second.history[0].index("=== DATA (") :]
    assert "g@x.com" in shown and "a@x.com" not in shown.lower()
    assert result.functions == ["normalize_phones", "fix_status", "lower_emails"]
    assert result.resumed_from_chunk == 1
    assert load_state(state)["last_completed_chunk"] == 2


def test_run_on_existing_state_continues(data, tmp_path):
    state = tmp_path / "state.json"
    backend = FakeBackend([CLEAN_REPLY, ConnectionError("down")])
    with pytest.raises(LLMCallError):
        _cleaner(backend, data, tmp_path, state_file=str(state), llm_attempts=1).run()
    again = FakeBackend([CLEAN_REPLY, CLEAN_REPLY])
    _cleaner(again, data, tmp_path, state_file=str(state)).run()
    assert again.calls == 2


def test_state_for_another_file_is_refused(data, tmp_path):
    state = tmp_path / "state.json"
    _cleaner(FakeBackend(default=CLEAN_REPLY), data, tmp_path, state_file=str(state)).run()
    with pytest.raises(ValueError, match="belongs to"):
        _cleaner(
            FakeBackend(default=CLEAN_REPLY), data, tmp_path, state_file=str(state), chunk_size=2
        ).run()


def test_resume_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        DataCleaner.resume(str(tmp_path / "none.json"), FakeBackend([]))
    bad = tmp_path / "bad.json"
    bad.write_text("{broken")
    with pytest.raises(ValueError):
        DataCleaner.resume(str(bad), FakeBackend([]))


KILL_SCRIPT = """
import os, signal, sys
sys.path.insert(0, {root!r})
from recursive_cleaner import DataCleaner
from tests.fakes import CLEAN_REPLY
calls = 0
def llm(prompt):
    global calls
    calls += 1
    if calls == {kill_at}:
        os.kill(os.getpid(), signal.SIGKILL)
    return CLEAN_REPLY
DataCleaner(llm, {data!r}, chunk_size=1, state_file={state!r}, output_path={out!r}, \
profile_fields=False,
            holdout_ratio=0.0, instructions={goals!r}).run()
"""


@pytest.mark.parametrize("kill_at", [1, 4, 7])
def test_kill_9_loses_at_most_the_chunk_in_progress(data, tmp_path, kill_at):
    state, out = tmp_path / "state.json", tmp_path / "cf.py"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = KILL_SCRIPT.format(
        root=root, kill_at=kill_at, data=str(data), state=str(state), out=str(out), goals=GOALS
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    if kill_at == 1:
        assert not state.exists()
    else:
        assert load_state(state)["last_completed_chunk"] == kill_at - 2
    backend = FakeBackend(default=CLEAN_REPLY)
    _cleaner(backend, data, tmp_path, chunk_size=1, state_file=str(state)).run()
    assert backend.calls == len(ROWS) - (kill_at - 1)


def test_chunks_are_profiled_in_one_persistent_child_per_function_set(tmp_path, monkeypatch):
    """Issue 18: a big file's chunks that cost no call must not cost a new sandbox child each."""
    from recursive_cleaner.judge import gate as gate_module
    from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

    started = []

    class Counted(gate_module.SandboxWorker):
        def start(self, timeout: float = 10.0):
            started.append(self)
            return super().start(timeout)

    monkeypatch.setattr(gate_module, "SandboxWorker", Counted)
    rows = [{"id": i, "email": f" User{i}@X.com"} for i in range(60)]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fix = textwrap.dedent("""\
        def fix_email(record):
            record = dict(record)
            record["email"] = str(record.get("email") or "").strip().lower()
            return record""")
    backend = FakeBackend([make_reply("fix_email", fix)], default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=5,
        instructions="email lower-case, no spaces",
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        hint_functions=False,
    ).run()
    assert (
        result.functions == ["fix_email"] and result.chunks_processed == 12 and backend.calls == 1
    )
    # calls: the function alone; no open pass, the profile leaves nothing unexplained (issue 45)
    # 11 chunks after the function, one child; closed at the end
    assert len(started) == 1 and started[0].closed
    cleaned = [json.loads(x) for x in path.read_text().splitlines()]
    assert cleaned == rows  # the input is untouched


def test_a_chunk_that_costs_no_call_is_profiled_once(tmp_path, monkeypatch):
    """Issue 18: profiling is most of the cost of a chunk without a call; the event and the focus
    share it."""
    from recursive_cleaner.profiling import focus as focus_module
    from tests.fakes import CLEAN_REPLY, FakeBackend

    profiled = []
    real = focus_module.profile_records
    monkeypatch.setattr(
        focus_module,
        "profile_records",
        lambda records, *a, **k: profiled.append(1) or real(records, *a, **k),
    )
    path = tmp_path / "data.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i, "email": f"u{i}@x.com"}) + "\n" for i in range(60))
    )
    backend = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=5,
        instructions="email lower-case, no spaces",
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
    ).run()
    assert result.chunks_processed == 12 and backend.calls == 0  # nothing left unexplained
    # one profile per chunk (the chunk_profile event and the next field read it)
    assert len(profiled) == 12
