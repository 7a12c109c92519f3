"""The library's own choice of a toolkit call for a field, by the goals' examples and the data
(profiling/choose.py)."""

from __future__ import annotations

import ast

import pytest

from recursive_cleaner.judge.validation import check_code_safety
from recursive_cleaner.profiling.choose import (
    Candidate,
    candidates,
    choose_function,
    dayfirst_from_words,
    target_units,
)
from recursive_cleaner.profiling.kinds.numbers import _digits
from recursive_cleaner.profiling.profiler import profile_records
from recursive_cleaner.profiling.spec import read_spec


def _choose(goals: str, column: str, values: list, **others):
    rows = [
        {column: v, **{k: vs[i % len(vs)] for k, vs in others.items()}}
        for i, v in enumerate(values)
    ]
    fields = [column, *others]
    samples = {f: [r[f] for r in rows] for f in fields}
    spec = read_spec(goals, fields, samples)
    expectations = spec.expectations()
    csv_strings = all(isinstance(v, str) for r in rows for v in r.values())
    profile = profile_records(rows, expectations, csv_strings=csv_strings)[column]
    chosen = choose_function(
        profile,
        f"fix_{column}",
        rows,
        spec=spec,
        expectations=expectations,
        csv_strings=csv_strings,
        frozen=spec.frozen(),
        kept=spec.kept(),
    )
    return chosen, spec


AMBIGUOUS = ["03/04/2023", "05/06/2023", "2023-01-02", "07/08/2022", "2023-02-03", "10/11/2023"]


def test_an_example_decides_day_first_where_the_data_does_not():
    day, _ = _choose('signup: ISO dates, e.g. "03/04/2023" -> 2023-04-03', "signup", AMBIGUOUS)
    assert day.candidate == Candidate("to_iso_date", kwargs=(("dayfirst", True),))
    assert "to_iso_date(record.get('signup'), dayfirst=True)" in day.code and day.fixed == 4
    month, _ = _choose('signup: ISO dates, e.g. "03/04/2023" -> 2023-03-04', "signup", AMBIGUOUS)
    assert month.candidate == Candidate("to_iso_date")


def test_the_data_or_the_words_decide_day_first_without_an_example():
    data, _ = _choose("signup: ISO dates", "signup", AMBIGUOUS + ["25/03/2023"])
    assert data.candidate.kwargs == (("dayfirst", True),)
    words, _ = _choose("signup: ISO dates; they are written day first", "signup", AMBIGUOUS)
    assert words.candidate.kwargs == (("dayfirst", True),)
    assert (
        dayfirst_from_words("DD/MM/YYYY") is True
        and dayfirst_from_words("US month/day/year") is False
    )
    assert dayfirst_from_words("day first or month first") is None


def test_a_decimal_comma_price_field():
    chosen, _ = _choose(
        "price: a plain number", "price", ["14,90", "7,50", "1,234", "12", "3,5", "1.234,50"]
    )
    # "1,234" is 1.234 here
    assert chosen.candidate == Candidate("to_number", kwargs=(("decimal", ","),))
    assert chosen.fixed == 5


def test_grams_and_pounds_become_kilograms_where_the_goals_name_the_unit():
    values = ["500 g", "1.2 kg", "2 lb", "750 g", "0.5", "3 lb"]
    chosen, _ = _choose("weight: a number in kg", "weight", values)
    assert chosen.candidate == Candidate("to_unit", ("kg",)) and chosen.fixed == 5
    rounded, _ = _choose(
        'weight: convert grams and pounds to kilograms, "2 lb" -> 0.91', "weight", values
    )
    assert rounded.candidate == Candidate("to_unit", ("kilograms",), (("digits", 2),))
    assert "to_unit(record.get('weight'), 'kilograms', digits=2)" in rounded.code
    # no unit named: a bare number would mix them
    none, _ = _choose("weight: a plain number", "weight", values)
    assert none is None


def test_a_count_in_words_or_with_unit_words():
    chosen, _ = _choose(
        "quantity: an integer", "quantity", ["twelve", "3 pcs", "x4", "7", "two dozen", "5"]
    )
    assert chosen.candidate == Candidate("to_count") and chosen.fixed == 4


