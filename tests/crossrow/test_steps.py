"""Cross-row steps: fit/transform semantics, the model's XML, discovery in a sample, and the
cleaner's plan."""

from __future__ import annotations

import importlib.util
import json
import textwrap
from dataclasses import replace

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.crossrow.steps import (
    CrossRowStep,
    apply_steps,
    fit,
    iter_apply,
    rows_changed,
)
from recursive_cleaner.crossrow.xml_form import format_steps, parse_steps
from recursive_cleaner.crossrow.plan import (
    choose_steps,
    discover_steps,
    stated_keys,
    validate_steps,
    wants_dedup,
    with_stated,
)
from tests.fakes import CLEAN_REPLY, FakeBackend

HOSPITALS = [
    ("10001", "mercy hospital", "birmingham"),
    ("10002", "st vincent", "florence"),
    ("10003", "city clinic", "mobile"),
]


def hospital_rows(n_per=6):
    rows = []
    for pid, name, city in HOSPITALS:
        for m in range(n_per):
            rows.append(
                {
                    "provider": pid,
                    "name": name,
                    "city": city,
                    "measure": f"m-{m}",
                    "score": f"{50 + m}%",
                }
            )
    rows[1]["city"] = "birmxngham"  # typo inside a group
    rows[8]["name"] = "st vxncent"  # typo inside a group
    rows[14]["provider"] = "1000x"  # typo in the key itself
    rows[14]["city"] = "mobxle"
    return rows


# --------------------------------------------------------------------------- semantics
def test_majority_repairs_values_that_disagree_with_their_key_group():
    rows = hospital_rows()
    out = apply_steps([CrossRowStep("majority", key=("provider",), fields=("name", "city"))], rows)
    assert out[1]["city"] == "birmingham" and out[8]["name"] == "st vincent"
    # its key has a typo: the row joins the close key whose group it matches (same name), key
    # repaired too
    assert out[14]["city"] == "mobile" and out[14]["provider"] == "10003"
    assert [r["score"] for r in out] == [r["score"] for r in rows]  # other fields untouched


def test_a_mistyped_key_that_matches_no_group_is_left_alone():
    rows = hospital_rows()
    rows[14].update(name="other clinic", city="elsewhere")
    out = apply_steps([CrossRowStep("majority", key=("provider",), fields=("name", "city"))], rows)
    assert out[14] == rows[14]


def test_vocabulary_on_the_key_lets_a_mistyped_row_join_its_group():
    rows = (
        [{"code": "scip-inf-1", "name": "antibiotic on time"}] * 5
        + [{"code": "pn-3b", "name": "blood culture"}] * 5
        + [{"code": "scip-xnf-1", "name": "antibiotic on txme"}]
    )
    steps = [
        CrossRowStep("vocabulary", fields=("code",)),
        CrossRowStep("majority", key=("code",), fields=("name",)),
    ]
    out = apply_steps(steps, rows)
    assert out[-1] == {"code": "scip-inf-1", "name": "antibiotic on time"}


def test_majority_needs_a_clear_majority():
    rows = [
        {"k": 1, "v": "a"},
        {"k": 1, "v": "b"},
        {"k": 2, "v": "c"},
        {"k": 2, "v": "c"},
        {"k": 2, "v": "d"},
    ]
    out = apply_steps([CrossRowStep("majority", key=("k",), fields=("v",))], rows)
    assert [r["v"] for r in out] == ["a", "b", "c", "c", "c"]  # a 1-1 tie is left alone


def test_vocabulary_leaves_well_formed_numbers_and_ambiguous_spellings_alone():
    rows = (
        [{"id": "408"}] * 10
        + [{"id": "409"}]
        + [{"c": "boston"}] * 5
        + [{"c": "bostan"}] * 5
        + [{"c": "bostxn"}]
    )
    out = apply_steps([CrossRowStep("vocabulary", fields=("id", "c"))], rows)
    assert out[10]["id"] == "409"  # two numbers are two values
    assert out[-1]["c"] == "bostxn"  # as close to boston as to bostan, and they are equally common


