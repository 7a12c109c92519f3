"""The toolkit's units and shapes: to_unit(target, digits, decimal), to_shape(example),
infer_dayfirst."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recursive_cleaner.toolkit import infer_dayfirst, to_iso_date, to_shape, to_unit


@pytest.mark.parametrize(
    "value, target, expected",
    [
        ("500 g", "kg", 0.5),
        ("500g", "kg", 0.5),
        ("1.2 kg", "kg", 1.2),
        ("1,5 kg", "kg", 1.5),
        ("2 KG", "g", 2000.0),
        ("250 mg", "g", 0.25),
        ("1 lb", "g", 453.59237),
        ("16 oz", "lb", 1.0),
        ("3 Pounds", "kg", 1.36077711),
        ("1.5 t", "kg", 1500.0),
        ("12 in", "cm", 30.48),
        ("6 ft", "m", 1.8288),
        ("5'", "in", 60.0),
        ("2.5 km", "m", 2500.0),
        ("1 mile", "km", 1.609344),
        ("750 ml", "l", 0.75),
        ("33 cl", "ml", 330.0),
        ("1 gal", "l", 3.785411784),
        ("12 fl oz", "ml", 354.882354750),
        ("12 fl. oz.", "ml", 354.88235475),
        ("2 l", "Liters", 2000.0 / 1000),
        ("1.2", "kg", 1.2),
        ("-3 kg", "g", -3000.0),
    ],
)
def test_to_unit_converts_to_the_target(value, target, expected):
    got = to_unit(value, target)
    assert isinstance(got, float) and abs(got - expected) < 1e-9


def test_to_unit_rounds_to_digits_and_reads_the_decimal_mark():
    assert to_unit("2 lb", "kg", digits=2) == 0.91
    assert to_unit("1,500 g", "kg") == 1.5 and to_unit("1,500 g", "kg", decimal=",") == 0.0015
    assert to_unit("1.500 g", "kg", decimal=",") == 1.5


@pytest.mark.parametrize(
    "value, target",
    [
        ("2 m", "kg"),
        ("5 parsecs", "m"),
        ("1 lb 4 oz", "g"),
        ("5'11\"", "cm"),
        ("heavy", "kg"),
        ("12 kg", "stone"),
        ("", "kg"),
        (12, "kg"),
        (1.5, "g"),
        (None, "kg"),
        ("x" * 100, "kg"),
    ],
)
def test_to_unit_leaves_what_it_cannot_convert_unchanged(value, target):
    assert to_unit(value, target) is value


@pytest.mark.parametrize(
    "value, example, expected",
    [
        ("ab 1234", "AB-1234", "AB-1234"),
        ("AB_1234", "AB-1234", "AB-1234"),
        ("ab1234", "AB-1234", "AB-1234"),
        ("AB-1234", "AB-1234", "AB-1234"),
        ("Ab.12.34", "AB-1234", "AB-1234"),
        ("xy 9", "ab_0", "xy_9"),
        ("ab 12 cd", "AB-12-CD", "AB-12-CD"),
        ("5551234567", "(555) 123-4567", "(555) 123-4567"),
    ],
)
def test_to_shape_writes_the_value_in_the_examples_form(value, example, expected):
    assert to_shape(value, example) == expected


@pytest.mark.parametrize(
    "value, example",
    [
        ("ab 12345", "AB-1234"),
        ("1234 ab", "AB-1234"),
        ("abc 1234", "AB-1234"),
        ("", "AB-1234"),
        ("ab 1234", "----"),
        (1234, "1234"),
        (None, "AB-1"),
        ("ab 1234", None),
    ],
)
def test_to_shape_leaves_other_forms_unchanged(value, example):
    assert to_shape(value, example) is value


@pytest.mark.parametrize(
    "value, example, expected",
    [
        ("ISBN: 978-1-86-197876-9", "9781861978769", "9781861978769"),
        ("ISBN 9781861978769", "9781861978769", "9781861978769"),
        ("c1998", "1998", "1998"),
        ("c. 1994", "1998", "1994"),
        ("1994 AD", "1998", "1994"),
        ("ab 1234", "1998", "1234"),  # a label is any word of letters: the caller chooses
        ("ab 1234", "AB-1234", "AB-1234"),  # the example has letters there: nothing dropped
        ("ISBN 12", "1998", "ISBN 12"),  # still not the example's digits: unchanged
        ("1998", "1998", "1998"),
    ],
)
def test_to_shape_with_label_drops_a_word_the_example_has_no_letters_for(value, example, expected):
    assert to_shape(value, example, label=True) == expected
    assert to_shape(expected, example, label=True) == expected
    if value != expected and not any(c.isalpha() for c in example):
        assert to_shape(value, example) == value  # only when asked


@pytest.mark.parametrize(
    "values, dayfirst",
    [
        (["25/03/2023", "03/04/2023"], True),
        (["03/25/2023", "04/03/2023"], False),
        (["03/04/2023", "2023-04-05"], None),
        (["25/03/2023", "03/25/2023"], None),
        (["31.12.2022"], True),
        ([None, 5, "soon"], None),
        (["13/13/2023"], None),
    ],
)
def test_infer_dayfirst(values, dayfirst):
    assert infer_dayfirst(values) is dayfirst


def test_the_inferred_order_is_the_one_to_iso_date_takes():
    values = ["25/03/2023", "03/04/2023"]
    assert [to_iso_date(v, dayfirst=infer_dayfirst(values)) for v in values] == [
        "2023-03-25",
        "2023-04-03",
    ]


AMOUNTS = st.builds(
    lambda n, u: f"{n} {u}",
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(lambda f: round(f, 3)),
    st.sampled_from(
        ["g", "kg", "lb", "oz", "mg", "m", "cm", "ft", "in", "l", "ml", "gal", "parsec", ""]
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    value=st.one_of(AMOUNTS, st.text(max_size=30)),
    target=st.sampled_from(["kg", "g", "lb", "m", "ml", "zz"]),
    digits=st.sampled_from([None, 0, 2]),
)
def test_to_unit_is_idempotent_and_total(value, target, digits):
    once = to_unit(value, target, digits=digits)
    assert to_unit(once, target, digits=digits) == once
    assert once is value or isinstance(once, float)


@settings(max_examples=300, deadline=None)
@given(
    value=st.text(alphabet="abAB019 -_.x", max_size=12),
    example=st.sampled_from(["AB-1234", "a1", "9-9-a", "A B"]),
)
def test_to_shape_is_idempotent_and_keeps_the_values_letters_and_digits(value, example):
    once = to_shape(value, example)
    assert to_shape(once, example) == once
    assert [c.lower() for c in once if c.isalnum()] == [c.lower() for c in value if c.isalnum()]


def test_unit_dimension():
    from recursive_cleaner.toolkit import unit_dimension

    assert [unit_dimension(u) for u in ("kg", "Pounds", "fl. oz.", "km", "parsec", None)] == [
        "mass",
        "mass",
        "volume",
        "length",
        None,
        None,
    ]


# ---------------------------------------------------------------- convert_unit (a number field and
# its unit field)

from recursive_cleaner.toolkit import convert_unit  # noqa: E402


@pytest.mark.parametrize(
    "value, unit, expected",
    [
        ("126", "mg/dL", (7.0, "mmol/L")),
        ("126", "MG/DL", (7.0, "mmol/L")),
        ("99", "mg / dl", (5.5, "mmol/L")),
        ("7.0", "mmol/l", ("7.0", "mmol/L")),  # a spelling of the target: the unit alone
        # another unit: unchanged
        ("7.0", "mmol/L", ("7.0", "mmol/L")),
        ("88", "umol/L", ("88", "umol/L")),
        ("", "mg/dL", ("", "mg/dL")),
        (None, "mg/dL", (None, "mg/dL")),
        ("n/a", "mg/dL", ("n/a", "mg/dL")),
        ("126", None, ("126", None)),
        (126, "mg/dL", (7.0, "mmol/L")),
    ],
)
def test_convert_unit_divides_the_source_rows_and_writes_the_target(value, unit, expected):
    assert convert_unit(value, unit, "mg/dL", "mmol/L", divide=18, places=1) == expected


def test_convert_unit_knows_the_spellings_of_one_unit_and_rounds():
    gal = [
        convert_unit(v, u, "gal", "L", multiply=3.785, places=2)
        for v, u in [
            ("76.58", "US gal"),
            ("76.58", "gallons"),
            ("76.58", "GAL"),
            ("12", "ltr"),
            ("12", "litres"),
        ]
    ]
    assert gal == [(289.86, "L")] * 3 + [("12", "L"), ("12", "L")]
    assert convert_unit("165353", "miles", "mi", "km", multiply=1.609, places=0) == (266053, "km")
    assert isinstance(convert_unit("10", "mi", "mi", "km", multiply=1.609, places=0)[0], int)
    # no places: float noise dropped
    assert convert_unit("10", "mi", "mi", "km", multiply=1.609) == (16.09, "km")


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"multiply": 2, "divide": 3},
        {"divide": 0},
        {"multiply": "2"},
        {"multiply": float("nan")},
        {"multiply": True},
    ],
)
def test_convert_unit_without_one_usable_factor_changes_nothing(kwargs):
    assert convert_unit("126", "mg/dL", "mg/dL", "mmol/L", **kwargs) == ("126", "mg/dL")


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(st.none(), st.text(max_size=12), st.floats(allow_nan=True), st.integers()),
    st.sampled_from(["gal", "US gal", "L", "ltr", "km", "", None, "mg/dL"]),
)
def test_convert_unit_is_total_and_idempotent(value, unit):
    once = convert_unit(value, unit, "gal", "L", multiply=3.785, places=2)
    assert convert_unit(*once, "gal", "L", multiply=3.785, places=2) == once


def test_to_shape_with_several_forms_takes_the_one_that_fits():
    forms = ["BTS-6874-08", "SLB-2196-R", "JKT-2420-XS"]
    assert to_shape("jkt 6342 m", forms) == "JKT-6342-M"
    assert to_shape("BTS398207", forms) == "BTS-3982-07"
    assert to_shape("PNT9344XL", forms) == "PNT-9344-XL"
    assert to_shape("JKT 6342 XXL", forms) == "JKT 6342 XXL"  # no form fits: as it came
    assert to_shape("AB12", ["AB-12", "A-B12"]) == "AB12"  # two forms fit and disagree