def test_a_sku_in_the_form_of_the_goals_example():
    values = ["AB-1234", "cd 5678", "EF_9012", "GH-3456", "ij7890", "KL-1111", "MN-2222"]
    chosen, spec = _choose('The sku codes: "ab 1234" becomes AB-1234.', "sku", values)
    assert spec.fields["sku"].kind == "shape"
    assert chosen.candidate == Candidate("to_shape", ("AB-1234",)) and chosen.fixed == 3


def test_so_many_digits_with_a_label_in_front_drops_the_label():
    """Session 16's books ticket: "13 digits" and values with "ISBN:" in front; no example."""
    values = [
        "9780306406157", "ISBN: 978-0306406157", "978-0-306-40615-7", "ISBN 9780306406157",
        "9781861978769", "978 1 86 197876 9", "9780140449136", "9780140449136",
    ]  # fmt: skip
    chosen, spec = _choose("isbn: the 13 digits and nothing else", "isbn", values)
    assert (spec.fields["isbn"].kind, spec.fields["isbn"].allowed) == ("shape", ("9" * 13,))
    assert chosen.candidate == Candidate("to_shape", ("9" * 13,), (("label", True),))
    assert chosen.fixed == 4
    assert "to_shape(record.get('isbn'), '9999999999999', label=True)" in chosen.code


def test_a_year_with_a_letter_in_front_by_the_examples_shape():
    values = ["1998", "c1998", "[2001]", "c. 1994", "©2014", "1987.", "2003", "1975"]
    chosen, spec = _choose('pub_year: four digits ("c. 1994" -> 1994)', "pub_year", values)
    assert spec.fields["pub_year"].kind == "shape"
    assert chosen.candidate.kwargs == (("label", True),) and chosen.fixed == 5


def test_an_example_refuses_a_call_the_profile_alone_would_take():
    # to_country_code fixes every value, but the goals want "Holland" as NL-H (a made-up house
    # rule): no call passes
    chosen, _ = _choose(
        'country: ISO codes; "Holland" -> "NL-H"', "country", ["Holland", "Germany", "FR", "DE"]
    )
    assert chosen is None


def test_no_call_that_changes_a_right_value_or_breaks_a_kept_shape():
    # "01907" stays 01907 (and so every run of digits): each integer call would write 1907, so none
    # is chosen
    chosen, spec = _choose(
        'zip: an integer, but a zip like "01907" stays "01907"',
        "zip",
        ["CUST-12", "01907", "02134", "cust_7", "12345"],
    )
    assert spec.kept() == {"zip": frozenset({"9"})} and chosen is None


def test_the_chosen_code_passes_the_policy_and_names_the_function():
    chosen, _ = _choose(
        'weight: a number in kg; "2 lb" -> 0.91', "weight", ["500 g", "2 lb", "1 kg"]
    )
    assert check_code_safety(chosen.code) == [] and ast.parse(chosen.code)
    assert "def fix_weight(record):" in chosen.code and "without a model call" in chosen.docstring


def test_target_units_ranks_the_unit_after_to_first():
    assert target_units("weights in grams and pounds, convert them to kilograms", "mass") == [
        "kilograms",
        "grams",
        "pounds",
    ]
    assert target_units("lengths in cm", "length") == ["cm"]  # "in" is the word, not inches
    assert target_units("in kg", "length") == []


def test_candidates_follow_the_kind():
    spec = read_spec("status: one of active, pending", ["status"], {"status": ["active", "actve"]})
    profile = profile_records([{"status": "actve"}, {"status": "active"}], spec.expectations())[
        "status"
    ]
    assert candidates(profile, ["actve"], spec.fields["status"]) == [
        Candidate("closest_value", (["active", "pending"],))
    ]


def test_an_enumerations_examples_become_its_aliases():
    goals = 'flag: one of H, L or N. "elevated" -> H, "reduced" -> L, "typical" -> N'
    values = ["H", "N", "L", "ELEVATED", "elevated", "Typical", "N", "H", "reduced", "L"] * 3
    chosen, spec = _choose(goals, "flag", values)
    assert chosen.candidate == Candidate(
        "closest_value",
        (["H", "L", "N"],),
        (("aliases", {"elevated": "H", "reduced": "L", "typical": "N"}),),
    )
    assert chosen.fixed == 12 and check_code_safety(chosen.code) == []
    namespace: dict = {}
    exec(compile(chosen.code, "<chosen>", "exec"), namespace)  # noqa: S102
    assert [
        namespace["fix_flag"]({"flag": v})["flag"] for v in ("ELEVATED", "Typical", "reduced", "H")
    ] == ["H", "N", "L", "H"]


