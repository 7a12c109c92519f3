"""State file (atomic save, load, validation) and LLM calls with retries (no real sleeps)."""

from __future__ import annotations

import json
import os

import pytest

from recursive_cleaner.errors import LLMCallError, StateFileError
from recursive_cleaner.model.llm import LLMStats, call_llm
from recursive_cleaner.write.state import atomic_write_text, load_state, save_state
from tests.fakes import FakeBackend

STATE = {
    "file_path": "/d.jsonl",
    "instructions": "x",
    "chunk_size": 5,
    "last_completed_chunk": 2,
    "total_chunks": 4,
    "functions": [{"name": "f", "docstring": "d", "code": "def f(r):\n    return r"}],
}


def test_save_then_load_round_trip(tmp_path):
    p = tmp_path / "s.json"
    save_state(p, STATE)
    data = load_state(p)
    assert data["last_completed_chunk"] == 2 and data["functions"][0]["name"] == "f"
    assert data["version"].startswith("0.") and "timestamp" in data
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_atomic_write_keeps_old_file_when_write_fails(tmp_path, monkeypatch):
    p = tmp_path / "s.json"
    atomic_write_text(p, "old")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        atomic_write_text(p, "new")
    assert p.read_text() == "old"
    assert os.listdir(tmp_path) == ["s.json"]


def test_load_missing_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_state(tmp_path / "nope.json")


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[]",
        json.dumps({"version": "0.2.0"}),
        json.dumps({**STATE, "version": "9.0.0"}),
        json.dumps({**STATE, "version": "0.2.0", "functions": [{"name": 1}]}),
    ],
)
def test_load_invalid_raises_value_error(tmp_path, content):
    p = tmp_path / "s.json"
    p.write_text(content)
    with pytest.raises(ValueError):
        load_state(p)
    with pytest.raises(StateFileError):
        load_state(p)


def test_call_llm_retries_then_succeeds_without_sleeping():
    slept = []
    backend = FakeBackend(
        [ConnectionError("down"), TimeoutError("slow"), "ok"],
        usage={"prompt_tokens": 7, "completion_tokens": 3, "cached_tokens": 5},
    )
    reply = call_llm(backend, "p", attempts=3, sleep=slept.append)
    assert reply.text == "ok" and reply.attempts == 3
    assert (reply.prompt_tokens, reply.completion_tokens, reply.cached_tokens) == (7, 3, 5)
    assert len(slept) == 2 and all(s > 0 for s in slept)


def test_call_llm_gives_up_with_clear_error():
    backend = FakeBackend([ConnectionRefusedError("refused")] * 3)
    with pytest.raises(
        LLMCallError, match="after 3 attempt.*ConnectionRefusedError: refused"
    ) as info:
        call_llm(backend, "p", attempts=3, sleep=lambda s: None)
    assert info.value.attempts == 3
    assert isinstance(info.value.last_error, ConnectionRefusedError)


def test_call_llm_rejects_non_string_reply():
    class Weird:
        def generate(self, prompt):
            return None

    with pytest.raises(LLMCallError, match="expected str"):
        call_llm(Weird(), "p", attempts=2, sleep=lambda s: None)


def test_call_llm_measures_latency_with_injected_clock():
    ticks = iter([10.0, 10.25])
    reply = call_llm(FakeBackend(["x"]), "p", clock=lambda: next(ticks))
    assert reply.latency_ms == pytest.approx(250.0)


def test_stats_latency():
    s = LLMStats()
    assert s.latency_stats()["calls"] == 0
    for ms in (100.0, 300.0):
        s.latency_stats()
        s.latencies_ms.append(ms)
    assert s.latency_stats() == {
        "min_ms": 100.0,
        "max_ms": 300.0,
        "avg_ms": 200.0,
        "total_ms": 400.0,
        "calls": 2,
    }


def test_call_llm_does_not_retry_what_cannot_succeed():
    class TooLong(RuntimeError):
        retryable = False

    backend = FakeBackend([TooLong("prompt is 12099 tokens, context holds 8192")])
    with pytest.raises(LLMCallError, match="after 1 attempt.*12099 tokens") as info:
        call_llm(backend, "p", attempts=3, sleep=lambda s: None)
    assert info.value.attempts == 1 and backend.calls == 1
