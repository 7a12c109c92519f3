"""Scoring repaired data against ground truth (stdlib only).

Tables (CSV benchmarks: hospital, beers, flights)
    The Baran metric, cell by cell **by position** (row i, column j); header names are
    never compared, so the clean file may spell them differently. Over the data cells:

    * error cells     dirty != clean
    * changed cells   repaired != dirty
    * correct repairs changed cells where repaired == clean
    * broken cells    dirty == clean but repaired != clean (a clean cell made wrong)
    * precision = correct / changed, recall = correct / errors, F1 their harmonic mean.

    Zero denominators follow Raha/Baran's own evaluation code
    (``raha/dataset.py: get_data_cleaning_evaluation``): precision is 0.0 when nothing was
    changed, recall is 0.0 when there are no error cells, F1 is 0.0 when P + R == 0. So
    a cleaner that does nothing scores P = R = F1 = 0, never a free precision of 1.

Values are compared as exact strings, as the cleaned records read back from a CSV file;
:func:`to_csv_text` turns a cleaned value into that text the way ``csv.writer`` would
(``None`` -> ``""``, other scalars ``str()``: ``12.0`` stays ``"12.0"``, ``5`` -> ``"5"``,
``True`` -> ``"True"``); lists and dicts, which ``csv.writer`` would write as Python
reprs, are written as JSON instead. Raha additionally normalises every value
(HTML unescape, runs of whitespace collapsed, strip); that is :func:`raha_normalize`,
optional and off by default.

Records (JSONL ground truth, e.g. the CRM sample)
    :func:`score_records` compares by key, record i with record i. The cells are the
    ground truth's keys; a key missing from the repaired record never matches. Two values
    match when they are equal as JSON numbers (``99`` == ``99.0``; booleans are not
    numbers) or their :func:`to_csv_text` forms are equal (``"US"`` == ``"US"``,
    ``"1024"`` == ``1024``). ``strict`` matching also requires the same JSON type
    (numbers still compare numerically), so ``"1024"`` != ``1024`` there.
"""

from __future__ import annotations

import csv
import html
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

__all__ = [
    "CellScore",
    "RecordScore",
    "to_csv_text",
    "raha_normalize",
    "read_csv_table",
    "write_csv_table",
    "score_tables",
    "values_match",
    "score_records",
]

Table = Sequence[Sequence[Any]]
_MISSING = object()
_WHITESPACE = re.compile(r"[\t\n ]+")


def to_csv_text(value: Any) -> str:
    """The text a CSV writer puts in a cell for ``value`` (None -> "", containers as JSON)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def raha_normalize(text: str) -> str:
    """Raha's value normaliser: HTML unescape, collapse runs of spaces/tabs/newlines, strip."""
    return _WHITESPACE.sub(" ", html.unescape(text)).strip("\t\n ")


def read_csv_table(path: str) -> list[list[str]]:
    """All rows of a CSV file (header included) as lists of str; UTF-8, BOM dropped, blank lines
    skipped."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        return [row for row in csv.reader(f) if row]


def write_csv_table(path: str, rows: Table) -> None:
    """Write rows (header included) as CSV, each value through :func:`to_csv_text`."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        for row in rows:
            writer.writerow([to_csv_text(v) for v in row])


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class CellScore:
    """Cell counts of one repaired table and the Baran precision / recall / F1 derived from them."""

    rows: int = 0
    columns: int = 0
    cells: int = 0
    error_cells: int = 0
    changed_cells: int = 0
    correct_repairs: int = 0
    broken_cells: int = 0
    accurate_cells: int = 0
    per_column: list[dict[str, Any]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        """correct / changed; 0.0 when nothing changed (Baran's convention)."""
        return _ratio(self.correct_repairs, self.changed_cells)

    @property
    def recall(self) -> float:
        """correct / error cells; 0.0 when there are no error cells."""
        return _ratio(self.correct_repairs, self.error_cells)

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)

    @property
    def cell_accuracy(self) -> float:
        """Fraction of all cells where repaired == clean."""
        return _ratio(self.accurate_cells, self.cells)

    @property
    def dirty_accuracy(self) -> float:
        """Fraction of all cells where dirty == clean (the do-nothing baseline)."""
        return _ratio(self.cells - self.error_cells, self.cells)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "columns": self.columns,
            "cells": self.cells,
            "error_cells": self.error_cells,
            "changed_cells": self.changed_cells,
            "correct_repairs": self.correct_repairs,
            "broken_cells": self.broken_cells,
            "accurate_cells": self.accurate_cells,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "cell_accuracy": self.cell_accuracy,
            "dirty_accuracy": self.dirty_accuracy,
            "per_column": self.per_column,
        }


