"""Declared capabilities, and the run's one ModelClient (Retry, stats) in every stage that calls."""

from __future__ import annotations

import dataclasses
import json

import pytest

from backends.errors import BackendHTTPError

from recursive_cleaner import DataCleaner
from recursive_cleaner.errors import LLMCallError
from recursive_cleaner.judge.gate import Gate
from recursive_cleaner.judge.verdict import ChunkView, Verdict
from recursive_cleaner.judge.reflection import ReflectionConfig, critique
from recursive_cleaner.model.capabilities import GRAMMAR, JSON, USAGE, capabilities_of
from recursive_cleaner.model.client import ModelClient, Retry, as_client, retry_reason
from recursive_cleaner.model.llm import LLMStats, call_llm
from recursive_cleaner.optimizer import consolidate_with_agency
from recursive_cleaner.optimizer.saturation import SaturationWatch, check_saturation
from recursive_cleaner.profiling.focus import FieldFocus
from tests.fakes import (
    CLEAN_REPLY,
    FakeBackend,
    GrammarFakeBackend,
    StructuredFakeBackend,
    make_reply,
)
from tests.optimizer.test_consolidation import GOOD, LOWER, RECORDS, STRIP, reply

SATURATED = (
    "<saturation_check><assessment><saturated>true</saturated>"
    "<reasoning>nothing new</reasoning><recommendation>stop</recommendation></assessment>"
    "</saturation_check>"
)


class Undeclared:
    """Has the methods but declares nothing: a plain generate(prompt) backend."""

    def __init__(self) -> None:
        self.used: list[str] = []
        self.last_usage = {"prompt_tokens": 5, "completion_tokens": 1}

    def generate(self, prompt: str) -> str:
        self.used.append("generate")
        return "plain"

    def generate_grammar(self, prompt: str, grammar: str) -> str:
        self.used.append("grammar")
        return "held"

    def generate_json(self, prompt: str, schema: dict) -> str:
        self.used.append("json")
        return "{}"


# --- capabilities -------------------------------------------------------------------------------


def test_the_fakes_declare_their_capabilities() -> None:
    assert capabilities_of(FakeBackend()) == {USAGE}
    assert capabilities_of(GrammarFakeBackend()) == {GRAMMAR, USAGE}
    assert capabilities_of(StructuredFakeBackend()) == {JSON, USAGE}
    assert capabilities_of(lambda prompt: "x") == frozenset() == capabilities_of(Undeclared())


def test_what_is_not_declared_is_not_used() -> None:
    plain = Undeclared()
    reply = call_llm(plain, "p", grammar='root ::= "x"', schema={"type": "object"})
    assert plain.used == ["generate"] and reply.text == "plain"
    assert reply.prompt_tokens is None  # last_usage is read only where "usage" is declared
    declared = Undeclared()
    declared.capabilities = frozenset({GRAMMAR, JSON, USAGE})  # type: ignore[attr-defined]
    assert call_llm(declared, "p", grammar="g").text == "held"
    assert call_llm(declared, "p", schema={}).text == "{}"
    assert call_llm(declared, "p").prompt_tokens == 5
    assert declared.used == ["grammar", "json", "generate"]


def test_a_declared_capability_without_its_method_is_a_clear_error() -> None:
    class Liar(FakeBackend):
        capabilities = frozenset({"grammar"})

    with pytest.raises(TypeError, match="capability 'grammar' but has no generate_grammar"):
        ModelClient(Liar())
    with pytest.raises(TypeError, match="set of names"):
        capabilities_of(type("Odd", (), {"capabilities": "grammar"})())


def test_an_unknown_capability_is_kept_for_whoever_reads_it() -> None:
    backend = FakeBackend()
    backend.capabilities = frozenset({"usage", "vision"})  # type: ignore[misc]
    assert ModelClient(backend).can("vision") and not ModelClient(backend).can("grammar")


# --- the client and its retry policy ------------------------------------------------------------


