"""v0.5 two-pass optimization, library side: tags, IDF grouping, consolidation with agency,
saturation."""

from __future__ import annotations

import dataclasses
import inspect
import math

import pytest

from recursive_cleaner.optimizer import grouping as optimizer
from recursive_cleaner.optimizer.consolidation import (
    ConsolidationResult,
    consolidate_with_agency,
    verify_merge,
)
from recursive_cleaner.optimizer.reply import (
    AgentAssessment,
    build_consolidation_prompt,
    parse_consolidation,
)
from recursive_cleaner.errors import ParseError
from recursive_cleaner.model.llm import LLMStats
from recursive_cleaner.optimizer.grouping import (
    TAGS_INSTRUCTION,
    _fallback_from_name,
    extract_tags,
    group_by_salience,
    optimize_functions,
    tag_idf,
)
from recursive_cleaner.optimizer.saturation import (
    SaturationAssessment,
    check_saturation,
    clean_streak_saturated,
    parse_saturation,
)
from tests.fakes import FakeBackend

NO_SLEEP = {"sleep": lambda s: None}


def fn(name: str, tags: str | None = None, code: str | None = None) -> dict:
    doc = f"Does {name}.\nTags: {tags}" if tags is not None else f"Does {name}."
    return {
        "name": name,
        "docstring": doc,
        "code": code or f"def {name}(record):\n    return record",
    }


def field_fn(name: str, expr: str, tags: str = "email, normalize") -> dict:
    """A function that sets record['email'] = <expr of v>, v being the current email as a str."""
    code = (
        f"def {name}(record):\n    record = dict(record)\n    v = str(record.get('email') or '')\n"
        f"    record['email'] = {expr}\n    return record"
    )
    return fn(name, tags, code)


def reply(merges=(), complete=True, remaining="none", confidence="high") -> str:
    """A consolidation reply; merges are (name, original names, code) triples."""
    blocks = "".join(
        f"<function><name>{n}</name><original_names>{', '.join(o)}</original_names>"
        "<docstring>Merged.\nTags: "
        f"email</docstring><code>\n```python\n{c}\n```\n</code></function>\n"
        for n, o, c in merges
    )
    return (
        f"<consolidation_result>\n<merged_functions>\n{blocks}</merged_functions>\n"
        f"<self_assessment><complete>{str(complete).lower()}</complete>"
        f"<remaining_issues>{remaining}</remaining_issues><confidence>{confidence}</confidence>"
        "</self_assessment>\n</consolidation_result>"
    )


STRIP = field_fn("strip_email", "v.strip()")
LOWER = field_fn("lower_email", "v.lower()")
GOOD = field_fn("clean_email", "v.strip().lower()")["code"]
NO_STRIP = field_fn("clean_email", "v.lower()")["code"]
RECORDS = [{"email": "  A@B.com "}, {"email": "c@d.com"}, {"email": None}]


# ---------------------------------------------------------------- feature 1: tags
@pytest.mark.parametrize(
    "docstring, tags",
    [
        (
            '"""\nNormalize phone numbers to E.164 format.\nHandles: +1-555-1234\nTags: phone, '
            'normalize, format\n"""',
            {"phone", "normalize", "format"},
        ),
        ("Fix dates.\n   TAGS :  Date ,Normalize,  ISO  ", {"date", "normalize", "iso"}),
        ("- **Tags:** [Email, `validate`.]", {"email", "validate"}),
        ("Tags: phone normalize", {"phone", "normalize"}),
        ("Normalize dates. Tags: date, normalize", {"date", "normalize"}),
        ("Tags: old\nMore text.\nTags: new, new, phone number", {"new", "phone_number"}),
        ("No tag line here.", set()),
        ("Handles HTML tags: <b> and <i>", set()),
        ("", set()),
        (None, set()),
    ],
)
def test_extract_tags(docstring, tags):
    assert extract_tags(docstring) == tags


