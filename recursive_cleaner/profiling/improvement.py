"""Does a candidate function move the field profile? The library's own check, no model call.

A function aimed at one field is accepted only if it lowers that field's count of non-conforming
values, leaves the values that were already right exactly as they were (a small model's lookup
table otherwise "corrects" every other spelling), and leaves every other field exactly as it was. A
function with no target (from the open-ended pass) must lower some field's count of wrong values and
must not add issues anywhere (a small model otherwise "fixes" fields that were fine, or copies the
prompt's example for a field the data does not have). Then the judge that needs no reading
(``harm``): no change may lose or invent content its field's evidence does not ask.
The reasons go back to the model with numbers and the values still wrong.

The model may choose its issue: a function asked for one field that instead fixes another
field (fewer wrong values there, its right values untouched, the asked field untouched) is
accepted and credited to that field (``Verdict.credited``). Fields out of the goals' scope
(``frozen``) may never change, nor may a value of a shape an example keeps as it is (``kept``:
"a postcode like 01907 stays 01907" keeps every value of the shape of 01907).

A conversion that keeps the value is no change to a right value: in a number or integer field
``'14.90'`` -> ``14.9`` and ``'7'`` -> ``7`` keep the value (same finite number). A code written
with leading zeros (``'01907'`` -> ``1907``) keeps it only where the goals ask for a number there.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Mapping

from ..errors import clip_text
from .expectations import Expectation
from .harm import HarmCheck
from .profiler import (
    FieldProfile,
    is_missing,
    issue_counts,
    profile_records,
    strings_only,
    value_key,
    value_shape,
)

__all__ = [
    "Verdict",
    "judge_change",
    "judge_holdout",
    "describe_counts",
    "untouchable_change",
    "same_number",
]

_SHOW = 8


@dataclass
class Verdict:
    """The outcome: ``problem`` is None when the change may be accepted; counts are before/after."""

    problem: str | None
    before: dict[str, int]
    after: dict[str, int]
    profiles_after: dict[str, FieldProfile]
    credited: str | None = None  # the field it fixed, when not the one it was asked for


def _same(old: Any, new: Any, csv_strings: bool) -> bool:
    """Equal values; in CSV data also a number whose text is the old string ("12" -> 12 writes "12"
    again)."""
    if old == new:
        return True
    return (
        csv_strings
        and isinstance(old, str)
        and isinstance(new, (int, float))
        and not isinstance(new, bool)
        and str(new) == old
    )


def _changed_fields(before: list, after: list, csv_strings: bool = False) -> dict[str, int]:
    """Field → number of records whose value of that field changed (added/removed keys count)."""
    changed: dict[str, int] = {}
    for old, new in zip(before, after):
        if not isinstance(old, dict) or not isinstance(new, dict):
            continue
        for key in old.keys() | new.keys():
            if not _same(old.get(key, _MISSING), new.get(key, _MISSING), csv_strings):
                changed[key] = changed.get(key, 0) + 1
    return changed


_MISSING = object()
_NUMBER_TEXT = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_ZERO_LED = re.compile(r"[-+]?0\d")


def _decimal(value: Any) -> Decimal | None:
    """A finite number's exact value (a float by its repr), a plain numeric text's, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, str) and len(value) <= 40 and _NUMBER_TEXT.fullmatch(value.strip()):
        try:
            return Decimal(value.strip())
        except InvalidOperation:
            return None
    return None


def same_number(old: Any, new: Any, *, leading_zeros: bool = False) -> bool:
    """Do ``old`` and ``new`` write the same finite number ('14.90' and 14.9, '7' and 7)?

    A text with leading zeros ('01907') is a code, the same as 1907 only with ``leading_zeros``
    (the goals ask for a number in that field).
    """
    if isinstance(old, str) and _ZERO_LED.match(old.strip()) and not leading_zeros:
        return False
    a, b = _decimal(old), _decimal(new)
    return a is not None and b is not None and a == b


def _by_value(exp: Expectation | None) -> tuple[bool, bool]:
    """(compare the field's values as numbers, leading zeros included) for its expectation."""
    if exp is None or exp.kind not in ("number", "integer"):
        return False, False
    return True, exp.source not in ("data", "field name")


