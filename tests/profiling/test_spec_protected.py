"""The spec's protection of fields and values: as_is fields, identity examples, ``examples`` in
cleaning_spec.json."""

from __future__ import annotations

import json

import pytest

from recursive_cleaner.profiling.spec import (
    CleaningSpec,
    FieldSpec,
    goal_examples,
    load_spec,
    read_spec,
)

FIELDS = ["order_id", "email", "postcode", "country", "currency", "price"]
SAMPLES = {
    "order_id": ["A1", "A2", "A3", "A4", "A5", "A6"],
    "email": ["a@x.com", "b@x.com", "c@x.com", "d@x.com", "e@x.com", "f@x.com"],
    # digits only: the data "looks like" numbers
    "postcode": ["01907", "12345", "02134", "99999", "00501", "10115"],
    "country": ["DE", "Germany", "FR", "fr", "IT", "IT"],
    "currency": ["EUR", "EUR", "USD", "EUR", "GBP", "EUR"],
    "price": ["14.90", "7", "3,50", "12.00", "7.0", "2.5"],
}


@pytest.mark.parametrize(
    "goals",
    [
        "Leave the postcodes alone: they are text, not numbers.",
        "Postcodes are not numbers, so don't touch the postcodes.",
        "Keep the postcode as it is, it is a code and not a number. Prices are plain numbers.",
    ],
)
def test_a_field_named_inside_leave_alone_is_as_is_whatever_else_the_goals_say(goals):
    spec = read_spec(goals, FIELDS, SAMPLES, scope="mentioned")
    assert spec.fields["postcode"].kind == "as_is"
    assert "postcode" in spec.frozen() and "postcode" in spec.protected()
    assert not spec.in_scope("postcode")  # mentioned, and still never written


def test_leave_alone_with_an_exception_does_not_override_the_asked_format():
    spec = read_spec(
        "Treat postcodes as numbers. Don't touch the postcode otherwise.", FIELDS, SAMPLES
    )
    assert spec.fields["postcode"].kind == "number" and "postcode" not in spec.protected()


def test_a_data_kind_never_overrides_an_as_is_reading_in_either_scope():
    goals = "Leave the postcodes alone. Prices are plain numbers."
    for scope in ("mentioned", "all"):
        spec = read_spec(goals, FIELDS, SAMPLES, scope=scope)
        assert spec.fields["postcode"].kind == "as_is" and "postcode" in spec.protected()
    # the model's draft neither
    drafted = read_spec(goals, FIELDS, SAMPLES, draft={"postcode": ("integer", ())})
    assert drafted.fields["postcode"].kind == "as_is"


def test_protected_is_as_is_only_while_frozen_also_holds_fields_not_mentioned():
    spec = read_spec("Leave the currency alone. Prices are plain numbers.", FIELDS, SAMPLES)
    assert spec.protected() == {"currency"}
    assert {"currency", "postcode", "email"} <= spec.frozen()


def test_an_identity_example_beside_a_field_is_kept_with_its_shape():
    spec = read_spec(
        "Leave the postcodes alone: a postcode like 01907 stays 01907.", FIELDS, SAMPLES
    )
    assert spec.fields["postcode"].examples == (("01907", "01907"),)
    assert spec.kept() == {"postcode": frozenset({"9"})}


@pytest.mark.parametrize(
    "text, expected",
    [
        ('A postcode like "01907" -> "01907".', {"postcode": (("01907", "01907"),)}),
        (
            "price: 14,90 → 14.90, and 3.50 stays 3.50!",
            {"price": (("14,90", "14.90"), ("3.50", "3.50"))},
        ),
        ("Write the country as a code: Germany => DE.", {"country": (("Germany", "DE"),)}),
        ("- order_id -> text", {}),  # a heading that names a field is not an example
        (
            "The postcode and the price: 01907 -> 01907",
            {},
        ),  # two fields named: whose example is it?
        ('"Not Available" -> empty', {}),  # no field named
        ("the price 3 stays 4", {}),  # "stays" pairs only keep a value
    ],
)
def test_goal_examples_reads_arrow_and_stays_pairs_beside_one_field(text, expected):
    assert goal_examples(text, FIELDS) == expected


def test_goal_examples_needs_the_fields_data_to_hold_the_inputs_shape():
    text = "A postcode like 01907 stays 01907."
    assert goal_examples(text, FIELDS, {"postcode": ["AB-12", "CD-34"]}) == {}
    assert goal_examples(text, FIELDS, {"postcode": ["12345", "CD-34"]}) == {
        "postcode": (("01907", "01907"),)
    }


def test_examples_are_saved_in_the_spec_file_and_loaded_back(tmp_path):
    spec = CleaningSpec(
        fields={
            "postcode": FieldSpec("as_is", mentioned=True, examples=(("01907", "01907"),)),
            "price": FieldSpec("number", mentioned=True),
        }
    )
    data = json.loads(spec.to_json())
    assert data["fields"]["postcode"]["examples"] == [["01907", "01907"]]
    assert "examples" not in data["fields"]["price"]
    path = tmp_path / "cleaning_spec.json"
    path.write_text(spec.to_json())
    back = load_spec(str(path))
    assert back.fields["postcode"].examples == (("01907", "01907"),) and back.kept() == {
        "postcode": frozenset({"9"})
    }
    assert any("examples '01907' -> '01907'" in line for line in back.summary())


def test_a_user_edited_example_protects_values_and_a_spec_without_examples_still_loads():
    edited = load_spec(
        {
            "fields": {
                "zip": {"kind": "integer", "examples": [["01907", "01907"], [7, "7"]]},
                "city": {"kind": "lower"},
            }
        }
    )
    assert edited.fields["zip"].examples == (("01907", "01907"), ("7", "7"))
    assert edited.kept() == {"zip": frozenset({"9"})}
    assert edited.fields["city"].examples == ()


@pytest.mark.parametrize(
    "bad", ["01907", [["01907"]], [["a", "b", "c"]], [[None, "x"]], [[True, "x"]]]
)
def test_examples_that_are_not_pairs_are_refused_naming_the_field(bad):
    with pytest.raises(ValueError, match="'zip'"):
        load_spec({"fields": {"zip": {"kind": "integer", "examples": bad}}})
