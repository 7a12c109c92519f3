"""One model client: the backend, its retry policy (sleep injectable), the counts of every call."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from ..errors import LLMCallError, clip_text
from ..types import BackendLike, LLMBackend, as_backend
from .capabilities import capabilities_of
from .llm import LLMReply, LLMStats, call_llm

__all__ = ["ModelClient", "Retry", "as_client", "retry_reason"]


def retry_reason(error: BaseException) -> str:
    """A failed attempt in a few words: ``HTTP 429``, ``timeout``, else the error's type."""
    status = getattr(error, "status", None)
    if isinstance(status, int) and not isinstance(status, bool):
        return f"HTTP {status}"
    if isinstance(error, TimeoutError) or "timed out" in str(error).lower():
        return "timeout"
    return type(error).__name__


@dataclass(frozen=True)
class Retry:
    """How a failed call is tried again: ``attempts`` in all, backoff waits, ``sleep`` to wait."""

    attempts: int = 3
    sleep: Callable[[float], None] = time.sleep
    wait_min: float = 1.0
    wait_max: float = 10.0


class ModelClient:
    """How a run calls the model: ``call(prompt, purpose)`` retries (``retry``), counts (``stats``).

    Every stage that calls the model (the loop, reflection, consolidation, saturation) is given
    the run's one client, so each call is retried alike and counted in the run's stats.
    ``attempts`` / ``sleep`` are shorthand for ``retry=Retry(attempts, sleep)``; ``stats`` shares
    an existing LLMStats (else a new one, whose ``on_add`` is ``on_call``). ``on_event(kind,
    **fields)`` hears ``llm_request`` (call, purpose) before a call and ``llm_retry`` (call,
    attempt, reason, error, wait_s) before each retry's wait and ``llm_failed`` (call, purpose,
    error) when it gave up or was interrupted; ``call_log(entry)`` gets every call
    (purpose, prompt, reply, tokens, seconds, attempt, error), a failed one too.
    """

    def __init__(
        self,
        backend: LLMBackend,
        *,
        retry: Retry | None = None,
        attempts: int | None = None,
        sleep: Callable[[float], None] | None = None,
        on_call: Callable[[LLMReply, str], None] | None = None,
        stats: LLMStats | None = None,
        on_event: Callable[..., None] | None = None,
        call_log: Callable[[dict], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if retry is not None and (attempts is not None or sleep is not None):
            raise TypeError("give retry=Retry(...) or attempts/sleep, not both")
        if stats is not None and on_call is not None:
            raise TypeError("on_call belongs to a new LLMStats: give stats or on_call, not both")
        capabilities_of(backend)  # a declared method it lacks is a TypeError now, not at a call
        self.backend = backend
        self.retry = retry or Retry(
            **{k: v for k, v in (("attempts", attempts), ("sleep", sleep)) if v is not None}
        )
        self.stats = stats if stats is not None else LLMStats(on_add=on_call)
        self.on_event, self.call_log, self.clock = on_event, call_log, clock

    def _tell(self, kind: str, **fields: Any) -> None:
        if self.on_event is not None:
            self.on_event(kind, **fields)

    @property
    def capabilities(self) -> frozenset[str]:
        """What the backend declares beyond ``generate`` (``model.capabilities``)."""
        return capabilities_of(self.backend)

    @property
    def attempts(self) -> int:
        """How many times a call is tried (``retry.attempts``)."""
        return self.retry.attempts

    @property
    def sleep(self) -> Callable[[float], None]:
        """How the client waits between attempts (``retry.sleep``)."""
        return self.retry.sleep

    def can(self, capability: str) -> bool:
        """True when the backend declares ``capability`` (``model.capabilities``: grammar, json)."""
        return capability in self.capabilities

    def call(
        self,
        prompt: str,
        purpose: str = "generate",
        *,
        schema: dict | None = None,
        grammar: str | None = None,
    ) -> str:
        """The reply's text (held to ``grammar`` or ``schema`` where the backend can).

        LLMCallError once every attempt failed.
        """
        retry, number, started = self.retry, self.stats.calls + 1, self.clock()
        self._tell("llm_request", call=number, purpose=purpose)

        def retried(attempt: int, error: BaseException, wait: float) -> None:
            self._tell(
                "llm_retry",
                call=number,
                purpose=purpose,
                attempt=attempt,
                reason=retry_reason(error),
                error=clip_text(str(error), 300),
                wait_s=round(wait, 1),
            )

        try:
            reply = call_llm(
                self.backend,
                prompt,
                attempts=retry.attempts,
                wait_min=retry.wait_min,
                wait_max=retry.wait_max,
                sleep=retry.sleep,
                schema=schema,
                grammar=grammar,
                on_retry=retried,
            )
        except LLMCallError as exc:
            self._log(purpose, prompt, None, started, exc.attempts, str(exc))
            self._tell("llm_failed", call=number, purpose=purpose, error=clip_text(str(exc), 300))
            raise
        except BaseException:  # Ctrl-C during the call: the watchers hear the call is over
            self._tell("llm_failed", call=number, purpose=purpose, error="interrupted")
            raise
        self.stats.add(reply, purpose)
        self._log(purpose, prompt, reply, started, reply.attempts, None)
        return reply.text

    def _log(
        self,
        purpose: str,
        prompt: str,
        reply: LLMReply | None,
        started: float,
        attempts: int,
        error: str | None,
    ) -> None:
        if self.call_log is None:
            return
        self.call_log(
            {
                "purpose": purpose,
                "prompt": prompt,
                "reply": reply.text if reply else None,
                "prompt_tokens": reply.prompt_tokens if reply else None,
                "completion_tokens": reply.completion_tokens if reply else None,
                "seconds": round(self.clock() - started, 3),
                "attempt": attempts,
                "error": error,
            }
        )


def as_client(
    model: ModelClient | BackendLike,
    *,
    stats: LLMStats | None = None,
    attempts: int = 3,
    sleep: Callable[[float], None] = time.sleep,
) -> ModelClient:
    """``model`` itself when it is a ModelClient, else a client for the backend (or callable).

    For the stages' public functions that still take a plain backend with ``stats``, ``attempts``
    and ``sleep`` (the contract's ``consolidate_with_agency(functions, backend)``); a client
    given keeps its own retry policy and stats.
    """
    if isinstance(model, ModelClient):
        return model
    return ModelClient(as_backend(model), retry=Retry(attempts=attempts, sleep=sleep), stats=stats)
