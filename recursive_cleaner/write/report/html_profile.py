"""The HTML page's profile of the data: per column, before (the whole input file) and after (the
applied output's whole file, or the run's metrics sample), its types, blanks, distinct values, most
frequent values, a small distribution (numbers, else text lengths) and the wrong values by the
goals. ``ReportData.profile`` holds what ``profile`` counted; every value in it is data, escaped.
"""

from __future__ import annotations

from typing import Any

from ...escape import html_text
from .data import ReportData
from .html_cells import count_of, cut, number_text, share_text, value_code
from .profile import LENGTH_EDGES

__all__ = ["profile_section", "histogram", "LENGTH_LABELS"]

LENGTH_LABELS = tuple(
    f"{a}" if b == a + 1 else f"{a}–{b - 1}" for a, b in zip(LENGTH_EDGES, LENGTH_EDGES[1:])
) + (f"{LENGTH_EDGES[-1]}+",)
HIST_W, HIST_H = 120, 28
TOP_CHARS = 40  # a frequent value's text shown at most


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def histogram(counts: list[int], labels: list[str], what: str) -> str:
    """A small bar chart of ``counts`` (inline SVG, its bars on the chart's own largest count),
    each bar titled with its label and count."""
    counts = [count_of(n) or 0 for n in counts]
    top = max(counts, default=0)
    if not top:
        return "—"
    step = HIST_W / len(counts)
    rects = []
    for i, (n, label) in enumerate(zip(counts, labels)):
        height = 0 if not n else max(1, round((HIST_H - 2) * n / top))
        rects.append(
            f'<rect class="rc-hist" x="{i * step + 1:.1f}" y="{HIST_H - height}" '
            f'width="{max(step - 2, 1):.1f}" height="{height}"><title>'
            f"{html_text(label)}: {n:,}</title></rect>"
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{HIST_W}" height="{HIST_H}" '
        f'role="img" aria-label="{html_text(cut(what, 200))}">{"".join(rects)}</svg>'
    )


def _number(x: Any) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return "?"
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:,.4g}"


def _distribution(col: dict, name: str) -> str:
    numbers = _dict(col.get("numbers"))
    count = count_of(numbers.get("count")) or 0
    text = sum(count_of(n) or 0 for n in _list(col.get("lengths")))
    present = sum(count_of(n) or 0 for n in _dict(col.get("types")).values())
    if count and 2 * count >= present:  # mostly numbers (a CSV's numbers are text too)
        low, high = numbers.get("min"), numbers.get("max")
        bins = _list(numbers.get("bins"))
        labels = [f"bin {i + 1} of {len(bins)}" for i in range(len(bins))]
        sample = " (a sample)" if numbers.get("sampled") else ""
        chart = histogram(bins, labels, f"{name}: values from {_number(low)} to {_number(high)}")
        return (
            f'{chart}<div class="rc-small">{_number(low)} … {_number(high)}, mean '
            f"{_number(numbers.get('mean'))}{sample}</div>"
        )
    if text:
        lengths = _list(col.get("lengths"))
        chart = histogram(lengths, list(LENGTH_LABELS), f"{name}: text lengths")
        counts = [count_of(n) or 0 for n in lengths]
        most = LENGTH_LABELS[counts.index(max(counts))] if len(counts) == len(LENGTH_LABELS) else ""
        return f'{chart}<div class="rc-small">text length, most {html_text(most)}</div>'
    return "—"


def _percent(part: int, whole: int) -> str:
    share = 100 * part / whole
    return "<1%" if 0 < share < 1 else ">99%" if 99 < share < 100 else f"{share:.0f}%"


def _types(col: dict, present: int) -> str:
    types = _dict(col.get("types"))
    parts = (
        [
            f"{html_text(cut(kind, 20))} {html_text(_percent(count_of(n) or 0, present))}"
            for kind, n in types.items()
        ]
        if present
        else []
    )
    return " · ".join(parts) or "—"


def _top(col: dict, present: int) -> str:
    exact = col.get("top_exact") is True
    top = [
        (str(pair[0]), count_of(pair[1]) or 0)
        for pair in _list(col.get("top"))
        if isinstance(pair, (list, tuple)) and len(pair) == 2
    ]
    repeated = [(v, n) for v, n in top if n > 1]
    if not repeated:
        return "no value repeats" if present and col.get("distinct") == present else "—"
    sign = "" if exact else "≥ "
    items = "".join(
        f'<li>{value_code(v, TOP_CHARS)} <span class="rc-small">×{sign}{n:,}</span></li>'
        for v, n in repeated
    )
    return f'<ul class="rc-top">{items}</ul>'


def _wrong(col: dict) -> str:
    expected = col.get("expected")
    if not isinstance(expected, str) or not expected:
        return "—"
    wrong, checked = count_of(col.get("wrong")) or 0, count_of(col.get("checked")) or 0
    return f"{share_text(wrong, checked)}"


