"""``CleaningSpec.to_pandera()``: the field spec as a pandera ``DataFrameSchema`` (extra pandera).

One column per field of the spec, none of them required (as ``validate``, a missing field is
not a break) and every one nullable (None/NaN is a blank; unlike ``validate``, "" and "N/A" are
values to pandera). A field in scope with a checkable kind gets its kind's checks, read from the
kinds' registry: ``isin`` when the kind knows every conforming value (an enumeration's allowed
values, country and state codes), ``str_matches`` when a regex says the form (dates, times,
phone numbers, e-mail addresses), with the kind's own ``conforms`` run on the values that match
when the regex alone does not say it all (a real date, lower case); any other kind (numbers,
booleans, text cases, shapes, a plug-in's) is its ``conforms``, value by value. No dtype is set:
a cleaned column holding None comes back from ``apply_frame`` as ``object``, which is no break. A
field left alone (``as_is``, out of scope, no kind, ``free``) gets no checks. pandera is imported
only here.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Callable

from .._extras import require
from . import kinds

__all__ = ["pandera_schema", "field_checks"]


def _pandera() -> Any:
    """``pandera.pandas`` (0.24+), else the top-level module of older versions."""
    require("pandera", "CleaningSpec.to_pandera()")
    try:
        return importlib.import_module("pandera.pandas")
    except ModuleNotFoundError:  # pragma: no cover - pandera before 0.24
        return importlib.import_module("pandera")


def pandera_schema(spec: Any, *, csv_strings: bool = False, strict: bool = False) -> Any:
    """A ``pandera.DataFrameSchema`` checking what ``spec`` (a ``CleaningSpec``) says each field
    should look like.

    ``csv_strings``: the table's values are all text (a CSV read with ``dtype=str``), so numbers
    and booleans written as plain text conform. ``strict``: a column the spec does not name is an
    error.
    """
    pa = _pandera()
    checked = {n: e for n, e in spec.expectations().items() if e.kind != "as_is"}
    columns = {}
    for name in spec.fields:
        exp = checked.get(name)
        checks = field_checks(pa, exp.kind, exp.allowed, csv_strings) if exp is not None else []
        columns[name] = pa.Column(
            checks=checks,
            nullable=True,
            required=False,
            description=exp.describe(csv_strings=csv_strings) if exp is not None else "left alone",
        )
    return pa.DataFrameSchema(columns, strict=strict, name="cleaning_spec")


def field_checks(pa: Any, kind_name: str, allowed: tuple, csv_strings: bool = False) -> list:
    """The pandera checks of one field of kind ``kind_name`` with its ``allowed`` values."""
    kind = kinds.get(kind_name)
    if kind is None:
        return []
    allowed = tuple(allowed)
    words = kind.describe(allowed, csv_strings)
    values = kind.values(allowed)
    if values is not None:
        return [pa.Check.isin(list(values), error=f"one of the allowed values: {words}")]
    pattern = kind.regex_for(allowed)

    def conforming(value: Any) -> bool:
        return kind.conforms(value, allowed, csv_strings)

    if not pattern:
        return [_element_check(pa, conforming, kind.name, words)]
    checks = [pa.Check.str_matches(f"(?:{pattern})$", error=f"the form of {words}")]
    if not kind.regex_exact:  # the form is right: the kind's own check says the rest
        form = re.compile(pattern)
        checks.append(
            _element_check(
                pa,
                lambda v: not isinstance(v, str) or not form.fullmatch(v) or conforming(v),
                kind.name,
                words,
            )
        )
    return checks


def _element_check(pa: Any, test: Callable[[Any], bool], name: str, words: str) -> Any:
    """A value-by-value check (blanks are left out by pandera before it runs)."""
    return pa.Check(lambda value: bool(test(value)), element_wise=True, name=name, error=words)
