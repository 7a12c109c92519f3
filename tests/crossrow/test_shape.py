"""The ``shape`` cross-row kind: a value off the field's shape by a character or two becomes the one
value of that shape the field holds that fits; never a guess."""

from __future__ import annotations

from collections import Counter

from recursive_cleaner.apply.dask_fit import merge_summaries
from recursive_cleaner.crossrow.kinds import shape as shape_module
from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps, fit, summarize

STEP = CrossRowStep("shape", fields=("score",))


def scores(extra: list[str]) -> list[dict]:
    """Percentages: 100% often, 85% and 90% to 99% each a dozen times, and ``extra``."""
    values = ["100%"] * 60 + [f"{n}%" for n in [85, *range(90, 100)] for _ in range(12)]
    return [{"id": k, "score": v} for k, v in enumerate(values + extra)]


def test_a_lost_character_comes_back_when_one_held_value_fits():
    data = scores(["95#", "?00%", "1ab%", "9?%", "x5%"])
    fitted = fit([STEP], data)
    out = [fitted.transform(r)["score"] for r in data[-5:]]
    # "95#": only "95%" (the "%" is the field's); "?00%", "1ab%": only "100%" is held; "9?%"
    # could be 90% to 99%, "x5%" 85% or 95%: which is a guess, so left alone
    assert out == ["95%", "100%", "100%", "9?%", "x5%"]
    assert fitted.changed == Counter({(0, "score"): 3})


def test_a_digit_is_never_another_digit_nor_a_number_another_number():
    data = scores(["96%", "12.5%"]) + [{"id": 0, "score": "1,234"}]
    data += [{"id": 1, "score": "1.234"}] * 60
    out = apply_steps([STEP], data)
    assert out == data  # a rare value of the usual shape, a shape of its own, two numbers


def test_a_value_of_a_shape_of_its_own_is_left_alone():
    # "95#" twenty times: a form the data uses, not a slip
    data = scores(["95#"] * 20)
    assert apply_steps([STEP], data) == data


def test_an_id_that_lost_digits_joins_its_key_group():
    ids, cities = ["10002", "10012", "10022", "10032"], ["oslo", "bergen", "bodo", "molde"]
    rows = [{"id": ids[k % 4], "city": cities[k % 4]} for k in range(80)]
    rows += [{"id": "1q002", "city": "oslq"}, {"id": "1q0z2", "city": "tromso"}]
    steps = [
        CrossRowStep("majority", key=("id",), fields=("city",)),
        CrossRowStep("shape", fields=("id",)),
    ]
    out = apply_steps(steps, rows)
    assert out[-2] == {"id": "10002", "city": "oslo"}  # the key fixed, so its group speaks
    assert out[-1]["id"] == "1q0z2"  # 10002, 10012, 10022, 10032 all fit: left alone


def test_a_protected_field_is_never_written():
    data = scores(["95#"])
    step = CrossRowStep("shape", fields=("score",), protected=("score",))
    assert apply_steps([step], data) == data


def test_summaries_of_parts_merge_into_the_whole_files_fit(monkeypatch):
    data = scores(["95#", "?00%", "9?%"])
    whole = fit([STEP], data)
    parts = [summarize([STEP], data[k : k + 17]) for k in range(0, len(data), 17)]
    merged = merge_summaries([STEP], *parts)
    assert not merged.capped and merged.fitted().fits == whole.fits
    assert whole.fits[0].restored == {"score": {"95#": "95%", "?00%": "100%"}}
    # past the cap of distinct values: the summaries say which cells Dask recounts
    monkeypatch.setattr(shape_module, "MAX_VALUES", 5)
    parts = [summarize([STEP], data[k : k + 17]) for k in range(0, len(data), 17)]
    merged = merge_summaries([STEP], *parts)
    whole = summarize([STEP], data)
    assert merged.capped == whole.capped == {(0, "score")}
    merged.recounted(merged.recount(merged.capped, data))
    whole.recounted(whole.recount(whole.capped, data))
    assert merged.fitted().fits == whole.fitted().fits
