"""Hostile data cannot stall the parent in the cross-row steps (issue 28, point 3).

Before: the vocabulary step's edit distance was quadratic in the values' length (a 4,000-character
value took 3.7 s per pair) and the majority step compared every rare key with every group, for
every record (6,000 keys: 37 s). Now (crossrow/near.py): a banded distance, an index of the
values by their segments, a length cap and a fixed work budget; what the cap or the budget leaves
alone is counted in ``Fitted.left_alone``. On ordinary data the answers are the pairwise ones.
Times live in bench/crossrow_hostile.py; these tests count work instead.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recursive_cleaner.crossrow import near
from recursive_cleaner.crossrow.near import (
    Budget,
    NearIndex,
    close_keys,
    closest_spellings,
    distance,
    two_values,
)
from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps, fit


def levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


TEXT = st.text(alphabet="abcd ", max_size=12)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, st.integers(min_value=0, max_value=4))
def test_the_banded_distance_is_exact_up_to_its_limit(a, b, limit):
    d = levenshtein(a, b)
    assert distance(a, b, limit) == (d if d <= limit else limit + 1)


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=30), TEXT, st.integers(min_value=0, max_value=3))
def test_the_index_finds_every_string_within_k_edits(words, probe, k):
    index = NearIndex(k)
    for w in words:
        index.add(w, w)
    found = set(index.near(probe, k, Budget(10**9)))
    assert {w for w in words if levenshtein(probe, w) <= k} <= found


def pairwise_spellings(counts: dict, max_distance: int, ratio: float) -> dict:
    """The vocabulary step's fixes as the old code found them: every rare value against every
    frequent one."""
    fixes = {}
    for value, n in counts.items():
        if len(value.strip()) < 4 and n > 1:
            continue
        limit = min(max_distance, max(1, len(value) // 4))
        best = sorted(
            (levenshtein(value, other), -m, other)
            for other, m in counts.items()
            if m >= ratio * n
            and other != value
            and not two_values(value, other)
            and levenshtein(value, other) <= limit
        )
        if best and not (
            len(best) > 1 and best[1][0] == best[0][0] and -best[1][1] * 2 > -best[0][1]
        ):
            fixes[value] = best[0][2]
    return fixes


@pytest.mark.parametrize("seed", range(20))
def test_on_ordinary_data_the_fixes_are_the_pairwise_ones(seed):
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdef") for _ in range(rng.randint(2, 9))) for _ in range(25)]
    counts: dict[str, int] = {}
    for _ in range(300):
        w = rng.choice(words)
        if rng.random() < 0.2 and w:
            i = rng.randrange(len(w))
            w = w[:i] + rng.choice("xyz") + w[i + 1 :]
        counts[w] = counts.get(w, 0) + 1
    for max_distance, ratio in ((1, 3.0), (2, 3.0), (3, 2.0)):
        fixes, left_alone = closest_spellings(counts, max_distance, ratio)
        assert left_alone == 0
        assert fixes == pairwise_spellings(counts, max_distance, ratio)


def test_a_value_past_the_length_cap_is_left_alone_and_counted():
    long_value = "a" * 4000
    records = (
        [{"v": long_value}] * 3
        + [{"v": long_value[:-1] + "b"}]
        + [{"v": "Boston"}] * 3
        + [{"v": "Bostn"}]
    )
    fitted = fit([CrossRowStep("vocabulary", fields=("v",))], records)
    out = [fitted.transform(r)["v"] for r in records]
    assert out[3] == long_value[:-1] + "b"  # before: replaced, after 3.7 s of edit distance
    assert out[7] == "Boston"  # short values are still corrected
    assert fitted.left_alone[(0, "v")] == 2  # the two long values


def _keys(n: int, prefix: str = "") -> list[dict]:
    rng, records = random.Random(7), []
    for _ in range(n):
        full, rare, name = (
            prefix + "".join(rng.choice("abcdefghij") for _ in range(10)) for _ in range(3)
        )
        records += [
            {"id": full, "name": name},
            {"id": full, "name": name},
            {"id": rare, "name": "other"},
        ]
    return records


def test_the_majority_step_looks_at_few_groups_per_rare_key(monkeypatch):
    calls = [0]
    real = near.distance

    def counted(a, b, limit):
        calls[0] += 1
        return real(a, b, limit)

    monkeypatch.setattr(near, "distance", counted)
    records = _keys(600)
    out = apply_steps([CrossRowStep("majority", key=("id",), fields=("name",))], records)
    assert len(out) == len(records)
    # before: every rare key against every group, for every record (600 x 1,200)
    assert calls[0] < 5 * 600


def test_keys_no_signature_tells_apart_stop_at_the_work_budget_and_are_counted(monkeypatch):
    monkeypatch.setattr("recursive_cleaner.crossrow.kinds.majority.MAX_WORK", 50_000)
    spent = []
    real = close_keys

    def watched(text, index, max_distance, budget):
        out = real(text, index, max_distance, budget)
        spent.append(budget.left)
        return out

    monkeypatch.setattr("recursive_cleaner.crossrow.kinds.majority.close_keys", watched)
    # every key shares its first two segments with every other
    records = _keys(300, prefix="p" * 200)
    fitted = fit([CrossRowStep("majority", key=("id",), fields=("name",))], records)
    # past the budget by one candidate list at most, then nothing more
    assert min(spent) >= -(300 + 1)
    assert 0 < fitted.left_alone[(0, "id")] <= 300
    assert len([r for r in map(fitted.transform, records) if r is not None]) == len(records)


def test_a_key_never_seen_in_the_fit_is_still_matched_in_the_second_pass():
    step = CrossRowStep("majority", key=("id",), fields=("name", "city"))
    fitted = fit([step], [{"id": "abcdefgh", "name": "Ann", "city": "Oslo"}] * 2)
    assert fitted.transform({"id": "abcdefgx", "name": "Ann", "city": "Oslo"})["id"] == "abcdefgh"
    assert fitted.transform({"id": "zzzzzzzz", "name": "Ann", "city": "Oslo"})["id"] == "zzzzzzzz"
