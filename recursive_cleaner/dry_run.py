"""Dry run: find a chunk's issues (the library's profile and the model's list) without asking for code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .profiler import open_issues, profile_records
from .prompt import build_detect_prompt, format_chunk
from .response import parse_issues

if TYPE_CHECKING:  # pragma: no cover
    from .cleaner import DataCleaner

__all__ = ["detect_issues", "profile_issues"]

_EXAMPLES = 5


def profile_issues(records: list, expectations: dict, *, chunk_index: int) -> list[dict[str, Any]]:
    """The open issues the field profiler finds in ``records`` (no model call)."""
    dicts = [r for r in records if isinstance(r, dict)]
    if not dicts:
        return []
    return [{"field": p.field, "issue": p.issue or "", "count": p.n_offending,
             "offending": [str(v) for v in p.offending[:_EXAMPLES]], "chunk_index": chunk_index,
             "source": "profile"}
            for p in open_issues(profile_records(dicts, expectations))]


def detect_issues(cleaner: "DataCleaner", records: list, index: int) -> list[dict[str, Any]]:
    """The profile's issues plus the issues the model lists for this chunk; one detection call, no code."""
    found = profile_issues(records, cleaner.focus.expectations, chunk_index=index) \
        if cleaner.mode == "structured" else []
    shown = format_chunk(records, cleaner.mode, max_chars=cleaner.chunk_chars)
    prompt = build_detect_prompt(cleaner._prefix, shown, mode=cleaner.mode,
                                 records=len(records) if cleaner.mode == "structured" else None)
    reply = cleaner._call(prompt, index, 1, purpose="detect")
    for issue in parse_issues(reply):
        found.append({"field": None, "issue": issue.description, "count": None, "offending": [],
                      "chunk_index": index, "source": "model"})
    return found
