"""The whole file at a glance: one bounded streaming pass over a file's records, per column.

``profile_file(path)`` reads every record with the library's readers (``read.parsers``) once and
keeps, per column: the types of its values, the blanks (absent, ``None``, ``""``, a placeholder
such as "N/A": what ``apply.check.validate`` counts apart), the distinct values (exact up to
``DISTINCT_CAP``, then "N+"), the most frequent values (Misra-Gries with ``TOP_SLOTS`` counters:
exact while a column holds no more values than that, else each count a lower bound), a histogram of
text lengths in fixed bins, numbers' min / max / mean and a histogram of a fixed-size sample
(``SAMPLE`` values, a seeded reservoir), and, given a field spec, the wrong values by it (the
rule ``validate`` applies). Memory does not grow with the file: at most ``MAX_COLUMNS`` columns
(the others counted), each bounded by the caps above; ``steps`` counts the work done.

The result is plain JSON-ready data (``ReportData.profile``; ``json_io`` checks it on loading),
which ``html_profile`` renders. Every text in it comes from the data: escaped where shown.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from ...errors import CleanerError, clip_text
from ...profiling.expectations import Expectation, conforms, is_placeholder
from ...read import formats, parsers
from ...read.inputs import INPUT_DIR, given_as
from .data import ReportData

if TYPE_CHECKING:  # pragma: no cover
    from ...profiling.spec import CleaningSpec

__all__ = [
    "ColumnStats",
    "FileProfile",
    "profile_file",
    "profile_records",
    "add_profile",
    "wrong_counts",
    "source_label",
    "spec_checks",
    "LENGTH_EDGES",
    "MAX_COLUMNS",
    "DISTINCT_CAP",
    "TOP_SLOTS",
    "TOP_SHOWN",
    "SAMPLE",
    "NUMBER_BINS",
    "KEY_CHARS",
]

MAX_COLUMNS = 100  # columns profiled; the rest are counted, not described
DISTINCT_CAP = 1_000  # distinct values counted exactly up to this, then shown "1,000+"
TOP_SLOTS = 32  # Misra-Gries counters per column
TOP_SHOWN = 5  # the most frequent values shown
EVIDENCE_CHARS = 300  # the clause that binds a field, quoted at most
KEY_CHARS = 120  # a value's text kept as a top-value key at most (escaped where shown)
SAMPLE = 256  # numbers kept per column for the histogram (a seeded reservoir)
NUMBER_BINS = 8
# text lengths: 0, 1-4, 5-9, 10-19, 20-49, 50-99, 100-999, 1000 and more
LENGTH_EDGES = (0, 1, 5, 10, 20, 50, 100, 1000)
_WRITTEN = re.compile(r"input-[0-9a-f]{16}\.jsonl")  # the name materialize_input gives
_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")


def _kind(value: Any, strings_only: bool) -> str:
    """The type a value shows: integer, number, boolean, text, list, object (a CSV's numeric
    text counts as the number it writes)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        if strings_only and _INTEGER.fullmatch(value.strip()):
            return "integer"
        if strings_only and _NUMBER.fullmatch(value.strip()):
            return "number"
        return "text"
    return "list" if isinstance(value, list) else "object"


def _blank(value: Any) -> bool:
    """Absent as ``validate`` counts it: None, "", spaces, or a placeholder ("N/A", "null")."""
    return value is None or (
        isinstance(value, str) and (not value.strip() or is_placeholder(value))
    )


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=True, default=repr, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


