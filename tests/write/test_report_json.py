"""write/report_json.py: the report's data as JSON and back, every value checked (issue 43)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, strategies as st

from recursive_cleaner.write.report import render_report
from recursive_cleaner.write.report_data import ReportData
from recursive_cleaner.write.report_html import render_html
from recursive_cleaner.write.report_json import report_from_dict, report_to_dict
from tests.write.test_report import full

EVERY = {
    "mode": "text",
    "dry_run": False,
    "order_note": "kept generation order",
    "modifications": [{"name": "fix_dates", "chunk_index": 1}],
    "reflection": {"original": 3, "refined": 1, "discarded": 1, "final": 2},
    "optimization": {"original": 3, "final": 2, "calls": 1, "merged": ["a+b"], "refused": []},
    "stopped_early": True,
    "cross_row": ["dedup on id"],
    "cross_row_dropped": 1,
    "cross_row_sample": 10,
    "cross_row_notes": [["source a: 0.9"]],
    "spec": ["d: date (ISO)"],
    "spec_path": "cleaning_spec.json",
    "suggestions": ["zip: 3 values look like numbers"],
    "applied": {"records_in": 10, "records_out": 9, "changes_by_step": {"cross_row[0]": 1}},
    "unusable_replies": 1,
    "cross_row_rows": [1],
    "left_alone": [("note", "protected")],
    "whole_file": {"records": 10, "fields": {"d": [3, 0]}},
    "interrupted": True,
    "issues": [{"field": "d", "issue": "not ISO", "offending": ["Jan 6", 7], "count": 2}],
}


def test_every_field_goes_through_json_and_renders_the_same():
    data = full(**EVERY)
    data.functions[0]["examples"] = [{"input": {"d": "Jan 6"}, "output": {"d": "2024-01-06"}}]
    saved = json.loads(json.dumps(report_to_dict(data)))
    assert set(saved) == {f.name for f in dataclasses.fields(ReportData)}
    back = report_from_dict(saved, "r.json")
    assert render_report(back) == render_report(data) and render_html(back) == render_html(data)
    assert back.improvement == data.improvement and back.rejected == data.rejected


def test_saving_leaves_out_what_the_renderers_never_read():
    data = full(llm={"calls": 2, "latency": {"avg_ms": 1.0}, "model": "x"})
    data.functions[0]["code"] = "def fix_dates(record): ..."
    data.functions[0]["chunk_index"] = 3
    saved = report_to_dict(data)
    assert saved["llm"] == {"calls": 2} and "chunk_index" not in saved["functions"][0]
    # the HTML page shows each function's code (issue 45): kept
    assert saved["functions"][0]["code"] == "def fix_dates(record): ..."


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=12,
    )
)
def test_any_json_loads_or_is_one_value_error(value):
    for shown in (value, {"functions": value}, {"improvement": value}, {"whole_file": value}):
        try:
            data = report_from_dict(shown, "r.json")
        except ValueError as exc:
            assert str(exc).startswith("r.json: ") and "\n" not in str(exc)
            continue
        render_report(data), render_html(data)


@pytest.mark.parametrize("value", [True, -1, 1.5, float("inf")])
def test_a_count_is_a_whole_number_from_zero(value):
    with pytest.raises(ValueError, match="report_data.records_seen must be a whole number"):
        report_from_dict({"records_seen": value}, "r.json")
