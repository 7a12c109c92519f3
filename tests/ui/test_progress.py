"""The plain progress lines: counts and activity agree, retries shown, a heartbeat (issue 31)."""

from __future__ import annotations

import io

from recursive_cleaner import DataCleaner
from recursive_cleaner.ui.progress import LiveProgress, ProgressTally
from tests.fakes import CLEAN_REPLY, FakeBackend


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Timers:
    """A timer a test drives: it records the tick and whether it was stopped."""

    def __init__(self) -> None:
        self.ticks, self.stopped = [], 0

    def __call__(self, interval, tick):
        self.ticks.append(tick)

        def stop():
            self.stopped += 1

        return stop


def test_an_attempt_that_calls_no_model_does_not_say_it_calls_the_model():
    tally = ProgressTally()
    tally.update({"type": "chunk_start", "chunk_index": 0, "total_chunks": 2}, 0.0)
    for i in range(1, 5):
        tally.update({"type": "iteration", "chunk_index": 0, "iteration": i}, 0.0)
    assert "calling the model" not in tally.activity and tally.calls == 0
    tally.update({"type": "llm_request", "call": 1, "purpose": "generate"}, 0.0)
    assert tally.activity == "chunk 1/2: calling the model (call 1 for this chunk)"
    tally.update({"type": "llm_call", "prompt_tokens": 1, "completion_tokens": 1}, 0.0)
    assert tally.calls == 1


def test_the_call_number_shown_is_the_one_counted(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"a": 1}\n{"a": 2}\n')
    seen = []
    DataCleaner(
        FakeBackend(default=CLEAN_REPLY),
        str(data),
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        call_every_chunk=True,
        chunk_size=1,
        on_progress=seen.append,
    ).run()
    calls = [e for e in seen if e["type"] in ("llm_request", "llm_call")]
    assert [e["call"] for e in calls if e["type"] == "llm_request"] == [1, 2]
    assert [e["type"] for e in calls] == ["llm_request", "llm_call"] * 2


def test_a_retry_is_a_plain_line():
    out = io.StringIO()
    progress = LiveProgress(out, live=False, clock=Clock(), timer=Timers())
    progress({"type": "chunk_start", "chunk_index": 0, "total_chunks": 1, "records": 3})
    progress({"type": "llm_request", "call": 3, "purpose": "generate"})
    progress({"type": "llm_retry", "call": 3, "attempt": 1, "reason": "HTTP 429", "wait_s": 3.0})
    assert "HTTP 429, retrying in 3 s (call 3, attempt 1)" in out.getvalue()
    assert progress.tally.retries == 1


def test_a_heartbeat_while_the_model_is_slow_and_none_after_it_replied():
    out, clock, timers = io.StringIO(), Clock(), Timers()
    progress = LiveProgress(out, live=False, clock=clock, timer=timers, heartbeat=30)
    progress({"type": "chunk_start", "chunk_index": 0, "total_chunks": 1, "records": 3})
    progress({"type": "llm_request", "call": 3, "purpose": "generate"})
    (tick,) = timers.ticks
    clock.now = 10.0
    tick()
    assert "still waiting" not in out.getvalue()
    clock.now = 30.0
    tick()
    clock.now = 45.0
    tick()
    clock.now = 61.0
    tick()
    lines = [line for line in out.getvalue().splitlines() if "still waiting" in line]
    assert [line.split("] ")[1] for line in lines] == [
        "  still waiting for the model (call 3, 30 s)",
        "  still waiting for the model (call 3, 61 s)",
    ]
    progress({"type": "llm_call", "latency_ms": 61000.0})
    assert timers.stopped == 1
    clock.now = 200.0
    tick()
    assert len([ln for ln in out.getvalue().splitlines() if "still waiting" in ln]) == 2


def test_no_heartbeat_when_it_is_off():
    timers = Timers()
    progress = LiveProgress(io.StringIO(), live=False, clock=Clock(), timer=timers, heartbeat=None)
    progress({"type": "llm_request", "call": 1, "purpose": "generate"})
    assert timers.ticks == []


def test_a_failed_call_ends_the_heartbeat():
    timers = Timers()
    progress = LiveProgress(io.StringIO(), live=False, clock=Clock(), timer=timers)
    progress({"type": "llm_request", "call": 1, "purpose": "generate"})
    progress({"type": "llm_failed", "call": 1, "purpose": "generate", "error": "down"})
    assert timers.stopped == 1
