"""Before/after data quality: conformity, type consistency, spellings, cells changed, accuracy vs
truth.

``measure_quality`` describes one record set per field (built on ``profiler.profile_records``, so
conformity is judged against the same expectations the cleaner works towards). ``compare_quality``
puts the messy and the cleaned records side by side (aligned by position) and, when the clean
records are known, measures cell accuracy. ``DataCleaner.get_improvement_report()`` returns the
``ImprovementReport``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from ..escape import html_text, md_code
from ..profiling.profiler import is_missing, profile_records, strings_only, value_key

__all__ = [
    "md_cell",
    "pct",
    "FieldQuality",
    "QualityMetrics",
    "FieldImprovement",
    "ImprovementReport",
    "measure_quality",
    "compare_quality",
]

TEXT_FIELD = "text"
_PUNCT_SPACE = re.compile(r"[\W_]+")
_MISSING = object()


@dataclass
class FieldQuality:
    """Quality of one field of one record set."""

    field: str
    non_null: int
    nulls: int
    # share of non-null values with the field's dominant Python type (1.0 when none)
    type_consistency: float
    # share of non-null values conforming to the expected format (FieldProfile.score)
    conformity: float
    distinct: int  # distinct non-null values (1, 1.0 and "1" are three)
    # distinct after casefold, strip, whitespace/punctuation runs -> one space
    distinct_normalized: int
    open_issue: str | None  # the profiler's issue text


@dataclass
class QualityMetrics:
    """Per-field quality of a record set."""

    records: int
    fields: dict[str, FieldQuality]

    def to_dict(self) -> dict:
        """Plain dict (JSON-ready)."""
        return {"records": self.records, "fields": {k: asdict(v) for k, v in self.fields.items()}}


@dataclass
class FieldImprovement:
    """Before vs after for one field (``before``/``after`` is None where the field does not
    exist)."""

    field: str
    before: FieldQuality | None
    after: FieldQuality | None
    cells_changed: int
    # (distinct_before - distinct_after) / (distinct_before - 1), clipped to [0, 1]
    spelling_collapse: float
    accuracy_before: float | None = None
    accuracy_after: float | None = None


def _normalized(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    return _PUNCT_SPACE.sub(" ", text.casefold()).strip()


def pct(x: float | None) -> str:
    """0.667 -> '66.7%'; never rounds a value below 1 up to '100%'."""
    if x is None:
        return "—"
    text = f"{x * 100:.1f}".rstrip("0").rstrip(".")
    return "99.9%" if text == "100" and x < 1 else text + "%"


def md_cell(value: Any, limit: int = 60) -> str:
    """One markdown table cell: single line, ``|`` escaped, truncated with '…'."""
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text.replace("|", "\\|")


def _field_quality(name: str, values: list, profile) -> FieldQuality:
    present = [v for v in values if not is_missing(v)]
    types = Counter(type(v).__name__ for v in present)
    consistency = types.most_common(1)[0][1] / len(present) if present else 1.0
    return FieldQuality(
        field=name,
        non_null=len(present),
        nulls=len(values) - len(present),
        type_consistency=consistency,
        conformity=profile.score,
        distinct=len({value_key(v) for v in present}),
        distinct_normalized=len({_normalized(v) for v in present}),
        open_issue=profile.issue,
    )


def _text_quality(items: list) -> QualityMetrics:
    texts = [t for t in items if isinstance(t, str) and t.strip()]
    lines = [ln.strip() for t in texts for ln in t.splitlines() if ln.strip()]
    total = len(items)
    quality = FieldQuality(
        field=TEXT_FIELD,
        non_null=len(texts),
        nulls=total - len(texts),
        type_consistency=1.0,
        conformity=len(texts) / total if total else 1.0,
        distinct=len(set(lines)),
        distinct_normalized=len({_normalized(ln) for ln in lines}),
        open_issue=None,
    )
    return QualityMetrics(records=total, fields={TEXT_FIELD: quality})


def measure_quality(
    records: list, expectations: dict | None = None, *, csv_strings: bool | None = None
) -> QualityMetrics:
    """Per-field quality of structured records (dicts); uses ``profiler.profile_records``.

    Items that are not dicts are ignored. A list of strings (text mode) is one field "text":
    ``conformity`` is then the share of non-empty texts and ``distinct`` counts distinct lines.
    """
    records = list(records or [])
    dicts = [r for r in records if isinstance(r, dict)]
    if not dicts and any(isinstance(r, str) for r in records):
        return _text_quality(records)
    profiles = profile_records(dicts, expectations, csv_strings=csv_strings)
    rows = [_as_record(r) for r in dicts]
    fields = {
        name: _field_quality(name, [row.get(name) for row in rows], profile)
        for name, profile in profiles.items()
    }
    return QualityMetrics(records=len(dicts), fields=fields)


def _as_record(item: Any) -> dict:
    """A row for alignment: dicts as they are, a string as {"text": s}, anything else as an empty
    row."""
    if isinstance(item, dict):
        return {str(k): v for k, v in item.items()}
    if isinstance(item, str):
        return {TEXT_FIELD: item}
    return {}


def _cell_changed(old: Any, new: Any) -> bool:
    if old is new:
        return False
    if old is _MISSING or new is _MISSING:
        return True
    return type(old) is not type(new) or old != new


def _truth_text(value: Any) -> str:
    if value is None or value is _MISSING:
        return ""
    return value if isinstance(value, str) else str(value)


def _field_order(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(k for row in rows for k in row))


def _truth_fields(data_fields: list[str], truth_rows: list[dict]) -> dict[str, str]:
    """data field -> truth field: by name when every truth field is a data field, else by
    position."""
    truth_fields = _field_order(truth_rows)
    if all(t in data_fields for t in truth_fields):
        return {t: t for t in truth_fields}
    return dict(zip(data_fields, truth_fields))


def _accuracy(rows: list[dict], truth_rows: list[dict], name: str, truth_name: str) -> int:
    """How many of the truth rows' cells ``rows`` has right (exact strings after None == "")."""
    right = 0
    for i, truth in enumerate(truth_rows):
        value = rows[i].get(name) if i < len(rows) else None
        right += _truth_text(value) == _truth_text(truth.get(truth_name))
    return right


