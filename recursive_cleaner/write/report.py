"""The markdown cleaning report (``cleaning_report.md``): what a run did, readable in two minutes.

A short summary comes first, then one section per topic; sections with nothing to say are left
out. In a dry run the report is an analysis: the detected issues grouped by field replace the
functions. Table cells are single-line with ``|`` escaped; long values end in "…". Every text the
run did not write itself (field names, goals, the model's text, data values) goes through
``recursive_cleaner.escape`` (``md_text``, ``md_lines``, ``md_code``): it shows as it is and
opens no code span, link or raw HTML.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..escape import md_code, md_lines, md_text
from .metrics import pct
from .state import atomic_write_text

if TYPE_CHECKING:  # pragma: no cover
    from .metrics import ImprovementReport

__all__ = ["ReportData", "render_report", "write_report"]

DEFAULT_TITLE = "Cleaning report"
MAX_REJECTED = 30
REASON_CHARS = 200
MAX_EXAMPLES = 5
MAX_SKIPPED = 10
INSTRUCTION_CHARS = 20_000  # the goals are quoted whole; only a pasted file this long is cut
DOCSTRING_CHARS = 600
WHOLE_RECORD = "(whole record)"


@dataclass
class ReportData:
    """Everything the report shows; the cleaner fills it in after a run."""

    title: str = DEFAULT_TITLE
    source: str = ""
    instructions: str = ""
    mode: str = "structured"
    dry_run: bool = False
    chunks_total: int = 0
    chunks_processed: int = 0
    records_seen: int = 0
    # name, docstring, field, issue, issues_before/after
    functions: list[dict] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (function name, reason)
    unfixable: dict[str, str] = field(default_factory=dict)  # field -> issue given up on
    issues: list[dict] = field(default_factory=list)  # field, issue, offending, count, chunk_index
    improvement: ImprovementReport | None = None
    # calls, prompt_tokens, completion_tokens, cached_tokens, ...
    llm: dict = field(default_factory=dict)
    latency: dict = field(default_factory=dict)  # min_ms, max_ms, avg_ms, total_ms
    skipped_records: int = 0
    skipped_examples: list[str] = field(default_factory=list)
    output_path: str = ""
    order_note: str = ""
    # name, chunk_index: functions replaced by a new version
    modifications: list[dict] = field(default_factory=list)
    # ReflectionStats.to_dict(): original, discarded, refined, ...
    reflection: dict = field(default_factory=dict)
    # original, final, calls, merged [str], refused [str]
    optimization: dict = field(default_factory=dict)
    # early termination: chunks_processed < chunks_total
    stopped_early: bool = False
    # descriptions of the cross-row steps written
    cross_row: list[str] = field(default_factory=list)
    cross_row_dropped: int = 0  # records those steps drop on the planning sample
    cross_row_sample: int = 0  # records in that sample (0: no plan was made)
    # the field spec, a line per field (CleaningSpec.summary)
    spec: list[str] = field(default_factory=list)
    spec_path: str = ""  # where cleaning_spec.json was written
    # issues seen in fields the goals do not mention
    suggestions: list[str] = field(default_factory=list)
    # an apply run's counts: dataclasses.asdict(ApplyResult) or a subset
    applied: dict = field(default_factory=dict)
    seconds: float | None = None
    unusable_replies: int = 0  # model replies that could not be parsed


def _short(text: Any, limit: int) -> str:
    """Untrusted text as markdown prose: one line, at most ``limit`` characters (ending in '…' when
    cut), escaped."""
    return md_text(text, limit)


def _code(text: Any, limit: int = 60) -> str:
    """Untrusted text as an inline code span (any backticks in it kept)."""
    return md_code(text, limit)


def _example(value: Any) -> str:
    """A value as the report shows it: a string as is, unless its spaces matter (leading, trailing,
    doubled, tabs: then its repr, so a code span cannot hide them); anything else as its repr."""
    if isinstance(value, str) and value == " ".join(value.split()) and value:
        return value
    return repr(value)


def _field_cell(name: str) -> str:
    """A field name in a table cell (the whole-record group is not a field name)."""
    return WHOLE_RECORD if name == WHOLE_RECORD else md_code(name, 40, cell=True)


def _num(n: Any) -> str:
    return f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else str(n)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def _quote(text: str) -> list[str]:
    body = text.strip()
    if len(body) > INSTRUCTION_CHARS:
        body = body[: INSTRUCTION_CHARS - 1].rstrip() + "…"
    return [f"> {line}".rstrip() for line in md_lines(body)]


def _title(data: ReportData) -> str:
    if data.dry_run and data.title == DEFAULT_TITLE:
        return "Data analysis (dry run)"
    return data.title or DEFAULT_TITLE


def _issue_groups(issues: list[dict]) -> dict[str, dict]:
    """field -> {count, issues (distinct texts), examples (distinct values)}, in first-seen
    order."""
    groups: dict[str, dict] = {}
    for item in issues:
        name = item.get("field") or WHOLE_RECORD
        group = groups.setdefault(str(name), {"count": None, "issues": [], "examples": []})
        if isinstance(item.get("count"), int):
            group["count"] = (group["count"] or 0) + item["count"]
        text = str(item.get("issue") or "").strip()
        if text and text not in group["issues"]:
            group["issues"].append(text)
        for value in item.get("offending") or []:
            if value not in group["examples"]:
                group["examples"].append(value)
    return groups


def _dirty_fields(data: ReportData) -> list[str]:
    names = list(data.unfixable)
    if data.improvement is not None:
        names += data.improvement.summary()["open_issues_after"]
    names += [str(i.get("field")) for i in data.issues if i.get("field")]
    return list(dict.fromkeys(names))


def _summary(data: ReportData) -> list[str]:
    lines = []
    if data.source:
        lines.append(f"- **Source:** {_code(data.source, 120)} ({data.mode})")
    if data.chunks_total or data.records_seen:
        unit = "texts" if data.mode == "text" else "records"
        lines.append(
            f"- **Read:** {_num(data.chunks_processed)} of {_num(data.chunks_total)} chunks, "
            f"{_num(data.records_seen)} {unit}"
        )
    if data.dry_run:
        n_fields = len(set(_issue_groups(data.issues)) - {WHOLE_RECORD})
        general = sum(1 for i in data.issues if not i.get("field"))
        about = f", {general} about whole records" if general else ""
        lines.append(
            f"- **Issues detected:** {len(data.issues)} in {n_fields} field(s){about}; no code was "
            "written"
        )
    else:
        lines.append(
            f"- **Functions:** {len(data.functions)} accepted, {len(data.rejected)} rejected"
        )
    dirty = _dirty_fields(data)
    if dirty:
        label = "with issues" if data.dry_run else "still dirty"
        more = f" and {len(dirty) - 12} more" if len(dirty) > 12 else ""
        lines.append(f"- **Fields {label}:** " + ", ".join(_code(f, 40) for f in dirty[:12]) + more)
    elif data.improvement is not None and not data.dry_run:
        lines.append("- **Fields still dirty:** none found")
    quality = _quality_line(data.improvement)
    if quality:
        lines.append(quality)
    if data.llm.get("calls"):
        tokens = int(data.llm.get("prompt_tokens") or 0) + int(
            data.llm.get("completion_tokens") or 0
        )
        unusable = (
            f", {_num(data.unusable_replies)} unusable replies (asked again)"
            if data.unusable_replies
            else ""
        )
        lines.append(f"- **LLM:** {_num(data.llm['calls'])} calls, {_num(tokens)} tokens{unusable}")
    if data.seconds is not None:
        lines.append(f"- **Time:** {_duration(data.seconds)}")
    if data.skipped_records:
        lines.append(f"- **Skipped input:** {_num(data.skipped_records)} malformed records")
    if data.output_path:
        lines.append(f"- **Output:** {_code(data.output_path, 120)}")
    if data.order_note:
        lines.append(f"- **Function order:** {_short(data.order_note, 300)}")
    if data.instructions.strip():
        lines += ["", "Goals:", "", *_quote(data.instructions)]
    return lines


def _quality_line(imp: ImprovementReport | None) -> str:
    if imp is None:
        return ""
    s = imp.summary()
    if s["accuracy_before"] is not None or s["accuracy_after"] is not None:
        return (
            f"- **Cell accuracy vs ground truth:** {pct(s['accuracy_before'])} → "
            f"{pct(s['accuracy_after'])}"
        )
    if s["conformity_before"] is None and s["conformity_after"] is None:
        return ""
    return (
        f"- **Mean conformity:** {pct(s['conformity_before'])} → {pct(s['conformity_after'])} "
        f"({_num(s['rows_changed'])} of {_num(s['records'])} rows changed)"
    )


def _change(before: Any, after: Any, name: Any) -> str:
    """'12 → 0' for the function's field, else the fields whose counts moved."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return ""
    if name is not None and (name in before or name in after):
        return f"{before.get(name, '?')} → {after.get(name, '?')}"
    moved = [
        f"{_code(k, 30)} {before.get(k, '?')} → {after.get(k, '?')}"
        for k in dict.fromkeys([*before, *after])
        if before.get(k) != after.get(k)
    ]
    return (
        ", ".join(moved[:5]) + (f" (+{len(moved) - 5} more)" if len(moved) > 5 else "")
        if moved
        else "no change"
    )


