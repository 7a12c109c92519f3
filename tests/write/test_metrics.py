"""Quality metrics before/after: conformity, type consistency, spellings, cells changed, accuracy vs
truth."""

from __future__ import annotations

import json

import pytest

from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.profiling.instructions import infer_expectations
from recursive_cleaner.write.metrics import (
    FieldImprovement,
    FieldQuality,
    ImprovementReport,
    QualityMetrics,
    compare_quality,
    measure_quality,
)

DATES_BEFORE = ["2024-01-05", "01/06/2024", "Jan 7, 2024", "2024-01-08"]
DATES_AFTER = ["2024-01-05", "2024-01-06", "2024-01-07", "2024-01-08"]


def test_iso_expectation_from_instructions_conformity_rises_to_one():
    exp = infer_expectations("- signup_date: ISO 8601 dates (YYYY-MM-DD)", ["signup_date"])
    assert exp["signup_date"].kind == "date"
    before = [{"signup_date": d} for d in DATES_BEFORE]
    after = [{"signup_date": d} for d in DATES_AFTER]
    q_before = measure_quality(before, exp).fields["signup_date"]
    q_after = measure_quality(after, exp).fields["signup_date"]
    assert q_before.conformity == pytest.approx(0.5)  # 2 of 4 are ISO
    assert q_before.open_issue and "signup_date" in q_before.open_issue
    assert q_after.conformity == 1.0 and q_after.open_issue is None
    report = compare_quality(before, after, expectations=exp)
    f = report.fields["signup_date"]
    assert f.before.conformity < f.after.conformity == 1.0
    assert f.cells_changed == 2 and report.rows_changed == 2


def test_expectation_built_directly_and_nulls():
    records = [{"d": "2024-01-05"}, {"d": None}, {"d": ""}, {"d": "5 Jan 2024"}, {}]
    q = measure_quality(records, {"d": Expectation("date")}).fields["d"]
    assert (q.non_null, q.nulls) == (2, 3)  # None, "" and a missing key are null
    assert q.conformity == pytest.approx(0.5)


def test_type_consistency_ints_mixed_with_strings():
    before = [{"n": 1}, {"n": "2"}, {"n": 3}, {"n": 4}, {"n": None}]
    after = [{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}, {"n": None}]
    qb = measure_quality(before).fields["n"]
    assert qb.type_consistency == pytest.approx(0.75)  # 3 ints of 4 non-null values
    assert qb.conformity == pytest.approx(0.75)  # the profiler flags the text among numbers
    assert qb.distinct == 4 and qb.non_null == 4 and qb.nulls == 1
    qa = measure_quality(after).fields["n"]
    assert qa.type_consistency == 1.0 and qa.conformity == 1.0
    report = compare_quality(before, after)
    assert report.fields["n"].cells_changed == 1  # "2" -> 2 is a change of type
    assert report.rows_changed == 1


def test_no_values_means_full_consistency():
    q = measure_quality([{"a": None}, {"a": ""}]).fields["a"]
    assert q.type_consistency == 1.0 and q.conformity == 1.0 and q.distinct == 0


def test_spelling_collapse_to_one_value():
    before = [{"status": s} for s in ("Active", "active ", "ACTIVE")]
    after = [{"status": "active"}] * 3
    qb = measure_quality(before).fields["status"]
    assert qb.distinct == 3 and qb.distinct_normalized == 1
    report = compare_quality(before, after)
    f = report.fields["status"]
    assert f.before.distinct == 3 and f.after.distinct == 1
    assert f.spelling_collapse == 1.0
    assert f.cells_changed == 3 and report.rows_changed == 3


def test_spelling_collapse_partial_nothing_and_clipped():
    before = [{"s": v} for v in ("Active", "active", "ACTIVE", "Pending", "pending")]
    after = [{"s": v} for v in ("active", "active", "active", "pending", "pending")]
    # (5-2)/(5-1)
    assert compare_quality(before, after).fields["s"].spelling_collapse == pytest.approx(0.75)
    same = [{"s": "x"}] * 3
    assert compare_quality(same, same).fields["s"].spelling_collapse == 0.0  # nothing to collapse
    grew = [{"s": v} for v in ("a1", "b2", "c3")]
    two = [{"s": v} for v in ("a", "a", "b")]
    # more spellings after: clipped
    assert compare_quality(two, grew).fields["s"].spelling_collapse == 0.0


