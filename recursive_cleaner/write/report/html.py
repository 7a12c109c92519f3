"""The HTML cleaning report (``cleaning_report.html``, beside the markdown one): a page to look at.

Per field: the wrong values before and after (the whole file when ``apply`` measured it, else the
metrics sample or the chunks the functions were accepted on, said which; ``counts_from_checks``
makes whole-file counts of ``apply.check.validate`` on the input and the output), a bar chart in
inline SVG, three real before → after examples; then the fields left alone and why (from the
spec), and the cross-row steps with the records they changed. One file, no script, no link to
fetch: CSS and SVG inline. Every value the run did not write itself goes through
``escape.html_text``. ``html_fragment`` is the part a notebook shows (``CleanResult``).
"""

from __future__ import annotations

import json
import math
import os
from typing import TYPE_CHECKING, Any

from ...escape import html_text, terminal_text
from .data import (
    DEFAULT_TITLE,
    INTERRUPTED_TEXT,
    WHOLE_RECORD,
    ReportData,
    example_cell,
    issue_groups,
)
from ..state import atomic_write_text

if TYPE_CHECKING:  # pragma: no cover
    from ...profiling.spec import CleaningSpec

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

EXAMPLES_PER_FIELD = 3
VALUE_CHARS = 80  # a value longer than this is cut with "…"
BAR_WIDTH = 180
_BODY_START, _BODY_END = "<body>\n", "\n</body>"
_CSS = """
.rc-report{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232a;
max-width:1100px;margin:0 auto;padding:8px 16px}
.rc-report h1{font-size:22px;margin:8px 0}.rc-report h2{font-size:17px;margin:22px 0 6px}
.rc-report table{border-collapse:collapse;width:100%;margin:6px 0}
.rc-report th,.rc-report td{border-bottom:1px solid #d8dde3;padding:5px 8px;text-align:left;
vertical-align:top}
.rc-report th{background:#f1f4f7;font-weight:600}
.rc-report td.rc-n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.rc-report code{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f4f6f8;
padding:1px 3px;border-radius:3px;overflow-wrap:anywhere}
.rc-report .rc-basis{color:#5b6670;font-style:italic}
.rc-report ul.rc-examples{margin:0;padding-left:16px}
.rc-report .rc-before{fill:#d9534f}.rc-report .rc-after{fill:#3c9d5d}
.rc-report .rc-legend span{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px}
"""


def html_report_path(report_path: str | os.PathLike | None) -> str | None:
    """Where the HTML report goes: ``report_path`` with ``.html`` (None when there is no
    report)."""
    if not report_path:
        return None
    path = os.fspath(report_path)
    base, ext = os.path.splitext(path)
    return path + ".html" if ext.lower() == ".html" or not base else base + ".html"


def left_alone_fields(spec: CleaningSpec | None) -> list[tuple[str, str]]:
    """(field, why) for each field the spec keeps as it is: protected by the goals or out of
    scope."""
    if spec is None:
        return []
    out = []
    for name, fs in spec.fields.items():
        if fs.kind == "as_is":
            said = f": “{fs.words}”" if fs.words else ""
            out.append((name, f"protected — the goals say to leave it as it is{said}"))
        elif not spec.in_scope(name):
            out.append((name, "out of scope — the goals do not mention it"))
    return out


