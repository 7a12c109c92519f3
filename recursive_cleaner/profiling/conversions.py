"""Unit conversions the goals state across two fields: a number field and the unit field beside it.

"Where the volume unit is gallons, multiply the volume by 3.785, round to 2 decimals and set the
unit to L"; "take the mg/dL number, divide by 18, round to one decimal, and put mmol/L as the unit";
"gallons to litres (x 3.785, 2 decimals) and miles to km (x 1.609, whole numbers)".

The words give only the factor and the rounding: ``multiply … by N``, ``times N``, ``x N``,
``× N``, ``divide … by N``, ``/ N``, ``÷ N``, or ``1 gal = 3.785 L``; ``N decimals`` / ``N dp`` /
``whole numbers``. The data gives the rest:

- the **unit field** is a field whose values are units (no digits: ``mg/dL``, ``gal``, ``km``) and
  hold a unit the sentence names before the factor (after it when none stands before);
- the sentence's two units of that field (spellings of one unit count once: ``litres`` is ``L``)
  are the source and the target; the **source** is the one fewer of the field's rows have (the
  goals convert the exceptions), the one the sentence names first when they tie; a target no row
  has yet counts too, when it is a unit the table knows in the source's dimension or another
  ``a/b`` unit beside an ``a/b`` source;
- the **value field** is the field the unit field's name names (``volume_unit`` -> ``volume``,
  ``odo_unit`` -> ``odometer``), else the column before it; most of its values at source rows
  must be numbers;
- the target is written as most rows of the unit field write it (``L``, not the goals' ``litres``).

A conversion writes nothing in a field the goals leave alone. It becomes one function of the
generated file (``function``): the toolkit's ``convert_unit``, which also writes other spellings of
the target (``ltr``, ``mmol/l``) as the target. ``CleaningSpec.conversions`` keeps each one
(``cleaning_spec.json``: ``"conversions"``), editable like the rest of the spec.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from .._toolkit_units import UNITS, same_unit, unit_key
from ..toolkit import to_number
from .kinds.numbers import decimals_said

__all__ = ["Conversion", "read_conversions", "load_conversions"]

_NUM = r"(?P<n>\d{1,9}(?:[.,]\d{1,9})?)"
_FACTOR = re.compile(
    r"(?:\b(?P<mul>multipl(?:y|ied|ying))\b[^\d;:]{0,40}?\bby\s+|\btimes\s+|(?<=[\s(])[x*]\s*|×\s*"
    r"|\b(?P<div>divid(?:e|ed|ing))\b[^\d;:]{0,40}?\bby\s+|(?<=\s)/\s+|÷\s*)" + _NUM,
    re.I,
)
_TOKEN = re.compile(r"[A-Za-zµμ]{1,12}(?:\s?/\s?[A-Za-z]{1,6})?")
_EQUALS = re.compile(
    r"\b1\s*(?:[A-Za-z.]{1,10}\s+)?(?P<a>[A-Za-zµμ]{1,12}(?:/[A-Za-z]{1,6})?)\s*=\s*"
    + _NUM
    + r"\s*(?P<b>[A-Za-zµμ]{1,12}(?:/[A-Za-z]{1,6})?)"
)
# "whole km", "no decimals", "to the nearest km": a whole number of the target unit (never "the
# nearest tenth")
_WHOLE = re.compile(
    r"\bwhole\b|\bintegers?\b|\bno decimals\b|\bnearest\s+"
    r"(?!(?:tenth|hundredth|thousandth|cent|penny|pence|decimal|place|digit)s?\b)[A-Za-z]{1,8}\b",
    re.I,
)
# units that are also words: only as the data writes them
_COMMON_WORDS = {"in", "m", "t", "g", "l", "ft", "pt", "lt"}
_UNIT_PARTS = re.compile(
    r"(?:^|[_\s-])(?:unit|units|uom|u)(?=$|[_\s-])|(?<=[a-z])(?:Unit|UOM)$", re.I
)
_MIN_UNIT_SHARE = 0.8  # of a unit field's present values that are units
_MAX_UNIT_CHARS = 12
# characters either side of a factor (after an equation) read for its units and rounding (hostile
# goals: linear time; each "1 gal = 3.785 L" read the rest of its sentence: quadratic)
_NEAR = 240


@dataclass(frozen=True)
class Conversion:
    """``value`` (a number) where ``unit`` spells ``source`` becomes ``target``: times or divided by
    ``by``."""

    value: str
    unit: str
    source: str
    target: str
    op: str  # "multiply" or "divide"
    by: float
    places: int | None = None
    words: str = ""

    def describe(self) -> str:
        rounded = (
            ""
            if self.places is None
            else f", rounded to {self.places} decimal{'s' * (self.places != 1)}"
        )
        return (
            f"{self.value} in {self.source} ({self.unit}) becomes {self.target}: "
            f"{'x' if self.op == 'multiply' else '/'} {self.by:g}{rounded}"
        )

    def call(self) -> str:
        """The toolkit call of the generated function."""
        places = "" if self.places is None else f", places={self.places}"
        by = int(self.by) if float(self.by).is_integer() else self.by
        return (
            f"convert_unit(record.get({self.value!r}), record.get({self.unit!r}), {self.source!r}, "
            f"{self.target!r}, {self.op}={by!r}{places})"
        )

    def function(self, name: str) -> tuple[str, str]:
        """(docstring, code) of the generated function."""
        docstring = (
            f"{self.describe()} (the goals' conversion: convert_unit; other spellings of "
            f"{self.target} too)."
        )
        code = (
            "from recursive_cleaner.toolkit import convert_unit\n\n\n"
            f"def {name}(record):\n"
            f"    record = dict(record)\n"
            f"    if {self.value!r} in record and {self.unit!r} in record:\n"
            f"        record[{self.value!r}], record[{self.unit!r}] = {self.call()}\n"
            f"    return record\n"
        )
        return docstring, code

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: v for k, v in d.items() if v not in (None, "")}


def load_conversions(
    given: Any, where: str, fields: set[str] | None = None
) -> tuple[Conversion, ...]:
    """``cleaning_spec.json``'s ``conversions``; ValueError naming what is wrong."""
    if given in (None, []):
        return ()
    if not isinstance(given, list):
        raise ValueError(f"{where}: conversions must be a list of objects")
    out = []
    for i, d in enumerate(given):
        what = f"{where}: conversions[{i}]"
        if not isinstance(d, dict):
            raise ValueError(f"{what} must be an object")
        missing = [k for k in ("value", "unit", "source", "target", "op", "by") if k not in d]
        if missing:
            raise ValueError(f"{what} needs {', '.join(missing)}")
        if d["op"] not in ("multiply", "divide"):
            raise ValueError(f"{what}: op must be multiply or divide, got {d['op']!r}")
        by, places = d["by"], d.get("places")
        if isinstance(by, bool) or not isinstance(by, (int, float)) or not 0 < abs(by) < 1e12:
            raise ValueError(f"{what}: by must be a non-zero number, got {by!r}")
        if places is not None and (
            isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= 12
        ):
            raise ValueError(
                f"{what}: places must be a whole number from 0 to 12 or null, got {places!r}"
            )
        for key in ("value", "unit", "source", "target"):
            if not isinstance(d[key], str) or not d[key]:
                raise ValueError(f"{what}: {key} must be a non-empty string")
        for key in ("value", "unit"):
            if fields is not None and d[key] not in fields:
                raise ValueError(f"{what}: {key} {d[key]!r} is no field of the spec")
        out.append(
            Conversion(
                d["value"],
                d["unit"],
                d["source"],
                d["target"],
                d["op"],
                float(by),
                places,
                str(d.get("words", "")),
            )
        )
    return tuple(out)


