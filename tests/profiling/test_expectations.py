"""Rule-based expectations from plain-language instructions (no model)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from recursive_cleaner.profiling.expectations import (
    KIND_PRIMITIVES,
    KINDS,
    Expectation,
    conforms,
    expectation_from_values,
    loose_kind,
)
from recursive_cleaner.profiling.instructions import infer_expectations

HERE = os.path.dirname(os.path.abspath(__file__))
CRM_FIELDS = ["customer_id", "name", "email", "phone", "status", "signup_date", "country", "amount"]

# Paragraphs a user might write for the benchmark tables (written by hand from the column names
# and the dirty values, not from any ground truth).
HOSPITAL_FIELDS = [
    "index",
    "provider_number",
    "name",
    "address_1",
    "address_2",
    "address_3",
    "city",
    "state",
    "zip",
    "county",
    "phone",
    "type",
    "owner",
    "emergency_service",
    "condition",
    "measure_code",
    "measure_name",
    "score",
    "sample",
    "state_average",
]
HOSPITAL = """This is a list of US hospitals with their quality measures, one row per hospital and \
measure.
The provider_number, zip and phone columns hold digits only. City, county and address_1 are lower \
case.
State must be a two-letter state code in lower case, like al. emergency_service must be yes or no.
The score is a percentage like 97%, and sample is a count of patients such as "25 patients".
measure_code is lower case, e.g. ami-2, and measure_name is the lower-case description of the \
measure.
Fix letters that were replaced by x in the names."""

BEERS_FIELDS = [
    "index",
    "id",
    "beer_name",
    "style",
    "ounces",
    "abv",
    "ibu",
    "brewery_id",
    "brewery_name",
    "city",
    "state",
]
BEERS = """Each row is a canned beer from a US craft brewery.
ounces should be a plain number without units (12.0 oz -> 12). abv is a decimal fraction, not a \
percent string.
ibu is a whole number; leave it empty when unknown.
City names are in Title Case and state is the two-letter state code in upper case.
id and brewery_id are integers."""

FLIGHTS_FIELDS = [
    "tuple_id",
    "src",
    "flight",
    "sched_dep_time",
    "act_dep_time",
    "sched_arr_time",
    "act_arr_time",
]
FLIGHTS = """Flight status reports collected from several websites.
sched_dep_time, act_dep_time, sched_arr_time and act_arr_time are times of day; write them as \
24-hour HH:MM
(7:10 p.m. -> 19:10). The flight code looks like AA-3859-IAH-ORD and src is the lower-case name of \
the website."""


def kinds(result: dict[str, Expectation]) -> dict[str, str]:
    return {field: exp.kind for field, exp in result.items()}


def test_kinds_and_primitives_are_complete():
    assert set(KIND_PRIMITIVES) == set(KINDS)
    exp = Expectation("date")
    with pytest.raises(dataclasses.FrozenInstanceError):
        exp.kind = "time"  # type: ignore[misc]


def test_crm_instructions():
    with open(
        os.path.join(HERE, "..", "..", "test_cases", "crm_instructions.txt"), encoding="utf-8"
    ) as f:
        result = infer_expectations(f.read(), CRM_FIELDS)
    assert kinds(result) == {
        "customer_id": "integer",
        "name": "title_case",
        "email": "email",
        "phone": "phone_e164",
        "status": "enum",
        "signup_date": "date",
        "country": "country_alpha2",
        "amount": "number",
    }
    assert result["status"].allowed == ("active", "pending", "churned")
    assert all(exp.source == "instructions" for exp in result.values())
    assert {f: e.primitive for f, e in result.items()} == {
        "customer_id": "to_int",
        "name": "title_case_name",
        "email": "normalize_email",
        "phone": "to_e164",
        "status": "closest_value",
        "signup_date": "to_iso_date",
        "country": "to_country_code",
        "amount": "to_number",
    }


def test_hospital_paragraph():
    result = infer_expectations(HOSPITAL, HOSPITAL_FIELDS)
    assert kinds(result) == {
        "provider_number": "integer",
        "zip": "integer",
        "phone": "integer",
        "city": "lower",
        "county": "lower",
        "address_1": "lower",
        "state": "us_state",
        "emergency_service": "enum",
        "measure_code": "lower",
        "measure_name": "lower",
    }
    assert result["state"].allowed == ("lower",)
    assert result["emergency_service"].allowed == ("yes", "no")
    # said nothing checkable about these: no entry, the profiler uses the data's own shape
    for field in ("name", "score", "sample", "type", "state_average", "address_2"):
        assert field not in result


def test_beers_paragraph():
    result = infer_expectations(BEERS, BEERS_FIELDS)
    assert kinds(result) == {
        "ounces": "number",
        "abv": "number",
        "ibu": "integer",
        "city": "title_case",
        "state": "us_state",
        "id": "integer",
        "brewery_id": "integer",
    }
    assert result["state"].allowed == ()


def test_flights_paragraph_and_generic_times():
    result = infer_expectations(FLIGHTS, FLIGHTS_FIELDS)
    times = ["sched_dep_time", "act_dep_time", "sched_arr_time", "act_arr_time"]
    # "a.m."/"p.m." is the target; the paragraph's "24-hour times like 20:00" are inputs to convert
    assert kinds(result) == {**{t: "time12" for t in times}, "src": "lower"}
    assert all(result[t].primitive == "to_time_12h" for t in times)
    generic = infer_expectations("All times must be in 24-hour format.", FLIGHTS_FIELDS)
    assert kinds(generic) == {t: "time" for t in times}


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "Use E.164 for phone and lower case for email.",
            {"phone": "phone_e164", "email": "email"},
        ),
        (
            "Phone numbers must be E.164; e-mail addresses in lower case.",
            {"phone": "phone_e164", "email": "email"},
        ),
        ("The telephone must be E.164.", {"phone": "phone_e164"}),
        ("Customer ID is a whole number.", {"customer_id": "integer"}),
        ("Dates must be ISO 8601 (YYYY-MM-DD).", {"signup_date": "date"}),
        ("signup date: YYYY-MM-DD", {"signup_date": "date"}),
        ("The name column must be in Title Case.", {"name": "title_case"}),
        ("country: two-letter country code, e.g. US.", {"country": "country_alpha2"}),
        ("country: 2-letter code", {"country": "country_alpha2"}),
        ("The amount must be a number, not text like '$1,200'.", {"amount": "number"}),
        ("The amount column holds prices. It must be numeric.", {"amount": "number"}),
    ],
)
def test_field_mentions_and_keywords(text, expected):
    result = infer_expectations(text, CRM_FIELDS)
    assert {f: result[f].kind for f in expected} == expected
    assert all(result[f].source == "instructions" for f in expected)


def test_mentions_inside_longer_names_do_not_count():
    result = infer_expectations(
        "measure_name is lower case. state_average is upper case.",
        ["name", "measure_name", "state", "state_average"],
    )
    assert kinds(result) == {"measure_name": "lower", "state_average": "upper"}


def test_date_versus_datetime():
    fields = ["created_at", "birth_date", "signup_date"]
    result = infer_expectations(
        "created_at: ISO 8601 timestamps.\nsignup_date: ISO 8601; timestamps occur "
        "(keep only the date).",
        fields,
    )
    assert result["created_at"].kind == "datetime"
    assert result["signup_date"].kind == "date"
    assert result["birth_date"] == Expectation("date", (), "field name", "to_iso_date")
    assert infer_expectations("when: YYYY-MM-DD HH:MM", ["when"])["when"].kind == "datetime"


@pytest.mark.parametrize(
    "text, field, allowed",
    [
        (
            'status: exactly one of "active", "pending" or "churned" (lower case).',
            "status",
            ("active", "pending", "churned"),
        ),
        ("- status (valid: open, closed, on hold)", "status", ("open", "closed", "on hold")),
        ("- priority: 'low', 'medium' or 'high'", "priority", ("low", "medium", "high")),
        ("gender should be M or F", "gender", ("M", "F")),
        ("emergency_service must be yes or no.", "emergency_service", ("yes", "no")),
        (
            "condition is one of: heart attack, heart failure, pneumonia",
            "condition",
            ("heart attack", "heart failure", "pneumonia"),
        ),
    ],
)
def test_enumerations(text, field, allowed):
    exp = infer_expectations(text, [field])[field]
    assert exp.kind == "enum" and exp.allowed == allowed and exp.primitive == "closest_value"


def test_must_be_a_format_is_not_an_enumeration():
    assert (
        infer_expectations("amount must be a number or empty", ["amount"])["amount"].kind
        == "number"
    )
    assert infer_expectations("is_active: true/false", ["is_active"])["is_active"].kind == "bool"


def test_heading_block_sentence_about_another_field():
    result = infer_expectations(
        "is_active: true/false. category must be one of Books, Toys, Games.",
        ["is_active", "category"],
    )
    assert result["is_active"].kind == "bool"
    assert result["category"].allowed == ("Books", "Toys", "Games")


def test_all_fields():
    result = infer_expectations(
        "Trim whitespace in all fields. amount must be numeric.", ["name", "amount"]
    )
    assert kinds(result) == {"name": "text", "amount": "number"}


def test_pronoun_follows_previous_clause():
    result = infer_expectations(
        "The score column holds percentages. It must be numeric.", ["score", "name"]
    )
    assert kinds(result) == {"score": "number"}


def test_name_fallback_only_when_instructions_are_silent():
    fields = ["email", "phone", "signup_date", "updated_at", "notes"]
    result = infer_expectations("", fields)
    assert kinds(result) == {
        "email": "email",
        "phone": "phone_e164",
        "signup_date": "date",
        "updated_at": "datetime",
    }
    assert all(e.source == "field name" for e in result.values())
    # the instructions contradict the name: no fallback
    assert infer_expectations("Keep phones as they are.", ["phone"])["phone"].kind == "as_is"
    # "10 digits" is the goals' own format (a shape of ten digits), not the name's E.164
    ten = infer_expectations("phone: 10 digits like 5551234567", ["phone"])["phone"]
    assert (ten.kind, ten.allowed, ten.source) == ("shape", ("9999999999",), "instructions")
    assert "dob" not in infer_expectations("dob: dates as MM/DD/YYYY please", ["dob"])
    # an explicit statement wins over the name
    assert infer_expectations("email: Title Case", ["email"])["email"].kind == "title_case"


def test_samples_veto_name_fallback_and_give_data_expectations():
    samples = {
        "created_at": [1700000000, 1700000100, 1700000200],
        "updated_at": ["2023-01-01", "2023-01-02", "2023-01-03"],
        "joined": ["2023-01-01", "4/5/2023", "April 5, 2023"],
        "label": ["a", "b", "c"],
    }
    result = infer_expectations("", list(samples), samples)
    assert "created_at" not in result  # epoch numbers contradict the name
    assert result["updated_at"] == Expectation("date", (), "field name", "to_iso_date")
    assert result["joined"] == Expectation("date", (), "data", "to_iso_date")
    assert "label" not in result


def test_loose_kind_and_expectation_from_values():
    assert (
        loose_kind(["2023-04-05", "4/5/2023", "April 5, 2023", "5 Apr 2023", "20230405"]) == "date"
    )
    assert loose_kind(["2023-04-05T14:30:00Z", "2023-04-06 10:00"]) == "datetime"
    assert loose_kind(["7:10 a.m.", "10:40 p.m."]) == "time"
    assert loose_kind(["(555) 123-4567", "555.123.4567"]) == "phone_e164"
    assert loose_kind(["$1,234.50", "12 oz", "7"]) == "number"
    assert loose_kind(["Alice", "Bob"]) is None
    # canonical form present in >= 10% of the values -> expectation from data
    assert expectation_from_values(["2023-04-05", "4/5/2023", "5 Apr 2023"]).kind == "date"
    # a tiny canonical minority does not beat the data's own convention
    assert expectation_from_values(["7:10 a.m."] * 30 + ["19:10"]) is None
    assert expectation_from_values(["1.5", "2", "3 oz"], csv_strings=True).kind == "number"


def test_twelve_hour_times_win_over_a_mention_of_24_hour_inputs():
    text = (
        'Write all times in one format: hour without a leading zero, a space and "a.m." or "p.m.", '
        'e.g. "7:10 a.m."; convert 24-hour times like "20:00".'
    )
    result = infer_expectations(text, ["dep_time", "arr_time", "flight"], None)
    assert {f: e.kind for f, e in result.items()} == {"dep_time": "time12", "arr_time": "time12"}
    assert result["dep_time"].primitive == "to_time_12h"
    assert conforms("7:10 a.m.", result["dep_time"]) and not conforms("07:10", result["dep_time"])


@pytest.mark.parametrize(
    "text",
    [
        '- ounces: just the number, no trailing ".0"',
        "- ounces: a number without .0",
        "- ounces: plain numbers; drop the .0 of whole values",
    ],
)
def test_no_trailing_zero_fraction_asks_for_whole_numbers_as_int(text):
    exp = infer_expectations(text, ["ounces", "abv"])["ounces"]
    assert (exp.kind, exp.allowed) == ("number", ("whole_as_int",))
    assert "12, not 12.0" in exp.describe(csv_strings=True)
    for right in (12, "12", 16.9, "16.9", None, ""):
        assert conforms(right, exp, csv_strings=True), right
    for wrong in (12.0, "12.0", "12.00", "12.0 oz"):
        assert not conforms(wrong, exp, csv_strings=True), wrong
    plain = infer_expectations("- ounces: plain numbers", ["ounces"])["ounces"]
    assert (
        plain.allowed == () and conforms(12.0, plain) and conforms("12.0", plain, csv_strings=True)
    )


def test_fields_the_goals_leave_as_they_are_have_nothing_to_fix():
    goals = "ounces: just the number. Leave beer_name, style and brewery_name as they are."
    result = infer_expectations(goals, ["beer_name", "style", "ounces", "brewery_name"])
    assert kinds(result) == {
        "beer_name": "as_is",
        "style": "as_is",
        "ounces": "number",
        "brewery_name": "as_is",
    }
    from recursive_cleaner.profiling.profiler import profile_records

    prof = profile_records(
        [
            {"brewery_name": n}
            for n in (
                "Against the Grain Brewery",
                "Against The Grain Brewery",
                "Against the Grain Brewery",
                " odd  spacing ",
            )
        ],
        result,
    )
    # no "same value spelled differently": the user said leave it
    assert prof["brewery_name"].issue is None


def test_a_format_that_is_only_part_of_the_value_is_not_the_fields_format():
    goals = (
        'state is a two-letter state code such as "al", and state_average is the state code, an '
        "underscore "
        'and the measure code, e.g. "al_scip-inf-1".'
    )
    result = infer_expectations(goals, ["state", "state_average"])
    assert (
        result["state"].kind == "us_state"
        and result.get("state_average", Expectation("x")).kind != "us_state"
    )


def test_a_number_with_floating_point_noise_does_not_conform():
    number = Expectation("number")
    assert not conforms("0.052000000000000005", number, csv_strings=True)
    assert not conforms(0.1 + 0.2, number)
    assert conforms("0.052", number, csv_strings=True) and conforms(0.3, number)
    # 17 meant digits are not noise
    assert conforms("0.12345678901234568", number, csv_strings=True)