def _collapse(before: FieldQuality | None, after: FieldQuality | None) -> float:
    if before is None or after is None or before.distinct <= 1:
        return 0.0
    return min(1.0, max(0.0, (before.distinct - after.distinct) / (before.distinct - 1)))


@dataclass
class ImprovementReport:
    """What cleaning changed, per field and overall."""

    records: int
    rows_changed: int
    fields: dict[str, FieldImprovement]
    accuracy_before: float | None = None
    accuracy_after: float | None = None

    def summary(self) -> dict:
        """Overall numbers: mean conformity before/after, fields with open issues, rows changed,
        accuracy."""

        def mean(side: str) -> float | None:
            scores = [getattr(f, side).conformity for f in self.fields.values() if getattr(f, side)]
            return sum(scores) / len(scores) if scores else None

        def dirty(side: str) -> list[str]:
            return [
                n
                for n, f in self.fields.items()
                if getattr(f, side) and getattr(f, side).open_issue
            ]

        return {
            "records": self.records,
            "rows_changed": self.rows_changed,
            "fields": len(self.fields),
            "conformity_before": mean("before"),
            "conformity_after": mean("after"),
            "open_issues_before": dirty("before"),
            "open_issues_after": dirty("after"),
            "accuracy_before": self.accuracy_before,
            "accuracy_after": self.accuracy_after,
        }

    def to_dict(self) -> dict:
        """Plain dict (JSON-ready), with the ``summary()`` under "summary"."""
        out = asdict(self)
        out["summary"] = self.summary()
        return out

    def _has_truth(self) -> bool:
        return self.accuracy_before is not None or self.accuracy_after is not None

    def _rows(self, arrow: str) -> list[list[str]]:
        rows = []
        for name, f in self.fields.items():
            b, a = f.before, f.after

            def pair(attr: str, fmt) -> str:
                left = fmt(getattr(b, attr)) if b else "—"
                right = fmt(getattr(a, attr)) if a else "—"
                return f"{left}{arrow}{right}"

            row = [
                name,
                pair("conformity", pct),
                pair("type_consistency", pct),
                pair("distinct", str),
                str(f.cells_changed),
            ]
            if self._has_truth():
                row.append(f"{pct(f.accuracy_before)}{arrow}{pct(f.accuracy_after)}")
            rows.append(row)
        return rows

    def _header(self) -> list[str]:
        head = ["Field", "Conformity", "Type consistency", "Distinct spellings", "Cells changed"]
        return head + ["Accuracy"] if self._has_truth() else head

    def to_markdown(self) -> str:
        """A markdown table, one row per field (accuracy column only with ground truth)."""
        head = self._header()
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        for row in self._rows(" → "):
            name = md_code(row[0], 40, cell=True)
            lines.append("| " + " | ".join([name] + [md_cell(c) for c in row[1:]]) + " |")
        if self._has_truth():
            lines.append(
                f"| **all cells** | | | | | {pct(self.accuracy_before)} → "
                f"{pct(self.accuracy_after)} |"
            )
        return "\n".join(lines)

    def _title(self, arrow: str) -> str:
        title = f"{self.records} records, {self.rows_changed} rows changed"
        if self._has_truth():
            title += f", accuracy {pct(self.accuracy_before)}{arrow}{pct(self.accuracy_after)}"
        return title

    def _repr_markdown_(self) -> str:
        """Notebooks: the title line, then ``to_markdown()``."""
        return f"**{self._title(' → ')}**" + ("\n\n" + self.to_markdown() if self.fields else "")

    def _repr_html_(self) -> str:
        """Notebooks: a small HTML table, one row per field, the title as caption."""

        def row(cells: list[str], tag: str) -> str:
            return "<tr>" + "".join(f"<{tag}>{html_text(c)}</{tag}>" for c in cells) + "</tr>"

        body = [row(r, "td") for r in self._rows(" → ")]
        if self._has_truth():
            overall = f"{pct(self.accuracy_before)} → {pct(self.accuracy_after)}"
            body.append(row(["all cells", "", "", "", "", overall], "td"))
        return (
            "<table "
            f'class="recursive-cleaner-improvement"><caption>{html_text(self._title(" → "))}</'
            "caption>"
            f"<thead>{row(self._header(), 'th')}</thead><tbody>{''.join(body)}</tbody></table>"
        )

    def __str__(self) -> str:
        """Compact plain-text table (what ``print(report)`` shows)."""
        title = self._title(" -> ")
        if not self.fields:
            return title
        rows = [[c.lower() for c in self._header()]]
        rows += [[" ".join(r[0].split())[:24]] + r[1:] for r in self._rows(" -> ")]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        return "\n".join([title, *lines])


