"""Reflection: candidates measured in the real sandbox, the decisions, model mode with the fake
backend, dedup."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.model.llm import LLMStats
from recursive_cleaner.judge.reflection import (
    DEFAULT_MINIMUMS,
    DEFAULT_WEIGHTS,
    DIMENSIONS,
    Critique,
    ReflectionConfig,
    ReflectionStats,
    code_similarity,
    combine_model_reply,
    critique,
    find_duplicate,
    model_prompt,
)
from tests.fakes import FakeBackend

PHONE = {"phone": Expectation("phone_e164")}
RECORDS = [
    {"name": "Ann", "phone": "555-123-4567"},
    {"name": "Bob", "phone": "(555) 987 6543"},
    {"name": "Cy", "phone": "+15551112222"},
    {"name": "Di", "phone": "+15553334444"},
]
HIDDEN = [{"name": "Eve", "phone": "555.222.3333"}, {"name": "Fay", "phone": "+15557778888"}]

GOOD = '''import re


def fix_phone(record):
    """Phones as E.164."""
    value = record.get("phone")
    if isinstance(value, str) and not value.startswith("+"):
        record["phone"] = "+1" + re.sub(r"\\D", "", value)
    return record
'''


def phone_fix(
    extra: str = "",
    *,
    guard: str = 'isinstance(value, str) and not value.startswith("+")',
    new: str = '"+1" + re.sub(r"\\D", "", value)',
) -> str:
    """A phone fixer with one thing changed: the guard, the new value, or an extra line in the
    branch."""
    body = f"\n        {extra}" if extra else ""
    return (
        f'import re\n\n\ndef fix_phone(record):\n    value = record.get("phone")\n'
        f'    if {guard}:\n        record["phone"] = {new}{body}\n    return record\n'
    )


def judge(code: str, records=RECORDS, name: str = "fix_phone", **kw) -> Critique:
    kw.setdefault("target", "phone")
    kw.setdefault("expectations", PHONE)
    return critique(code, name, records, **kw)


# ---------------------------------------------------------------- the measured dimensions
def test_a_good_candidate_scores_high_on_every_dimension_and_is_accepted():
    result = judge(GOOD, hidden=HIDDEN)
    assert result.dimensions == dict.fromkeys(DIMENSIONS, 1.0)
    assert result.score == 1.0 and result.decision == "accept" and result.accepted
    assert "all 6 records (4 shown, 2 held out)" in result.evidence["runs"]
    assert "3 wrong values before, 0 after" in result.evidence["fixes_issue"]
    assert result.evidence["specific"] == "it changed only 'phone'"
    assert (
        "left the 3 record(s) whose 'phone' already conforms unchanged"
        in result.evidence["side_effects"]
    )
    assert "idempotent" in result.evidence["side_effects"]
    assert result.examples == [
        "'phone': '555-123-4567' -> '+15551234567'",
        # visible records only
        "'phone': '(555) 987 6543' -> '+15559876543'",
    ]


def test_runs_counts_the_records_it_raises_on_including_held_out_ones():
    code = phone_fix(guard='not value.startswith("+")')  # AttributeError on None
    result = judge(code, hidden=[{"name": "Eve", "phone": None}])
    assert result.dimensions["runs"] == pytest.approx(4 / 5)
    assert "4 of 5 records (4 shown, 1 held out) ran" in result.evidence["runs"]
    assert "held-out record 0 raised AttributeError" in result.evidence["runs"]
    assert result.decision == "refine" and result.blocked_by == ["runs"]


def test_runs_is_zero_and_the_candidate_discarded_when_the_code_breaks_the_policy():
    result = judge("import os\n\ndef fix_phone(record):\n    return record\n")
    assert result.dimensions == dict.fromkeys(DIMENSIONS, 0.0)
    assert "safety policy" in result.evidence["runs"]
    assert result.decision == "discard"
    text = result.feedback()
    assert "- runs 0.00: The code breaks the safety policy" in text
    assert "- fixes_issue, specific, side_effects: not measured until it returns a dict" in text
    assert "cannot be accepted" not in text


def test_runs_flags_a_function_that_returns_no_dict():
    result = judge("def fix_phone(record):\n    record['phone'] = 'x'\n")
    assert result.dimensions["runs"] == 0.0 and "returned None" in result.evidence["runs"]
    assert result.decision == "discard"


def test_specific_flags_a_candidate_that_touches_another_field():
    result = judge(phone_fix('record["name"] = record["name"].upper()'))
    assert result.dimensions["fixes_issue"] == 1.0
    assert result.dimensions["specific"] == 0.5
    assert "'name' in 2 record(s)" in result.evidence["specific"]
    assert result.decision == "refine" and result.blocked_by == ["specific"]


def test_side_effects_flags_changes_to_records_that_already_conform():
    names = [{"name": n} for n in ("ann lee", "BOB RAY", "Cy McDonald", "Di Hall")]
    code = "def fix_name(record):\n    record['name'] = record['name'].title()\n    return record\n"
    result = critique(
        code, "fix_name", names, target="name", expectations={"name": Expectation("title_case")}
    )
    assert result.dimensions["fixes_issue"] == 1.0 and result.dimensions["specific"] == 1.0
    assert result.dimensions["side_effects"] == 0.5
    assert (
        "changed 1 of 2 record(s) whose 'name' already conforms" in result.evidence["side_effects"]
    )
    assert "'Cy McDonald' -> 'Cy Mcdonald'" in result.evidence["side_effects"]
    assert result.score == pytest.approx(0.9) and result.decision == "accept"
    strict = ReflectionConfig(minimums={**DEFAULT_MINIMUMS, "side_effects": 1.0})
    again = critique(
        code,
        "fix_name",
        names,
        target="name",
        expectations={"name": Expectation("title_case")},
        config=strict,
    )
    assert again.decision == "refine" and again.blocked_by == ["side_effects"]


def test_side_effects_flags_a_function_that_is_not_idempotent():
    offending = RECORDS[:2]
    code = phone_fix(guard="isinstance(value, str)")  # prefixes '+1' again on every run
    result = judge(code, offending)
    assert result.dimensions["fixes_issue"] == 1.0
    assert result.dimensions["side_effects"] == 0.0
    assert "not idempotent" in result.evidence["side_effects"]
    assert "'+15551234567' -> '+115551234567'" in result.evidence["side_effects"]


def test_side_effects_flags_a_suffix_appended_on_every_run_without_a_target():
    notes = [{"note": "call back"}, {"note": "paid"}]
    code = (
        "def tag_note(record):\n    record['note'] = record['note'] + ' (checked)'\n    return "
        "record\n"
    )
    result = critique(code, "tag_note", notes)
    assert result.dimensions["side_effects"] == 0.0
    assert (
        "'call back (checked)' -> 'call back (checked) (checked)'"
        in result.evidence["side_effects"]
    )
    assert result.dimensions["fixes_issue"] == 0.5  # changed values the profile does not judge
    assert result.evidence["specific"] == "it changed only 'note'"


def test_side_effects_flags_dropped_fields():
    result = judge(phone_fix('record.pop("name", None)'))
    assert result.dimensions["side_effects"] == 0.5
    assert (
        "dropped fields from 2 of 4 record(s): 'name' in 2 record(s)"
        in result.evidence["side_effects"]
    )


def test_blanking_the_wrong_values_does_not_fix_them():
    result = judge(phone_fix(new="None"))
    assert result.dimensions["fixes_issue"] == 0.0
    assert "2 value(s) were blanked" in result.evidence["fixes_issue"]
    assert result.decision == "refine" and "fixes_issue" in result.blocked_by


def test_without_a_target_the_fields_its_code_writes_are_the_scope():
    result = critique(GOOD, "fix_phone", RECORDS, expectations=PHONE)
    assert result.dimensions == dict.fromkeys(DIMENSIONS, 1.0)
    assert "wrong values 2 -> 0" in result.evidence["fixes_issue"]
    nothing = critique(
        "def keep(record):\n    return record\n", "keep", RECORDS, expectations=PHONE
    )
    assert (
        nothing.dimensions["fixes_issue"] == 0.0
        and "changed nothing" in nothing.evidence["fixes_issue"]
    )
    assert nothing.decision == "refine" and nothing.blocked_by == ["fixes_issue"]


def test_without_a_target_making_a_field_worse_scores_zero():
    emails = [{"email": "a@x.com"}, {"email": "b@y.org"}, {"email": "C@Z.NET"}]
    code = "def shout(record):\n    record['email'] = record['email'].upper()\n    return record\n"
    result = critique(code, "shout", emails, expectations={"email": Expectation("email")})
    assert result.dimensions["fixes_issue"] == 0.0
    assert "'email' 1 -> 3 wrong values" in result.evidence["fixes_issue"]


def test_records_must_be_given_and_json_serialisable():
    with pytest.raises(ValueError, match="records must not be empty"):
        critique(GOOD, "fix_phone", [])
    with pytest.raises(TypeError, match="JSON-serialisable"):
        critique(GOOD, "fix_phone", [{"phone": object()}])


# ---------------------------------------------------------------- decisions and configuration
@pytest.mark.parametrize(
    "score, decision",
    [
        (0.0, "discard"),
        (0.29, "discard"),
        (0.3, "refine"),
        (0.69, "refine"),
        (0.7, "accept"),
        (1.0, "accept"),
    ],
)
def test_the_pattern_thresholds_decide(score, decision):
    assert ReflectionConfig().decide(score, dict.fromkeys(DIMENSIONS, 1.0)) == (decision, [])


def test_a_dimension_under_its_minimum_blocks_accept_but_not_discard():
    config = ReflectionConfig()
    assert config.decide(0.9, {**dict.fromkeys(DIMENSIONS, 1.0), "runs": 0.9}) == (
        "refine",
        ["runs"],
    )
    assert config.decide(0.1, {**dict.fromkeys(DIMENSIONS, 1.0), "runs": 0.0}) == (
        "discard",
        ["runs"],
    )
    assert ReflectionConfig(minimums={}).decide(0.9, {"runs": 0.5}) == ("accept", [])


def test_custom_thresholds_and_unnormalised_weights():
    config = ReflectionConfig(
        weights={"runs": 1, "fixes_issue": 3}, accept_threshold=0.9, discard_threshold=0.5
    )
    assert config.measured_score(
        {"runs": 1.0, "fixes_issue": 0.5, "specific": 0.0}
    ) == pytest.approx(0.625)
    assert config.decide(0.625, {}) == ("refine", [])
    assert config.decide(0.49, {}) == ("discard", [])
    assert config.decide(0.9, {}) == ("accept", [])


def test_defaults_follow_the_pattern():
    config = ReflectionConfig()
    assert (
        config.weights
        == DEFAULT_WEIGHTS
        == {"runs": 0.3, "fixes_issue": 0.3, "specific": 0.2, "side_effects": 0.2}
    )
    assert (
        config.accept_threshold,
        config.discard_threshold,
        config.max_refine_rounds,
        config.mode,
    ) == (0.7, 0.3, 2, "rules")
    config.weights["runs"] = 0  # each config has its own dicts
    assert ReflectionConfig().weights["runs"] == 0.3


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"weights": {"actionable": 0.3}}, "unknown weight"),
        ({"weights": {"runs": -1}}, "weights\\['runs'\\]"),
        ({"weights": {"runs": 0, "specific": 0}}, "above 0"),
        ({"weights": {}}, "non-empty"),
        ({"weights": {"runs": True}}, "weights"),
        ({"weights": {"runs": float("inf")}}, "weights"),
        ({"accept_threshold": 1.5}, "accept_threshold"),
        ({"discard_threshold": float("nan")}, "discard_threshold"),
        ({"accept_threshold": 0.4, "discard_threshold": 0.5}, "must not exceed"),
        ({"max_refine_rounds": -1}, "max_refine_rounds"),
        ({"max_refine_rounds": 1.5}, "max_refine_rounds"),
        ({"mode": "llm"}, "mode"),
        ({"minimums": {"clarity": 0.5}}, "unknown minimum"),
        ({"minimums": {"runs": 2}}, "minimums"),
        ({"model_weight": -0.1}, "model_weight"),
        ({"dedup_threshold": 0}, "dedup_threshold"),
    ],
)
def test_invalid_configuration_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ReflectionConfig(**kwargs)


# ---------------------------------------------------------------- feedback and stats
def test_feedback_names_the_weak_dimensions_with_numbers_and_what_to_keep():
    result = Critique(
        "fix_phone",
        0.62,
        "refine",
        {"runs": 0.8, "fixes_issue": 1.0, "specific": 0.5, "side_effects": 1.0},
        {"runs": "4 of 5 records ran", "specific": "it changed 'name'"},
        ["runs", "specific"],
        minimums={"runs": 1.0, "specific": 1.0},
    )
    text = result.feedback()
    assert "quality 0.62 of 1.00 (accepted from 0.70); decision: refine" in text
    assert text.index("- specific 0.50: it changed 'name'") < text.index(
        "- runs 0.80: 4 of 5 records ran"
    )
    assert "cannot be accepted while runs is below 1.00, specific is below 1.00." in text
    assert "Keep what already works: fixes_issue 1.00, side_effects 1.00." in text
    assert result.weak() == ["specific", "runs"]
    assert result.to_dict()["dimensions"]["runs"] == 0.8


def test_stats_to_dict():
    stats = ReflectionStats(original=5, discarded=1, refined=2, deduplicated=1)
    stats.final += 3
    assert stats.to_dict() == {
        "original": 5,
        "discarded": 1,
        "refined": 2,
        "deduplicated": 1,
        "final": 3,
    }


# ---------------------------------------------------------------- model mode
MODEL = ReflectionConfig(mode="model")
GOOD_REPLY = (
    "Sure.\n<critique>\n  <correctness>0.5</correctness>\n  <reason>Numbers without an area code "
    "get a wrong country.</reason>\n  <suggestion>Use to_e164 from the "
    "toolkit.</suggestion>\n</critique>"
)


def test_model_mode_adds_the_models_judgement_to_the_measurements():
    backend, stats = FakeBackend([GOOD_REPLY]), LLMStats()
    result = judge(GOOD, config=MODEL, backend=backend, stats=stats, sleep=lambda s: None)
    assert backend.calls == 1 and stats.calls == 1
    prompt = backend.history[0]
    assert "def fix_phone(record)" in prompt and "It must fix the field 'phone'" in prompt
    assert "- fixes_issue 1.00: 'phone': 2 wrong values before, 0 after" in prompt
    assert "'555-123-4567' -> '+15551234567'" in prompt
    # still measured
    assert {d: result.dimensions[d] for d in DIMENSIONS} == dict.fromkeys(DIMENSIONS, 1.0)
    assert result.dimensions["correctness"] == 0.5
    assert result.score == pytest.approx(0.8 * 1.0 + 0.2 * 0.5)
    assert result.decision == "accept"
    assert "wrong country" in result.evidence["correctness"]
    assert "Reviewer's suggestion: Use to_e164 from the toolkit." in result.feedback()
    assert "- correctness 0.50" in result.feedback()


def test_model_mode_falls_back_to_the_measured_score_on_a_garbage_reply():
    backend = FakeBackend(["Looks great to me!!!"])
    result = judge(GOOD, config=MODEL, backend=backend, sleep=lambda s: None)
    assert backend.calls == 1
    assert "correctness" not in result.dimensions
    assert result.score == 1.0 and result.decision == "accept"
    assert "unreadable critique reply" in result.evidence["model"]
    assert "measured score 1.00 stands" in result.evidence["model"]


def test_model_mode_falls_back_when_the_backend_keeps_failing():
    backend = FakeBackend([RuntimeError("down")] * 3)
    result = judge(GOOD, config=MODEL, backend=backend, sleep=lambda s: None)
    assert backend.calls == 3 and result.score == 1.0
    assert "critique call failed" in result.evidence["model"]


def test_model_mode_needs_a_backend():
    with pytest.raises(ValueError, match="backend"):
        judge(GOOD, config=MODEL)


def measured(score: float) -> Critique:
    """A measured critique at ``score`` that no minimum blocks: runs and specific 1.0, the rest
    lowered."""
    dims = {"runs": 1.0, "specific": 1.0, "fixes_issue": 1.0, "side_effects": 1.0}
    # side_effects at its minimum or above, fixes_issue takes the rest
    side = max((score - 0.5) / 0.5, 0.5)
    dims.update(fixes_issue=(score - 0.5 - 0.2 * side) / 0.3, side_effects=side)
    return Critique(
        "f",
        score,
        "refine",
        dims,
        dict.fromkeys(DIMENSIONS, "measured"),
        target="phone",
        examples=["'phone': 'a' -> 'b'"],
    )


@pytest.mark.parametrize(
    "reply, value",
    [
        ("<critique><correctness>0.8</correctness></critique>", 0.8),
        ("<correctness> 80% </correctness>", 0.8),
        ("<critique><correctness>4/5", 0.8),  # unclosed
        ("correctness: 1.0\nreason: fine", 1.0),
        ("<CORRECTNESS>.25</CORRECTNESS>", 0.25),
    ],
)
def test_model_replies_are_parsed_tolerantly(reply, value):
    assert combine_model_reply(measured(0.65), reply, MODEL).dimensions[
        "correctness"
    ] == pytest.approx(value)


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "<critique><correctness>high</correctness></critique>",
        "<correctness>7</correctness>",
        "<correctness>1/0</correctness>",
        None,
    ],
)
def test_unusable_model_replies_leave_the_measured_critique(reply):
    before = measured(0.65)
    after = combine_model_reply(before, reply, MODEL)
    assert (
        after.score == 0.65 and "correctness" not in after.dimensions and "model" in after.evidence
    )
    assert "model" not in before.evidence  # the input critique is not changed


def test_the_model_only_tips_borderline_scores():
    assert (
        combine_model_reply(measured(0.65), "<correctness>1</correctness>", MODEL).decision
        == "accept"
    )
    assert (
        combine_model_reply(measured(1.0), "<correctness>0</correctness>", MODEL).decision
        == "accept"
    )
    low = combine_model_reply(measured(0.5), "<correctness>0</correctness>", MODEL)
    assert (
        low.score == pytest.approx(0.4)
        and low.decision == "refine"
        and low.blocked_by == ["fixes_issue"]
    )
    assert MODEL.decide(0.8 * 0.35, {}) == ("discard", [])
    none = combine_model_reply(
        measured(0.9), "<correctness>1</correctness><suggestion>None.</suggestion>", MODEL
    )
    assert none.suggestion == ""


def test_model_prompt_asks_for_the_short_xml_reply():
    prompt = model_prompt(measured(0.5), "def f(record):\n    return record\n")
    assert (
        "<correctness>" in prompt and "<suggestion>" in prompt and "'phone': 'a' -> 'b'" in prompt
    )


# ---------------------------------------------------------------- dedup
ACCEPTED = [{"name": "fix_phone", "code": GOOD}]


def test_renamed_variables_and_another_docstring_are_a_duplicate():
    renamed = """import re as regex

