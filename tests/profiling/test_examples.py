"""The goals' examples (profiling/examples.py): each form, the tie to a field by its data, ambiguity
dropped."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.example_checks import (
    example_failures,
    format_examples,
    maps_example,
)
from recursive_cleaner.profiling.examples import fitting_examples, goal_examples
from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.profiling.spec import goal_examples as from_spec
from recursive_cleaner.profiling.spec import load_spec, read_spec

FIELDS = ["sku", "price", "weight", "signup", "country", "status"]
DATA = {
    "sku": ["AB-1234", "CD-5678", "ab 1234", "EF_9012", "GH-3456", "IJ-7890"],
    "price": ["14,90", "7,50", "3.20", "12,00", "9,99", "1,25"],
    "weight": ["500 g", "1.2 kg", "2 lb", "750 g", "0.5 kg", "3 lb"],
    "signup": ["25/03/2023", "03/04/2023", "2023-04-05", "12/11/2022", "01/02/2023", "30/01/2023"],
    "country": ["Germany", "DE", "France", "FR", "Italy", "IT"],
    "status": ["active", "actve", "pending", "active", "churned", "Pending "],
}


@pytest.mark.parametrize(
    "goals, expected",
    [
        # an arrow: bare values (one word each) or quoted
        ('"ab 1234" -> AB-1234', ("ab 1234", "AB-1234")),
        ('"ab 1234" -> "AB-1234"', ("ab 1234", "AB-1234")),
        ("“ab 1234” → “AB-1234”", ("ab 1234", "AB-1234")),
        ("'ab 1234' => 'AB-1234'", ("ab 1234", "AB-1234")),
        ('so "ab 1234" becomes AB-1234.', ("ab 1234", "AB-1234")),
        ('"ab 1234" should be "AB-1234"', ("ab 1234", "AB-1234")),
        ('"ab 1234" should become "AB-1234"', ("ab 1234", "AB-1234")),
        ('"ab 1234" is turned into "AB-1234"', ("ab 1234", "AB-1234")),
        ('"ab 1234" is AB-1234', ("ab 1234", "AB-1234")),
        ('convert "ab 1234" to "AB-1234"', ("ab 1234", "AB-1234")),
        ('from "ab 1234" to "AB-1234"', ("ab 1234", "AB-1234")),
        ('replace "ab 1234" with "AB-1234"', ("ab 1234", "AB-1234")),
        ("14,90 → 14.90", ("14,90", "14.90")),
        ("the prices use a decimal comma, so 14,90 is 14.90", ("14,90", "14.90")),
        ('"ab 1234" should all end up as AB-1234', ("ab 1234", "AB-1234")),
        ('"ab 1234" gives "AB-1234"', ("ab 1234", "AB-1234")),
    ],
)
def test_each_form_gives_the_pair(goals, expected):
    found = goal_examples(goals, FIELDS, DATA)
    assert [expected] == [p for pairs in found.values() for p in pairs]


@pytest.mark.parametrize(
    "goals",
    [
        "A sku like AB-1234 stays AB-1234.",
        "AB-1234 stays as it is.",
        "AB-1234 remains.",
        '"AB-1234" is kept.',
        "keep AB-1234 as is",
        "leave AB-1234 unchanged",
    ],
)
def test_identity_forms_keep_the_value(goals):
    assert goal_examples(goals, FIELDS, DATA) == {"sku": (("AB-1234", "AB-1234"),)}


def test_a_list_of_inputs_gives_one_pair_each_and_no_identity():
    goals = '"Germany", "DE" and "Deutschland" all become "DE"; "France" or "FR" -> "FR".'
    assert goal_examples(goals, FIELDS, DATA) == {
        "country": (("Germany", "DE"), ("Deutschland", "DE"), ("France", "FR"))
    }


def test_pairs_in_one_sentence_do_not_run_into_each_other():
    found = goal_examples("price: 14,90 → 14.90, and 3.50 stays 3.50!", FIELDS, DATA)
    assert found == {"price": (("14,90", "14.90"), ("3.50", "3.50"))}


def test_the_data_ties_a_pair_to_the_field_holding_its_input_whatever_the_sentence_names():
    # the sentence names no field: "ab 1234" is a value of sku (two bare words: the data holds
    # them), "99,50"
    # has the shape of price's values
    assert goal_examples("For instance ab 1234 -> AB-1234 and 99,50 -> 99.50.", FIELDS, DATA) == {
        "sku": (("ab 1234", "AB-1234"),),
        "price": (("99,50", "99.50"),),
    }
    # the same shape in two fields: the one the sentence names
    data = {**DATA, "weight": ["1,5", "2,0"]}
    assert goal_examples("Prices: 99,50 -> 99.50.", FIELDS, data) == {
        "price": (("99,50", "99.50"),)
    }
    # two fields, none named: dropped
    assert goal_examples("Also 99,50 -> 99.50.", FIELDS, data) == {}


def test_a_bullet_heading_names_the_field_of_the_sentences_below_it():
    goals = '- sku: codes in one form.\n  They vary. Then "q q" -> "Q-Q".\n- price: numbers'
    assert goal_examples(goals, FIELDS, {}) == {"sku": (("q q", "Q-Q"),)}


@pytest.mark.parametrize(
    "goals",
    [
        '"Not Available" -> empty',  # no data holds it, and no field is named
        "- status -> text",  # a heading that names a field is not an example
        'status is "active" or "pending"',  # "X is ..." where X names a field
        "This is a table of products.",  # ordinary words around "is"
        "weights like 5 kg -> 5000 g",  # a bare value glued to another ("5 kg"): quote it
        "United States -> US",  # neither word is a value of its own
        "the price 3 stays 4",  # "stays" with another value is no identity
    ],
)
def test_what_is_not_read_as_an_example(goals):
    assert goal_examples(goals, FIELDS, DATA) == {}


def test_without_data_a_sentence_naming_one_field_ties_its_pairs():
    assert goal_examples("Write the country as a code: Germany => DE.", FIELDS) == {
        "country": (("Germany", "DE"),)
    }
    assert goal_examples("The sku and the price: 01907 -> 01907", FIELDS) == {}  # two fields named


def test_spec_goal_examples_is_the_same_function():
    assert from_spec is goal_examples


def test_read_spec_keeps_pairs_whose_output_is_right_and_reads_a_shape_from_them():
    spec = read_spec(
        "The sku codes: ab 1234 becomes AB-1234. Prices are numbers: 14,90 -> 14.90, "
        '"7,50" -> "seven".',
        FIELDS,
        DATA,
    )
    # 'seven' is no number: not a right output
    assert spec.fields["price"].examples == (("14,90", "14.90"),)
    sku = spec.fields["sku"]
    assert (sku.kind, sku.allowed, sku.source) == ("shape", ("AB-1234",), "examples")
    exp = sku.expectation()
    assert exp.primitive == "to_shape" and "AB-1234" in exp.describe()
    assert load_spec(spec.to_dict()).fields["sku"].kind == "shape"


def test_no_shape_where_the_data_does_not_have_it_mostly_or_the_field_has_a_kind():
    data = {**DATA, "sku": ["ab 1234", "cd 5678", "ef 9012", "gh 3456", "AB-1111", "x"]}
    assert read_spec("sku: ab 1234 becomes AB-1234", FIELDS, data).fields["sku"].kind is None
    title = read_spec("sku in upper case: ab 1234 becomes AB-1234", FIELDS, DATA).fields["sku"]
    assert title.kind == "upper" and title.examples == (("ab 1234", "AB-1234"),)
    assert (
        read_spec("sku in upper case: zz 99 becomes ZZ-99", FIELDS, DATA).fields["sku"].examples
        == ()
    )
    # ("99" after a word, not a value of the data: "like 99" or "zz 99"? not guessed)


def test_fitting_examples_by_kind():
    number = Expectation("number")
    assert fitting_examples((("14,90", "14.90"), ("N/A", "empty")), number) == (("14,90", "14.90"),)
    assert fitting_examples((("a", "b"), ("c", "c")), Expectation("as_is")) == (("c", "c"),)
    assert fitting_examples((("ab 1", "AB-1"),), None, ["AB-2", "cd 3"]) == (("ab 1", "AB-1"),)
    assert fitting_examples((("zz", "Q-Q"),), None, ["AB-2", "cd 3"]) == ()


def test_maps_example_compares_numbers_by_value_and_text_exactly():
    assert (
        maps_example(14.9, "14.90")
        and maps_example(1234, "1234")
        and maps_example("AB-1234", "AB-1234")
    )
    assert not maps_example(1907, "01907") and not maps_example("ab-1234", "AB-1234")
    assert maps_example(None, "") and maps_example(True, "true")
    assert maps_example("14.9", "14.90", Expectation("number")) and not maps_example(
        "14.9", "14.90"
    )


def test_example_failures_name_what_breaks():
    cases = [("price", "14,90", "14.90"), ("sku", "ab 1", "AB-1")]
    outs = [{"price": 14.9, "sku": "x"}, {"price": "1", "sku": "ab 1"}]
    # sku left as it came: not this function's field
    assert example_failures(cases, outs, strict={"price"}) == []
    broke = example_failures(cases, outs, strict={"sku"})
    assert broke == ["'sku': 'ab 1' should become 'AB-1', it gives 'ab 1'"]
    assert (
        "raised"
        in example_failures(cases[:1], [None], errors=["ValueError: x"], strict={"price"})[0]
    )
    # another field's function: kept as it came
    assert example_failures(cases[:1], [None], errors=["ValueError: x"]) == []
    assert "'14,90' -> '14.90'" in format_examples((("14,90", "14.90"),))


HOSTILE_GOALS = {  # n units of each hostile text
    "one-word": lambda n: "a" * (5 * n),
    "arrows": lambda n: "x -> " * n,
    "long-list": lambda n: '"a", ' * n + "all become b",
    "many-is": lambda n: "1 is " * n,
    "many-pairs": lambda n: "- sku: " + "ab 1 -> AB-1, " * (n // 2),
    "many-sentences": lambda n: ("Lower case. " * (n // 2)) + "ab 1234 -> AB-1234",
}


@pytest.mark.parametrize("name", list(HOSTILE_GOALS))
def test_hostile_goals_are_read_in_linear_work(name, monkeypatch):
    """Linear work, counted (calls into profiling, characters handed to its patterns): doubling
    the goals adds no more than twice the work (bench/hostile_goals.py times such texts)."""
    from recursive_cleaner import profiling
    from tests.work_meter import grows_linearly, work_meter

    work = work_meter(monkeypatch, profiling)
    grows_linearly(work, lambda n: goal_examples(HOSTILE_GOALS[name](n), FIELDS, DATA), 1_000)


def test_a_field_its_examples_change_is_mentioned_by_them():
    spec = read_spec(
        'Item codes: "ab 1234" and "EF_9012" should all end up as AB-1234.', FIELDS, DATA
    )
    assert spec.fields["sku"].mentioned and spec.fields["sku"].kind == "shape"
    kept = read_spec("A sku like AB-1234 stays AB-1234.", FIELDS, DATA).fields["sku"]
    # named by the words "A sku"
    assert kept.examples == (("AB-1234", "AB-1234"),) and kept.mentioned
    # a kept value alone
    assert not read_spec("AB-1234 stays AB-1234.", FIELDS, DATA).fields["sku"].mentioned


def test_case_examples_give_a_shape_over_a_trimming_reading():
    names = ["Maria", "Anne Marie", "MARIA", "  maria", "Jose", "Li", "Omar", "Kim"] * 3
    spec = read_spec(
        'names: no extra spaces, so "MARIA" or "  maria" becomes "Maria"',
        ["fname"],
        {"fname": names},
    )
    assert spec.fields["fname"].kind == "shape"
    assert (
        read_spec(
            'names: no extra spaces, "  Maria" becomes "Maria"',
            ["fname"],
            {"fname": names},
            # whitespace only: the trimming reading stands
        )
        .fields["fname"]
        .kind
        == "text"
    )


def test_a_value_in_square_brackets_is_one_example_input():
    fields, data = ["code", "year"], {"code": ["X1", "Y2"], "year": ["[2001]", "1999", "2004"]}
    assert goal_examples("Years: [1998] or c1998 -> 1998.", fields, data) == {
        "year": (("[1998]", "1998"), ("c1998", "1998"))
    }
    # a bracket glued to a word is no value of its own
    assert goal_examples("a[1998] -> 1998", fields, data) == {}


def test_a_shape_several_fields_share_goes_to_the_one_with_its_exact_shape():
    fields = ["ref", "year", "size"]
    data = {
        "ref": ["b100000", "b100001", "q200417"],
        "year": ["c1980", "1999", "2004", "[2001]"],
        "size": ["12", "7"],
    }
    # "c1998" is a9 like "b100000" and "c1980"; only the year's values are a9999
    assert goal_examples("The publication date (c1998 or [1998] is 1998).", fields, data) == {
        "year": (("c1998", "1998"), ("[1998]", "1998"))
    }
    # the exact shape in two fields: dropped, never guessed
    data["ref"].append("x2000")
    assert goal_examples("The publication date: c1998 -> 1998.", fields, data) == {}


def test_an_equals_sign_links_an_example_to_its_output():
    from recursive_cleaner.profiling.spec import read_spec

    data = {"reason": ["Too large", "Defective", "Faulty", "Too big"] * 5}
    goals = 'reason: one of Too large, Defective. "Too big" = Too large; "Faulty" = Defective.'
    assert read_spec(goals, ["reason"], data).fields["reason"].examples == (
        ("Too big", "Too large"),
        ("Faulty", "Defective"),
    )