def _functions(data: ReportData) -> list[str]:
    lines = ["## Functions", ""]
    for i, fn in enumerate(data.functions, 1):
        lines += [f"### {i}. {_code(fn.get('name') or '?', 80)}", ""]
        doc = inspect.cleandoc(str(fn.get("docstring") or ""))
        if doc:
            doc = doc if len(doc) <= DOCSTRING_CHARS else doc[: DOCSTRING_CHARS - 1].rstrip() + "…"
            lines += [f"> {line}".rstrip() for line in md_lines(doc)] + [""]
        facts = []
        if fn.get("field"):
            facts.append(f"- Field: {_code(fn['field'], 60)}")
        if fn.get("issue"):
            facts.append(f"- Issue: {_short(fn['issue'], 300)}")
        change = _change(fn.get("issues_before"), fn.get("issues_after"), fn.get("field"))
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


def _issues(data: ReportData) -> list[str]:
    lines = ["## Detected issues", "", "| Field | Values | Issue | Examples |", "|---|---|---|---|"]
    for name, group in _issue_groups(data.issues).items():
        count = _num(group["count"]) if group["count"] is not None else "—"
        issue = "; ".join(group["issues"][:2]) + (" …" if len(group["issues"]) > 2 else "")
        examples = ", ".join(
            md_code(_example(v), 30, cell=True) for v in group["examples"][:MAX_EXAMPLES]
        )
        lines.append(f"| {_field_cell(name)} | {count} | {md_text(issue, 160)} | {examples} |")
    return lines