def _check_shape(dirty: Table, clean: Table, repaired: Table) -> None:
    tables = {"dirty": dirty, "clean": clean, "repaired": repaired}
    lengths = {name: len(t) for name, t in tables.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"tables differ in number of rows: {lengths}")
    for i, rows in enumerate(zip(dirty, clean, repaired)):
        widths = dict(zip(tables, map(len, rows)))
        if len(set(widths.values())) != 1:
            raise ValueError(f"row {i} differs in number of columns: {widths}")


def score_tables(
    dirty: Table,
    clean: Table,
    repaired: Table,
    *,
    header: bool = True,
    column_names: Sequence[str] | None = None,
    normalize: Callable[[str], str] | None = None,
) -> CellScore:
    """Baran metric of ``repaired`` against ``clean``, cell by cell by position.

    With ``header`` the first row of each table is a header: it is skipped and its names
    are never compared (they may differ). Every value goes through :func:`to_csv_text`,
    then ``normalize`` if given (e.g. :func:`raha_normalize`). The three tables must have
    the same number of rows and each row the same width in all three, else ValueError.
    """
    _check_shape(dirty, clean, repaired)
    start = 1 if header and dirty else 0
    if column_names is None:
        column_names = [to_csv_text(v) for v in dirty[0]] if header and dirty else []
    norm = normalize or (lambda s: s)
    score = CellScore(rows=len(dirty) - start)
    columns: list[dict[str, Any]] = []
    for d_row, c_row, r_row in zip(dirty[start:], clean[start:], repaired[start:]):
        score.columns = max(score.columns, len(d_row))
        while len(columns) < len(d_row):
            j = len(columns)
            name = column_names[j] if j < len(column_names) else f"column_{j + 1}"
            columns.append({"column": name, "errors": 0, "changed": 0, "correct": 0, "broken": 0})
        for j, (d, c, r) in enumerate(zip(d_row, c_row, r_row)):
            d, c, r = norm(to_csv_text(d)), norm(to_csv_text(c)), norm(to_csv_text(r))
            col = columns[j]
            score.cells += 1
            is_error, changed, right = d != c, r != d, r == c
            score.error_cells += is_error
            col["errors"] += is_error
            score.accurate_cells += right
            if changed:
                score.changed_cells += 1
                col["changed"] += 1
                score.correct_repairs += right
                col["correct"] += right
                if not is_error:
                    score.broken_cells += 1
                    col["broken"] += 1
    score.per_column = columns
    return score


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def values_match(truth: Any, value: Any, *, strict: bool = False) -> bool:
    """Whether a cleaned value matches the ground truth (see the module docstring)."""
    if value is _MISSING:
        return False
    if _is_number(truth) and _is_number(value):
        if math.isnan(truth) and math.isnan(value):
            return True
        return truth == value
    if strict:
        return type(truth) is type(value) and truth == value
    return to_csv_text(truth) == to_csv_text(value)


@dataclass
class RecordScore:
    """Matching cells of repaired records against ground-truth records, overall and per field."""

    records: int = 0
    cells: int = 0
    matching: int = 0
    strict_matching: int = 0
    missing_keys: int = 0
    per_field: dict[str, list[int]] = field(default_factory=dict)  # field -> [matching, total]

    @property
    def accuracy(self) -> float:
        return _ratio(self.matching, self.cells)

    @property
    def strict_accuracy(self) -> float:
        return _ratio(self.strict_matching, self.cells)

    def field_accuracy(self) -> dict[str, float]:
        """Accuracy of each ground-truth field."""
        return {k: _ratio(m, n) for k, (m, n) in self.per_field.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "cells": self.cells,
            "matching": self.matching,
            "strict_matching": self.strict_matching,
            "missing_keys": self.missing_keys,
            "accuracy": self.accuracy,
            "strict_accuracy": self.strict_accuracy,
            "field_accuracy": self.field_accuracy(),
        }


def score_records(truth: Sequence[dict], repaired: Sequence[Any]) -> RecordScore:
    """Cell accuracy of ``repaired`` against ``truth`` by key, record i against record i.

    A repaired record that is not a dict matches none of its cells. ValueError if the
    lengths differ or a ground-truth record is not a dict.
    """
    if len(truth) != len(repaired):
        raise ValueError(
            f"record counts differ: truth has {len(truth)}, repaired has {len(repaired)}"
        )
    score = RecordScore(records=len(truth))
    for i, (want, got) in enumerate(zip(truth, repaired)):
        if not isinstance(want, dict):
            raise ValueError(
                f"ground-truth record {i} is not an object (got {type(want).__name__})"
            )
        got = got if isinstance(got, dict) else {}
        for key, expected in want.items():
            value = got.get(key, _MISSING)
            score.missing_keys += value is _MISSING
            ok = values_match(expected, value)
            strict_ok = values_match(expected, value, strict=True)
            counts = score.per_field.setdefault(key, [0, 0])
            counts[0] += ok
            counts[1] += 1
            score.cells += 1
            score.matching += ok
            score.strict_matching += strict_ok
    return score
