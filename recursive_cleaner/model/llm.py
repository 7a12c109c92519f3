"""Calling the backend: retries with tenacity, and counting calls, tokens and latency."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from tenacity import RetryError, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from ..errors import LLMCallError
from ..types import LLMBackend
from .capabilities import GRAMMAR, JSON, USAGE, capabilities_of

__all__ = ["LLMReply", "LLMStats", "call_llm", "RETRY_AFTER_MAX"]

RETRY_AFTER_MAX = 60.0
"""The longest wait a server's Retry-After may ask for; a longer one waits this long."""


@dataclass
class LLMReply:
    """One successful call: the text and what it cost."""

    text: str
    latency_ms: float
    attempts: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None


@dataclass
class LLMStats:
    """Running totals over a run; ``on_add(reply, purpose)``, when set, hears of every call
    counted."""

    calls: int = 0
    failed_attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    on_add: Callable[[LLMReply, str], None] | None = field(default=None, repr=False, compare=False)

    def add(self, reply: LLMReply, purpose: str = "") -> None:
        """Count one call; ``purpose`` (e.g. "saturation") is passed on to ``on_add``."""
        self.calls += 1
        self.failed_attempts += reply.attempts - 1
        self.prompt_tokens += reply.prompt_tokens or 0
        self.completion_tokens += reply.completion_tokens or 0
        self.cached_tokens += reply.cached_tokens or 0
        self.latencies_ms.append(reply.latency_ms)
        if self.on_add is not None:
            self.on_add(reply, purpose)

    def latency_stats(self) -> dict[str, float]:
        """min/max/avg/total latency in milliseconds (zeros before the first call)."""
        lat = self.latencies_ms
        if not lat:
            return {"min_ms": 0.0, "max_ms": 0.0, "avg_ms": 0.0, "total_ms": 0.0, "calls": 0}
        total = sum(lat)
        return {
            "min_ms": round(min(lat), 1),
            "max_ms": round(max(lat), 1),
            "avg_ms": round(total / len(lat), 1),
            "total_ms": round(total, 1),
            "calls": len(lat),
        }

    def to_dict(self) -> dict:
        return {
            "calls": self.calls,
            "failed_attempts": self.failed_attempts,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "latency": self.latency_stats(),
        }


def _usage_of(backend: LLMBackend, can: frozenset[str]) -> tuple[int | None, ...]:
    """prompt, completion and cached (reused from the server's prompt cache) tokens, where
    reported."""
    usage = backend.last_usage if USAGE in can else None  # type: ignore[attr-defined]
    if not isinstance(usage, dict):
        return None, None, None
    return tuple(  # type: ignore[return-value]
        v if isinstance(v, int) else None
        for v in (
            usage.get("prompt_tokens"),
            usage.get("completion_tokens"),
            usage.get("cached_tokens"),
        )
    )


def _server_wait_or(backoff: Callable[[Any], float]) -> Callable[[Any], float]:
    """Tenacity's wait: the failure's ``retry_after`` (capped at RETRY_AFTER_MAX) when it has one,
    else ``backoff``."""

    def wait(retry_state: Any) -> float:
        asked = getattr(retry_state.outcome.exception(), "retry_after", None)
        if isinstance(asked, (int, float)) and not isinstance(asked, bool) and asked >= 0:
            return min(float(asked), RETRY_AFTER_MAX)
        return backoff(retry_state)

    return wait


def call_llm(
    backend: LLMBackend,
    prompt: str,
    *,
    attempts: int = 3,
    wait_min: float = 1.0,
    wait_max: float = 10.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.perf_counter,
    schema: dict | None = None,
    grammar: str | None = None,
    on_retry: Callable[[int, BaseException, float], None] | None = None,
) -> LLMReply:
    """Call ``backend.generate(prompt)`` with exponential backoff.

    With a ``grammar`` (llama.cpp GBNF) a backend that declares the capability ``grammar`` holds
    its reply to it (``generate_grammar``); with a ``schema``, one that declares ``json`` holds it
    to the JSON schema (``generate_json``); any other backend gets the same prompt through
    ``generate``. Tokens are counted from ``last_usage`` where the backend declares ``usage``.

    Raises LLMCallError, carrying the attempt count and the last exception, when every
    attempt failed or the backend returned something other than a str. An exception with
    ``retryable = False`` (e.g. a prompt too long for the context, HTTP 401) is not retried; one
    with a ``retry_after`` (a server's Retry-After) waits that long, at most RETRY_AFTER_MAX
    seconds, instead of the backoff. Ctrl-C (KeyboardInterrupt) propagates at once, unwrapped.
    ``on_retry(attempt, error, wait_seconds)`` hears of each failed attempt before the wait.
    """
    retrying = Retrying(
        stop=stop_after_attempt(max(1, attempts)),
        wait=_server_wait_or(wait_exponential(min=wait_min, max=wait_max)),
        sleep=sleep,
        # Ctrl-C (KeyboardInterrupt) and other BaseExceptions are never retried: they propagate as
        # they are.
        retry=retry_if_exception(
            lambda exc: isinstance(exc, Exception) and getattr(exc, "retryable", True)
        ),
        reraise=False,
        before_sleep=(
            None
            if on_retry is None
            else lambda rs: on_retry(
                rs.attempt_number, rs.outcome.exception(), float(rs.next_action.sleep)
            )
        ),
    )
    tries = 0
    can = capabilities_of(backend)

    def once() -> tuple[str, float]:
        nonlocal tries
        tries += 1
        start = clock()
        if grammar is not None and GRAMMAR in can:
            text = backend.generate_grammar(prompt, grammar)  # type: ignore[attr-defined]
        elif schema is not None and JSON in can:
            text = backend.generate_json(prompt, schema)  # type: ignore[attr-defined]
        else:
            text = backend.generate(prompt)
        elapsed = (clock() - start) * 1000.0
        if not isinstance(text, str):
            raise TypeError(f"backend returned {type(text).__name__}, expected str")
        return text, elapsed

    try:
        text, elapsed = retrying(once)
    except (RetryError, Exception) as exc:
        last = exc.last_attempt.exception() if isinstance(exc, RetryError) else exc
        raise LLMCallError(
            f"LLM backend failed after {tries} attempt(s): {type(last).__name__}: {last}",
            attempts=tries,
            last_error=last,
        ) from last
    p, c, cached = _usage_of(backend, can)
    return LLMReply(
        text=text,
        latency_ms=elapsed,
        attempts=tries,
        prompt_tokens=p,
        completion_tokens=c,
        cached_tokens=cached,
    )
