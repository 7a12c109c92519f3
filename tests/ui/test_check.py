"""validate(data, spec): the cells that break a field spec, per field (recursive_cleaner/check.py,
CLI validate)."""

from __future__ import annotations

import json

import pytest

from recursive_cleaner import SpecCheck, validate
from recursive_cleaner.profiling.spec import read_spec

SPEC = {
    "version": 1,
    "scope": "mentioned",
    "keys": [],
    "dedup": False,
    "fields": {
        "signup": {"kind": "date", "mentioned": True},
        "status": {"kind": "enum", "allowed": ["active", "pending"], "mentioned": True},
        "amount": {"kind": "number", "mentioned": True},
        "code": {"kind": "as_is", "mentioned": True},  # left alone: never checked
        "note": {"kind": None, "mentioned": False},
    },
}
ROWS = [
    {"signup": "2024-01-02", "status": "active", "amount": 12.5, "code": "007", "note": "x"},
    {"signup": "02/01/2024", "status": "actve", "amount": "12,5", "code": "7", "note": None},
    {"signup": None, "status": "N/A", "amount": 3, "code": "", "note": "y"},
    {"signup": "2024-13-01", "status": "pending", "amount": 1e3, "code": "x", "note": "z"},
]


def test_each_field_counts_its_breaks_and_keeps_where_they_are():
    result = validate(ROWS, SPEC)
    assert isinstance(result, SpecCheck) and result.records == 4 and not result.ok
    # not as_is, not a field without a kind
    assert set(result.expected) == {"signup", "status", "amount"}
    assert result.broken == {"signup": 2, "status": 1, "amount": 1}
    assert result.checked == {"signup": 3, "status": 3, "amount": 4} and result.blank == {
        "signup": 1,
        "status": 1,
    }
    assert [(v.row, v.value) for v in result.examples["signup"]] == [
        (1, "02/01/2024"),
        (3, "2024-13-01"),
    ]
    assert (
        "signup: 2 of 3 value(s) break ISO dates (YYYY-MM-DD), e.g. '02/01/2024', '2024-13-01'"
        in result.summary()
    )


def test_a_csv_file_is_checked_as_text_and_a_spec_file_by_its_path(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text(
        "signup,status,amount,code,note\n2024-01-02,active,12.5,007,x\n2024-01-03,pending,7,8,y\n"
    )
    spec = tmp_path / "cleaning_spec.json"
    spec.write_text(json.dumps(SPEC))
    result = validate(str(data), spec)
    assert result.ok and result.checked == {"signup": 2, "status": 2, "amount": 2}


def test_a_spec_the_goals_make_and_a_dataframe():
    pd = pytest.importorskip(
        "pandas", reason="pandas is optional: pip install 'recursive-data-cleaner[dev]'"
    )
    spec = read_spec(
        "status: one of active, pending. Leave code alone.",
        ["status", "code"],
        {"status": ["active", "pending", "actve"], "code": ["007", "7", "x"]},
    )
    result = validate(
        pd.DataFrame({"status": ["active", "actve"], "code": ["007", "7"]}), spec, shown=0
    )
    assert result.broken == {"status": 1} and result.examples == {}


def test_the_cli_exits_1_when_a_value_breaks_the_spec(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from recursive_cleaner.ui.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "cleaning_spec.json").write_text(json.dumps(SPEC))
    (tmp_path / "good.jsonl").write_text(json.dumps(ROWS[0]) + "\n")
    (tmp_path / "bad.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    good = CliRunner().invoke(cli, ["validate", "good.jsonl"])
    assert good.exit_code == 0 and "signup: 0 of 1 value(s) break" in good.output
    bad = CliRunner().invoke(cli, ["validate", "bad.jsonl", "--spec", "cleaning_spec.json"])
    assert (
        bad.exit_code == 1
        and "status: 1 of 3 value(s) break one of 'active', 'pending', e.g. 'actve'" in bad.output
    )
    missing = CliRunner().invoke(cli, ["validate", "bad.jsonl", "--spec", "nope.json"])
    assert missing.exit_code == 1 and "spec file not found: nope.json" in missing.output


def test_each_break_says_why_and_failures_give_them_per_field():
    result = validate(ROWS, SPEC)
    signup = result.failures()["signup"]
    assert signup["checked"] == 3 and signup["blank"] == 1 and signup["broken"] == 2
    assert signup["expected"] == "ISO dates (YYYY-MM-DD)"
    assert signup["cells"][0] == {
        "row": 1,
        "index": None,
        "value": "02/01/2024",
        "why": "not in that form; expected ISO dates (YYYY-MM-DD)",
    }
    amount = result.failures()["amount"]["cells"]
    assert [(c["value"], c["why"].split(";")[0]) for c in amount] == [
        ("12,5", "text, not a number")
    ]
    padded = validate([{"status": " active"}], SPEC).examples["status"][0]
    assert padded.why.startswith("spaces around it; expected one of 'active', 'pending'")
    assert validate([{"amount": True}], SPEC).examples["amount"][0].why.startswith("a boolean")


def test_a_dataframe_keeps_its_index_labels_and_reads_nan_as_blank():
    pd = pytest.importorskip(
        "pandas", reason="pandas is optional: pip install 'recursive-data-cleaner[dev]'"
    )
    df = pd.DataFrame(
        {"signup": ["2024-01-02", None, "2024/01/03"], "amount": [1.5, float("nan"), 2.0]},
        index=pd.Index(["a", "b", "c"], name="id"),
    )
    result = validate(df, SPEC)
    assert result.broken == {"signup": 1} and result.blank == {
        "signup": 1,
        "amount": 1,
        "status": 3,
    }
    (cell,) = result.examples["signup"]
    assert (cell.row, cell.index, cell.value) == (2, "c", "2024/01/03")
    frame = result.to_frame()
    assert list(frame.columns) == ["field", "row", "index", "value", "why"]
    assert frame.to_dict("records")[0] | {"why": ""} == {
        "field": "signup",
        "row": 2,
        "index": "c",
        "value": "2024/01/03",
        "why": "",
    }
