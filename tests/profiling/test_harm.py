"""The judge of harm that needs no reading (issue 42, point 3): a change is judged by what it does
to the value's content, against the field's evidence, never against the kind it was read as."""

from __future__ import annotations

import pytest
from dataclasses import replace

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


def test_a_decimal_point_invented_among_the_same_digits_is_a_digits_change():
    assert "digits" in changes("225", "2.25")
    assert "digits" not in changes("1.234", "1234")  # a separator read as thousands: not invented
    readings = portrait([str(100 + i) for i in range(40)])
    assert harm("225", "2.25", readings, Licence.of("number", shape_of=readings))


def test_a_list_never_turns_a_value_many_rows_hold_into_one_few_hold():
    types = portrait(["Smart"] * 30 + ["Actual"] * 20 + ["S", "A"])
    letters = Licence.of("enum", allowed=["A", "E", "C", "S"], shape_of=types)
    assert harm("Smart", "S", types, letters)  # the reading's list, not the data's
    words = Licence.of("enum", allowed=["Actual", "Smart"], shape_of=types)
    assert harm("S", "Smart", types, words) is None


def test_of_two_lists_for_one_field_the_one_its_data_holds_is_the_target():
    goals = (
        "read_type: only Actual, Estimated, Customer or Smart. AMR = Smart, and the single "
        "letters A/E/C/S are the same four."
    )
    values = ["Smart"] * 30 + ["Actual"] * 20 + ["Estimated"] * 5 + ["S", "AMR"]
    spec = read_spec(goals, ["read_id", "read_type"], {"read_type": values})
    assert spec.fields["read_type"].allowed == ("Actual", "Estimated", "Customer", "Smart")


def test_the_case_most_values_write_is_not_made_one_few_write():
    names = ["Brennan Supplies Ltd"] * 20 + ["Iberplast S.L."] * 15 + ["Nordic Fasteners AB"] * 10
    suppliers = portrait(names + ["brennan supplies ltd", "IBERPLAST S.L."])
    lower = Licence.of("lower", shape_of=suppliers)  # "caps, lowercase" read as the target
    assert harm("Brennan Supplies Ltd", "brennan supplies ltd", suppliers, lower)
    assert harm("IBERPLAST S.L.", "iberplast s.l.", suppliers, lower) is None
    statuses = portrait(["active"] * 30 + ["pending"] * 20)
    upper = Licence.of("upper", shape_of=statuses)  # a whole uniform column the goals convert
    assert harm("active", "ACTIVE", statuses, upper) is None


NOTES = [
    "box dented on one corner",
    "  seal broken, contents ok",
    "tag missing  but item unused",
    "customer says wrong size ",
    "no damage found on inspection",
    "strap frayed near the buckle",
    "sole worn, used outdoors",
    "returned in original packing",
] * 3


def test_a_whitespace_only_change_is_named_spacing():
    assert changes("  seal broken ", "seal broken") == {"spacing"}
    assert changes("tag missing  but unused", "tag missing but unused") == {"spacing"}
    assert changes("seal broken", "seal broken") == frozenset()


def test_free_text_keeps_its_whitespace_unless_the_evidence_asks():
    notes = portrait(NOTES)
    assert notes.prose
    trim = ("  seal broken, contents ok", "seal broken, contents ok")
    assert harm(*trim, notes, Licence()) == (
        "it changes the spacing of free text, which is part of the value"
    )
    # the model's reading of a kind that trims is no licence (firm=False); a clause's is
    assert harm(*trim, notes, Licence.of("text", shape_of=notes, firm=False))
    assert harm(*trim, notes, Licence.of("text", shape_of=notes)) is None
    # an example that respaces licenses it, whoever read the kind
    shown = Licence.of(examples=[(" a b ", "a b")], shape_of=notes, firm=False)
    assert harm(*trim, notes, shown) is None


