"""profiling.improvement: no change to a field the goals leave alone, to a value an example keeps,
or to a right number."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.profiling.improvement import (
    judge_change,
    judge_holdout,
    same_number,
    untouchable_change,
)
from recursive_cleaner.profiling.spec import load_spec

ROWS = [
    {"postcode": p, "price": v, "currency": "EUR"}
    for p, v in [
        ("01907", "14.90"),
        ("12345", "7"),
        ("00501", "3,50"),
        ("99999", "7.0"),
        ("02134", "2 EUR"),
    ]
]
NUMBER = {"price": Expectation("number", (), "instructions", "to_number")}


def _with(rows, field, fn):
    return [{**r, field: fn(r[field])} for r in rows]


def _to_number(text):
    try:
        value = float(str(text).replace(",", ".").replace("EUR", "").strip())
    except ValueError:
        return text
    return (
        int(value)
        if value.is_integer() and "." not in str(text) and "," not in str(text)
        else value
    )


def test_a_function_stripping_zeros_from_a_protected_postcode_is_refused():
    # '01907' -> 1907: the data "looks like" numbers
    after = _with(ROWS, "postcode", lambda p: int(p))
    for target in ("postcode", "price", None):
        verdict = judge_change(ROWS, after, NUMBER, target=target, frozen=frozenset({"postcode"}))
        assert (
            verdict.problem
            and "'postcode'" in verdict.problem
            and "do not ask to change" in verdict.problem
        )


def test_a_number_conversion_that_keeps_the_value_changes_no_right_value():
    # '14.90' -> 14.9, '7' -> 7, '7.0' -> 7.0, '3,50' -> 3.5
    after = _with(ROWS, "price", _to_number)
    verdict = judge_change(
        ROWS, after, NUMBER, target="price", csv_strings=True, frozen=frozenset({"postcode"})
    )
    assert verdict.problem is None, verdict.problem
    assert verdict.before["price"] == 2 and verdict.after.get("price", 0) == 0


def test_a_conversion_that_changes_a_right_number_is_still_refused():
    after = _with(ROWS, "price", lambda v: 15.0 if v == "14.90" else _to_number(v))
    verdict = judge_change(ROWS, after, NUMBER, target="price", csv_strings=True)
    assert (
        verdict.problem
        and "already right" in verdict.problem
        and "'14.90' -> 15.0" in verdict.problem
    )


@pytest.mark.parametrize(
    "old, new, zeros, same",
    [
        ("14.90", 14.9, False, True),
        ("7", 7, False, True),
        ("7.0", 7.0, False, True),
        ("12", 12, False, True),
        ("7.0", 7, False, True),
        (" 3.5 ", "3.50", False, True),
        ("1e3", 1000, False, True),
        ("01907", 1907, False, False),
        ("01907", 1907, True, True),
        ("0.5", 0.5, False, True),
        ("14.90", 14.8, False, False),
        ("nan", float("nan"), False, False),
        ("inf", float("inf"), False, False),
        ("1", True, False, False),
        ("abc", "abc", False, False),
    ],
)
def test_same_number_compares_finite_values_and_codes_with_leading_zeros_as_text(
    old, new, zeros, same
):
    assert same_number(old, new, leading_zeros=zeros) is same


def test_a_leading_zero_code_keeps_its_value_only_where_the_goals_ask_a_number():
    rows = [{"zip": z} for z in ("01907", "12345", "0x501", "99999")]
    after = [{"zip": "00501" if r["zip"] == "0x501" else int(r["zip"])} for r in rows]
    from_data = {"zip": Expectation("integer", (), "data", "to_int")}
    refused = judge_change(rows, after, from_data, target="zip", csv_strings=True)
    assert refused.problem and "'01907' -> 1907" in refused.problem
    asked = {"zip": Expectation("integer", (), "instructions", "to_int")}
    after_asked = [{"zip": 501 if r["zip"] == "0x501" else int(r["zip"])} for r in rows]
    assert judge_change(rows, after_asked, asked, target="zip", csv_strings=True).problem is None


def test_an_identity_example_protects_the_value_and_every_value_of_its_shape():
    spec = load_spec(
        {
            "fields": {
                "price": {"kind": "number", "examples": [["14.90", "14.90"]]},
                "postcode": {"kind": "as_is"},
                "currency": {"kind": "as_is"},
            }
        }
    )
    kept = spec.kept()  # {'price': {'9.9'}}
    after = _with(ROWS, "price", _to_number)
    verdict = judge_change(
        ROWS,
        after,
        spec.expectations(),
        target="price",
        csv_strings=True,
        frozen=frozenset(spec.frozen()),
        kept=kept,
    )
    assert (
        verdict.problem
        and "keep as they are" in verdict.problem
        and "'14.90' -> 14.9" in verdict.problem
    )
    # '3,50' is another shape
    only_commas = _with(ROWS, "price", lambda v: v.replace(",", ".") if "," in v else v)
    assert (
        judge_change(
            ROWS,
            only_commas,
            spec.expectations(),
            target="price",
            csv_strings=True,
            frozen=frozenset(spec.frozen()),
            kept=kept,
        ).problem
        is None
    )


def test_the_open_pass_and_held_out_records_check_protection_too():
    after = _with(ROWS, "postcode", lambda p: p.lstrip("0"))
    assert untouchable_change(ROWS, after, {"postcode"}) is not None
    assert untouchable_change(ROWS, after, set(), {"postcode": frozenset({"9"})}) is not None
    assert untouchable_change(ROWS, after, {"currency"}) is None
    worse = judge_holdout(ROWS, after, NUMBER, frozen=frozenset({"postcode"}))
    assert worse and worse.startswith("On records you were not shown") and "'postcode'" in worse
