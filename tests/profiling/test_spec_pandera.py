"""CleaningSpec.to_pandera(): the field spec as a pandera schema (extra ``pandera``)."""

from __future__ import annotations

import sys

import pytest

from recursive_cleaner.profiling.spec import load_spec
from tests.optional_deps import optional

SPEC = {
    "fields": {
        "signup": {"kind": "date"},
        "status": {"kind": "enum", "allowed": ["active", "pending"]},
        "amount": {"kind": "number"},
        "email": {"kind": "email"},
        "phone": {"kind": "phone_e164"},
        "state": {"kind": "us_state"},
        "sku": {"kind": "shape", "allowed": ["AB-1234"]},
        "seen": {"kind": "datetime", "allowed": ["%Y-%m-%d %H:%M"]},
        "code": {"kind": "as_is"},  # left alone: no checks
        "note": {"kind": None, "mentioned": False},
    }
}
CLEAN = {
    "signup": ["2024-01-02", None],
    "status": ["active", "pending"],
    "amount": [1.5, None],
    "email": ["ann@example.com", None],
    "phone": ["+15551234567", None],
    "state": ["CA", "NY"],
    "sku": ["XY-0001", "AB-1234"],
    "seen": ["2024-01-02 10:00", None],
    "code": [" 007", None],
    "note": [1, "anything"],
}
DIRTY = {
    "signup": ["2024-13-02", "02/01/2024"],
    "status": ["actve", "pending"],
    "amount": ["12,5", 3],
    "email": ["Ann@example.com", "ann@example.com"],
    "phone": ["+15551234567", "(555) 123-4567"],
    "state": ["Ca", "NY"],
    "sku": ["XY-0001", "ab1234"],
    "seen": ["2024-01-02T10:00", None],
    "code": ["anything", "goes"],
    "note": [None, {"a": 1}],
}


def test_the_schema_accepts_the_clean_table_and_rejects_the_dirty_one_where_expected():
    pd = optional("pandas")
    optional("pandera")
    schema = load_spec(SPEC).to_pandera()
    assert set(schema.columns) == set(SPEC["fields"])
    assert not schema.columns["code"].checks and not schema.columns["note"].checks
    assert schema.columns["status"].nullable and not schema.columns["status"].required
    clean = pd.DataFrame(CLEAN)
    assert schema.validate(clean) is not None
    assert schema.validate(clean[["status"]]) is not None  # a field not there is no break
    with pytest.raises(Exception) as caught:
        schema.validate(pd.DataFrame(DIRTY), lazy=True)
    cases = caught.value.failure_cases
    failed = {(c, str(v)) for c, v in zip(cases["column"], cases["failure_case"])}
    assert failed == {
        ("signup", "2024-13-02"),
        ("signup", "02/01/2024"),
        ("status", "actve"),
        ("amount", "12,5"),
        ("email", "Ann@example.com"),
        ("phone", "(555) 123-4567"),
        ("state", "Ca"),
        ("sku", "ab1234"),
        ("seen", "2024-01-02T10:00"),
    }


def test_each_kind_maps_to_the_plain_pandera_check_that_says_it():
    optional("pandas")
    optional("pandera")
    columns = load_spec(SPEC).to_pandera().columns
    names = {name: [c.name for c in col.checks] for name, col in columns.items()}
    assert names["status"] == ["isin"] and names["state"] == ["isin"]
    assert names["phone"] == ["str_matches"]
    assert names["signup"] == ["str_matches", "date"]  # the form, then a real date
    assert names["amount"] == ["number"] and names["sku"] == ["shape"]
    assert columns["status"].checks[0].statistics["allowed_values"] == ["active", "pending"]


def test_text_tables_read_numbers_as_text_with_csv_strings():
    pd = optional("pandas")
    optional("pandera")
    spec = load_spec({"fields": {"amount": {"kind": "number"}, "ok": {"kind": "bool"}}})
    frame = pd.DataFrame({"amount": ["12.5", "3"], "ok": ["true", "false"]})
    assert spec.to_pandera(csv_strings=True).validate(frame) is not None
    with pytest.raises(Exception):
        spec.to_pandera().validate(frame)
    with pytest.raises(Exception):
        spec.to_pandera(strict=True).validate(frame.assign(other=1))


def test_without_pandera_the_error_is_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandera", None)  # import pandera: ModuleNotFoundError
    monkeypatch.setitem(sys.modules, "pandera.pandas", None)
    with pytest.raises(
        ModuleNotFoundError,
        match=r"CleaningSpec.to_pandera\(\) needs pandera: pip install "
        r"'recursive-data-cleaner\[pandera\]'",
    ):
        load_spec(SPEC).to_pandera()
