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

Cells whose truth is known (``fixed``: the user's corrected rows, issue 44, or the value a named
authority reports) hold that value with probability one whatever the votes say, and are evidence
about every source reporting them, a lone report too: a source the labels show right where the
blocs are wrong gains weight everywhere else. Told each cell's field (``facet``), a source's vote
in a field moves towards its share right on the known cells of that field, by as much as the
fields are seen to differ beyond chance (an empirical-Bayes shrinkage: on flights a site right on
nearly every scheduled time is wrong on most actual times; sources as good in every field are not
moved by a few labels).

Blank values do not vote. Sources and cells are visited in a sorted order, so the fit of merged
parts (Dask) is the fit of the whole.

Bounded work: each round costs the claims, plus pairs of sources. The pairs are chosen once: the
cells whose source pairs are counted are sampled evenly past ``PAIR_BUDGET`` pairs; of the pairs
seen together in ``MIN_SHARED`` of those cells (fewer can never be found to copy), the
``MAX_PAIRS`` most often seen together are the ones looked at for copying, the others left out
(``Truths.pairs_left_out``); every pair step of the fit (counting, copy statistics, discounts)
is counted, and past ``PAIR_WORK`` of them the rounds stop where they are (``Truths.stopped``).
Ordinary tables (a few dozen sources) reach none of these: 250 sources that copy one another
would otherwise cost tens of seconds.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from .truth_cells import Bounds, Cells, Votes

__all__ = [
    "Truths",
    "find_truths",
    "MAX_FALSE_VALUES",
    "PRIOR_ACCURACY",
    "PAIR_BUDGET",
    "MAX_PAIRS",
    "PAIR_WORK",
]

MAX_FALSE_VALUES = 10.0  # n when no two false claims agree
PRIOR_ACCURACY = 0.8  # every source's accuracy before the data says otherwise
PAIR_BUDGET = 250_000  # source pairs counted, once, to choose the pairs (cells sampled past it)
MAX_PAIRS = 1_000  # source pairs looked at for copying, at most: the most often seen together
PAIR_WORK = 2_000_000  # pair steps of one fit, every round together; past it the rounds stop
_PRIOR_WEIGHT = 2.0  # ... worth this many claims
_MIN_A, _MAX_A = 0.01, 0.99
_COPY_RATE = 0.8  # c: the share of its values a copier copies
_COPY_PRIOR = 0.1  # the prior chance that one source copies another (each way)
MIN_SHARED = 5  # cells two sources must share before they may be found to copy
_MIN_DUPLICATE = 10  # disputed cells two sources must share, never differing, to be duplicates
_ROUNDS = 20  # rounds at most before copying is looked for, and after
# a vote is discounted for copying from at most this many sources giving its value before it
_EARLIER = 64


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
    # source pairs seen together often enough to copy, past ``MAX_PAIRS``: never looked at
    pairs_left_out: int = 0
    stopped: bool = False  # the rounds stopped at ``PAIR_WORK``, before they settled


def _vote(a: float, n: float) -> float:
    """A source's vote: the log-odds of its value being right, beside ``n`` false ones; at least
    0."""
    return max(0.0, math.log(n * a / (1 - a)))


def _partners(copies: dict[tuple[int, int], float]) -> dict[int, dict[int, float]]:
    """Each source in a pair of ``copies`` -> the sources it may copy or be copied by."""
    out: dict[int, dict[int, float]] = defaultdict(dict)
    for (s, t), p in copies.items():
        out[s][t] = out[t][s] = p
    return out


def _probabilities(
    claims: list[tuple[int, int, float]],
    values: int,
    votes: list[float],
    n: float,
    partners: dict[int, dict[int, float]],
) -> list[float]:
    """Each value's probability: the softmax of its sources' votes, each discounted by the chance
    that it copied the value from a source with a larger vote giving it too (``partners``: the
    sources in a pair of copies; the ``_EARLIER`` largest votes before it at most)."""
    conf = [0.0] * values
    by_value: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for s, v, w in claims:
        if s in partners:
            by_value[v].append((s, w))
        else:
            conf[v] += w * votes[s]
    for v, given in by_value.items():
        given.sort(key=lambda sw: (-votes[sw[0]], sw[0]))
        place = {s: k for k, (s, _) in enumerate(given)}
        for k, (s, w) in enumerate(given):
            independent, near, before = 1.0, partners[s], min(k, _EARLIER)
            if len(near) < before:  # its partners before it, in the order they come
                ahead = (place.get(t, before) for t in near)
                for _, p in sorted((at, p) for at, p in zip(ahead, near.values()) if at < before):
                    independent *= 1 - _COPY_RATE * p
            else:
                for t, _ in given[:before]:
                    p = near.get(t)
                    if p is not None:
                        independent *= 1 - _COPY_RATE * p
            conf[v] += w * independent * votes[s]
    top = max(conf)
    weights = [math.exp(c - top) for c in conf]
    total = sum(weights) + max(0.0, n + 1 - values) * math.exp(-top)
    return [x / total for x in weights]