@dataclass
class ColumnStats:
    """One column's running counts; every part bounded (see the module's caps)."""

    name: str
    present: int = 0  # values that are not blank
    types: dict[str, int] = field(default_factory=dict)
    digests: set[int] = field(default_factory=set)
    distinct_capped: bool = False
    top: dict[str, int] = field(default_factory=dict)
    top_exact: bool = True
    lengths: list[int] = field(default_factory=lambda: [0] * len(LENGTH_EDGES))
    numbers: int = 0
    low: float = math.inf
    high: float = -math.inf
    total: float = 0.0
    sample: list[float] = field(default_factory=list)
    checked: int = 0  # by the spec: values checked, and those that break it
    wrong: int = 0

    def add(self, value: Any, strings_only: bool, rng: random.Random) -> int:
        """Count one value that is not blank; returns the steps it took (for tests of the
        work)."""
        self.present += 1
        kind = _kind(value, strings_only)
        self.types[kind] = self.types.get(kind, 0) + 1
        text = _text(value)
        steps = 1 + self._distinct(kind, text) + self._count_top(text[:KEY_CHARS])
        if isinstance(value, str):
            self.lengths[bisect.bisect_right(LENGTH_EDGES, len(value)) - 1] += 1
        if kind in ("integer", "number"):
            try:
                number = float(value.strip() if isinstance(value, str) else value)
            except (OverflowError, ValueError):  # an int past a float's range
                number = math.nan
            if math.isfinite(number):
                self._number(number, rng)
        return steps

    def _distinct(self, kind: str, text: str) -> int:
        if self.distinct_capped:
            return 0
        self.digests.add(hash((kind, text)))  # one pass in one process: hash() is stable
        if len(self.digests) > DISTINCT_CAP:
            self.distinct_capped, self.digests = True, set()
        return 1

    def _count_top(self, key: str) -> int:
        """Misra-Gries: a known key +1, a new one a free counter, else every counter -1."""
        if key in self.top:
            self.top[key] += 1
            return 1
        if len(self.top) < TOP_SLOTS:
            self.top[key] = 1
            return 1
        self.top_exact = False
        for name in list(self.top):
            self.top[name] -= 1
            if not self.top[name]:
                del self.top[name]
        return 1 + TOP_SLOTS

    def _number(self, number: float, rng: random.Random) -> None:
        self.numbers += 1
        self.low, self.high, self.total = (
            min(self.low, number),
            max(self.high, number),
            (self.total + number),
        )
        if len(self.sample) < SAMPLE:
            self.sample.append(number)
        else:
            slot = rng.randrange(self.numbers)
            if slot < SAMPLE:
                self.sample[slot] = number

    def to_dict(self, records: int, expected: str = "", evidence: str = "") -> dict[str, Any]:
        """The column as ``ReportData.profile`` holds it."""
        top = sorted(self.top.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_SHOWN]
        out: dict[str, Any] = {
            "name": self.name,
            "types": dict(sorted(self.types.items(), key=lambda kv: -kv[1])),
            "nulls": max(records - self.present, 0),
            "distinct": DISTINCT_CAP if self.distinct_capped else len(self.digests),
            "distinct_capped": self.distinct_capped,
            "top": [[k, n] for k, n in top],
            "top_exact": self.top_exact,
            "lengths": list(self.lengths),
        }
        if self.numbers:
            out["numbers"] = {
                "count": self.numbers,
                "min": self.low,
                "max": self.high,
                "mean": self.total / self.numbers if math.isfinite(self.total) else None,
                "bins": _bins(self.sample, self.low, self.high),
                "sampled": self.numbers > SAMPLE,
            }
        if expected:
            out.update(expected=expected, checked=self.checked, wrong=self.wrong)
        if evidence:
            out["evidence"] = evidence
        return out


def _bins(sample: list[float], low: float, high: float) -> list[int]:
    """``NUMBER_BINS`` equal bins from ``low`` to ``high`` over the sample."""
    counts = [0] * NUMBER_BINS
    span = high - low
    for x in sample:
        i = 0 if not span or not math.isfinite(span) else int((x - low) / span * NUMBER_BINS)
        counts[min(max(i, 0), NUMBER_BINS - 1)] += 1
    return counts


@dataclass
class FileProfile:
    """The running profile of one file: records, skipped rows, columns, and the work done."""

    records: int = 0
    skipped: int = 0
    not_objects: int = 0  # records that are no object (a JSON array of scalars)
    columns: dict[str, ColumnStats] = field(default_factory=dict)
    more_columns: set[str] = field(default_factory=set)
    more_capped: bool = False
    steps: int = 0
    checks: dict[str, Expectation] = field(default_factory=dict)
    expected: dict[str, str] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)  # field -> the clause binding it
    strings_only: bool = False
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def add(self, record: Any) -> None:
        """Count one record."""
        self.records += 1
        self.steps += 1
        if not isinstance(record, dict):
            self.not_objects += 1
            return
        for key, value in record.items():
            name = str(key)
            column = self.columns.get(name)
            if column is None:  # a field the spec checks is always counted
                if len(self.columns) >= MAX_COLUMNS and name not in self.checks:
                    self._more(name)
                    continue
                column = self.columns[name] = ColumnStats(name)
            if _blank(value):
                continue
            self.steps += column.add(value, self.strings_only, self.rng)
            exp = self.checks.get(name)
            if exp is not None:
                column.checked += 1
                column.wrong += not conforms(value, exp, csv_strings=self.strings_only)

    def _more(self, name: str) -> None:
        if not self.more_capped:
            self.more_columns.add(clip_text(name, KEY_CHARS))
            self.more_capped = len(self.more_columns) >= DISTINCT_CAP

    def to_dict(self, label: str, note: str = "") -> dict[str, Any]:
        """The profile as ``ReportData.profile["before"]`` / ``["after"]`` holds it."""
        return {
            "label": label,
            "records": self.records,
            "skipped": self.skipped,
            "not_objects": self.not_objects,
            "columns": [
                c.to_dict(
                    self.records, self.expected.get(c.name, ""), self.evidence.get(c.name, "")
                )
                for c in self.columns.values()
            ],
            "more_columns": len(self.more_columns),
            "more_capped": self.more_capped,
            "note": note,
        }


