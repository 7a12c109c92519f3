"""bench/heldout: the table generator, the cell scorer and the harness end to end (--library-only,
no model)."""

from __future__ import annotations

import csv
import json
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import heldout  # noqa: E402
from heldout import make_tables  # noqa: E402  (heldout.py put bench/heldout on sys.path)


@pytest.fixture(scope="module")
def built():
    return {name: make_tables.build_table(name) for name in make_tables.TABLES}


# ---------------------------------------------------------------- the generator


def test_the_same_seed_writes_the_same_files(tmp_path):
    for name in make_tables.TABLES:
        a = make_tables.write_table(name, tmp_path / "a", rows=200)
        b = make_tables.write_table(name, tmp_path / "b", rows=200)
        for f in ("dirty.csv", "clean.csv", "meta.json"):
            assert (a / f).read_bytes() == (b / f).read_bytes(), (name, f)
        c = make_tables.write_table(name, tmp_path / "c", rows=200, seed=7)
        assert (c / "dirty.csv").read_bytes() != (a / "dirty.csv").read_bytes()


def test_truth_and_dirty_have_the_same_shape(built):
    for name, (cols, dirty, clean, meta) in built.items():
        assert 1300 <= len(dirty) == len(clean) <= 1800
        assert all(list(r) == cols for r in dirty + clean)
        assert sorted(meta["protect"] + meta["fix"] + meta["other"]) == sorted(cols)
        assert [d[meta["id"]] for d in dirty] == [c[meta["id"]] for c in clean]
        assert len({c[meta["id"]] for c in clean}) == len(clean)  # the id identifies the rows


def test_protected_columns_are_the_same_in_dirty_and_truth(built):
    for name, (_, dirty, clean, meta) in built.items():
        assert meta["protect"], name
        for col in meta["protect"] + meta["other"]:
            assert [d[col] for d in dirty] == [c[col] for c in clean], (name, col)
        # each table protects values a naive cleaner would "fix": digits with leading zeros, or
        # one value spelled several ways (books: "eng" / "English" / "en", "FIC" / "fic")
        zeros = any(re.fullmatch(r"0\d+", c[col]) for col in meta["protect"] for c in clean)
        spelled = any(
            len({c[col] for c in clean}) > len({c[col].lower().strip(". ") for c in clean})
            for col in meta["protect"]
        )
        assert zeros or spelled, name


def test_mostly_clean_each_field_to_fix_is_dirty_in_3_to_25_percent(built):
    for name, (_, dirty, clean, meta) in built.items():
        for col in meta["fix"]:
            share = sum(d[col] != c[col] for d, c in zip(dirty, clean)) / len(clean)
            assert 0.03 <= share <= 0.25, (name, col, share)  # books' isbn: 25%
        assert meta["dirty_share"] == {
            c: pytest.approx(s, abs=1e-4) for c, s in meta["dirty_share"].items()
        }


def test_the_conversions_the_goals_state_give_the_truth(built):
    _, dirty, clean, _ = built["lab"]
    mg = [(d, c) for d, c in zip(dirty, clean) if d["unit"].lower() == "mg/dl"]
    assert mg and all(
        round(float(d["result"]) / 18, 1) == float(c["result"]) and c["unit"] == "mmol/L"
        for d, c in mg
    )
    _, dirty, clean, _ = built["warehouse"]
    lb = [(d, c) for d, c in zip(dirty, clean) if d["gross_weight"].endswith(("lb", "lbs"))]
    assert lb and all(
        round(float(d["gross_weight"].split()[0]) * 0.4536, 2) == float(c["gross_weight"])
        for d, c in lb
    )


def test_fleet_conversions_follow_the_goals_factors(built):
    cols, dirty, clean, meta = built["fleet"]
    gal = [
        (d, c)
        for d, c in zip(dirty, clean)
        if d["volume_unit"] != c["volume_unit"] and "gal" in d["volume_unit"].lower()
    ]
    assert gal and all(round(float(d["volume"]) * 3.785, 2) == float(c["volume"]) for d, c in gal)
    miles = [(d, c) for d, c in zip(dirty, clean) if d["odo_unit"].lower().startswith("mi")]
    assert miles and all(round(int(d["odometer"]) * 1.609) == int(c["odometer"]) for d, c in miles)
    assert all(c["volume_unit"] == "L" and c["odo_unit"] == "km" for c in clean)


def test_every_table_has_two_goal_texts():
    for name in make_tables.TABLES:
        texts = [
            (heldout.GOALS / f"{name}_{wording}.txt").read_text(encoding="utf-8").strip()
            for wording in heldout.WORDINGS
            if (heldout.GOALS / f"{name}_{wording}.txt").is_file()
        ]
        assert len([t for t in texts if t]) >= 2, name
    for path in heldout.GOALS.glob("*.txt"):
        table, _, wording = path.stem.partition("_")
        assert table in make_tables.TABLES and wording in heldout.WORDINGS, path.name


# ---------------------------------------------------------------- the scorer


