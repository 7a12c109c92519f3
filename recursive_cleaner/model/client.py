"""One model client: the backend, retries with the injected sleep, and the counts of every call."""

from __future__ import annotations

import time
from typing import Callable

from ..types import LLMBackend
from .llm import LLMReply, LLMStats, call_llm

__all__ = ["ModelClient"]


class ModelClient:
    """How a run calls the model: ``call(prompt, purpose)`` retries (``attempts``, ``sleep``) and counts in ``stats``.

    Stages that make calls of their own (reflection, consolidation, saturation) take
    ``backend``, ``stats``, ``sleep`` and ``attempts`` from here, so a run has one set of them.
    """

    def __init__(self, backend: LLMBackend, *, attempts: int = 3, sleep: Callable[[float], None] = time.sleep,
                 on_call: Callable[[LLMReply, str], None] | None = None) -> None:
        self.backend, self.attempts, self.sleep = backend, attempts, sleep
        self.stats = LLMStats(on_add=on_call)

    def call(self, prompt: str, purpose: str = "generate", *, schema: dict | None = None,
             grammar: str | None = None) -> str:
        """The reply's text (held to ``grammar`` or ``schema`` where the backend can); LLMCallError once every attempt failed."""
        reply = call_llm(self.backend, prompt, attempts=self.attempts, sleep=self.sleep, schema=schema, grammar=grammar)
        self.stats.add(reply, purpose)
        return reply.text
