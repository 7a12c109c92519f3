"""Is a cross-row step safe to write? Checked on the sample before any step reaches
``cleaning_functions.py``.

Whoever proposed a step (discovery, the model, a stated key), it is refused with a reason when:

- it is a ``dedup`` step whose key does not identify records: the key is blank in most rows,
  has fewer than ``MIN_KEY_VALUES`` distinct values (a status, a country), or more than
  ``MAX_DUPLICATE_SHARE`` of the keyed rows would be duplicates;
- it drops more than ``MAX_DROP_SHARE`` of the records, or changes more than
  ``MAX_CHANGE_SHARE`` of a field's values, and the goals do not ask for exactly that (a dedup
  step the goals ask for; a majority step on a key the goals state).

``asks_dedup`` (in ``profiling.row_rules``, the goals' reader; the spec keeps its answer) reads
whether the goals ask to remove duplicates: a sentence that mentions them counts only if it asks
to remove them and does not say to keep records or leave duplicates ("Keep every record,
including duplicates (removing duplicates is a separate step)" is no request).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..profiling.row_rules import asks_dedup
from .steps import CrossRowStep, normalized

__all__ = [
    "asks_dedup",
    "dedup_key_problem",
    "harm",
    "MAX_DROP_SHARE",
    "MAX_CHANGE_SHARE",
    "MAX_DUPLICATE_SHARE",
    "MIN_KEY_VALUES",
]

MAX_DROP_SHARE = 0.05  # records a step may drop on the sample unless the goals ask for it
# values of one field a step may change on the sample unless the goals ask for it
MAX_CHANGE_SHARE = 0.2
MAX_DUPLICATE_SHARE = 0.25  # a dedup key with more duplicates than this does not identify records
MIN_KEY_VALUES = 10  # a dedup key needs at least this many distinct values on the sample


def dedup_key_problem(step: CrossRowStep, records: list[dict]) -> str | None:
    """Why ``step``'s key does not identify records on the sample, or None."""
    keys = [tuple(normalized(r.get(k), step.normalize) for k in step.key) for r in records]
    present = [k for k in keys if None not in k]
    name = "+".join(step.key)
    if len(present) < len(records) / 2:
        return (
            f"its key {name} is blank in {len(records) - len(present)} of {len(records)} sample "
            "records"
        )
    distinct = len(set(present))
    if distinct < MIN_KEY_VALUES:
        return (
            f"its key {name} has only {distinct} distinct value(s) in {len(present)} sample "
            "records: "
            "it names a group, not a record"
        )
    duplicates = len(present) - distinct
    if duplicates > MAX_DUPLICATE_SHARE * len(present):
        return (
            f"its key {name} would make {duplicates} of {len(present)} sample records duplicates "
            f"(more than {MAX_DUPLICATE_SHARE:.0%}): it does not identify records"
        )
    return None


def _plain(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def harm(step: CrossRowStep, before: list[dict], after: list[dict], *, asked: bool) -> str | None:
    """Why ``step`` (which turned ``before`` into ``after``) does too much on the sample unless
    asked, or None."""
    if asked or not before:
        return None
    dropped = len(before) - len(after)
    if dropped > MAX_DROP_SHARE * len(before):
        return (
            f"it drops {dropped} of {len(before)} sample records (more than {MAX_DROP_SHARE:.0%}) "
            "and the goals do not ask for it"
        )
    if dropped:
        return None  # rows no longer line up; the drop share was the check
    changed: Counter = Counter()
    for old, new in zip(before, after):
        for fld in set(old) | set(new):
            if _plain(old.get(fld)) != _plain(new.get(fld)):
                changed[fld] += 1
    for fld, n in changed.most_common(1):
        if n > MAX_CHANGE_SHARE * len(before):
            return (
                f"it changes {n} of {len(before)} values of {fld} on the sample (more than "
                f"{MAX_CHANGE_SHARE:.0%}) and the goals do not state that rule"
            )
    return None
