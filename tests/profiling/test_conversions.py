"""Unit conversions across a number field and its unit field (issue 29, point 2): the words give the
factor and the rounding, the data gives the fields, the direction and the target's spelling."""

from __future__ import annotations

import json
import random

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.profiling.conversions import Conversion, load_conversions, read_conversions
from recursive_cleaner.profiling.conversions.units import places_said
from recursive_cleaner.profiling.goal_text import goal_blocks
from recursive_cleaner.profiling.instructions import goal_sentences
from recursive_cleaner.profiling.spec import load_spec, read_spec
from tests.csv_files import read_csv, write_csv
from tests.fakes import CLEAN_REPLY, FakeBackend


def lab(n: int = 60) -> dict[str, list]:
    """result + unit; every fifth row a glucose in mg/dL, the rest in mmol/L (a few spelled
    'mmol/l')."""
    rng = random.Random(3)
    rows = {"sample_id": [], "result": [], "unit": [], "comment": []}
    for i in range(n):
        rows["sample_id"].append(f"{i:06d}")
        if i % 5 == 0:
            rows["result"].append(str(rng.randrange(70, 300)))
            rows["unit"].append(("mg/dL", "MG/DL", "mg/dl")[i % 3])
        else:
            rows["result"].append(f"{rng.uniform(3, 9):.1f}")
            rows["unit"].append("mmol/l" if i % 7 == 0 else "mmol/L")
        rows["comment"].append("ok")
    return rows


def fleet(n: int = 60) -> dict[str, list]:
    rows = {"volume": [], "volume_unit": [], "odometer": [], "odo_unit": []}
    for i in range(n):
        rows["volume"].append(f"{20 + i}.5")
        rows["volume_unit"].append(
            ("gal", "US gal", "gallons")[i % 3] if i % 6 == 0 else ("ltr" if i % 11 == 0 else "L")
        )
        rows["odometer"].append(str(100000 + i))
        rows["odo_unit"].append("miles" if i % 8 == 0 else "km")
    return rows


def read(goals: str, data: dict[str, list], left_alone=frozenset()) -> list[str]:
    return [
        c.describe()
        for c in read_conversions(goal_sentences(goals), list(data), data, set(left_alone))
    ]


GLUCOSE = "result in mg/dL (unit) becomes mmol/L: / 18, rounded to 1 decimal"


@pytest.mark.parametrize(
    "goals",
    [
        "Take the mg/dL number, divide by 18, round to one decimal, and put mmol/L as the unit.",
        "Convert results given in mg/dL to mmol/L (divide by 18, one decimal).",
        "Convert it to mmol/L (mg/dL / 18, 1 dp) and set its unit to mmol/L.",
        "we still get mg/dL, we need mmol/L -> divide by 18, keep 1 decimal",
        # target first: the data decides
        "We want mmol/L instead of mg/dL: divided by 18 and rounded to 1 decimal place.",
        "mg/dL ÷ 18 = mmol/L, 1 decimal",
    ],
)
def test_the_factor_and_rounding_from_the_words_the_fields_and_direction_from_the_data(goals):
    assert read(goals, lab()) == [GLUCOSE]


def test_two_conversions_in_one_sentence_each_get_their_own_units_and_rounding():
    goals = (
        "Metric only: gallons to litres (x 3.785, 2 decimals) and miles to km (x 1.609, whole "
        "numbers), "
        "with the unit columns set to L and km."
    )
    assert read(goals, fleet()) == [
        "volume in gal (volume_unit) becomes L: x 3.785, rounded to 2 decimals",
        "odometer in miles (odo_unit) becomes km: x 1.609, rounded to 0 decimals",
    ]


def test_the_value_field_is_the_one_the_unit_fields_name_names_and_the_target_as_the_data_writes_it():  # noqa: E501
    goals = (
        "Where the volume unit is gallons, multiply the volume by 3.785 and set the unit to litres."
    )
    [conv] = read_conversions(goal_sentences(goals), list(fleet()), fleet())
    assert (conv.value, conv.unit, conv.source, conv.target, conv.op, conv.by, conv.places) == (
        "volume",
        "volume_unit",
        "gal",
        "L",
        "multiply",
        3.785,
        1,  # no rounding said: the decimals the litre rows write ("20.5")
    )


def test_one_unit_equals_form_gives_the_factor_and_the_data_the_direction():
    assert read("1 gal = 3.785 L, 2 decimals", fleet()) == [
        "volume in gal (volume_unit) becomes L: x 3.785, rounded to 2 decimals"
    ]
    assert read("1 L = 0.2642 gal", fleet()) == [
        "volume in gal (volume_unit) becomes L: / 0.2642, rounded to 1 decimal"
    ]


