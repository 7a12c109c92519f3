"""A count of digits in the goals ("13 digits", "the four-digit year", "a 5-digit zip"): the
format of a value of exactly that many digits (a ``shape`` of nines: leading zeros kept)."""

from __future__ import annotations

import re

from .scans import Spans

__all__ = ["with_digits", "DIGITS", "HAS_DIGIT_PARTS"]

_COUNTS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty",
)  # fmt: skip
# never "2 digits after the point" (rounding)
DIGITS = re.compile(
    rf"\b(?:\d{{1,2}}|{'|'.join(_COUNTS)})[\s-]digits?\b"
    r"(?!\s+(?:after|past|behind|following|of precision|decimal))",
    re.I,
)
# a count that is one part of a code's form ("two capitals, a hyphen and four digits")
_PARTS = r"(?:letters?|capitals?|hyphens?|dash(?:es)?|colons?|slash(?:es)?|dots?|underscores?)"
_JOIN = r"(?:,|\band\b|\bthen\b|\bfollowed by\b|\bplus\b)"
_PART_BEFORE = re.compile(rf"{_PARTS}\s*{_JOIN}\s*(?:(?:a|an|then)\s+)?$", re.I)
_PART_AFTER = re.compile(rf"\s*{_JOIN}\s*(?:(?:a|an|then)\s+)?(?:\w+\s+)?{_PARTS}", re.I)
# formats whose digits come in parts ("two-digit minutes", "a four-digit year" of a date)
HAS_DIGIT_PARTS = ("time12", "time", "date", "datetime", "phone_e164", "number")


def with_digits(text: str, found: list) -> list:
    """``found`` (``detect_kinds``' (kind, allowed, start, end)) with each count of digits in
    ``text`` read as a shape of that many digits: in place of an overlapping "digits only"
    (integer), never inside another reading ("don't touch the six-digit code") nor where the
    clause names a format with digits in parts ("two-digit minutes" of a 12-hour time), nor where
    the digits are one part of a code ("two capitals, a hyphen and four digits")."""
    if any(k in HAS_DIGIT_PARTS for k, *_ in found):
        return found
    # what ``found`` holds where, by bisection (every count was compared with every reading)
    spans = Spans.of((s, e) for _, _, s, e in found)
    kind_at = {(s, e): k for k, _, s, e in found}
    removed: set[tuple[int, int]] = set()
    shapes = []
    for m in DIGITS.finditer(text):
        if _PART_BEFORE.search(text[max(0, m.start() - 40) : m.start()]) or _PART_AFTER.match(
            text, m.end()
        ):
            continue
        over = spans.overlapping(*m.span())
        if any(kind_at[span] != "integer" for span in over):
            continue
        count = m.group().lower().replace("-", " ").split()[0]
        n = int(count) if count.isdigit() else _COUNTS.index(count) + 1
        if n:
            for span in over:
                spans.remove(*span)
                removed.add(span)
            spans.add(*m.span())
            kind_at[m.span()] = "shape"
            shapes.append(("shape", ("9" * n,), *m.span()))
    return [f for f in found if (f[2], f[3]) not in removed] + shapes