def test_rows_and_cells_changed():
    before = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b": "z"}]
    after = [{"a": 1, "b": "x"}, {"a": 2.0, "b": "Y"}, {"a": 3, "b": "Z"}]
    report = compare_quality(before, after)
    assert report.records == 3 and report.rows_changed == 2
    assert report.fields["a"].cells_changed == 1  # 2 -> 2.0 changes the type
    assert report.fields["b"].cells_changed == 2


def test_missing_fields_and_rows_count_as_changed():
    before = [{"a": 1, "b": None}, {"a": 2, "b": "y"}, {"a": 3, "b": "z"}]
    # b dropped in row 0, c added in row 1, row 2 gone
    after = [{"a": 1}, {"a": 2, "b": "y", "c": "new"}]
    report = compare_quality(before, after)
    assert report.records == 3 and report.rows_changed == 3
    # row 0 missing b (even though it was None), row 2 missing
    assert report.fields["b"].cells_changed == 2
    assert report.fields["a"].cells_changed == 1
    assert report.fields["c"].cells_changed == 1
    assert report.fields["c"].before is None and report.fields["c"].after.non_null == 1
    assert list(report.fields) == ["a", "b", "c"]


def test_accuracy_against_truth_by_name():
    before = [
        {"id": 1, "status": "Active"},
        {"id": 2, "status": "pending "},
        {"id": 3, "status": None},
    ]
    after = [{"id": 1, "status": "active"}, {"id": 2, "status": "pending"}, {"id": 3, "status": ""}]
    truth = [
        {"id": "1", "status": "active"},
        {"id": "2", "status": "pending"},
        {"id": "3", "status": None},
    ]
    report = compare_quality(before, after, truth=truth)
    assert report.fields["id"].accuracy_before == 1.0  # 1 == "1"
    assert report.fields["status"].accuracy_before == pytest.approx(1 / 3)  # only None == None
    assert report.fields["status"].accuracy_after == 1.0  # "" == None
    assert report.accuracy_before == pytest.approx(4 / 6)
    assert report.accuracy_after == 1.0


def test_accuracy_numbers_are_exact_strings():
    report = compare_quality(
        [{"x": 12.0}, {"x": 12}], [{"x": 12.0}, {"x": 12}], truth=[{"x": "12"}, {"x": "12"}]
    )
    assert report.fields["x"].accuracy_after == pytest.approx(0.5)  # 12.0 -> "12.0" != "12"


def test_accuracy_with_other_header_names_aligns_by_position():
    before = [{"name": "ann", "city": "paris"}, {"name": "BOB", "city": "Rome"}]
    after = [{"name": "Ann", "city": "Paris"}, {"name": "Bob", "city": "Rome"}]
    truth = [{"Full Name": "Ann", "Town": "Paris"}, {"Full Name": "Bob", "Town": "Rome"}]
    report = compare_quality(before, after, truth=truth)
    assert (
        report.fields["name"].accuracy_before == 0.0 and report.fields["name"].accuracy_after == 1.0
    )
    assert (
        report.fields["city"].accuracy_before == 0.5 and report.fields["city"].accuracy_after == 1.0
    )
    assert report.accuracy_before == pytest.approx(1 / 4) and report.accuracy_after == 1.0


def test_truth_with_a_subset_of_fields_matches_by_name():
    before = [{"a": "x", "b": "1"}]
    report = compare_quality(before, [{"a": "y", "b": "1"}], truth=[{"b": "1"}])
    assert report.fields["a"].accuracy_before is None and report.fields["b"].accuracy_after == 1.0
    assert report.accuracy_after == 1.0


def test_without_truth_no_accuracy():
    report = compare_quality([{"a": 1}], [{"a": 1}])
    assert report.accuracy_before is None and report.accuracy_after is None
    assert "Accuracy" not in report.to_markdown()