def test_tags_instruction_describes_the_line_extract_tags_reads():
    assert "Tags:" in TAGS_INSTRUCTION and "lowercase" in TAGS_INSTRUCTION
    assert extract_tags("Rewrite phones.\nTags: phone, normalize") == {"phone", "normalize"}


# ---------------------------------------------------------------- feature 2: IDF grouping
def names(groups: dict) -> dict:
    return {label: [f["name"] for f in members] for label, members in groups.items()}


def test_idf_is_log_n_over_document_frequency():
    funcs = [
        fn("a", "date, normalize"),
        fn("b", "date, parse"),
        fn("c", "phone, normalize"),
        fn("d", "phone"),
    ]
    idf = tag_idf(funcs)
    assert idf == pytest.approx(
        {"date": math.log(2), "normalize": math.log(2), "parse": math.log(4), "phone": math.log(2)}
    )


def test_each_function_goes_to_its_highest_idf_tag():
    # N=6; df: email 4 -> idf log(6/4)=0.41; lowercase, domain, phone, format 2 -> log(3)=1.10.
    # The common tag "email" never wins; e and f tie on phone/format and take the tag written first.
    funcs = [
        fn("a", "email, lowercase"),
        fn("b", "email, lowercase"),
        fn("c", "email, domain"),
        fn("d", "domain, email"),
        fn("e", "phone, format"),
        fn("f", "phone, format"),
    ]
    assert tag_idf(funcs)["email"] == pytest.approx(math.log(6 / 4))
    assert names(group_by_salience(funcs)) == {
        "lowercase": ["a", "b"],
        "domain": ["c", "d"],
        "phone": ["e", "f"],
    }


def test_ties_go_to_the_tag_written_first():
    funcs = [fn("a", "phone, normalize"), fn("b", "normalize, phone")]
    assert names(group_by_salience(funcs, min_size=1)) == {"phone": ["a"], "normalize": ["b"]}
    assert len(group_by_salience(funcs)) == 1  # rebalanced: two singletons sharing tags join


def test_singletons_move_to_their_next_tag_or_misc():
    # primaries: a,b email; c domain (alone) -> moves to email; d fix, e trim share nothing -> misc
    funcs = [
        fn("a", "email, normalize"),
        fn("b", "email, normalize"),
        fn("c", "email, domain"),
        fn("d", "domain, fix"),
        fn("e", "normalize, trim"),
    ]
    assert names(group_by_salience(funcs)) == {"email": ["a", "b", "c"], "misc": ["d", "e"]}


def test_singletons_sharing_a_tag_group_together():
    # every primary tag is unique (idf log 4) -> all singletons; they regroup on the tags they share
    funcs = [
        fn("a", "date, normalize"),
        fn("b", "parse, date"),
        fn("c", "phone, normalize"),
        fn("d", "format, phone"),
    ]
    assert names(group_by_salience(funcs)) == {"date": ["a", "b"], "phone": ["c", "d"]}


def test_a_lone_leftover_joins_the_smallest_group():
    funcs = [
        fn("a", "date"),
        fn("b", "date"),
        fn("c", "phone"),
        fn("d", "phone"),
        fn("e", "phone"),
        fn("f", "zip"),
    ]
    assert names(group_by_salience(funcs)) == {"date": ["a", "b", "f"], "phone": ["c", "d", "e"]}


def test_large_groups_are_split_evenly():
    funcs = [fn(f"f{i}", "date") for i in range(45)]
    groups = group_by_salience(funcs)
    assert [len(g) for g in groups.values()] == [23, 22] and list(groups) == [
        "date 1/2",
        "date 2/2",
    ]
    groups = group_by_salience(funcs[:25], max_size=10)
    assert [len(g) for g in groups.values()] == [9, 8, 8]
    assert [f for g in groups.values() for f in g] == funcs[:25]


def test_untagged_functions_fall_back_to_the_domain_word_of_their_name():
    assert _fallback_from_name("normalize_phone_format") == "phone"
    assert _fallback_from_name("fixDateFormat") == "date"
    assert _fallback_from_name("fix") == "fix" and _fallback_from_name("") == "misc"
    funcs = [fn("normalize_phone_format"), fn("fix_email"), fn("fix_phone"), fn("clean_email_case")]
    assert names(group_by_salience(funcs)) == {
        "phone": ["normalize_phone_format", "fix_phone"],
        "email": ["fix_email", "clean_email_case"],
    }