def test_vocabulary_keeps_short_codes_that_recur_and_repairs_a_single_mistyped_one():
    # beers: "KY" (40 rows) is one edit from "NY" (200 rows) and was rewritten; a recurring short
    # code is a value
    rows = [{"state": "NY"}] * 200 + [{"state": "KY"}] * 40 + [{"state": "Nx"}]
    out = apply_steps([CrossRowStep("vocabulary", fields=("state",))], rows)
    assert [r["state"] for r in out].count("KY") == 40
    assert out[-1]["state"] == "NY"  # seen once: a typo


def test_dedup_keeps_the_first_record_of_each_normalised_key():
    rows = [
        {"email": "A@x.com ", "n": 1},
        {"email": "b@x.com", "n": 2},
        {"email": "a@X.COM", "n": 3},
        {"email": None, "n": 4},
        {"email": None, "n": 5},
    ]
    out = apply_steps([CrossRowStep("dedup", key=("email",))], rows)
    assert [r["n"] for r in out] == [1, 2, 4, 5]  # records without a key are kept


def test_rows_changed_counts_each_steps_records_changed_or_dropped():
    rows = hospital_rows() + [dict(hospital_rows()[0])]  # a duplicate of the first row
    steps = [
        CrossRowStep("majority", key=("provider",), fields=("name", "city")),
        CrossRowStep("dedup", key=("provider", "measure")),
    ]
    # majority mends rows 1, 8 and 14; dedup drops the repeated first row
    assert rows_changed(steps, rows + ["not a record"]) == [3, 1]


def test_two_passes_over_a_stream_keep_memory_per_key():
    def stream():
        for i in range(3000):
            yield {"k": i % 3, "v": "good" if i % 50 else "bad"}

    step = CrossRowStep("majority", key=("k",), fields=("v",))
    fitted = fit([step], stream())
    assert len(fitted.groups[0]) == 3  # one entry per key, not per row
    assert all(r["v"] == "good" for r in iter_apply(fitted, stream()))
    assert fitted.changed[(0, "v")] == 60


def test_step_validation_and_round_trip():
    with pytest.raises(ValueError, match="kind"):
        CrossRowStep("sort")
    with pytest.raises(ValueError, match="key"):
        CrossRowStep("majority", fields=("a",))
    step = CrossRowStep("majority", key=("k",), fields=("a", "b"))
    assert CrossRowStep.from_dict(step.to_dict()) == step
    assert "for each k" in step.describe()


# --------------------------------------------------------------------------- the model's XML
def test_parse_steps_accepts_good_tags_and_explains_bad_ones():
    text = (
        '<cross_row_step kind="majority" key="provider" fields="name, city"/>\n'
        "<cross_row_step kind='dedup' key='email'>\n"
        '<cross_row_step kind="majority" key="provider" fields="nope"/>\n'
        '<cross_row_step kind="explode" key="x"/>\n'
        '<cross_row_step kind="majority" key="city" fields="city"/>'
    )
    steps, problems = parse_steps(text, ["provider", "name", "city", "email"])
    assert steps == [
        CrossRowStep("majority", key=("provider",), fields=("name", "city")),
        CrossRowStep("dedup", key=("email",)),
    ]
    assert len(problems) == 3 and "unknown field(s) nope" in problems[0]
    assert parse_steps(format_steps(steps), None)[0] == steps


def test_choose_steps_tells_an_empty_plan_from_no_plan():
    assert choose_steps("<cross_row_plan></cross_row_plan>", ["a"]) == ([], [])
    chosen, problems = choose_steps("I do not know", ["a"])
    assert chosen is None and problems


# --------------------------------------------------------------------------- discovery
def test_discovery_finds_the_keys_and_their_dependent_fields():
    steps = discover_steps(hospital_rows())
    assert steps[0].kind == "vocabulary" and "provider" in steps[0].fields
    majority = steps[1]
    assert majority.key == ("provider",) and set(majority.fields) == {"name", "city"}
    # each measure has one score here
    assert {s.key for s in steps[1:]} == {("provider",), ("measure",)}


