"""``vocabulary``: a rare spelling of a field becomes the much more frequent close one.

A field has a small set of correct spellings that most rows use; a rare value within
``max_distance`` edits of a value at least ``ratio`` times as frequent is replaced by it (only
when the closest such value is unambiguous: ``near.closest_spellings``). Memory: the distinct
values of the field with their counts, at most ``_MAX_VOCAB`` (a cell past it is ``capped``).
Its fixes also correct the keys of the other steps (``fixes_keys``), so a row whose key had a
typo still joins its group.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...model.grammar import seq
from ..near import closest_spellings
from ..values import hashable
from ._base import NO_FIX, FieldValueCounts

__all__ = ["Vocabulary", "Spellings"]

_MAX_VOCAB = 5000  # distinct values of one field kept for vocabulary matching


@dataclass
class _Vocabulary:
    counts: Counter = field(default_factory=Counter)
    fixes: dict[Any, Any] = field(default_factory=dict)
    # distinct strings not matched: longer than near.MAX_CHARS, or past the work budget
    left_alone: int = 0

    def solve(self, step: Any) -> None:
        """Map each rare string to its unambiguous, much more frequent close spelling
        (``near.closest_spellings``)."""
        self.fixes, self.left_alone = closest_spellings(self.counts, step.max_distance, step.ratio)


@dataclass
class Spellings:
    """A vocabulary step's fitted state: each field's counts and fixes."""

    by_field: dict[str, _Vocabulary] = field(default_factory=dict)


class Vocabulary(FieldValueCounts):
    """Rare misspellings of ``fields`` become the common spelling."""

    name, needs_fields, fixes_keys, value_map = "vocabulary", True, True, True
    prompt = (
        '<cross_row_step kind="vocabulary" fields="FIELD"/>  rare misspellings become the '
        "common spelling"
    )

    def describe(self, step: Any) -> str:
        return (
            f"replace rare spellings of {', '.join(step.fields)} by a value within "
            f"{step.max_distance} edits that is at least {step.ratio:g}x as frequent"
        )

    def names(self, step: Any) -> tuple[str, ...]:
        return tuple(step.fields)

    def grammar(self, listed: Any, written: Any = None) -> Any:
        names = listed if written is None else written
        return seq('<cross_row_step kind="vocabulary" fields="', names, '"/>\n')

    def max_values(self) -> int:
        return _MAX_VOCAB  # read at call time: a test may lower it

    def fit(self, summary: Any, i: int, fitted: Any) -> Spellings:
        state = Spellings()
        for fld, counts in summary.counts[i].items():
            voc = state.by_field[fld] = _Vocabulary(Counter(counts))
            voc.solve(summary.steps[i])
            if voc.left_alone:
                fitted.left_alone[(i, fld)] += voc.left_alone
        return state

    def fix(self, state: Spellings, fld: str, value: Any) -> Any:
        voc = state.by_field.get(fld)
        if voc is None or hashable(value) not in voc.fixes:
            return NO_FIX
        return voc.fixes[hashable(value)]

    def transform(self, fitted: Any, i: int, out: dict) -> bool:
        step, state = fitted.steps[i], fitted.fits.get(i)
        for fld in step.fields if state is not None else ():
            voc = state.by_field.get(fld)
            value = out.get(fld)
            new = voc.fixes.get(hashable(value), NO_FIX) if voc is not None else NO_FIX
            if new is not NO_FIX and step.may_write(fld, value, new):
                out[fld] = new
                fitted.changed[(i, fld)] += 1
        return True