def test_tags_in_the_code_docstring_count_and_mix_with_name_fallback():
    tagged = {
        "name": "tidy",
        "docstring": "",
        "code": 'def tidy(record):\n    """Tidy.\n    Tags: email\n    """\n    return record',
    }
    funcs = [tagged, fn("fix_email"), fn("a", "date"), fn("b", "date")]
    assert names(group_by_salience(funcs)) == {"email": ["tidy", "fix_email"], "date": ["a", "b"]}


def test_grouping_is_deterministic_and_checks_its_sizes():
    funcs = [
        fn(f"f{i}", t)
        for i, t in enumerate(["date, x", "phone", "date", "phone, y", "email", "email"])
    ]
    assert names(group_by_salience(funcs)) == names(group_by_salience(list(funcs)))
    assert group_by_salience([]) == {}
    with pytest.raises(ValueError):
        group_by_salience(funcs, min_size=5, max_size=4)


# ---------------------------------------------------------------- feature 3: consolidation
def consolidate(backend, funcs=(STRIP, LOWER), **kw):
    return consolidate_with_agency(list(funcs), backend, **{"records": RECORDS, **NO_SLEEP, **kw})


def test_a_merge_that_matches_the_chain_is_accepted():
    backend = FakeBackend([reply([("clean_email", ["strip_email", "lower_email"], GOOD)])])
    result = consolidate(backend)
    assert isinstance(result, list) and [f["name"] for f in result] == ["clean_email"]
    merged = result[0]
    assert (
        merged["merged_from"] == ["strip_email", "lower_email"]
        and "Tags: email" in merged["docstring"]
    )
    assert [d.name for d in result.accepted] == ["clean_email"] and result.refused == []
    assert result.calls == backend.calls == 1 and result.stop_reasons == {"": "complete"}
    # full code shown
    assert STRIP["code"] in backend.history[0] and LOWER["code"] in backend.history[0]


def test_a_merge_that_differs_on_one_record_is_refused_and_fed_back():
    backend = FakeBackend(
        [
            reply(
                [("clean_email", ["strip_email", "lower_email"], NO_STRIP)],
                complete=False,
                remaining="strip and lower overlap",
            ),
            reply(),
        ]
    )
    result = consolidate(backend)
    assert result[0] is STRIP and result[1] is LOWER  # originals kept, unchanged
    (refused,) = result.refused
    assert (
        not refused.accepted
        and "differs on 1 of 3" in refused.reason
        and "record 0" in refused.reason
    )
    assert "was refused" in result.report_lines()[1]
    assert "was refused" in backend.history[1] and "differs on 1 of 3" in backend.history[1]
    assert "strip and lower overlap" in backend.history[1]
    assert result.rounds == 2 and result.stop_reasons[""] == "complete"


def test_garbage_is_fed_back_once_then_the_group_is_left_unchanged():
    backend = FakeBackend(
        ["I think they are fine!", "<consolidation_result>nothing</consolidation_result>"]
    )
    result = consolidate(backend)
    assert list(result) == [STRIP, LOWER] and result.calls == 2 and backend.calls == 2
    assert "COULD NOT BE USED" not in backend.history[0]
    assert (
        "COULD NOT BE USED" in backend.history[1]
        and "<complete>true</complete>" in backend.history[1]
    )
    assert result.stop_reasons[""] == "parse_error" and "could not be used twice" in result.notes[0]


def test_garbage_then_a_good_reply_is_used():
    backend = FakeBackend(["garbage", reply(complete=True)])
    result = consolidate(backend)
    assert result.calls == 2 and result.assessments == [AgentAssessment(True, "none", "high")]