def test_a_field_whose_odd_values_are_other_groups_usual_values_is_not_a_dependency():
    """Beers: a brewery mostly sells 12 oz cans, but its 16 oz beer is right (16 is what others
    sell); 'bostxn' is a typo."""
    rows = []
    for b, city in enumerate(("boston", "denver", "austin", "tampa", "reno")):
        for i in range(10):
            usual, odd = ("16", "12") if b == 4 else ("12", "16")  # reno mostly sells 16 oz
            rows.append(
                {
                    "brewery": f"b{b}",
                    "city": city,
                    "ounces": odd if i == 9 else usual,
                    "beer": f"beer {b}-{i}",
                }
            )
    rows[3]["city"] = "bostxn"
    steps = discover_steps(rows)
    majority = [s for s in steps if s.kind == "majority"]
    assert [(s.key, s.fields) for s in majority] == [(("brewery",), ("city",))]
    fixed = apply_steps(steps, rows)
    # 90% agreement, yet every 16 is right
    assert [r["ounces"] for r in fixed] == [r["ounces"] for r in rows]
    assert fixed[3]["city"] == "boston"
    assert [s.fields for s in discover_steps(rows, stated=["brewery"]) if s.kind == "majority"] == [
        ("city", "ounces")
    ]


def test_discovery_does_not_use_times_or_decimals_as_keys():
    rows = [
        {"t": f"{h}:00 p.m.", "flight": f"AA-{i}", "x": f"{h}.5"} for i in range(30) for h in (1, 2)
    ]
    assert discover_steps(rows) == []


@pytest.mark.parametrize(
    "goals, expected",
    [
        (
            "Several sources report the same flight; the times are the same for every row of that "
            "flight.",
            ["flight"],
        ),
        (
            "The same provider_number always has the same name, city and zip, and the same measure "
            "code has the same "
            "condition.",
            ["provider_number", "measure_code"],
        ),
        ("Within each flight, all reports should agree.", ["flight"]),
        ("Keep the name as it is. Every flight has a time.", []),  # no agreement stated
        ("The same flight is reported many times.", []),  # "same" but no rule about its rows
    ],
)
def test_stated_keys_are_the_keys_the_goals_say_rows_agree_on(goals, expected):
    assert (
        stated_keys(goals, ["flight", "provider_number", "name", "measure_code", "city", "zip"])
        == expected
    )


def flight_rows(agree_every=10):
    """Four sources per flight; the 'sched' field disagrees in 3 of every ``agree_every`` rows."""
    rows = []
    for i in range(40):
        flight, time = f"AA-{100 + i // 4}", f"{1 + (i // 4) % 9}:00 p.m."
        wrong = i % agree_every in (1, 5, 8) and i % 4 != 0
        rows.append(
            {
                "src": f"s{i % 4}",
                "flight": flight,
                "sched": f"{1 + (i // 4 + 1) % 9}:30 p.m." if wrong else time,
            }
        )
    return rows


def test_a_stated_key_needs_only_most_rows_to_agree():
    rows = flight_rows()
    assert discover_steps(rows) == []  # 70% agreement: below what discovery trusts on its own
    steps = discover_steps(rows, stated=["flight"])
    assert [(s.kind, s.key, s.fields) for s in steps] == [
        ("vocabulary", (), ("flight",)),
        ("majority", ("flight",), ("sched",)),
    ]
    fixed = apply_steps(steps, rows)
    assert all(r["sched"] == f"{1 + (i // 4) % 9}:00 p.m." for i, r in enumerate(fixed))


def test_the_lower_bar_of_a_stated_key_holds_only_for_the_fields_stated_with_it():
    # gate agrees with flight as loosely as sched does
    rows = [dict(r, gate=r["sched"]) for r in flight_rows()]
    # "rows of the same flight agree on sched"
    steps = discover_steps(rows, stated={"flight": ["sched"]})
    assert [(s.kind, s.key, s.fields) for s in steps if s.kind == "majority"] == [
        ("majority", ("flight",), ("sched",))
    ]
    # the goals name no field with the key: all of them
    steps = discover_steps(rows, stated={"flight": []})
    assert [s.fields for s in steps if s.kind == "majority"] == [("sched", "gate")]