def test_day_first_from_the_goals_holds_for_the_whole_file_even_where_a_chunk_has_no_ambiguous_value():  # noqa: E501
    chosen, _ = _choose(
        "booking_date: ISO dates (YYYY-MM-DD); the source is day-first",
        "booking_date",
        ["07.03.2024", "2024-03-07", "2024-03-08"] * 4,
    )
    assert chosen.candidate == Candidate("to_iso_date", kwargs=(("dayfirst", True),))


@pytest.mark.parametrize(
    "words, order",
    [
        # the MM-DD of the target is no input order
        ("Dates to YYYY-MM-DD (the source is day-first)", True),
        ("keyed in as 07.03.2024 or 07/03/2024 - always day, month, year", True),
        ("written month, day, year", False),
        ("ISO dates, YYYY-MM-DD", None),
    ],
)
def test_the_order_the_goals_give(words, order):
    assert dayfirst_from_words(words) is order


def test_a_sentence_after_a_fields_own_is_among_its_words():
    spec = read_spec(
        "Collection time as YYYY-MM-DD HH:MM. Some come in as 03/02/2024 14:05 - those are day "
        "first.",
        ["collected_at", "flag"],
        {},
    )
    assert "day first" in spec.fields["collected_at"].words and not spec.fields["flag"].words


def test_the_rounding_the_goals_name_comes_first():
    chosen, _ = _choose(
        "weight in kilograms (grams / 1000, lb x 0.4536, 2 decimals)",
        "weight",
        ["12.5", "41.89 lbs", "500 g", "3.2", "1.25"] * 3,
    )
    assert chosen.candidate.primitive == "to_unit" and ("digits", 2) in chosen.candidate.kwargs


@pytest.mark.parametrize(
    "words, used, first",
    [
        (
            "gross_weight -> kg as a decimal number (g / 1000; lb x 0.4536; round to 2 dp)",
            {"453.59237", "1000.0"},
            "kg",
        ),
        ("weights in grams and pounds, convert them to kilograms", set(), "kilograms"),
        (
            "Weight in kilograms: 12500 g -> 12.5, and pounds times 0.4536",
            {"453.59237"},
            "kilograms",
        ),
    ],
)
def test_the_target_unit_is_the_one_converted_to_not_one_a_factor_is_given_for(words, used, first):
    assert target_units(words, "mass", used)[0] == first


def test_decimals_the_goals_name():
    assert _digits((), "round to 2 dp") == [2] and _digits((), "one decimal place") == [1]
    assert _digits((("3,75", "3.75"),), "") == [2] and _digits((), "a decimal point") == []


def test_examples_with_a_multiplier_ask_for_scaled_numbers():
    chosen, _ = _choose(
        'sal: a plain number: "$52,000" -> 52000, "52k" -> 52000',
        "sal",
        ["52000", "$61,500", "48k", "70000", "55000"] * 3,
    )
    assert ("scaled", True) in chosen.candidate.kwargs and chosen.fixed == 6


def test_case_examples_choose_a_text_primitive_that_passes_them_all():
    goals = (
        'First and last names: "MARIA" or "  maria" becomes "Maria" and "anne  marie" becomes '
        '"Anne Marie".'
    )
    values = [
        "Maria",
        "Anne Marie",
        "MARIA",
        "  maria",
        "de la Cruz",
        "Jose",
        "Li",
        "Omar",
        "anne  marie",
        "Kim",
    ] * 2
    chosen, _ = _choose(goals, "fname", values)
    assert chosen.candidate == Candidate("title_case_name") and chosen.fixed == 6


def test_the_chosen_function_leaves_a_missing_field_missing():
    chosen, _ = _choose("signup: ISO dates; day first", "signup", AMBIGUOUS)
    namespace: dict = {}
    exec(compile(chosen.code, "<chosen>", "exec"), namespace)  # noqa: S102
    assert namespace["fix_signup"]({"other": 1}) == {"other": 1}
    assert namespace["fix_signup"]({"signup": "25/03/2023"}) == {"signup": "2023-03-25"}


