"""The output's types from the field spec: blanks as nulls where a field is a number or a date, and
real column types (Parquet, DataFrames) where every value conforms.

The spec is the one a run wrote beside its functions (``cleaning_spec.json``: ``spec_beside``) or
one given (``--spec``, ``spec=``). A field in scope whose kind is ``integer``, ``number``, ``date``
or ``datetime`` gets a ``ColumnType``:

* every output: a blank value (``""`` or only whitespace, as a CSV's empty cell) is written as
  null (CSV: an empty cell, as before; JSONL/JSON: ``null``);
* Parquet: the column is int64 (whole numbers: ints, integral floats, or plain integer text such
  as ``"42"``, no leading zero), double (numbers, or plain decimal text), date32 (ISO dates) or a
  timestamp (ISO 8601 timestamps; with an offset: UTC) when every value converts; else its values
  decide as before (``read.formats.table_writers``);
* DataFrames (``apply_frame``): ``Int64`` (nullable whole numbers), ``float64``, ``datetime64``
  by the same rule (``typed_frame``).

A datetime the goals write another way (a ``form``) stays text: that form is the value asked for.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

from .report import spec_beside
from ..profiling.spec import CleaningSpec, load_spec
from ..read.formats.output import is_blank

__all__ = [
    "ColumnType",
    "TYPED_KINDS",
    "column_types",
    "output_spec",
    "spec_inputs",
    "typed_frame",
]

TYPED_KINDS = ("integer", "number", "date", "datetime")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_ISO_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?"
    r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?"
)
_EXACT = 2**53  # a float holds every whole number up to here
_INT64 = 2**63


@dataclass(frozen=True)
class ColumnType:
    """How one field's values become a typed column: ``convert(value)`` -> (value, type name) or
    ValueError; ``default``: the type of a column with nothing but blanks."""

    kind: str

    @property
    def default(self) -> str:
        return {"integer": "int64", "number": "double", "date": "date32"}.get(
            self.kind, "timestamp"
        )

    def convert(self, value: Any) -> tuple[Any, str]:
        """The typed value and its type name (int64, double, date32, timestamp, timestamp_utc);
        ValueError when ``value`` does not conform."""
        if isinstance(value, bool):
            raise ValueError("a boolean")
        if self.kind == "integer":
            return _whole(value), "int64"
        if self.kind == "number":
            return _number(value), "double"
        if not isinstance(value, str):
            raise ValueError("not text")
        if self.kind == "date":
            if not _ISO_DATE.fullmatch(value):
                raise ValueError("not an ISO date")
            return dt.date.fromisoformat(value), "date32"
        if not _ISO_DATETIME.fullmatch(value):
            raise ValueError("not an ISO timestamp")
        stamp = dt.datetime.fromisoformat(value)
        if stamp.tzinfo is None:
            return stamp, "timestamp"
        return stamp.astimezone(dt.timezone.utc), "timestamp_utc"


def _whole(value: Any) -> int:
    if isinstance(value, int) and -_INT64 <= value < _INT64:
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        if abs(value) <= _EXACT:
            return int(value)
    if isinstance(value, str) and len(value) <= 20 and _INT.fullmatch(value):
        number = int(value)
        if -_INT64 <= number < _INT64:
            return number
    raise ValueError("not a whole number")


def _number(value: Any) -> float:
    if isinstance(value, int) and abs(value) <= _EXACT:
        return float(value)
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str) and len(value) <= 40 and _DECIMAL.fullmatch(value):
        number = float(value)
        if math.isfinite(number):
            return number
    raise ValueError("not a number")


def column_types(spec: CleaningSpec | None) -> dict[str, ColumnType]:
    """The typed fields of ``spec``: in scope, a number, a whole number, an ISO date or timestamp
    (a datetime written in another form stays text)."""
    if spec is None:
        return {}
    out = {}
    for name, exp in spec.expectations().items():
        if exp.kind in TYPED_KINDS and not (exp.kind == "datetime" and exp.allowed):
            out[name] = ColumnType(exp.kind)
    return out


def output_spec(
    spec: Any, functions_path: str | os.PathLike | None, code: str | None
) -> CleaningSpec | None:
    """The spec that types an apply's output: ``spec`` (a ``CleaningSpec``, its dict or a path;
    False: none), else the ``cleaning_spec.json`` beside ``functions_path`` when the functions are
    read from that file (``code`` None: a caller holding its own code passes its own spec); a
    found one that cannot be read is a UserWarning and no spec (a given one: its ValueError)."""
    if spec is False or (spec is not None and not spec):  # False, or an empty spec
        return None
    if spec is None:
        found = None if code is not None or functions_path is None else spec_beside(functions_path)
        if found is None:
            return None
        try:  # found, not given: one that cannot be read types nothing, with a warning
            return load_spec(found)
        except ValueError as exc:
            warnings.warn(
                f"{found} is not used to type the output: {exc}", UserWarning, stacklevel=3
            )
            return None
    if isinstance(spec, CleaningSpec):
        return spec
    return load_spec(os.fspath(spec) if isinstance(spec, os.PathLike) else spec)


def spec_inputs(
    spec: Any, functions_path: str | os.PathLike | None, code: str | None
) -> dict[str, str]:
    """The spec file ``output_spec`` reads, named for a path check (an input: no output of the run
    may be written over it): ``spec`` when it is a path, else the one found beside the
    functions."""
    if isinstance(spec, (str, os.PathLike)):
        return {"spec": os.fspath(spec)}
    if spec is None and code is None and functions_path is not None:
        found = spec_beside(functions_path)
        return {f"the spec of {os.fspath(functions_path)}": found} if found else {}
    return {}


def typed_frame(frame: Any, types: dict[str, ColumnType], labels: dict | None = None) -> Any:
    """``frame`` with each typed column (by record key; ``labels``: key -> column label) blank as
    missing and, when every value converts, of its real dtype (Int64, float64, datetime64)."""
    import pandas as pd

    labels = labels or {}
    for key, typed in types.items():
        label = labels.get(key, key)
        if label not in frame.columns or not isinstance(frame.columns.get_loc(label), int):
            continue
        position = frame.columns.get_loc(label)
        values = [None if _missing(v) else v for v in frame.iloc[:, position].tolist()]
        try:
            pairs = [None if v is None else typed.convert(v) for v in values]
        except (ValueError, TypeError, OverflowError):
            column = frame.iloc[:, position]
            if column.dtype == object:
                frame.isetitem(position, column.where(~column.map(is_blank), None))
            continue
        names = {p[1] for p in pairs if p is not None} or {typed.default}
        converted = [None if p is None else p[0] for p in pairs]
        if names == {"int64"}:
            column = pd.array(converted, dtype="Int64")
        elif names <= {"int64", "double"}:
            column = pd.array([math.nan if v is None else float(v) for v in converted], "float64")
        elif names in ({"date32"}, {"timestamp"}):
            column = pd.to_datetime(pd.Series(converted, dtype=object)).array
        elif names == {"timestamp_utc"}:
            column = pd.to_datetime(pd.Series(converted, dtype=object), utc=True).array
        else:
            continue
        # by position: a Series here would be aligned on its own index (0..n-1), not the frame's
        frame.isetitem(position, pd.Series(column, index=frame.index).array)
    return frame


def _missing(value: Any) -> bool:
    """Blank, NaN, or pandas' NA / NaT."""
    if is_blank(value):
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")
