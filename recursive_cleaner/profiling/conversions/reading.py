"""Reading the conversions a goal text states: a factor (``multiply … by N``, ``x N``, ``1 gal =
3.785 L``) or two units joined by a link (``gallons -> litres``), checked on the data."""

from __future__ import annotations

import re
from collections import Counter

from ..._toolkit_units import UNITS, same_unit, unit_key
from .conversion import Conversion
from .units import (
    COMMON_WORDS,
    UNIT_TOKEN,
    rows_with,
    is_unit,
    may_target,
    places_said,
    places_written,
    unit_fields,
    units_in,
    value_field_of,
    spelling,
)

__all__ = ["read_conversions"]

_NUM = r"(?P<n>\d{1,9}(?:[.,]\d{1,9})?)"
_FACTOR = re.compile(
    r"(?:\b(?P<mul>multipl(?:y|ied|ying))\b[^\d;:]{0,40}?\bby\s+|\btimes\s+|(?<=[\s(])[x*]\s*|×\s*"
    r"|\b(?P<div>divid(?:e|ed|ing))\b[^\d;:]{0,40}?\bby\s+|(?<=\s)/\s+|÷\s*)" + _NUM,
    re.I,
)
_EQUALS = re.compile(
    r"\b1\s*(?:[A-Za-z.]{1,10}\s+)?(?P<a>[A-Za-zµμ]{1,12}(?:/[A-Za-z]{1,6})?)\s*=\s*"
    + _NUM
    + r"\s*(?P<b>[A-Za-zµμ]{1,12}(?:/[A-Za-z]{1,6})?)"
)
# characters either side of a factor (after an equation) read for its units and rounding (hostile
# goals: linear time; each "1 gal = 3.785 L" read the rest of its sentence: quadratic)
_NEAR = 240


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
        near = units_in(before, values)
        named = [u for u in near if rows_with(u, values)] or [
            u for u in units_in(after, values) if rows_with(u, values)
        ]
        if not named:
            continue
        candidates = near + [
            u for u in units_in(after, values) if not any(same_unit(u, n) for n in near)
        ]
        source = min(named, key=lambda u: (rows_with(u, values), named.index(u)))
        others = [
            u for u in candidates if not same_unit(u, source) and may_target(u, source, values)
        ]
        if not others:
            continue
        column = data.get(name) or []
        rows = [
            i for i, v in enumerate(column) if isinstance(v, str) and same_unit(v.strip(), source)
        ]
        value = value_field_of(name, fields, data, rows)
        if value is None or value in left_alone:
            continue
        op = "divide" if m["div"] or m.group().lstrip()[:1] in "/÷" else "multiply"
        by = float(m["n"].replace(",", "."))
        target = spelling(others[0], values)
        places = places_said(after) if places_said(after) is not None else places_said(before)
        if places is None:
            places = places_written(value, name, target, data)
        return Conversion(
            value, name, spelling(source, values), target, op, by, places, sentence[:300]
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
            if name in left_alone or not (rows_with(a, values) or rows_with(b, values)):
                continue
            by = float(m["n"].replace(",", "."))
            source_is_a = rows_with(a, values) and (
                rows_with(a, values) <= rows_with(b, values) or not rows_with(b, values)
            )
            source, target, op = (a, b, "multiply") if source_is_a else (b, a, "divide")
            rows = [
                i
                for i, v in enumerate(data.get(name) or [])
                if isinstance(v, str) and same_unit(v.strip(), source)
            ]
            value = value_field_of(name, fields, data, rows)
            if value is not None and value not in left_alone and by:
                places = places_said(sentence[m.end() : m.end() + _NEAR])
                if places is None:
                    places = places_written(value, name, spelling(target, values), data)
                out.append(
                    Conversion(
                        value,
                        name,
                        spelling(source, values),
                        spelling(target, values),
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
        for m in UNIT_TOKEN.finditer(text)
        if is_unit(re.sub(r"\s", "", m.group()))
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
    seen: set[tuple[str, str]] = set()  # each pair of units read once (hostile goals: linear)
    for (a0, a1, a), (b0, b1, b) in zip(spans, spans[1:]):
        gap = sentence[a1:b0]
        ka, kb = unit_key(a), unit_key(b)
        if (
            (ka, kb) in seen
            or seen.add((ka, kb))
            or len(gap) > _PAIR_GAP
            or not _LINK.search(gap)
            or ka not in UNITS
            or kb not in UNITS
            or UNITS[ka][0] != UNITS[kb][0]
            or UNITS[ka] == UNITS[kb]
        ):
            continue
        for name, values in units.items():
            if name in left_alone or not rows_with(a, values) or a.lower() in COMMON_WORDS:
                continue
            if rows_with(b, values) and rows_with(b, values) < rows_with(a, values):
                continue  # the goals convert the exceptions: the source is the rarer unit
            rows = [
                i
                for i, v in enumerate(data.get(name) or [])
                if isinstance(v, str) and same_unit(v.strip(), a)
            ]
            value = value_field_of(name, fields, data, rows)
            if value is None or value in left_alone:
                continue
            ratio = UNITS[ka][1] / UNITS[kb][1]
            after = sentence[b1 : b1 + _NEAR]
            said = _factor_near(sentence[a1:b0] + " " + after[:60], ratio)
            op, by = said or ("multiply", float(f"{ratio:.{_SIGNIFICANT}g}"))
            target = spelling(b, values)
            places = places_said(after)
            if places is None:
                places = places_written(value, name, target, data)
            out.append(
                Conversion(value, name, spelling(a, values), target, op, by, places, sentence[:300])
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
    units = unit_fields(fields, data)
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
