"""A DataCleaner's progress as a state-file dict, and back (the file itself is written by ``state``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import StateFileError
from .llm import LLMStats
from .state import load_state

if TYPE_CHECKING:  # pragma: no cover
    from .cleaner import DataCleaner

__all__ = ["snapshot", "restore", "load_matching_state", "FUNCTION_KEYS"]

FUNCTION_KEYS = ("name", "docstring", "code")
_FUNCTION_EXTRAS = ("field", "issue", "issues_before", "issues_after", "chunk_index")


def snapshot(cleaner: "DataCleaner") -> dict[str, Any]:
    """Everything needed to resume: the contract fields first, then the run's options."""
    return {
        "file_path": os.path.abspath(cleaner.file_path),
        "instructions": cleaner.instructions,
        "chunk_size": cleaner.chunk_size,
        "last_completed_chunk": cleaner.last_completed_chunk,
        "total_chunks": cleaner.total_chunks,
        "functions": cleaner.functions,
        "skipped_records": cleaner._skip_count,
        "rejected": [list(r) for r in cleaner._rejected[-200:]],
        "issues": cleaner._issues[-500:],
        "llm": cleaner.stats.to_dict(),
        "options": cleaner.options(),
        "early_termination": {**cleaner.watch.to_dict(), "idle_chunks": cleaner._idle_chunks},
    }


def restore(cleaner: "DataCleaner", state: dict[str, Any]) -> None:
    """Put a snapshot back into ``cleaner`` (functions, progress, counters)."""
    cleaner.functions = [{k: f[k] for k in FUNCTION_KEYS + _FUNCTION_EXTRAS if k in f} for f in state["functions"]]
    cleaner.last_completed_chunk = state["last_completed_chunk"]
    cleaner.total_chunks = state.get("total_chunks", 0)
    cleaner._skip_count = state.get("skipped_records", 0)
    cleaner._rejected = [tuple(r) for r in state.get("rejected", [])]
    cleaner._issues = list(state.get("issues", []))
    progress = state.get("early_termination")
    if isinstance(progress, dict):
        cleaner.watch.load(progress)
        cleaner._idle_chunks = int(progress.get("idle_chunks", 0) or 0)
    llm = state.get("llm", {})
    cleaner.stats = LLMStats(calls=llm.get("calls", 0), failed_attempts=llm.get("failed_attempts", 0),
                             prompt_tokens=llm.get("prompt_tokens", 0),
                             completion_tokens=llm.get("completion_tokens", 0),
                             cached_tokens=llm.get("cached_tokens", 0), on_add=cleaner.stats.on_add)


def load_matching_state(cleaner: "DataCleaner") -> int | None:
    """Continue from the state file when it exists and belongs to this job; the chunk resumed after."""
    if cleaner.last_completed_chunk < 0 and cleaner.state_file and Path(cleaner.state_file).exists():
        state = load_state(cleaner.state_file)
        same_file = os.path.abspath(state["file_path"]) == os.path.abspath(cleaner.file_path)
        if not same_file or state["chunk_size"] != cleaner.chunk_size:
            raise StateFileError(
                f"state file {cleaner.state_file} belongs to {state['file_path']} with chunk_size "
                f"{state['chunk_size']}; delete it or pass another state_file"
            )
        restore(cleaner, state)
    return cleaner.last_completed_chunk if cleaner.last_completed_chunk >= 0 else None
