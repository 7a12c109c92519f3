"""The HTML cleaning report (``cleaning_report.html``, beside the markdown one): a page to look at.

A profile of the data first (``html_profile``: per column types, blanks, distinct and frequent
values, a small distribution and the wrong values by the goals, on the whole input file and the
applied output, or the run's metrics sample, from ``ReportData.profile``); then what changed
(``html_changes``: per field the wrong values before and after, bars on one scale, three real
before → after examples; the fields left alone and why; the cross-row steps with the records they
changed); then the run (``html_run``: the goals and their reading, the code tied to its fields,
the model's calls, tokens and time). One file, no script, no link to fetch: CSS (scoped to
``.rc-report``, its alignment firm against a notebook's own) and SVG inline. Every value the run
did not write itself goes through ``escape.html_text``. ``html_fragment`` is the part a notebook
shows (``CleanResult``).
"""

from __future__ import annotations

import os
import re

from ...escape import html_text
from .data import DEFAULT_TITLE, INTERRUPTED_TEXT, ReportData
from .html_cells import count_of, cut, number_text
from .html_changes import (
    EXAMPLES_PER_FIELD,
    counts_from_checks,
    cross_row_section,
    field_counts,
    field_examples,
    fields_section,
    labels_section,
    left_alone_fields,
    left_alone_section,
)
from .html_profile import profile_section
from .html_run import code_section, goals_section, model_section
from ..state import atomic_write_text

__all__ = [
    "render_html",
    "write_html_report",
    "html_report_path",
    "html_fragment",
    "left_alone_fields",
    "field_counts",
    "field_examples",
    "counts_from_checks",
    "EXAMPLES_PER_FIELD",
]

_BODY_START, _BODY_END = "<body>\n", "\n</body>"
# scoped to .rc-report; alignment, wrapping and table layout marked !important, so that a
# notebook's own table rules (right-aligned cells, a fixed layout, wrapping) do not apply
_CSS = """
.rc-report{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232a;
max-width:1200px;margin:0;padding:8px 16px;text-align:left}
.rc-report h1{font-size:22px;margin:8px 0}.rc-report h2{font-size:17px;margin:22px 0 6px}
.rc-report table{border-collapse:collapse;width:auto!important;margin:6px 0!important;
table-layout:auto!important;font-size:13px}
.rc-report th,.rc-report td{border:none;border-bottom:1px solid #d8dde3;padding:5px 8px;
text-align:left!important;vertical-align:top!important;white-space:normal;max-width:none}
.rc-report th{background:#f1f4f7;font-weight:600}
.rc-report td.rc-n{text-align:right!important;font-variant-numeric:tabular-nums;
white-space:nowrap!important}
.rc-report td.rc-ex{white-space:nowrap!important}
.rc-report code{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f4f6f8;
padding:1px 3px;border-radius:3px}
.rc-report .rc-basis{color:#5b6670;font-style:italic}
.rc-report .rc-small{color:#5b6670;font-size:12px;white-space:normal}
.rc-report .rc-quote{font-style:italic;max-width:320px}
.rc-report ul.rc-examples,.rc-report ul.rc-top{margin:0;padding-left:16px;text-align:left}
.rc-report .rc-before{fill:#d9534f}.rc-report .rc-after{fill:#3c9d5d}
.rc-report .rc-hist{fill:#4a78a8}
.rc-report .rc-legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px}
.rc-report pre.rc-pre{background:#f6f8fa;border:1px solid #d8dde3;padding:8px;
white-space:pre-wrap;overflow-wrap:anywhere;text-align:left;font-size:12px}
.rc-report details{margin:4px 0}
"""


# the same layout as inline styles, which a notebook's sanitizer keeps where it drops <style> (an
# untrusted notebook, GitHub's viewer) and which no stylesheet rule outranks: tables laid out by
# their content, plain cells left-aligned, the lists of values (examples, frequent values) left
# and on one line each; a number's cell (rc-n) is right-aligned either way
_LAYOUT = re.compile(r'<(?:(table)\b|(td|th)>|(td) class="rc-ex"|ul class="(rc-examples|rc-top)")')
_INLINE = {
    "table": "table-layout:auto;width:auto;margin-left:0;margin-right:0",
    "cell": "text-align:left;vertical-align:top",
    "list": "text-align:left;white-space:nowrap;margin:0;padding-left:16px",
}


