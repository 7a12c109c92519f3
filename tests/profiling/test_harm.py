"""The judge of harm that needs no reading (issue 42, point 3): a change is judged by what it does
to the value's content, against the field's evidence, never against the kind it was read as."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.harm import (
    Licence,
    changes,
    harm,
    harm_check,
    portrait,
    written_shapes,
)
from recursive_cleaner.profiling.improvement import judge_change
from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.profiling.spec import read_spec

POSTCODES = ["1252 AD", "01067", "10115", "1017 XN", "80331", "01099", "3011 AB", "75001"] * 4
DATES = ["2025-01-06", "2025-02-11", "2025-03-09", "2024-12-30"] * 6 + ["2025-01-06 10:30"] * 2


@pytest.mark.parametrize(
    "old, new, change",
    [
        ("ORD-5000", -5000.0, "sign"),  # a hyphen after letters is no minus sign
        ("(12)", -12, "sign"),
        ("01067", 1067, "zeros"),
        ("1252 AD", 1252, "words"),
        ("2025-01-06", "2025-01-06T00:00:00", "reshape"),
        ("Aisha", "aisha", "reshape"),
        ("3830", "4 830", "digits"),
        ("-18", "-18 °C", "added"),
        ("17,2 t", 17200, "trimmed"),
        ("Actve", "active", "spelling"),
        ("", "unknown", "filled"),
        ("12 Main St", "", "erased"),
    ],
)
def test_each_change_is_named(old, new, change):
    assert change in changes(old, new)


@pytest.mark.parametrize(
    "old, new",
    [("12.30", 12.3), ("7", 7), ("N/A", ""), ("EUR -12,50", "EUR -12,50"), ("a b", "a b")],
)
def test_the_same_number_a_placeholder_blanked_and_no_change_are_nothing(old, new):
    assert changes(old, new) == frozenset()


def test_a_real_minus_sign_is_kept_as_a_sign():
    assert "sign" not in changes("-5", -5.0) and "sign" not in changes("EUR -12,50", -12.5)
    assert "sign" not in changes("- 4", -4) and "sign" not in changes("−4", "-4")


def test_postcodes_read_as_numbers_are_not_stripped_even_under_a_number_kind():
    p = portrait(POSTCODES)
    assert p.coded  # codes with leading zeros
    licence = Licence.of("number", shape_of=p)  # the wrong reading, bound as if by a clause
    assert harm("1252 AD", 1252, p, licence)  # 'AD' is part of the value, not a unit
    assert harm("01067", 1067, p, licence)  # a coded field keeps its zeros
    # the unit a number kind drops is fine
    weights = portrait(["12 kg", "3.5", "4.2", "7 kg", "1.1", "2", "9 kg", "5"] * 2)
    assert harm("12 kg", 12, weights, Licence.of("number", shape_of=weights)) is None


def test_a_minus_sign_from_a_hyphen_or_brackets_is_harm_unless_an_example_shows_it():
    p = portrait([f"ORD-{n}" for n in range(5000, 5040)])
    assert harm("ORD-5000", -5000.0, p, Licence.of("number", shape_of=p))
    assert harm("(12)", -12, None, Licence.of("number"))
    accounting = Licence.of("number", examples=[("(7)", "-7")])
    assert harm("(12)", -12, None, accounting) is None


def test_right_dates_are_not_rewritten_as_timestamps_whatever_the_kind_says():
    p = portrait(DATES)
    assert p.usual == "9-9-9"
    as_read = Licence.of("datetime", words="listing date as yyyy-mm-dd, only the date", shape_of=p)
    assert harm("2025-01-06", "2025-01-06T00:00:00", p, as_read)
    # the timestamp that the goals ask to cut to its date may be cut
    assert harm("2025-01-06 10:30", "2025-01-06", p, Licence.of("date", shape_of=p)) is None


def test_a_usual_form_is_rewritten_where_the_goals_write_another_target_form():
    slashes = portrait(["03/02/2024", "11/12/2023", "01/05/2024", "2024-01-02"] * 4)
    assert slashes.usual == "9/9/9"
    licence = Licence.of("date", words="dates as YYYY-MM-DD", shape_of=slashes)
    assert harm("03/02/2024", "2024-02-03", slashes, licence) is None
    # a kind named without its form does not
    assert harm("03/02/2024", "2024-02-03", slashes, Licence.of("date", shape_of=slashes))


def test_the_usual_case_of_names_is_kept_and_the_odd_ones_are_mended():
    names = portrait(["Aisha", "Tom", "MacLeod", "Lena", "Ravi", "Ines", "JOHN", "mary"] * 3)
    lower = Licence.of("lower", shape_of=names)  # a wrong reading ("... remainder lower case")
    assert harm("Aisha", "aisha", names, lower)
    title = Licence.of("title_case", shape_of=names)
    assert harm("JOHN", "John", names, title) is None


def test_two_values_many_rows_hold_are_not_merged_without_a_list_or_an_example():
    answers = portrait(["yes"] * 30 + ["no"] * 20 + ["yss"])
    assert "merge" in changes("yes", "no", answers)
    assert harm("yes", "no", answers, Licence.of("text", shape_of=answers))
    assert harm("yss", "yes", answers, Licence.of("text", shape_of=answers)) is None
    moves = portrait(["IN", "OUT"] * 10)
    listed = Licence.of("enum", allowed=["in", "out"], shape_of=moves)
    assert harm("OUT", "out", moves, listed)  # the data's case of a listed value stays


def test_an_example_licenses_exactly_the_change_it_makes():
    p = portrait(POSTCODES)
    licence = Licence.of("shape", examples=[("01067", "1067")], shape_of=p)
    assert harm("01099", "1099", p, licence) is None
    assert harm("1252 AD", "1252", p, licence)  # an example dropping zeros drops no letters


def test_a_conversion_or_a_stated_key_writes_the_field():
    licence = Licence.of(None, everything=True)
    assert harm("3.5", "1.59", None, licence) is None
    assert harm("5", "-5", None, licence)  # but no sign is invented


def test_written_shapes_are_the_templates_the_goals_write():
    shapes = written_shapes("dates as YYYY-MM-DD, times HH:MM or h:mm; phone NNN-NNN-NNNN")
    assert {"9-9-9", "9:9"} <= shapes
    assert written_shapes("a d s and my dog") == frozenset()


def test_judge_change_refuses_the_toolkit_one_liner_that_strips_a_postcode():
    rows = [{"zip": z} for z in POSTCODES]
    after = [{"zip": z.split()[0].lstrip("0")} for z in POSTCODES]
    spec = read_spec("zip: a number", ["zip"], {"zip": POSTCODES[:3]}, check={"zip": POSTCODES})
    check = harm_check(spec, {"zip": POSTCODES})
    exp = {"zip": Expectation("number", (), "instructions", "to_number")}
    verdict = judge_change(rows, after, exp, target="zip", csv_strings=True, harm=check)
    assert verdict.problem and "in a way the goals do not ask for" in verdict.problem


def test_a_kind_from_the_data_or_the_name_licenses_nothing_where_the_goals_name_fields():
    values = {"amount": ["1,5", "2", "3", "4", "5", "6", "7", "8", "9"], "city": ["Oslo"] * 9}
    spec = read_spec("city: upper case", ["amount", "city"], values, scope="all")
    assert spec.fields["amount"].source in ("data", "field name")
    assert harm_check(spec, values).licences["amount"].allows  # scope "all": the run's own reading
    spec = read_spec("city: upper case", ["amount", "city"], values)
    assert harm_check(spec, values).licences["amount"].allows == frozenset()