# ---------------------------------------------------------------- reading


def _present(values: list | None) -> list[str]:
    return [v.strip() for v in values or () if isinstance(v, str) and v.strip()]


def _is_unit(value: str) -> bool:
    """A unit written alone: no digits, short, a unit the table knows or ``a/b``."""
    if len(value) > _MAX_UNIT_CHARS or any(c.isdigit() for c in value):
        return False
    key = unit_key(value)
    return key in UNITS or bool(re.fullmatch(r"[a-zµμ]{1,8}/[a-z]{1,6}", key))


def _unit_fields(fields: list[str], data: dict[str, list]) -> dict[str, Counter]:
    """``{field: Counter of its values}`` of the fields whose values are units."""
    out = {}
    for name in fields:
        values = _present(data.get(name))
        if len(values) >= 3 and sum(map(_is_unit, values)) >= _MIN_UNIT_SHARE * len(values):
            out[name] = Counter(values)
    return out


def _count(unit: str, values: Counter) -> int:
    return sum(n for v, n in values.items() if same_unit(v, unit))


def _written(unit: str, values: Counter) -> str:
    """The spelling most of the field's rows give ``unit`` (the goals' own when none has it)."""
    spelled = [(n, v == unit, v) for v, n in values.items() if same_unit(v, unit)]
    return max(spelled)[2] if spelled else unit  # a tie: the goals' own spelling


