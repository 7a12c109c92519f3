"""How the cross-row steps compare values: a key part normalised, a value as a counter key, a
variant of a value."""

from __future__ import annotations

import re
from typing import Any

from .near import MAX_CHARS, distance, two_values

__all__ = ["moves_a_field_in", "NORMALIZERS", "normalized", "hashable", "is_variant", "format_key"]

NORMALIZERS = ("exact", "casefold", "digits")


def _stray_word(a: str, b: str) -> bool:
    """Is one text the other followed by one short word (at most a third of its length)?"""
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    words = longer.split(" ")
    return len(words) >= 2 and " ".join(words[:-1]) == shorter and 3 * len(words[-1]) <= len(longer)


def moves_a_field_in(old: Any, new: Any, record: dict, fld: str) -> bool:
    """Is ``new`` just ``old`` with a stray last word that another field of ``record`` holds
    ("Mooresville" -> "Mooresville NC" beside state "NC")? Then the word already has its own column:
    the longer value is a merged one, not the full one."""
    a, b = (" ".join(str(v).split()).casefold() for v in (old, new))
    if len(b) <= len(a) or not _stray_word(b, a):
        return False
    word = b.rsplit(" ", 1)[-1]
    return any(
        k != fld and isinstance(v, str) and " ".join(v.split()).casefold() == word
        for k, v in record.items()
    )


def is_variant(old: Any, new: Any, max_distance: int = 2) -> bool:
    """Does ``old`` look like a variant of ``new`` (case, spacing, a few edits for its length, as
    typos are)?

    The same after case-folding and collapsing whitespace, the other with a short stray word after
    it ("Mooresville NC": a last word of at most a third of the text), or within ``len // 3`` edits
    of the longer text (at most ``max_distance``), two values never (``near.two_values``): "Germnay"
    is Germany, "DK" is not "DE", "East Germany" is not Germany, another customer's address is not a
    typo of this one's.
    """
    a, b = (" ".join(str(v).split()).casefold() for v in (old, new))
    if a == b or _stray_word(a, b):
        return True
    if len(a) > MAX_CHARS or len(b) > MAX_CHARS or two_values(a, b):
        return False  # "5.2" is not a variant of "5.3", nor "AB-1234" of "AB-1235"
    limit = min(max_distance, max(len(a), len(b)) // 3)
    return limit > 0 and distance(a, b, limit) <= limit


def normalized(value: Any, how: str) -> Any:
    """A key part as a dedup/majority step compares it (``exact``, ``casefold`` or ``digits``)."""
    if value is None:
        return None
    if how == "digits":
        return re.sub(r"\D", "", str(value)) or None
    if how == "casefold":
        return " ".join(str(value).split()).casefold() or None
    return value if isinstance(value, (str, int, float, bool)) else str(value)


def hashable(value: Any) -> Any:
    """``value`` as a counter key: a plain value as it is, anything else as its ``repr``."""
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


_PARTS = re.compile(r"\d+|[^\W\d_]+")
_NUMBER = re.compile(r"\s*[-+]?\d+(?:\.\d+)?\s*")


def format_key(value: Any) -> Any:
    """``value`` with its format taken away: two values with one key differ only by case, spacing,
    punctuation or leading zeros ("6:35 a.m.", "06:35 AM"); a number by its value ("12", 12.0)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return hashable(value)
    if not isinstance(value, str) or _NUMBER.fullmatch(value) and value.isascii():
        number = float(value)
        return ("number", number if number == number else "nan")
    parts = _PARTS.findall(value.casefold())
    if not parts:
        return ("text", " ".join(value.split()))
    digits = tuple(str(int(p)) if p.isascii() else p for p in parts if p[0].isdigit())
    sign = "-" if value.lstrip().startswith("-") else ""
    return (sign, digits, "".join(p for p in parts if not p[0].isdigit()))