def test_the_safety_cap_stops_a_model_that_never_says_complete():
    endless = reply(
        [("m", ["nope", "missing"], "def m(record):\n    return record")], complete=False
    )
    backend = FakeBackend(default=endless)
    result = consolidate(backend, max_rounds=3)
    assert backend.calls == 3 and result.rounds == 3 and result.stop_reasons[""] == "max_rounds"
    assert all("not among the functions" in d.reason for d in result.refused)


def test_the_loop_stops_on_complete_and_when_nothing_is_proposed():
    backend = FakeBackend(default=reply(complete=True))
    assert consolidate(backend).stop_reasons[""] == "complete" and backend.calls == 1
    backend = FakeBackend(default=reply(complete=False, remaining="maybe more"))
    assert consolidate(backend).stop_reasons[""] == "no_progress" and backend.calls == 1


def test_a_merged_function_can_be_merged_again_in_a_later_round():
    trim = field_fn("trim_dots", "v.strip('.')")
    first = reply([("clean_email", ["strip_email", "lower_email"], GOOD)], complete=False)
    second = reply(
        [
            (
                "tidy_email",
                ["clean_email", "trim_dots"],
                field_fn("tidy_email", "v.strip().lower().strip('.')")["code"],
            )
        ]
    )
    result = consolidate(FakeBackend([first, second]), funcs=(STRIP, LOWER, trim))
    assert [f["name"] for f in result] == ["tidy_email"]
    assert result[0]["merged_from"] == ["strip_email", "lower_email", "trim_dots"]


@pytest.mark.parametrize(
    "merge, reason",
    [
        (("m", ["strip_email"], GOOD.replace("clean_email", "m")), "at least two"),
        (("m", ["strip_email", "ghost"], GOOD.replace("clean_email", "m")), "ghost is not among"),
        (("clean_email", ["strip_email", "lower_email"], "import os\n" + GOOD), "safety policy"),
        (
            ("other", ["strip_email", "lower_email"], GOOD.replace("clean_email", "other")),
            "already defines",
        ),
    ],
)
def test_merges_that_cannot_be_accepted_say_why(merge, reason):
    result = consolidate(FakeBackend([reply([merge])]), reserved_names={"other"})
    assert list(result) == [STRIP, LOWER] and reason in result.refused[0].reason


def test_without_sample_records_every_merge_is_refused():
    result = consolidate(
        FakeBackend([reply([("clean_email", ["strip_email", "lower_email"], GOOD)])]), records=None
    )
    assert list(result) == [STRIP, LOWER] and "no sample records" in result.refused[0].reason


def test_a_backend_failure_leaves_the_group_unchanged():
    result = consolidate(FakeBackend([RuntimeError("server down")]), llm_attempts=1)
    assert list(result) == [STRIP, LOWER] and result.stop_reasons[""] == "llm_error"
    assert "server down" in result.notes[0]


def test_verify_merge_reports_a_merged_function_that_fails_in_the_sandbox():
    crash = {
        "name": "m",
        "docstring": "",
        "code": "def m(record):\n    return record['email'].lower()",
    }
    # fails on the None email only
    assert "differs on" in verify_merge(crash, [STRIP, LOWER], RECORDS)


def test_parse_consolidation_tolerates_model_noise():
    text = (
        "Here you go:\n<consolidation_result><merged_functions><function><name>m</name>"
        "<original_names>a,b c</original_names><code>\ndef m(record):\n    if 1 &lt; 2:\n        "
        "return record\n"
        "</code></function></merged_functions><kept_unchanged><function_name>d</function_name></"
        "kept_unchanged>"
        "<self_assessment><complete> True </complete><remaining_issues>\n none "
        "\n</remaining_issues>"
        # no closing root tag, no fence, entity in code
        "<confidence>sure</confidence></self_assessment>"
    )
    (merge,), assessment = parse_consolidation(text)
    assert merge.name == "m" and merge.original_names == ["a", "b", "c"] and "1 < 2" in merge.code
    assert assessment == AgentAssessment(complete=True, remaining_issues="none", confidence="low")


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        (reply(complete="true|false"), "<complete>true</complete>"),
        (reply([("m", ["a", "b"], "def m(record:\n    return record")]), "not valid Python"),
        (reply([("m", [], "def m(record):\n    return record")]), "<original_names>"),
        (
            reply([("m", ["a", "b"], "x = compute()\ndef m(record):\n    return record")]),
            "Module-level",
        ),
    ],
)
def test_parse_consolidation_errors_are_actionable(text, message):
    with pytest.raises(ParseError, match=None) as info:
        parse_consolidation(text)
    assert message in str(info.value)