def _count(value: Any) -> int | None:
    """A count as an int, None when it is not a finite, non-negative whole number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        return None
    return int(value) if value >= 0 else None


def _wrong(quality: Any) -> int | None:
    if quality is None:
        return None
    return quality.non_null - round(quality.conformity * quality.non_null)


def field_counts(data: ReportData) -> tuple[dict[str, tuple[int | None, int | None]], str]:
    """``{field: (wrong before, wrong after)}`` and what they were counted on (said on the page)."""
    whole = data.whole_file if isinstance(data.whole_file, dict) else {}
    if isinstance(whole.get("fields"), dict) and whole["fields"]:
        counts = {}
        for name, pair in whole["fields"].items():
            pair = list(pair) if isinstance(pair, (list, tuple)) else [None, None]
            counts[str(name)] = (_count((pair + [None])[0]), _count((pair + [None, None])[1]))
        records = _count(whole.get("records"))
        size = f"{records:,} records" if records is not None else "every record"
        return counts, f"counted on the whole file ({size}) by apply"
    if isinstance(data.applied, dict) and data.applied:
        return {}, "not counted: apply had no field spec (cleaning_spec.json) to count them by"
    imp = data.improvement
    if imp is not None and imp.fields:
        counts = {n: (_wrong(f.before), _wrong(f.after)) for n, f in imp.fields.items()}
        return counts, f"measured on {imp.records:,} sampled records, not the whole file"
    counts: dict[str, tuple[int | None, int | None]] = {}
    for fn in data.functions:
        name, before, after = fn.get("field"), fn.get("issues_before"), fn.get("issues_after")
        if not name or not isinstance(before, dict) or not isinstance(after, dict):
            continue
        first = counts.get(name, (_count(before.get(name)), None))[0]
        counts[name] = (first, _count(after.get(name)))
    if data.dry_run and not counts:
        found = issue_groups(data.issues)
        counts = {n: (_count(g["count"]), None) for n, g in found.items() if n != WHOLE_RECORD}
        return counts, "found in the chunks read; a dry run changes nothing"
    return counts, "counted on the chunk each function was accepted on, not the whole file"


def counts_from_checks(before: Any, after: Any) -> dict:
    """``ReportData.whole_file`` from two ``apply.check.validate`` results (the input and the
    cleaned output)."""
    names = dict.fromkeys([*before.broken, *after.broken])
    fields = {n: [before.broken.get(n, 0), after.broken.get(n, 0)] for n in names}
    return {"records": before.records, "fields": fields}


def _json(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def field_examples(data: ReportData) -> dict[str, list[tuple[Any, Any]]]:
    """Up to three real (before, after) values per field, from the records the functions were
    accepted on."""
    out: dict[str, list[tuple[Any, Any]]] = {}
    seen: set[tuple[str, str]] = set()
    for fn in data.functions:
        for pair in fn.get("examples") or []:
            old, new = (pair.get("input"), pair.get("output")) if isinstance(pair, dict) else (0, 0)
            if not isinstance(old, dict) or not isinstance(new, dict):
                continue
            for name in dict.fromkeys([*old, *new]):
                before, after = old.get(name), new.get(name)
                key = (str(name), _json(before))
                shown = out.setdefault(str(name), [])
                if _json(before) == _json(after) or key in seen or len(shown) >= EXAMPLES_PER_FIELD:
                    continue
                seen.add(key)
                shown.append((before, after))
    return {k: v for k, v in out.items() if v}


def _shown(value: Any) -> str:
    """A value as the page shows it: ``example_cell``, or its repr when it holds control
    characters."""
    text = example_cell(value)
    return repr(value) if isinstance(value, str) and terminal_text(value) != value else text


def _pair(old: Any, new: Any) -> str:
    """``before → after``; both as their repr when they would read the same ('1002' → 1002)."""
    left, right = _shown(old), _shown(new)
    if _middle(left) == _middle(right):
        left, right = repr(old), repr(new)
    return f"<li>{_value(left)} → {_value(right)}</li>"


def _middle(text: str) -> str:
    """At most ``VALUE_CHARS`` characters: a long text keeps its start and its end."""
    if len(text) <= VALUE_CHARS:
        return text
    tail = VALUE_CHARS // 3
    return text[: VALUE_CHARS - tail - 1] + "…" + text[-tail:]


def _value(text: str) -> str:
    return f"<code>{html_text(_middle(text))}</code>"


def _number(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"


def _bars(name: str, before: int | None, after: int | None) -> str:
    """Two horizontal bars (before, after) scaled to the larger; inline SVG."""
    top = max(before or 0, after or 0, 1)
    rows = []
    for i, (cls, n) in enumerate((("rc-before", before), ("rc-after", after))):
        width = 0 if n is None else max(2 if n else 0, round(BAR_WIDTH * n / top))
        label = f"{'before' if i == 0 else 'after'}: {_number(n)}"
        rows.append(
            f'<rect class="{cls}" x="0" y="{2 + 16 * i}" width="{width}" height="12">'
            f"<title>{html_text(label)}</title></rect>"
        )
    what = f"{name}: wrong values before {_number(before)}, after {_number(after)}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{BAR_WIDTH}" height="32" role="img" '
        f'aria-label="{html_text(what)}">{"".join(rows)}</svg>'
    )


def _fields_section(data: ReportData) -> list[str]:
    counts, basis = field_counts(data)
    examples = field_examples(data)
    alone = {name for name, _ in data.left_alone}
    names = [n for n in dict.fromkeys([*counts, *examples]) if n not in alone]
    if not names:
        return []
    lines = [
        '<section id="fields"><h2>Fields</h2>',
        f'<p class="rc-basis">Wrong values before → after: {html_text(basis)}.</p>',
        '<p class="rc-legend"><span style="background:#d9534f"></span>before'
        '<span style="background:#3c9d5d"></span>after</p>',
        '<table class="rc-fields"><thead><tr><th>Field</th><th>Wrong before</th>'
        "<th>Wrong after</th><th>Chart</th><th>Examples, before → after</th></tr></thead><tbody>",
    ]
    for name in names:
        before, after = counts.get(name, (None, None))
        shown = "".join(_pair(old, new) for old, new in examples.get(name, []))
        lines.append(
            f'<tr class="rc-field" data-field="{html_text(name)}">'
            f"<td><code>{html_text(_cut(name))}</code></td>"
            f'<td class="rc-n">{_number(before)}</td><td class="rc-n">{_number(after)}</td>'
            f"<td>{_bars(_cut(name), before, after)}</td>"
            f'<td><ul class="rc-examples">{shown or "<li>none changed</li>"}</ul></td></tr>'
        )
    lines.append("</tbody></table></section>")
    return lines


def _cut(text: Any, limit: int = VALUE_CHARS) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _left_alone_section(data: ReportData) -> list[str]:
    rows = list(data.left_alone)
    rows += [(name, f"given up — {issue}") for name, issue in data.unfixable.items()]
    if not rows:
        return []
    body = "".join(
        f'<tr data-field="{html_text(name)}"><td><code>{html_text(_cut(name))}</code></td>'
        f"<td>{html_text(_cut(why, 300))}</td></tr>"
        for name, why in rows
    )
    return [
        '<section id="left-alone"><h2>Left alone</h2>',
        "<p>Fields no function changes, and why (from the field spec).</p>",
        f"<table><thead><tr><th>Field</th><th>Why</th></tr></thead><tbody>{body}</tbody></table>",
        "</section>",
    ]


def _step_rows(data: ReportData) -> tuple[list[str], str]:
    """Per step: the records it changed, and what they were counted on."""
    applied = data.applied if isinstance(data.applied, dict) else {}
    by_step = applied.get("changes_by_step") or {}
    steps = [k for k in by_step if str(k).startswith("cross_row[")]
    if steps and len(steps) == len(data.cross_row):
        records = _count(applied.get("records_in"))
        size = f"{records:,} records" if records is not None else "every record"
        return [_number(_count(by_step[k])) for k in steps], f"the whole file ({size}) by apply"
    rows = list(data.cross_row_rows)
    if len(rows) == len(data.cross_row) and data.cross_row_sample:
        return [_number(_count(n)) for n in rows], (
            f"the planning sample of {data.cross_row_sample:,} records"
        )
    return ["—"] * len(data.cross_row), "not counted"


def _notes(notes: list[str]) -> str:
    """What a step's fit learned on the planning sample (its sources' accuracy), as a list."""
    if not notes:
        return ""
    items = "".join(f"<li>{html_text(_cut(note, 2000))}</li>" for note in notes)
    return f'<ul class="rc-notes">{items}<li>(on the planning sample)</li></ul>'


def _cross_row_section(data: ReportData) -> list[str]:
    if not data.cross_row:
        return []
    counted, basis = _step_rows(data)
    notes = data.cross_row_notes if len(data.cross_row_notes) == len(data.cross_row) else []
    body = "".join(
        f'<tr class="rc-step"><td>{html_text(_cut(text, 300))}{_notes(notes[i] if notes else [])}'
        f'</td><td class="rc-n">{n}</td></tr>'
        for i, (text, n) in enumerate(zip(data.cross_row, counted))
    )
    return [
        '<section id="cross-row"><h2>Cross-row steps</h2>',
        "<p>Run after <code>clean_data</code>, over the whole dataset. Records changed or "
        f'dropped per step: <span class="rc-basis">{html_text(basis)}</span>.</p>',
        "<table><thead><tr><th>Step</th><th>Records changed</th></tr></thead>"
        f"<tbody>{body}</tbody></table></section>",
    ]


def _summary(data: ReportData, title: str) -> list[str]:
    facts = []
    if data.source:
        facts.append(f"Source <code>{html_text(_cut(data.source, 200))}</code>")
    applied = data.applied if isinstance(data.applied, dict) else {}
    if applied:  # an apply run: records in and out, not functions
        n_in, n_out = _count(applied.get("records_in")), _count(applied.get("records_out"))
        failed = _count(applied.get("failed"))
        facts.append(f"{_number(n_in)} records in, {_number(n_out)} out")
        facts.append(f"clean_data failed on {_number(failed)}")
        if data.output_path:
            facts.append(f"Output <code>{html_text(_cut(data.output_path, 200))}</code>")
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
        *_fields_section(data),
        *_left_alone_section(data),
        *_cross_row_section(data),
        "</div>",
    ]
    body = "\n".join(p for p in parts if p)
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