def test_rounding_the_goals_do_not_give_is_the_one_the_target_rows_write_when_most_agree():
    data = fleet()
    data["volume"] = [f"{20 + i}.25" for i in range(60)]
    assert read("gallons: multiply by 3.785 and set the unit to L", data) == [
        "volume in gal (volume_unit) becomes L: x 3.785, rounded to 2 decimals"
    ]
    data["volume"] = [f"{20 + i}" + (".5" if i % 2 else ".25") for i in range(60)]  # no agreement
    assert read("gallons: multiply by 3.785 and set the unit to L", data) == [
        "volume in gal (volume_unit) becomes L: x 3.785"
    ]
    # "to the nearest km": whole numbers of the target; "the nearest tenth" is no whole number
    assert read("miles: multiply by 1.609, round to the nearest km", fleet()) == [
        "odometer in miles (odo_unit) becomes km: x 1.609, rounded to 0 decimals"
    ]
    assert places_said("round to the nearest km") == 0
    assert places_said("to the nearest tenth") is None


@pytest.mark.parametrize(
    "goals, by",
    [
        ("convert gallons to litres (3.785) and set the unit to L", "x 3.785"),
        ("gallons -> litres (x3.785), unit column just says L", "x 3.785"),
        ("gallons into litres with 3.785", "x 3.785"),
        ("1 US gallon = 3.785 L, 2 decimals", "x 3.785"),
        # no factor given: the unit table's, to four digits
        ("gallons -> litres, unit L", "x 3.785"),
        # a number that is the inverse of the table's factor divides
        ("gallons to litres (0.2642 gal per litre)", "/ 0.2642"),
    ],
)
def test_two_units_joined_by_a_link_are_a_conversion_the_unit_table_confirms(goals, by):
    [got] = read(goals, fleet())
    assert got.startswith(f"volume in gal (volume_unit) becomes L: {by}")


def test_the_factor_may_stand_in_the_sentence_after_the_units_in_one_bullet():
    goals = (
        "- Volume: litres. The US pumps record US gallons; multiply those by 3.785 and round to 2"
        " decimals.\n- Odometer: km please."
    )
    parts = goal_sentences(goals) + goal_blocks(goals, lambda _: False)
    [conv] = read_conversions(parts, list(fleet()), fleet())
    assert conv.describe() == (
        "volume in gal (volume_unit) becomes L: x 3.785, rounded to 2 decimals"
    )
    spec = read_spec(goals, list(fleet()), check=fleet())
    assert [c.describe() for c in spec.conversions] == [conv.describe()]


@pytest.mark.parametrize(
    "goals",
    [
        "miles to km, but only for the trucks",  # km and miles: the odometer, never the volume
        "the dates go to ISO and the names to title case",  # no units
        "litres to gallons",  # the source must be the rarer unit the field holds
    ],
)
def test_a_pair_needs_a_held_rarer_source_and_a_target_of_its_dimension(goals):
    got = read(goals, fleet())
    assert not any(c.startswith("volume") for c in got)


@pytest.mark.parametrize(
    "goals",
    [
        # units inside the values: no unit field
        "Weights: grams / 1000 and lb x 0.4536, 2 decimals.",
        "Divide the budget by 12 for the monthly figure.",  # no units at all
        "Round results to one decimal; units are mg/dL or mmol/L.",  # no factor
    ],
)
def test_no_conversion_without_a_unit_field_units_and_a_factor(goals):
    data = {**lab(), "weight": ["12 lb", "500 g", "1,2 kg"] * 20}
    assert read(goals, data) == []


def test_a_field_the_goals_leave_alone_is_never_converted():
    goals = "Take the mg/dL number, divide by 18 and put mmol/L as the unit."
    assert read(goals, lab(), left_alone={"unit"}) == []
    assert read(goals, lab(), left_alone={"result"}) == []
    spec = read_spec(goals + " Leave the result exactly as it is.", list(lab()), check=lab())
    assert spec.fields["result"].kind == "as_is" and spec.conversions == ()


def test_the_spec_keeps_conversions_and_a_user_can_edit_or_remove_them():
    goals = "Take the mg/dL number, divide by 18, round to one decimal, and put mmol/L as the unit."
    spec = read_spec(goals, list(lab()), check=lab())
    written = json.loads(spec.to_json())
    assert written["conversions"] == [
        {
            "value": "result",
            "unit": "unit",
            "source": "mg/dL",
            "target": "mmol/L",
            "op": "divide",
            "by": 18.0,
            "places": 1,
            "words": goals,
        }
    ]
    assert load_spec(written).conversions == spec.conversions
    assert "conversion: " + GLUCOSE in spec.summary()
    written["conversions"][0]["places"] = 2
    assert load_spec(written).conversions[0].places == 2
    del written["conversions"]
    assert load_spec(written).conversions == ()
    assert "conversions" not in json.loads(
        read_spec("Trim the comments.", list(lab()), check=lab()).to_json()
    )


