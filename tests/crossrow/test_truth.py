"""Truth discovery across sources (``crossrow.truth``), the vote of ``majority`` steps with
``weight_by``: source accuracies and value probabilities fitted together, format variants as one
value, copying sources found and counted once, parts merged as a whole file."""

from __future__ import annotations

import random

import pytest

from recursive_cleaner.apply.dask_spool import merge_summaries
from recursive_cleaner.crossrow import truth
from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps, fit, summarize
from recursive_cleaner.crossrow.validate import validate_steps

STEP = CrossRowStep("majority", key=("item",), fields=("price", "size"), weight_by=("site",))


def reports(items: int = 40, seed: int = 3) -> list[dict]:
    """One site always right; two right 80% of the time (their errors their own); three wrong 70%
    of the time with the item's one stale value, so that they agree on their errors and outvote
    the others wherever all three err."""
    rng, rows = random.Random(seed), []
    for i in range(items):
        for site in ("good", "fair1", "fair2", "bad1", "bad2", "bad3"):
            price, size = f"{i}.00", "M"
            if site.startswith("bad") and rng.random() < 0.7:
                price, size = f"{i}.50", "L"
            elif site.startswith("fair") and rng.random() < 0.2:
                price, size = f"{i}.{rng.randrange(60, 99)}", f"{rng.randrange(1, 99)}"
            rows.append({"item": f"it-{i}", "site": site, "price": price, "size": size})
    return rows


def right(rows: list[dict]) -> bool:
    return all(r["price"] == f"{r['item'][3:]}.00" and r["size"] == "M" for r in rows)


@pytest.mark.parametrize("seed", range(4))
def test_a_reliable_minority_beats_an_unreliable_majority(seed):
    rows = reports(seed=seed)
    plain = apply_steps([CrossRowStep("majority", key=("item",), fields=("price", "size"))], rows)
    assert not right(plain)  # the bad three outvote the others
    assert right(apply_steps([STEP], rows))
    accuracy = fit([STEP], rows).fits[0].accuracy
    assert accuracy["good"] > 0.9 > min(accuracy["fair1"], accuracy["fair2"]) > 0.6
    assert max(accuracy[f"bad{k}"] for k in (1, 2, 3)) < 0.5


def test_values_that_differ_only_by_format_support_each_other_and_stay_as_they_are():
    rows = [
        {"flight": "F1", "src": "a", "dep": "6:35 a.m."},
        {"flight": "F1", "src": "b", "dep": "06:35 AM"},
        {"flight": "F1", "src": "c", "dep": "6:35 am"},
        {"flight": "F1", "src": "d", "dep": "6:40 a.m."},
        {"flight": "F1", "src": "e", "dep": "6:40 a.m."},
        {"flight": "F1", "src": "f", "dep": ""},
    ]
    plain = apply_steps([CrossRowStep("majority", key=("flight",), fields=("dep",))], rows)
    assert plain == rows  # three spellings of one value: no spelling has a majority
    step = CrossRowStep("majority", key=("flight",), fields=("dep",), weight_by=("src",))
    assert [r["dep"] for r in apply_steps([step], rows)] == [
        "6:35 a.m.",
        "06:35 AM",  # the winner in another format: the functions' work, left as it is
        "6:35 am",
        "6:35 a.m.",
        "6:35 a.m.",
        "6:35 a.m.",  # a blank takes the winner's most given spelling
    ]


def test_no_value_more_likely_than_not_leaves_the_cell_alone():
    rows = [
        {"k": "x", "src": "a", "v": "1"},
        {"k": "x", "src": "b", "v": "2"},
        {"k": "x", "src": "c", "v": ""},
    ]
    step = CrossRowStep("majority", key=("k",), fields=("v",), weight_by=("src",))
    assert apply_steps([step], rows) == rows


