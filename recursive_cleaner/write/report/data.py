"""The report's data (``ReportData``, filled by the run) and how its values show in markdown: table
cells on one line with ``|`` escaped, long values cut with "…", quoted goals; every text the run
did not write itself through ``recursive_cleaner.escape`` (``report`` renders the page)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...escape import md_code, md_lines, md_text

if TYPE_CHECKING:  # pragma: no cover
    from ..metrics import ImprovementReport

__all__ = [
    "ReportData",
    "short_text",
    "code_cell",
    "example_cell",
    "field_cell",
    "num_text",
    "duration_text",
    "quote_lines",
    "issue_groups",
    "change_text",
    "DEFAULT_TITLE",
    "INTERRUPTED_TEXT",
    "MAX_REJECTED",
    "REASON_CHARS",
    "MAX_EXAMPLES",
    "MAX_SKIPPED",
    "INSTRUCTION_CHARS",
    "DOCSTRING_CHARS",
    "WHOLE_RECORD",
]

DEFAULT_TITLE = "Cleaning report"
INTERRUPTED_TEXT = (
    "the run was stopped (Ctrl-C): these are the functions accepted before it; no cross-row "
    "steps, optimization or metrics were made. `resume` the state file to carry on."
)
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
    # name, docstring, code, field, issue, issues_before/after, examples
    functions: list[dict] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (function name, reason)
    unfixable: dict[str, str] = field(default_factory=dict)  # field -> issue given up on
    unmet: dict[str, str] = field(default_factory=dict)  # what the goals ask that was not done
    issues: list[dict] = field(default_factory=list)  # field, issue, offending, count, chunk_index
    improvement: ImprovementReport | None = None
    # calls, prompt_tokens, completion_tokens, cached_tokens, ...
    llm: dict = field(default_factory=dict)
    latency: dict = field(default_factory=dict)  # min_ms, max_ms, avg_ms, total_ms
    skipped_records: int = 0
    skipped_examples: list[str] = field(default_factory=list)
    output_path: str = ""
    order_note: str = ""
    open_pass: str = ""  # "no open pass: nothing left unexplained" (run.open_pass)
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
    # per step, what its fit learned on that sample (a source-weighted vote's source accuracies)
    cross_row_notes: list[list[str]] = field(default_factory=list)
    # the field spec, a line per field (CleaningSpec.summary)
    spec: list[str] = field(default_factory=list)
    spec_path: str = ""  # where cleaning_spec.json was written
    # issues seen in fields the goals do not mention
    suggestions: list[str] = field(default_factory=list)
    # an apply run's counts: dataclasses.asdict(ApplyResult) or a subset
    applied: dict = field(default_factory=dict)
    seconds: float | None = None
    unusable_replies: int = 0  # model replies that could not be parsed
    # the HTML report's alone (``report_html``): records each cross-row step changed or dropped on
    # the planning sample; (field, why) the spec keeps as it is; apply's whole-file counts of
    # wrong values, {"records": n, "fields": {field: [before, after]}}
    cross_row_rows: list[int] = field(default_factory=list)
    left_alone: list[tuple[str, str]] = field(default_factory=list)
    whole_file: dict = field(default_factory=dict)
    # Ctrl-C: the report of what was accepted before it (no cross-row plan, optimization, metrics)
    interrupted: bool = False
    # the source as the user gave it when its path is not what they gave ("a DataFrame of 300
    # rows"); the goals' reading as ``recursive-cleaner plan`` prints it (``run.review``); the
    # whole-file profile, ``{"before": ..., "after": ...}`` (``profile.profile_file``)
    source_label: str = ""
    plan: list[str] = field(default_factory=list)
    profile: dict = field(default_factory=dict)
    # the user's corrected rows (issue 44): what they are, and the labelled cells each function
    # and cross-row step passes (``run.labelled.label_lines``)
    labels: list[str] = field(default_factory=list)


def short_text(text: Any, limit: int) -> str:
    """Untrusted text as markdown prose: one line, at most ``limit`` characters (ending in '…' when
    cut), escaped."""
    return md_text(text, limit)


def code_cell(text: Any, limit: int = 60) -> str:
    """Untrusted text as an inline code span (any backticks in it kept)."""
    return md_code(text, limit)


def example_cell(value: Any) -> str:
    """A value as the report shows it: a string as is, unless its spaces matter (leading, trailing,
    doubled, tabs: then its repr, so a code span cannot hide them); anything else as its repr."""
    if isinstance(value, str) and value == " ".join(value.split()) and value:
        return value
    return repr(value)


def field_cell(name: str) -> str:
    """A field name in a table cell (the whole-record group is not a field name)."""
    return WHOLE_RECORD if name == WHOLE_RECORD else md_code(name, 40, cell=True)


def num_text(n: Any) -> str:
    return f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else str(n)


def duration_text(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def quote_lines(text: str) -> list[str]:
    body = text.strip()
    if len(body) > INSTRUCTION_CHARS:
        body = body[: INSTRUCTION_CHARS - 1].rstrip() + "…"
    return [f"> {line}".rstrip() for line in md_lines(body)]


def issue_groups(issues: list[dict]) -> dict[str, dict]:
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


def change_text(before: Any, after: Any, name: Any) -> str:
    """'12 → 0' for the function's field, else the fields whose counts moved."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return ""
    if name is not None and (name in before or name in after):
        return f"{before.get(name, '?')} → {after.get(name, '?')}"
    moved = [
        f"{code_cell(k, 30)} {before.get(k, '?')} → {after.get(k, '?')}"
        for k in dict.fromkeys([*before, *after])
        if before.get(k) != after.get(k)
    ]
    return (
        ", ".join(moved[:5]) + (f" (+{len(moved) - 5} more)" if len(moved) > 5 else "")
        if moved
        else "no change"
    )