def _may_target(token: str, source: str, values: Counter) -> bool:
    """A unit no row has yet may be the target: one the table knows in the source's dimension, or
    a/b by a/b."""
    if _count(token, values):
        return True
    key, src = unit_key(token), unit_key(source)
    if key in UNITS and src in UNITS:
        return (
            token not in _COMMON_WORDS
            and UNITS[key][0] == UNITS[src][0]
            and UNITS[key] != UNITS[src]
        )
    return "/" in key and "/" in src and key != src


def _units_in(text: str, values: Counter) -> list[str]:
    """The unit spellings of ``text`` (in order, one per unit) that the field's rows hold or that
    are units."""
    found: list[str] = []
    for m in _TOKEN.finditer(text):
        token = re.sub(r"\s", "", m.group())
        if not _is_unit(token) or (token.lower() in _COMMON_WORDS and not _count(token, values)):
            continue
        if not any(same_unit(token, f) for f in found):
            found.append(token)
    return found


def _places(text: str) -> int | None:
    said = decimals_said(text)
    return said[0] if said else 0 if _WHOLE.search(text) else None


_DECIMALS = re.compile(r"[+-]?\d+(?:[.,](\d+))?")
_MIN_WRITTEN = 5  # rows in the target unit that show how its numbers are written


def _places_written(value: str, unit: str, target: str, data: dict[str, list]) -> int | None:
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


