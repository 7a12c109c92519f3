"""What the data says of a conversion: the fields that hold units, the spelling most rows give a
unit, the number field beside a unit field, the decimals the target rows write."""

from __future__ import annotations

import re
from collections import Counter

from ..._toolkit_units import UNITS, same_unit, unit_key
from ...toolkit import to_number
from ..kinds.numbers import decimals_said

__all__ = [
    "UNIT_TOKEN",
    "COMMON_WORDS",
    "is_unit",
    "unit_fields",
    "rows_with",
    "spelling",
    "may_target",
    "units_in",
    "places_said",
    "places_written",
    "value_field_of",
]

UNIT_TOKEN = re.compile(r"[A-Za-zµμ]{1,12}(?:\s?/\s?[A-Za-z]{1,6})?")
# "whole km", "no decimals", "to the nearest km": a whole number of the target unit (never "the
# nearest tenth")
_WHOLE = re.compile(
    r"\bwhole\b|\bintegers?\b|\bno decimals\b|\bnearest\s+"
    r"(?!(?:tenth|hundredth|thousandth|cent|penny|pence|decimal|place|digit)s?\b)[A-Za-z]{1,8}\b",
    re.I,
)
# units that are also words: only as the data writes them
COMMON_WORDS = {"in", "m", "t", "g", "l", "ft", "pt", "lt"}
_UNIT_PARTS = re.compile(
    r"(?:^|[_\s-])(?:unit|units|uom|u)(?=$|[_\s-])|(?<=[a-z])(?:Unit|UOM)$", re.I
)
_MIN_UNIT_SHARE = 0.8  # of a unit field's present values that are units
_MAX_UNIT_CHARS = 12


def _present(values: list | None) -> list[str]:
    return [v.strip() for v in values or () if isinstance(v, str) and v.strip()]


def is_unit(value: str) -> bool:
    """A unit written alone: no digits, short, a unit the table knows or ``a/b``."""
    if len(value) > _MAX_UNIT_CHARS or any(c.isdigit() for c in value):
        return False
    key = unit_key(value)
    return key in UNITS or bool(re.fullmatch(r"[a-zµμ]{1,8}/[a-z]{1,6}", key))


def unit_fields(fields: list[str], data: dict[str, list]) -> dict[str, Counter]:
    """``{field: Counter of its values}`` of the fields whose values are units."""
    out = {}
    for name in fields:
        values = _present(data.get(name))
        if len(values) >= 3 and sum(map(is_unit, values)) >= _MIN_UNIT_SHARE * len(values):
            out[name] = Counter(values)
    return out


def rows_with(unit: str, values: Counter) -> int:
    return sum(n for v, n in values.items() if same_unit(v, unit))


def spelling(unit: str, values: Counter) -> str:
    """The spelling most of the field's rows give ``unit`` (the goals' own when none has it)."""
    spelled = [(n, v == unit, v) for v, n in values.items() if same_unit(v, unit)]
    return max(spelled)[2] if spelled else unit  # a tie: the goals' own spelling


def may_target(token: str, source: str, values: Counter) -> bool:
    """A unit no row has yet may be the target: one the table knows in the source's dimension, or
    a/b by a/b."""
    if rows_with(token, values):
        return True
    key, src = unit_key(token), unit_key(source)
    if key in UNITS and src in UNITS:
        return (
            token not in COMMON_WORDS
            and UNITS[key][0] == UNITS[src][0]
            and UNITS[key] != UNITS[src]
        )
    return "/" in key and "/" in src and key != src


def units_in(text: str, values: Counter) -> list[str]:
    """The unit spellings of ``text`` (in order, one per unit) that the field's rows hold or that
    are units."""
    found: list[str] = []
    for m in UNIT_TOKEN.finditer(text):
        token = re.sub(r"\s", "", m.group())
        if not is_unit(token) or (token.lower() in COMMON_WORDS and not rows_with(token, values)):
            continue
        if not any(same_unit(token, f) for f in found):
            found.append(token)
    return found


def places_said(text: str) -> int | None:
    said = decimals_said(text)
    return said[0] if said else 0 if _WHOLE.search(text) else None


_DECIMALS = re.compile(r"[+-]?\d+(?:[.,](\d+))?")
_MIN_WRITTEN = 5  # rows in the target unit that show how its numbers are written


def places_written(value: str, unit: str, target: str, data: dict[str, list]) -> int | None:
    """The decimals the value field's numbers already in ``target`` are written with, when most of
    them agree (the goals name no rounding: the converted rows are written as the others are)."""
    counts: Counter = Counter()
    for v, u in zip(data.get(value) or [], data.get(unit) or []):
        if isinstance(u, str) and isinstance(v, str) and same_unit(u.strip(), target):
            m = _DECIMALS.fullmatch(v.strip())
            if m:
                counts[len(m.group(1) or "")] += 1
    if sum(counts.values()) < _MIN_WRITTEN:
        return None
    places, n = counts.most_common(1)[0]
    return places if n >= _MIN_UNIT_SHARE * sum(counts.values()) else None


def value_field_of(
    unit: str, fields: list[str], data: dict[str, list], rows: list[int]
) -> str | None:
    """The number field ``unit`` belongs to: named by the unit field's name, else the column before
    it."""
    stem = _UNIT_PARTS.sub("", unit).strip("_- ").lower()
    named = [f for f in fields if f != unit and stem and f.lower().startswith(stem)]
    before = fields[fields.index(unit) - 1 : fields.index(unit)] if fields.index(unit) > 0 else []
    for name in named[:1] or before:
        values = data.get(name) or []
        at = [values[i] for i in rows if i < len(values) and values[i] not in (None, "")]
        numbers = [
            v
            for v in at
            if isinstance(to_number(v), (int, float)) and not isinstance(to_number(v), bool)
        ]
        if at and len(numbers) >= _MIN_UNIT_SHARE * len(at):
            return name
    return None