def test_padding_around_a_code_or_a_name_is_no_content():
    codes = portrait(["AB-1001", "AB-1002", "CD-2001", "EF-3001"] * 3)
    assert not codes.prose
    assert harm(" AB-1001 ", "AB-1001", codes, Licence()) is None


def test_the_judge_refuses_a_function_that_trims_notes_the_model_read_as_text():
    rows = [{"notes": n} for n in NOTES]
    after = [{"notes": " ".join(n.split())} for n in NOTES]
    spec = read_spec("notes: free text", ["notes"], {"notes": NOTES[:3]}, check={"notes": NOTES})
    check = harm_check(spec, {"notes": NOTES})
    check.licences["notes"] = Licence.of("text", shape_of=check.portraits["notes"], firm=False)
    exp = {"notes": Expectation("text", (), "model", "normalize_whitespace")}
    verdict = judge_change(rows, after, exp, target="notes", csv_strings=True, harm=check)
    assert verdict.problem and "spacing of free text" in verdict.problem


def test_a_list_the_data_does_not_hold_licenses_no_correction():
    # wrong values the goals show ("seen: 3,990, 4 830") read as a list: the data holds none of
    # them, so a right weight is never turned into one
    weights = [str(3000 + 37 * i) for i in range(40)]
    spec = read_spec('weight: one of "3,990", "17,2 t", "4 830"', ["weight"], {"weight": weights})
    spec.fields["weight"] = replace(
        spec.fields["weight"],
        kind="enum",
        allowed=("3,990", "17,2 t", "4 830"),
        source="instructions",
    )
    check = harm_check(spec, {"weight": weights})
    assert check.licences["weight"].allowed == frozenset()
    assert check.check("weight", "3830", "4 830")
    statuses = portrait(["active"] * 20 + ["pending"] * 10 + ["actve", "Pending "])
    listed = Licence.of("enum", allowed=["active", "pending"], shape_of=statuses)
    assert harm("actve", "active", statuses, listed) is None


def test_a_list_few_values_are_on_licenses_nothing():
    # "normal capitalisation (Priya, not PRIYA)" read as a list: few names are on it, so no name
    # many rows hold is turned into one on it
    names = ["Maria"] * 12 + ["Priya"] * 4 + ["Omar", "Li", "Jose", "Kim"] * 3 + ["PRIYA"]
    goals = "fname: normal capitalisation (Priya, not PRIYA or priya)."
    spec = read_spec(goals, ["fname"], {"fname": names}, check={"fname": names})
    assert spec.fields["fname"].kind == "enum" and "Priya" in spec.fields["fname"].allowed
    check = harm_check(spec, {"fname": names})
    assert check.licences["fname"].allowed == frozenset()
    assert check.check("fname", "Maria", "Priya")


def test_a_few_characters_put_right_into_a_value_many_rows_hold_is_a_repair():
    streets = portrait(["2505 u s highway 431 north"] * 12 + ["1108 ross clark circle"] * 12)
    assert (
        harm("2505xuxsxhighwayx431xnorth", "2505 u s highway 431 north", streets, Licence()) is None
    )
    scores = portrait(["100%"] * 10 + ["97%"] * 10 + ["88%"] * 10)
    assert harm("1xx%", "100%", scores, Licence()) is None
    # a value few rows hold is no target: letters dropped stay harm
    assert harm("2505xuxsxhighwayx431xnorth", "2505 u s highway 431 nort", streets, Licence())


def test_a_kinds_standard_codes_are_no_reading_of_a_list():
    # a state code few rows hold is still a state: a kind's own codes are not the goals' list
    states = portrait(["CA"] * 20 + ["NY"] * 12 + ["OR", "MN", ""])
    codes = Licence.of("us_state", shape_of=states)
    assert codes.standard and harm("", "MN", states, codes) is None
    assert not Licence.of("enum", allowed=["CA", "NY", "MN"], shape_of=states).standard
