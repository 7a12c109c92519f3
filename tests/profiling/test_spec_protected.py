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
from tests.profiling.test_conversions import lab

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


# ---- "leave everything else alone": every field the goals do not ask for, never one they ask for
STOCK = ["item_no", "colour", "grade", "depot", "remark", "weight", "weight_unit"]
STOCK_DATA = {
    "item_no": ["it-0001", "it-0002", "it-0003", "it-0004", "it-0005", "it-0006"],
    "colour": ["Red", "red ", "BLUE", "Green", "green", "Blue"],
    "grade": ["A", "b", "A ", "C", "B", "a"],
    "depot": ["north", "SOUTH", "North", "east", "West", "south"],
    "remark": ["", "dented", "CHECK", "", "ok", "  recount"],
    "weight": ["12", "5.5", "20", "3", "7.25", "40"],
    "weight_unit": ["kg", "kg", "lb", "kg", "lb", "kg"],
}


@pytest.mark.parametrize(
    "rest",
    [
        "Leave all other fields alone.",
        "Leave every other field exactly as it is.",
        "All other columns unchanged.",
        "Nothing else is ours to edit.",
        "Don't touch anything else.",
        "Please leave the rest.",
    ],
)
def test_leaving_the_rest_protects_every_field_not_asked_for_and_none_asked_for(rest):
    goals = "Grade letters are upper case. Tidy the colours (title case). " + rest
    spec = read_spec(goals, STOCK, STOCK_DATA)
    assert spec.in_scope("grade") and spec.fields["grade"].kind == "upper"
    assert spec.in_scope("colour") and spec.fields["colour"].kind == "title_case"
    assert spec.protected() == {"item_no", "depot", "remark", "weight", "weight_unit"}


def test_a_field_asked_for_by_a_verb_or_an_example_is_never_left_by_the_rest():
    goals = (
        "Tidy the depot names. Item numbers: it-0001 -> IT-0001. The remarks are the drivers' "
        "notes. Everything else stays as it is."
    )
    spec = read_spec(goals, STOCK, STOCK_DATA)
    # asked for: the example binds item_no; "tidy" binds depot to no format (unmet, said so)
    assert spec.fields["depot"].asked and spec.in_scope("item_no") and "depot" in spec.unmet()
    # named without a change asked of them, or not named: left as they are
    assert spec.protected() == {"colour", "grade", "remark", "weight", "weight_unit"}


def test_the_fields_of_a_conversion_are_asked_for():
    goals = (
        "Take the mg/dL number, divide by 18 and put mmol/L as the unit. Nothing else should "
        "be modified."
    )
    spec = read_spec(goals, list(lab()), check=lab())
    assert [(c.value, c.unit) for c in spec.conversions] == [("result", "unit")]
    assert spec.protected() == {"sample_id", "comment"}


def test_a_rest_clause_is_not_read_where_the_goals_ask_for_no_field_or_the_rest_is_changed():
    spec = read_spec("Leave everything else alone.", STOCK, STOCK_DATA)
    assert not spec.protected()
    spec = read_spec("Leave the remarks alone, and tidy everything else.", STOCK, STOCK_DATA)
    assert spec.protected() == {"remark"}


@pytest.mark.parametrize(
    "keep",
    [
        "The colours, grade letters, depot names and remarks are the warehouse's own, so please "
        "keep every one of them exactly as it is.",
        "Colours, grade letters, depot names and remarks stay as they are.",
    ],
)
def test_a_keep_clause_pointing_back_to_a_list_protects_each_field_of_it(keep):
    spec = read_spec("Weights are plain numbers. " + keep, STOCK, STOCK_DATA)
    assert {"colour", "grade", "depot", "remark"} <= spec.protected()
    assert spec.in_scope("weight")


