"""Kinds of numbers: plain numbers, integers (markers in ``allowed``: ``whole_as_int``,
``no_leading_zeros``), booleans."""

from __future__ import annotations

import math
import re
from typing import Any

from ... import toolkit
from ._base import Candidate, Kind, members
from ._values import PLAIN_NUMBER, noisy

__all__ = ["Number", "Integer", "Bool", "target_units", "decimals_said"]

_AMOUNT_UNIT = re.compile(r"\s*[-+]?[0-9][0-9.,' ]*\s*([A-Za-z\"'][A-Za-z. \"']{0,24}?)\s*\.?\s*")
_UNIT_WORD = re.compile(r"fl\.?\s*oz\.?|[A-Za-z]+")
_TO = frozenset({"to", "into"})
_NOT_UNITS = frozenset({"in"})  # "weights in kg": the word, not inches
_IN = frozenset({"in", "as"})
_SCALE_WORD = re.compile(r"\d\s*(?:k|m|mn|bn|thousand|million|billion)\b", re.I)
_DECIMALS = re.compile(r"[-+]?[0-9]*[.,]([0-9]+)")

_PLAIN_INT = re.compile(r"[-+]?\d+")
_LEADING_ZERO = re.compile(r"[-+]?0\d+(?:\.\d*)?")
_WHOLE_WITH_FRACTION = re.compile(r"[-+]?\d+\.0+")


def _value_units(values: list) -> dict[str, set[str]]:
    """{dimension: spellings} of the units the values carry ("500 g", "2 lb")."""
    out: dict[str, set[str]] = {}
    for value in values:
        m = _AMOUNT_UNIT.fullmatch(value) if isinstance(value, str) and len(value) <= 64 else None
        dimension = toolkit.unit_dimension(m.group(1)) if m else None
        if dimension:
            out.setdefault(dimension, set()).add(_unit_key(m.group(1)))
    return out


def _unit_key(text: str) -> str:
    """One key per unit size ("kg", "kgs", "Kilograms" -> the same): the value of 1 of it in
    grams/metres/litres."""
    size = toolkit.to_unit(
        "1 " + text, {"mass": "g", "length": "m", "volume": "l"}[toolkit.unit_dimension(text)]
    )
    return repr(size)


_ARROW_BEFORE = re.compile(r"(?:->|→|=>)\s*$")
# "g / 1000"
_FACTOR_AFTER = re.compile(r"\s*(?:/|\*|×|x\b|times\b|divided\b|multiplied\b)\s*\(?\d", re.I)


def target_units(words: str, dimension: str, used: set[str] = frozenset()) -> list[str]:
    """The units of ``dimension`` the goals' words name, most likely target first ("to kg", "-> kg",
    "in kg", then others; a unit the words give a factor for, "lb x 0.4536", is a source: last)."""
    found: list[tuple[int, int, str]] = []
    text = words or ""
    tokens = list(_UNIT_WORD.finditer(text))
    for i, m in enumerate(tokens):
        token = m.group()
        if (
            toolkit.unit_dimension(token) != dimension
            or token.lower() in _NOT_UNITS
            or (len(token) == 1 and token.lower() not in ("g", "l", "m"))
        ):
            continue
        before = tokens[i - 1].group().lower() if i else ""
        rank = (
            0
            if before in _TO or _ARROW_BEFORE.search(text, 0, m.start())
            else 4
            if _FACTOR_AFTER.match(text, m.end())
            else 1
            if before in _IN
            else 2
            if _unit_key(token) not in used
            else 3
        )
        found.append((rank, i, token))
    return list(dict.fromkeys(token for _, _, token in sorted(found)))


_DECIMALS_SAID = re.compile(
    r"\b(\d|zero|one|two|three|four|five|six)[\s-]*(?:decimals?|decimal places?|places?|dp|"
    r"d\.p\.|digits? after(?: the (?:decimal )?(?:point|comma))?)(?!\w)",
    re.I,
)


def decimals_said(words: str) -> list[int]:
    """The numbers of decimals the words name, in order ("2 decimals", "one decimal place", "1
    dp")."""
    return [
        toolkit.words_to_number(m.group(1).lower()) if m.group(1).isalpha() else int(m.group(1))
        for m in _DECIMALS_SAID.finditer(words or "")
    ]


def _digits(examples: tuple[tuple[str, str], ...], words: str = "") -> list[int]:
    """The numbers of decimals the examples' numeric outputs are written with, and the goals' words
    name ("2 decimals", "one decimal place"), to round a conversion to."""
    out = set(decimals_said(words))
    for _, b in examples:
        m = _DECIMALS.fullmatch(b.strip())
        if m:
            out.add(len(m.group(1)))
    return sorted(out)


_AMOUNT = re.compile(r"(\d+(?:[.,]\d+)?)\s*(fl\.?\s*oz\.?|[A-Za-z]+)")


def _in_unit(text: str, target: str) -> float | None:
    """The quantity ``text`` writes as amounts with units ("1 ft 6 in", "3.5 kg") in ``target``,
    or None when it is not all amounts of units ``to_unit`` converts."""
    parts = list(_AMOUNT.finditer(text))
    if not parts or "".join(m.group() for m in parts).replace(" ", "") != text.replace(" ", ""):
        return None
    total = 0.0
    for m in parts:
        one = toolkit.to_unit(f"{m.group(1).replace(',', '.')} {m.group(2)}", target)
        if not isinstance(one, (int, float)):
            return None
        total += one
    return total