def _false_values(cells: Cells, truth: list[int | None], copies: dict) -> float:
    """``n`` as the data shows it: two false claims of one cell, by sources not found to copy each
    other, agree once in ``n`` pairs."""
    pairs = agree = 0
    for i, given in cells.sampled:
        right = truth[i]
        wrong = [v for _, v in given if v != right]
        w = len(wrong)
        pairs += w * (w - 1) // 2
        if w > 1 and len(set(wrong)) < w:  # each run of one value: its pairs
            wrong.sort()
            run = 0
            for a, b in zip(wrong, wrong[1:]):
                run = run + 1 if a == b else 0
                agree += run
    for pair in copies:  # the pairs of copies among them do not count
        for i, v, u in cells.where.get(pair, ()):
            if v != truth[i] and u != truth[i]:
                pairs -= 1
                agree -= v == u
        cells.work += len(cells.where.get(pair, ()))
    return min(MAX_FALSE_VALUES, max(1.0, pairs / agree)) if agree else MAX_FALSE_VALUES


def _duplicates(cells: Cells) -> dict[tuple[int, int], float]:
    """Pairs of sources that never differ, over at least ``_MIN_DUPLICATE`` cells where the
    sources disagree: independent ones would (a truth-free sign of copying, looked for first)."""
    shared: Counter = Counter()
    differ: set = set()
    for (_, given), seen in zip(cells.sampled, cells.seen):
        if len({v for _, v in given}) < 2:
            continue  # every source agrees: no evidence
        for s, v, t, u in seen:
            shared[(s, t)] += 1
            if v != u:
                differ.add((s, t))
    cells.work += cells.pair_steps
    return {pair: 1.0 for pair, k in shared.items() if k >= _MIN_DUPLICATE and pair not in differ}


def _copying(
    cells: Cells, probs: list[list[float]], accuracy: list[float], n: float
) -> dict[tuple[int, int], float]:
    """(source, source) -> the chance that one copies the other, over the cells both report."""
    # per pair: the same value (counted by its chance of being true, and false), other values
    shared: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for (i, _), seen in zip(cells.sampled, cells.seen):
        for s, v, t, u in seen:
            counts = shared[(s, t)]
            if v == u:
                counts[0] += probs[i][v]
                counts[1] += 1 - probs[i][v]
            else:
                counts[2] += 1
    cells.work += cells.pair_steps
    out = {}
    c, alpha = _COPY_RATE, _COPY_PRIOR
    for (s, t), (kt, kf, kd) in shared.items():
        if kt + kf + kd < MIN_SHARED or kf < 1:
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


def _accuracy(cells: Cells, probs: list[list[float]], sources: int) -> list[float]:
    """Each source's mean probability of its values, where two or more sources report or the truth
    is known, shrunk towards the prior."""
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


def _known(cells: Cells, probs: list[list[float]]) -> list[list[float]]:
    """``probs`` with each cell whose truth is known holding its value with probability one."""
    for i, known in enumerate(cells.fixed):
        if known is not None:
            probs[i] = [float(v == known[0]) for v in range(len(probs[i]))]
    return probs


def _known_tally(cells: Cells) -> dict[int, tuple[list[float], list[float]]]:
    """Per facet with known cells: each source's (right, given) claims on them."""
    out: dict[int, tuple[list[float], list[float]]] = {}
    for claims, known, facet in zip(cells.claims, cells.fixed, cells.facet):
        if known is None:
            continue
        right, given = out.setdefault(
            facet, ([0.0] * len(cells.sources), [0.0] * len(cells.sources))
        )
        for s, v, w in claims:
            right[s] += w * (v == known[0])
            given[s] += w
    return out