def test_a_clause_naming_another_field_with_examples_only_one_fields_data_holds_names_that_field():
    fields = ["code", "ref", "printed"]
    data = {
        "code": ["ab-10", "AB-11", "cd-20", "AB-12", "CD-21"],
        "ref": ["b100000", "b100001", "q200417", "b100002", "q200001"],  # a9, as "c1998"
        "printed": ["c1980", "1999", "[2001]", "2004", "1987."],
    }
    goals = (
        "the codes should be upper case, and the year column should be just the year "
        "(c1998 or [1998] is 1998). Don't touch anything else."
    )
    spec = read_spec(goals, fields, data)
    assert spec.in_scope("printed") and spec.fields["printed"].examples == (
        ("c1998", "1998"),
        ("[1998]", "1998"),
    )
    assert spec.in_scope("code") and spec.protected() == {"ref"}


@pytest.mark.parametrize(
    "asks",
    [
        "Item numbers: 7 characters, no dashes. Weights: two decimals.",  # formats
        "item_no: upper. weight: kg.",  # a heading of its own
        "Item numbers are 7 characters. Weights have two decimals.",
    ],
)
def test_a_field_given_a_format_the_reader_has_no_kind_for_is_still_asked_for(asks):
    spec = read_spec(asks + " Leave all other fields alone.", STOCK, STOCK_DATA)
    # asked, never left by the rest; written only where a format binds them
    assert spec.fields["item_no"].asked and spec.fields["weight"].asked
    assert spec.protected() == {"colour", "grade", "depot", "remark", "weight_unit"}


def test_a_rest_clause_in_a_headed_block_leaves_the_heading_field_asked():
    spec = read_spec("- grade: one letter, upper case. Leave the rest alone.", STOCK, STOCK_DATA)
    assert spec.in_scope("grade") and spec.fields["grade"].kind == "upper"
    spec = read_spec(
        "Grade: upper case. Depots and remarks are ours; leave them.", STOCK, STOCK_DATA
    )
    assert spec.in_scope("grade") and spec.protected() == {"depot", "remark"}


@pytest.mark.parametrize(
    "asks",
    [
        "- depot ISO",  # a format word the reader reads no kind for
        "- depot without the region",
        "Depots are a mess. We need them in one spelling.",  # the subject of the next clause
    ],
)
def test_a_format_for_a_field_or_a_change_asked_of_the_subject_is_asked_for(asks):
    spec = read_spec(asks + "\nEverything else stays as it is.", STOCK, STOCK_DATA)
    assert spec.fields["depot"].asked and "depot" not in spec.protected()


def test_typos_asked_of_every_field_leave_no_field_to_the_rest():
    spec = read_spec("Fix the typos everywhere. Leave the rest alone.", STOCK, STOCK_DATA)
    assert not spec.protected() and spec.frozen(rows=True) == set()


def test_a_heading_line_that_also_leaves_the_rest_keeps_its_own_fields():
    goals = "- grade / remark: leave as is Leave everything else alone\n- depot: upper case"
    spec = read_spec(goals, STOCK, STOCK_DATA)
    assert {"grade", "remark"} <= spec.protected() and spec.in_scope("depot")


NOTES_FIELDS = ["emp_id", "name", "notes"]
NOTES_SAMPLES = {
    "emp_id": ["000123", "000456", "000789"],
    "name": [" ann", "BOB ", "cy"],
    "notes": ["  see file ", "ok", "late  start"],
}


@pytest.mark.parametrize(
    "goals",
    [
        "Trim the names. notes is free text and passes through unmodified, whitespace included.",
        "Trim the names. The notes go through verbatim.",
        "Trim the names. Notes: byte-for-byte, whitespace included.",
        "Trim the names.\n\n## Fields passed through byte-for-byte\n\n- `notes` - free text, "
        "whitespace included.\n- `emp_id` - leading zeros matter.\n",
    ],
)
def test_words_that_say_a_value_comes_out_identical_keep_it_whatever_the_verb(goals):
    spec = read_spec(goals, NOTES_FIELDS, NOTES_SAMPLES, scope="mentioned")
    assert spec.fields["notes"].kind == "as_is" and not spec.in_scope("notes")
    assert spec.in_scope("name")
    if "##" in goals:  # the bullets under a keep heading, a blank line between
        assert spec.fields["emp_id"].kind == "as_is"