def _value_field(
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


def _conversion(
    window: str,
    at: int,
    m: re.Match,
    units: dict[str, Counter],
    fields: list[str],
    data: dict[str, list],
    left_alone: set[str],
    sentence: str,
) -> Conversion | None:
    # the units of a factor stand near it
    before, after = window[max(0, at - _NEAR) : at], window[at : at + _NEAR]
    for name, values in units.items():
        if name in left_alone:
            continue
        near = _units_in(before, values)
        named = [u for u in near if _count(u, values)] or [
            u for u in _units_in(after, values) if _count(u, values)
        ]
        if not named:
            continue
        candidates = near + [
            u for u in _units_in(after, values) if not any(same_unit(u, n) for n in near)
        ]
        source = min(named, key=lambda u: (_count(u, values), named.index(u)))
        others = [
            u for u in candidates if not same_unit(u, source) and _may_target(u, source, values)
        ]
        if not others:
            continue
        column = data.get(name) or []
        rows = [
            i for i, v in enumerate(column) if isinstance(v, str) and same_unit(v.strip(), source)
        ]
        value = _value_field(name, fields, data, rows)
        if value is None or value in left_alone:
            continue
        op = "divide" if m["div"] or m.group().lstrip()[:1] in "/÷" else "multiply"
        by = float(m["n"].replace(",", "."))
        target = _written(others[0], values)
        places = _places(after) if _places(after) is not None else _places(before)
        if places is None:
            places = _places_written(value, name, target, data)
        return Conversion(
            value, name, _written(source, values), target, op, by, places, sentence[:300]
        )
    return None


def _equals(
    sentence: str,
    units: dict[str, Counter],
    fields: list[str],
    data: dict[str, list],
    left_alone: set[str],
) -> list[Conversion]:
    """``1 gal = 3.785 L``: the factor from a to b; the data says which of the two is converted."""
    out = []
    for m in _EQUALS.finditer(sentence):
        for name, values in units.items():
            a, b = m["a"], m["b"]
            if name in left_alone or not (_count(a, values) or _count(b, values)):
                continue
            by = float(m["n"].replace(",", "."))
            source_is_a = _count(a, values) and (
                _count(a, values) <= _count(b, values) or not _count(b, values)
            )
            source, target, op = (a, b, "multiply") if source_is_a else (b, a, "divide")
            rows = [
                i
                for i, v in enumerate(data.get(name) or [])
                if isinstance(v, str) and same_unit(v.strip(), source)
            ]
            value = _value_field(name, fields, data, rows)
            if value is not None and value not in left_alone and by:
                places = _places(sentence[m.end() : m.end() + _NEAR])
                if places is None:
                    places = _places_written(value, name, _written(target, values), data)
                out.append(
                    Conversion(
                        value,
                        name,
                        _written(source, values),
                        _written(target, values),
                        op,
                        by,
                        places,
                        sentence[:300],
                    )
                )
    return out


# "gallons -> litres", "miles to km (1.609)", "convert lb into kg": two units joined by a link
_LINK = re.compile(r"->|→|=>|\b(?:to|into)\b", re.I)
_PAIR_GAP = 80  # characters between the two units of a pair (a list of spellings in brackets)
_BARE = re.compile(r"(?<![\d.,])\d{1,6}(?:\.\d{1,9})?(?![\d.,]*\d)")
_RATIO_SLACK = 0.02  # within 2% of the table's factor (or its inverse): the goals' factor
_SIGNIFICANT = 4  # a factor the goals do not give: the table's, to four digits as tables print it


def _unit_spans(text: str) -> list[tuple[int, int, str]]:
    return [
        (m.start(), m.end(), re.sub(r"\s", "", m.group()))
        for m in _TOKEN.finditer(text)
        if _is_unit(re.sub(r"\s", "", m.group()))
    ]


def _factor_near(text: str, ratio: float) -> tuple[str, float] | None:
    """The number of ``text`` that is ``ratio`` (multiply) or its inverse (divide), within 2%."""
    for m in _BARE.finditer(text):
        n = float(m.group())
        if n and abs(n - ratio) <= _RATIO_SLACK * ratio:
            return "multiply", n
        if n and abs(n - 1 / ratio) <= _RATIO_SLACK / ratio:
            return "divide", n
    return None


def _pairs(
    sentence: str,
    units: dict[str, Counter],
    fields: list[str],
    data: dict[str, list],
    left_alone: set[str],
) -> list[Conversion]:
    """Two units of one dimension the table knows joined by a link, the first held by a unit field:
    the factor is the number beside them that the table's factor confirms, else the table's."""
    out = []
    spans = _unit_spans(sentence)
    for (a0, a1, a), (b0, b1, b) in zip(spans, spans[1:]):
        gap = sentence[a1:b0]
        ka, kb = unit_key(a), unit_key(b)
        if (
            len(gap) > _PAIR_GAP
            or not _LINK.search(gap)
            or ka not in UNITS
            or kb not in UNITS
            or UNITS[ka][0] != UNITS[kb][0]
            or UNITS[ka] == UNITS[kb]
        ):
            continue
        for name, values in units.items():
            if name in left_alone or not _count(a, values) or a.lower() in _COMMON_WORDS:
                continue
            if _count(b, values) and _count(b, values) < _count(a, values):
                continue  # the goals convert the exceptions: the source is the rarer unit
            rows = [
                i
                for i, v in enumerate(data.get(name) or [])
                if isinstance(v, str) and same_unit(v.strip(), a)
            ]
            value = _value_field(name, fields, data, rows)
            if value is None or value in left_alone:
                continue
            ratio = UNITS[ka][1] / UNITS[kb][1]
            after = sentence[b1 : b1 + _NEAR]
            said = _factor_near(sentence[a1:b0] + " " + after[:60], ratio)
            op, by = said or ("multiply", float(f"{ratio:.{_SIGNIFICANT}g}"))
            target = _written(b, values)
            places = _places(after)
            if places is None:
                places = _places_written(value, name, target, data)
            out.append(
                Conversion(value, name, _written(a, values), target, op, by, places, sentence[:300])
            )
            break
    return out


def read_conversions(
    sentences: list[str],
    fields: list[str],
    data: dict[str, list] | None,
    left_alone: set[str] = frozenset(),
) -> tuple[Conversion, ...]:
    """The conversions the ``sentences`` state, checked on ``data`` (a list of values per field, in
    row order)."""
    data = data or {}
    units = _unit_fields(fields, data)
    if not units:
        return ()
    out: list[Conversion] = []
    for sentence in sentences:
        found = _equals(sentence, units, fields, data, left_alone)
        factors = list(_FACTOR.finditer(sentence))
        for i, m in enumerate(factors):
            start = factors[i - 1].end() if i else 0
            end = factors[i + 1].start() if i + 1 < len(factors) else len(sentence)
            conv = _conversion(
                sentence[start:end], m.start() - start, m, units, fields, data, left_alone, sentence
            )
            if conv is not None:
                found.append(conv)
        found += _pairs(sentence, units, fields, data, left_alone)
        for conv in found:
            if not any(
                (c.value, c.unit, unit_key(c.source))
                == (conv.value, conv.unit, unit_key(conv.source))
                for c in out
            ):
                out.append(conv)
    return tuple(out)