def _fits_examples(target: str, examples: tuple[tuple[str, str], ...]) -> bool | None:
    """Whether the examples that convert amounts with units agree with ``target`` as the unit their
    outputs are in ("1 ft 6 in" -> 1.5 is in ft, not m); None when no example says."""
    said = None
    for a, b in examples:
        value, out = _in_unit(a.strip(), target), toolkit.to_number(b)
        if value is None or not isinstance(out, (int, float)) or isinstance(out, bool):
            continue
        agrees = math.isclose(value, out, rel_tol=0.01, abs_tol=0.01)
        said = agrees if said is None else said and agrees
    return said


def _number_candidates(
    kind: str, allowed: tuple, strings: list, words: str, examples: tuple
) -> list[Candidate]:
    """The decimal mark the values use, the unit the goals name for values with units, counts and
    number words."""
    whole = (("whole_as_int", True),) if "whole_as_int" in allowed else ()
    decimal = toolkit.infer_decimal(strings)
    if decimal and all(
        toolkit.to_number(v, decimal=decimal) == toolkit.to_number(v) for v in strings
    ):
        decimal = None  # every value reads the same either way: the plain call
    marks = ((("decimal", decimal),) if decimal else ()), ()
    out: list[Candidate] = []
    units = _value_units(strings)
    for dimension, used in units.items():
        targets = target_units(words, dimension, used)
        # an example that converts amounts with units tells the unit its output is in
        told = {t: _fits_examples(t, examples) for t in targets}
        targets = [t for t in targets if told[t]] + [t for t in targets if told[t] is None]
        for target in targets:
            for digits in [*_digits(examples, words), None]:  # the rounding the goals give first
                for mark in marks:
                    kw = ((("digits", digits),) if digits is not None else ()) + mark
                    out.append(Candidate("to_unit", (target,), kw))
    if any(len(used) > 1 for used in units.values()):
        # grams and pounds: a bare number would mix them, only a conversion may fix these
        return out
    if kind == "integer":
        out += [Candidate("to_int"), Candidate("to_count")]
        out += [Candidate("to_number", kwargs=(("integer", True),) + mark) for mark in marks]
    else:
        out += [Candidate("to_number", kwargs=whole + mark) for mark in marks]
    out += [Candidate("words_to_number"), Candidate("to_count"), Candidate("strip_units")]
    # "(12)" -> -12: an example asks to read accounting brackets as a minus sign
    if any(a.strip()[:1] == "(" and b.strip()[:1] in "-\u2212" for a, b in examples):
        out += [
            Candidate("to_number", kwargs=whole + mark + (("accounting", True),)) for mark in marks
        ]
    # "-$12.50" -> 12.50, "(12.50)" -> 12.50: the examples ask for amounts without their sign
    if any(
        a.strip()[:1] in "-(\u2212" and isinstance(n, float) and n > 0
        for a, b in examples
        for n in (toolkit.to_number(b),)
    ):
        out += [
            Candidate("to_number", kwargs=whole + mark + (("absolute", True),)) for mark in marks
        ]
    # "52k" -> 52000: the examples ask to read multipliers
    if any(_SCALE_WORD.search(a) for a, _ in examples):
        out += [
            Candidate("to_number", kwargs=(("integer", True), ("scaled", True)) + mark)
            for mark in marks
        ] + [
            Candidate("to_number", kwargs=(("whole_as_int", True), ("scaled", True)) + mark)
            for mark in marks
        ]
    return out


class _Numeric(Kind):
    changes = frozenset({"labels", "trimmed", "converted", "zeros", "unknown"})
    pattern = PLAIN_NUMBER

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        if isinstance(value, bool):
            return False
        marks = members(allowed)
        if "whole_as_int" in marks and _WHOLE_WITH_FRACTION.fullmatch(str(value)):
            return False  # 12.0 or "12.0" where the goals want 12
        if (
            "no_leading_zeros" in marks
            and isinstance(value, str)
            and _LEADING_ZERO.fullmatch(value.strip())
        ):
            return False  # "01907" where the goals want 1907
        if "positive" in marks:
            number = toolkit.to_number(value, accounting=True)
            if isinstance(number, (int, float)) and number < 0:
                return False  # the goals' examples write amounts without their sign
        if noisy(value):
            return False  # 0.052000000000000005: floating-point noise is not a number's plain form
        if isinstance(value, int) or (
            self.name == "number" and isinstance(value, float) and math.isfinite(value)
        ):
            return True
        return csv_strings and isinstance(value, str) and bool(self.pattern.fullmatch(value))

    def candidates(self, allowed, strings, words, examples) -> list[Candidate]:
        return _number_candidates(self.name, allowed, strings, words, examples)


class Number(_Numeric):
    name, primitive, priority, menu, noun = "number", "to_number", 11, "number", "numbers"

    def describe(self, allowed, csv_strings=False) -> str:
        return (
            ("plain numbers (12.5)" if csv_strings else "numbers (not text)")
            + (
                ", whole ones without a decimal part (12, not 12.0)"
                if "whole_as_int" in allowed
                else ""
            )
            + (", without leading zeros" if "no_leading_zeros" in allowed else "")
            + (", without a sign (-12.5 is 12.5)" if "positive" in allowed else "")
        )


class Integer(_Numeric):
    name, primitive, priority, menu = "integer", "to_int", 10, "integer"
    pattern = _PLAIN_INT

    def describe(self, allowed, csv_strings=False) -> str:
        return (
            "plain integers"
            + (" without leading zeros (1907, not 01907)" if "no_leading_zeros" in allowed else "")
            + (", without a sign (-12 is 12)" if "positive" in allowed else "")
        )


class Bool(Kind):
    changes = frozenset({"labels", "words", "added", "spelling"})
    name, primitive, priority, menu, words = "bool", "to_bool", 9, "bool", "booleans (true/false)"

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, bool) or (csv_strings and value in ("true", "false"))
