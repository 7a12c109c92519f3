"""Issue 43's third red-team pass, item 4: bounded work for every cross-row fit in the parent.

Before (e9a9118): truth discovery over 250 copying sources per key cost the parent 29 s against
1.3 s for a plain majority (the copier pairs of every cell, every round, outside any budget); the
majority step on 3,000 hostile records took 2.4-2.9 s against a 2 s bound (a unit of distance work
was 16 cells of the band, and a group's winner was counted again for each of its rows); an
enumeration of 24,000 allowed values was a tuple scanned for each of 24,000 values (7.3 s);
discovery checked every field against every other (300 columns of codes: minutes). Now each is
work counted under a bound, and what a bound leaves out is counted (``Fitted.left_alone``, the
report's notes, ``discover_steps(left_out=...)``, the refusals of ``validate_steps``).

These tests count work (line events of the module's own code, calls, comparisons), never seconds;
``bench/crossrow_hostile.py`` times the same inputs beside the old code.
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from recursive_cleaner.apply.check import validate
from recursive_cleaner.crossrow import discover, near, truth, validate as check_steps
from recursive_cleaner.crossrow.kinds import majority
from recursive_cleaner.crossrow.steps import CrossRowStep, fit
from recursive_cleaner.profiling.expectations import Expectation, conforms
from recursive_cleaner.profiling.spec import CleaningSpec
from recursive_cleaner.profiling.spec_file import FieldSpec

FIELDS = ("price", "size", "brand")


def lines_run(suffix: str, run):
    """(line events run in the files ending in ``suffix``, what ``run()`` returned)."""
    count = [0]

    def local(frame, event, arg):
        if event == "line":
            count[0] += 1
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename.endswith(suffix) else None

    before = sys.gettrace()
    sys.settrace(calls)
    try:
        out = run()
    finally:
        sys.settrace(before)
    return count[0], out


def copying_sources(keys: int, sources: int, seed: int = 4) -> list[dict]:
    """Every key reported by every source; four sources in five copy one feed that errs on a third
    of its cells (their own slips too), the rest are independent and mostly right."""
    rng, rows = random.Random(seed), []
    for k in range(keys):
        right = {f: f"{f}-{k}" for f in FIELDS}
        feed = {f: (v + "-stale" if rng.random() < 0.35 else v) for f, v in right.items()}
        for s in range(sources):
            row = {"item": f"it-{k}", "site": f"site{s:03d}"}
            for f, v in right.items():
                if s < sources * 4 // 5:
                    row[f] = feed[f] if rng.random() < 0.9 else f"{v}-{rng.randrange(9)}"
                else:
                    row[f] = v if rng.random() < 0.8 else f"{v}-{rng.randrange(9)}"
            rows.append(row)
    return rows


WEIGHED = CrossRowStep("majority", key=("item",), fields=FIELDS, weight_by=("site",))


def test_truth_discovery_work_does_not_grow_with_the_sources_of_a_key():
    # the same 1,200 rows, as 40 keys of 30 sources and as 5 keys of 240; before, the second took
    # 7 times the work of the first (every pair of a cell's 240 sources, every round: 4.4 million
    # line events against 0.6 million)
    few, _ = lines_run("crossrow/truth.py", lambda: fit([WEIGHED], copying_sources(40, 30)))
    many, fitted = lines_run("crossrow/truth.py", lambda: fit([WEIGHED], copying_sources(5, 240)))
    assert many <= few
    state = fitted.fits[0]
    assert state.pairs_left_out > 0  # pairs past truth.MAX_PAIRS: never looked at, counted
    assert fitted.left_alone[(0, "site")] == state.pairs_left_out
    assert f"the {truth.MAX_PAIRS} pairs of sources seen together most often" in " ".join(
        fitted.notes()[0]
    )


def test_truth_discovery_stops_its_rounds_at_the_pair_work_bound(monkeypatch):
    monkeypatch.setattr(truth, "PAIR_WORK", 1)
    fitted = fit([WEIGHED], copying_sources(12, 20))
    state = fitted.fits[0]
    assert state.stopped and state.copies == {}  # stopped before copying was looked for
    assert "the fit stopped before it settled" in fitted.notes()[0][-1]
    assert [fitted.transform(r) is not None for r in copying_sources(12, 20)] == [True] * 240


def long_near_keys(groups: int = 1000) -> list[dict]:
    """Keys ``a + M + b`` around one middle of 248 characters: nothing to cut at the ends, and
    every pair two edits apart all along the band."""
    rng, rows = random.Random(3), []
    middle, ends = "".join(rng.choice("abcdefghij") for _ in range(248)), "abcdefghijklmnop"
    pairs = [x + y for x in ends for y in ends]
    for k in range(groups):
        full = pairs[k][0] + middle + pairs[k][1]
        rare = pairs[-1 - k][0] + middle + pairs[-1 - k][1]
        rows += [{"id": full, "name": f"n{k}"}] * 2 + [{"id": rare, "name": f"n{k}"}]
    return rows


def test_the_majority_steps_key_search_work_is_counted_honestly(monkeypatch):
    # 50,000 units of work: before, a unit of distance was 16 cells of the band, so the budget
    # let 16 times the work through (a unit is now about a cell: the line events stay near it)
    monkeypatch.setattr(majority, "MAX_WORK", 50_000)
    step = CrossRowStep("majority", key=("id",), fields=("name",))
    records = long_near_keys(120)
    events, fitted = lines_run("crossrow/near.py", lambda: fit([step], records))
    assert events < 20 * 50_000  # before: 16 cells of about 11 line events each, per unit
    assert fitted.left_alone[(0, "id")] > 100  # the rare keys past the budget: counted


def test_a_group_of_many_distinct_values_is_counted_once_not_per_row(monkeypatch):
    winners = [0]
    real = majority._winner

    def counted(counts, step):
        winners[0] += 1
        return real(counts, step)

    monkeypatch.setattr(majority, "_winner", counted)
    # one key (1,000 spellings of it) and 3,000 distinct values in each field
    rows = [
        {"id": "K" + " " * (i % 1000 // 3 + 1) + "1", "a": f"a{i}", "b": f"b{i}", "c": f"c{i}"}
        for i in range(3000)
    ]
    fitted = fit([CrossRowStep("majority", key=("id",), fields=("a", "b", "c"))], rows)
    assert [fitted.transform(r) for r in rows] == rows  # no value has a majority: left as it is
    assert winners[0] <= 3  # before: 9,000, each over the group's 3,000 values


class Counted(str):
    """A string that counts how often it is compared for equality."""

    compared = 0
    __hash__ = str.__hash__

    def __eq__(self, other):
        Counted.compared += 1
        return str.__eq__(self, other)


def test_an_enumeration_is_checked_through_a_set_read_once():
    allowed = tuple(Counted(f"value-{i:05d}") for i in range(5000))
    spec = CleaningSpec({"status": FieldSpec("enum", allowed, mentioned=True, source="user")})
    records = [{"status": f"value-{i * 7 % 5000:05d}"} for i in range(2000)]
    records += [{"status": "no such value"}] * 100
    Counted.compared = 0
    check = validate(records, spec)
    assert (check.checked["status"], check.broken["status"]) == (2100, 100)
    # before: each value against the tuple, one comparison per allowed value (10 million)
    assert Counted.compared <= 2 * 2100
    exp = Expectation("enum", allowed)
    assert conforms("value-00042", exp) and not conforms("value-5", exp)


def test_a_shape_reads_its_examples_shapes_once(monkeypatch):
    from recursive_cleaner.profiling.kinds import codes

    shapes = [0]
    real = codes.value_shape

    def counted(value):
        shapes[0] += 1
        return real(value)

    monkeypatch.setattr(codes, "value_shape", counted)
    exp = Expectation("shape", tuple(f"AB-{i:04d}" for i in range(500)))
    assert sum(conforms(f"CD-{i:04d}", exp) for i in range(1000)) == 1000
    assert not conforms("AB/0001", exp)
    assert shapes[0] <= 500 + 1001  # before: the 500 examples' shapes again for every value


def wide_table(columns: int, rows: int) -> list[dict]:
    rng = random.Random(7)
    return [{f"c{j:03d}": f"{j}-{rng.randrange(12)}" for j in range(columns)} for _ in range(rows)]


def test_discovery_visits_rows_up_to_its_bound_and_counts_the_keys_it_left(monkeypatch):
    visited = [0]

    class Counting(Counter):
        def __init__(self, iterable=None, /, **kwargs):
            if iterable is not None and not isinstance(iterable, dict):
                iterable = list(iterable)
                visited[0] += len(iterable)
            super().__init__(iterable, **kwargs)

    monkeypatch.setattr(discover, "Counter", Counting)
    table = wide_table(40, 300)
    discover.discover_steps(table)
    unbounded = visited[0]
    visited[0] = 0
    monkeypatch.setattr(discover, "MAX_WORK", 30_000)
    left: Counter = Counter()
    discover.discover_steps(table, left_out=left)
    # every column a key candidate for every other: 40 x 40 x 300 rows before
    assert unbounded > 300_000
    assert visited[0] < 30_000 + 40 * 300 * 2  # the bound, and each column read once or twice
    assert left["keys"] > 30


def test_more_candidate_steps_than_the_bound_are_refused_with_a_reason(monkeypatch):
    fitted = [0]
    real = check_steps.apply_steps

    def counted(steps, records):
        fitted[0] += 1
        return real(steps, records)

    monkeypatch.setattr(check_steps, "apply_steps", counted)
    rows = [{f"f{j}": ("Boston" if i % 9 else "Bostn") for j in range(40)} for i in range(90)]
    steps = [CrossRowStep("vocabulary", fields=(f"f{j}",)) for j in range(40)]
    kept, refused = check_steps.validate_steps(steps, rows)
    assert len(kept) == check_steps.MAX_STEPS
    assert len(refused) == 40 - check_steps.MAX_STEPS
    assert all("not checked" in why for _, why in refused)
    assert fitted[0] == check_steps.MAX_STEPS


def test_values_that_differ_only_in_digits_are_compared_within_the_budget(monkeypatch):
    compared = [0]
    real = near.two_values

    def counted(a, b):
        compared[0] += 1
        return real(a, b)

    monkeypatch.setattr(near, "two_values", counted)
    monkeypatch.setattr(near, "MAX_WORK", 100_000)
    stem = "".join(random.Random(5).choice("abcdef") for _ in range(242))
    counts = {f"{stem}{k:08d}": 1 + k % 3 for k in range(600)}
    fixes, left_alone = near.closest_spellings(counts, 2, 3.0)
    assert fixes == {}  # two values each, never a spelling of another
    assert left_alone > 0
    # each comparison is charged its characters: before, one unit each (100,000 of them)
    assert compared[0] <= 100_000 // near.look(stem, stem) + 1


def test_keys_an_earlier_step_writes_are_looked_up_within_one_budget_for_them_all(monkeypatch):
    monkeypatch.setattr(majority, "MAX_WORK", 3 * near.PROBE_WORK)
    probes, spent = [0], [0]
    real = majority.close_keys

    def counted(text, index, max_distance, budget):
        probes[0] += 1
        found = real(text, index, max_distance, budget)
        spent[0] += near.PROBE_WORK - budget.left
        return found

    monkeypatch.setattr(majority, "close_keys", counted)
    records = []
    for k in range(600):
        records += [{"id": f"north {k:04d}", "name": f"n{k}"}] * 2
    for k in range(100):  # 60 misspellings of one word, each rare: the words step mends them
        at, letter = 1 + k % 4, "bcdfgjklmpqsvwxz"[k // 4 % 15]
        records.append({"id": f"{'north'[:at]}{letter}{'north'[at + 1 :]} {600 + k:04d}"})
    steps = [
        CrossRowStep("words", fields=("id",)),
        CrossRowStep("majority", key=("id",), fields=("name",)),
    ]
    fitted = fit(steps, records)
    probes[0] = spent[0] = 0
    out = [fitted.transform(r) for r in records]
    assert fitted.changed[(0, "id")] == 100  # every misspelling mended: 100 keys never fitted
    # before: a search of up to 20,000 units for each of them
    assert spent[0] <= 4 * near.PROBE_WORK and probes[0] < 20
    assert fitted.left_alone[(1, "id")] >= 100 - probes[0]  # the others: left alone, counted
    assert len(out) == len(records)