def normalise_phone(rec):
    # a comment
    raw = rec.get("phone")
    if isinstance(raw, str) and not raw.startswith("+"):
        rec["phone"] = "+1" + regex.sub(r"\\D", "", raw)
    return rec
"""
    assert code_similarity(renamed, GOOD) == 1.0
    assert find_duplicate(renamed, "normalise_phone", ACCEPTED) == "fix_phone"


def test_a_near_identical_variant_is_a_duplicate_above_the_threshold():
    variant = GOOD.replace(
        'if isinstance(value, str) and not value.startswith("+"):',
        'if isinstance(value, str) and value and not value.startswith("+"):',
    )
    similarity = code_similarity(variant, GOOD)
    assert 0.9 <= similarity < 1.0
    assert find_duplicate(variant, "fix_phone_2", ACCEPTED) == "fix_phone"
    assert find_duplicate(variant, "fix_phone_2", ACCEPTED, threshold=1.0) is None


def test_different_logic_or_another_field_is_not_a_duplicate():
    other_logic = (
        "from recursive_cleaner.toolkit import to_e164\n\n\ndef fix_phone_b(record):\n"
        '    record["phone"] = to_e164(record.get("phone"))\n    return record\n'
    )
    assert find_duplicate(other_logic, "fix_phone_b", ACCEPTED) is None
    other_field = GOOD.replace('"phone"', '"mobile"')
    assert code_similarity(other_field, GOOD) >= 0.9  # alike as text ...
    # ... but it cleans another field
    assert find_duplicate(other_field, "fix_mobile", ACCEPTED) is None


def test_find_duplicate_picks_the_most_similar_and_checks_its_threshold():
    variant = GOOD.replace("isinstance(value, str) and ", "value and isinstance(value, str) and ")
    accepted = [
        {"name": "near", "code": variant},
        {"name": "same", "code": GOOD.replace("value", "v")},
    ]
    assert find_duplicate(GOOD, "fix_phone_3", accepted) == "same"
    assert find_duplicate(GOOD, "x", []) is None
    with pytest.raises(ValueError, match="threshold"):
        find_duplicate(GOOD, "x", accepted, threshold=0)
