"""Dry run: find a chunk's issues (the library's profile and the model's list) without asking for
code."""

from __future__ import annotations

from typing import Any

from ..model.grammar import detect_reply
from ..model.prompt import build_detect_prompt, format_chunk
from ..model.response import parse_issues
from ..profiling.profiler import open_issues, profile_records
from .asking import visible
from .attempts import nothing_to_write
from .state import RunContext

__all__ = ["detect_issues", "profile_issues", "distinct_issues", "analyze_chunk"]

_EXAMPLES = 5


def profile_issues(records: list, expectations: dict, *, chunk_index: int) -> list[dict[str, Any]]:
    """The open issues the field profiler finds in ``records`` (no model call)."""
    dicts = [r for r in records if isinstance(r, dict)]
    if not dicts:
        return []
    return [
        {
            "field": p.field,
            "issue": p.issue or "",
            "count": p.n_offending,
            "offending": [str(v) for v in p.offending[:_EXAMPLES]],
            "chunk_index": chunk_index,
            "source": "profile",
        }
        for p in open_issues(profile_records(dicts, expectations))
    ]


def distinct_issues(issues: list[dict]) -> list[dict]:
    """One entry per field the profile flagged (counts summed over the chunks) and per distinct
    model text."""
    merged: dict[tuple, dict] = {}
    for item in issues:
        key = (
            ("field", item["field"])
            if item.get("field")
            else ("text", " ".join(str(item.get("issue", "")).split()))
        )
        if key not in merged:
            merged[key] = {**item, "offending": list(item.get("offending") or [])}
        elif isinstance(item.get("count"), int):
            merged[key]["count"] = (merged[key].get("count") or 0) + item["count"]
    return list(merged.values())


def detect_issues(ctx: RunContext, records: list, index: int) -> list[dict[str, Any]]:
    """The profile's issues (every field's: no call) plus the issues the model lists for this
    chunk, shown only the fields a function may change; one detection call, no code."""
    mode = ctx.options.mode
    found = (
        profile_issues(records, ctx.focus.expectations, chunk_index=index)
        if mode == "structured"
        else []
    )
    if nothing_to_write(ctx):
        return found  # the goals leave every field alone: nothing to ask the model about
    shown = format_chunk(
        visible(ctx, records), mode, max_chars=ctx.options.chunk_chars, view=ctx.options.chunk_view
    )
    prompt = build_detect_prompt(
        ctx.state.prefix, shown, mode=mode, records=len(records) if mode == "structured" else None
    )
    form = detect_reply().gbnf() if ctx.options.constrained else None
    reply = ctx.call(prompt, index, 1, purpose="detect", grammar=form)
    for issue in parse_issues(reply):
        found.append(
            {
                "field": None,
                "issue": issue.description,
                "count": None,
                "offending": [],
                "chunk_index": index,
                "source": "model",
            }
        )
    return found


def analyze_chunk(ctx: RunContext, records: list, index: int) -> str:
    """A dry run's chunk step: its issues (profile and model) kept and told, no code written."""
    issues = detect_issues(ctx, records, index)
    ctx.state.issues.extend(issues)
    ctx.emit("issues_detected", chunk_index=index, issues=issues)
    return "analyzed"
