"""What format each field should have, and whether a value has it.

``Expectation`` is a field's expected format (a kind from ``KINDS``, its allowed values, and
where it came from). ``conforms`` is the strict check of one value (each kind's own, from the
registry in ``profiling/kinds/``: one class per kind); ``loose_kind`` and
``expectation_from_values`` read a format from the data itself. The instructions are read by
``instructions.infer_expectations``. ``us_state`` and ``country_alpha2`` take
``allowed=("lower",)`` when the codes are wanted in lower case. ``shape`` is read from the goals'
examples (``ab 1234 -> AB-1234``): ``allowed`` holds the example outputs, and a value conforms
when it has the ``value_shape`` of one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from . import kinds as _kinds
from .kinds._values import (
    COUNTRY_CODES,
    US_STATE_CODES,
    VALUE_CHARS,
    clean_whitespace,
    form_template,
    is_placeholder,
    value_shape,
)

__all__ = [
    "Expectation",
    "KINDS",
    "LOOSE_KINDS",
    "KIND_PRIORITY",
    "KIND_PRIMITIVES",
    "COUNTRY_CODES",
    "US_STATE_CODES",
    "conforms",
    "expectation_from_values",
    "loose_kind",
    "is_placeholder",
    "clean_whitespace",
    "value_shape",
    "VALUE_CHARS",
    "form_template",
]

# Read from the kinds' registry (profiling/kinds/): one class per kind, nothing kept here.
KINDS = tuple(_kinds.REGISTRY)


class _Primitives(Mapping):
    """``{kind: primitive}``, read from the registry at each lookup (a kind registered later is in
    it)."""

    def __getitem__(self, name: str) -> str:
        return _kinds.REGISTRY[name].primitive

    def __iter__(self) -> Iterator[str]:
        return iter(_kinds.REGISTRY)

    def __len__(self) -> int:
        return len(_kinds.REGISTRY)


KIND_PRIMITIVES: Mapping[str, str] = _Primitives()
# when one field collects several kinds, the first in this order wins
KIND_PRIORITY = _kinds.by_priority()


@dataclass(frozen=True)
class Expectation:
    """The format one field should have, and why we believe it."""

    kind: str
    # enum: allowed spellings as written; us_state/country: ("lower",) for lower
    allowed: tuple[str, ...] = ()
    # case; number/integer: "whole_as_int" (12.0 -> 12), "no_leading_zeros" ("01907" -> 1907),
    # "positive" (an example writes "-12.5" as 12.5)
    source: str = ""  # "instructions" | "field name" | "data"
    primitive: str = ""  # the toolkit primitive that fits

    def describe(self, *, csv_strings: bool = False) -> str:
        """A short noun phrase for the format: 'ISO dates (YYYY-MM-DD)'."""
        kind = _kinds.get(self.kind)
        return kind.describe(tuple(self.allowed), csv_strings) if kind else self.kind


def conforms(value: Any, exp: Expectation, *, csv_strings: bool = False) -> bool:
    """Strict check of one value against ``exp`` (its kind's ``conforms``); None and "" (missing)
    always conform.

    With ``csv_strings`` (every value of the data is a string, as in CSV) a plain numeric
    string conforms to number/integer and "true"/"false" to bool.
    """
    if value is None or (isinstance(value, str) and value == ""):
        return True
    kind = _kinds.get(exp.kind)
    return kind is not None and kind.conforms(value, tuple(exp.allowed), csv_strings)


# ---------------------------------------------------------------- what the data itself looks like

_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_LIKE = re.compile(
    "|".join(
        [
            r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?P<t>[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|"
            r"[+-]\d{2}:?\d{2})?)?",
            r"\d{1,2}[-/.]\d{1,2}[-/.]\d{2}(?:\d{2})?",
            rf"{_MON}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}",
            rf"\d{{1,2}}(?:st|nd|rd|th)?[\s-]+{_MON}[\s,-]+\d{{2,4}}",
            r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])",
        ]
    ),
    re.I,
)
_TIME_LIKE = re.compile(
    r"\d{1,2}(?::\d{2}){1,2}\s*(?:[ap]\.?\s?m\.?)?|\d{1,2}\s*[ap]\.?\s?m\.?", re.I
)
_PHONE_CHARS = re.compile(r"[\d\s()+.\-/]+")
_NUMBER_LIKE = re.compile(
    r"(?=.*\d)(?:[$€£¥]|[A-Z]{3}\s)?\s*[-+]?(?:\d{1,3}(?:,\d{3})+|\d*)(?:\.\d+)?\s*"
    r"(?:[$€£¥%]|[A-Za-z]{1,12}\.?)?",
    re.I,
)


_KIND_CHARS = 1000  # longer than any date, time, phone, email or number


def _phone_like(text: str) -> bool:
    if len(text) > 64:  # 7-15 digits and a few separators; never walk a huge text
        return False
    digits = sum(c.isdigit() for c in text)
    if not (7 <= digits <= 15 and _PHONE_CHARS.fullmatch(text)):
        return False
    return any(c in "()+-. " for c in text) or digits in (10, 11)


LOOSE_KINDS = (
    ("email", lambda s: s.count("@") == 1 and "." in s.split("@")[1]),
    ("date", lambda s: bool(_DATE_LIKE.fullmatch(s))),
    ("time", lambda s: bool(_TIME_LIKE.fullmatch(s))),
    ("phone_e164", _phone_like),
    ("number", lambda s: bool(_NUMBER_LIKE.fullmatch(s))),
)


def loose_kind(strings: list[str], *, share: float = 0.6) -> str | None:
    """The kind that at least ``share`` of the strings look like in any layout (dates in any format,
    ...)."""
    # a value of any kind is short: a long text is read up to _KIND_CHARS (it matches none either
    # way)
    texts = [
        s[:_KIND_CHARS].strip()
        for s in strings
        if isinstance(s, str) and s.strip() and not is_placeholder(s)
    ]
    if not texts:
        return None
    for kind, looks in LOOSE_KINDS:
        hits = [t for t in texts if looks(t)]
        if len(hits) >= share * len(texts):
            if kind == "date":
                timed = sum(1 for t in hits if (m := _DATE_LIKE.fullmatch(t)) and m.group("t"))
                return "datetime" if timed * 2 > len(hits) else "date"
            return kind
    return None


def expectation_from_values(values: list, *, csv_strings: bool = False) -> Expectation | None:
    """An expectation the data proves by itself: its values look like one kind and the canonical
    form is there.

    The canonical form (ISO date, HH:MM, E.164, lower-case email, plain number) must hold at least
    10% of the values: a tiny canonical minority does not beat the data's own convention.
    """
    strings = [v for v in values if isinstance(v, str) and v.strip() and not is_placeholder(v)]
    if len(strings) < 3 or len(strings) < 0.5 * sum(v is not None and v != "" for v in values):
        return None
    kind = loose_kind(strings)
    if kind is None:
        return None
    exp = Expectation(kind, source="data", primitive=KIND_PRIMITIVES[kind])
    good = sum(conforms(s, exp, csv_strings=csv_strings) for s in strings)
    return exp if good >= max(1.0, 0.1 * len(strings)) else None
