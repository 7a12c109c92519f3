"""``shape``: a value off the field's shape by a character or two becomes the one value of that
shape the field holds that it can be.

Nearly all scores read "97%", "100%"; "95x" has lost its "%", "x00%" a digit. The field's shapes
(``value_shape``: digits 9, letters a, the rest as written, runs collapsed) show which values are
off: a shape at least ``RATIO`` times rarer than the field's most common one. Such a value becomes
a value the field holds, of a common shape (``COMMON`` of the values at least), when exactly one
such value is the same length and differs from it only where a character is of the wrong class (a
letter where the shape has a digit or a "%", a digit where it has a letter ...), at most
``max_distance`` characters and half of them, and is seen at least ``RATIO`` times as often.
Never a guess: "9x%" could be 90% to 99%, all held, so it is left alone; a digit is never
replaced by another digit, nor a letter by a letter, and two numbers are two values ("1,234" is
not "1.234": ``near.two_values``). Memory: the field's distinct values with
their counts (as ``vocabulary``: at most 5,000, a capped cell recounted on Dask). Its fixes also
correct the other steps' keys (``fixes_keys``), so a row whose id lost a digit joins its group.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...model.grammar import seq
from ...profiling.profiler import value_shape
from ..near import MAX_CHARS, MAX_WORK, Budget, NearIndex, look, two_values
from ._base import NO_FIX, FieldValueCounts

__all__ = ["Shape", "ShapeFixes", "shape_fixes", "RATIO", "COMMON", "MAX_VALUES"]

RATIO = 10.0  # an off shape is this much rarer than the top one; the fix this much more frequent
COMMON = 0.2  # a shape a fix may have: at least this share of the field's values
MAX_VALUES = 5000  # distinct values of one field kept (as vocabulary's)


@dataclass
class ShapeFixes:
    """A shape step's fitted state: field -> {off-shape value: the value it becomes}."""

    restored: dict[str, dict[str, str]] = field(default_factory=dict)


def _cls(ch: str) -> str:
    return "9" if ch.isdecimal() else "a" if ch.isalpha() else ch


def _restores(old: str, new: str, limit: int) -> bool:
    """Same length, 1..``limit`` characters differ, each one of another class in ``old``."""
    if len(old) != len(new) or old == new:
        return False
    differ = 0
    for a, b in zip(old, new):
        if a != b:
            differ += 1
            if differ > limit or _cls(a) == _cls(b):
                return False
    return True


def shape_fixes(counts: Counter, max_distance: int) -> tuple[dict[str, str], int]:
    """(off-shape value -> the one value of a common shape it restores to, values left alone)."""
    strings = {
        v: n for v, n in counts.items() if isinstance(v, str) and v.strip() and len(v) <= MAX_CHARS
    }
    shapes: Counter = Counter()
    for v, n in strings.items():
        shapes[value_shape(v)] += n
    if not shapes:
        return {}, 0
    total, top = sum(shapes.values()), shapes.most_common(1)[0][1]
    common = {s for s, n in shapes.items() if n >= COMMON * total}
    index = NearIndex(max_distance)
    for v in sorted(strings, key=lambda v: -strings[v]):
        if value_shape(v) in common:
            index.add(v, v)
    budget, fixes, left_alone = Budget(MAX_WORK), {}, 0
    for v, n in strings.items():
        if RATIO * shapes[value_shape(v)] > top:
            continue  # a shape of its own, not a slip
        limit = min(max_distance, max(1, len(v) // 2))
        near = index.near(v, limit, budget)
        if near is None:
            left_alone += 1
            continue
        found: list[str] | None = []
        for u in near:
            if not budget.spend(look(v, u)):
                found = None
                break
            if _restores(v, u, limit):
                found.append(u)
        if found is None:
            left_alone += 1
            continue
        if len(found) == 1 and strings[found[0]] >= RATIO * n and not two_values(v, found[0]):
            fixes[v] = found[0]
    return fixes, left_alone


class Shape(FieldValueCounts):
    """A value of ``fields`` off the field's shape becomes the one held value it can be."""

    name, needs_fields, fixes_keys, value_map = "shape", True, True, True
    prompt = (
        '<cross_row_step kind="shape" fields="FIELD"/>  a value that lost a character of the '
        "field's usual shape gets it back when only one value the field holds fits"
    )

    def describe(self, step: Any) -> str:
        return (
            f"in {', '.join(step.fields)}, restore a value off the field's usual shape to the "
            f"one value of that shape, {step.max_distance} characters of another class away at "
            f"most, that the field holds at least {RATIO:g}x as often"
        )

    def names(self, step: Any) -> tuple[str, ...]:
        return tuple(step.fields)

    def grammar(self, listed: Any, written: Any = None) -> Any:
        names = listed if written is None else written
        return seq('<cross_row_step kind="shape" fields="', names, '"/>\n')

    def max_values(self) -> int:
        return MAX_VALUES  # read at call time: a test may lower it

    def fit(self, summary: Any, i: int, fitted: Any) -> ShapeFixes:
        state, step = ShapeFixes(), summary.steps[i]
        for fld, counts in summary.counts[i].items():
            fixes, left_alone = shape_fixes(counts, step.max_distance)
            if fixes:
                state.restored[fld] = fixes
            if left_alone:
                fitted.left_alone[(i, fld)] += left_alone
        return state

    def fix(self, state: ShapeFixes, fld: str, value: Any) -> Any:
        fixes = state.restored.get(fld)
        if fixes is None or not isinstance(value, str) or value not in fixes:
            return NO_FIX
        return fixes[value]

    def transform(self, fitted: Any, i: int, out: dict) -> bool:
        step, state = fitted.steps[i], fitted.fits.get(i)
        for fld, fixes in state.restored.items() if state is not None else ():
            value = out.get(fld)
            new = fixes.get(value, NO_FIX) if isinstance(value, str) else NO_FIX
            if new is not NO_FIX and step.may_write(fld, value, new):
                out[fld] = new
                fitted.changed[(i, fld)] += 1
        return True