def _inline_styles(markup: str) -> str:
    """The page's own tables, plain cells and value lists with their layout inline (values from
    data are escaped: no ``<td>`` of theirs is left to match)."""

    def style(m: re.Match) -> str:
        if m.group(1):
            return f'<table style="{_INLINE["table"]}"'
        if m.group(2):
            return f'<{m.group(2)} style="{_INLINE["cell"]}">'
        if m.group(3):
            return f'<td class="rc-ex" style="{_INLINE["cell"]};white-space:nowrap"'
        return f'<ul class="{m.group(4)}" style="{_INLINE["list"]}"'

    return _LAYOUT.sub(style, markup)


def html_report_path(report_path: str | os.PathLike | None) -> str | None:
    """Where the HTML report goes: ``report_path`` with ``.html`` (None when there is no
    report)."""
    if not report_path:
        return None
    path = os.fspath(report_path)
    base, ext = os.path.splitext(path)
    return path + ".html" if ext.lower() == ".html" or not base else base + ".html"


def _summary(data: ReportData, title: str) -> list[str]:
    facts = []
    if data.source_label:
        facts.append(f"Source: {html_text(cut(data.source_label, 200))}")
    elif data.source:
        facts.append(f"Source <code>{html_text(cut(data.source, 200))}</code>")
    applied = data.applied if isinstance(data.applied, dict) else {}
    if applied:  # an apply run: records in and out, not functions
        n_in, n_out = count_of(applied.get("records_in")), count_of(applied.get("records_out"))
        failed = count_of(applied.get("failed"))
        facts.append(f"{number_text(n_in)} records in, {number_text(n_out)} out")
        facts.append(f"clean_data failed on {number_text(failed)}")
        if data.output_path:
            facts.append(f"Output <code>{html_text(cut(data.output_path, 200))}</code>")
    elif data.records_seen:
        facts.append(f"{data.records_seen:,} records read")
    if not data.dry_run and not applied:
        facts += [_plural(len(data.functions), "function"), _plural(len(data.cross_row), "step")]
    stopped = (
        f'<p class="rc-basis">Interrupted: {html_text(INTERRUPTED_TEXT.replace("`", ""))}</p>'
        if data.interrupted
        else ""
    )
    return [
        f"<h1>{html_text(title)}</h1>",
        f"<p>{' · '.join(facts)}</p>" if facts else "",
        stopped,
    ]


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {'cross-row ' if noun == 'step' else ''}{noun}{'' if n == 1 else 's'}"


def render_html(data: ReportData) -> str:
    """The report as one self-contained HTML page (inline CSS and SVG, no script)."""
    title = data.title or DEFAULT_TITLE
    parts = [
        '<div class="rc-report">',
        f"<style>{_CSS.strip()}</style>",
        *_summary(data, title),
        *profile_section(data),
        *fields_section(data),
        *left_alone_section(data),
        *cross_row_section(data),
        *labels_section(data),
        *goals_section(data),
        *code_section(data),
        *model_section(data),
        "</div>",
    ]
    body = _inline_styles("\n".join(p for p in parts if p))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html_text(title)}</title>\n</head>\n{_BODY_START}{body}{_BODY_END}\n</html>\n"
    )


def html_fragment(page: str) -> str:
    """The part of a page ``render_html`` wrote that a notebook shows (its body); "" for any other
    text."""
    start, end = page.find(_BODY_START), page.rfind(_BODY_END)
    return page[start + len(_BODY_START) : end] if 0 <= start < end else ""


def write_html_report(path: str | os.PathLike, data: ReportData) -> str:
    """Render the HTML report and write it atomically to ``path``; returns the path."""
    atomic_write_text(path, render_html(data))
    return os.fspath(path)