def spec_checks(spec: CleaningSpec | None) -> dict[str, Expectation]:
    """The fields a spec checks, as ``validate`` checks them (a checkable kind, not ``as_is``)."""
    if spec is None:
        return {}
    return {n: exp for n, exp in spec.expectations().items() if exp.kind != "as_is"}


def _start(spec: CleaningSpec | None, strings_only: bool) -> FileProfile:
    checks = spec_checks(spec)
    expected = {n: e.describe(csv_strings=strings_only) for n, e in checks.items()}
    said = {
        n: clip_text(" ".join(fs.evidence.split()), EVIDENCE_CHARS)
        for n, fs in (spec.fields.items() if spec is not None else ())
        if fs.evidence
    }
    return FileProfile(checks=checks, expected=expected, evidence=said, strings_only=strings_only)


def profile_records(
    records: Iterable[Any],
    *,
    label: str,
    spec: CleaningSpec | None = None,
    strings_only: bool = False,
) -> dict[str, Any]:
    """The profile of records already read (a list or any iterable, streamed once), as
    ``profile_file`` gives it."""
    profile = _start(spec, strings_only)
    for record in records:
        profile.add(record)
    return profile.to_dict(label)


def profile_file(
    path: str | os.PathLike,
    *,
    label: str = "",
    spec: CleaningSpec | None = None,
    encoding: str = "utf-8",
) -> dict[str, Any]:
    """One streaming pass over a structured file (the library's readers): its profile as
    ``ReportData.profile`` holds it. A text file, or one that cannot be read now, gives a profile
    with no columns and a note saying why (the report is still written)."""
    path = os.fspath(path)
    fmt = formats.detect(path)
    label = label or path
    if not fmt.structured:
        return _start(None, False).to_dict(label, "a text input: no columns to profile")
    profile = _start(spec, fmt.strings_only)
    skipped = [0]

    def on_skip(_: Any) -> None:
        skipped[0] += 1

    try:
        for record in parsers.iter_records(
            path, encoding=encoding if fmt.decodes else "utf-8", on_skip=on_skip
        ):
            profile.add(record)
    except (OSError, ValueError, CleanerError) as exc:
        profile.skipped = skipped[0]
        return profile.to_dict(label, f"read stopped: {clip_text(exc, 200)}")
    profile.skipped = skipped[0]
    return profile.to_dict(label)


def source_label(path: str | os.PathLike, records: int | None = None) -> str:
    """The source as the user gave it when its path is a file the library wrote for data held in
    memory ("a DataFrame of 300 rows"); "" for a file the user named."""
    path = os.fspath(path)
    given = given_as(path)
    if given:
        return given
    folder = os.path.basename(os.path.dirname(path))
    if folder.startswith(INPUT_DIR) and _WRITTEN.fullmatch(os.path.basename(path)):
        size = f" of {records:,} records" if records is not None else ""
        return f"data given in memory (a DataFrame or a list of records){size}"
    return ""


def add_profile(
    data: ReportData,
    source: str | os.PathLike,
    *,
    output: str | os.PathLike | None = None,
    spec: CleaningSpec | None = None,
    encoding: str = "utf-8",
) -> ReportData:
    """Fill ``data.profile`` with the whole of ``source`` (read in ``encoding``) and, given, of
    ``output`` (UTF-8), the wrong values counted by ``spec``; and ``data.source_label`` when the
    source is data the user gave in memory. Returns ``data``."""
    before = profile_file(source, spec=spec, encoding=encoding)
    label = source_label(source, before["records"])
    if label:
        data.source_label = before["label"] = label
    data.profile = {"before": before}
    if output is not None:
        data.profile["after"] = profile_file(output, spec=spec)
    return data


def wrong_counts(profile: dict[str, Any]) -> dict:
    """``ReportData.whole_file`` from a profile's two sides: per field the spec checks, the wrong
    values before and after (the fields wrong on either side, as ``counts_from_checks`` gives)."""
    sides = [profile.get("before") or {}, profile.get("after") or {}]
    wrong = [
        {c["name"]: c["wrong"] for c in side.get("columns", []) if "wrong" in c} for side in sides
    ]
    names = [n for n in dict.fromkeys([*wrong[0], *wrong[1]]) if wrong[0].get(n) or wrong[1].get(n)]
    fields = {n: [wrong[0].get(n, 0), wrong[1].get(n, 0)] for n in names}
    return {"records": sides[0].get("records", 0), "fields": fields}
