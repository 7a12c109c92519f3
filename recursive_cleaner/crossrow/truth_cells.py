"""The claims of a truth-discovery fit, indexed (``truth.find_truths``'s data): per cell its values
(by ``values.format_key``) and which source gives which, the cells whose truth is known, each
cell's facet (the field: a source's accuracy may differ per field), and the source pairs looked
at for copying with where they are seen together (bounded: ``truth`` explains the bounds).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import combinations
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from .values import format_key

__all__ = ["Cells", "Bounds", "Votes", "blank", "order"]

Votes = dict[Hashable, Counter]  # (group key, field) -> Counter of (value, source) -> rows


@dataclass(frozen=True)
class Bounds:
    """The pair bounds of one fit (``truth`` holds their values and says what each bounds)."""

    pair_budget: int  # source pairs counted, once, to choose the pairs (cells sampled past it)
    max_pairs: int  # source pairs looked at for copying, at most
    min_shared: int  # cells two sources must share before they may be found to copy


def blank(value: Any) -> bool:
    """None or only spaces: no vote."""
    return value is None or (isinstance(value, str) and not value.strip())


def order(items: Any) -> list:
    """Anything hashable, sorted (by type name, then repr: values that do not compare)."""
    return sorted(items, key=lambda x: (type(x).__name__, repr(x)))


class Cells:
    """The claims, indexed: per cell, its values (by format key) and which source gives which, its
    known value and its facet; the source pairs looked at for copying, and where they are seen
    together."""

    def __init__(
        self,
        votes: Votes,
        bounds: Bounds,
        fixed: dict | None = None,
        facet: Callable[[Hashable], Hashable] | None = None,
    ) -> None:
        self.bounds = bounds
        self.keys: list = []
        self.spellings: list[list[Counter]] = []  # cell -> value -> spelling -> rows
        self.claims: list[list[tuple[int, int, float]]] = []  # cell -> (source, value, weight)
        # cell -> (its known value's index, its spelling), None where the votes decide
        self.fixed: list[tuple[int, Any] | None] = []
        fixed = {c: v for c, v in (fixed or {}).items() if c in votes and not blank(v)}
        given: list[tuple[Any, dict]] = []
        for cell in order(votes):
            by_source: dict[Any, dict] = defaultdict(dict)
            for (value, source), n in votes[cell].items():
                if not blank(value) and n > 0:
                    by_source[source].setdefault(format_key(value), Counter())[value] += n
            if by_source or cell in fixed:
                given.append((cell, by_source))
        self.sources = order({s for _, by_source in given for s in by_source})
        index = {s: i for i, s in enumerate(self.sources)}
        for cell, by_source in given:
            values: dict[Any, int] = {}
            spell: list[Counter] = []
            claims = []
            for source in sorted(by_source, key=index.__getitem__):
                given_values = by_source[source]
                for fk in given_values if len(given_values) == 1 else order(given_values):
                    if fk not in values:
                        values[fk] = len(spell)
                        spell.append(Counter())
                    spell[values[fk]].update(by_source[source][fk])
                    claims.append((index[source], values[fk], 1.0 / len(by_source[source])))
            known = None
            if cell in fixed:
                fk = format_key(fixed[cell])
                if fk not in values:
                    values[fk] = len(spell)
                    spell.append(Counter())
                known = (values[fk], fixed[cell])
            self.keys.append(cell)
            self.spellings.append(spell)
            self.claims.append(claims)
            self.fixed.append(known)
        # each cell's facet (an index into ``facets``): its field, when the fit is told one
        names = [None if facet is None else facet(c) for c in self.keys]
        self.facets = order(set(names))
        self.facet = [self.facets.index(f) for f in names] if facet else [0] * len(self.keys)
        # a cell two or more sources report, or whose truth is known: evidence about its sources
        self.shared = [
            len({s for s, _, _ in c}) > 1 or k is not None for c, k in zip(self.claims, self.fixed)
        ]
        pairs = sum(len(c) * (len(c) - 1) // 2 for c in self.claims)
        stride = max(1, math.ceil(pairs / bounds.pair_budget))  # cells sampled for pair counts
        # (cell, [(source, value)] by source) of the sampled cells: the sources giving one value
        self.sampled = [
            (i, [(s, v) for s, v, w in self.claims[i] if w == 1.0])
            for i in range(0, len(self.claims), stride)
        ]
        self.work = 0  # pair steps so far (``PAIR_WORK``)
        self.left_out = 0
        self._pair_up()

    def _pair_up(self) -> None:
        """The pairs looked at (seen together in ``min_shared`` sampled cells: the ``max_pairs``
        most often seen, then the closest in the sources' order) and, per sampled cell, (source,
        value, source, value) of each."""
        together: Counter = Counter()
        for _, given in self.sampled:
            together.update(combinations([s for s, _ in given], 2))
        self.work += sum(together.values())
        often = sorted(
            (pair for pair, k in together.items() if k >= self.bounds.min_shared),
            key=lambda pair: (-together[pair], pair[1] - pair[0], pair),
        )
        self.left_out = max(0, len(often) - self.bounds.max_pairs)
        looked = sorted(often[: self.bounds.max_pairs])
        every, wanted = len(looked) == len(together), set(looked)
        # sampled cell -> (s, v, t, u) of each pair looked at
        self.seen: list[list[tuple[int, int, int, int]]] = []
        # pair -> (sampled cell, v, u) where it is seen together
        self.where: dict[tuple[int, int], list[tuple[int, int, int]]] = defaultdict(list)
        for i, given in self.sampled:
            pairs = len(given) * (len(given) - 1) // 2
            if pairs <= len(looked):  # the cell's pairs, or the pairs looked at: the fewer
                seen = [
                    (s, v, t, u)
                    for (s, v), (t, u) in combinations(given, 2)
                    if every or (s, t) in wanted
                ]
            else:
                value = dict(given)
                seen = [(s, value[s], t, value[t]) for s, t in looked if s in value and t in value]
            self.work += min(pairs, len(looked))
            for s, v, t, u in seen:
                self.where[(s, t)].append((i, v, u))
            self.seen.append(seen)
        self.pair_steps = sum(len(seen) for seen in self.seen)  # one pass over them
