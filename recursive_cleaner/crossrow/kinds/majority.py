"""``majority``: rows sharing a key agree on ``fields``: the value most rows of its key group have.

A functional dependency, e.g. ``provider_number -> name, city``: each field takes the value most
rows of its key group have, when that value holds at least ``min_share`` of the group (and the
group has at least ``min_count`` rows). Memory: one counter per (key, field) of the values seen.
With ``weight_by`` (the field naming each row's source) the vote is truth discovery
(``crossrow.truth``): each source's accuracy and each value's probability fitted together,
values that differ only by format one value (a row's value of the winner's is left as it is),
copying sources counted once, blanks not voting; a value more likely than not wins, and
``notes`` shows each source's accuracy. The truth of a cell is known, whatever the votes, where
the user's corrected rows label it (``Fitted.anchors``, a ``labels`` step's) and else where the
step's ``authority`` reports it (``("equals", NAME)``: the source of that name;
``("key_first_part",)``: the source the key's first part names, ``ua`` for ``UA-1234-IAH-ORD``;
names compared casefolded); a source's accuracy on the known cells of a field moves its votes in
that field (``truth``). A plain vote's labelled cells are their groups' winners. Memory: one
counter per (key, field) of the (value, source) pairs seen. With
``variants_only`` (a key the goals do not state) only blanks and values that look like variants
of the winner (``values.is_variant``) are replaced: never one valid value by another.

A row whose one-field key is seen too rarely joins the full group of a key within
``max_distance`` edits whose values it matches (``near``), and its key is repaired (a key the goals
state only: with ``variants_only`` a rare key is left as it is). Bounded work:
the close keys are found within ``near.MAX_WORK`` (a key first seen while transforming, one an
earlier step wrote: ``near.PROBE_WORK`` each, ``MAX_WORK`` for them all), and a group's winners
are worked out once, not for each of its rows (3,000 rows of one key and 3,000 distinct values
were 9 million counts).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...errors import clip_text
from ...model.grammar import rep, seq
from ..near import MAX_WORK, PROBE_WORK, Budget, NearIndex, close_keys
from ..truth import MAX_PAIRS, find_truths
from ..values import format_key, hashable, moves_a_field_in
from ._base import StepKind
from .majority_known import KEY, NAME_CHARS, authority_text, field_of, known_truths

__all__ = ["Majority", "KeyGroups"]

MAX_SOURCES_SHOWN = 20  # the report names the best and worst sources past this
_NONE = object()
_MISSING = object()


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
    probing: Budget | None = field(default=None, repr=False, compare=False)  # theirs, together
    # with ``weight_by``: each source's estimated accuracy, the cells it reports, copying pairs
    accuracy: dict[Any, float] = field(default_factory=dict)
    reports: dict[Any, int] = field(default_factory=dict)
    copies: dict[tuple, float] = field(default_factory=dict)
    # source pairs never looked at for copying (``truth.MAX_PAIRS``); the fit stopped at its work
    pairs_left_out: int = 0
    stopped: bool = False
    # (key, field) -> its winner, (key, None) -> the group's rows: worked out once, when first asked
    known: dict[tuple, Any] = field(default_factory=dict, repr=False, compare=False)


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
                f"for each {key}, set {fields} to the value its sources most likely agree on "
                f"(truth discovery: each {'+'.join(step.weight_by)} weighted by its estimated "
                "accuracy, values that differ only by format as one, copying sources counted once)"
                + (f"; {authority_text(step)} wins where it reports" if step.authority else "")
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

    def grammar(self, listed: Any, written: Any = None) -> Any:
        return seq(
            '<cross_row_step kind="majority" key="',
            listed,
            '" fields="',
            listed if written is None else written,
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
        group.setdefault(KEY, Counter())[raw] += 1
        source = _source(record, s.weight_by) if s.weight_by else None
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
        truths = None
        if s.weight_by:
            truths = find_truths(
                {
                    (key, fld): group[fld]
                    for key, group in merged.items()
                    for fld in s.fields
                    if fld in group
                },
                fixed=known_truths(s, merged, fitted, i),
                facet=field_of,
            )
            for key, group in merged.items():
                for fld in s.fields:
                    group[fld] = truths.scores.get((key, fld), Counter())
        near = _near_keys(s, merged, fitted.left_alone, i) if len(s.key) == 1 else None
        if truths is None:  # a plain vote: the labelled cells are their groups' winners
            known = {
                cell: hashable(value)
                for cell, value in known_truths(s, merged, fitted, i, authority=False).items()
            }
            return KeyGroups(merged, near, known=known)
        if truths.pairs_left_out:
            fitted.left_alone[(i, "+".join(s.weight_by))] += truths.pairs_left_out
        return KeyGroups(
            merged,
            near,
            accuracy=truths.accuracy,
            reports=truths.claims,
            copies=truths.copies,
            pairs_left_out=truths.pairs_left_out,
            stopped=truths.stopped,
        )

    def notes(self, step: Any, state: Any) -> list[str]:
        """With ``weight_by``: each source's estimated accuracy (best first) and the copying
        pairs."""
        if not step.weight_by or not isinstance(state, KeyGroups) or not state.accuracy:
            return []
        ranked = sorted(state.accuracy, key=lambda s: (-state.accuracy[s], str(s)))
        shown = [
            f"{clip_text(s, NAME_CHARS)} {state.accuracy[s]:.2f} ({state.reports.get(s, 0)})"
            for s in ranked
        ]
        if len(shown) > MAX_SOURCES_SHOWN:
            cut = MAX_SOURCES_SHOWN // 2
            shown = shown[:cut] + [f"… {len(shown) - 2 * cut} more …"] + shown[-cut:]
        lines = [
            f"estimated accuracy of each {'+'.join(step.weight_by)} (cells it reports): "
            + ", ".join(shown)
        ]
        if state.copies:
            pairs = sorted(
                f"{clip_text(a, NAME_CHARS)} ~ {clip_text(b, NAME_CHARS)}" for a, b in state.copies
            )
            more = len(pairs) - MAX_SOURCES_SHOWN
            more = f" and {more} more" if more > 0 else ""
            lines.append(
                "sources that share false values (one copies the other, or both a common feed; "
                f"counted once): {', '.join(pairs[:MAX_SOURCES_SHOWN])}{more}"
            )
        bound = [
            f"the {MAX_PAIRS} pairs of sources seen together most often were looked at, "
            f"{state.pairs_left_out} more left out"
        ] * bool(state.pairs_left_out) + ["the fit stopped before it settled"] * state.stopped
        if bound:
            lines.append("copying looked for within a work bound: " + "; ".join(bound))
        return lines

    def transform(self, fitted: Any, i: int, out: dict) -> bool:
        step, state = fitted.steps[i], fitted.fits.get(i)
        key = _group(fitted, i, state, out) if state is not None else None
        for fld in step.fields if key is not None else ():
            top = _known(state, step, key, fld)
            old = out.get(fld)
            if top is _NONE or hashable(old) == top or not step.may_write(fld, old, top):
                continue
            if step.variants_only and moves_a_field_in(old, top, out, fld):
                continue  # the winner holds another column's value: merged, not fuller
            # a source-weighted vote counts values that differ only by format as one: leave them
            if not step.weight_by or format_key(old) != format_key(top):
                out[fld] = top
                fitted.changed[(i, fld)] += 1
        return True


def _source(record: dict, fields: tuple[str, ...]) -> Any:
    """The row's source: its ``weight_by`` value (a tuple of them for several fields)."""
    if len(fields) == 1:
        return hashable(record.get(fields[0]))
    return hashable(tuple(record.get(k) for k in fields))


