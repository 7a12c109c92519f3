"""The goals' document before reading (profiling/document.py): forms written in words put as the
templates the reader knows."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.document import plain_goals
from recursive_cleaner.profiling.spec import read_spec


@pytest.mark.parametrize(
    "said, written",
    [
        ("all one format, year dash month dash day, please", "all one format, YYYY-MM-DD, please"),
        ("dates like 2024-03-22 (year-month-day)", "dates like 2024-03-22 (YYYY-MM-DD)"),
        ("day/month/year", "DD/MM/YYYY"),
        ("month slash day slash year", "MM/DD/YYYY"),
        ("year month day", "year month day"),  # no separator: no template
        ("day-month-day", "day-month-day"),  # a part twice: no date
        ("year-month/day", "year-month/day"),  # two separators: no template
    ],
)
def test_a_dates_parts_named_in_words_are_the_template_they_name(said, written):
    assert plain_goals(said) == written


def test_a_spoken_date_format_binds_the_field():
    spec = read_spec(
        "the received column needs to be all one format, year dash month dash day",
        ["received"],
        {"received": ["2024-03-22", "03/20/2024", "2024-01-05", "Mar 20, 2024", "2024-02-11"]},
    )
    assert spec.fields["received"].kind == "date"
    assert spec.fields["received"].source == "instructions"


def test_a_list_written_in_prose_takes_the_spelling_most_values_have():
    values = ["Too small"] * 6 + ["Wrong item"] * 5 + ["wrong item", "TOO SMALL", "Defective"] * 2
    spec = read_spec(
        "reason should only ever be one of: too small, wrong item, defective",
        ["reason"],
        {"reason": values},
    )
    assert spec.fields["reason"].kind == "enum"
    # the data's convention where more values write it; the goals' spelling where they do
    assert spec.fields["reason"].allowed == ("Too small", "Wrong item", "Defective")


def test_words_that_lead_a_list_caught_in_its_first_item_give_way_to_the_value_the_data_holds():
    values = ["Finance"] * 5 + ["Legal"] * 4 + ["Sales", "Marketing"] * 4 + ["Fin", "legal"]
    spec = read_spec(
        "Department names are inconsistent. Remediation: use only Finance, Legal, Marketing and "
        "Sales, "
        "mapping abbreviations (e.g. Fin), misspellings and case variants accordingly.",
        ["dept"],
        {"dept": values},
    )
    assert spec.fields["dept"].allowed[:4] == ("Finance", "Legal", "Marketing", "Sales")


def test_a_keep_of_values_the_data_holds_is_no_keep_of_the_field():
    names = ["McDonald", "de la Cruz", "van der Berg", "WRIGHT", "Wright", "Smith", "smith"] * 3
    data = {"fname": ["Mary", "KATE", "Omar"] * 7, "l_name": names, "notes": ["x"] * 21}
    goals = (
        "First and last names have surplus spaces. Remediation: remove the spaces and restore "
        'conventional capitalisation (e.g. "WRIGHT" -> "Wright"). Surnames with internal '
        "capitals or lower-case particles (McDonald, de la Cruz, van der Berg and similar) are "
        "already correct and are not to be altered."
    )
    spec = read_spec(goals, list(data), data)
    # the values are kept, not the field; nor is "lower-case particles" the field's case
    assert spec.fields["l_name"].kind not in ("as_is", "lower") and spec.fields["l_name"].asked
    kept = read_spec("Last names are already correct and are not to be altered.", list(data), data)
    assert kept.fields["l_name"].kind == "as_is"  # no values named: the field is kept


def test_the_stem_of_a_numbered_series_names_every_field_of_it():
    fields = ["provider_number", "name", "address_1", "address_2", "address_3", "city"]
    data = {f: [f"{f} {i}" for i in range(10)] for f in fields}
    spec = read_spec(
        "The same provider_number always has the same name, address and city.", fields, data
    )
    assert spec.stated()["provider_number"] == [
        "name",
        "address_1",
        "address_2",
        "address_3",
        "city",
    ]


def test_only_the_first_item_of_a_list_gives_way_to_its_last_words():
    values = ["F"] * 12 + ["E"] * 8 + ["FULL", "laden", "FCL", "MT"] * 2
    goals = (
        "3.4 Laden/empty indicator (fe)\n"
        "    F or E. Synonyms in any case: full, laden, FCL -> F; empty, MT, MTY -> E."
    )
    spec = read_spec(goals, ["fe"], {"fe": values})
    assert "FULL" not in spec.fields["fe"].allowed  # "FCL -> F" is no spelling of "F"