def test_same_compares_numbers_by_value_and_text_exactly():
    assert (
        heldout.same("14.90", "14.9")
        and heldout.same(14.9, "14.9")
        and heldout.same("1.49e1", "14.9")
    )
    assert heldout.same("7.0", "7") and not heldout.same("7.1", "7")
    assert not heldout.same("4817", "004817")  # leading zeros: the truth is text
    assert not heldout.same("12,5", "12.5") and not heldout.same(" 3.75", "3.75")
    assert not heldout.same("maria", "Maria") and heldout.same(None, "")


COLS = ["id", "name", "kg"]


def rows(*values):
    return [dict(zip(COLS, v)) for v in values]


def test_score_counts_a_fixed_a_broken_and_a_protected_break():
    truth = rows(("001", "Maria", "12.5"), ("002", "Omar", "3"), ("003", "Ben", "0.35"))
    dirty = rows(("001", "MARIA", "12,5"), ("002", "Omar", "3"), ("003", "Ben", "0.35"))
    cleaned = rows(("001", "Maria", "12.50"), ("2", "omar", "3.0"), ("003", "Ben", "0.350"))
    s = heldout.score(dirty, truth, cleaned, COLS, protect=["id"])
    assert (s["to_fix"], s["changed"], s["fixed"], s["broken"], s["broken_protected"]) == (
        2,
        4,
        2,
        2,
        1,
    )
    assert (s["precision"], s["recall"], s["f1"]) == (0.5, 1.0, 0.6667)
    assert s["per_column"]["id"] == {"to_fix": 0, "changed": 1, "fixed": 0, "broken": 1}
    # "3.0", "0.350": no change
    assert s["per_column"]["kg"] == {"to_fix": 1, "changed": 1, "fixed": 1, "broken": 0}


def test_a_number_written_the_same_by_value_is_no_change_either_way():
    """A dirty "1998." the truth "1998" counts as right by value; cleaning it to "1998" is then
    no change (it was counted as a change that fixed nothing)."""
    truth, dirty = rows(("001", "Ann", "1998")), rows(("001", "Ann", "1998."))
    s = heldout.score(dirty, truth, rows(("001", "Ann", "1998")), COLS)
    assert (s["to_fix"], s["changed"], s["broken"]) == (0, 0, 0)


def test_score_of_doing_nothing_and_of_a_wrong_fix():
    truth = rows(("001", "Maria", "12.5"))
    dirty = rows(("001", "MARIA", "12,5"))
    nothing = heldout.score(dirty, truth, dirty, COLS)
    assert (nothing["to_fix"], nothing["changed"], nothing["f1"]) == (2, 0, 0.0)
    wrong = heldout.score(dirty, truth, rows(("001", "Maria", "125")), COLS)
    assert (wrong["changed"], wrong["fixed"], wrong["broken"], wrong["precision"]) == (2, 1, 0, 0.5)


def test_score_files_aligns_rows_by_id_when_some_were_dropped(tmp_path):
    folder = make_tables.write_table("hr", tmp_path, rows=20)
    with open(folder / "clean.csv", newline="", encoding="utf-8") as f:
        kept = list(csv.DictReader(f))
    out = tmp_path / "cleaned.csv"
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(kept[0]))
        writer.writeheader()
        writer.writerows(kept[1:])  # the truth itself, first row dropped
    first_dirty = heldout.read_csv(folder / "dirty.csv")[1][0]
    first_wrong = sum(first_dirty[c] != kept[0][c] for c in kept[0])
    first_right_filled = sum(first_dirty[c] == kept[0][c] != "" for c in kept[0])
    s = heldout.score_files(folder, out)
    assert s["rows_out"] == 19
    assert s["fixed"] == s["to_fix"] - first_wrong  # every other row is the truth
    assert s["broken"] == first_right_filled  # the dropped row's right cells are lost


# ---------------------------------------------------------------- the harness, no model


def test_library_only_end_to_end_on_a_tiny_table(tmp_path, capsys):
    tables = tmp_path / "tables"
    make_tables.write_table("warehouse", tables, rows=60)
    out = tmp_path / "runs"
    code = heldout.main(
        [
            "--library-only",
            "--tables",
            "warehouse",
            "--wordings",
            "terse",
            "--data-dir",
            str(tables),
            "--out",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert re.search(r"\| warehouse \| terse +\| \d\.\d{3} ", printed)
    run = out / "warehouse-terse"
    for f in (
        "cleaning_functions.py",
        "cleaned.csv",
        "generate.log",
        "apply.log",
        "run.json",
        "goals.txt",
    ):
        assert (run / f).is_file(), f
    assert not (run / "prompt-cache").exists()
    summary = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert summary["mode"] == "library-only" and summary["commit"]
    (result,) = summary["results"]
    assert result["error"] is None and result["rows_out"] == result["rows"] == 60
    assert result["calls"] is not None and result["to_fix"] > 0
    # --score-only reads the saved run again and gives the same figures
    assert (
        heldout.main(
            [
                "--score-only",
                str(out),
                "--data-dir",
                str(tables),
                "--json",
                str(tmp_path / "again.json"),
            ]
        )
        == 0
    )
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))["results"][0]
    assert {k: again[k] for k in ("f1", "fixed", "broken", "changed")} == {
        k: result[k] for k in ("f1", "fixed", "broken", "changed")
    }
