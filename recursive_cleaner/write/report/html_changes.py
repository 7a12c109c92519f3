"""The HTML page's sections on what the run changed: per field the wrong values before and after
with a bar chart (every bar on one scale, the largest count of the page), three real before →
after examples; the fields left alone and why; the cross-row steps with the records they changed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...escape import html_text
from .data import WHOLE_RECORD, ReportData, issue_groups
from .html_cells import count_of, cut, number_text, pair_item

if TYPE_CHECKING:  # pragma: no cover
    from ...profiling.spec import CleaningSpec

__all__ = [
    "left_alone_fields",
    "field_counts",
    "field_examples",
    "counts_from_checks",
    "fields_section",
    "left_alone_section",
    "cross_row_section",
    "labels_section",
    "bars",
    "EXAMPLES_PER_FIELD",
    "BAR_WIDTH",
]

EXAMPLES_PER_FIELD = 3
BAR_WIDTH = 180


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
            counts[str(name)] = (count_of((pair + [None])[0]), count_of((pair + [None, None])[1]))
        records = count_of(whole.get("records"))
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
        first = counts.get(name, (count_of(before.get(name)), None))[0]
        counts[name] = (first, count_of(after.get(name)))
    if data.dry_run and not counts:
        found = issue_groups(data.issues)
        counts = {n: (count_of(g["count"]), None) for n, g in found.items() if n != WHOLE_RECORD}
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


def bars(name: str, before: int | None, after: int | None, top: int) -> str:
    """Two horizontal bars (before, after) on the page's one scale (``top``: the largest count
    shown); inline SVG."""
    top = max(top, before or 0, after or 0, 1)
    rows = []
    for i, (cls, n) in enumerate((("rc-before", before), ("rc-after", after))):
        width = 0 if n is None else max(2 if n else 0, round(BAR_WIDTH * n / top))
        label = f"{'before' if i == 0 else 'after'}: {number_text(n)}"
        rows.append(
            f'<rect class="{cls}" x="0" y="{2 + 16 * i}" width="{width}" height="12">'
            f"<title>{html_text(label)}</title></rect>"
        )
    what = f"{name}: wrong values before {number_text(before)}, after {number_text(after)}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{BAR_WIDTH}" height="32" role="img" '
        f'aria-label="{html_text(what)}">{"".join(rows)}</svg>'
    )


def fields_section(data: ReportData) -> list[str]:
    counts, basis = field_counts(data)
    examples = field_examples(data)
    alone = {name for name, _ in data.left_alone}
    names = [n for n in dict.fromkeys([*counts, *examples]) if n not in alone]
    if not names:
        return []
    top = max((n or 0 for pair in counts.values() for n in pair), default=0)
    lines = [
        '<section id="fields"><h2>Fields changed</h2>',
        f'<p class="rc-basis">Wrong values before → after: {html_text(basis)}. Every bar is '
        f"drawn on one scale (the longest is {top:,}).</p>",
        '<p class="rc-legend"><span style="background:#d9534f"></span>before'
        '<span style="background:#3c9d5d"></span>after</p>',
        '<table class="rc-fields"><thead><tr><th>Field</th><th>Wrong before</th>'
        "<th>Wrong after</th><th>Chart</th><th>Examples, before → after</th></tr></thead><tbody>",
    ]
    for name in names:
        before, after = counts.get(name, (None, None))
        shown = "".join(pair_item(old, new) for old, new in examples.get(name, []))
        lines.append(
            f'<tr class="rc-field" data-field="{html_text(name)}">'
            f"<td><code>{html_text(cut(name))}</code></td>"
            f'<td class="rc-n">{number_text(before)}</td><td class="rc-n">{number_text(after)}</td>'
            f"<td>{bars(cut(name), before, after, top)}</td>"
            f'<td class="rc-ex"><ul class="rc-examples">{shown or "<li>none changed</li>"}</ul>'
            "</td></tr>"
        )
    lines.append("</tbody></table></section>")
    return lines


def left_alone_section(data: ReportData) -> list[str]:
    rows = list(data.left_alone)
    rows += [(name, f"given up — {issue}") for name, issue in data.unfixable.items()]
    if not rows:
        return []
    body = "".join(
        f'<tr data-field="{html_text(name)}"><td><code>{html_text(cut(name))}</code></td>'
        f"<td>{html_text(cut(why, 300))}</td></tr>"
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
        records = count_of(applied.get("records_in"))
        size = f"{records:,} records" if records is not None else "every record"
        return [number_text(count_of(by_step[k])) for k in steps], (
            f"the whole file ({size}) by apply"
        )
    rows = list(data.cross_row_rows)
    if len(rows) == len(data.cross_row) and data.cross_row_sample:
        return [number_text(count_of(n)) for n in rows], (
            f"the planning sample of {data.cross_row_sample:,} records"
        )
    return ["—"] * len(data.cross_row), "not counted"


def _notes(notes: list[str]) -> str:
    """What a step's fit learned on the planning sample (its sources' accuracy), as a list."""
    if not notes:
        return ""
    items = "".join(f"<li>{html_text(cut(note, 2000))}</li>" for note in notes)
    return f'<ul class="rc-notes">{items}<li>(on the planning sample)</li></ul>'


def cross_row_section(data: ReportData) -> list[str]:
    if not data.cross_row:
        return []
    counted, basis = _step_rows(data)
    notes = data.cross_row_notes if len(data.cross_row_notes) == len(data.cross_row) else []
    body = "".join(
        f'<tr class="rc-step"><td>{html_text(cut(text, 300))}{_notes(notes[i] if notes else [])}'
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


def labels_section(data: ReportData) -> list[str]:
    """The user's corrected rows: what they are, the labelled cells each function and step
    passes."""
    if not data.labels:
        return []
    items = "".join(f"<li>{html_text(cut(line, 300))}</li>" for line in data.labels)
    return [
        '<section id="labels"><h2>Corrected rows (labels)</h2>',
        "<p>The rows the user corrected are tests of every function and step, and keep their "
        f"corrected values in the output.</p><ul>{items}</ul></section>",
    ]
