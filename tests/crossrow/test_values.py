"""How the cross-row steps compare values: ``format_key`` (a value without its format)."""

from __future__ import annotations

import pytest

from recursive_cleaner.crossrow.values import format_key


@pytest.mark.parametrize(
    "a, b",
    [
        ("6:35 a.m.", "06:35 AM"),
        ("New York", "new-york"),
        ("12", 12.0),
        (" 012", "12"),
        ("AB 12", "ab-0012"),
    ],
)
def test_values_that_differ_only_by_format_have_one_key(a, b):
    assert format_key(a) == format_key(b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("6:35 a.m.", "6:35 p.m."),
        ("1.5", "15"),
        ("-5", "5"),
        ("-5 C", "5 C"),
        ("Dec 02 6:35 a.m.", "6:35 a.m."),
        (True, "True"),
        ("", "-"),
    ],
)
def test_values_that_differ_otherwise_do_not(a, b):
    assert format_key(a) != format_key(b)


def test_any_value_has_a_key():
    assert format_key(float("nan")) == format_key(float("nan"))
    assert format_key(["a"]) == format_key(["a"]) != format_key("a")
    assert format_key(None) is None
