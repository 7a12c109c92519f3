"""The markdown cleaning report (``cleaning_report.md``): what a run did, readable in two minutes.

A short summary comes first, then one section per topic; sections with nothing to say are left
out. In a dry run the report is an analysis: the detected issues grouped by field replace the
functions. Table cells are single-line with ``|`` escaped; long values end in "…". Every text the
run did not write itself (field names, goals, the model's text, data values) goes through
``recursive_cleaner.escape`` (``md_text``, ``md_lines``, ``md_code``): it shows as it is and
opens no code span, link or raw HTML.

``ReportData`` and the cell text are in ``report_data``, the sections after the summary in
``report_sections``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...escape import md_code, md_text
from ..metrics import pct
from ..state import atomic_write_text

if TYPE_CHECKING:  # pragma: no cover
    from ..metrics import ImprovementReport
from .data import (
    ReportData,
    short_text,
    code_cell,
    num_text,
    duration_text,
    quote_lines,
    issue_groups,
    DEFAULT_TITLE,
    INTERRUPTED_TEXT,
    WHOLE_RECORD,
)
from .sections import (
    functions_section,
    issues_section,
    rejected_section,
    left_dirty_section,
    llm_usage_section,
    judgement_section,
    skipped_section,
    applied_section,
    refused_steps,
    cross_row_section,
)

__all__ = ["ReportData", "render_report", "write_report"]


def _title(data: ReportData) -> str:
    if data.dry_run and data.title == DEFAULT_TITLE:
        return "Data analysis (dry run)"
    return data.title or DEFAULT_TITLE


def _dirty_fields(data: ReportData) -> list[str]:
    names = list(data.unfixable)
    if data.improvement is not None:
        names += data.improvement.summary()["open_issues_after"]
    names += [str(i.get("field")) for i in data.issues if i.get("field")]
    return list(dict.fromkeys(names))


def _summary(data: ReportData) -> list[str]:
    lines = []
    if data.source_label:
        lines.append(f"- **Source:** {short_text(data.source_label, 200)} ({data.mode})")
    elif data.source:
        lines.append(f"- **Source:** {code_cell(data.source, 120)} ({data.mode})")
    if data.chunks_total or data.records_seen:
        unit = "texts" if data.mode == "text" else "records"
        lines.append(
            f"- **Read:** {num_text(data.chunks_processed)} of {num_text(data.chunks_total)} "
            "chunks, "
            f"{num_text(data.records_seen)} {unit}"
        )
    if data.interrupted:
        lines.append(f"- **Interrupted:** {INTERRUPTED_TEXT}")
    if data.dry_run:
        n_fields = len(set(issue_groups(data.issues)) - {WHOLE_RECORD})
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
        lines.append(
            f"- **Fields {label}:** " + ", ".join(code_cell(f, 40) for f in dirty[:12]) + more
        )
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
            f", {num_text(data.unusable_replies)} unusable replies (asked again)"
            if data.unusable_replies
            else ""
        )
        lines.append(
            f"- **LLM:** {num_text(data.llm['calls'])} calls, {num_text(tokens)} tokens{unusable}"
        )
    if data.seconds is not None:
        lines.append(f"- **Time:** {duration_text(data.seconds)}")
    if data.skipped_records:
        lines.append(f"- **Skipped input:** {num_text(data.skipped_records)} malformed records")
    if data.output_path:
        lines.append(f"- **Output:** {code_cell(data.output_path, 120)}")
    if data.order_note:
        lines.append(f"- **Function order:** {short_text(data.order_note, 300)}")
    if data.instructions.strip():
        lines += ["", "Goals:", "", *quote_lines(data.instructions)]
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
        f"({num_text(s['rows_changed'])} of {num_text(s['records'])} rows changed)"
    )


def render_report(data: ReportData) -> str:
    """The report as markdown: summary first, then only the sections that have something to say."""
    sections = [[f"# {md_text(_title(data))}", "", *_summary(data)]]
    if data.dry_run and data.issues:
        sections.append(issues_section(data))
    if not data.dry_run and data.functions:
        sections.append(functions_section(data))
    if data.unmet:
        sections.append(
            [
                "## Unmet goals",
                "",
                "What the goals ask that this run did not do (nothing was written for it):",
                "",
                *[
                    f"- {md_code(name, 60)}: {short_text(why, 300)}"
                    for name, why in data.unmet.items()
                ],
            ]
        )
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
                *[f"- {short_text(line, 300)}" for line in data.spec],
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
                *[f"- {short_text(line, 300)}" for line in data.suggestions],
            ]
        )
    if data.cross_row or refused_steps(data):
        sections.append(cross_row_section(data))
    if data.labels:
        sections.append(
            [
                "## Corrected rows (labels)",
                "",
                "The rows the user corrected are tests of every function and step, and keep their "
                "corrected values in the output:",
                "",
                *[f"- {short_text(line, 300)}" for line in data.labels],
            ]
        )
    if data.applied:
        sections.append(applied_section(data))
    if data.improvement is not None and data.improvement.fields:
        sections.append(["## Quality before/after", "", data.improvement.to_markdown()])
    if data.rejected:
        sections.append(rejected_section(data))
    sections.append(left_dirty_section(data))
    sections.append(judgement_section(data))
    sections.append(llm_usage_section(data))
    if data.skipped_records or data.skipped_examples:
        sections.append(skipped_section(data))
    return "\n\n".join("\n".join(s).strip() for s in sections if s) + "\n"


def write_report(path: str | os.PathLike, data: ReportData) -> str:
    """Render the report and write it atomically to ``path``; returns the path."""
    atomic_write_text(path, render_report(data))
    return str(path)
