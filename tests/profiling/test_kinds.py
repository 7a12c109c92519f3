"""The kinds' registry (issue 29, point 0): one class per kind; what conforms, the words, the
primitive and its parameters, the priority and the draft's menu are read from it, not from tables of
their own."""

from __future__ import annotations

import pytest

from recursive_cleaner.model.spec_draft import MENU
from recursive_cleaner.profiling import kinds
from recursive_cleaner.profiling.choose import candidates
from recursive_cleaner.profiling.expectations import (
    KIND_PRIMITIVES,
    KIND_PRIORITY,
    KINDS,
    Expectation,
    conforms,
)
from recursive_cleaner.profiling.profiler import profile_field
from recursive_cleaner.profiling.spec import SPEC_KINDS, load_spec


def test_every_table_of_kinds_is_read_from_the_registry():
    assert KINDS == tuple(kinds.REGISTRY) and SPEC_KINDS == KINDS + ("free",)
    assert KIND_PRIMITIVES == {name: kind.primitive for name, kind in kinds.REGISTRY.items()}
    assert KIND_PRIORITY[0] == "phone_e164" and KIND_PRIORITY[-2:] == ("text", "as_is")
    # "5 digits" is the whole format: a shape wins over number, case and text
    assert KIND_PRIORITY.index("integer") < KIND_PRIORITY.index("shape")
    assert KIND_PRIORITY.index("shape") < KIND_PRIORITY.index("number")
    assert sorted(KIND_PRIORITY) == sorted(KINDS)
    for name, kind in kinds.REGISTRY.items():
        assert kind.name == name and (kind.menu.split(" ")[0] == name or not kind.menu), name
        assert (name in MENU) == bool(kind.menu)
    # a shape comes from the goals' examples, not the draft
    assert "shape" not in MENU.split(", ")[16]


def test_the_registry_refuses_a_second_kind_of_one_name_and_a_bad_name():
    with pytest.raises(ValueError, match="already registered"):
        kinds.register(kinds.get("date"))

    class Bad(kinds.Kind):
        name = "two words"

    with pytest.raises(ValueError, match="identifier"):
        kinds.register(Bad())


def test_a_registered_kind_is_checked_described_and_chosen_like_a_built_in():
    class Percent(kinds.Kind):
        name, primitive, priority, words, noun = (
            "percent_text",
            "strip_units",
            50,
            "percentages as 12.5",
            "shares",
        )

        def conforms(self, value, allowed, csv_strings=False):
            return isinstance(value, str) and value.replace(".", "", 1).isdigit()

    kinds.register(Percent())
    try:
        exp = Expectation("percent_text")
        assert conforms("12.5", exp) and not conforms("12.5 %", exp) and conforms("", exp)
        assert exp.describe() == "percentages as 12.5"
        profile = profile_field("share", ["12.5", "7 %", "3.25 %"], exp)
        assert profile.n_offending == 2 and "percentages as 12.5" in (profile.issue or "")
        assert [c.primitive for c in candidates(profile, ["7 %"])] == ["strip_units"]
        assert (
            load_spec({"fields": {"share": {"kind": "percent_text"}}}).fields["share"].kind
            == "percent_text"
        )
    finally:
        del kinds.REGISTRY["percent_text"]
    with pytest.raises(ValueError, match="has kind 'percent_text'"):
        load_spec({"fields": {"share": {"kind": "percent_text"}}})


@pytest.mark.parametrize(
    "name, allowed, strings, words, want",
    [
        (
            "date",
            (),
            ["03/02/2024"],
            "dates are day first",
            ["to_iso_date(value, dayfirst=True)", "to_iso_date(value)"],
        ),
        ("date", (), ["2024-02-03"], "", ["to_iso_date(value)"]),
        (
            "datetime",
            ("%Y-%m-%d %H:%M",),
            ["03/02/2024 14:05"],
            "",
            [
                "to_iso_datetime(value, form='%Y-%m-%d %H:%M')",
                "to_iso_datetime(value, dayfirst=True, form='%Y-%m-%d %H:%M')",
            ],
        ),
        ("enum", ("H", "L"), ["high"], "", ["closest_value(value, ['H', 'L'])"]),
        ("enum", (), ["x"], "", []),
        ("as_is", (), ["x"], "", []),
        ("lower", (), ["X"], "", ["to_lower(value)"]),
    ],
)
def test_each_kind_offers_its_primitive_with_the_parameters_the_data_and_words_call_for(
    name, allowed, strings, words, want
):
    assert [c.call() for c in kinds.get(name).candidates(allowed, strings, words, ())] == want
