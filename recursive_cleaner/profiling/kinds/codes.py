"""Kinds of codes: phone numbers (E.164), e-mail addresses, country and US state codes (``allowed =
("lower",)`` for lower case), a list of allowed values (``enum``), and the form of the goals'
examples (``shape``)."""

from __future__ import annotations

import re
from typing import Any

from ._base import Candidate, Kind, members, read_once
from ._values import COUNTRY_CODES, US_STATE_CODES, value_shape

__all__ = ["PhoneE164", "Email", "Enum", "CountryAlpha2", "UsState", "Shape"]

_E164 = re.compile(r"\+[1-9]\d{7,14}")
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+")


class PhoneE164(Kind):
    changes = frozenset({"labels", "trimmed", "unknown"})
    name, primitive, priority, menu = "phone_e164", "to_e164", 0, "phone_e164 (+15551234567)"
    noun, words = "phone numbers", "E.164 phone numbers (+15551234567)"
    regex = _E164.pattern

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, str) and bool(_E164.fullmatch(value))


class Email(Kind):
    changes = frozenset({"labels"})
    name, primitive, priority, menu = "email", "normalize_email", 5, "email (lower case, no spaces)"
    noun, words = "email addresses", "lower-case email addresses without spaces"
    regex, regex_exact = _EMAIL.pattern, False  # and lower case

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, str) and value == value.lower() and bool(_EMAIL.fullmatch(value))


class Enum(Kind):
    name, primitive, priority, menu = (
        "enum",
        "closest_value",
        8,
        "enum (one of a fixed list of values)",
    )

    def describe(self, allowed, csv_strings=False) -> str:
        shown = ", ".join(repr(a) for a in allowed[:8]) + (", ..." if len(allowed) > 8 else "")
        return f"one of {shown}"

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, str) and value in members(allowed)

    def values(self, allowed) -> tuple[str, ...]:
        return tuple(allowed)

    def candidates(self, allowed, strings, words, examples) -> list[Candidate]:
        if not allowed:
            return []
        out = [Candidate("closest_value", (list(allowed),))]
        known = set(allowed)
        aliases = {a: b for a, b in examples if b in known and a not in known}
        # the goals' examples as spellings of the values: "high" is H, "Ops" is Operations
        if aliases:
            out.append(Candidate("closest_value", (list(allowed),), (("aliases", aliases),)))
        return out


class _Codes(Kind):
    codes: frozenset = frozenset()
    upper_words = lower_words = ""

    def describe(self, allowed, csv_strings=False) -> str:
        return self.words + (self.lower_words if allowed == ("lower",) else self.upper_words)

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        if not isinstance(value, str):
            return False
        if allowed == ("lower",):
            return value == value.lower() and value.upper() in self.codes
        return value in self.codes

    def values(self, allowed) -> tuple[str, ...]:
        lower = allowed == ("lower",)
        return tuple(sorted(c.lower() if lower else c for c in self.codes))


class CountryAlpha2(_Codes):
    name, primitive, priority, menu = (
        "country_alpha2",
        "to_country_code",
        6,
        "country_alpha2 (US, GB)",
    )
    codes, words = COUNTRY_CODES, "ISO 3166-1 alpha-2 country codes"
    upper_words, lower_words = " (US, GB)", " in lower case (us, gb)"


class UsState(_Codes):
    name, primitive, priority, menu = "us_state", "to_us_state_code", 7, "us_state (CA, NY)"
    codes, words = US_STATE_CODES, "two-letter US state codes"
    upper_words, lower_words = " (CA, NY)", " in lower case (ca, ny)"


class Shape(Kind):
    """``allowed``: the goals' example outputs; a value conforms when it has the shape of one
    (letters as a/A, digits as 9). Not on the draft's menu: a shape comes from the goals'
    examples."""

    changes = frozenset({"labels", "unknown"})

    # above number, case and text: "5 digits" is the whole format, "0042" keeps its zeros
    name, primitive, priority = "shape", "to_shape", 10.5

    def describe(self, allowed, csv_strings=False) -> str:
        return "the form of the goals' examples (" + ", ".join(repr(a) for a in allowed[:3]) + ")"

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        shapes = read_once(allowed, "shapes", lambda v: frozenset(map(value_shape, v)))
        return value_shape(value if isinstance(value, str) else str(value)) in shapes

    def candidates(self, allowed, strings, words, examples) -> list[Candidate]:
        out = [Candidate("to_shape", (b,)) for b in allowed]
        # a word of letters around a value whose form has none there: a label ("ISBN", "c")
        out += [Candidate("to_shape", (b,), (("label", True),)) for b in allowed]
        # words: their case, the examples
        if examples and not any(c.isdigit() for a, b in examples for c in a + b):
            # decide
            out += [
                Candidate(p)
                for p in ("title_case_name", "to_lower", "to_upper", "normalize_whitespace")
            ]
        if len(allowed) > 1:  # several forms (sizes of one letter or two): the one that fits
            out += [
                Candidate("to_shape", (list(allowed),)),
                Candidate("to_shape", (list(allowed),), (("label", True),)),
            ]
        return out
