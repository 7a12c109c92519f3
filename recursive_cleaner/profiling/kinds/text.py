"""Kinds of text: Title Case, lower and upper case, trimmed text, and ``as_is`` (leave it as it
is)."""

from __future__ import annotations

from typing import Any

from ._base import Kind
from ._values import clean_whitespace

__all__ = ["TitleCase", "Lower", "Upper", "Text", "AsIs"]


def _title_word(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return True
    return letters[0].isupper() and not (len(letters) > 1 and all(c.isupper() for c in letters))


_RESPACES = frozenset({"spacing"})  # each writes trimmed values with single spaces


class TitleCase(Kind):
    changes = _RESPACES
    name, primitive, priority, menu, words = (
        "title_case",
        "title_case_name",
        12,
        "title_case",
        "Title Case with single spaces",
    )

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        if not isinstance(value, str) or not clean_whitespace(value):
            return False
        words = value.split(" ")
        capital = any(w[:1].isupper() and any(c.islower() for c in w) for w in words)
        return all(
            _title_word(w) or (capital and w.isalpha() and w.islower() and len(w) <= 3)
            for w in words
        )


class Lower(Kind):
    changes = _RESPACES
    name, primitive, priority, menu, words = "lower", "to_lower", 14, "lower", "trimmed lower case"

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, str) and clean_whitespace(value) and value == value.lower()


class Upper(Kind):
    changes = _RESPACES
    name, primitive, priority, menu, words = "upper", "to_upper", 13, "upper", "trimmed upper case"

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, str) and clean_whitespace(value) and value == value.upper()


class Text(Kind):
    changes = _RESPACES
    name, primitive, priority, menu = (
        "text",
        "normalize_whitespace",
        15,
        "text (trimmed, single spaces)",
    )
    words = "trimmed text with single spaces"

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return not isinstance(value, str) or clean_whitespace(value)


class AsIs(Kind):
    """The goals say to leave the field as it is: every value conforms, nothing to fix."""

    name, primitive, priority, menu, words = (
        "as_is",
        "",
        17,
        "as_is (leave it as it is)",
        "left as it is",
    )

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return True

    def candidates(self, allowed, strings, words, examples) -> list:
        return []  # nothing may write it