def _goal(col: dict) -> str:
    """What the goals bind the column to, and the clause that says so."""
    expected, said = col.get("expected"), col.get("evidence")
    out = ""
    if isinstance(expected, str) and expected:
        out += f'<div class="rc-small">goal: {html_text(cut(expected, 120))}</div>'
    if isinstance(said, str) and said:
        out += f'<div class="rc-small rc-quote">“{html_text(cut(said, 300))}”</div>'
    return out


def _row(col: dict, records: int, when: str) -> str:
    name = str(col.get("name", ""))
    nulls = count_of(col.get("nulls")) or 0
    present = max(records - nulls, 0)
    distinct = number_text(count_of(col.get("distinct")))
    if col.get("distinct_capped") is True:
        distinct += "+"
    return (
        f'<tr class="rc-col" data-column="{html_text(name)}" data-when="{when}">'
        f"<td><code>{html_text(cut(name))}</code>{_goal(col) if when != 'after' else ''}</td>"
        f"<td>{html_text(when)}</td><td>{_types(col, present)}</td>"
        f'<td class="rc-n">{share_text(nulls, records)}</td><td class="rc-n">{distinct}</td>'
        f'<td class="rc-ex">{_top(col, present)}</td><td>{_distribution(col, name)}</td>'
        f'<td class="rc-n">{_wrong(col)}</td></tr>'
    )


def _sample_row(name: str, quality: Any, records: int) -> str:
    """The run's after: the metrics sample's counts (blanks, distinct, wrong by the goals)."""
    nulls, distinct = count_of(quality.nulls) or 0, count_of(quality.distinct)
    non_null = count_of(quality.non_null) or 0
    wrong = non_null - round(quality.conformity * non_null)
    return (
        f'<tr class="rc-col" data-column="{html_text(name)}" data-when="after (sample)">'
        "<td></td><td>after (sample)</td><td>—</td>"
        f'<td class="rc-n">{share_text(nulls, records)}</td>'
        f'<td class="rc-n">{number_text(distinct)}</td><td>—</td><td>—</td>'
        f'<td class="rc-n">{share_text(wrong, non_null)}</td></tr>'
    )


def _facts(side: dict, when: str) -> str:
    records = count_of(side.get("records")) or 0
    facts = [f"{when}: {html_text(cut(side.get('label', ''), 200))}, {records:,} records"]
    for key, what in (("skipped", "unreadable rows skipped"), ("not_objects", "not objects")):
        n = count_of(side.get(key))
        if n:
            facts.append(f"{n:,} {what}")
    more = count_of(side.get("more_columns"))
    if more:
        plus = "+" if side.get("more_capped") is True else ""
        facts.append(f"{more:,}{plus} more columns not profiled")
    note = side.get("note")
    if isinstance(note, str) and note:
        facts.append(html_text(cut(note, 300)))
    return "; ".join(facts)


def profile_section(data: ReportData) -> list[str]:
    """Per column, before and after; [] when the report holds no profile."""
    profile = _dict(data.profile)
    before, after = _dict(profile.get("before")), _dict(profile.get("after"))
    if not before:
        return []
    records = count_of(before.get("records")) or 0
    cols_after = {str(c.get("name")): c for c in _list(after.get("columns")) if isinstance(c, dict)}
    imp = data.improvement if not after else None
    sampled = imp.fields if imp is not None else {}
    facts = [_facts(before, "Before")]
    if after:
        facts.append(_facts(after, "After"))
    elif sampled:
        facts.append(f"After: the run's metrics sample of {imp.records:,} records, cleaned")
    else:
        facts.append(
            "After: not profiled here — <code>recursive-cleaner apply FUNCTIONS FILE -o OUT "
            "--report PAGE.html</code> profiles the cleaned whole file "
            "(<code>--track-metrics</code>: a sample, in this page)"
        )
    rows = []
    names = [str(c.get("name")) for c in _list(before.get("columns")) if isinstance(c, dict)]
    for col in _list(before.get("columns")):
        if not isinstance(col, dict):
            continue
        name = str(col.get("name"))
        rows.append(_row(col, records, "before"))
        if name in cols_after:
            rows.append(_row(cols_after[name], count_of(after.get("records")) or 0, "after"))
        elif name in sampled and sampled[name].after is not None:
            rows.append(_sample_row(name, sampled[name].after, imp.records))
    rows += [
        _row(col, count_of(after.get("records")) or 0, "after")
        for name, col in cols_after.items()
        if name not in names
    ]
    if not rows:
        return [
            '<section id="profile"><h2>Profile of the data</h2>',
            f'<p class="rc-basis">{"<br>".join(facts)}.</p></section>',
        ]
    return [
        '<section id="profile"><h2>Profile of the data</h2>',
        f'<p class="rc-basis">{"<br>".join(facts)}. One streaming pass per file; blanks are '
        "absent, empty or placeholder values; distinct counted exactly up to a cap (“+”: more); "
        "frequent values marked ≥ are lower bounds.</p>",
        '<table class="rc-profile"><thead><tr><th>Column</th><th>When</th><th>Types</th>'
        "<th>Blank</th><th>Distinct</th><th>Most frequent</th><th>Distribution</th>"
        "<th>Wrong by the goals</th></tr></thead><tbody>",
        *rows,
        "</tbody></table></section>",
    ]