def untouchable_change(
    before: list,
    after: list,
    frozen: frozenset[str] | set[str] = frozenset(),
    kept: Mapping[str, frozenset[str]] | None = None,
    *,
    csv_strings: bool = False,
    harm: HarmCheck | None = None,
) -> str | None:
    """Why the change from ``before`` to ``after`` touches what nothing may change, or None.

    ``frozen``: fields never written; ``kept``: field -> the value shapes an example keeps as they
    are; ``harm``: the judge that needs no reading (``profiling.harm``): a change of a value's
    content the field's evidence does not ask.
    """
    changed = _changed_fields(before, after, csv_strings)
    untouchable = sorted(f for f in changed if f in frozen)
    if untouchable:
        listed = ", ".join(f"'{f}'" for f in untouchable)
        return (
            f"It changed {listed}, which the goals do not ask to change; leave "
            f"{'that field' if len(untouchable) == 1 else 'those fields'} exactly as it was."
        )
    for name, shapes in sorted((kept or {}).items()):
        if name not in changed:
            continue
        broke = [
            (old.get(name), new.get(name))
            for old, new in zip(before, after)
            if isinstance(old, dict)
            and isinstance(new, dict)
            and not is_missing(old.get(name))
            and value_shape(old.get(name)) in shapes
            and not _same(old.get(name), new.get(name, _MISSING), csv_strings)
        ]
        if broke:
            examples = ", ".join(f"{_shown(a)} -> {_shown(b)}" for a, b in broke[:4])
            return (
                f"It changed {len(broke)} value(s) of '{name}' that the goals keep as they are "
                f"({examples}); "
                "values of that form must stay exactly as they were."
            )
    return _harmful(before, after, changed, harm, csv_strings) if harm is not None else None


def _harmful(
    before: list, after: list, changed: Mapping[str, int], harm: HarmCheck, csv_strings: bool
) -> str | None:
    """The first field whose changed values lose or invent content the goals do not ask for."""
    for name in sorted(changed):
        hurt = []
        for old, new in zip(before, after):
            # a field the record did not have: no value of it was right before
            if not isinstance(old, dict) or not isinstance(new, dict) or name not in old:
                continue
            was, now = old.get(name), new.get(name)
            if _same(was, now, csv_strings):
                continue
            why = harm.check(name, was, now)
            if why:
                hurt.append((was, now, why))
        if hurt:
            shown = "; ".join(f"{_shown(a)} -> {_shown(b)} ({why})" for a, b, why in hurt[:3])
            return (
                f"It changed {len(hurt)} value(s) of '{name}' in a way the goals do not ask for "
                f"({shown}); leave such values exactly as they were."
            )
    return None


def _shown(value: Any) -> str:
    """repr(value) cut to 80 characters: values come from generated code's output and go into
    prompts."""
    return clip_text(repr(value), 80)


def _values(values: list) -> str:
    shown = ", ".join(_shown(v) for v in values[:_SHOW])
    return shown + (f", ... ({len(values) - _SHOW} more)" if len(values) > _SHOW else "")


def _changed_right_values(
    before: list,
    after: list,
    target: str,
    profile: FieldProfile | None,
    csv_strings: bool = False,
    exp: Expectation | None = None,
) -> list[tuple]:
    """(old, new) for each record whose ``target`` value was right (present, not offending) and
    changed.

    In a number or integer field a value written as the same number ('14.90' -> 14.9) is unchanged.
    """
    if profile is None:
        return []
    numbers, zeros = _by_value(exp)
    broke = []
    for old, new in zip(before, after):
        if not isinstance(old, dict) or not isinstance(new, dict):
            continue
        value, changed = old.get(target), new.get(target, _MISSING)
        if (
            is_missing(value)
            or value_key(value) in profile.bad_keys
            or _same(value, changed, csv_strings)
        ):
            continue
        if numbers and changed is not _MISSING and same_number(value, changed, leading_zeros=zeros):
            continue
        if changed is _MISSING or value_key(changed) != value_key(value):
            broke.append((value, None if changed is _MISSING else changed))
    return broke