def compare_quality(
    before: list,
    after: list,
    *,
    expectations: dict | None = None,
    truth: list | None = None,
    csv_strings: bool | None = None,
) -> ImprovementReport:
    """Before/after metrics for the same records (same order); ``truth`` = the clean records,
    aligned by position.

    A cell counts as changed when its value or type differs, or when the field is present on only
    one side (a missing row counts all its cells). Accuracy compares each cell with the truth record
    at the same position as exact strings after a light normalisation: None and "" are equal and
    non-strings are compared as ``str(value)`` (12 == "12", but 12.0 == "12.0" != "12", True ==
    "True"). Truth fields are matched by name when every truth field name is a field of the data;
    otherwise (a CSV with other headers) by position in key order: the i-th field of ``before``
    (first-seen order, then fields only ``after`` has) is compared with the i-th field of ``truth``.
    """
    before, after = list(before or []), list(after or [])
    # read from ``before``: numbers written by the functions must not flip it
    if csv_strings is None:
        csv_strings = strings_only(before)
    q_before = measure_quality(before, expectations, csv_strings=csv_strings)
    q_after = measure_quality(after, expectations, csv_strings=csv_strings)
    rows_b, rows_a = [_as_record(r) for r in before], [_as_record(r) for r in after]
    names = list(
        dict.fromkeys(
            [*q_before.fields, *q_after.fields, *_field_order(rows_b), *_field_order(rows_a)]
        )
    )
    n_rows = max(len(rows_b), len(rows_a))
    changed = Counter()
    rows_changed = 0
    for i in range(n_rows):
        old = rows_b[i] if i < len(rows_b) else {}
        new = rows_a[i] if i < len(rows_a) else {}
        diff = [n for n in names if _cell_changed(old.get(n, _MISSING), new.get(n, _MISSING))]
        changed.update(diff)
        rows_changed += bool(diff)
    fields = {
        n: FieldImprovement(
            field=n,
            before=q_before.fields.get(n),
            after=q_after.fields.get(n),
            cells_changed=changed[n],
            spelling_collapse=_collapse(q_before.fields.get(n), q_after.fields.get(n)),
        )
        for n in names
    }
    report = ImprovementReport(records=n_rows, rows_changed=rows_changed, fields=fields)
    truth_rows = [_as_record(r) for r in truth or []]
    if truth is not None and truth_rows:
        right_b = right_a = compared = 0
        for name, truth_name in _truth_fields(names, truth_rows).items():
            rb, ra = (
                _accuracy(rows_b, truth_rows, name, truth_name),
                _accuracy(rows_a, truth_rows, name, truth_name),
            )
            fields[name].accuracy_before, fields[name].accuracy_after = (
                rb / len(truth_rows),
                ra / len(truth_rows),
            )
            right_b, right_a, compared = right_b + rb, right_a + ra, compared + len(truth_rows)
        if compared:
            report.accuracy_before, report.accuracy_after = right_b / compared, right_a / compared
    return report
