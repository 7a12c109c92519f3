"""Where the goals name a field: abbreviation links (issue 29, point 3), general rules with no
per-table list."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.mentions import FieldMentions, abbreviation_links, name_parts
from recursive_cleaner.profiling.spec import read_spec


def linked(field: str, text: str, others: tuple[str, ...] = ()) -> list[str]:
    """The words of ``text`` that name ``field``."""
    return [
        text[a:b]
        for a, b, fields in FieldMentions([field, *others]).groups(text)
        if field in fields
    ]


@pytest.mark.parametrize(
    "field, text, words",
    [
        ("fname", "Fix the first names.", "first names"),
        ("l_name", "Last name in Title Case.", "Last name"),
        ("dob", "The date of birth is in ISO format.", "date of birth"),
        ("qty", "The quantity is a whole number.", "quantity"),
        ("hire_dt", "Write the hire date as YYYY-MM-DD.", "hire date"),
        ("dept", "Department names in upper case.", "Department"),
        ("amt", "The amount is a plain number.", "amount"),
        ("sal", "A salary is a number.", "salary"),
        ("abv", "Alcohol by volume as a fraction.", "Alcohol by volume"),
        ("src", "Leave the source names alone.", "source"),
        ("ctry", "Countries as two-letter codes.", "Countries"),
        ("cust_id", "The customer ID is an integer.", "customer ID"),
        ("unitPrice", "The unit price is a number.", "unit price"),
        # id: number, code, id
        ("emp_id", "The employee number must stay as it is.", "employee number"),
        ("order_no", "Order numbers are integers.", "Order numbers"),
        # one stem; at: a time
        ("collected_at", "Collection times as YYYY-MM-DD HH:MM.", "Collection times"),
        ("created_at", "The creation time in ISO.", "creation time"),
        ("collected_at", "Timestamps: format as 2024-02-03 14:05.", "Timestamps"),
        ("zip5", "zip 5 is five digits.", "zip 5"),
    ],
)
def test_a_field_is_linked_by_the_words_its_name_abbreviates(field, text, words):
    assert linked(field, text) == [words]


@pytest.mark.parametrize(
    "field, text",
    [
        ("id", "That is a good idea."),  # two letters: never a prefix alone
        ("st", "The first state is lower case."),  # nor a skeleton alone
        ("st", "Street names in title case."),
        ("l", "The last one."),  # one letter never links alone
        (
            "name",
            "The column named x is fine.",
        ),  # "named" is another word of the stem, not the field
        ("state", "A statement per row."),
        ("owner", "Ownership is unclear."),
        (
            "county",
            "Country codes in upper case.",
        ),  # one letter short of a word is not its skeleton
        ("sal", "We scraped a list of beers."),  # an article is no initial
        ("id", "Leave tuple_id alone."),  # a word inside another field's name
    ],
)
def test_no_link_where_the_rules_see_only_a_coincidence(field, text):
    assert linked(field, text) == []


def test_initials_open_a_part():
    assert linked("email", "emails lowercase, phones E.164") == ["emails"]  # not emai|l(owercase)


def test_name_parts_split_snake_camel_and_digits():
    assert name_parts("schedDepTime") == ["sched", "dep", "time"]
    assert name_parts("address_1") == ["address", "1"] and name_parts("zip5") == ["zip", "5"]
    assert name_parts("L_NAME") == ["l", "name"]


def test_abbreviation_links_counts_the_words_it_spans():
    assert abbreviation_links("dob", ["date", "of", "birth", "is"], 0) == 3
    # the words must stand together
    assert abbreviation_links("dob", ["date", "of", "birth"], 0, stop=2) == 0
    assert abbreviation_links("dob", ["of", "birth"], 0) == 0


def test_an_abbreviated_field_keeps_its_own_format_beside_others():
    from recursive_cleaner.profiling.spec import read_spec

    fields = ["fname", "l_name", "dob", "qty", "dept"]
    spec = read_spec(
        "First names in Title Case. The date of birth is YYYY-MM-DD. Quantity: an integer. "
        "Leave the department alone.",
        fields,
    )
    kinds = {f: spec.fields[f].kind for f in fields}
    assert kinds == {
        "fname": "title_case",
        "l_name": None,
        "dob": "date",
        "qty": "integer",
        "dept": "as_is",
    }
    assert not spec.fields["l_name"].mentioned and not spec.in_scope("l_name")


def test_abbreviation_links_are_read_in_linear_work(monkeypatch):
    """Linear work, counted (calls into profiling, characters handed to its patterns): doubling
    the text adds no more than twice the work; quadratic would add four times."""
    from recursive_cleaner import profiling
    from tests.work_meter import grows_linearly, work_meter

    fields = ["fname", "l_name", "dob", "qty", "hire_dt", "signup_date", "customer_id"]

    def text(n: int) -> str:
        return (
            "date of birth first name quantity " * (3 * n // 20)
            + "a, " * n
            + "a/" * n
            + "a" * 5 * n
        )

    work = work_meter(monkeypatch, profiling)
    grows_linearly(work, lambda n: FieldMentions(fields).groups(text(n)), 2_000)


def test_a_word_for_several_fields_keeps_those_no_specific_mention_names():
    groups = FieldMentions(["dob", "hire_dt", "sal"]).groups(
        "Birth date and hire date as YYYY-MM-DD."
    )
    assert frozenset().union(*(g[2] for g in groups)) == {"dob", "hire_dt"}  # before: hire_dt alone


def test_a_number_is_no_id_without_the_rest_of_the_name():
    assert linked("emp_id", "the number of employees") == []
    assert linked("phone", "the phone number") == ["phone number"]


def test_the_last_mention_of_a_list():
    reader = FieldMentions(["analyte", "unit", "flag"])
    assert reader.groups("units, flags") == [(0, 12, frozenset({"unit", "flag"}))]
    assert (
        reader.last("units, flags") == frozenset({"flag"})
        and reader.last("no field") == frozenset()
    )


def test_the_last_word_of_one_fields_name_opening_a_clause_names_it():
    assert linked("gross_weight", "Weight in kilograms, only the number.", ("unit_price",)) == [
        "Weight"
    ]
    assert linked("gross_weight", "- the weight in kg", ("unit_price",)) == ["the weight"]
    # not its subject
    assert linked("gross_weight", "Convert each weight to kg.", ("unit_price",)) == []


@pytest.mark.parametrize(
    "text",
    ["First and last names: normal capitalisation", "- first/last name columns: proper case"],
)
def test_a_word_several_items_share_names_each_field_it_spells_with_them(text):
    fields = frozenset().union(
        *(g[2] for g in FieldMentions(["fname", "l_name", "dob"]).groups(text))
    )
    assert fields == {"fname", "l_name"}


def test_names_is_a_word_for_the_name_fields_unless_it_follows_one():
    reader = FieldMentions(["fname", "l_name", "city", "beer_name"])
    assert reader.groups("Standardise names (Title Case)")[0][2] == {"fname", "l_name", "beer_name"}
    assert [g[2] for g in reader.groups("City names are in Title Case")] == [frozenset({"city"})]


def test_a_heading_is_a_label_never_a_sentence():
    reader = FieldMentions(["grade", "weight"])
    assert reader.heading("Grade: upper case.") == {"grade"}
    assert reader.heading("- weight (kg): two decimals") == {"weight"}
    assert reader.heading("Grades are letters. Weight: two decimals") == frozenset()


def test_the_column_named_by_the_last_word_of_one_field_is_that_field():
    """Session 16 (books chat with the model): "the year column" is pub_year, the one field whose
    name ends in "year"; "four-digit" had gone to the ISBN named before it."""
    fields = ["isbn", "pub_year", "pages", "record_id"]
    text = "the ISBNs should be plain, and the year column should be just the four-digit year"
    assert [g[2] for g in FieldMentions(fields).groups(text)] == [{"isbn"}, {"pub_year"}]
    spec = read_spec(text.replace("plain", "plain 13 digits"), fields)
    assert spec.fields["pub_year"].allowed == ("9999",)
    assert spec.fields["isbn"].allowed == ("9" * 13,)


def test_a_name_whose_last_word_is_a_unit_is_named_by_the_words_before_it():
    fields = ["visit_id", "weight_kg", "fee", "reading_kwh", "price_usd"]
    reader = FieldMentions(fields)
    named = lambda text: [sorted(f) for _, _, f in reader.groups(text)]  # noqa: E731
    assert named("4. Weight - the column is meant to be kilograms") == [["weight_kg"]]
    assert named("the reading itself is in kilowatt hours") == [["reading_kwh"]]
    assert named("prices in dollars") == [["price_usd"]]
    # a stem another field's name holds: never weight_kg by it
    both = FieldMentions(["gross_weight", "weight_kg"])
    assert all("weight_kg" not in f for _, _, f in both.groups("the weight column"))