def test_the_prompt_follows_the_contract_template():
    prompt = build_consolidation_prompt([STRIP, LOWER], notes=["n1"], feedback="fix it")
    for part in (
        "You are reviewing cleaning functions for consolidation.",
        "=== FUNCTIONS TO REVIEW ===",
        "=== TASK ===",
        "=== OUTPUT FORMAT ===",
        "<original_names>",
        "<kept_unchanged>",
        "<self_assessment>",
        "<confidence>high|medium|low</confidence>",
        "Tags: tag1, tag2",
        "- n1",
        "fix it",
    ):
        assert part in prompt, part


# ---------------------------------------------------------------- the whole pass and its events
def test_optimize_functions_emits_the_four_events_in_order():
    funcs = [fn("a", "email"), fn("p", "phone"), fn("b", "email"), fn("q", "phone")]
    events: list[tuple] = []
    stats = LLMStats()
    result = optimize_functions(
        funcs,
        FakeBackend(default=reply()),
        records=RECORDS,
        stats=stats,
        **NO_SLEEP,
        emit=lambda kind, **fields: events.append((kind, fields)),
    )
    assert [k for k, _ in events] == [
        "optimize_start",
        "optimize_group",
        "optimize_round",
        "optimize_group",
        "optimize_round",
        "optimize_complete",
    ]
    assert events[0][1] == {"function_count": 4}
    assert (events[1][1]["group"], events[1][1]["count"]) == ("email", 2)
    assert events[2][1]["round"] == 1 and events[2][1]["remaining_issues"] == "none"
    assert events[-1][1]["original"] == 4 and events[-1][1]["final"] == 4
    assert list(result) == funcs and result.calls == stats.calls == 2


def test_optimize_functions_puts_a_merge_where_its_first_original_was():
    other = field_fn("fix_phone", "v", tags="phone")  # touches email only through v: a no-op
    funcs = [STRIP, other, LOWER]
    backend = FakeBackend(
        lambda p: (
            reply([("clean_email", ["strip_email", "lower_email"], GOOD)])
            if "strip_email" in p
            else reply()
        )
    )
    result = optimize_functions(funcs, backend, records=RECORDS, **NO_SLEEP)
    assert [f["name"] for f in result] == ["clean_email", "fix_phone"] and len(result.accepted) == 1
    assert result.report_lines()[0].startswith("3 → 2 functions")


def test_a_merge_may_not_redefine_a_helper_an_earlier_groups_merge_added():
    helper = "def _norm(v):\n    return str(v or '').strip().lower()\n\n"
    email_merge = (
        helper
        + "def clean_email(record):\n    return {**record, 'email': _norm(record.get('email'))}"
    )
    phone_merge = helper + "def clean_phone(record):\n    return record"
    p1, p2 = fn("p1", "phone"), fn("p2", "phone")
    backend = FakeBackend(
        lambda p: (
            reply([("clean_email", ["strip_email", "lower_email"], email_merge)])
            if "strip_email" in p
            else reply([("clean_phone", ["p1", "p2"], phone_merge)])
        )
    )
    result = optimize_functions([STRIP, LOWER, p1, p2], backend, records=RECORDS, **NO_SLEEP)
    assert [f["name"] for f in result] == ["clean_email", "p1", "p2"]
    assert "_norm" in result.refused[0].reason and "already defines" in result.refused[0].reason