def _spread(accuracy: list[float], tally: dict[int, tuple[list[float], list[float]]]) -> float:
    """How far the sources' accuracies differ from field to field beyond chance, as a variance
    (method of moments over the known cells: each source's share right in a field, around its
    overall accuracy, less the binomial noise of that many claims); 0 when no more than chance."""
    excess, terms = 0.0, 0
    for right, given in tally.values():
        for a, r, g in zip(accuracy, right, given):
            if g >= 1:
                excess += (r / g - a) ** 2 - a * (1 - a) / g
                terms += 1
    return max(0.0, excess / terms) if terms else 0.0


def _facet_votes(
    accuracy: list[float], tally: dict[int, tuple[list[float], list[float]]], n: float
) -> dict[int, list[float]]:
    """Each facet's votes: a source's accuracy moved towards its share right on the known cells
    of that field, by as much as the fields are seen to differ beyond chance (``_spread``, an
    empirical-Bayes shrinkage: sources as good in every field are not moved by a few labels)."""
    spread = _spread(accuracy, tally)
    out = {}
    for facet, (right, given) in tally.items():
        votes = []
        for a, r, g in zip(accuracy, right, given):
            if g > 0 and spread > 0:
                noise = max(a * (1 - a), 1e-6) / g
                a = a + (r / g - a) * spread / (spread + noise)
            votes.append(_vote(min(_MAX_A, max(_MIN_A, a)), n))
        out[facet] = votes
    return out


def find_truths(
    votes: Votes, fixed: dict | None = None, facet: Callable[[Hashable], Hashable] | None = None
) -> Truths:
    """Each cell's values with their probabilities, each source's accuracy, the copying pairs;
    ``fixed``: cell -> its known value (a label's, an authority's), held whatever the votes say;
    ``facet``: cell -> its field, where a source's accuracy on the known cells of a field moves
    its votes in that field."""
    cells = Cells(votes, Bounds(PAIR_BUDGET, MAX_PAIRS, MIN_SHARED), fixed, facet)
    tally = _known_tally(cells)
    accuracy = [PRIOR_ACCURACY] * len(cells.sources)
    truth: list[int | None] = []
    probs: list[list[float]] = []
    copies = _duplicates(cells)
    n, detecting, rounds, stopped = 1.0, False, 0, False
    while rounds < 2 * _ROUNDS:
        rounds += 1
        votes = [_vote(a, n) for a in accuracy]
        by_facet = _facet_votes(accuracy, tally, n)
        partners = _partners(copies)
        probs = _known(
            cells,
            [
                _probabilities(claims, len(spell), by_facet.get(f, votes), n, partners)
                for claims, spell, f in zip(cells.claims, cells.spellings, cells.facet)
            ],
        )
        new_truth, new_accuracy = [_top(p) for p in probs], _accuracy(cells, probs, len(accuracy))
        settled = new_truth == truth and all(
            abs(x - y) < 1e-4 for x, y in zip(new_accuracy, accuracy)
        )
        truth, accuracy = new_truth, new_accuracy
        n = _false_values(cells, truth, copies)
        if settled and detecting:
            break
        if settled or detecting or rounds == _ROUNDS:
            if cells.work + cells.pair_steps > PAIR_WORK:
                stopped = True  # the pair work is spent: the fit stays where it is
                break
            detecting, copies = True, _copying(cells, probs, accuracy, n)
    out = _result(cells, probs, accuracy, copies, n)
    out.pairs_left_out, out.stopped = cells.left_out, stopped
    return out


def _result(
    cells: Cells, probs: list[list[float]], accuracy: list[float], copies: dict, n: float
) -> Truths:
    out = Truths(false_values=n)
    for cell, spell, p, known in zip(cells.keys, cells.spellings, probs, cells.fixed):
        out.scores[cell] = Counter(
            {
                known[1] if known and v == known[0] else spellings.most_common(1)[0][0]: p[v]
                for v, spellings in enumerate(spell)
            }
        )
    reported: Counter = Counter()
    for claims in cells.claims:
        reported.update({s for s, _, _ in claims})
    for s, name in enumerate(cells.sources):
        out.accuracy[name], out.claims[name] = accuracy[s], reported[s]
    out.copies = {(cells.sources[s], cells.sources[t]): p for (s, t), p in copies.items()}
    return out
