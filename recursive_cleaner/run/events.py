"""The run's hooks as progress events: every counted model call, every skipped input line."""

from __future__ import annotations

import logging

from ..model.llm import LLMReply
from ..read.rows import SkippedRecord
from .state import RunContext

__all__ = ["MAX_SKIPS_KEPT", "llm_call_event", "record_skip"]

log = logging.getLogger("recursive_cleaner")
MAX_SKIPS_KEPT = 100  # skipped lines the result lists; all are counted


def llm_call_event(ctx: RunContext, reply: LLMReply, purpose: str) -> None:
    """Every counted model call, also those of saturation, reflection and consolidation, is an
    event."""
    ctx.emit(
        "llm_call",
        **ctx.where,
        purpose=purpose or "generate",
        latency_ms=round(reply.latency_ms, 1),
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        cached_tokens=reply.cached_tokens,
        attempts=reply.attempts,
    )


def record_skip(ctx: RunContext, skipped: SkippedRecord, chunk_index: int) -> None:
    """A malformed input line: counted, kept (the first ``MAX_SKIPS_KEPT``), logged and told."""
    state = ctx.state
    if chunk_index <= state.last_completed_chunk:
        return  # reported in the run that processed this chunk
    state.skip_count += 1
    if len(state.skipped) < MAX_SKIPS_KEPT:
        state.skipped.append(skipped)
    log.warning("%s:%d: skipped: %s", skipped.path, skipped.line, skipped.reason)
    ctx.emit("record_skipped", path=skipped.path, line=skipped.line, reason=skipped.reason)