def test_the_librarys_call_may_leave_an_example_as_it_came_never_write_it_wrong():
    values = ["1.5", "2 lb", "3.25 lb", "2 lb 12 oz", "4", "5 lb", "0.75", "6 lb", "7", "8 lb"]
    goals = 'weight: only the number in pounds (for example "2 lb 12 oz" = 2.75)'
    chosen, spec = _choose(goals, "weight", values)
    assert spec.fields["weight"].examples == (("2 lb 12 oz", "2.75"),)
    assert chosen is not None and chosen.candidate.run("2 lb 12 oz") == "2 lb 12 oz"
    assert chosen.candidate.run("3.25 lb") in (3.25, "3.25")


def test_a_call_that_leaves_an_example_undone_leaves_the_values_of_its_form_too():
    # "tsd" (a multiplier no call reads): to_number would write "2 tsd" as 2, losing what a
    # function that does the example needs; it leaves the example undone, so it may not
    values = ["1,5 tsd", "12", "3,50", "2 tsd", "7", "0,25", "4,5 tsd", "9"]
    chosen, _ = _choose('amount: a plain number; "1,5 tsd" -> 1500', "amount", values)
    assert chosen is None or all(chosen.candidate.run(v) == v for v in values if "tsd" in v)


def test_of_two_calls_the_one_that_does_the_example_is_chosen():
    values = ["51500", "$55,000", "63,500", "92000", "USD 141,500", "55k", "70000", "81000"]
    chosen, spec = _choose('sal: a plain number, no $ or commas ("55k" -> "55000")', "sal", values)
    assert spec.fields["sal"].examples == (("55k", "55000"),)
    assert chosen is not None and chosen.candidate.run("55k") in (55000, 55000.0, "55000")


SKUS = ["BTS-6874-08", "SLB-2196-R", "JKT-2420-XS", "jkt 6342 m", "BTS398207", "PNT_9344_XL"]


def test_several_forms_the_goals_write_are_the_fields_shape():
    values = SKUS * 3 + ["HAT-9064-L", "STV-8959-OS", "TNT-6652-OS", "PNT-6243-M"] * 3
    goals = "sku: 3 letters - 4 numbers - size. Example BTS-6874-08, SLB-2196-R, JKT-2420-XS."
    chosen, spec = _choose(goals, "sku", values)
    assert spec.fields["sku"].kind == "shape"
    assert set(spec.fields["sku"].allowed) == {"BTS-6874-08", "SLB-2196-R", "JKT-2420-XS"}
    assert chosen.candidate.run("jkt 6342 m") == "JKT-6342-M"
    assert chosen.candidate.run("PNT_9344_XL") == "PNT-9344-XL"


def test_an_example_with_units_tells_the_unit_a_conversion_writes():
    values = ["1.5", "2 lb", "3.47kg", "2 lb 12 oz", "4", "1.88 lbs", "0.75", "6 oz", "7", "8"]
    goals = (
        'weight: pounds, number only. Some rows are in kg: multiply by 2.2046. "2 lb 12 oz" -> 2.75'
    )
    chosen, _ = _choose(goals, "weight", values)
    assert chosen is not None and chosen.candidate.primitive == "to_unit"
    assert chosen.candidate.run("3.47kg") == 7.65  # in pounds, as the example's output is
    assert chosen.candidate.run("1.88 lbs") == 1.88


def test_examples_that_drop_a_refunds_sign_make_the_field_positive():
    values = ["206.99", "$34.99", "-45.99", "(134.99)", "182.99 USD", "25.99", "-$19.99", "32.99"]
    goals = 'refund: a plain number, stored positive: "-$191.99" -> 191.99, "(45.99)" -> 45.99'
    chosen, spec = _choose(goals, "refund", values)
    assert "positive" in spec.fields["refund"].allowed
    assert chosen is not None and dict(chosen.candidate.kwargs).get("absolute") is True
    assert [chosen.candidate.run(v) for v in ("-45.99", "(134.99)", "ORD-5")] == [
        45.99,
        134.99,
        "ORD-5",
    ]