def copied_reports(items: int = 60, seed: int = 11) -> list[dict]:
    """good1, good2 right 90% of the time, fair1 and fair2 70%, poor 40% (each its own errors,
    one of three false values), and copy1 and copy2 mirror poor's values, its errors included:
    three rows alike that outvote the others wherever these disagree."""
    rng, rows = random.Random(seed), []
    rates = {"good1": 0.9, "good2": 0.9, "fair1": 0.7, "fair2": 0.7, "poor": 0.4}
    for i in range(items):
        own = {s: f"v{i}" if rng.random() < a else f"x{rng.randrange(3)}" for s, a in rates.items()}
        own["copy1"] = own["copy2"] = own["poor"]
        rows += [{"item": f"it-{i}", "site": s, "price": v, "size": v} for s, v in own.items()]
    return rows


def wrong(rows: list[dict]) -> int:
    return sum(r["price"] != f"v{r['item'][3:]}" for r in rows)


@pytest.mark.parametrize("seed", range(4))
def test_mirrors_of_one_source_are_found_and_counted_once(seed):
    rows = copied_reports(seed=seed)
    state = fit([STEP], rows).fits[0]
    assert set(state.copies) == {("copy1", "copy2"), ("copy1", "poor"), ("copy2", "poor")}
    plain = apply_steps([CrossRowStep("majority", key=("item",), fields=("price",))], rows)
    assert wrong(apply_steps([STEP], rows)) < wrong(plain) / 3
    assert state.accuracy["poor"] < 0.6 < min(state.accuracy[s] for s in ("good1", "good2"))


def test_errors_shared_by_chance_are_no_copying():
    assert fit([STEP], reports(seed=0)).fits[0].copies == {}


def test_the_pair_budget_samples_cells_and_still_finds_the_copies(monkeypatch):
    monkeypatch.setattr(truth, "PAIR_BUDGET", 300)
    state = fit([STEP], copied_reports()).fits[0]
    assert ("copy1", "copy2") in state.copies


@pytest.mark.parametrize("size", [5, 37, 100])
def test_parts_merged_in_order_fit_as_the_whole_file(size):
    rows = copied_reports() + reports()
    whole = fit([STEP], rows)
    parts = [summarize([STEP], rows[k : k + size]) for k in range(0, len(rows), size)]
    merged = merge_summaries([STEP], *parts).fitted()
    a, b = whole.fits[0], merged.fits[0]
    assert (a.groups, a.accuracy, a.reports, a.copies) == (
        b.groups,
        b.accuracy,
        b.reports,
        b.copies,
    )
    assert [merged.transform(r) for r in rows] == [whole.transform(r) for r in rows]


def test_a_field_the_goals_leave_alone_is_never_written():
    rows = reports()
    kept, refused = validate_steps([STEP], rows, stated=["item"], protected=["size"])
    assert [s.fields for s in kept] == [("price",)] and "leave" in refused[0][1]
    out = apply_steps(kept, rows)
    assert [r["size"] for r in out] == [r["size"] for r in rows]
    assert [r["site"] for r in out] == [r["site"] for r in rows]


def test_the_report_notes_name_each_source_with_its_accuracy_and_the_copies():
    fitted = fit(
        [STEP, CrossRowStep("majority", key=("item",), fields=("size",))], copied_reports()
    )
    (sources, copies), plain = fitted.notes()
    assert sources.startswith("estimated accuracy of each site (cells it reports): good")
    assert "poor 0.4" in sources and "(120)" in sources
    assert copies.endswith("copy1 ~ copy2, copy1 ~ poor, copy2 ~ poor") and plain == []


def test_every_cell_blank_or_one_source_fits_without_error():
    rows = [{"item": "a", "site": "s", "price": "", "size": None}, {"item": "b", "site": "t"}]
    assert apply_steps([STEP], rows) == rows
    assert fit([STEP], [dict(rows[0], price="1")]).fits[0].accuracy == {"s": truth.PRIOR_ACCURACY}
