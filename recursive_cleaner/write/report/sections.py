"""The report's sections after its summary, one function per topic, each a list of markdown lines
([] when it has nothing to say): the functions (or, in a dry run, the issues), rejected functions,
fields left dirty, the model's usage, the judgement, skipped records, the applied run and the
cross-row steps (``report.render_report`` puts them together)."""

from __future__ import annotations

import inspect

from ...escape import md_code, md_lines, md_text
from ..metrics import pct
from .data import (
    ReportData,
    short_text,
    code_cell,
    example_cell,
    field_cell,
    num_text,
    issue_groups,
    change_text,
    MAX_REJECTED,
    REASON_CHARS,
    MAX_EXAMPLES,
    MAX_SKIPPED,
    DOCSTRING_CHARS,
)

__all__ = [
    "functions_section",
    "issues_section",
    "rejected_section",
    "left_dirty_section",
    "llm_usage_section",
    "judgement_section",
    "skipped_section",
    "applied_section",
    "refused_steps",
    "cross_row_section",
]

NOTE_CHARS = 2000  # a step's note (its sources' accuracies) at most


def functions_section(data: ReportData) -> list[str]:
    lines = ["## Functions", ""]
    for i, fn in enumerate(data.functions, 1):
        lines += [f"### {i}. {code_cell(fn.get('name') or '?', 80)}", ""]
        doc = inspect.cleandoc(str(fn.get("docstring") or ""))
        if doc:
            doc = doc if len(doc) <= DOCSTRING_CHARS else doc[: DOCSTRING_CHARS - 1].rstrip() + "…"
            lines += [f"> {line}".rstrip() for line in md_lines(doc)] + [""]
        facts = []
        if fn.get("field"):
            facts.append(f"- Field: {code_cell(fn['field'], 60)}")
        if fn.get("issue"):
            facts.append(f"- Issue: {short_text(fn['issue'], 300)}")
        change = change_text(fn.get("issues_before"), fn.get("issues_after"), fn.get("field"))
        if change:
            facts.append(f"- Values not conforming, before → after: {change}")
        revised = [m for m in data.modifications if m.get("name") == fn.get("name")]
        if revised:
            chunks = ", ".join(str(int(m.get("chunk_index", 0)) + 1) for m in revised)
            facts.append(
                f"- Revised by the model {len(revised)} time(s) (chunk {chunks}); the latest "
                "version is kept"
            )
        lines += facts + ([""] if facts else [])
    return lines


def issues_section(data: ReportData) -> list[str]:
    lines = ["## Detected issues", "", "| Field | Values | Issue | Examples |", "|---|---|---|---|"]
    for name, group in issue_groups(data.issues).items():
        count = num_text(group["count"]) if group["count"] is not None else "—"
        issue = "; ".join(group["issues"][:2]) + (" …" if len(group["issues"]) > 2 else "")
        examples = ", ".join(
            md_code(example_cell(v), 30, cell=True) for v in group["examples"][:MAX_EXAMPLES]
        )
        lines.append(f"| {field_cell(name)} | {count} | {md_text(issue, 160)} | {examples} |")
    return lines


def rejected_section(data: ReportData) -> list[str]:
    lines = ["## Rejected functions", ""]
    for name, reason in data.rejected[:MAX_REJECTED]:
        lines.append(f"- {code_cell(name or '?', 80)} — {short_text(reason, REASON_CHARS)}")
    if len(data.rejected) > MAX_REJECTED:
        lines.append(f"- … and {len(data.rejected) - MAX_REJECTED} more")
    return lines


def left_dirty_section(data: ReportData) -> list[str]:
    """Fields given up on, then (after a real run) fields whose issues were still open at the
    end."""
    rows = [(name, f"given up: {issue}") for name, issue in data.unfixable.items()]
    if not data.dry_run:
        for name, group in issue_groups(data.issues).items():
            if name not in data.unfixable and group["issues"]:
                count = f"{num_text(group['count'])} values: " if group["count"] else ""
                rows.append((name, f"still open: {count}{group['issues'][0]}"))
    lines = ["## Fields left dirty", "", "| Field | Issue |", "|---|---|"]
    lines += [f"| {field_cell(name)} | {md_text(issue, 200)} |" for name, issue in rows]
    return lines if rows else []


def llm_usage_section(data: ReportData) -> list[str]:
    llm, lat = data.llm, data.latency
    lines = ["## LLM usage", ""]
    if llm.get("calls") is not None:
        failed = llm.get("failed_attempts") or 0
        retried = (
            f" ({num_text(failed)} failed attempt{'s' * (failed != 1)} retried)" if failed else ""
        )
        lines.append(f"- Calls: {num_text(llm['calls'])}{retried}")
    prompt, cached = int(llm.get("prompt_tokens") or 0), int(llm.get("cached_tokens") or 0)
    if prompt or llm.get("completion_tokens"):
        lines.append(
            f"- Tokens: {num_text(prompt)} prompt, "
            f"{num_text(int(llm.get('completion_tokens') or 0))} "
            "completion"
        )
    if prompt:
        lines.append(
            f"- Prompt cache: {num_text(cached)} cached tokens ({pct(cached / prompt)} of prompt "
            "tokens)"
        )
    if lat and any(lat.get(k) for k in ("min_ms", "avg_ms", "max_ms", "total_ms")):
        s = {k: float(lat.get(k) or 0) / 1000 for k in ("min_ms", "avg_ms", "max_ms", "total_ms")}
        lines.append(
            f"- Latency per call: min {s['min_ms']:.2f} s, avg {s['avg_ms']:.2f} s, "
            f"max {s['max_ms']:.2f} s; total {s['total_ms']:.1f} s"
        )
    return lines if len(lines) > 2 else []