def test_stated_fields_are_the_fields_named_where_the_key_is_stated():
    from recursive_cleaner.crossrow.plan import stated_fields

    goals = (
        "Rows with the same measure code should agree on the condition and the measure name. "
        "Emergency service is yes or no."
    )
    fields = ["provider_number", "measure_code", "condition", "measure_name", "emergency_service"]
    assert stated_fields(goals, fields) == {"measure_code": ["condition", "measure_name"]}


def test_a_stated_step_the_model_dropped_is_kept():
    candidates = discover_steps(flight_rows(), stated=["flight"])
    # the majority step, not the vocabulary
    assert with_stated([], candidates, ["flight"]) == [candidates[1]]
    assert with_stated([candidates[1]], candidates, ["flight"]) == [candidates[1]]  # no duplicate
    assert with_stated([], candidates, []) == []


def measure_rows():
    """Most hospitals in "al", one in "ga" and one in "ak": state_average depends on state *and*
    measure_code."""
    rows = []
    for h, state in enumerate(["al"] * 30 + ["ga", "ak"]):
        for m in ("ami-1", "hf-2", "pn-3"):
            rows.append(
                {
                    "provider_id": f"1000{h}",
                    "name": f"hospital {h}",
                    "city": f"city {h}",
                    "zip": f"3500{h}",
                    "phone": f"205555000{h}",
                    "state": state,
                    "measure_code": m,
                    "condition": f"cond {m}",
                    "measure_name": f"measure {m}",
                    "state_average": f"{state}_{m}",
                }
            )
    rows[3]["condition"], rows[7]["state_average"] = "cxnd ami-1", "al_hx-2"  # typos
    return rows


def test_discovery_finds_a_field_that_depends_on_a_pair_of_fields():
    steps = discover_steps(measure_rows())
    majority = [(s.key, s.fields) for s in steps if s.kind == "majority"]
    assert (("measure_code",), ("condition", "measure_name")) in majority
    # measure_code alone would write al_... into the ga and ak rows
    assert (("state", "measure_code"), ("state_average",)) in majority
    fixed = apply_steps(steps, measure_rows())
    assert all(r["state_average"] == f"{r['state']}_{r['measure_code']}" for r in fixed)
    assert fixed[3]["condition"] == "cond ami-1"


