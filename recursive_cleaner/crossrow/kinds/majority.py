"""``majority``: rows sharing a key agree on ``fields``: the value most rows of its key group have.

A functional dependency, e.g. ``provider_number -> name, city``: each field takes the value most
rows of its key group have, when that value holds at least ``min_share`` of the group (and the
group has at least ``min_count`` rows). Memory: one counter per (key, field) of the values seen.
With ``weight_by`` (the field naming each row's source), blanks do not vote and each source's
vote is weighted by how often it agrees with the winners (``weights``); the weighted plurality
wins. Memory: one counter per (key, field) of the (value, source) pairs seen. With
``variants_only`` (a key the goals do not state) only blanks and values that look like variants
of the winner (``values.is_variant``) are replaced: never one valid value by another.

A row whose one-field key is seen too rarely joins the full group of a key within
``max_distance`` edits whose values it matches (``near``), and its key is repaired.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...model.grammar import rep, seq
from ..near import MAX_WORK, PROBE_WORK, Budget, NearIndex, close_keys
from ..values import hashable
from ..weights import weigh_votes
from ._base import StepKind

__all__ = ["Majority", "KeyGroups"]

_KEY = "\0key"  # inside a majority group: the raw key values, counted
_NONE = object()


@dataclass
class KeyGroups:
    """A majority step's fitted state: its groups by corrected, normalised key; rare keys' near
    ones."""

    groups: dict[Any, dict[str, Counter]] = field(default_factory=dict)
    # a one-field key: each rare key -> the close full keys
    near: dict[Any, list] | None = field(default=None, repr=False)
    # keys first seen by transform
    probed: dict[Any, list] = field(default_factory=dict, repr=False)
    index: NearIndex | None = field(default=None, repr=False)


class Majority(StepKind):
    """Rows with the same key get the value most of them have."""

    name, needs_key, needs_fields, weighs, stated_repair = "majority", True, True, True, True
    prompt = (
        '<cross_row_step kind="majority" key="KEY_FIELD" fields="FIELD, FIELD"/>  rows with '
        "the same KEY_FIELD get the value most of them have"
    )

    def describe(self, step: Any) -> str:
        key, fields = "+".join(step.key), ", ".join(step.fields)
        if step.weight_by:
            return (
                f"for each {key}, set {fields} to the value its rows' sources vote for, each "
                f"{'+'.join(step.weight_by)} weighted by how often it agrees with the others"
            )
        return (
            f"for each {key}, set {fields} to the value most of its rows have (at least "
            f"{step.min_share:.0%} of {step.min_count}+ rows)"
            + (
                "; only blanks and values that look like a variant of it"
                if step.variants_only
                else ""
            )
        )

    def grammar(self, listed: Any) -> Any:
        return seq(
            '<cross_row_step kind="majority" key="',
            listed,
            '" fields="',
            listed,
            '"',
            rep(seq(' weight_by="', listed, '"'), 0, 1),
            "/>\n",
        )

    def start(self, step: Any) -> dict:
        return {}

    def add(self, summary: Any, i: int, record: dict) -> None:
        s, groups = summary.steps[i], summary.counts[i]
        raw_key = tuple(record.get(k) for k in s.key)
        group = groups.setdefault(tuple(hashable(k) for k in raw_key), {})
        raw = hashable(raw_key[0]) if len(raw_key) == 1 else raw_key
        group.setdefault(_KEY, Counter())[raw] += 1
        source = hashable(tuple(record.get(k) for k in s.weight_by)) if s.weight_by else None
        for fld in s.fields:
            vote = hashable(record.get(fld))
            group.setdefault(fld, Counter())[(vote, source) if s.weight_by else vote] += 1

    def merge(self, summary: Any, later: Any, i: int) -> None:
        mine_groups = summary.counts[i]
        for raw_key, group in later.counts[i].items():
            target = mine_groups.setdefault(raw_key, {})
            for fld, counts in group.items():
                target.setdefault(fld, Counter()).update(counts)

    def fit(self, summary: Any, i: int, fitted: Any) -> KeyGroups:
        """The groups merged under their corrected, normalised key (``fitted.key``)."""
        s = summary.steps[i]
        merged: dict[Any, dict[str, Counter]] = {}
        for raw_key, group in summary.counts[i].items():
            key = fitted.key(i, dict(zip(s.key, raw_key)))
            if key is None:
                continue
            target = merged.setdefault(key, {})
            for fld, counts in group.items():
                target.setdefault(fld, Counter()).update(counts)
        if s.weight_by:
            weighted, _ = weigh_votes(
                {
                    (key, fld): group[fld]
                    for key, group in merged.items()
                    for fld in s.fields
                    if fld in group
                }
            )
            for key, group in merged.items():
                for fld in s.fields:
                    group[fld] = weighted.get((key, fld), Counter())
        near = _near_keys(s, merged, fitted.left_alone, i) if len(s.key) == 1 else None
        return KeyGroups(merged, near)

    def transform(self, fitted: Any, i: int, out: dict) -> bool:
        step, state = fitted.steps[i], fitted.fits.get(i)
        group = _group(fitted, i, state, out) if state is not None else None
        for fld in step.fields if group else ():
            top = _winner(group.get(fld), step)
            old = out.get(fld)
            if top is not _NONE and hashable(old) != top and step.may_write(fld, old, top):
                out[fld] = top
                fitted.changed[(i, fld)] += 1
        return True


def _winner(counts: Counter | None, step: Any) -> Any:
    """The value a clear majority of the group has, or _NONE."""
    if not counts:
        return _NONE
    if step.weight_by:  # already weighted by source reliability: the strict plurality wins
        ranked = counts.most_common(2)
        return ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else _NONE
    total = sum(counts.values())
    ((top, n),) = counts.most_common(1)
    if total >= step.min_count and n / total >= step.min_share and n > total - n:
        return top
    return _NONE


def _group(fitted: Any, i: int, state: KeyGroups, record: dict) -> dict[str, Counter] | None:
    """The record's key group; a key seen too rarely is repaired to the close key whose group it
    matches."""
    step, groups = fitted.steps[i], state.groups
    key = fitted.key(i, record)
    group = groups.get(key)
    if (
        group is not None
        and sum(group[_KEY].values()) >= step.min_count
        or key is None
        or len(step.key) != 1
    ):
        return group
    scored = []
    for other in _close(state, step, key, group is not None):
        candidate = groups[other]
        agree = sum(
            1
            for fld in step.fields
            if _winner(candidate.get(fld), step) == hashable(record.get(fld))
        )
        scored.append((agree, other))
    scored.sort(key=lambda s: -s[0])
    # the row must look like that group, not just share a field
    needed = max(1, len(step.fields) // 2)
    if not scored or scored[0][0] < needed or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return group
    best = groups[scored[0][1]]
    raw = _winner(best[_KEY], step)
    if raw is not _NONE and record.get(step.key[0]) != raw and step.key[0] not in step.protected:
        record[step.key[0]] = raw
        fitted.changed[(i, step.key[0])] += 1
    return best


def _close(state: KeyGroups, step: Any, key: tuple, fitted: bool) -> list:
    """The full groups' keys within ``max_distance`` edits of a rare ``key`` (found by ``fit``, else
    now)."""
    if fitted and state.near is not None:
        return state.near.get(key, [])
    # a key an earlier step wrote: its own budget, the same on every worker
    if key not in state.probed:
        if state.index is None:
            state.index = _key_index(step, state.groups)
        found = close_keys(str(key[0]), state.index, step.max_distance, Budget(PROBE_WORK))
        state.probed[key] = found or []
    return state.probed[key]


def _full(group: dict[str, Counter], step: Any) -> bool:
    return sum(group[_KEY].values()) >= step.min_count


def _key_index(step: Any, groups: dict[Any, dict[str, Counter]]) -> NearIndex:
    """The keys of the groups with at least ``min_count`` rows, indexed by their text."""
    index = NearIndex(step.max_distance)
    for key, group in groups.items():
        if key is not None and _full(group, step):
            index.add(str(key[0]), (key, str(key[0])))
    return index


def _near_keys(
    step: Any, groups: dict[Any, dict[str, Counter]], left_alone: Counter, i: int
) -> dict:
    """Each rare key -> the full groups' keys within ``max_distance`` edits (none listed when there
    are none)."""
    index, budget, out = _key_index(step, groups), Budget(MAX_WORK), {}
    for key, group in groups.items():
        if key is None or _full(group, step):
            continue
        close = close_keys(str(key[0]), index, step.max_distance, budget)
        if close is None:
            left_alone[(i, step.key[0])] += 1
        elif close:
            out[key] = close
    return out
