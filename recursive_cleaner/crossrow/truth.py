"""Truth discovery across sources, for ``majority`` steps with ``weight_by`` (the field naming each
row's source).

When many sources report the same entity (flight-tracking sites, one row per site and flight), a
plain majority is only as good as the sources that happen to report, and a site that copies
another counts twice. Each source's accuracy and each value's probability are instead fitted
together, as ACCU does (Dong, Berti-Equille, Srivastava, "Integrating conflicting data: the role
of source dependence", VLDB 2009; Li et al., "Truth finding on the deep web: is the problem
solved?", VLDB 2013):

- a source right a share ``A`` of the time votes ``log(n·A / (1 − A))`` for its value, never less
  than nothing; ``n``, the false values a cell may take, is read from the data (two false claims
  of one cell, by sources that do not copy each other, agree once in ``n`` pairs);
- values that differ only by format (``values.format_key``: case, spacing, punctuation, leading
  zeros) are one value: "6:35 a.m." supports "6:35 AM";
- a value's probability is the softmax of its votes over the cell's values (and the unseen false
  ones); a source's accuracy is the mean probability of the values it gives, in cells at least two
  sources report (a lone report is no evidence about its source), shrunk towards a prior;
- once the votes settle, copying is looked for: two sources that share more false values than
  independent ones would (``(1 − A1)(1 − A2) / n`` per shared cell) copy one another or a common
  feed (Bayesian, over the cells both report); a source's vote for a value is discounted by the
  chance that it copied it from a more accurate source giving it too; re-voted until it settles.

Blank values do not vote. Sources and cells are visited in a sorted order, so the fit of merged
parts (Dask) is the fit of the whole. Work per round: the claims, plus the source pairs of at most
``PAIR_BUDGET`` (cells sampled evenly past it).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Hashable

from .values import format_key

__all__ = ["Truths", "find_truths", "MAX_FALSE_VALUES", "PRIOR_ACCURACY", "PAIR_BUDGET"]

MAX_FALSE_VALUES = 10.0  # n when no two false claims agree
PRIOR_ACCURACY = 0.8  # every source's accuracy before the data says otherwise
PAIR_BUDGET = 2_000_000  # source pairs compared per round, at most
_PRIOR_WEIGHT = 2.0  # ... worth this many claims
_MIN_A, _MAX_A = 0.01, 0.99
_COPY_RATE = 0.8  # c: the share of its values a copier copies
_COPY_PRIOR = 0.1  # the prior chance that one source copies another (each way)
_MIN_SHARED = 5  # cells two sources must share before they may be found to copy
_MIN_DUPLICATE = 10  # disputed cells two sources must share, never differing, to be duplicates
_ROUNDS = 20  # rounds at most before copying is looked for, and after

Votes = dict[Hashable, Counter]  # (group key, field) -> Counter of (value, source) -> rows


@dataclass
class Truths:
    """What the fit found: per cell, each value's probability; per source, its accuracy."""

    # cell -> Counter of value (the most given spelling of each value) -> its probability
    scores: dict[Hashable, Counter] = field(default_factory=dict)
    accuracy: dict[Any, float] = field(default_factory=dict)  # source -> estimated accuracy
    claims: dict[Any, int] = field(default_factory=dict)  # source -> cells it reports
    # (source, source) -> chance that one copies the other (the pairs above one half)
    copies: dict[tuple, float] = field(default_factory=dict)
    false_values: float = MAX_FALSE_VALUES  # n, as the data showed it


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _order(items: Any) -> list:
    """Anything hashable, sorted (by type name, then repr: values that do not compare)."""
    return sorted(items, key=lambda x: (type(x).__name__, repr(x)))


