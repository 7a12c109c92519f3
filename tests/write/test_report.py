"""The markdown cleaning report: summary first, sections only when they have data, dry-run
analysis."""

from __future__ import annotations

import dataclasses
import re

import pytest

from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.write.metrics import compare_quality
from recursive_cleaner.write.report import ReportData, render_report, write_report

SECTIONS = [
    "## Functions",
    "## Quality before/after",
    "## Rejected functions",
    "## Fields left dirty",
    "## LLM usage",
    "## Skipped input",
]


def improvement():
    before = [{"d": "2024-01-05", "s": "Active"}, {"d": "Jan 6, 2024", "s": "active "}]
    after = [{"d": "2024-01-05", "s": "active"}, {"d": "2024-01-06", "s": "active"}]
    return compare_quality(before, after, expectations={"d": Expectation("date")}, truth=after)


def full(**changes) -> ReportData:
    data = ReportData(
        source="data/crm.jsonl",
        instructions="Dates in ISO 8601.\nStatus: one of 'active', 'pending'.",
        chunks_total=4,
        chunks_processed=4,
        records_seen=200,
        functions=[
            {
                "name": "fix_dates",
                "docstring": "Convert dates to ISO.\n\n    Handles 'Jan 6, 2024'.",
                "field": "d",
                "issue": "d: 1 of 2 values are not ISO dates",
                "issues_before": {"d": 1, "s": 1},
                "issues_after": {"d": 0, "s": 1},
            },
            {
                "name": "fix_status",
                "docstring": "Lower-case status.",
                "field": None,
                "issue": "",
                "issues_before": {"d": 0, "s": 1},
                "issues_after": {"d": 0, "s": 0},
            },
        ],
        rejected=[("bad_fn", "AssertionError: expected 'x'")],
        unfixable={"amount": "amount: 3 of 9 are text"},
        improvement=improvement(),
        llm={
            "calls": 7,
            "prompt_tokens": 4000,
            "completion_tokens": 600,
            "cached_tokens": 1000,
            "failed_attempts": 2,
        },
        latency={"min_ms": 250.0, "max_ms": 2500.0, "avg_ms": 1000.0, "total_ms": 7000.0},
        skipped_records=2,
        skipped_examples=["data/crm.jsonl:17: invalid JSON"],
        output_path="cleaning_functions.py",
        seconds=12.34,
    )
    return dataclasses.replace(data, **changes)


