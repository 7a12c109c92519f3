"""bench/scoring.py: the Baran metric on hand-made tables (figures computed by hand in the
comments)."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(
    0,
    os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"
    ),
)

import scoring  # noqa: E402
from scoring import raha_normalize, score_records, score_tables, to_csv_text, values_match  # noqa: E501, E402

HEADER = ["id", "city", "state"]
DIRTY = [HEADER, ["1", "birminghxm", "al"], ["2", "gadsden", "xl"], ["3", "opp", "al"]]
CLEAN = [HEADER, ["1", "birmingham", "al"], ["2", "gadsden", "al"], ["3", "opp", "al"]]
# 9 data cells, 2 error cells: (1, city) and (2, state).


def _table(*edits: tuple[int, int, str]) -> list[list[str]]:
    """DIRTY with cells (data row, column) replaced."""
    table = [list(row) for row in DIRTY]
    for i, j, value in edits:
        table[i + 1][j] = value
    return table


def test_no_change_scores_zero():
    # changed 0 -> precision 0 (Baran's convention); correct 0 / errors 2 -> recall 0; F1 0
    s = score_tables(DIRTY, CLEAN, _table())
    assert (s.rows, s.columns, s.cells) == (3, 3, 9)
    assert (s.error_cells, s.changed_cells, s.correct_repairs, s.broken_cells) == (2, 0, 0, 0)
    assert s.precision == 0.0 and s.recall == 0.0 and s.f1 == 0.0
    # accurate cells 7 / 9 both before and after
    assert s.cell_accuracy == pytest.approx(7 / 9) and s.dirty_accuracy == pytest.approx(7 / 9)


def test_all_errors_fixed():
    # changed 2, correct 2: P = 2/2 = 1, R = 2/2 = 1, F1 = 1; every cell right
    s = score_tables(DIRTY, CLEAN, _table((0, 1, "birmingham"), (1, 2, "al")))
    assert (s.changed_cells, s.correct_repairs) == (2, 2)
    assert (s.precision, s.recall, s.f1, s.cell_accuracy) == (1.0, 1.0, 1.0, 1.0)


def test_wrong_change_lowers_precision():
    # "birminghxm" -> "birminghan": an error cell changed, but wrongly.
    # changed 1, correct 0: P = 0/1 = 0, R = 0/2 = 0, F1 = 0
    s = score_tables(DIRTY, CLEAN, _table((0, 1, "birminghan")))
    assert (s.error_cells, s.changed_cells, s.correct_repairs, s.broken_cells) == (2, 1, 0, 0)
    assert s.precision == 0.0 and s.recall == 0.0 and s.f1 == 0.0


def test_one_correct_one_wrong_change():
    # city fixed right, state "xl" -> "ak" wrong. changed 2, correct 1:
    # P = 1/2 = 0.5, R = 1/2 = 0.5, F1 = 2*0.25/1.0 = 0.5
    s = score_tables(DIRTY, CLEAN, _table((0, 1, "birmingham"), (1, 2, "ak")))
    assert (s.changed_cells, s.correct_repairs, s.broken_cells) == (2, 1, 0)
    assert s.precision == pytest.approx(0.5)
    assert s.recall == pytest.approx(0.5)
    assert s.f1 == pytest.approx(0.5)
    assert s.cell_accuracy == pytest.approx(8 / 9)


def test_breaking_a_clean_cell():
    # one error fixed, and the clean cell (2, city) "opp" -> "Opp" broken.
    # changed 2, correct 1, broken 1: P = 1/2, R = 1/2, F1 = 0.5; accurate 7/9 (fixed one, broke
    # one)
    s = score_tables(DIRTY, CLEAN, _table((0, 1, "birmingham"), (2, 1, "Opp")))
    assert (s.changed_cells, s.correct_repairs, s.broken_cells) == (2, 1, 1)
    assert s.precision == pytest.approx(0.5) and s.recall == pytest.approx(0.5)
    assert s.cell_accuracy == pytest.approx(7 / 9)
    per = {c["column"]: c for c in s.per_column}
    assert per["city"] == {"column": "city", "errors": 1, "changed": 2, "correct": 1, "broken": 1}
    assert per["state"]["errors"] == 1 and per["state"]["changed"] == 0


def test_precision_and_recall_differ():
    # both errors fixed plus two clean cells broken: changed 4, correct 2
    # P = 2/4 = 0.5, R = 2/2 = 1, F1 = 2*0.5*1/1.5 = 2/3
    s = score_tables(
        DIRTY, CLEAN, _table((0, 1, "birmingham"), (1, 2, "al"), (2, 0, "03"), (2, 1, " opp"))
    )
    assert (s.changed_cells, s.correct_repairs, s.broken_cells) == (4, 2, 2)
    assert s.precision == pytest.approx(0.5) and s.recall == pytest.approx(1.0)
    assert s.f1 == pytest.approx(2 / 3)


def test_header_names_may_differ():
    # the clean file spells the header differently; columns are matched by position only
    clean = [["ID", "City Name", "st"]] + CLEAN[1:]
    repaired = [["whatever", "x", "y"]] + _table((0, 1, "birmingham"))[1:]
    s = score_tables(DIRTY, clean, repaired)
    # changed 1, correct 1: P = 1, R = 1/2, F1 = 2*0.5/1.5 = 2/3; header never counted as a cell
    assert s.cells == 9 and s.error_cells == 2
    assert s.precision == 1.0 and s.recall == pytest.approx(0.5) and s.f1 == pytest.approx(2 / 3)
    assert [c["column"] for c in s.per_column] == HEADER  # names from the dirty header


def test_no_header():
    # header=False: every row is data. The header rows are equal, so still 2 errors in 12 cells.
    s = score_tables(DIRTY, CLEAN, _table((0, 1, "birmingham")), header=False)
    assert (s.rows, s.cells, s.error_cells, s.correct_repairs) == (4, 12, 2, 1)


@pytest.mark.parametrize(
    "repaired, message",
    [
        (DIRTY[:-1], "number of rows"),
        ([row[:2] for row in DIRTY], "number of columns"),
    ],
)
def test_shape_mismatch_is_a_value_error(repaired, message):
    with pytest.raises(ValueError, match=message):
        score_tables(DIRTY, CLEAN, repaired)


def test_shape_mismatch_between_dirty_and_clean():
    with pytest.raises(ValueError, match="row 2 differs in number of columns"):
        score_tables(DIRTY, CLEAN[:2] + [["2", "gadsden"]] + CLEAN[3:], DIRTY)


def test_repaired_values_are_compared_as_csv_text():
    dirty = [["ounces", "abv", "note"], ["12.0 oz", "0.05%", "n/a"], ["16 oz", "0.06", "x"]]
    clean = [["ounces", "abv", "note"], ["12.0", "0.05", ""], ["16", "0.06", "x"]]
    # 12.0 -> "12.0" right; 0.05 -> "0.05" right; None -> "" right; 16.0 -> "16.0" != "16" wrong
    repaired = [dirty[0], [12.0, 0.05, None], [16.0, 0.06, "x"]]
    s = score_tables(dirty, clean, repaired)
    # errors 4 ((1,0),(1,1),(1,2),(2,0)); changed 4 (0.06 -> "0.06" is unchanged); correct 3
    assert (s.error_cells, s.changed_cells, s.correct_repairs) == (4, 4, 3)
    assert s.precision == pytest.approx(0.75) and s.recall == pytest.approx(0.75)


def test_to_csv_text():
    assert to_csv_text(None) == ""
    assert to_csv_text("  a ") == "  a "
    assert to_csv_text(12.0) == "12.0"
    assert to_csv_text(5) == "5"
    assert to_csv_text(0.1 + 0.2) == "0.30000000000000004"
    assert to_csv_text(True) == "True"
    assert to_csv_text(["a", "é"]) == '["a", "é"]'
    assert to_csv_text({"k": 1}) == '{"k": 1}'


def test_raha_normalize_option():
    assert raha_normalize("  the  right\tkind &amp; co \n") == "the right kind & co"
    dirty = [["a"], ["x  y"]]
    clean = [["a"], ["x y"]]
    assert score_tables(dirty, clean, dirty).error_cells == 1
    assert score_tables(dirty, clean, dirty, normalize=raha_normalize).error_cells == 0


def test_csv_round_trip(tmp_path):
    path = str(tmp_path / "t.csv")
    rows = [["a", "b"], ["x, y", 'say "hi"'], [None, 1.5], ["line\nbreak", ""]]
    scoring.write_csv_table(path, rows)
    assert scoring.read_csv_table(path) == [
        ["a", "b"],
        ["x, y", 'say "hi"'],
        ["", "1.5"],
        ["line\nbreak", ""],
    ]


# ---------------------------------------------------------------------------- records (JSONL)
def test_values_match():
    assert values_match(87.5, 87.5) and values_match("US", "US")
    assert values_match(99.0, 99) and values_match(99.0, "99.0")  # as numbers / as CSV text
    assert values_match(1024, "1024")  # CSV text
    assert not values_match(1024, "1024", strict=True)
    assert values_match(99.0, 99, strict=True)  # numbers compare numerically even when strict
    assert not values_match(87.5, "87.50")
    assert values_match(None, None) and not values_match(None, "x")
    assert values_match(True, True) and not values_match(1, True, strict=True)


def test_score_records_by_key():
    truth = [
        {"id": 1, "country": "US", "amount": 87.5, "phone": None},
        {"id": 2, "country": "CA", "amount": 10.0, "phone": "+1555"},
    ]
    # 4/4 (3/4 strict)
    repaired = [
        {"amount": 87.5, "country": "US", "id": "1", "phone": None, "extra": 1},
        # id, amount right; country wrong; phone missing
        {"id": 2, "country": "Canada", "amount": 10},
    ]
    s = score_records(truth, repaired)
    # 8 cells, 6 matching -> 0.75; strict: "1" != 1 -> 5/8
    assert (s.records, s.cells, s.matching, s.missing_keys) == (2, 8, 6, 1)
    assert s.accuracy == pytest.approx(0.75) and s.strict_accuracy == pytest.approx(5 / 8)
    assert s.field_accuracy() == {"id": 1.0, "country": 0.5, "amount": 1.0, "phone": 0.5}


def test_score_records_non_dict_output_matches_nothing():
    s = score_records([{"a": 1}], [None])
    assert (s.cells, s.matching, s.accuracy) == (1, 0, 0.0)


def test_score_records_shape_mismatch():
    with pytest.raises(ValueError, match="record counts differ"):
        score_records([{"a": 1}], [])
    with pytest.raises(ValueError, match="not an object"):
        score_records(["x"], [{"a": 1}])