def test_retry_is_a_value_and_the_client_reads_its_policy() -> None:
    slept: list[float] = []
    retry = Retry(attempts=2, sleep=slept.append, wait_min=0.5, wait_max=0.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        retry.attempts = 5  # type: ignore[misc]
    client = ModelClient(FakeBackend([RuntimeError("down"), "ok"]), retry=retry)
    assert client.call("p") == "ok" and slept == [0.5]
    assert (client.attempts, client.sleep) == (2, slept.append)
    assert client.stats.calls == 1 and client.stats.failed_attempts == 1
    shorthand = ModelClient(FakeBackend(), attempts=4, sleep=slept.append)
    assert shorthand.retry == Retry(4, slept.append)
    with pytest.raises(TypeError):
        ModelClient(FakeBackend(), retry=retry, attempts=3)


def test_as_client_keeps_a_client_and_wraps_a_backend_or_a_function() -> None:
    client = ModelClient(FakeBackend(["x"]))
    assert as_client(client, stats=LLMStats(), attempts=9) is client
    stats = LLMStats()
    wrapped = as_client(lambda prompt: "from a function", stats=stats, attempts=2)
    assert wrapped.call("p", "reflection") == "from a function"
    assert stats.calls == 1 and wrapped.attempts == 2


def _client(backend: FakeBackend) -> tuple[ModelClient, list[str], list[float]]:
    purposes: list[str] = []
    slept: list[float] = []
    client = ModelClient(
        backend,
        retry=Retry(attempts=2, sleep=slept.append),
        on_call=lambda reply, purpose: purposes.append(purpose),
    )
    return client, purposes, slept


def test_consolidation_calls_through_the_runs_client() -> None:
    merge = reply([("clean_email", ["strip_email", "lower_email"], GOOD)])
    client, purposes, slept = _client(FakeBackend([RuntimeError("blip"), merge]))
    result = consolidate_with_agency([STRIP, LOWER], client, records=RECORDS)
    assert [f["name"] for f in result] == ["clean_email"]
    assert purposes == ["consolidation"] and len(slept) == 1 and client.stats.failed_attempts == 1


def test_consolidation_still_takes_a_plain_backend() -> None:
    stats = LLMStats()
    backend = FakeBackend([reply([("clean_email", ["strip_email", "lower_email"], GOOD)])])
    result = consolidate_with_agency(
        [STRIP, LOWER], backend, records=RECORDS, stats=stats, sleep=lambda s: None
    )
    assert [f["name"] for f in result] == ["clean_email"] and stats.calls == 1 == result.calls


def test_saturation_calls_through_the_runs_client() -> None:
    client, purposes, _ = _client(FakeBackend([SATURATED]))
    assert check_saturation(client, [STRIP], ["chunk 1: clean, 0 new function(s)"]).should_stop
    watch = SaturationWatch(1, enabled=True)
    watch.record("clean", 0)
    client.backend = FakeBackend([SATURATED])
    assert watch.should_stop(client, [STRIP]) and purposes == ["saturation", "saturation"]


def test_reflection_calls_through_the_runs_client() -> None:
    answer = "<correctness>1</correctness>"
    client, purposes, _ = _client(FakeBackend([RuntimeError("blip"), answer]))
    code, model = "def keep(record):\n    return dict(record)\n", ReflectionConfig(mode="model")
    result = critique(code, "keep", [{"a": 1}], config=model, backend=client)
    assert purposes == ["reflection"] and client.stats.failed_attempts == 1
    assert "correctness" in result.dimensions
    down = ModelClient(FakeBackend([RuntimeError("down")] * 2), retry=Retry(2, lambda s: None))
    fell_back = critique(code, "keep", [{"a": 1}], config=model, backend=down)
    assert "critique call failed" in fell_back.evidence["model"] and down.stats.calls == 0


def test_a_run_counts_every_stages_calls_in_its_stats(tmp_path) -> None:
    """Generation, reflection, saturation, consolidation: one client, one count, an event a call."""
    rows = [{"id": i, "email": f"  USER{i}@X.COM "} for i in range(12)]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    lower = (
        "def lower_email(record):\n    out = {}\n    for key, value in record.items():\n"
        "        text = key == 'email' and isinstance(value, str)\n"
        "        out[key] = value.lower() if text else value\n"
        "    return out"
    )
    generated = [make_reply("strip_email", STRIP["code"]), make_reply("lower_email", lower)]

    def handler(prompt: str) -> str:
        low = prompt.lower()
        if "<merged_functions>" in prompt:
            return reply([("clean_email", ["strip_email", "lower_email"], GOOD)])
        if "<saturation_check>" in prompt:
            return SATURATED
        if "<correctness>" in prompt:
            return "<correctness>1</correctness>"
        return generated.pop(0) if generated and "saturat" not in low else CLEAN_REPLY

    backend, events = FakeBackend(handler), []
    result = DataCleaner(
        backend,
        str(path),
        instructions="Emails lower case, no spaces.",
        chunk_size=3,
        holdout_ratio=0.0,
        profile_fields=False,
        reflection="model",
        optimize=True,
        optimize_threshold=2,
        early_termination=True,
        saturation_check_interval=2,
        on_progress=events.append,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    calls = [e["purpose"] for e in events if e["type"] == "llm_call"]
    assert len(calls) == backend.calls == result.llm["calls"]
    assert {"generate", "reflection", "saturation", "consolidation"} <= set(calls), calls


# --- the gate's view of a chunk -----------------------------------------------------------------


def test_the_gate_takes_an_immutable_view_of_each_chunk() -> None:
    view = ChunkView([{"a": 1}], [{"a": 2}], raw=[{"a": " 1"}], raw_hidden=[{"a": " 2"}])
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.hidden = []  # type: ignore[misc]
    gate = Gate(FieldFocus())
    gate.see(view)
    assert (gate.hidden, gate.raw, gate.raw_hidden) == ([{"a": 2}], [{"a": " 1"}], [{"a": " 2"}])
    gate.advance(Verdict(None, outputs=[{"a": 10}], hidden_outputs=[{"a": 20}]))
    assert gate.chunk == ChunkView([{"a": 10}], [{"a": 20}], [{"a": " 1"}], [{"a": " 2"}])
    gate.advance(Verdict(None))  # no outputs (validation off): the chunk stays as it was
    assert gate.chunk.visible == [{"a": 10}] and gate.hidden == [{"a": 20}]
    assert view.visible == [{"a": 1}]  # the view handed in is unchanged
    with pytest.raises(AttributeError):
        gate.hidden = []  # type: ignore[misc]


def test_a_failed_call_is_one_llm_call_error_after_the_policys_attempts() -> None:
    client = ModelClient(
        FakeBackend([RuntimeError("a"), RuntimeError("b"), RuntimeError("c")]),
        retry=Retry(3, lambda s: None),
    )
    with pytest.raises(LLMCallError, match="after 3 attempt"):
        client.call("p")


# ---------------------------------------------------------------- issue 31: events, call log
def _watched(backend, events, log=None, attempts=3):
    waits = []
    client = ModelClient(
        backend,
        attempts=attempts,
        sleep=waits.append,
        on_event=lambda kind, **f: events.append({"type": kind, **f}),
        call_log=log.append if log is not None else None,
        clock=iter(range(0, 1000, 2)).__next__,
    )
    return client, waits


def test_a_retry_is_an_event_with_its_reason_and_wait():
    busy = BackendHTTPError("HTTP 429 from http://127.0.0.1:9/v1: busy", 429, retry_after=3)
    events = []
    client, waits = _watched(FakeBackend([busy, "ok"]), events)
    assert client.call("p", "generate") == "ok"
    assert [e["type"] for e in events] == ["llm_request", "llm_retry"]
    retry = events[1]
    assert retry["reason"] == "HTTP 429" and retry["wait_s"] == 3.0 and retry["attempt"] == 1
    assert retry["call"] == events[0]["call"] == 1 and waits == [3.0]


def test_the_call_log_gets_every_call_a_failed_one_too():
    log, events = [], []
    client, _ = _watched(FakeBackend(["first", RuntimeError("down")]), events, log, attempts=1)
    client.call("prompt one", "generate")
    with pytest.raises(LLMCallError):
        client.call("prompt two", "saturation")
    assert [e["call"] for e in events if e["type"] == "llm_request"] == [1, 2]
    assert events[-1]["type"] == "llm_failed" and events[-1]["call"] == 2
    assert log[0]["prompt"] == "prompt one" and log[0]["reply"] == "first"
    assert log[0]["attempt"] == 1 and log[0]["error"] is None and log[0]["seconds"] == 2
    assert log[1]["purpose"] == "saturation" and log[1]["reply"] is None
    assert "down" in log[1]["error"]


def test_retry_reasons_are_short():
    assert retry_reason(BackendHTTPError("x", 503)) == "HTTP 503"
    assert retry_reason(TimeoutError("read")) == "timeout"
    assert retry_reason(ValueError("x")) == "ValueError"


def test_an_interrupted_call_is_over_for_its_watchers():
    events = []
    client, _ = _watched(FakeBackend([KeyboardInterrupt()]), events)
    with pytest.raises(KeyboardInterrupt):
        client.call("p")
    assert [e["type"] for e in events] == ["llm_request", "llm_failed"]
    assert events[-1]["error"] == "interrupted"