def judgement_section(data: ReportData) -> list[str]:
    """Reflection counts, two-pass consolidation, early termination."""
    lines = ["## Review of the functions", ""]
    r = data.reflection
    if r:
        lines.append(
            f"- Reflection: {num_text(r.get('original', 0))} candidates critiqued, "
            f"{num_text(r.get('refined', 0))} "
            f"refine rounds, {num_text(r.get('discarded', 0))} discarded, "
            f"{num_text(r.get('deduplicated', 0))} "
            f"near-duplicates dropped, {num_text(r.get('final', 0))} accepted"
        )
    o = data.optimization
    if o:
        lines.append(
            f"- Consolidation: {num_text(o.get('original', 0))} functions → "
            f"{num_text(o.get('final', 0))} "
            f"({num_text(o.get('calls', 0))} calls)"
        )
        lines += [f"  - merged: {short_text(m, 200)}" for m in o.get("merged", [])[:10]]
        lines += [
            f"  - kept apart: {short_text(m, REASON_CHARS)}" for m in o.get("refused", [])[:10]
        ]
    if data.stopped_early:
        lines.append(
            f"- Early termination: the model judged the patterns saturated after "
            f"{num_text(data.chunks_processed)} of {num_text(data.chunks_total)} chunks"
        )
    if data.open_pass:
        lines.append(f"- {md_text(data.open_pass)}")
    return lines if len(lines) > 2 else []


def skipped_section(data: ReportData) -> list[str]:
    lines = [
        "## Skipped input",
        "",
        f"{num_text(data.skipped_records)} input records could not be read and were skipped.",
    ]
    if data.skipped_examples:
        lines += ["", *[f"- {code_cell(e, 200)}" for e in data.skipped_examples[:MAX_SKIPPED]]]
        if len(data.skipped_examples) > MAX_SKIPPED:
            lines.append(f"- … and {len(data.skipped_examples) - MAX_SKIPPED} more")
    return lines


def applied_section(data: ReportData) -> list[str]:
    """An apply run: records in and out, duplicates dropped, records changed per function and
    cross-row step."""
    a = data.applied
    facts = [
        f"{num_text(a.get('records_in', 0))} records in, {num_text(a.get('records_out', 0))} out"
    ]
    facts += [
        f"{num_text(a[k])} {label}"
        for k, label in (("dropped_duplicates", "duplicates dropped"), ("failed", "failed"))
        if a.get(k)
    ]
    lines = ["## Applied to the data", "", f"- {', '.join(facts)}"]
    by_step = a.get("changes_by_step") or {}
    if by_step:
        lines += ["", "| Function or step | Records changed (dedup: dropped) |", "|---|---|"]
        lines += [
            f"| {md_code(name, 80, cell=True)} | {num_text(n)} |" for name, n in by_step.items()
        ]
    return lines


def refused_steps(data: ReportData) -> list[tuple[str, str]]:
    return [
        (n, r)
        for n, r in data.rejected
        if str(n).startswith("<cross_row_step") or n == "cross_row_plan"
    ]


def _steps_with_notes(data: ReportData) -> list[str]:
    """Each step's line, and under it what its fit learned on the planning sample."""
    notes = data.cross_row_notes if len(data.cross_row_notes) == len(data.cross_row) else []
    lines = []
    for i, step in enumerate(data.cross_row):
        lines.append(f"- {short_text(step, 300)}")
        lines += [
            f"  - {short_text(note, NOTE_CHARS)} (on the planning sample)"
            for note in (notes[i] if notes else ())
        ]
    return lines


def cross_row_section(data: ReportData) -> list[str]:
    """The steps written, the records they drop on the sample, and the steps refused with their
    reasons."""
    lines = ["## Cross-row steps", ""]
    if data.cross_row:
        lines += [
            "Run after `clean_data`, over the whole dataset (two passes):",
            "",
            *_steps_with_notes(data),
            "",
        ]
    if data.cross_row_sample:
        lines += [
            "On the planning sample they keep "
            f"{num_text(data.cross_row_sample - data.cross_row_dropped)} of "
            f"{num_text(data.cross_row_sample)} records ({num_text(data.cross_row_dropped)} "
            "dropped).",
            "",
        ]
    refused = refused_steps(data)
    if refused:
        lines += [
            "Refused:",
            "",
            *[f"- {code_cell(n, 200)}: {short_text(r, 300)}" for n, r in refused[:MAX_REJECTED]],
        ]
    return lines