def _winner(counts: Counter | None, step: Any) -> Any:
    """The value a clear majority of the group has, or _NONE."""
    if not counts:
        return _NONE
    if step.weight_by:  # each value's probability (``truth``): one more likely than not wins
        ((top, p),) = counts.most_common(1)
        return top if p > 0.5 else _NONE
    total = sum(counts.values())
    ((top, n),) = counts.most_common(1)
    if total >= step.min_count and n / total >= step.min_share and n > total - n:
        return top
    return _NONE


def _known(state: KeyGroups, step: Any, key: Any, fld: str | None) -> Any:
    """The winner of ``fld`` in ``key``'s group (``None``: the group's rows), worked out once: a
    group of many distinct values is not counted again for each of its rows."""
    found = state.known.get((key, fld), _MISSING)
    if found is _MISSING:
        group = state.groups[key]
        found = sum(group[KEY].values()) if fld is None else _winner(group.get(fld), step)
        state.known[(key, fld)] = found
    return found


def _group(fitted: Any, i: int, state: KeyGroups, record: dict) -> Any:
    """The key of the record's group (None: no group); a key seen too rarely is repaired to the
    close key whose group it matches."""
    step, groups = fitted.steps[i], state.groups
    key = fitted.key(i, record)
    seen = key in groups
    if seen and _known(state, step, key, None) >= step.min_count or key is None:
        return key
    # a key the goals do not state is never repaired: its rare keys may be other things, right
    if len(step.key) != 1 or step.variants_only:
        return key if seen else None
    scored = []
    for other in _close(fitted, i, state, key, seen):
        agree = sum(
            1 for fld in step.fields if _known(state, step, other, fld) == hashable(record.get(fld))
        )
        scored.append((agree, other))
    scored.sort(key=lambda s: -s[0])
    # the row must look like that group, not just share a field
    needed = max(1, len(step.fields) // 2)
    if not scored or scored[0][0] < needed or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return key if seen else None
    best = scored[0][1]
    raw = _known(state, step, best, KEY)
    if raw is not _NONE and record.get(step.key[0]) != raw and step.key[0] not in step.protected:
        record[step.key[0]] = raw
        fitted.changed[(i, step.key[0])] += 1
    return best


def _close(fitted: Any, i: int, state: KeyGroups, key: tuple, seen: bool) -> list:
    """The full groups' keys within ``max_distance`` edits of a rare ``key`` (found by ``fit``, else
    now)."""
    if seen and state.near is not None:
        return state.near.get(key, [])
    # a key an earlier step wrote: its own budget, out of ``MAX_WORK`` for them all (past it, a
    # new key is left alone and counted; on Dask, each part's transform has its own)
    if key not in state.probed:
        step = fitted.steps[i]
        if state.index is None:
            state.index = _key_index(step, state.groups)
        if state.probing is None:
            state.probing = Budget(MAX_WORK)
        found = None
        if state.probing.left > 0:
            budget = Budget(PROBE_WORK)
            found = close_keys(str(key[0]), state.index, step.max_distance, budget)
            state.probing.spend(PROBE_WORK - budget.left)
        if found is None:
            fitted.left_alone[(i, step.key[0])] += 1
        state.probed[key] = found or []
    return state.probed[key]


def _full(group: dict[str, Counter], step: Any) -> bool:
    return sum(group[KEY].values()) >= step.min_count


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
