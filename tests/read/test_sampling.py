"""Chunk sampling strategies keep every record once, stream, and balance strata; the holdout is
reproducible."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recursive_cleaner.read.sampling import (
    MISSING_STRATUM,
    STRATEGIES,
    sample_chunks,
    split_holdout,
    stratum_of,
)


def rows(n: int, field: str = "s", values: tuple = ("a", "b", "c")) -> list[dict]:
    return [{"id": i, field: values[i % len(values)]} for i in range(n)]


def ids(chunks: list[list[dict]]) -> list[int]:
    return [r["id"] for chunk in chunks for r in chunk]


def run(records, chunk_size, strategy, **kw) -> list[list]:
    if strategy == "stratified":
        kw.setdefault("stratify_field", "s")
    return list(sample_chunks(records, chunk_size, strategy, **kw))


# --- every record exactly once, chunk sizes -------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(0, 120),
    chunk_size=st.integers(1, 15),
    window=st.integers(1, 40),
    strategy=st.sampled_from(STRATEGIES),
    seed=st.integers(0, 3),
    labels=st.lists(st.sampled_from(["a", "b", "c", None, "rare"]), min_size=1, max_size=7),
)
def test_every_record_once_and_full_chunks(n, chunk_size, window, strategy, seed, labels):
    records = [
        {"id": i, "s": labels[i % len(labels)]} if labels[i % len(labels)] else {"id": i}
        for i in range(n)
    ]
    chunks = run(iter(records), chunk_size, strategy, window=window, seed=seed)
    assert sorted(ids(chunks)) == list(range(n))
    assert all(len(c) == chunk_size for c in chunks[:-1])
    assert not chunks or 1 <= len(chunks[-1]) <= chunk_size
    assert len(chunks) == -(-n // chunk_size)


def test_sequential_is_input_order():
    chunks = run(rows(23), 5, "sequential")
    assert [len(c) for c in chunks] == [5, 5, 5, 5, 3]
    assert ids(chunks) == list(range(23))


def test_empty_input_yields_nothing():
    for strategy in STRATEGIES:
        assert run([], 4, strategy) == []


def test_non_dict_records_are_sampled_too():
    lines = [f"line {i}" for i in range(11)]
    for strategy in STRATEGIES:
        chunks = run(lines, 4, strategy, window=5)
        assert sorted(x for c in chunks for x in c) == sorted(lines)


# --- streaming ------------------------------------------------------------------------------------


class Counting:
    """An iterator over rows(n) that counts how many records were drawn from it."""

    def __init__(self, n: int) -> None:
        self.drawn = 0
        self._it = iter(rows(n))

    def __iter__(self):
        return self

    def __next__(self):
        record = next(self._it)
        self.drawn += 1
        return record


@pytest.mark.parametrize("strategy,limit", [("sequential", 10), ("random", 50), ("stratified", 50)])
def test_first_chunk_arrives_before_more_than_window_records_are_read(strategy, limit):
    source = Counting(10_000)
    chunks = sample_chunks(source, 10, strategy, stratify_field="s", window=50)
    first = next(chunks)
    assert len(first) == 10
    assert source.drawn <= limit
    drawn_after = []
    for _ in itertools.islice(chunks, 30):
        drawn_after.append(source.drawn)
    assert max(drawn_after) <= 31 * 10 + 50  # reading keeps pace with the chunks handed out


def test_chunk_size_larger_than_window_still_gives_full_chunks():
    chunks = run(rows(45), 20, "random", window=5)
    assert [len(c) for c in chunks] == [20, 20, 5]


# --- random ---------------------------------------------------------------------------------------


def test_random_is_reproducible_with_a_seed_and_differs_with_another():
    first = ids(run(rows(200), 10, "random", seed=7, window=100))
    again = ids(run(iter(rows(200)), 10, "random", seed=7, window=100))
    other = ids(run(rows(200), 10, "random", seed=8, window=100))
    assert first == again
    assert first != other
    assert first != list(range(200))


def test_random_shuffles_only_within_windows():
    chunks = run(rows(100), 10, "random", window=50)
    assert set(ids(chunks[:5])) == set(range(50))  # the first window of 50 records fills 5 chunks


# --- stratified -----------------------------------------------------------------------------------


def test_every_stratum_in_the_first_chunk():
    records = [{"id": i, "s": "common"} for i in range(500)]
    records += [{"id": 500, "s": "rare"}, {"id": 501, "s": "odd"}]
    first = run(records, 10, "stratified")[0]
    assert {r["s"] for r in first} == {"common", "rare", "odd"}


def test_each_early_chunk_holds_every_stratum_that_has_records_left():
    records = [{"id": i, "s": "big"} for i in range(300)]
    records += [{"id": 300 + i, "s": "mid"} for i in range(30)]
    records += [{"id": 400 + i, "s": "small"} for i in range(3)]
    chunks = run(records, 10, "stratified")
    for chunk in chunks[:3]:
        assert {r["s"] for r in chunk} == {"big", "mid", "small"}
    assert {r["s"] for r in chunks[3]} == {"big", "mid"}
    shares = [sum(r["s"] == "big" for r in c) for c in chunks[3:20]]
    assert all(s >= 8 for s in shares)  # the rest follows the proportions (300:30)


def test_more_strata_than_chunk_size_rotates_through_all_of_them():
    records = [{"id": i, "s": f"v{i % 12}"} for i in range(120)]
    chunks = run(records, 5, "stratified")
    seen = {r["s"] for c in chunks[:3] for r in c}
    assert seen == {f"v{i}" for i in range(12)}
    assert all(len({r["s"] for r in c}) == 5 for c in chunks[:3])


def test_missing_field_and_non_dicts_form_their_own_stratum():
    records = [{"id": i, "s": "x"} for i in range(40)] + [
        {"id": 40},
        "plain text",
        {"id": 41, "s": ["a"]},
    ]
    first = run(records, 5, "stratified")[0]
    assert sum(not isinstance(r, dict) or "s" not in r for r in first) == 1  # one stratum for both
    # unhashable value: own stratum
    assert any(isinstance(r, dict) and r.get("s") == ["a"] for r in first)
    assert stratum_of({"id": 1}, "s") == stratum_of("text", "s") == MISSING_STRATUM
    assert stratum_of({"s": MISSING_STRATUM}, "s") != stratum_of({}, "s")
    assert stratum_of({"s": ["a"]}, "s") == stratum_of({"s": ["a"]}, "s")
    assert stratum_of({"s": True}, "s") != stratum_of({"s": 1}, "s")
    assert stratum_of({"s": float("nan")}, "s") == stratum_of({"s": float("nan")}, "s")


def test_missing_stratum_is_not_starved():
    records = [{"id": i, "s": "x"} for i in range(100)] + [{"id": 100 + i} for i in range(2)]
    chunks = run(records, 10, "stratified")
    assert all(any("s" not in r for r in c) for c in chunks[:2])


def test_stratified_is_reproducible_with_the_seed():
    records = rows(90, values=("a", "b", "c", "d"))
    assert ids(run(records, 7, "stratified", seed=3)) == ids(run(records, 7, "stratified", seed=3))
    assert ids(run(records, 7, "stratified", seed=3)) != ids(run(records, 7, "stratified", seed=4))


# --- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args,kw",
    [
        ((5, "shuffled"), {}),
        ((0, "sequential"), {}),
        ((-1, "random"), {}),
        ((5, "stratified"), {}),
        ((5, "stratified"), {"stratify_field": ""}),
        ((5, "random"), {"window": 0}),
    ],
)
def test_bad_arguments_raise_at_the_call(args, kw):
    with pytest.raises(ValueError):
        sample_chunks(rows(3), *args, **kw)  # no next(): checked eagerly


# --- split_holdout --------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 60), ratio=st.floats(0, 0.99), seed=st.integers(0, 5), salt=st.integers(0, 5)
)
def test_holdout_properties(n, ratio, seed, salt):
    records = list(range(n))
    visible, hidden = split_holdout(records, ratio, seed=seed, salt=salt)
    assert sorted(visible + hidden) == records
    assert visible == sorted(visible) and hidden == sorted(hidden)  # original relative order

    def clamp(count: int) -> int:
        if ratio > 0 and n >= 2:
            count = max(count, 1)
        return min(count, max(n - 1, 0))

    # floor(n * ratio), allowing for float noise in the product (0.29 * 100 == 28.999999999999996)
    assert clamp(math.floor(n * ratio - 1e-9)) <= len(hidden) <= clamp(math.floor(n * ratio + 1e-9))
    if n:
        assert visible
    assert split_holdout(records, ratio, seed=seed, salt=salt) == (visible, hidden)


def test_holdout_counts():
    assert len(split_holdout(list(range(10)), 0.2)[1]) == 2
    assert len(split_holdout(list(range(100)), 0.29)[1]) == 29
    assert len(split_holdout(list(range(3)), 0.1)[1]) == 1  # at least one when ratio > 0
    assert split_holdout([1], 0.5) == ([1], [])  # the model always sees something
    assert len(split_holdout(list(range(2)), 0.9)[1]) == 1


def test_holdout_ratio_zero_hides_nothing():
    records = [{"a": 1}, {"a": 2}]
    assert split_holdout(records, 0) == (records, [])


def test_holdout_varies_with_seed_and_salt():
    records = list(range(50))
    base = split_holdout(records, 0.2, seed=1, salt=0)[1]
    assert split_holdout(records, 0.2, seed=1, salt=0)[1] == base
    assert split_holdout(records, 0.2, seed=1, salt=1)[1] != base
    assert split_holdout(records, 0.2, seed=2, salt=0)[1] != base


@pytest.mark.parametrize("ratio", [-0.1, 1, 1.5, float("nan"), "0.2"])
def test_holdout_rejects_bad_ratio(ratio):
    with pytest.raises(ValueError):
        split_holdout([1, 2, 3], ratio)