def test_a_blank_that_comes_with_another_blank_is_not_a_dependency():
    cities = ["Austin", "Boston", "Denver", "Miami", "Tulsa", "Omaha"]
    states = ["TX", "MA", "CO", "FL", "OK", "NE"]
    rows = [
        {"brewery_id": f"{i // 24}", "city": cities[i // 24], "state": states[i // 24]}
        for i in range(144)
    ]
    # the city carries the state and the state is blank, in runs of two
    for i in (0, 1, 24, 25, 48, 49):
        rows[i].update(city=f"{rows[i]['city']} {rows[i]['state']}", state="")
    steps = discover_steps(rows)
    assert [(s.key, s.fields) for s in steps if s.kind == "majority"] == [
        (("brewery_id",), ("city", "state"))
    ]


def test_validation_refuses_steps_that_change_nothing_or_make_a_field_worse():
    rows = hospital_rows()
    useless = CrossRowStep("majority", key=("provider",), fields=("measure",))
    good = CrossRowStep("majority", key=("provider",), fields=("name", "city"))
    kept, refused = validate_steps([useless, good], rows)
    # its key is not stated
    assert kept == [replace(good, variants_only=True)] and "changes nothing" in refused[0][1]
    dates = [{"k": i % 2, "d": "2024-01-0%d" % (1 + i % 9)} for i in range(20)]
    kept, refused = validate_steps([CrossRowStep("vocabulary", fields=("d",))], dates)
    assert kept == [] and refused


def test_wants_dedup():
    assert wants_dedup("Remove duplicates by email") and not wants_dedup("phones to E.164")
    assert not wants_dedup(
        "Keep every record, including duplicates (removing duplicates is a separate step)."
    )


# --------------------------------------------------------------------------- through DataCleaner
def _write(tmp_path, rows):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _load(path):
    spec = importlib.util.spec_from_file_location("cf_cross_row", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_cleaner_writes_the_steps_the_model_confirms(tmp_path):
    rows = hospital_rows()
    plan = (
        '<cross_row_plan><cross_row_step kind="vocabulary" fields="provider"/>'
        '<cross_row_step kind="majority" key="provider" fields="name, city"/></cross_row_plan>'
    )
    backend = FakeBackend(lambda p: plan if "RULES ACROSS ROWS" in p else CLEAN_REPLY)
    events = []
    result = DataCleaner(
        backend,
        str(_write(tmp_path, rows)),
        chunk_size=9,
        instructions="The same provider has the same name and city.",
        output_path=str(tmp_path / "cf.py"),
        on_progress=events.append,
        sleep=lambda s: None,
    ).run()
    # the vocabulary step changed nothing: refused
    assert [s["kind"] for s in result.cross_row] == ["majority"]
    assert any("changes nothing" in reason for _, reason in result.rejected)
    planned = [e for e in events if e["type"] == "cross_row_planned"][0]
    assert planned["source"] == "model"
    prompt = [p for p in backend.history if "RULES ACROSS ROWS" in p][0]
    assert 'key="provider"' in prompt  # the library's candidates were shown
    cleaned = _load(tmp_path / "cf.py").clean_dataset(rows)
    assert cleaned[1]["city"] == "birmingham" and cleaned[14]["city"] == "mobile"
    assert "Cross-row steps" in (tmp_path / "cleaning_report.md").read_text()


def test_the_cleaner_keeps_the_rule_the_goals_state_even_if_the_model_drops_it(tmp_path):
    backend = FakeBackend(
        lambda p: "<cross_row_plan></cross_row_plan>" if "RULES ACROSS ROWS" in p else CLEAN_REPLY
    )
    goals = (  # the rule names the field it writes (a key alone names none: issue 42)
        "Several sites report the same flight; the sched times are the same for every row of that "
        "flight."
    )
    result = DataCleaner(
        backend,
        str(_write(tmp_path, flight_rows())),
        chunk_size=20,
        instructions=goals,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert [(s["kind"], s["key"], s["fields"]) for s in result.cross_row] == [
        ("majority", ["flight"], ["sched"])
    ]
    unstated = DataCleaner(
        FakeBackend(default=CLEAN_REPLY),
        str(_write(tmp_path, flight_rows())),
        chunk_size=20,
        output_path=str(tmp_path / "cf2.py"),
        sleep=lambda s: None,
    ).run()
    assert unstated.cross_row == []


def test_an_unusable_plan_reply_falls_back_to_the_checked_candidates(tmp_path):
    backend = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(_write(tmp_path, hospital_rows())),
        chunk_size=9,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    # measure -> score holds but changes nothing here, so only the provider step is written
    assert [tuple(s["key"]) for s in result.cross_row] == [("provider",)]


def test_a_dedup_step_removes_duplicates_that_sit_in_different_chunks(tmp_path):
    rows = [
        {"id": i, "email": f"user{i}@x.com" if i < 20 else f"USER{i - 20}@X.com "}
        for i in range(24)
    ]
    plan = (
        '<cross_row_plan><cross_row_step kind="dedup" key="email" '
        'normalize="casefold"/></cross_row_plan>'
    )
    backend = FakeBackend(lambda p: plan if "RULES ACROSS ROWS" in p else CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(_write(tmp_path, rows)),
        chunk_size=12,
        instructions="Remove duplicates by email.",
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert (
        result.chunks_total == 2
        and result.cross_row[0]["kind"] == "dedup"
        and result.cross_row[0]["asked"]
    )
    assert (result.cross_row_dropped, result.cross_row_sample) == (4, 24)
    cleaned = _load(tmp_path / "cf.py").clean_dataset(rows)
    assert [r["id"] for r in cleaned] == list(range(20))  # each duplicate pair spans the two chunks


def test_no_candidates_and_no_duplicates_in_the_goals_cost_no_call(tmp_path):
    rows = [{"id": i, "v": f"x{i}"} for i in range(12)]
    backend = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(_write(tmp_path, rows)),
        chunk_size=12,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert result.cross_row == [] and not any("RULES ACROSS ROWS" in p for p in backend.history)
    assert "CROSS_ROW_STEPS" not in (tmp_path / "cf.py").read_text()
    off = FakeBackend(default=CLEAN_REPLY)
    DataCleaner(
        off,
        str(_write(tmp_path, hospital_rows())),
        chunk_size=9,
        cross_row=False,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert not any("RULES ACROSS ROWS" in p for p in off.history)


def test_generated_module_documents_each_step():
    from recursive_cleaner.write.module import render_module

    src = render_module(
        [{"name": "f", "docstring": "d", "code": "def f(record):\n    return record"}],
        cross_row=[CrossRowStep("dedup", key=("email",)).to_dict()],
    )
    assert "# drop records whose email (casefold) was seen before; keep the first" in src
    assert textwrap.dedent("def clean_dataset(records):") in src


# --------------------------------------------------------------------------- votes weighted by
# source
def reported_flights(flights=6):
    """s1-s3 always right; s4 and s5 share a wrong time wherever they report. The last flight is
    reported by s1, s4, s5 only."""
    rows = []
    for f in range(flights):
        sources = ("s1", "s4", "s5") if f == flights - 1 else ("s1", "s2", "s3", "s4", "s5")
        for s in sources:
            rows.append(
                {
                    "flight": f"AA-{f}",
                    "src": s,
                    "dep": "9:00 p.m." if s in ("s4", "s5") else f"{f + 1}:10 a.m.",
                }
            )
    return rows


def test_a_weighted_vote_trusts_the_sources_that_agree_with_the_others():
    plain = apply_steps(
        [CrossRowStep("majority", key=("flight",), fields=("dep",))], reported_flights()
    )
    assert plain[-1]["dep"] == "9:00 p.m."  # two unreliable sites outvote one good one
    weighted = apply_steps(
        [CrossRowStep("majority", key=("flight",), fields=("dep",), weight_by=("src",))],
        reported_flights(),
    )
    assert [r["dep"] for r in weighted] == [f"{int(r['flight'][3:]) + 1}:10 a.m." for r in weighted]


def test_a_blank_does_not_vote_and_is_filled_by_the_weighted_vote():
    rows = reported_flights()[:3]  # s1-s3 on AA-0
    rows[0]["dep"] = ""
    out = apply_steps(
        [CrossRowStep("majority", key=("flight",), fields=("dep",), weight_by=("src",))], rows
    )
    assert out[0]["dep"] == "1:10 a.m."


def test_weight_by_round_trips_and_old_files_stay_the_same():
    step = CrossRowStep("majority", key=("flight",), fields=("dep", "arr"), weight_by=("src",))
    assert parse_steps(format_steps([step]), ["flight", "dep", "arr", "src"]) == ([step], [])
    assert CrossRowStep.from_dict(step.to_dict()) == step
    assert "weight_by" not in CrossRowStep("majority", key=("k",), fields=("v",)).to_dict()
    with pytest.raises(ValueError, match="only a majority step"):
        CrossRowStep("vocabulary", fields=("v",), weight_by=("src",))


def test_a_stated_key_reported_by_sources_gets_a_weighted_vote():
    rows = reported_flights(12)
    weighted = [s for s in discover_steps(rows, stated=["flight"]) if s.kind == "majority"]
    assert [(s.key, s.fields, s.weight_by) for s in weighted] == [(("flight",), ("dep",), ("src",))]
    # not stated: the rows agree too little for the library's own guess of a rule
    assert not discover_steps(rows)
