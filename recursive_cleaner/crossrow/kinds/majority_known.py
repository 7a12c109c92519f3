"""What a majority step's fit knows before it votes (issue 44): the cells the user's corrected rows
label and the cells a named authority reports (``known_truths``), and the words for the
authority."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from ...errors import clip_text
from ..values import format_key

__all__ = ["KEY", "known_truths", "authority_text", "first_part", "field_of", "NAME_CHARS"]

KEY = "\0key"  # inside a majority group: the raw key values, counted
NAME_CHARS = 40  # a source's name in the report, at most


def authority_text(step: Any) -> str:
    """The step's authority in words: "the src named 'ua'", "the src the flight's first part
    names"."""
    source = "+".join(step.weight_by)
    if step.authority[0] == "equals":
        return f"the {source} named {clip_text(step.authority[1], NAME_CHARS)!r}"
    return f"the {source} the {'+'.join(step.key)}'s first part names"


def first_part(value: Any) -> str:
    """A key's first run of letters and digits, casefolded ("ua" for "UA-1234-IAH-ORD")."""
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", str(value)) if p]
    return parts[0].casefold() if parts else ""


def _authority_of(step: Any, raw_key: Any) -> str | None:
    """The casefolded name of the source that wins in the group of ``raw_key``, or None."""
    if step.authority[0] == "equals":
        return step.authority[1].strip().casefold()
    first = raw_key[0] if isinstance(raw_key, tuple) else raw_key
    return first_part(first) or None


def known_truths(step: Any, merged: dict, fitted: Any, i: int, *, authority: bool = True) -> dict:
    """(key, field) -> the value that cell holds whatever the votes: the user's corrected rows
    (``fitted.anchors``) label it, else the step's authority reports it (one value, blanks aside).
    """
    out: dict = {}
    if step.authority and authority:
        for key, group in merged.items():
            raw = group[KEY].most_common(1)[0][0] if group.get(KEY) else None
            named = _authority_of(step, raw)
            for fld in step.fields if named else ():
                said = {
                    format_key(value): value
                    for (value, source), n in group.get(fld, Counter()).items()
                    if n > 0 and not _blank(value) and str(source).strip().casefold() == named
                }
                if len(said) == 1:
                    out[(key, fld)] = next(iter(said.values()))
    labelled: dict = defaultdict(Counter)
    spelled: dict = {}
    for row in fitted.anchors:
        key = fitted.key(i, row)
        for fld in step.fields if key in merged else ():
            value = row.get(fld)
            if fld in row and not _blank(value):
                labelled[(key, fld)][format_key(value)] += 1
                spelled.setdefault((key, fld, format_key(value)), value)
    for cell, counts in labelled.items():
        ranked = counts.most_common(2)
        if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:  # two labels that disagree: a tie
            out[cell] = spelled[(*cell, ranked[0][0])]
    return out


def field_of(cell: tuple) -> Any:
    """A vote's cell (key, field) -> its field: a source's accuracy may differ per field."""
    return cell[1]


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())
