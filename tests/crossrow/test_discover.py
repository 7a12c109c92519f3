"""Candidate steps found in a sample (``crossrow.discover``): which field names sources, read from
the data, never from its name."""

from __future__ import annotations

import random

from recursive_cleaner.crossrow.discover import discover_steps, source_field


def table(source: str = "zz", bad: tuple[str, ...] = ("s4", "s5"), seed: int = 1) -> list[dict]:
    """Items reported by s1-s5, each once; the ``bad`` sources give a wrong city, and a wrong
    phone, 60% of the time, the others 5% (the same typo for anyone)."""
    rng, rows = random.Random(seed), []
    for i in range(60):
        for s in ("s1", "s2", "s3", "s4", "s5"):
            row = {"item": f"it-{i}", source: s, "city": f"city{i}", "phone": f"555-{i:04d}"}
            if rng.random() < (0.6 if s in bad else 0.05):
                row["city"] = f"city{i}x"
            if rng.random() < (0.6 if s in bad else 0.05):
                row["phone"] = f"555-{i:04d}9"
            rows.append(row)
    return rows


def weighted(rows: list[dict], **kwargs) -> list[tuple]:
    return [s.weight_by for s in discover_steps(rows, **kwargs) if s.kind == "majority"]


def test_a_field_whose_values_name_sources_of_unequal_reliability_weighs_the_votes():
    assert weighted(table(), stated=["item"]) == [("zz",)]
    assert source_field(table(), "item", ["city", "phone"]) == "zz"


def test_sources_alike_in_reliability_are_no_source_field_whatever_the_name():
    rows = table(source="src", bad=())
    assert source_field(rows, "item", ["city", "phone"]) is None
    assert not any(weighted(rows, stated=["item"]))


def test_no_source_field_no_weighted_vote():
    rows = [{k: v for k, v in r.items() if k != "zz"} for r in table()]
    assert not any(weighted(rows, stated=["item"]))
    # a row id is not a source: it reports one key only
    ids = [dict(r, row_id=n) for n, r in enumerate(rows)]
    assert source_field(ids, "item", ["city", "phone"]) is None


def test_a_source_repeated_within_a_key_is_not_one():
    rows = table()
    for r in rows:
        r["zz"] = "s1" if r["zz"] in ("s1", "s2") else r["zz"]
    assert source_field(rows, "item", ["city", "phone"]) is None
