"""The rule reader's clauses: each field keeps its own part of a sentence; the data ties a clause to
a field."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.goal_text import detect_kinds, goal_clauses
from recursive_cleaner.profiling.instructions import read_goals
from recursive_cleaner.profiling.mentions import FieldMentions
from recursive_cleaner.profiling.spec import read_spec

FIELDS = [
    "signup_date",
    "phone",
    "status",
    "tier",
    "country",
    "currency",
    "email",
    "name",
    "amount",
]


def kinds(goals: str, fields=FIELDS, samples=None) -> dict:
    spec = read_spec(goals, fields, samples)
    return {f: (s.kind, s.allowed) for f, s in spec.fields.items() if s.mentioned}


@pytest.mark.parametrize(
    "goals, expected",
    [
        (
            "Write dates as YYYY-MM-DD and phone numbers in E.164.",
            {"signup_date": ("date", ()), "phone": ("phone_e164", ())},
        ),
        (
            "The phone should be E.164 and the signup date ISO 8601.",
            {"signup_date": ("date", ()), "phone": ("phone_e164", ())},
        ),
        # the list stops at the tier
        (
            "Status is one of active, pending or churned and the tier is gold or silver.",
            {"status": ("enum", ("active", "pending", "churned")), "tier": (None, ())},
        ),
        (
            "Status must be active or inactive, and the country a two-letter code.",
            {"status": ("enum", ("active", "inactive")), "country": ("country_alpha2", ())},
        ),
        (
            "Convert the amount to a number, the signup date to YYYY-MM-DD and the status to one "
            "of active, pending or "
            "churned.",
            {
                "amount": ("number", ()),
                "signup_date": ("date", ()),
                "status": ("enum", ("active", "pending", "churned")),
            },
        ),
        (
            "Use ISO dates for the signup date and E.164 for the phone.",
            {"signup_date": ("date", ()), "phone": ("phone_e164", ())},
        ),
    ],
)
def test_a_sentence_naming_two_fields_gives_each_only_its_own_reading(goals, expected):
    assert kinds(goals) == expected


def test_a_format_word_between_no_two_fields_does_not_cut_the_sentence():
    fields = ["zip", "phone", "provider_number", "state"]
    spec = read_spec("Leave the zip code, phone number and provider number alone.", fields)
    assert spec.protected() == {"zip", "phone", "provider_number"}
    times = ["sched_dep_time", "act_dep_time", "flight"]
    spec = read_spec(
        "Put all times (scheduled and actual departure) in the form 7:10 a.m. For any given flight "
        "the "
        "times agree.",
        times,
    )
    assert spec.fields["sched_dep_time"].kind == "time12" and spec.fields["flight"].kind is None


def test_an_enumeration_none_of_the_fields_values_is_is_dropped_by_the_data():
    samples = {
        "status": ["Active", "actve", "pending", "churned", "PENDING", "active"],
        "tier": ["gold", "silver", "bronze", "Gold", "silver", "bronze"],
    }
    spec = read_spec(
        "Fix the tier. It must be one of active, pending or churned.", ["status", "tier"], samples
    )
    assert (
        spec.fields["tier"].kind is None
        and "none of 6 sample values fits" in spec.fields["tier"].note
    )
    spec = read_spec("Status is one of active, pending or churned.", ["status", "tier"], samples)
    assert spec.fields["status"].allowed == ("active", "pending", "churned")


DATA = {
    "vendor": ["ACME Corp", "Globex", "Initech", "12"],
    "city": ["Berlin", "Paris", "12"],
    "code": ["A1", "B2"],
}


@pytest.mark.parametrize(
    "text, field",
    [
        ('Write "ACME Corp" and the like in upper case.', "vendor"),
        ("Values like Berlin should be upper case.", "city"),
        ("B2 -> b2, all in lower case.", "code"),
    ],
)
def test_a_value_found_in_one_fields_data_links_the_clause_to_that_field(text, field):
    assert FieldMentions(list(DATA), DATA).by_data(text)[2] == {field}


@pytest.mark.parametrize(
    "text",
    [
        "Numbers like 12 are fine.",  # a value several fields hold
        'Typos like "Globex" and "Paris" must go.',  # values of several fields: a rule about many
        "Nothing quoted here.",
    ],
)
def test_no_data_link_for_values_of_several_fields_or_none(text):
    assert FieldMentions(list(DATA), DATA).by_data(text) is None


def test_the_data_link_gives_a_clause_that_names_no_field_its_field():
    readings = read_goals(
        'Company names such as "ACME Corp" must be upper case.', list(DATA), data=DATA
    )
    assert readings["vendor"].expectation.kind == "upper" and readings["vendor"].mentioned
    assert not readings["city"].mentioned
    spec = read_spec(
        'Company names such as "ACME Corp" must be upper case.', list(DATA), check=DATA
    )
    assert (
        spec.fields["vendor"].kind == "upper"
        and spec.in_scope("vendor")
        and not spec.in_scope("city")
    )


def test_a_format_in_parentheses_after_a_list_of_fields_is_the_last_ones():
    samples = {
        "unit": ["mmol/L", "U/L", "g/L"] * 3,
        "flag": ["H", "L", "N"] * 3,
        "note": ["x", "y", "z"] * 3,
    }
    spec = read_spec(
        "Standardise units, flags (H/L/N) and notes.", ["unit", "flag", "note"], samples
    )
    assert (spec.fields["flag"].kind, spec.fields["flag"].allowed) == ("enum", ("H", "L", "N"))
    assert spec.fields["unit"].kind is None and spec.fields["note"].kind is None


def test_a_list_the_data_of_one_field_holds_names_that_field():
    samples = {
        "analyte": ["Glucose", "Sodium", "glucose", "ALT", "Potassium"] * 2,
        "unit": ["mmol/L", "U/L"] * 5,
    }
    goals = "Hi,\n\n- Test names should be exactly one of Glucose, Sodium, Potassium, ALT.\n"
    spec = read_spec(goals, ["analyte", "unit"], samples)
    assert spec.fields["analyte"].allowed == ("Glucose", "Sodium", "Potassium", "ALT")
    assert spec.fields["analyte"].mentioned and spec.fields["unit"].kind is None
    # a list after a clause about another field stays that field's ("It must be one of ...")
    spec = read_spec(
        "Fix the unit. It must be one of Glucose, Sodium.", ["analyte", "unit"], samples
    )
    assert spec.fields["analyte"].kind is None


@pytest.mark.parametrize(
    "goals, kept",
    [
        ("emp_id and notes are read-only.", {"emp_id", "notes"}),
        (
            "Out of scope, must not change: bin (zero-padded codes), currency (the ERP keys on "
            "it).",
            {"bin", "currency"},
        ),
        ("The MRN column is fine as it is too.", {"mrn"}),
        ("sku must not be changed", {"sku"}),
        ("Do NOT modify: bin (the zeros matter), mrn, notes.", {"bin", "mrn", "notes"}),
    ],
)
def test_words_that_protect_a_field(goals, kept):
    fields = ["emp_id", "notes", "bin", "currency", "mrn", "sku"]
    assert {
        f
        for f, r in read_goals(goals, fields).items()
        if r.expectation and r.expectation.kind == "as_is"
    } == kept


def test_one_letter_codes_with_slashes_are_a_list():
    samples = {"flag": ["H", "L", "N", "high"] * 3, "unit": ["mmol/L", "g/L", "U/L"] * 4}
    spec = read_spec(
        "Flag column: a single letter, H / L / N. Units: mmol/L, g/L or U/L.",
        ["flag", "unit"],
        samples,
    )
    assert spec.fields["flag"].allowed == ("H", "L", "N") and spec.fields["unit"].kind != "enum"


def test_a_line_at_the_margin_after_a_bullet_is_a_new_paragraph():
    readings = read_goals(
        "* state: upper-case 2 letters\n* city without the state\nNames stay as they are.",
        ["city", "state", "beer_name"],
    )
    assert (
        readings["beer_name"].expectation.kind == "as_is"
        and readings["state"].expectation.kind != "as_is"
    )


def test_both_cases_named_for_one_field_describe_the_wrong_values_not_the_target():
    names = ["Maria", "Anne Marie", "MARIA", "jose", "Li", "Omar", "Kim", "de la Cruz"] * 3
    spec = read_spec(
        "names: fix the ALL CAPS and all-lowercase ones to normal capitalisation + single spaces",
        ["fname"],
        {"fname": names},
    )
    # it was upper: 2,705 held-out cells rewritten
    assert spec.fields["fname"].kind not in ("upper", "lower")
    assert (
        read_spec("state: upper case", ["state"], {"state": ["CA", "ny"] * 3}).fields["state"].kind
        == "upper"
    )


@pytest.mark.parametrize(
    "goals",
    [
        "employee ids and the notes column stay untouched",
        "emp_id and notes: hands off",
        "emp_id and notes remain intact",
    ],
)
def test_more_words_that_leave_fields_alone(goals):
    readings = read_goals(goals, ["emp_id", "notes", "dept"])
    assert {f for f, r in readings.items() if r.expectation and r.expectation.kind == "as_is"} == {
        "emp_id",
        "notes",
    }


def test_a_slash_list_with_no_introducing_word_is_a_list_of_values_only_where_the_data_holds_them():
    fields = ["plate", "fuel_type", "fill_date"]
    data = {
        "plate": ["ABCD-123"] * 6,
        "fuel_type": ["Diesel", "diesel", "Regular", "Premium", "DEF", "Diesl"],
        "fill_date": ["2024-01-02", "1/3/2024"] * 3,
    }
    goals = (
        "Plates like ABCD-123, fuel types Diesel/Regular/Premium/DEF. Slashed fill dates are "
        "month/day/year."
    )
    got = read_goals(goals, fields, data)
    assert got["fuel_type"].expectation.kind == "enum"
    assert got["fuel_type"].expectation.allowed == ("Diesel", "Regular", "Premium", "DEF")
    assert got["fill_date"].expectation is None or got["fill_date"].expectation.kind != "enum"
    # the same words, and no data holding the values: not read as a list
    assert (
        read_goals(goals, fields, {f: ["x"] * 6 for f in fields})["fuel_type"].expectation is None
    )


def test_a_chat_message_is_one_request_a_line_and_a_wrapped_paragraph_is_one_sentence():
    fields = ["flag", "unit", "dept"]
    data = {
        "flag": ["H", "L", "N", "high"] * 3,
        "unit": ["mmol/L", "umol/L", "g/L", "mmol/l"] * 3,
        "dept": ["Finance", "Sales", "Legal", "FIN"] * 3,
    }
    chat = (
        "hey, can you tidy this?\n"
        "units just need consistent spelling (mmol/L, umol/L, g/L, U/L)\n"
        "flag = H, L or N only\n"
        "depts should match our list exactly: Finance, Sales, Legal"
    )
    got = read_goals(chat, fields, data)
    # "=" introduces the values, its own line
    assert got["flag"].expectation.allowed == ("H", "L", "N")
    # not mmol, L, umol, g, U
    assert got["unit"].expectation is None or got["unit"].expectation.kind != "enum"
    # a bare list the data holds
    assert got["dept"].expectation.allowed == ("Finance", "Sales", "Legal")
    wrapped = "The flag should be\none of H, L or N and the dept one of\nFinance, Sales or Legal."
    got = read_goals(wrapped, fields, data)
    assert got["flag"].expectation.allowed == ("H", "L", "N") and got[
        "dept"
    ].expectation.allowed == ("Finance", "Sales", "Legal")
    # a bare list after a colon that no field's data holds is no list of values
    assert read_goals("depts: finance team, sales people", fields, data)["dept"].expectation is None


def test_a_clause_about_the_other_fields_names_none_of_them_and_is_no_subjects():
    fields = ["lot", "colour", "grade"]
    for goals in (
        "lot: upper case. Leave all other fields alone.",
        "Upper-case the lot. Leave every other field exactly as it is.",
    ):
        readings = read_goals(goals, fields)
        assert readings["lot"].expectation.kind == "upper" and readings["lot"].asked
        assert not readings["colour"].mentioned and not readings["colour"].asked
        assert readings["lot"].rest and readings["lot"].rest == readings["grade"].rest
    assert not read_goals("lot: upper case. Lower-case everything else.", fields)["lot"].rest


def test_leave_exactly_as_keeps_a_field_whatever_follows():
    readings = read_goals(
        "Leave the remarks exactly as the drivers typed them, odd spacing included.",
        ["remark", "depot"],
    )
    assert readings["remark"].expectation.kind == "as_is"


@pytest.mark.parametrize(
    "clause, allowed",
    [
        ("they want the 13 digits and nothing else.", ("9" * 13,)),
        ("pub_year: four digits.", ("9999",)),
        ("the year column should be just the four-digit year", ("9999",)),
        ("isbn: 13 digits only (strip hyphens)", ("9" * 13,)),  # in place of "digits only"
        ("a 5-digit zip", ("99999",)),
    ],
)
def test_so_many_digits_is_a_shape_of_that_many_digits(clause, allowed):
    assert [(k, a) for k, a, *_ in detect_kinds(clause) if k == "shape"] == [("shape", allowed)]
    assert "integer" not in {k for k, *_ in detect_kinds(clause)}


@pytest.mark.parametrize(
    "clause",
    [
        "hour without a leading zero, colon, two-digit minutes, a space and a.m. or p.m.",
        "Please don't touch the sample number: it's a six-digit code with leading zeros",
        "round to 2 digits after the point",
        "dates as YYYY-MM-DD with a four-digit year",
        "Item codes are two capital letters, a hyphen and four digits.",
        "four digits followed by two letters",
    ],
)
def test_digits_that_are_a_part_or_inside_a_keep_clause_are_no_shape(clause):
    assert "shape" not in {k for k, *_ in detect_kinds(clause)}


def test_a_sentence_never_ends_inside_a_quoted_value():
    text = 'pub_year: brackets and a full stop all go ("c. 1994" -> 1994). Out of scope: the rest.'
    assert goal_clauses(text) == [
        'pub_year: brackets and a full stop all go ("c. 1994" -> 1994).',
        "Out of scope: the rest.",
    ]


def test_a_ticket_asking_for_so_many_digits_and_nothing_else_reads_both_fields():
    """Session 16's books ticket, first read as all fields left alone (F1 0.000)."""
    goals = (
        "Their loader rejects our file on two columns:\n"
        '- isbn: they want the 13 digits and nothing else. Drop the "ISBN" prefix.\n'
        '- pub_year: four digits. Brackets and the c in front go ("c. 1994" -> 1994).\n\n'
        "Out of scope: every other column. Titles and notes must come out byte-for-byte."
    )
    fields = ["record_id", "title", "isbn", "pub_year", "notes"]
    spec = read_spec(goals, fields)
    assert (spec.fields["isbn"].kind, spec.fields["isbn"].allowed) == ("shape", ("9" * 13,))
    assert spec.fields["pub_year"].kind == "shape"
    assert {f for f in fields if spec.fields[f].kind == "as_is"} == {"record_id", "title", "notes"}
