"""The toolkit's number parameters and counts: to_number(decimal=), words_to_number, to_count,
infer_decimal."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recursive_cleaner import toolkit as tk
from recursive_cleaner.toolkit import infer_decimal, to_count, to_number, words_to_number


@pytest.mark.parametrize(
    "value, decimal, expected",
    [
        ("14,90", ",", 14.9),
        ("1.234,50", ",", 1234.5),
        ("1,234", ",", 1.234),
        ("€ 1.234.567,8", ",", 1234567.8),
        ("1 234,50 €", ",", 1234.5),
        ("-3,5", ",", -3.5),
        ("12", ",", 12.0),
        ("1,234", ".", 1234.0),
        ("1,234.50", ".", 1234.5),
        ("$3.20", ".", 3.2),
        ("1,234", None, 1234.0),
        ("14,90", None, 14.9),  # auto: a comma before three digits groups them
    ],
)
def test_to_number_reads_the_decimal_mark_it_is_given(value, decimal, expected):
    got = to_number(value, decimal=decimal)
    assert got == expected and isinstance(got, float)


@pytest.mark.parametrize(
    "value, decimal",
    [
        ("1.5", ","),  # a dot that does not group by three, where the comma is the decimal mark
        ("1,234.50", ","),
        ("14,90", "."),
        ("1.234,50", "."),
        ("1,2,3", ","),
        ("12", ";"),
    ],
)
def test_to_number_leaves_what_the_mark_forbids_unchanged(value, decimal):
    assert to_number(value, decimal=decimal) == value


def test_to_number_decimal_with_integer_and_whole_as_int():
    assert to_number("1.234,00", decimal=",", integer=True) == 1234
    assert to_number("12,0 kg", decimal=",", whole_as_int=True) == 12
    assert to_number("16,9 oz", decimal=",", whole_as_int=True) == 16.9


@pytest.mark.parametrize(
    "text, number",
    [
        ("zero", 0),
        ("one", 1),
        ("Twelve", 12),
        ("twenty", 20),
        ("twenty-one", 21),
        ("Twenty One", 21),
        ("one hundred", 100),
        ("a hundred", 100),
        ("one hundred and five", 105),
        ("two hundred twenty-two", 222),
        ("one thousand two hundred", 1200),
        ("a thousand", 1000),
        ("three million four thousand", 3_004_000),
        ("a dozen", 12),
        ("dozen", 12),
        ("two dozen", 24),
    ],
)
def test_words_to_number(text, number):
    assert words_to_number(text) == number


@pytest.mark.parametrize(
    "text",
    [
        "five five",
        "one twenty",
        "twenty hundred",
        "thousand",
        "hundred",
        "zero one",
        "eleven twelve",
        "lots",
        "one thousand one thousand",
        "twelve apples",
        "",
        "12",
        "one and",
        "one hundred and and five",
    ],
)
def test_words_to_number_leaves_what_is_not_one_number_unchanged(text):
    assert words_to_number(text) == text


@pytest.mark.parametrize(
    "text, count",
    [
        ("12", 12),
        (" 12 ", 12),
        ("twelve", 12),
        ("3 pcs", 3),
        ("3pcs", 3),
        ("3 pcs.", 3),
        ("three units", 3),
        ("x4", 4),
        ("X 4", 4),
        ("4x", 4),
        ("4 ×", 4),
        ("1,200 units", 1200),
        ("5.0 items", 5),
        ("a dozen", 12),
        ("twenty-one pieces", 21),
        (7, 7),
        (7.0, 7),
    ],
)
def test_to_count(text, count):
    got = to_count(text)
    assert got == count and type(got) is int


@pytest.mark.parametrize(
    "text", ["3.5 pcs", "3 big boxes", "x", "4 x 6", "lots", "1-2", 2.5, None, True]
)
def test_to_count_leaves_other_values_unchanged(text):
    assert to_count(text) is text


@pytest.mark.parametrize(
    "values, mark",
    [
        (["14,90", "7,50", "12"], ","),
        (["1.234,50", "99"], ","),
        (["3.20", "1,234.50"], "."),
        (["1,234", "12"], None),
        (["14,90", "3.20"], None),
        ([None, 12, "abc"], None),
        (["1.2.3", "10:30"], None),
    ],
)
def test_infer_decimal(values, mark):
    assert infer_decimal(values) == mark


NUMBERISH = st.lists(
    st.sampled_from(
        list("0123456789 ,.-$€")
        + ["kg", "pcs", "x", "twelve", "one", "hundred", "and", "-", "a", "dozen"]
    ),
    max_size=10,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(NUMBERISH, st.text(max_size=20)), decimal=st.sampled_from([None, ",", "."]))
def test_number_helpers_are_idempotent_and_total(value, decimal):
    for function in (lambda v: to_number(v, decimal=decimal), to_count, words_to_number):
        once = function(value)
        assert function(once) == once and type(function(once)) is type(once)
        assert once is value or isinstance(once, (int, float))  # unchanged when not parsed


@settings(max_examples=200, deadline=None)
@given(number=st.integers(min_value=0, max_value=999_999))
def test_words_round_trip_through_a_spelled_number(number):
    assert words_to_number(_spell(number)) == number
    assert to_count(_spell(number) + " pcs") == number


_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen "
    "seventeen eighteen nineteen".split()
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def _spell(n: int) -> str:
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10 - 2] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        return _ONES[n // 100] + " hundred" + (" and " + _spell(n % 100) if n % 100 else "")
    return _spell(n // 1000) + " thousand" + (" " + _spell(n % 1000) if n % 1000 else "")


def test_the_new_primitives_are_offered_to_generated_code():
    assert {"to_count", "words_to_number", "to_unit", "to_shape"} <= set(tk.PRIMITIVES)
    # for the library's own choice, not for generated code
    assert "infer_decimal" not in tk.PRIMITIVES


def test_to_number_absolute_writes_the_amount_without_its_sign():
    from recursive_cleaner.toolkit import to_number

    assert to_number("-$191.99", absolute=True) == 191.99
    assert to_number("(45.99)", absolute=True) == 45.99
    assert to_number("12", absolute=True) == 12.0
    assert to_number("ORD-5000", absolute=True) == "ORD-5000"  # a hyphen after letters: no sign
    assert to_number(-3, absolute=True) == 3.0