def _rejected(data: ReportData) -> list[str]:
    lines = ["## Rejected functions", ""]
    for name, reason in data.rejected[:MAX_REJECTED]:
        lines.append(f"- {_code(name or '?', 80)} — {_short(reason, REASON_CHARS)}")
    if len(data.rejected) > MAX_REJECTED:
        lines.append(f"- … and {len(data.rejected) - MAX_REJECTED} more")
    return lines


def _left_dirty(data: ReportData) -> list[str]:
    """Fields given up on, then (after a real run) fields whose issues were still open at the
    end."""
    rows = [(name, f"given up: {issue}") for name, issue in data.unfixable.items()]
    if not data.dry_run:
        for name, group in _issue_groups(data.issues).items():
            if name not in data.unfixable and group["issues"]:
                count = f"{_num(group['count'])} values: " if group["count"] else ""
                rows.append((name, f"still open: {count}{group['issues'][0]}"))
    lines = ["## Fields left dirty", "", "| Field | Issue |", "|---|---|"]
    lines += [f"| {_field_cell(name)} | {md_text(issue, 200)} |" for name, issue in rows]
    return lines if rows else []


def _llm_usage(data: ReportData) -> list[str]:
    llm, lat = data.llm, data.latency
    lines = ["## LLM usage", ""]
    if llm.get("calls") is not None:
        failed = llm.get("failed_attempts") or 0
        retried = f" ({_num(failed)} failed attempt{'s' * (failed != 1)} retried)" if failed else ""
        lines.append(f"- Calls: {_num(llm['calls'])}{retried}")
    prompt, cached = int(llm.get("prompt_tokens") or 0), int(llm.get("cached_tokens") or 0)
    if prompt or llm.get("completion_tokens"):
        lines.append(
            f"- Tokens: {_num(prompt)} prompt, {_num(int(llm.get('completion_tokens') or 0))} "
            "completion"
        )
    if prompt:
        lines.append(
            f"- Prompt cache: {_num(cached)} cached tokens ({pct(cached / prompt)} of prompt "
            "tokens)"
        )
    if lat and any(lat.get(k) for k in ("min_ms", "avg_ms", "max_ms", "total_ms")):
        s = {k: float(lat.get(k) or 0) / 1000 for k in ("min_ms", "avg_ms", "max_ms", "total_ms")}
        lines.append(
            f"- Latency per call: min {s['min_ms']:.2f} s, avg {s['avg_ms']:.2f} s, "
            f"max {s['max_ms']:.2f} s; total {s['total_ms']:.1f} s"
        )
    return lines if len(lines) > 2 else []


def _judgement(data: ReportData) -> list[str]:
    """Reflection counts, two-pass consolidation, early termination."""
    lines = ["## Review of the functions", ""]
    r = data.reflection
    if r:
        lines.append(
            f"- Reflection: {_num(r.get('original', 0))} candidates critiqued, "
            f"{_num(r.get('refined', 0))} "
            f"refine rounds, {_num(r.get('discarded', 0))} discarded, "
            f"{_num(r.get('deduplicated', 0))} "
            f"near-duplicates dropped, {_num(r.get('final', 0))} accepted"
        )
    o = data.optimization
    if o:
        lines.append(
            f"- Consolidation: {_num(o.get('original', 0))} functions → {_num(o.get('final', 0))} "
            f"({_num(o.get('calls', 0))} calls)"
        )
        lines += [f"  - merged: {_short(m, 200)}" for m in o.get("merged", [])[:10]]
        lines += [f"  - kept apart: {_short(m, REASON_CHARS)}" for m in o.get("refused", [])[:10]]
    if data.stopped_early:
        lines.append(
            f"- Early termination: the model judged the patterns saturated after "
            f"{_num(data.chunks_processed)} of {_num(data.chunks_total)} chunks"
        )
    return lines if len(lines) > 2 else []