@pytest.mark.parametrize(
    "entry, message",
    [
        ("x", "must be a list"),
        (["x"], "must be an object"),
        ([{"value": "result"}], "needs unit"),
        (
            [
                {
                    "value": "result",
                    "unit": "unit",
                    "source": "a",
                    "target": "b",
                    "op": "add",
                    "by": 1,
                }
            ],
            "op must be",
        ),
        (
            [
                {
                    "value": "result",
                    "unit": "unit",
                    "source": "a",
                    "target": "b",
                    "op": "divide",
                    "by": 0,
                }
            ],
            "non-zero",
        ),
        (
            [
                {
                    "value": "nope",
                    "unit": "unit",
                    "source": "a",
                    "target": "b",
                    "op": "divide",
                    "by": 2,
                }
            ],
            "no field",
        ),
        (
            [
                {
                    "value": "result",
                    "unit": "unit",
                    "source": "a",
                    "target": "b",
                    "op": "divide",
                    "by": 2,
                    "places": 1.5,
                }
            ],
            "places",
        ),
    ],
)
def test_a_bad_conversion_in_a_spec_file_is_a_one_line_error(entry, message):
    with pytest.raises(ValueError, match=message):
        load_conversions(entry, "spec", {"result", "unit"})


def test_the_generated_function_maps_the_goals_example():
    conv = Conversion("result", "unit", "mg/dL", "mmol/L", "divide", 18.0, 1)
    _, code = conv.function("convert_result")
    space: dict = {}
    exec(compile(code, "<generated>", "exec"), space)  # noqa: S102
    assert space["convert_result"]({"result": "126", "unit": "mg/dL"}) == {
        "result": 7.0,
        "unit": "mmol/L",
    }
    assert space["convert_result"]({"result": "5.5", "unit": "mmol/L"}) == {
        "result": "5.5",
        "unit": "mmol/L",
    }
    # no unit field: unchanged
    assert space["convert_result"]({"result": "126"}) == {"result": "126"}


def test_end_to_end_the_conversion_is_the_first_function_and_applies_to_the_whole_file(tmp_path):
    data = lab(90)
    rows = [dict(zip(data, values)) for values in zip(*data.values())]
    path = tmp_path / "lab.csv"
    write_csv(path, rows)
    goals = (
        "Glucose from the old analyser is in mg/dL: take the mg/dL number, divide by 18, round to "
        "one decimal, "
        "and put mmol/L as the unit (so 126 mg/dL becomes 7.0 mmol/L). Leave the sample_id as it "
        "is."
    )
    out = tmp_path / "cleaning_functions.py"
    backend = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        instructions=goals,
        chunk_size=30,
        holdout_ratio=0.0,
        output_path=str(out),
        state_file=str(tmp_path / "state.json"),
        sleep=lambda s: None,
    ).run()
    assert result.functions[0] == "convert_result"
    assert (
        "convert_unit(record.get('result'), record.get('unit'), 'mg/dL', 'mmol/L', divide=18, "
        "places=1)" in out.read_text()
    )
    apply_file(str(out), str(path), str(tmp_path / "out.csv"), workers=1)
    cleaned = read_csv(tmp_path / "out.csv")
    for before, after in zip(rows, cleaned):
        if before["unit"].lower() == "mg/dl":
            assert after["unit"] == "mmol/L" and float(after["result"]) == round(
                int(before["result"]) / 18, 1
            )
        else:
            assert after["result"] == before["result"] and after["unit"] == "mmol/L"
        assert after["sample_id"] == before["sample_id"]
    # resumed: the conversion is not written twice
    again = DataCleaner(
        FakeBackend(default=CLEAN_REPLY),
        str(path),
        instructions=goals,
        chunk_size=30,
        holdout_ratio=0.0,
        output_path=str(out),
        state_file=str(tmp_path / "state.json"),
        sleep=lambda s: None,
    ).run()
    assert again.functions.count("convert_result") == 1


def _letters(i: int) -> str:
    """A distinct word of letters for each number: 0 -> "aaaa", 1 -> "aaab" ..."""
    out = ""
    for _ in range(4):
        i, r = divmod(i, 26)
        out = "abcdefghijklmnopqrstuvwxyz"[r] + out
    return out


@pytest.mark.parametrize(
    "goals",
    [
        # many distinct a/b units, one factor
        " ".join(_letters(i) + "/l" for i in range(20_000)) + " divide by 18",
        "mg/dL x 2 " * 20_000,  # many factors
        "Take the mg/dL number. " * 10_000 + "divide by 18 and put mmol/L as the unit",
        "mg/dL to mmol/L, " * 20_000,  # many pairs of units joined by a link
    ],
)
def test_hostile_goals_cost_work_in_proportion_to_their_length(goals, monkeypatch):
    from recursive_cleaner.profiling.conversions import reading, units

    calls = []
    real = units.same_unit
    for module in (units, reading):
        monkeypatch.setattr(module, "same_unit", lambda a, b: calls.append(1) or real(a, b))
    for parts in (goal_sentences(goals), goal_blocks(goals, lambda _: False)):
        calls.clear()
        read_conversions(parts, list(lab()), lab())
        # a bounded number of unit comparisons per 100 characters
        assert len(calls) < 200 * len(goals) // 100