class _Cells:
    """The claims, indexed: per cell, its values (by format key) and which source gives which."""

    def __init__(self, votes: Votes) -> None:
        self.keys: list = []
        self.spellings: list[list[Counter]] = []  # cell -> value -> spelling -> rows
        self.claims: list[list[tuple[int, int, float]]] = []  # cell -> (source, value, weight)
        given: list[tuple[Any, dict]] = []
        for cell in _order(votes):
            by_source: dict[Any, dict] = defaultdict(dict)
            for (value, source), n in votes[cell].items():
                if not _blank(value) and n > 0:
                    by_source[source].setdefault(format_key(value), Counter())[value] += n
            if by_source:
                given.append((cell, by_source))
        self.sources = _order({s for _, by_source in given for s in by_source})
        index = {s: i for i, s in enumerate(self.sources)}
        for cell, by_source in given:
            values: dict[Any, int] = {}
            spell: list[Counter] = []
            claims = []
            for source in sorted(by_source, key=index.__getitem__):
                given_values = by_source[source]
                for fk in given_values if len(given_values) == 1 else _order(given_values):
                    if fk not in values:
                        values[fk] = len(spell)
                        spell.append(Counter())
                    spell[values[fk]].update(by_source[source][fk])
                    claims.append((index[source], values[fk], 1.0 / len(by_source[source])))
            self.keys.append(cell)
            self.spellings.append(spell)
            self.claims.append(claims)
        # a cell two or more sources report: evidence about its sources
        self.shared = [len({s for s, _, _ in c}) > 1 for c in self.claims]
        pairs = sum(len(c) * (len(c) - 1) // 2 for c in self.claims)
        stride = max(1, math.ceil(pairs / PAIR_BUDGET))  # cells sampled for pair counts
        self.sampled = [
            (i, [(s, v) for s, v, w in self.claims[i] if w == 1.0])
            for i in range(0, len(self.claims), stride)
        ]

    def pairs(self) -> list[tuple[int, list[tuple[int, int]]]]:
        """(cell, [(source, value)] by source) of the sampled cells: the sources giving one value
        there."""
        return self.sampled


def _vote(a: float, n: float) -> float:
    """A source's vote: the log-odds of its value being right, beside ``n`` false ones; at least
    0."""
    return max(0.0, math.log(n * a / (1 - a)))


def _probabilities(
    claims: list[tuple[int, int, float]],
    values: int,
    votes: list[float],
    n: float,
    copies: dict[tuple[int, int], float],
    copying: set[int],
) -> list[float]:
    """Each value's probability: the softmax of its sources' votes, each discounted by the chance
    that it copied the value from a source with a larger vote giving it too (``copying``: the
    sources in a pair of ``copies``)."""
    conf = [0.0] * values
    by_value: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for s, v, w in claims:
        if s in copying:
            by_value[v].append((s, w))
        else:
            conf[v] += w * votes[s]
    for v, given in by_value.items():
        given.sort(key=lambda sw: (-votes[sw[0]], sw[0]))
        for k, (s, w) in enumerate(given):
            independent = 1.0
            for t, _ in given[:k]:
                independent *= 1 - _COPY_RATE * copies.get((min(s, t), max(s, t)), 0.0)
            conf[v] += w * independent * votes[s]
    top = max(conf)
    weights = [math.exp(c - top) for c in conf]
    total = sum(weights) + max(0.0, n + 1 - values) * math.exp(-top)
    return [x / total for x in weights]


def _false_values(cells: _Cells, truth: list[int | None], copies: dict) -> float:
    """``n`` as the data shows it: two false claims of one cell, by sources not found to copy each
    other, agree once in ``n`` pairs."""
    pairs = agree = 0
    for i, given in cells.pairs():
        wrong = [(s, v) for s, v in given if v != truth[i]]
        for a, (s, v) in enumerate(wrong):
            for t, u in wrong[a + 1 :]:
                if (s, t) not in copies:
                    pairs += 1
                    agree += v == u
    return min(MAX_FALSE_VALUES, max(1.0, pairs / agree)) if agree else MAX_FALSE_VALUES


def _duplicates(cells: _Cells) -> dict[tuple[int, int], float]:
    """Pairs of sources that never differ, over at least ``_MIN_DUPLICATE`` cells where the
    sources disagree: independent ones would (a truth-free sign of copying, looked for first)."""
    shared: Counter = Counter()
    differ: set = set()
    for i, given in cells.pairs():
        if len({v for _, v in given}) < 2:
            continue  # every source agrees: no evidence
        for a, (s, v) in enumerate(given):
            for t, u in given[a + 1 :]:
                shared[(s, t)] += 1
                if v != u:
                    differ.add((s, t))
    return {pair: 1.0 for pair, k in shared.items() if k >= _MIN_DUPLICATE and pair not in differ}


def _copying(
    cells: _Cells, probs: list[list[float]], accuracy: list[float], n: float
) -> dict[tuple[int, int], float]:
    """(source, source) -> the chance that one copies the other, over the cells both report."""
    # per pair: the same value (counted by its chance of being true, and false), other values
    shared: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for i, given in cells.pairs():
        for a, (s, v) in enumerate(given):
            for t, u in given[a + 1 :]:
                counts = shared[(s, t)]
                if v == u:
                    counts[0] += probs[i][v]
                    counts[1] += 1 - probs[i][v]
                else:
                    counts[2] += 1
    out = {}
    c, alpha = _COPY_RATE, _COPY_PRIOR
    for (s, t), (kt, kf, kd) in shared.items():
        if kt + kf + kd < _MIN_SHARED or kf < 1:
            continue  # no false value shared: nothing tells a copier from a good source
        a1, a2 = accuracy[s], accuracy[t]
        pt, pf = a1 * a2, (1 - a1) * (1 - a2) / n
        pd = max(1e-12, 1 - pt - pf)
        alone = kt * math.log(pt) + kf * math.log(pf) + kd * math.log(pd)
        copied = [  # s copies t; t copies s
            kt * math.log(a * c + pt * (1 - c))
            + kf * math.log((1 - a) * c + pf * (1 - c))
            + kd * math.log(pd * (1 - c))
            for a in (a2, a1)
        ]
        top = max(copied + [alone])
        odds = sum(alpha * math.exp(x - top) for x in copied)
        p = odds / (odds + (1 - 2 * alpha) * math.exp(alone - top))
        if p > 0.5:
            out[(s, t)] = p
    return out


def _top(p: list[float]) -> int | None:
    """The value more probable than every other, or None (a tie)."""
    ranked = sorted(range(len(p)), key=lambda v: -p[v])
    if not ranked or (len(ranked) > 1 and p[ranked[0]] <= p[ranked[1]]):
        return None
    return ranked[0]


def _accuracy(cells: _Cells, probs: list[list[float]], sources: int) -> list[float]:
    """Each source's mean probability of its values, where two or more sources report, shrunk
    towards the prior."""
    sums, counts = [0.0] * sources, [0.0] * sources
    for claims, p, shared in zip(cells.claims, probs, cells.shared):
        if not shared:
            continue  # a lone report agrees with itself: no evidence about its source
        for s, v, w in claims:
            sums[s] += w * p[v]
            counts[s] += w
    return [
        min(_MAX_A, max(_MIN_A, (x + _PRIOR_WEIGHT * PRIOR_ACCURACY) / (k + _PRIOR_WEIGHT)))
        for x, k in zip(sums, counts)
    ]


def find_truths(votes: Votes) -> Truths:
    """Each cell's values with their probabilities, each source's accuracy, the copying pairs."""
    cells = _Cells(votes)
    accuracy = [PRIOR_ACCURACY] * len(cells.sources)
    truth: list[int | None] = []
    probs: list[list[float]] = []
    duplicates = _duplicates(cells)
    copies = dict(duplicates)
    n, detecting, rounds = 1.0, False, 0
    while rounds < 2 * _ROUNDS:
        rounds += 1
        votes = [_vote(a, n) for a in accuracy]
        copying = {s for pair in copies for s in pair}
        probs = [
            _probabilities(claims, len(spell), votes, n, copies, copying)
            for claims, spell in zip(cells.claims, cells.spellings)
        ]
        new_truth, new_accuracy = [_top(p) for p in probs], _accuracy(cells, probs, len(accuracy))
        settled = new_truth == truth and all(
            abs(x - y) < 1e-4 for x, y in zip(new_accuracy, accuracy)
        )
        truth, accuracy = new_truth, new_accuracy
        n = _false_values(cells, truth, copies)
        if settled and detecting:
            break
        if settled or detecting or rounds == _ROUNDS:
            detecting, copies = True, _copying(cells, probs, accuracy, n)
    return _result(cells, probs, accuracy, copies, n)


def _result(
    cells: _Cells, probs: list[list[float]], accuracy: list[float], copies: dict, n: float
) -> Truths:
    out = Truths(false_values=n)
    for cell, spell, p in zip(cells.keys, cells.spellings, probs):
        out.scores[cell] = Counter(
            {spellings.most_common(1)[0][0]: p[v] for v, spellings in enumerate(spell)}
        )
    reported: Counter = Counter()
    for claims in cells.claims:
        reported.update({s for s, _, _ in claims})
    for s, name in enumerate(cells.sources):
        out.accuracy[name], out.claims[name] = accuracy[s], reported[s]
    out.copies = {(cells.sources[s], cells.sources[t]): p for (s, t), p in copies.items()}
    return out
