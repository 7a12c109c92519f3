"""A reading the data's one form refutes, when the goals write that form themselves
(profiling/convention.py)."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.convention import refuted, written_values
from recursive_cleaner.profiling.expectations import Expectation, conforms
from recursive_cleaner.profiling.instructions import read_goals
from recursive_cleaner.profiling.mentions import FieldMentions
from recursive_cleaner.profiling.spec import read_spec

SKUS = [f"KP-{1000 + i}" for i in range(18)] + ["kp 1019", "KP_1020"]
STAMPS = [f"2024-02-{d:02d} 0{d % 10}:15" for d in range(1, 19)] + [
    "03/02/2024 14:05",
    "3.2.2024 14:05",
]


def test_the_goals_values_templates_and_outputs_are_read():
    found = written_values(
        'SKUs as AB-1234; times like YYYY-MM-DD HH:MM; "high" is H', outputs=["Maria"]
    )
    assert {"Maria", "high", "AB-1234", "0000-00-00 00:00", "H"} <= set(found)


@pytest.mark.parametrize(
    "exp, samples, words, refutes",
    [
        (Expectation("integer"), SKUS, "SKUs as AB-1234", True),  # 18 of 20 would be cut to numbers
        # the goals write no such value
        (Expectation("integer"), SKUS, "the item codes as whole numbers", False),
        (
            Expectation("datetime"),
            STAMPS,
            "collection times (YYYY-MM-DD HH:MM; dotted dates are day-first)",
            True,
        ),
        (
            Expectation("phone_e164"),
            ["(555) 123-4567"] * 20,
            "phones as E.164, like +15551234567",
            False,
        ),
        # most are right
        (Expectation("integer"), [str(i) for i in range(18)] + ["x", "y"], "ids like 17", False),
    ],
)
def test_a_reading_is_refuted_only_by_the_datas_one_form_written_in_the_goals(
    exp, samples, words, refutes
):
    assert (refuted(exp, samples, words, csv_strings=True) is not None) is refutes


def test_a_form_the_goals_show_only_as_an_input_is_no_evidence():
    samples = ["03/02/2024"] * 18 + ["2024-02-03", "2024-02-04"]
    why = refuted(
        Expectation("date"),
        samples,
        '"03/02/2024" -> "2024-02-03"',
        inputs=["03/02/2024"],
        outputs=["2024-02-03"],
        csv_strings=True,
    )
    assert why is None  # the whole column is to be converted: the user showed it


def test_the_spec_drops_a_refuted_reading_and_keeps_a_refuted_enums_examples():
    fields = ["sku", "flag"]
    samples = {"sku": SKUS, "flag": ["H", "L", "N"] * 6 + ["high", "HIGH"]}
    spec = read_spec(
        'SKUs as AB-1234 integers. The flag is H, L or N: "high", "HIGH", "h" is H, "low" is L, '
        '"normal" is N.',
        fields,
        samples,
        csv_strings=True,
    )
    assert spec.fields["sku"].kind != "integer" and "own convention" in spec.fields["sku"].note
    assert spec.fields["flag"].kind == "enum" and set(spec.fields["flag"].allowed) == {
        "H",
        "L",
        "N",
    }


@pytest.mark.parametrize(
    "goals",
    [
        "emp_id and notes stay exactly as they are.",
        "Same for the notes column - whatever is in it stays, even the lower-case ones.",
        "The notes remain unchanged.",
    ],
)
def test_a_field_that_stays_is_left_as_it_is_firmly(goals):
    readings = read_goals(goals + " Lower case everything else.", ["emp_id", "notes", "dept"])
    assert (
        readings["notes"].expectation is not None and readings["notes"].expectation.kind == "as_is"
    )


def test_a_stay_after_another_sentence_is_not_the_subjects():
    readings = read_goals(
        "* state: upper-case 2 letters\n* city without the state\nNames stay as they are.",
        ["city", "state", "beer_name"],
    )
    assert readings["state"].expectation.kind != "as_is"


def test_a_short_name_is_not_a_plural_it_only_looks_like():
    assert FieldMentions(["dept", "sal"]).groups("one of Finance, Sales, Legal") == []
    assert FieldMentions(["box"]).groups("the boxes")


def test_timestamps_the_goals_write_another_iso_way_take_that_form():
    stamps = ["2024-02-03 14:05"] * 17 + [
        "03/02/2024 14:05",
        "3.2.2024 09:10",
        "2024-02-02T18:37:00",
    ]
    spec = read_spec(
        "Collection time should read like 2024-02-03 14:05; slashed dates are day first.",
        ["collected_at"],
        {"collected_at": stamps},
    )
    field = spec.fields["collected_at"]
    assert (field.kind, field.allowed) == (
        "datetime",
        ("%Y-%m-%d %H:%M",),
    ) and "written as YYYY-MM-DD HH:MM" in field.note
    exp = field.expectation()
    assert exp.describe() == "timestamps written as YYYY-MM-DD HH:MM"
    assert conforms("2024-02-03 14:05", exp) and not conforms("2024-02-03T14:05:00", exp)
    assert not conforms("2024-02-30 14:05", exp)


def test_letter_templates_are_written_values():
    assert {"000-000-0000", "AA-0000"} <= set(
        written_values("phone: NNN-NNN-NNNN; SKU format is XX-9999")
    )
    assert "0/A" not in written_values("N/A means missing")


def test_a_kind_guessed_from_the_name_is_refuted_by_the_datas_one_form_alone():
    phones = ["617-555-0143"] * 17 + ["(617) 555-0199", "+1 617 555 0100", "617.555.0111"]
    spec = read_spec("phone: NNN-NNN-NNNN, no country code.", ["phone"], {"phone": phones})
    field = spec.fields["phone"]
    assert (field.kind, field.allowed) == ("shape", ("000-000-0000",))
    assert (
        "a guess from the field's name" in field.note and "the form the goals write" in field.note
    )


def test_a_written_form_with_nothing_to_mend_is_a_description():
    codes = ["AA-3859-IAH-ORD", "UA-12-SFO-LAX", "DL-1234-ATL-JFK"] * 5
    spec = read_spec(
        'flight (airline-number-origin-destination, e.g. "AA-3859-IAH-ORD")',
        ["flight"],
        {"flight": codes},
    )
    assert spec.fields["flight"].kind is None


def test_a_written_timestamp_form_is_a_datetime_not_a_shape():
    stamps = ["2024-02-03 14:05"] * 17 + [
        "01.02.2024 19:11",
        "3.2.2024 09:10",
        "2024-02-02T18:37:00",
    ]
    spec = read_spec(
        "Timestamps: format as 2024-02-03 14:05.", ["collected_at"], {"collected_at": stamps}
    )
    assert (spec.fields["collected_at"].kind, spec.fields["collected_at"].allowed) == (
        "datetime",
        ("%Y-%m-%d %H:%M",),
    )


def test_a_code_the_words_write_belongs_to_the_field_whose_data_has_its_form():
    from recursive_cleaner.profiling.convention import form_owner
    from recursive_cleaner.profiling.spec import read_spec

    items = ["Hex bolt M8x40, box/100", "Washer M10, bag/500", "Cable tie 300mm"] * 4
    skus = ["KL-0042", "AB-1234", "kl 0042", "CD_5678"] * 3
    words = "item codes: always two capitals, dash, four digits (like KL-0042)"
    assert form_owner(words, items, {"sku": skus, "bin": ["00012"] * 12}) == "sku"
    # the named field has that form: it is about it
    assert form_owner(words, skus, {"other": skus}) is None
    # two fields have it: not guessed
    assert form_owner(words, items, {"sku": skus, "sku2": skus}) is None
    # no code: digits alone
    assert form_owner("items like 42 or 7", items, {"sku": ["42"] * 12}) is None
    data = {"item": items, "sku": skus, "qty": ["3"] * 12}
    spec = read_spec(words, list(data), check=data)
    assert spec.fields["sku"].kind == "shape" and spec.fields["sku"].allowed == ("KL-0042",)
    assert spec.fields["sku"].mentioned and not spec.fields["qty"].mentioned
