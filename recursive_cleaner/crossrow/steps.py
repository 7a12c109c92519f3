"""Cross-row cleaning: declarative steps that need the whole dataset, fitted then applied in two streaming passes.

A per-record function cannot know what other rows say. These steps can, and they are data,
not code: the model picks or writes them as XML, the library validates them on a chunk and
runs them with its own (trusted) code, so nothing the model wrote executes here.

Kinds of step:

- ``dedup``: drop records whose key (one or more fields, normalised) was seen before; keeps the
  first. Memory: one entry per distinct key.
- ``majority``: rows sharing a key agree on ``fields`` (a functional dependency, e.g.
  ``provider_number -> name, city``); each field takes the value most rows of its key group
  have, when that value holds at least ``min_share`` of the group (and the group has at least
  ``min_count`` rows). Memory: one counter per (key, field) of the values seen. With
  ``weight_by`` (the field naming each row's source), blanks do not vote and each source's vote
  is weighted by how often it agrees with the winners (``weights``); the weighted
  plurality wins. Memory: one counter per (key, field) of the (value, source) pairs seen. With
  ``variants_only`` (a key the goals do not state) only blanks and values that look like variants
  of the winner (``is_variant``: case, spacing, a few edits for their length) are replaced: never
  one valid value by another (another customer's e-mail, another country).
- ``vocabulary``: a field has a small set of correct spellings that most rows use; a rare
  value within ``max_distance`` edits of a value at least ``ratio`` times as frequent is
  replaced by it (only when the closest such value is unambiguous). Memory: the distinct
  values of the field with their counts.

``fit(steps, records)`` is the first pass (statistics: a ``Summary`` of counts, which add up
part by part, so apply_dask merges the parts' summaries into the one a single pass counts;
``Summary.fitted()`` picks the winners); ``Fitted.transform(record)`` the second (returns the
cleaned record, or None for a dropped duplicate). Vocabulary corrections of a key
field are applied to the key before a majority lookup, so a row whose key had a typo still
joins its group.

No step writes a field in its ``protected`` (the goals leave it as it is: a protected key is read,
never repaired) or replaces a value whose shape its ``keep`` lists for that field (an example
keeps values of that shape as they are); ``CrossRowStep.may_write`` is the one check.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Iterator

from .near import MAX_CHARS, PROBE_WORK, MAX_WORK, Budget, NearIndex, close_keys, closest_spellings, distance, two_values
from ..profiling.profiler import value_shape
from .weights import weigh_votes

__all__ = ["CrossRowStep", "Fitted", "Summary", "summarize", "fit", "apply_steps", "iter_apply", "KINDS",
           "normalized", "unasked_drops", "is_variant"]

KINDS = ("dedup", "majority", "vocabulary")
NORMALIZERS = ("exact", "casefold", "digits")
_MAX_VOCAB = 5000  # distinct values of one field kept for vocabulary matching


@dataclass(frozen=True)
class CrossRowStep:
    """One cross-row rule; see the module docstring for what each kind does."""

    kind: str
    key: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    normalize: str = "casefold"
    min_share: float = 0.5
    min_count: int = 2
    max_distance: int = 2
    ratio: float = 3.0
    weight_by: tuple[str, ...] = ()
    asked: bool = False  # a dedup step the user's goals ask for: apply lets it drop more than max_drop
    variants_only: bool = False  # majority on a key the goals do not state: replace only variants of the winner
    protected: tuple[str, ...] = ()  # fields the goals leave as they are: never written (key repairs included)
    keep: tuple[tuple[str, str], ...] = ()  # (field, value shape) an example keeps as it is: never replaced

    def __post_init__(self) -> None:
        object.__setattr__(self, "protected", tuple(self.protected))
        object.__setattr__(self, "keep", tuple((str(f), str(shape)) for f, shape in self.keep))
        if self.kind not in KINDS:
            raise ValueError(f"cross-row step kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind in ("dedup", "majority") and not self.key:
            raise ValueError(f"a {self.kind} step needs a key field")
        if self.kind in ("majority", "vocabulary") and not self.fields:
            raise ValueError(f"a {self.kind} step needs fields")
        if self.normalize not in NORMALIZERS:
            raise ValueError(f"normalize must be one of {', '.join(NORMALIZERS)}")
        if self.asked and self.kind != "dedup":
            raise ValueError("only a dedup step is marked as asked for by the goals")
        if self.weight_by and self.kind != "majority":
            raise ValueError("only a majority step can weight its votes by source")
        if self.variants_only and self.kind != "majority":
            raise ValueError("only a majority step replaces variants only")

    def describe(self) -> str:
        """One line for the report and the generated file."""
        if self.kind == "dedup":
            return f"drop records whose {'+'.join(self.key)} ({self.normalize}) was seen before; keep the first"
        if self.kind == "majority" and self.weight_by:
            return (f"for each {'+'.join(self.key)}, set {', '.join(self.fields)} to the value its rows' sources "
                    f"vote for, each {'+'.join(self.weight_by)} weighted by how often it agrees with the others")
        if self.kind == "majority":
            return (f"for each {'+'.join(self.key)}, set {', '.join(self.fields)} to the value most of its rows "
                    f"have (at least {self.min_share:.0%} of {self.min_count}+ rows)"
                    + ("; only blanks and values that look like a variant of it" if self.variants_only else ""))
        return (f"replace rare spellings of {', '.join(self.fields)} by a value within {self.max_distance} edits "
                f"that is at least {self.ratio:g}x as frequent")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["key"], d["fields"] = list(self.key), list(self.fields)
        if self.weight_by:
            d["weight_by"] = list(self.weight_by)
        else:
            d.pop("weight_by")  # files written before weighting existed stay the same
        if not self.asked:
            d.pop("asked")
        for name in ("variants_only", "protected", "keep"):  # files written before these existed stay the same
            if not d[name]:
                d.pop(name)
        if "protected" in d:
            d["protected"] = list(self.protected)
        if "keep" in d:
            d["keep"] = [list(pair) for pair in self.keep]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CrossRowStep":
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        known["key"], known["fields"] = tuple(known.get("key") or ()), tuple(known.get("fields") or ())
        known["weight_by"] = tuple(known.get("weight_by") or ())
        known["protected"] = tuple(known.get("protected") or ())
        known["keep"] = tuple(tuple(pair) for pair in known.get("keep") or ())
        return cls(**known)

    def may_write(self, fld: str, old: Any, new: Any) -> bool:
        """May this step put ``new`` in place of ``old`` in ``fld``? Not in a protected field, nor over a kept
        value's shape; with ``variants_only``, a present value only by a variant of it (``is_variant``)."""
        if fld in self.protected or (self.keep and (fld, value_shape(old)) in self.keep):
            return False
        if self.variants_only and old is not None and not (isinstance(old, str) and not old.strip()):
            return is_variant(old, new, self.max_distance)
        return True