def test_to_markdown_has_a_row_per_field_and_escapes():
    before = [{"a|b": "x", "status": "Active", "n": "1"}, {"a|b": "y", "status": "ACTIVE", "n": 2}]
    after = [{"a|b": "x", "status": "active", "n": 1}, {"a|b": "y", "status": "active", "n": 2}]
    md = compare_quality(before, after, truth=after).to_markdown()
    lines = md.splitlines()
    assert lines[0].startswith("| Field | Conformity") and "Accuracy" in lines[0]
    rows = [ln for ln in lines[2:] if not ln.startswith("| **all cells**")]
    assert len(rows) == 3
    assert "a\\|b" in md
    assert any(ln.startswith("| `status` |") and "2 → 1" in ln for ln in rows)
    assert "50% → 100%" in md  # conformity of n
    cols = lines[0].count(" | ") + 1
    for ln in lines[2:]:
        assert ln.replace("\\|", "").count("|") == cols + 1


def test_str_is_a_compact_table():
    report = compare_quality(
        [{"status": "Active"}, {"status": "active"}],
        [{"status": "active"}] * 2,
        truth=[{"status": "active"}] * 2,
    )
    text = str(report)
    assert text.splitlines()[0] == "2 records, 1 rows changed, accuracy 50% -> 100%"
    assert "status" in text and "2 -> 1" in text
    assert "|" not in text


def test_summary_and_to_dict():
    exp = {"d": Expectation("date")}
    before = [{"d": "2024-01-05", "s": "x"}, {"d": "Jan 6, 2024", "s": "x"}]
    after = [{"d": "2024-01-05", "s": "x"}, {"d": "2024-01-06", "s": "x"}]
    report = compare_quality(before, after, expectations=exp)
    s = report.summary()
    assert s["conformity_before"] == pytest.approx(0.75) and s["conformity_after"] == 1.0
    assert s["open_issues_before"] == ["d"] and s["open_issues_after"] == []
    assert s["rows_changed"] == 1 and s["records"] == 2 and s["accuracy_before"] is None
    data = json.loads(json.dumps(report.to_dict()))
    assert (
        data["fields"]["d"]["before"]["conformity"] == 0.5 and data["summary"]["rows_changed"] == 1
    )
    q = measure_quality(before, exp)
    assert isinstance(q, QualityMetrics) and json.loads(json.dumps(q.to_dict()))["records"] == 2


def test_empty_input():
    q = measure_quality([])
    assert q.records == 0 and q.fields == {}
    report = compare_quality([], [], truth=[])
    assert isinstance(report, ImprovementReport)
    assert report.records == 0 and report.rows_changed == 0 and report.fields == {}
    assert report.accuracy_before is None
    assert str(report) == "0 records, 0 rows changed"
    assert report.to_markdown().startswith("| Field |")
    assert report.summary()["conformity_before"] is None


def test_text_mode_does_not_crash():
    texts = ["Hello  world\nHello world", "", "hello world"]
    q = measure_quality(texts)
    f = q.fields["text"]
    assert isinstance(f, FieldQuality) and q.records == 3
    assert (f.non_null, f.nulls) == (2, 1)
    assert f.conformity == pytest.approx(2 / 3)  # text mode: share of non-empty texts
    assert f.distinct == 3 and f.distinct_normalized == 1  # distinct lines
    report = compare_quality(
        texts, ["Hello world", "", "Hello world"], truth=["Hello world", "", "Hello world"]
    )
    imp = report.fields["text"]
    assert isinstance(imp, FieldImprovement)
    assert report.rows_changed == 2 and imp.spelling_collapse == 1.0
    assert report.accuracy_before == pytest.approx(1 / 3) and report.accuracy_after == 1.0
    assert "text" in str(report)


def test_unhashable_values_and_non_dicts_are_tolerated():
    records = [{"tags": ["a", "b"]}, {"tags": ["a", "b"]}, {"tags": {"k": 1}}, 42, None]
    q = measure_quality(records)
    assert q.records == 3 and q.fields["tags"].distinct == 2
    report = compare_quality(records, records)
    assert report.rows_changed == 0
