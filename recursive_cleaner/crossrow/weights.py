"""Votes weighted by how reliable each source is, for ``majority`` steps with ``weight_by``.

When many sources report the same thing (flight-tracking sites, one row per site and flight),
a plain majority is only as good as the sources that happen to report. Each source is instead
weighted by how often it agrees with the current winners, and the winners are voted again:
the log-odds weight ``log(a / (1 - a))`` of a source right a share ``a`` of the time (a source
no better than a coin gets almost none), until the weights settle. Blank values do not vote.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any, Hashable

__all__ = ["weigh_votes"]

_EPS = 1e-3
_ROUNDS = 10

Votes = dict[Hashable, Counter]  # (group key, field) -> Counter of (value, source) -> rows


def _winners(votes: Votes, weights: dict[Any, float]) -> dict[Hashable, Any]:
    out = {}
    for cell, counts in votes.items():
        score: Counter = Counter()
        for (value, source), n in counts.items():
            score[value] += n * weights.get(source, 1.0)
        ranked = score.most_common(2)
        if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            out[cell] = ranked[0][0]
    return out


def weigh_votes(votes: Votes) -> tuple[dict[Hashable, Counter], dict[Any, float]]:
    """(cell -> Counter of value -> weighted votes, source -> weight) after the weights settle."""
    votes = {
        cell: Counter({vs: n for vs, n in counts.items() if vs[0] not in (None, "")})
        for cell, counts in votes.items()
    }
    weights: dict[Any, float] = {}
    for _ in range(_ROUNDS):
        winners = _winners(votes, weights)
        agree: Counter = Counter()
        total: Counter = Counter()
        for cell, counts in votes.items():
            if sum(counts.values()) < 2:
                continue  # a lone report agrees with itself: no evidence about its source
            for (value, source), n in counts.items():
                total[source] += n
                agree[source] += n if winners.get(cell) == value else 0
        new = {
            s: max(_EPS, math.log((agree[s] / total[s] + _EPS) / (1 - agree[s] / total[s] + _EPS)))
            for s in total
        }
        settled = all(abs(new[s] - weights.get(s, 1.0)) < 1e-6 for s in new)
        weights = new
        if settled:
            break
    weighted: dict[Hashable, Counter] = defaultdict(Counter)
    for cell, counts in votes.items():
        for (value, source), n in counts.items():
            weighted[cell][value] += n * weights.get(source, 1.0)
    return dict(weighted), weights