def judge_change(
    before: list[dict],
    after: list[dict],
    expectations: dict[str, Expectation],
    *,
    target: str | None = None,
    csv_strings: bool | None = None,
    before_profiles: dict[str, FieldProfile] | None = None,
    frozen: frozenset[str] = frozenset(),
    kept: Mapping[str, frozenset[str]] | None = None,
    harm: HarmCheck | None = None,
) -> Verdict:
    """Judge the change from ``before`` to ``after`` (the same records, in order).

    ``csv_strings=None`` reads it from ``before`` only: a function that turns "12.0 oz" into 12 must
    not make the other fields' numbers-as-text count as wrong.
    """
    if csv_strings is None:
        csv_strings = strings_only(before)
    prof_before = before_profiles or profile_records(before, expectations, csv_strings=csv_strings)
    prof_after = profile_records(after, expectations, csv_strings=csv_strings)
    n_before, n_after = issue_counts(prof_before), issue_counts(prof_after)
    changed = _changed_fields(before, after, csv_strings)

    def verdict(problem: str | None, credited: str | None = None) -> Verdict:
        return Verdict(problem, n_before, n_after, prof_after, credited)

    if not changed:
        field_hint = f" field '{target}'" if target else " any record"
        return verdict(f"It changed nothing: no value of{field_hint} is different after it runs.")
    untouchable = untouchable_change(before, after, frozen, kept, csv_strings=csv_strings)
    if untouchable:
        return verdict(untouchable)

    def accepted(credited: str | None = None) -> Verdict:
        """The change passes the kind's judge: it must pass the one that needs no reading too."""
        hurt = _harmful(before, after, changed, harm, csv_strings) if harm is not None else None
        return verdict(hurt) if hurt else verdict(None, credited)

    if target is not None:
        others = {f: n for f, n in changed.items() if f != target}
        chosen = _other_issue(
            before,
            after,
            changed,
            target,
            prof_before,
            n_before,
            n_after,
            csv_strings,
            expectations,
        )
        if chosen:
            return accepted(chosen)
        if others:
            listed = ", ".join(f"'{f}' in {n} record(s)" for f, n in sorted(others.items()))
            return verdict(
                f"It changed other fields ({listed}); change only the field '{target}' "
                "and return every other field exactly as it was."
            )
        broke = _changed_right_values(
            before, after, target, prof_before.get(target), csv_strings, expectations.get(target)
        )
        if broke:
            examples = ", ".join(f"{_shown(a)} -> {_shown(b)}" for a, b in broke[:4])
            return verdict(
                f"It changed {len(broke)} value(s) of '{target}' that were already right "
                f"({examples}); "
                "change only the wrong values and return the right ones exactly as they were."
            )
        old, new = n_before.get(target, 0), n_after.get(target, 0)
        if new >= old:
            left = prof_after.get(target)
            still = _values(left.offending) if left else ""
            return verdict(
                f"It did not reduce the wrong values of '{target}': {old} before, {new} after. "
                f"Still wrong: {still}."
            )
        return accepted()
    worse = {f: (n_before.get(f, 0), n) for f, n in n_after.items() if n > n_before.get(f, 0)}
    if worse:
        listed = "; ".join(f"'{f}' {a} -> {b} wrong values" for f, (a, b) in sorted(worse.items()))
        return verdict(f"It made fields worse ({listed}).")
    if not any(n < n_before.get(f, 0) for f, n in n_after.items()):
        fields = ", ".join(f"'{f}'" for f in sorted(changed))
        return verdict(
            f"It changed {fields} but fixed nothing: no field has fewer values in the wrong format "
            "afterwards. Only fix a problem you can see in the data shown, for a field that exists."
        )
    return accepted()


def _other_issue(
    before: list,
    after: list,
    changed: dict[str, int],
    target: str,
    prof_before: dict,
    n_before: dict[str, int],
    n_after: dict[str, int],
    csv_strings: bool,
    expectations: dict[str, Expectation],
) -> str | None:
    """The field a function fixed instead of ``target``: fewer wrong values, no right value changed;
    else None."""
    if target in changed:
        return None
    for f in changed:
        if n_after.get(f, 0) >= n_before.get(f, 0) or _changed_right_values(
            before, after, f, prof_before.get(f), csv_strings, expectations.get(f)
        ):
            return None
    return max(changed, key=lambda f: n_before.get(f, 0) - n_after.get(f, 0))


def judge_holdout(
    before: list,
    after: list,
    expectations: dict[str, Expectation],
    *,
    csv_strings: bool | None = None,
    frozen: frozenset[str] | set[str] = frozenset(),
    kept: Mapping[str, frozenset[str]] | None = None,
    harm: HarmCheck | None = None,
) -> str | None:
    """Why the change makes the held-out records worse (a field with more wrong values, or one it
    may not touch)."""
    if csv_strings is None:
        csv_strings = strings_only(before)
    untouchable = untouchable_change(
        before, after, frozen, kept, csv_strings=csv_strings, harm=harm
    )
    if untouchable:
        return "On records you were not shown: " + untouchable[0].lower() + untouchable[1:]
    n_before = issue_counts(profile_records(before, expectations, csv_strings=csv_strings))
    prof_after = profile_records(after, expectations, csv_strings=csv_strings)
    worse = {
        f: (n_before.get(f, 0), n)
        for f, n in issue_counts(prof_after).items()
        if n > n_before.get(f, 0)
    }
    if not worse:
        return None
    listed = "; ".join(
        f"'{f}' {a} -> {b} wrong values (e.g. {_values(prof_after[f].offending[:3])})"
        for f, (a, b) in sorted(worse.items())
    )
    return f"On records you were not shown it made fields worse: {listed}."


def describe_counts(counts: dict[str, Any]) -> str:
    """``field=N`` pairs for fields with open issues, for logs and events."""
    return ", ".join(f"{f}={n}" for f, n in sorted(counts.items()) if n)