def test_a_merge_the_whole_module_disagrees_with_is_undone(monkeypatch):
    monkeypatch.setattr(
        optimizer,
        "compare_pipelines",
        lambda before, after, records, **kw: "differs" if len(after) < len(before) else None,
    )
    backend = FakeBackend([reply([("clean_email", ["strip_email", "lower_email"], GOOD)])])
    result = optimize_functions([STRIP, LOWER], backend, records=RECORDS, **NO_SLEEP)
    assert list(result) == [STRIP, LOWER] and result.accepted == []
    assert "whole module differs" in result.refused[0].reason


# ---------------------------------------------------------------- contract names
def test_contract_names_and_signatures():
    assert [f.name for f in dataclasses.fields(AgentAssessment)] == [
        "complete",
        "remaining_issues",
        "confidence",
    ]
    params = inspect.signature(consolidate_with_agency).parameters
    assert (
        list(params)[:3] == ["functions", "backend", "max_rounds"]
        and params["max_rounds"].default == 5
    )
    assert list(inspect.signature(group_by_salience).parameters)[0] == "functions"
    assert list(inspect.signature(extract_tags).parameters) == ["docstring"]
    assert issubclass(ConsolidationResult, list)
    assert {"saturated", "reasoning", "recommendation"} <= {
        f.name for f in dataclasses.fields(SaturationAssessment)
    }


# ---------------------------------------------------------------- feature 5: saturation
def saturation_reply(saturated: str, recommendation: str = "") -> str:
    rec = f"<recommendation>{recommendation}</recommendation>" if recommendation else ""
    return (
        f"<saturation_check><assessment><saturated>{saturated}</saturated>"
        f"<reasoning>Last chunks added nothing</reasoning>{rec}</assessment></saturation_check>"
    )


def test_saturation_stop():
    backend = FakeBackend([saturation_reply("true", "stop")])
    result = check_saturation(
        backend,
        [STRIP, LOWER],
        ["chunk 3: clean, 0 new", "chunk 4: clean, 0 new"],
        new_functions_from_recent=0,
        **NO_SLEEP,
    )
    assert (
        result.should_stop and result.reasoning == "Last chunks added nothing" and result.calls == 1
    )
    prompt = backend.history[0]
    assert (
        "<functions_generated>2</functions_generated>" in prompt
        and "strip_email: Does strip_email." in prompt
    )
    assert (
        "<recent_chunks_analyzed>2</recent_chunks_analyzed>" in prompt
        and "chunk 4: clean, 0 new" in prompt
    )


def test_saturation_continue():
    result = check_saturation(
        FakeBackend([saturation_reply("false", "continue")]), [STRIP], ["chunk 1"], **NO_SLEEP
    )
    assert not result.should_stop and result.recommendation == "continue"
    # derived when missing
    assert parse_saturation(saturation_reply("true")).recommendation == "stop"
    assert not parse_saturation(saturation_reply("true", "continue")).should_stop


def test_saturation_failures_never_stop_the_run():
    backend = FakeBackend(["no idea", saturation_reply("yes", "stop.")])
    result = check_saturation(backend, [], [], **NO_SLEEP)
    assert result.should_stop and result.calls == 2 and "COULD NOT BE USED" in backend.history[1]
    result = check_saturation(FakeBackend(["?", "??"]), [], [], **NO_SLEEP)
    assert not result.should_stop and "twice" in result.error and result.calls == 2
    result = check_saturation(FakeBackend([RuntimeError("down")]), [], [], attempts=1, **NO_SLEEP)
    assert not result.should_stop and "down" in result.error


def test_clean_streak_saturated():
    assert clean_streak_saturated(["needs_more_work", "clean", "clean_by_profile"], 2)
    assert not clean_streak_saturated(["clean", "max_iterations", "clean"], 2)
    assert not clean_streak_saturated(["clean"], 2)
    assert not clean_streak_saturated(["clean", "clean"], 2, new_functions=[0, 1])
    assert clean_streak_saturated(["clean", "clean", "clean"], 2, new_functions=[3, 0, 0])
    with pytest.raises(ValueError):
        clean_streak_saturated(["clean"], 0)
    with pytest.raises(ValueError):
        clean_streak_saturated(["clean"], 1, new_functions=[])
