"""``validate(data, spec)``: the cells of a dataset that break a field spec, field by field.

The spec is what a run wrote (``cleaning_spec.json``, edited or not) or any dict of that form: each
field in scope with a checkable kind (a date, a number, one of a list, a shape ...) is checked on
every record with the same ``conforms`` the judge uses; ``as_is`` fields and fields out of scope
are not checked, and a blank (``None``, ``""``, "N/A" and other placeholders) is counted apart, not
as a break. Use it on cleaned output, or on next month's export before it is cleaned.

Each break is a ``Violation``: its row (0-based), the DataFrame's index label, the field, the value
and why it breaks; ``SpecCheck.failures()`` gives them per field with the counts, ``to_frame()`` as
a DataFrame.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable

from .._extras import require
from ..profiling import kinds
from ..profiling.expectations import Expectation, conforms, is_placeholder
from ..profiling.spec import CleaningSpec, load_spec
from ..profiling.spec_file import check_forms
from ..read.inputs import frame_records

__all__ = ["validate", "SpecCheck", "Violation", "break_reason"]

SHOWN = 100  # violations kept per field (all are counted)


@dataclass(frozen=True)
class Violation:
    """One cell that breaks the spec: its record (0-based), field, value, why, and the DataFrame's
    index label (None for other data)."""

    row: int
    field: str
    value: Any
    why: str = ""
    index: Any = None


@dataclass
class SpecCheck:
    """What ``validate`` found: per field, values checked, blanks, breaks (counted) and the first
    ones."""

    records: int = 0
    expected: dict[str, str] = field(default_factory=dict)  # field -> the format, described
    checked: dict[str, int] = field(default_factory=dict)
    blank: dict[str, int] = field(default_factory=dict)
    broken: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[Violation]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(self.broken.values())

    def failures(self) -> dict[str, dict[str, Any]]:
        """Per checked field: ``expected``, ``checked``, ``blank``, ``broken`` (counts) and
        ``cells``, the first breaks as ``{"row", "index", "value", "why"}``."""
        return {
            name: {
                "expected": need,
                "checked": self.checked.get(name, 0),
                "blank": self.blank.get(name, 0),
                "broken": self.broken.get(name, 0),
                "cells": [
                    {"row": v.row, "index": v.index, "value": v.value, "why": v.why}
                    for v in self.examples.get(name, [])
                ],
            }
            for name, need in self.expected.items()
        }

    def to_frame(self) -> Any:
        """The breaks kept as a pandas DataFrame: one row per cell (field, row, index, value,
        why)."""
        pd = require("pandas", "SpecCheck.to_frame")
        columns = ["field", "row", "index", "value", "why"]
        cells = [
            [v.field, v.row, v.index, v.value, v.why]
            for name in self.expected
            for v in self.examples.get(name, [])
        ]
        return pd.DataFrame(cells, columns=columns)

    def summary(self) -> str:
        """One line per checked field: 'email: 3 of 120 values break lower-case email addresses,
        e.g. ...'."""
        lines = [f"{self.records} record(s) checked against {len(self.expected)} field format(s)"]
        for name, need in self.expected.items():
            wrong, seen = self.broken.get(name, 0), self.checked.get(name, 0)
            shown = ", ".join(repr(v.value)[:40] for v in self.examples.get(name, [])[:3])
            lines.append(
                f"{name}: {wrong} of {seen} value(s) break {need}"
                + (f", e.g. {shown}" if wrong else "")
            )
        return "\n".join(lines)


def _records(data: Any, encoding: str) -> tuple[Iterable[dict], bool | None, list | None]:
    """(records, csv_strings, index labels) of a path (streamed, in ``encoding``: only CSV holds
    text alone), a DataFrame (NaN/NaT read as blanks, its index kept) or records (None: decide
    from the values)."""
    if isinstance(data, (str, os.PathLike)):
        from ..read.formats import detect
        from ..read.parsers import iter_records

        path = os.fspath(data)
        return iter_records(path, encoding=encoding), detect(path).strings_only, None
    # a pandas DataFrame, without importing pandas
    if hasattr(data, "to_dict") and hasattr(data, "columns") and hasattr(data, "index"):
        return frame_records(data), None, list(data.index)
    return data, None, None


def break_reason(value: Any, exp: Expectation, need: str, csv_strings: bool = False) -> str:
    """Why ``value`` breaks ``exp``: what is wrong with it when that is plain, then the format
    wanted (``need``)."""
    text = value if isinstance(value, str) else None
    if text is not None and text != text.strip():
        problem = "spaces around it"
    elif exp.kind in ("number", "integer") and (text is not None or isinstance(value, bool)):
        problem = (
            "a boolean, not a number"
            if text is None
            else ("not a plain number" if csv_strings else "text, not a number")
        )
    elif exp.kind == "bool" and not isinstance(value, bool):
        problem = f"a {type(value).__name__}, not a boolean"
    elif text is not None and _values(exp) is not None:
        problem = "not one of the allowed values"
    elif text is None and exp.kind not in ("number", "integer"):
        problem = f"a {type(value).__name__}, not text"
    else:
        problem = "not in that form"
    return f"{problem}; expected {need}"


def _values(exp: Expectation) -> tuple | None:
    kind = kinds.get(exp.kind)
    return kind.values(tuple(exp.allowed)) if kind is not None else None


def validate(
    data: Any,
    spec: CleaningSpec | dict | str | os.PathLike,
    *,
    shown: int = SHOWN,
    encoding: str = "utf-8",
) -> SpecCheck:
    """The cells of ``data`` (a file path, read in ``encoding``; a DataFrame or records) that break
    ``spec`` (a ``CleaningSpec``, its dict, or a ``cleaning_spec.json`` path), field by field;
    ``shown`` violations are kept per field."""
    spec = (
        check_forms(spec)  # a spec made in Python: the forms load_spec checks
        if isinstance(spec, CleaningSpec)
        else load_spec(os.fspath(spec) if isinstance(spec, os.PathLike) else spec)
    )
    checks: dict[str, Expectation] = {
        name: exp for name, exp in spec.expectations().items() if exp.kind != "as_is"
    }
    records, csv_strings, labels = _records(data, encoding)
    rows = list(records) if csv_strings is None else records
    if csv_strings is None:  # strings only (a CSV read as records): numbers written as text conform
        csv_strings = all(
            isinstance(v, str)
            for r in rows
            if isinstance(r, dict)
            for v in r.values()
            if v is not None
        )
    out = SpecCheck(
        expected={name: exp.describe(csv_strings=csv_strings) for name, exp in checks.items()}
    )
    for row, record in enumerate(rows):
        out.records += 1
        if not isinstance(record, dict):
            continue
        for name, exp in checks.items():
            value = record.get(name)
            if value is None or (
                isinstance(value, str) and (not value.strip() or is_placeholder(value))
            ):
                out.blank[name] = out.blank.get(name, 0) + 1
                continue
            out.checked[name] = out.checked.get(name, 0) + 1
            if not conforms(value, exp, csv_strings=csv_strings):
                out.broken[name] = out.broken.get(name, 0) + 1
                if len(out.examples.get(name, ())) < shown:
                    label = labels[row] if labels is not None else None
                    reason = break_reason(value, exp, out.expected[name], csv_strings)
                    out.examples.setdefault(name, []).append(
                        Violation(row, name, value, reason, label)
                    )
    return out
