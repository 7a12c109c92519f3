"""Stated keys are spec entries (issue 29, point 5): read with the fields stated with them, saved in
cleaning_spec.json, loaded back and editable; the focus's suggestions read the spec and the data,
not the goals."""

from __future__ import annotations

import json

import pytest

from recursive_cleaner.profiling.focus import FieldFocus
from recursive_cleaner.profiling.row_rules import stated_fields, stated_keys
from recursive_cleaner.profiling.spec import CleaningSpec, FieldSpec, load_spec, read_spec

FIELDS = ["sku", "prod_nm", "price", "warehouse", "qty"]


def test_a_stated_key_is_a_spec_entry_with_its_fields_and_words():
    goals = (
        "Mend misspelled product names with the spelling most lines of the same SKU have. Prices "
        "are numbers."
    )
    spec = read_spec(goals, FIELDS)
    # prod_nm: "product names"
    assert spec.keys == ["sku"] and spec.stated() == {"sku": ["prod_nm"]}
    assert spec.to_dict()["keys"] == [
        {
            "key": "sku",
            "fields": ["prod_nm"],
            "words": "Mend misspelled product names with the spelling most lines of "
            "the same SKU have.",
        }
    ]
    assert "rows with the same sku agree on prod_nm (a stated key)" in spec.summary()


def test_keys_round_trip_and_old_lists_of_names_still_load(tmp_path):
    spec = CleaningSpec(
        fields={"sku": FieldSpec(), "qty": FieldSpec("integer", mentioned=True)},
        keys=["sku"],
        key_fields={"sku": ["qty"]},
        key_words={"sku": "the same SKU has the same quantity"},
    )
    path = tmp_path / "cleaning_spec.json"
    path.write_text(spec.to_json())
    back = load_spec(str(path))
    assert (back.keys, back.stated(), back.key_words) == (["sku"], {"sku": ["qty"]}, spec.key_words)
    # a spec written before keys had fields
    old = load_spec({"fields": {}, "keys": ["sku", "warehouse"]})
    # no fields named: every field agrees with the key
    assert old.stated() == {"sku": [], "warehouse": []}


@pytest.mark.parametrize(
    "keys, message",
    [
        ([{"fields": ["qty"]}], "a stated key must be"),
        ([{"key": "sku", "fields": "qty"}], "a stated key must be"),
        ([["sku"]], "keys must be a list"),
        ("sku", "keys must be a list"),
    ],
)
def test_a_malformed_key_entry_is_refused_naming_it(keys, message):
    with pytest.raises(ValueError, match=message):
        load_spec({"fields": {}, "keys": keys})


def test_each_key_gets_the_fields_of_its_own_clause():
    goals = (
        "The same provider number always has the same name and city, and a measure code always "
        "goes with the "
        "same condition."
    )
    fields = ["provider_number", "name", "city", "measure_code", "condition"]
    assert stated_fields(goals, fields) == {
        "provider_number": ["name", "city"],
        "measure_code": ["condition"],
    }


def test_a_field_the_same_sentence_leaves_alone_is_not_stated_with_the_key():
    goals = "Rows of the same sku agree on the price, but leave the warehouse as it is."
    assert stated_fields(goals, FIELDS) == {"sku": ["price"]}


def test_a_key_is_found_by_its_abbreviation():
    assert stated_keys("Every row of the same quantity has the same price.", FIELDS) == ["qty"]


def test_the_suggestions_for_fields_out_of_scope_come_from_the_spec_and_the_data_not_the_goals():
    samples = {
        "email": ["A@X.COM", "b@x.com", "c@x.com"],
        "phone": ["555-0100", "555 0101", "5550102"],
        "note": ["hi", "yo", "ok"],
    }
    focus = FieldFocus()
    focus.learn(
        "Write the phone numbers in E.164.",
        list(samples),
        samples,
        spec={
            "fields": {
                "email": {"kind": None, "mentioned": False},
                "phone": {"kind": "as_is"},
                "note": {"kind": None, "mentioned": False},
            }
        },
    )
    # the goals' E.164 is not read again
    assert focus.protected == {"phone"} and "phone" not in focus.suggested
    assert set(focus.suggested) == {"email"}


def test_the_spec_file_keeps_the_keys_readable():
    spec = read_spec("For each sku, all rows share the same warehouse.", FIELDS)
    data = json.loads(spec.to_json())
    assert data["keys"] == [
        {
            "key": "sku",
            "fields": ["warehouse"],
            "words": "For each sku, all rows share the same warehouse.",
        }
    ]
