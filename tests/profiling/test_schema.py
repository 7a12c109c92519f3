"""Tests for recursive_cleaner.profiling.schema: inference from records and files, and the prompt
text."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recursive_cleaner.profiling.schema import (
    MAX_PROMPT_FIELDS,
    empty_schema,
    format_schema_for_prompt,
    infer_schema,
    infer_schema_from_records,
)

CASES = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "test_cases"
)


def test_example_from_the_spec():
    schema = infer_schema_from_records([{"name": "Alice", "age": 30}, {"name": "bob", "age": None}])
    assert schema == {
        "fields": ["name", "age"],
        "types": {"name": "str", "age": "int"},
        "samples": {"name": ["Alice", "bob"], "age": [30, None]},
        "nullable": {"name": False, "age": True},
        "hints": {},
    }
    expected = 'Fields detected:\n- name (str): "Alice", "bob"\n- age (int, nullable): 30, null'
    assert format_schema_for_prompt(schema) == expected


def test_types_order_and_nullability():
    records = [
        {"a": 1, "b": "x", "c": True, "d": [1], "e": {"k": 1}, "f": None},
        {"a": 2.5, "b": 3, "c": False, "g": "late"},
        {"a": 4, "b": "y", "c": True, "d": [1], "e": {"k": 1}, "f": None},
    ]
    schema = infer_schema_from_records(records)
    assert schema["fields"] == ["a", "b", "c", "d", "e", "f", "g"]
    assert schema["types"] == {
        "a": "float",
        "b": "mixed",
        "c": "bool",
        "d": "list",
        "e": "dict",
        "f": "null",
        "g": "str",
    }
    assert schema["nullable"] == {
        "a": False,
        "b": False,
        "c": False,
        "d": True,
        "e": True,
        "f": True,
        "g": True,
    }
    # distinct, unhashable ok
    assert schema["samples"]["d"] == [[1]] and schema["samples"]["e"] == [{"k": 1}]
    assert schema["samples"]["a"] == [1, 2.5, 4]


def test_samples_are_distinct_and_at_most_three():
    records = [{"s": v} for v in ["a", "a", "b", "a", "c", "d", "e"]]
    assert infer_schema_from_records(records)["samples"]["s"] == ["a", "b", "c"]
    assert infer_schema_from_records([{"n": 1}, {"n": 1.0}, {"n": True}])["samples"]["n"] == [
        1,
        1.0,
        True,
    ]


def test_numeric_looking_hint_for_strings():
    records = [
        {"zip": "02134", "price": "1,234.50", "neg": "-3.5", "money": "$5", "blank": ""},
        {"zip": "10001", "price": "12", "neg": ".5", "money": "7", "blank": "  "},
    ]
    schema = infer_schema_from_records(records)
    assert schema["hints"] == {
        "zip": "numeric-looking",
        "price": "numeric-looking",
        "neg": "numeric-looking",
    }
    assert "- zip (str, numeric-looking): " in format_schema_for_prompt(schema)


def test_empty_and_non_dict_input():
    assert infer_schema_from_records([]) == empty_schema()
    assert infer_schema_from_records(["text", 3, None]) == empty_schema()  # type: ignore[list-item]
    assert format_schema_for_prompt(empty_schema()) == ""
    assert format_schema_for_prompt({}) == ""


def test_prompt_truncates_long_values_and_escapes_newlines():
    schema = infer_schema_from_records(
        [{"note": "x" * 100}, {"note": "line1\nline2"}, {"note": {"deep": "y" * 80}}]
    )
    line = format_schema_for_prompt(schema).splitlines()[1]
    assert line.startswith("- note (mixed): ")
    samples = line[len("- note (mixed): ") :].split(", ")
    assert samples[0] == '"' + "x" * 38 + "…" and len(samples[0]) == 40
    assert samples[1] == '"line1\\nline2"'
    assert len(samples[2]) == 40 and samples[2].endswith("…")


def test_prompt_caps_the_number_of_fields():
    schema = infer_schema_from_records([{f"f{i}": i for i in range(MAX_PROMPT_FIELDS + 5)}])
    lines = format_schema_for_prompt(schema).splitlines()
    assert len(lines) == 1 + MAX_PROMPT_FIELDS + 1 and lines[-1] == "- ... and 5 more fields"


def test_field_without_samples_renders():
    schema = {
        "fields": ["x"],
        "types": {"x": "null"},
        "samples": {"x": []},
        "nullable": {"x": True},
    }
    assert format_schema_for_prompt(schema) == "Fields detected:\n- x (null, nullable): (no values)"


# ---------------------------------------------------------------------------- files
def test_infer_schema_crm_jsonl():
    schema = infer_schema(os.path.join(CASES, "crm_customers.jsonl"))
    assert schema["fields"] == [
        "customer_id",
        "name",
        "email",
        "phone",
        "status",
        "signup_date",
        "country",
        "amount",
    ]
    assert schema["types"]["name"] == "str" and schema["types"]["customer_id"] in (
        "mixed",
        "int",
        "str",
    )
    assert all(len(v) <= 3 for v in schema["samples"].values())
    text = format_schema_for_prompt(schema)
    assert text.startswith("Fields detected:\n- customer_id (") and len(text) < 1500


def test_infer_schema_csv_all_strings():
    schema = infer_schema(os.path.join(CASES, "ecommerce_products.csv"), sample_size=20)
    assert schema["fields"] == ["sku", "name", "category", "price", "stock", "description"]
    assert set(schema["types"].values()) == {"str"}
    assert not any(schema["nullable"].values())


def test_infer_schema_json_nested():
    schema = infer_schema(os.path.join(CASES, "healthcare_patients.json"), sample_size=50)
    assert schema["types"]["contact"] == "dict"
    assert schema["nullable"]["allergies"] is True  # missing or null in some records


def test_infer_schema_uses_only_the_first_records(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(
        "".join(json.dumps({"a": i}) + "\n" for i in range(10)) + '{"a": 10, "late": 1}\n'
    )
    assert infer_schema(str(path), sample_size=10)["fields"] == ["a"]
    assert infer_schema(str(path), sample_size=11)["fields"] == ["a", "late"]
    assert infer_schema(str(path), sample_size=0) == empty_schema()
    with pytest.raises(ValueError):
        infer_schema(str(path), sample_size=-1)


def test_infer_schema_text_and_broken_files():
    assert infer_schema(os.path.join(CASES, "notes.txt")) == empty_schema()
    assert infer_schema(os.path.join(CASES, "crm_customers.jsonl"), fmt="text") == empty_schema()
    schema = infer_schema(os.path.join(CASES, "broken_lines.jsonl"), sample_size=30)
    assert schema["fields"] == ["id", "name", "email", "score"]
    assert schema["types"]["score"] == "mixed" and schema["nullable"]["score"] is True


# ---------------------------------------------------------------------------- properties
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=60),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=5,
)


@settings(max_examples=150, deadline=None)
@given(
    records=st.lists(st.dictionaries(st.sampled_from("abcdefg"), VALUES, max_size=5), max_size=12)
)
def test_schema_properties(records):
    schema = infer_schema_from_records(records)
    keys: list[str] = []
    for r in records:
        keys += [k for k in r if k not in keys]
    assert schema["fields"] == keys
    for k in keys:
        assert schema["nullable"][k] == any(r.get(k) is None for r in records)
        assert 1 <= len(schema["samples"][k]) <= 3
        assert schema["types"][k] in {
            "str",
            "int",
            "float",
            "bool",
            "list",
            "dict",
            "null",
            "mixed",
        }
    text = format_schema_for_prompt(schema)
    assert (text == "") == (not keys)
    assert all(len(line) < 200 for line in text.splitlines())