def _skipped(data: ReportData) -> list[str]:
    lines = [
        "## Skipped input",
        "",
        f"{_num(data.skipped_records)} input records could not be read and were skipped.",
    ]
    if data.skipped_examples:
        lines += ["", *[f"- {_code(e, 200)}" for e in data.skipped_examples[:MAX_SKIPPED]]]
        if len(data.skipped_examples) > MAX_SKIPPED:
            lines.append(f"- … and {len(data.skipped_examples) - MAX_SKIPPED} more")
    return lines


def _applied(data: ReportData) -> list[str]:
    """An apply run: records in and out, duplicates dropped, records changed per function and
    cross-row step."""
    a = data.applied
    facts = [f"{_num(a.get('records_in', 0))} records in, {_num(a.get('records_out', 0))} out"]
    facts += [
        f"{_num(a[k])} {label}"
        for k, label in (("dropped_duplicates", "duplicates dropped"), ("failed", "failed"))
        if a.get(k)
    ]
    lines = ["## Applied to the data", "", f"- {', '.join(facts)}"]
    by_step = a.get("changes_by_step") or {}
    if by_step:
        lines += ["", "| Function or step | Records changed (dedup: dropped) |", "|---|---|"]
        lines += [f"| {md_code(name, 80, cell=True)} | {_num(n)} |" for name, n in by_step.items()]
    return lines


def _cross_row_refused(data: ReportData) -> list[tuple[str, str]]:
    return [
        (n, r)
        for n, r in data.rejected
        if str(n).startswith("<cross_row_step") or n == "cross_row_plan"
    ]


def _cross_row(data: ReportData) -> list[str]:
    """The steps written, the records they drop on the sample, and the steps refused with their
    reasons."""
    lines = ["## Cross-row steps", ""]
    if data.cross_row:
        lines += [
            "Run after `clean_data`, over the whole dataset (two passes):",
            "",
            *[f"- {_short(d, 300)}" for d in data.cross_row],
            "",
        ]
    if data.cross_row_sample:
        lines += [
            "On the planning sample they keep "
            f"{_num(data.cross_row_sample - data.cross_row_dropped)} of "
            f"{_num(data.cross_row_sample)} records ({_num(data.cross_row_dropped)} dropped).",
            "",
        ]
    refused = _cross_row_refused(data)
    if refused:
        lines += [
            "Refused:",
            "",
            *[f"- {_code(n, 200)}: {_short(r, 300)}" for n, r in refused[:MAX_REJECTED]],
        ]
    return lines


def render_report(data: ReportData) -> str:
    """The report as markdown: summary first, then only the sections that have something to say."""
    sections = [[f"# {md_text(_title(data))}", "", *_summary(data)]]
    if data.dry_run and data.issues:
        sections.append(_issues(data))
    if not data.dry_run and data.functions:
        sections.append(_functions(data))
    if data.spec:
        sections.append(
            [
                "## Field spec",
                "",
                "What each field should look like, as read from the goals "
                + (
                    f"(edit {md_code(data.spec_path)} and pass it back with `--spec` / `spec=`)"
                    if data.spec_path
                    else ""
                )
                + ":",
                "",
                *[f"- {_short(line, 300)}" for line in data.spec],
            ]
        )
    if data.suggestions:
        sections.append(
            [
                "## Suggestions (not changed)",
                "",
                "Fields the goals do not mention were left as they are. "
                "Seen in them (add them to the goals, or use `--scope all`, to clean them):",
                "",
                *[f"- {_short(line, 300)}" for line in data.suggestions],
            ]
        )
    if data.cross_row or _cross_row_refused(data):
        sections.append(_cross_row(data))
    if data.applied:
        sections.append(_applied(data))
    if data.improvement is not None and data.improvement.fields:
        sections.append(["## Quality before/after", "", data.improvement.to_markdown()])
    if data.rejected:
        sections.append(_rejected(data))
    sections.append(_left_dirty(data))
    sections.append(_judgement(data))
    sections.append(_llm_usage(data))
    if data.skipped_records or data.skipped_examples:
        sections.append(_skipped(data))
    return "\n\n".join("\n".join(s).strip() for s in sections if s) + "\n"


def write_report(path: str | os.PathLike, data: ReportData) -> str:
    """Render the report and write it atomically to ``path``; returns the path."""
    atomic_write_text(path, render_report(data))
    return str(path)
