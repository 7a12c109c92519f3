"""A cross-row step that writes a field keeps the goals' examples for it (crossrow/validate.py
validate_steps)."""

from __future__ import annotations

from recursive_cleaner.crossrow.validate import validate_steps
from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps
from tests.crossrow.test_harm import shop_rows


def test_a_majority_step_may_not_write_an_examples_input():
    rows = shop_rows()
    for i in range(0, 72, 6):
        # 01907: the raw spelling wins the vote in most of its rows
        rows[i]["country"] = "Deutschland"
    rows[6]["country"] = "DE"
    step = CrossRowStep("majority", key=("postcode",), fields=("country",))
    assert apply_steps([step], rows)[6]["country"] == "Deutschland"  # what the step would do
    assert validate_steps([step], rows, stated=["postcode"])[0]  # without examples it is kept
    kept, refused = validate_steps(
        [step], rows, stated=["postcode"], examples={"country": [("Deutschland", "DE")]}
    )
    assert kept == [] and "'Deutschland' into country" in refused[0][1]


def test_a_step_may_not_turn_an_examples_input_into_another_value():
    rows = shop_rows()
    rows[0]["country"] = "Holland"  # 01907 is DE in the other rows; the goals say Holland is NL
    step = CrossRowStep("majority", key=("postcode",), fields=("country",))
    kept, refused = validate_steps(
        [step], rows, stated=["postcode"], examples={"country": [("Holland", "NL")]}
    )
    assert kept == [] and "'Holland' of country into 'DE', not 'NL'" in refused[0][1]


def test_a_vocabulary_step_may_not_respell_an_examples_output():
    rows = shop_rows()
    for i in range(0, 72, 2):
        rows[i]["status"] = "paid"
    rows[1]["status"] = "pad"  # a rare spelling one edit from the frequent "paid"
    step = CrossRowStep("vocabulary", fields=("status",))
    kept, _ = validate_steps([step], rows)
    assert kept and apply_steps(kept, rows)[1]["status"] == "paid"
    # the goals keep "pad"
    kept, refused = validate_steps([step], rows, examples={"status": [("pad", "pad")]})
    assert kept == [] and "pad" in refused[0][1]