def _stray_word(a: str, b: str) -> bool:
    """Is one text the other followed by one short word (at most a third of its length)?"""
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    words = longer.split(" ")
    return (len(words) >= 2 and " ".join(words[:-1]) == shorter and 3 * len(words[-1]) <= len(longer))


def is_variant(old: Any, new: Any, max_distance: int = 2) -> bool:
    """Does ``old`` look like a variant of ``new`` (case, spacing, a few edits for its length, as typos are)?

    The same after case-folding and collapsing whitespace, the other with a short stray word after it
    ("Mooresville NC": a last word of at most a third of the text), or within ``len // 3`` edits of the
    longer text (at most ``max_distance``), two values never (``near.two_values``): "Germnay" is
    Germany, "DK" is not "DE", "East Germany" is
    not Germany, another customer's address is not a typo of this one's.
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


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


@dataclass
class _Vocabulary:
    counts: Counter = field(default_factory=Counter)
    fixes: dict[Any, Any] = field(default_factory=dict)
    left_alone: int = 0  # distinct strings not matched: longer than near.MAX_CHARS, or past the work budget

    def solve(self, step: CrossRowStep) -> None:
        """Map each rare string to its unambiguous, much more frequent close spelling (``near.closest_spellings``)."""
        self.fixes, self.left_alone = closest_spellings(self.counts, step.max_distance, step.ratio)


@dataclass
class Fitted:
    """The statistics of the first pass; ``transform`` is the second pass, record by record."""

    steps: list[CrossRowStep]
    vocab: dict[tuple[int, str], _Vocabulary] = field(default_factory=dict)
    groups: dict[int, dict[Any, dict[str, Counter]]] = field(default_factory=dict)
    seen: dict[int, set] = field(default_factory=dict)
    changed: Counter = field(default_factory=Counter)
    dropped: int = 0
    dropped_by: Counter = field(default_factory=Counter)  # step index -> records it dropped
    left_alone: Counter = field(default_factory=Counter)  # (step, field) -> distinct values/keys too long or past budget
    near: dict[int, dict[Any, list]] = field(default_factory=dict, repr=False)  # majority: rare key -> close full keys
    _probed: dict[tuple[int, Any], list] = field(default_factory=dict, repr=False)  # keys first seen in transform
    _indexes: dict[int, NearIndex] = field(default_factory=dict, repr=False)

    def _fix(self, fld: str, value: Any) -> Any:
        for (_, name), voc in self.vocab.items():
            if name == fld and _hashable(value) in voc.fixes:
                return voc.fixes[_hashable(value)]
        return value

    def _key(self, step: CrossRowStep, record: dict) -> Any:
        parts = tuple(normalized(self._fix(k, record.get(k)), step.normalize) for k in step.key)
        return None if any(p is None for p in parts) else parts

    def key(self, i: int, record: dict) -> Any:
        """Step ``i``'s key of ``record`` as it compares it (vocabulary fixes applied, normalised), or None."""
        return self._key(self.steps[i], record)

    def _group(self, i: int, step: CrossRowStep, record: dict) -> dict[str, Counter] | None:
        """The record's key group; a key seen too rarely is repaired to the close key whose group it matches."""
        groups = self.groups.get(i, {})
        key = self._key(step, record)
        group = groups.get(key)
        if group is not None and sum(group[_KEY].values()) >= step.min_count or key is None or len(step.key) != 1:
            return group
        scored = []
        for other in self._close(i, step, key, group is not None):
            candidate = groups[other]
            agree = sum(1 for fld in step.fields if _winner(candidate.get(fld), step) == _hashable(record.get(fld)))
            scored.append((agree, other))
        scored.sort(key=lambda s: -s[0])
        needed = max(1, len(step.fields) // 2)  # the row must look like that group, not just share a field
        if not scored or scored[0][0] < needed or (len(scored) > 1 and scored[1][0] == scored[0][0]):
            return group
        best = groups[scored[0][1]]
        raw = _winner(best[_KEY], step)
        if raw is not _NONE and record.get(step.key[0]) != raw and step.key[0] not in step.protected:
            record[step.key[0]] = raw
            self.changed[(i, step.key[0])] += 1
        return best

    def _close(self, i: int, step: CrossRowStep, key: tuple, fitted: bool) -> list:
        """The full groups' keys within ``max_distance`` edits of a rare ``key`` (found in ``fitted()``, else now)."""
        if fitted and i in self.near:
            return self.near[i].get(key, [])
        if (i, key) not in self._probed:  # a key an earlier step wrote: its own budget, the same on every worker
            if i not in self._indexes:
                self._indexes[i] = _key_index(step, self.groups.get(i, {}))
            found = close_keys(str(key[0]), self._indexes[i], step.max_distance, Budget(PROBE_WORK))
            self._probed[(i, key)] = found or []
        return self._probed[(i, key)]

    def transform(self, record: Any) -> Any:
        """The record after every step (a new dict), or None when a dedup step drops it."""
        if not isinstance(record, dict):
            return record
        out = dict(record)
        for i in range(len(self.steps)):
            if not self.apply_step(i, out):
                return None
        return out

    def apply_step(self, i: int, out: dict) -> bool:
        """Step ``i`` on ``out`` in place (``transform`` runs them all in order); False when a dedup step drops it."""
        step = self.steps[i]
        if step.kind == "vocabulary":
            for fld in step.fields:
                voc = self.vocab.get((i, fld))
                value = out.get(fld)
                if voc is not None and _hashable(value) in voc.fixes and step.may_write(fld, value, voc.fixes[
                        _hashable(value)]):
                    out[fld] = voc.fixes[_hashable(value)]
                    self.changed[(i, fld)] += 1
        elif step.kind == "majority":
            group = self._group(i, step, out)
            for fld in step.fields if group else ():
                top = _winner(group.get(fld), step)
                if top is not _NONE and _hashable(out.get(fld)) != top and step.may_write(fld, out.get(fld), top):
                    out[fld] = top
                    self.changed[(i, fld)] += 1
        else:  # dedup
            key = self._key(step, out)
            if key is not None:
                seen = self.seen.setdefault(i, set())
                if key in seen:
                    self.dropped += 1
                    self.dropped_by[i] += 1
                    return False
                seen.add(key)
        return True


_KEY = "\0key"  # inside a majority group: the raw key values, counted
_NONE = object()


def _winner(counts: Counter | None, step: CrossRowStep) -> Any:
    """The value a clear majority of the group has, or _NONE."""
    if not counts:
        return _NONE
    if step.weight_by:  # already weighted by source reliability: the strict plurality wins
        ranked = counts.most_common(2)
        return ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else _NONE
    total = sum(counts.values())
    (top, n), = counts.most_common(1)
    if total >= step.min_count and n / total >= step.min_share and n > total - n:
        return top
    return _NONE


@dataclass
class Summary:
    """The first pass as counts that add up: summaries of consecutive parts, merged in order, give the whole's.

    ``vocab``: (step, field) -> value counts in order of first sight, at most ``_MAX_VOCAB`` values
    (``capped`` names the cells that saw more: their counts are exact only after ``recount``);
    ``groups``: majority step -> raw key -> {``_KEY`` / field: counts}. ``fitted()`` picks the winners.
    """

    steps: list[CrossRowStep]
    vocab: dict[tuple[int, str], Counter] = field(default_factory=dict)
    groups: dict[int, dict[tuple, dict[str, Counter]]] = field(default_factory=dict)
    capped: set = field(default_factory=set)

    def __post_init__(self) -> None:
        for i, s in enumerate(self.steps):
            if s.kind == "vocabulary":
                for fld in s.fields:
                    self.vocab.setdefault((i, fld), Counter())
            elif s.kind == "majority":
                self.groups.setdefault(i, {})

    def add(self, record: Any) -> None:
        """Count one record (anything but a dict is not counted)."""
        if not isinstance(record, dict):
            return
        for (i, fld), counts in self.vocab.items():
            value = _hashable(record.get(fld))
            if value is not None:
                if value in counts or len(counts) < _MAX_VOCAB:
                    counts[value] += 1
                else:
                    self.capped.add((i, fld))
        for i, groups in self.groups.items():
            s = self.steps[i]
            raw_key = tuple(record.get(k) for k in s.key)
            group = groups.setdefault(tuple(_hashable(k) for k in raw_key), {})
            group.setdefault(_KEY, Counter())[_hashable(raw_key[0]) if len(raw_key) == 1 else raw_key] += 1
            source = _hashable(tuple(record.get(k) for k in s.weight_by)) if s.weight_by else None
            for fld in s.fields:
                vote = _hashable(record.get(fld))
                group.setdefault(fld, Counter())[(vote, source) if s.weight_by else vote] += 1

    def merge(self, later: "Summary") -> "Summary":
        """Add the summary of the records that come after these (in place; returns self)."""
        for cell, counts in later.vocab.items():
            mine = self.vocab[cell]
            for value, n in counts.items():
                if value in mine or len(mine) < _MAX_VOCAB:
                    mine[value] += n
                else:
                    self.capped.add(cell)
        self.capped |= later.capped
        for i, groups in later.groups.items():
            mine_groups = self.groups[i]
            for raw_key, group in groups.items():
                target = mine_groups.setdefault(raw_key, {})
                for fld, counts in group.items():
                    target.setdefault(fld, Counter()).update(counts)
        return self

    def recount(self, cells: Iterable[tuple[int, str]], records: Iterable[Any]) -> dict[tuple[int, str], Counter]:
        """The counts of the values ``vocab`` keeps for ``cells``, over ``records`` (exact counts past the cap)."""
        out = {cell: Counter() for cell in cells}
        for record in records:
            if isinstance(record, dict):
                for (i, fld), counts in out.items():
                    value = _hashable(record.get(fld))
                    if value in self.vocab[(i, fld)]:
                        counts[value] += 1
        return out

    def fitted(self) -> Fitted:
        """The winners: vocabulary fixes, then majority groups merged under their corrected, normalised key."""
        fitted = Fitted(list(self.steps))
        for cell, counts in self.vocab.items():
            fitted.vocab[cell] = _Vocabulary(Counter(counts))
            fitted.vocab[cell].solve(self.steps[cell[0]])
            if fitted.vocab[cell].left_alone:
                fitted.left_alone[cell] += fitted.vocab[cell].left_alone
        for i, groups in self.groups.items():
            s = self.steps[i]
            merged: dict[Any, dict[str, Counter]] = {}
            for raw_key, group in groups.items():
                key = fitted._key(s, dict(zip(s.key, raw_key)))
                if key is None:
                    continue
                target = merged.setdefault(key, {})
                for fld, counts in group.items():
                    target.setdefault(fld, Counter()).update(counts)
            if s.weight_by:
                weighted, _ = weigh_votes({(key, fld): group[fld] for key, group in merged.items()
                                           for fld in s.fields if fld in group})
                for key, group in merged.items():
                    for fld in s.fields:
                        group[fld] = weighted.get((key, fld), Counter())
            fitted.groups[i] = merged
            if len(s.key) == 1:
                fitted.near[i] = _near_keys(s, merged, fitted.left_alone, i)
        return fitted


def _full(group: dict[str, Counter], step: CrossRowStep) -> bool:
    return sum(group[_KEY].values()) >= step.min_count


def _key_index(step: CrossRowStep, groups: dict[Any, dict[str, Counter]]) -> NearIndex:
    """The keys of the groups with at least ``min_count`` rows, indexed by their text."""
    index = NearIndex(step.max_distance)
    for key, group in groups.items():
        if key is not None and _full(group, step):
            index.add(str(key[0]), (key, str(key[0])))
    return index


def _near_keys(step: CrossRowStep, groups: dict[Any, dict[str, Counter]], left_alone: Counter, i: int) -> dict:
    """Each rare key -> the full groups' keys within ``max_distance`` edits (none listed when there are none)."""
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


def summarize(steps: Iterable[CrossRowStep], records: Iterable[Any]) -> Summary:
    """The first pass over ``records``: their ``Summary``."""
    summary = Summary(list(steps))
    for record in records:
        summary.add(record)
    return summary


def fit(steps: Iterable[CrossRowStep], records: Iterable[Any]) -> Fitted:
    """First pass: value counts for vocabulary steps, per-key value counts for majority steps; the winners."""
    return summarize(steps, records).fitted()


def unasked_drops(fitted: Fitted) -> int:
    """Records dropped so far by steps the goals did not ask for (see ``CrossRowStep.asked``)."""
    return sum(n for i, n in fitted.dropped_by.items() if not fitted.steps[i].asked)


def apply_steps(steps: Iterable[CrossRowStep], records: list) -> list:
    """Fit and transform a list in memory (validation on a chunk; small data)."""
    fitted = fit(steps, records)
    return [out for out in map(fitted.transform, records) if out is not None]


def iter_apply(fitted: Fitted, records: Iterable[Any]) -> Iterator[Any]:
    """The second pass over a stream: transformed records, duplicates dropped."""
    for record in records:
        out = fitted.transform(record)
        if out is not None:
            yield out