def pipes_outside_escapes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def test_full_report_has_every_section_in_order_after_the_summary():
    md = render_report(full())
    assert md.startswith("# Cleaning report\n")
    positions = [md.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    summary = md[: positions[0]]
    for text in (
        "`data/crm.jsonl`",
        "2 accepted, 1 rejected",
        "`amount`",
        "7 calls",
        "4,600 tokens",
        "12.3 s",
        "accuracy vs ground truth:** 25% → 100%",
        "`cleaning_functions.py`",
        "4 of 4 chunks, 200 records",
    ):
        assert text in summary, text
    # goals in one quote
    assert "> Dates in ISO 8601.\n> Status: one of 'active', 'pending'." in summary


def test_functions_section_shows_docstring_field_and_issue_counts():
    md = render_report(full())
    section = md[md.index("## Functions") : md.index("## Quality")]
    assert "### 1. `fix_dates`" in section and "### 2. `fix_status`" in section
    assert "> Convert dates to ISO.\n>\n> Handles 'Jan 6, 2024'." in section  # docstring dedented
    assert "- Field: `d`" in section and "- Issue: d: 1 of 2 values are not ISO dates" in section
    assert "before → after: 1 → 0" in section
    assert "`s` 1 → 0" in section  # no field: the counts that moved


def test_quality_section_is_the_improvement_table():
    data = full()
    assert data.improvement.to_markdown() in render_report(data)


def test_llm_usage_cache_share_and_latency_in_seconds():
    md = render_report(full())
    section = md[md.index("## LLM usage") : md.index("## Skipped input")]
    assert "Calls: 7 (2 failed attempts retried)" in section
    assert "4,000 prompt, 600 completion" in section
    assert "1,000 cached tokens (25% of prompt tokens)" in section
    assert "min 0.25 s, avg 1.00 s, max 2.50 s; total 7.0 s" in section


def test_skipped_section_lists_examples():
    md = render_report(full())
    assert "2 input records could not be read" in md and "`data/crm.jsonl:17: invalid JSON`" in md


@pytest.mark.parametrize(
    "heading,change",
    [
        ("## Functions", {"functions": []}),
        ("## Quality before/after", {"improvement": None}),
        ("## Rejected functions", {"rejected": []}),
        ("## Fields left dirty", {"unfixable": {}}),
        ("## LLM usage", {"llm": {}, "latency": {}}),
        ("## Skipped input", {"skipped_records": 0, "skipped_examples": []}),
    ],
)
def test_each_section_is_omitted_without_data(heading, change):
    md = render_report(full(**change))
    assert heading not in md
    for other in SECTIONS:
        if other != heading:
            assert other in md, other


def test_empty_report_is_just_a_title_and_a_short_summary():
    md = render_report(ReportData())
    assert md.startswith("# Cleaning report\n")
    assert "##" not in md and "Goals" not in md and "None" not in md
    assert "0 accepted, 0 rejected" in md


def test_open_issues_of_a_real_run_are_listed_as_left_dirty():
    md = render_report(
        full(
            unfixable={},
            issues=[
                {
                    "field": "phone",
                    "issue": "phone: 4 of 9 not E.164",
                    "offending": ["555"],
                    "count": 4,
                    "chunk_index": 2,
                }
            ],
        )
    )
    section = md[md.index("## Fields left dirty") :]
    assert "| `phone` | still open: 4 values: phone: 4 of 9 not E.164 |" in section
    assert "## Detected issues" not in md


def test_dry_run_lists_issues_grouped_by_field_instead_of_functions():
    issues = [
        {
            "field": "date",
            "issue": "date: 3 of 10 not ISO",
            "offending": ["01/02/2024", "Jan 3"],
            "count": 3,
            "chunk_index": 0,
        },
        {
            "field": "date",
            "issue": "date: 2 of 10 not ISO",
            "offending": ["Jan 3", "a", "b", "c", "d"],
            "count": 2,
            "chunk_index": 1,
        },
        {
            "field": "status",
            "issue": "status: spelled differently",
            "offending": ["Active"],
            "count": 1,
            "chunk_index": 0,
        },
        {
            "field": None,
            "issue": "duplicate customers",
            "offending": [],
            "count": None,
            "chunk_index": 0,
        },
    ]
    md = render_report(full(dry_run=True, issues=issues, output_path=""))
    assert md.startswith("# Data analysis (dry run)\n")
    assert "## Functions" not in md and "accepted" not in md
    assert "4 in 2 field(s), 1 about whole records" in md
    assert "Fields with issues:** `amount`, `date`, `status`" in md
    section = md[md.index("## Detected issues") : md.index("## Quality")]
    rows = [ln for ln in section.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
    assert len(rows) == 3
    date = rows[0]
    assert date.startswith("| `date` | 5 |")  # counts summed over chunks
    # 5 distinct
    assert re.findall(r"`([^`]*)`", date.split("|")[4]) == ["01/02/2024", "Jan 3", "a", "b", "c"]
    assert rows[2].startswith("| (whole record) | — | duplicate customers |")


def test_dry_run_keeps_a_custom_title():
    assert render_report(ReportData(title="CRM analysis", dry_run=True)).startswith(
        "# CRM analysis\n"
    )


def test_pipes_are_escaped_in_table_cells():
    issues = [
        {"field": "a|b", "issue": "x | y", "offending": ["1|2"], "count": 1, "chunk_index": 0}
    ]
    md = render_report(ReportData(dry_run=True, issues=issues, unfixable={"c|d": "bad | worse"}))
    assert "a\\|b" in md and "x \\| y" in md and "1\\|2" in md and "bad \\| worse" in md
    detected = md[md.index("## Detected issues") : md.index("## Fields left dirty")]
    dirty = md[md.index("## Fields left dirty") :]
    for section, columns in ((detected, 4), (dirty, 2)):
        rows = [ln for ln in section.splitlines() if ln.startswith("|")]
        assert len(rows) == 3
        assert all(pipes_outside_escapes(row) == columns + 1 for row in rows), rows


def test_long_values_are_truncated():
    long_reason = "x" * 1000
    long_value = "v" * 500
    md = render_report(
        full(
            rejected=[("f", long_reason)],
            dry_run=False,
            unfixable={"amount": "y" * 900},
            issues=[{"field": "amount", "issue": "i", "offending": [long_value], "count": 1}],
        )
    )
    line = next(ln for ln in md.splitlines() if ln.startswith("- `f` — "))
    reason = line[len("- `f` — ") :]
    assert reason.endswith("…") and len(reason) <= 200
    dirty = next(ln for ln in md.splitlines() if ln.startswith("| `amount` |"))
    assert "…" in dirty and len(dirty) < 260
    dry = render_report(
        ReportData(
            dry_run=True,
            issues=[{"field": "a", "issue": "i", "offending": [long_value], "count": 1}],
        )
    )
    row = next(ln for ln in dry.splitlines() if ln.startswith("| `a` |"))
    assert "…" in row and long_value not in row and len(row) < 120


def test_rejected_list_is_capped_at_thirty():
    rejected = [(f"fn_{i}", f"reason {i}") for i in range(45)]
    md = render_report(ReportData(rejected=rejected))
    section = md[md.index("## Rejected functions") :]
    items = [ln for ln in section.splitlines() if ln.startswith("- ")]
    assert len(items) == 31 and items[-1] == "- … and 15 more"
    assert "fn_29" in section and "fn_30" not in section
    assert "0 accepted, 45 rejected" in md


def test_write_report_is_atomic_and_equals_render(tmp_path):
    data = full()
    target = tmp_path / "out" / "cleaning_report.md"
    assert write_report(str(target), data) == str(target)
    assert target.read_text(encoding="utf-8") == render_report(data)
    data.title = "Second run"
    write_report(target, data)
    assert target.read_text(encoding="utf-8").startswith("# Second run\n")
    assert [p.name for p in target.parent.iterdir()] == ["cleaning_report.md"]  # no temp files left


def test_summary_without_truth_shows_mean_conformity_and_order_note():
    imp = compare_quality(
        [{"d": "2024-01-05"}, {"d": "Jan 6, 2024"}],
        [{"d": "2024-01-05"}, {"d": "2024-01-06"}],
        expectations={"d": Expectation("date")},
    )
    md = render_report(
        ReportData(improvement=imp, order_note="cycle between a and b; kept generation order")
    )
    assert "- **Mean conformity:** 50% → 100% (1 of 2 rows changed)" in md
    assert "- **Fields still dirty:** none found" in md
    assert "- **Function order:** cycle between a and b; kept generation order" in md
    assert "Accuracy" not in md


def test_revised_functions_are_marked():
    data = ReportData(
        functions=[{"name": "fix_phone", "docstring": "Phones.", "field": "phone"}],
        modifications=[{"name": "fix_phone", "chunk_index": 2}],
    )
    text = render_report(data)
    assert "Revised by the model 1 time(s) (chunk 3)" in text
    assert "Revised" not in render_report(ReportData(functions=data.functions))


def test_a_steps_notes_are_listed_under_it_escaped():
    data = ReportData(
        cross_row=["majority of price by item", "vocabulary of city"],
        cross_row_notes=[["estimated accuracy of each site: <b>|x</b> 0.95 (40)"], []],
        cross_row_sample=200,
    )
    text = render_report(data)
    step = text.index("- majority of price by item")
    note = text.index("  - estimated accuracy of each site: ")
    assert step < note < text.index("- vocabulary of city")
    assert "<b>" not in text and "(on the planning sample)" in text
