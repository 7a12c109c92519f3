"""The backend protocol and the shapes of the values that flow through the cleaner."""

from __future__ import annotations

from typing import Any, Callable, Protocol, Union, runtime_checkable

__all__ = [
    "LLMBackend",
    "StructuredBackend",
    "GrammarBackend",
    "BackendLike",
    "ProgressCallback",
    "Event",
    "Record",
    "as_backend",
    "EVENT_TYPES",
]

Record = Union[dict, str]
"""One unit a generated function cleans: a dict (structured files) or a str (text mode)."""

Event = dict
"""A progress event: ``{"type": ..., **fields}``; see EVENT_TYPES."""

ProgressCallback = Callable[[Event], None]

EVENT_TYPES = (
    # fields {name: field spec}, scope: the reading of the goals the run works to (before chunk 1)
    "spec_ready",
    # chunk_index, total_chunks, records, functions (accepted so far, a resumed run's included)
    "chunk_start",
    # chunk_index, open_issues {field: values not conforming} (library's own check)
    "chunk_profile",
    "iteration",  # chunk_index, total_chunks, iteration
    "llm_request",  # call (the run's call number), purpose: a model call starts
    # call, purpose, attempt, reason (HTTP 429, timeout, ...), error, wait_s: before a retry's wait
    "llm_retry",
    "llm_failed",  # call, purpose, error: every attempt failed, or the call was interrupted
    "llm_call",  # chunk_index, iteration, latency_ms, prompt_tokens, completion_tokens, attempt
    "parse_error",  # chunk_index, iteration, error
    "not_clean",  # chunk_index, iteration, error: the model said clean but the profile disagrees
    "function_from_hint",  # chunk_index, iteration, field, function_name (no model call)
    # chunk_index, iteration, function_name, field, issues_before, issues_after
    "function_generated",
    # chunk_index, iteration, function_name, issues_before, issues_after (rich_context)
    "function_modified",
    "function_critiqued",  # function_name, score, decision, dimensions (reflection on)
    "validation_failed",  # chunk_index, iteration, function_name, error
    "record_skipped",  # path, line, reason (a malformed input line)
    # chunk_index, attempts, last_reply, open_issues, warned (max_iterations reached; goes on)
    "chunk_skipped",
    "chunk_done",  # chunk_index, total_chunks, status: clean | max_iterations | skipped
    "apply_progress",  # apply_file: records done so far
    "apply_warning",  # message, missing_fields: fields the functions read that the data lacks
    # apply_file / apply_records: final counts (records_in, records_out, dropped_duplicates, ...)
    "apply_complete",
    # steps (list of dicts), refused, source: "model" | "library" (after the last chunk)
    "cross_row_planned",
    # chunk_index, chunks_processed, reasoning: the model judged the patterns saturated
    "early_termination",
    "optimize_start",  # function_count (optimize=True, after the last chunk)
    "optimize_group",  # group, count
    "optimize_round",  # round, remaining_issues, group, complete, confidence, merged, refused
    "optimize_complete",  # original, final
    "issues_detected",  # chunk_index, issues (dry run)
    "dry_run_complete",  # issues, fields, llm_calls, tokens, latency_stats (dry run)
    "complete",  # functions, chunks, skipped_records, llm_calls, tokens, latency_stats, report_path
)


@runtime_checkable
class LLMBackend(Protocol):
    """Anything that turns a prompt into a reply.

    What it offers beyond ``generate`` it declares in ``capabilities`` (a set of names, read by
    ``model.capabilities``): ``usage`` — ``last_usage``, a dict with ``prompt_tokens`` and
    ``completion_tokens`` for its latest call, which the cleaner then counts.
    """

    def generate(self, prompt: str) -> str: ...


@runtime_checkable
class StructuredBackend(Protocol):
    """A backend that can also hold its reply to a JSON schema (constrained decoding).

    Optional: the library uses ``generate_json`` for short form-filling calls (the spec draft)
    when a backend declares the capability ``json`` — the embedded llama.cpp model (a grammar
    from the schema), servers that accept ``response_format`` — and ``generate`` with the same
    prompt otherwise.
    """

    def generate_json(self, prompt: str, schema: dict) -> str: ...


@runtime_checkable
class GrammarBackend(Protocol):
    """A backend that can hold its reply to a llama.cpp GBNF grammar (constrained decoding).

    Optional: the cleaner sends the grammar of each reply form (``model.grammar``) with its calls
    when ``constrained=True`` (the default) and the backend declares ``grammar`` — the embedded
    model, and llama.cpp servers through ``openai:MODEL@URL`` (``grammar`` in the request; a
    server that refuses it gets the plain prompt from then on).
    """

    def generate_grammar(self, prompt: str, grammar: str) -> str: ...


BackendLike = Union[LLMBackend, Callable[[str], str]]


class _CallableBackend:
    """Adapts a plain ``fn(prompt) -> str`` to the LLMBackend protocol."""

    def __init__(self, fn: Callable[[str], str]) -> None:
        self._fn = fn
        self.last_usage: dict[str, Any] | None = None

    def generate(self, prompt: str) -> str:
        return self._fn(prompt)

    def __repr__(self) -> str:
        return f"CallableBackend({self._fn!r})"


def as_backend(backend: BackendLike) -> LLMBackend:
    """Return ``backend`` as an LLMBackend: objects with ``generate`` pass through, callables are
    wrapped."""
    if hasattr(backend, "generate") and callable(getattr(backend, "generate")):
        return backend  # type: ignore[return-value]
    if callable(backend):
        return _CallableBackend(backend)
    raise TypeError(
        "llm_backend must have a generate(prompt) -> str method or be a callable, got "
        f"{type(backend).__name__}"
    )
