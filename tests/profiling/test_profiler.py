"""Field profiler: which fields are still dirty, with the offending values as evidence (no model
call)."""

from __future__ import annotations

import json
import os
import re

import pytest

from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.profiling.instructions import infer_expectations
from recursive_cleaner.profiling.profiler import (
    FieldProfile,
    conforms,
    format_issue_for_prompt,
    issue_counts,
    open_issues,
    profile_field,
    profile_records,
    value_shape,
)

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "..", "test_cases")
E = Expectation


def load(name: str) -> list[dict]:
    with open(os.path.join(CASES, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def crm_expectations() -> dict[str, Expectation]:
    with open(os.path.join(CASES, "crm_instructions.txt"), encoding="utf-8") as f:
        text = f.read()
    return infer_expectations(
        text,
        ["customer_id", "name", "email", "phone", "status", "signup_date", "country", "amount"],
    )


# ---------------------------------------------------------------- value_shape


@pytest.mark.parametrize(
    "value, shape",
    [
        ("(555) 123-4567", "(9) 9-9"),
        ("2023-04-05", "9-9-9"),
        ("Alice Smith", "Aa Aa"),
        ("ALICE", "A"),
        ("4/5/2023", "9/9/9"),
        ("April 5, 2023", "Aa 9, 9"),
        ("12.0 oz.", "9.9 a."),
        ("  x  ", "  a  "),
        ("", "<empty>"),
        (None, "<null>"),
        (12.5, "<float>"),
        (3, "<int>"),
        (True, "<bool>"),
        ([1], "<list>"),
        ({"a": 1}, "<dict>"),
    ],
)
def test_value_shape(value, shape):
    assert value_shape(value) == shape


def test_value_shape_is_capped():
    assert len(value_shape("a1" * 100)) <= 40


# ---------------------------------------------------------------- conforms

CASES_BY_KIND = [
    (
        E("date"),
        ["2023-04-05", "2024-02-29"],
        ["4/5/2023", "2023-02-30", "2023-04-05T14:30:00Z", "20230405", 20230405],
    ),
    (
        E("datetime"),
        ["2023-04-05T14:30:00Z", "2023-04-05T14:30", "2023-04-05T14:30:00+02:00"],
        ["2023-04-05", "2023-04-05 14:30", "2023-13-05T14:30:00Z"],
    ),
    (E("time"), ["07:10", "19:10", "23:59:59"], ["7:10", "7:10 a.m.", "24:00", "19h10"]),
    (
        E("phone_e164"),
        ["+15551234567", "+442079460123"],
        ["5551234567", "+1 555 123 4567", "+0123456789", 15551234567],
    ),
    (
        E("email"),
        ["alice.smith@example.com", "a@b.co.uk"],
        ["Alice@example.com", " a@b.com", "a @b.com", "a@@b.com", "a@localhost", "a@b.com "],
    ),
    (E("enum", ("active", "pending")), ["active", "pending"], ["Active", "active ", "actve", 1]),
    (E("number"), [12.5, 3, -1.0, 0], ["12.5", "$1,234", True, float("nan")]),
    (E("integer"), [1024, 0], [1024.0, "1024", "CUST-1024", False]),
    (E("country_alpha2"), ["US", "GB", "CA"], ["UK", "us", "USA", "U.S."]),
    (E("country_alpha2", ("lower",)), ["us", "gb"], ["US", "uk"]),
    (E("us_state"), ["CA", "NY", "DC"], ["ca", "XX", "Calif."]),
    (E("us_state", ("lower",)), ["al", "ak"], ["AL", "xl"]),
    (E("bool"), [True, False], ["true", "yes", 1]),
    (
        E("title_case"),
        ["Alice Smith", "Mary-Jane O'Brien", "McDonald"],
        ["alice smith", "ALICE SMITH", "Alice  Smith", " Alice Smith", "Alice SMITH"],
    ),
    (E("lower"), ["active", "scip-inf-1"], ["Active", " active", "a  b", 3]),
    (E("upper"), ["ACTIVE", "CO"], ["Active", "CO "]),
    (E("text"), ["Alice Smith", 42], [" Alice", "Alice  Smith", "Alice\tSmith"]),
]


@pytest.mark.parametrize("exp, good, bad", CASES_BY_KIND, ids=lambda x: getattr(x, "kind", ""))
def test_conforms_each_kind(exp, good, bad):
    assert [v for v in good if not conforms(v, exp)] == []
    assert [v for v in bad if conforms(v, exp)] == []


def test_missing_values_always_conform():
    for exp in (E("date"), E("enum", ("a",)), E("number"), E("phone_e164")):
        assert conforms(None, exp) and conforms("", exp)


def test_csv_strings_numbers():
    assert conforms("12.5", E("number"), csv_strings=True)
    assert conforms("-3", E("integer"), csv_strings=True)
    assert conforms("true", E("bool"), csv_strings=True)
    for bad in ("12.5 oz", "$1,234", "1,234", " 12", "N/A"):
        assert not conforms(bad, E("number"), csv_strings=True)
    assert not conforms("12.5", E("integer"), csv_strings=True)


# ---------------------------------------------------------------- profile_field with an expectation


def test_mixed_date_formats():
    values = [
        "2023-04-05",
        "4/5/2023",
        "April 5, 2023",
        "4/5/2023",
        "5 Apr 2023",
        "20230405",
        None,
        "",
        "2023-04-05T14:30:00Z",
        "2023-01-02",
    ]
    p = profile_field(
        "signup_date", values, E("date", source="instructions", primitive="to_iso_date")
    )
    assert (p.total, p.nulls, p.conforming) == (10, 2, 2)
    assert p.offending[0] == "4/5/2023"  # most frequent first, distinct
    assert len(p.offending) == len(set(p.offending)) == p.distinct_offending == 5
    assert p.examples_ok == ["2023-04-05", "2023-01-02"]
    assert p.primitive == "to_iso_date"
    assert p.issue.startswith(
        "signup_date: 6 of 8 values are not ISO dates (YYYY-MM-DD), e.g. '4/5/2023'"
    )
    assert p.score == pytest.approx(2 / 8)
    assert p.shapes["9/9/9"] == 2 and p.types == {"str": 9, "null": 1}


def test_offending_values_are_capped():
    values = [f"{m}/{d}/2023" for m in range(1, 10) for d in range(1, 5)]
    p = profile_field("d", values, E("date"))
    assert len(p.offending) == 12 and p.distinct_offending == 36


def test_phones():
    values = ["(555) 123-4567", "+15551234567", "555.123.4567", "+44 20 7946 0123", None]
    p = profile_field("phone", values, E("phone_e164"))
    assert p.primitive == "to_e164" and p.conforming == 1 and len(p.offending) == 3


def test_enumeration_with_typos():
    values = ["active"] * 5 + [
        "Active",
        "ACTIVE",
        " active",
        "actve",
        "pending",
        "pendng",
        "churned",
        "chruned",
    ]
    p = profile_field("status", values, E("enum", ("active", "pending", "churned")))
    assert p.primitive == "closest_value"
    assert set(p.offending) == {"Active", "ACTIVE", " active", "actve", "pendng", "chruned"}
    assert ["active", "Active", "ACTIVE", " active", "actve"] in p.variants


def test_numbers_with_currency_units_and_placeholders():
    money = profile_field("amount", ["$1,234.50", "1234.5 USD", 99, 12.5, "USD 3"], E("number"))
    assert money.primitive == "to_number" and money.conforming == 2
    units = profile_field(
        "ounces", ["12.0 oz", "16 oz.", "12.0 ounce", "12"], E("number"), csv_strings=True
    )
    assert units.primitive == "strip_units" and units.offending == [
        "12.0 oz",
        "16 oz.",
        "12.0 ounce",
    ]
    missing = profile_field("ibu", ["N/A", "20", "N/A", "35", ""], E("integer"), csv_strings=True)
    assert missing.primitive == "null_if_placeholder" and missing.offending == ["N/A"]
    assert "null_if_placeholder" in format_issue_for_prompt(missing)


def test_clean_fields_show_no_issue():
    cases = [
        ("signup_date", ["2023-04-05", "2021-12-31", None], E("date")),
        ("phone", ["+15551234567", None, "+442079460123"], E("phone_e164")),
        (
            "status",
            ["active", "pending", "churned", "active"],
            E("enum", ("active", "pending", "churned")),
        ),
        ("amount", [12.5, 3, 0.0, None], E("number")),
        ("name", ["Alice Smith", "Bob Lee"], E("title_case")),
    ]
    for field, values, exp in cases:
        p = profile_field(field, values, exp)
        assert p.issue is None and p.primitive == "" and p.offending == [] and p.score == 1.0, field
        assert format_issue_for_prompt(p) == ""


# ---------------------------------------------------------------- profile_field without an
# expectation


def test_free_text_is_not_flagged():
    names = [
        f"{first} {last}"
        for first in ("Alice", "BOB", "carol", " Dave", "Eve")
        for last in ("Smith", "lee", "JONES", "Brown", "Garcia  ")
    ]
    descriptions = [
        "Great product, works well",
        'The "classic" one',
        "Broke after a week",
        "ok",
        "Five stars!! would buy again",
        "Too small for my kitchen",
        "Arrived late but fine",
        "Not as described",
        "Perfect gift for kids",
        "meh",
    ]
    for field, values in (("name", names), ("description", descriptions)):
        p = profile_field(field, values)
        assert p.issue is None and p.score == 1.0, p.issue


def test_categories_spelled_differently_are_flagged():
    values = ["Electronics"] * 6 + [
        "electronics",
        " Electronics",
        "ELECTRONICS",
        "Electronic",
        "Home & Kitchen",
        "Home & Kitchen",
        "Home and Kitchen",
        "Toys",
    ]
    p = profile_field("category", values)
    assert p.primitive == "closest_value"
    assert p.variants[0] == [
        "Electronics",
        "electronics",
        " Electronics",
        "ELECTRONICS",
        "Electronic",
    ]
    assert ["Home & Kitchen", "Home and Kitchen"] in p.variants
    assert p.issue.startswith(
        "category: same value spelled differently: ['Electronics', 'electronics'"
    )
    assert p.conforming == 9 and "Toys" not in p.offending


def test_similar_but_different_categories_are_not_variants():
    values = ["active", "inactive"] * 5 + ["north wing", "south wing"] * 5
    p = profile_field("x", values)
    assert p.variants == [] and p.issue is None
    blood = (
        ["O negative"] * 6
        + ["A negative"] * 2
        + ["A+"] * 4
        + ["A-"] * 2
        + ["a pos"] * 4
        + ["ab pos"]
    )
    assert profile_field("blood_type", blood).variants == []


def test_no_primitive_guess_for_mixed_identifiers():
    p = profile_field(
        "sku", ["SKU-1000", "sku1001", "1002", "SKU-1003", "1004", "sku1005", "SKU-1006"]
    )
    assert p.issue is not None and p.primitive == ""


def test_numbers_mixed_with_numeric_text():
    p = profile_field("amount", [12.5, 3, "$1,234.50", "99 USD", 7.25])
    assert p.primitive == "to_number" and set(p.offending) == {"$1,234.50", "99 USD"}
    ids = profile_field("customer_id", [1001, 1002, "cust_1003", "1004", " 1005 "])
    assert ids.primitive == "to_int" and ids.conforming == 2


def test_csv_string_numbers():
    clean = profile_field("abv", ["0.05", "0.066", "0.07", "N/A", ""], csv_strings=True)
    assert clean.issue is None
    dirty = profile_field("abv", ["0.05", "0.066", "0.07", "0.05%", "0.06%"], csv_strings=True)
    assert dirty.primitive == "strip_units" and dirty.offending == ["0.05%", "0.06%"]
    assert dirty.expectation.source == "data"


def test_dates_without_expectation_use_iso_when_present():
    p = profile_field(
        "joined", ["2023-04-05", "4/5/2023", "April 5, 2023", "5 Apr 2023", "2023-01-02"]
    )
    assert (
        p.expectation == Expectation("date", (), "data", "to_iso_date")
        and p.primitive == "to_iso_date"
    )
    assert p.conforming == 2


def test_data_convention_beats_rare_canonical_values():
    values = ["7:10 a.m.", "10:40 p.m.", "6:00 a.m."] * 10 + ["19:10", "Contact Airline"]
    p = profile_field("act_dep_time", values)
    assert p.expectation is None
    assert set(p.offending) == {"19:10", "Contact Airline"}
    assert p.primitive == ""  # no toolkit primitive converts to '7:10 a.m.'


def test_consistent_fields_without_expectation_show_no_issue():
    for values in (
        ["al", "ak", "al"],
        ["7:10 a.m.", "10:40 p.m."],
        ["100%", "97%", "empty"],
        ["0 patients", "12 patients"],
        ["scip-inf-1", "ami-2", "hf-3"],
        [1, 2, 3],
        [True, False],
    ):
        assert profile_field("f", values, csv_strings=True).issue is None, values


# ---------------------------------------------------------------- records, ordering, counts


def test_profile_records_auto_csv_strings_and_missing_keys():
    rows = [{"a": "1.5", "b": "x"}, {"a": "2"}, {"a": "", "b": "y"}]
    profiles = profile_records(rows, {"a": E("number")})
    assert profiles["a"].issue is None and profiles["a"].csv_strings
    assert profiles["b"].nulls == 1 and profiles["b"].total == 3
    assert profile_records([{"a": 1.5}, {"a": "2"}], {"a": E("number")})["a"].issue is not None


def test_open_issues_worst_first_and_counts():
    rows = [
        {"d": "4/5/2023", "s": "x", "n": 1},
        {"d": "4/6/2023", "s": "x", "n": 2},
        {"d": "2023-01-01", "s": "X", "n": 3},
    ]
    profiles = profile_records(rows, {"d": E("date"), "s": E("lower")})
    assert [p.field for p in open_issues(profiles)] == ["d", "s"]
    assert issue_counts(profiles) == {"d": 2, "s": 1, "n": 0}


def test_crm_clean_file_has_no_issue(crm_expectations):
    profiles = profile_records(load("crm_customers.clean.jsonl"), crm_expectations)
    assert {f: p.issue for f, p in profiles.items() if p.issue} == {}
    assert set(issue_counts(profiles).values()) == {0}
    # without expectations the data does not accuse itself either
    assert [
        p.issue for p in profile_records(load("crm_customers.clean.jsonl")).values() if p.issue
    ] == []


def test_crm_dirty_file_every_field_has_an_issue(crm_expectations):
    profiles = profile_records(load("crm_customers.jsonl"), crm_expectations)
    assert {f: p.primitive for f, p in profiles.items() if p.issue} == {
        "customer_id": "to_int",
        "name": "title_case_name",
        "email": "normalize_email",
        "phone": "to_e164",
        "status": "closest_value",
        "signup_date": "to_iso_date",
        "country": "to_country_code",
        "amount": "to_number",
    }
    assert all(n > 0 for n in issue_counts(profiles).values())
    assert profiles["phone"].nulls > 0 and profiles["phone"].conforming == 0


# ---------------------------------------------------------------- format_issue_for_prompt


def test_format_issue_for_prompt_is_compact_and_distinct(crm_expectations):
    profiles = profile_records(load("crm_customers.jsonl"), crm_expectations)
    for field in ("signup_date", "status", "name", "email"):
        text = format_issue_for_prompt(profiles[field])
        assert len(text) < 800, (field, len(text))
        assert field in text and profiles[field].primitive in text
        line = next(ln for ln in text.splitlines() if ln.startswith("Offending values"))
        shown = re.findall(r"'((?:[^'\\]|\\.)*)'", line.split(":", 1)[1])
        assert len(shown) == len(set(shown)) and 1 <= len(shown) <= 12
    text = format_issue_for_prompt(profiles["signup_date"])
    assert "YYYY-MM-DD" in text and "more)" in text and "Conforming:" in text
    assert len(format_issue_for_prompt(profiles["signup_date"], max_values=3).splitlines()[1]) < 150


def test_format_issue_for_prompt_long_values_are_truncated():
    values = ["x" * 300 + str(i) for i in range(30)]
    p = profile_field("blob", values, E("date"))
    assert len(format_issue_for_prompt(p)) < 800


def test_field_profile_score_without_values():
    p = profile_field("empty", [None, "", None])
    assert isinstance(p, FieldProfile) and p.score == 1.0 and p.issue is None and p.nulls == 3


def test_whole_numbers_as_int_suggest_to_number_with_its_option():
    exp = E("number", allowed=("whole_as_int",), source="instructions", primitive="to_number")
    p = profile_field(
        "ounces", ["12.0 oz.", "12.0 OZ.", "16.9 oz", "12", "12.0"], exp, csv_strings=True
    )
    assert p.conforming == 1 and p.primitive == "to_number(value, whole_as_int=True)"
    assert (
        "Toolkit primitive that fits: to_number(value, whole_as_int=True)"
        in format_issue_for_prompt(p)
    )


def test_the_judges_read_csv_from_the_records_before_the_change():
    from recursive_cleaner.profiling.improvement import judge_change, judge_holdout

    exp = {
        "ounces": Expectation("number", allowed=("whole_as_int",)),
        "abv": Expectation("number"),
        "brewery_id": Expectation("integer"),
    }
    before = [
        {"ounces": oz, "abv": "0.05", "brewery_id": "177"}
        for oz in ("12.0 oz", "16", "12", "16.9 oz")
    ]
    after = [{**r, "ounces": n} for r, n in zip(before, (12, 16, 12, 16.9))]
    # abv "0.05" is still a right value of CSV data
    assert judge_holdout(before, after, exp) is None
    verdict = judge_change(before, after, exp, target="ounces")
    assert verdict.problem is None  # "16" -> 16 writes "16" again: not a right value changed
    assert judge_change(
        before,
        [{**r, "ounces": 16.0} if r["ounces"] == "16" else r for r in before],
        exp,
        target="ounces",
    ).problem  # "16" -> 16.0 writes "16.0": a right value broken
