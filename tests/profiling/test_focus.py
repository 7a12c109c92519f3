"""The library checks for itself what is still dirty and leads the model field by field."""

from __future__ import annotations

import json
import textwrap

import pytest

from recursive_cleaner import DataCleaner
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

ROWS = [
    {"id": 1, "status": "active", "signup_date": "2023-04-05", "email": "a@x.com"},
    {"id": 2, "status": "actve", "signup_date": "4/5/2023", "email": "b@x.com"},
    {"id": 3, "status": "Pending ", "signup_date": "April 5, 2023", "email": "c@x.com"},
    {"id": 4, "status": "CHURNED", "signup_date": "20230405", "email": "d@x.com"},
]
INSTRUCTIONS = """
- status: exactly one of "active", "pending" or "churned"; fix typos.
- signup_date: ISO 8601 date YYYY-MM-DD.
"""
FIX_STATUS = textwrap.dedent("""\
    from recursive_cleaner.toolkit import closest_value

    def fix_status(record):
        record = dict(record)
        record["status"] = closest_value(record.get("status"), ["active", "pending", "churned"])
        return record""")
FIX_DATE = textwrap.dedent("""\
    from recursive_cleaner.toolkit import to_iso_date

    def fix_signup_date(record):
        record = dict(record)
        record["signup_date"] = to_iso_date(record.get("signup_date"))
        return record""")


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "crm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def _run(backend, data, tmp_path, **kw):
    events = []
    # exact counts over all 10 records; holdout: test_cleaner_v04.py
    kw.setdefault("holdout_ratio", 0.0)
    # the model's field replies are scripted here; the hint path: test_hint.py
    kw.setdefault("hint_functions", False)
    cleaner = DataCleaner(
        backend,
        str(data),
        chunk_size=10,
        instructions=INSTRUCTIONS,
        on_progress=events.append,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        **kw,
    )
    return cleaner.run(), events


def _task(prompt):
    return prompt[prompt.index("=== EXISTING FUNCTIONS") :]


def test_field_prompt_shows_only_offending_values_and_names_the_function(data, tmp_path):
    backend = FakeBackend(
        [make_reply("fix_status", FIX_STATUS), make_reply("fix_signup_date", FIX_DATE), CLEAN_REPLY]
    )
    result, events = _run(backend, data, tmp_path)
    assert result.functions == ["fix_status", "fix_signup_date"]
    first = _task(backend.history[0])
    assert "FIELD TO FIX" in first and "'status'" in first and "fix_status(record)" in first
    assert "'actve'" in first and "closest_value" in first
    assert "=== DATA (" not in first and "b@x.com" not in first  # not the whole chunk
    second = _task(backend.history[1])
    assert "'signup_date'" in second and "'4/5/2023'" in second and "to_iso_date" in second
    # profile clean and nothing left unexplained: no open-ended pass (issue 45)
    assert backend.calls == 2
    gen = [e for e in events if e["type"] == "function_generated"]
    assert gen[0]["field"] == "status" and gen[0]["issues_before"]["status"] == 3
    assert gen[0]["issues_after"]["status"] == 0
    assert [e for e in events if e["type"] == "chunk_profile"][0]["open_issues"]["signup_date"] == 3


def test_static_prefix_is_shared_by_field_and_chunk_prompts(data, tmp_path):
    backend = FakeBackend(
        [make_reply("fix_status", FIX_STATUS), make_reply("fix_signup_date", FIX_DATE), CLEAN_REPLY]
    )
    _run(backend, data, tmp_path)
    prefixes = {p[: p.index("=== EXISTING FUNCTIONS")] for p in backend.history}
    assert len(prefixes) == 1
    assert "TOOLKIT" in next(iter(prefixes))


def test_models_clean_is_not_trusted_while_the_profile_shows_issues(data, tmp_path):
    backend = FakeBackend([CLEAN_REPLY, make_reply("fix_status", FIX_STATUS)], default=CLEAN_REPLY)
    result, events = _run(backend, data, tmp_path, max_iterations=2)
    assert result.functions == ["fix_status"]
    assert "not clean yet" in backend.history[1] and "'actve'" in backend.history[1]
    assert any(e["type"] == "not_clean" for e in events)
    assert result.chunks_clean == 0  # dates were still dirty when iterations ran out


USELESS = (
    "def fix_status(record):\n    record = dict(record)\n    if record.get('status') != 'active':\n"
    "        record['status'] = str(record.get('status')).upper()\n    return record"
)
# A small model's lookup table maps every spelling to one of a few names it saw, right ones
# included.
TABLE = (
    "from recursive_cleaner.toolkit import closest_value\n\ndef fix_status(record):\n"
    "    record = dict(record)\n    record['status'] = closest_value(record.get('status'), "
    "['pending', "
    "'churned'], cutoff=0.0)\n    return record"
)


@pytest.mark.parametrize(
    "code, feedback",
    [
        # does not move the profile
        (USELESS, "did not reduce the wrong values of 'status': 3 before, 3 after"),
        (TABLE, "that were already right ('active' -> "),  # changes values that were right
    ],
)
def test_a_bad_candidate_is_rejected_and_the_reason_fed_back(data, tmp_path, code, feedback):
    backend = FakeBackend(
        [make_reply("fix_status", code), make_reply("fix_status", FIX_STATUS)], default=CLEAN_REPLY
    )
    result, _ = _run(backend, data, tmp_path, max_iterations=2)
    assert result.functions == ["fix_status"]
    assert feedback in backend.history[1]


def test_function_that_touches_other_fields_is_rejected(data, tmp_path):
    greedy = FIX_STATUS.replace("    return record", "    record['email'] = 'x'\n    return record")
    backend = FakeBackend([make_reply("fix_status", greedy)], default=CLEAN_REPLY)
    result, _ = _run(backend, data, tmp_path, max_iterations=2)
    assert "fix_status" not in result.functions
    # out of scope
    assert "It changed 'email', which the goals do not ask to change" in backend.history[1]


def test_field_given_up_after_max_field_attempts_then_next_field(data, tmp_path):
    backend = FakeBackend(
        ["garbage", "garbage", make_reply("fix_signup_date", FIX_DATE)], default=CLEAN_REPLY
    )
    result, _ = _run(backend, data, tmp_path, max_field_attempts=2, max_iterations=4)
    assert result.functions == ["fix_signup_date"]
    assert "'status'" in _task(backend.history[1]) and "'signup_date'" in _task(backend.history[2])
    assert "status" in result.unfixable


def test_profile_off_gives_the_reference_design(data, tmp_path):
    backend = FakeBackend([CLEAN_REPLY])
    result, _ = _run(backend, data, tmp_path, profile_fields=False)
    assert result.chunks_clean == 1 and backend.calls == 1


CLEAN_ROWS = [{"id": i, "status": "active", "signup_date": "2023-04-05"} for i in range(12)]
# and a field with no target whose values come in two forms: with scope="all" the profile leaves
# it unexplained, so the open pass is asked (issue 45)
VARIED_ROWS = [{**r, "remark": ["ok", "late by 2 days"][r["id"] % 2]} for r in CLEAN_ROWS]


def test_clean_profile_gives_one_open_pass_then_homogeneous_chunks_cost_no_calls(tmp_path):
    path = tmp_path / "clean.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in VARIED_ROWS))
    again = make_reply("fix_status", FIX_STATUS)  # changes nothing on clean data: rejected
    backend = FakeBackend([again, CLEAN_REPLY], default=CLEAN_REPLY)
    events = []
    cleaner = DataCleaner(
        backend,
        str(path),
        chunk_size=3,
        instructions=INSTRUCTIONS,
        on_progress=events.append,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        early_termination=True,
        idle_chunks_before_skip=2,
        scope="all",
    )
    result = cleaner.run()
    assert result.chunks_total == 4 and result.chunks_clean == 4
    # chunk 0: one failed open pass; chunk 1: model says clean; then no calls
    assert backend.calls == 2
    statuses = [e["status"] for e in events if e["type"] == "chunk_done"]
    assert statuses == ["clean_by_profile", "clean", "clean_by_profile", "clean_by_profile"]
    assert "changed nothing" in [e for e in events if e["type"] == "validation_failed"][0]["error"]


def test_with_call_every_chunk_every_chunk_gets_a_model_call(tmp_path):
    path = tmp_path / "clean.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in CLEAN_ROWS))
    backend = FakeBackend(default=CLEAN_REPLY)
    DataCleaner(
        backend,
        str(path),
        chunk_size=3,
        instructions=INSTRUCTIONS,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        call_every_chunk=True,
    ).run()
    assert backend.calls == 4  # the reference design: the model is asked about every chunk


def test_the_idle_skip_is_on_by_default_without_early_termination(tmp_path):
    """Issue 18: the no-call skip does not depend on early_termination (the model's saturation
    check)."""
    path = tmp_path / "clean.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in VARIED_ROWS))
    backend = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=3,
        instructions=INSTRUCTIONS,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        scope="all",
    ).run()
    assert backend.calls == 1 and result.chunks_processed == 4 and not result.stopped_early
    assert not any("saturat" in p.lower() for p in backend.history)


def test_open_pass_function_must_fix_something_measurable(tmp_path):
    """A small model copies the prompt's example: an e-mail fixer for data without e-mails, or an
    E.164 rewrite of phones that already had the required format. Neither lowers any field's wrong
    values."""
    path = tmp_path / "clean.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in CLEAN_ROWS))
    copied = textwrap.dedent("""\
        def fix_email(record):
            record = dict(record)
            record["email"] = str(record.get("email") or "").lower() or None
            return record""")
    backend = FakeBackend([make_reply("fix_email", copied)], default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=12,
        instructions=INSTRUCTIONS,
        holdout_ratio=0.0,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        call_every_chunk=True,  # the profile leaves nothing unexplained: ask the open pass anyway
    ).run()
    assert result.functions == []
    assert any("fixed nothing" in reason for _, reason in result.rejected)


def test_a_csv_function_that_writes_numbers_leaves_the_other_text_numbers_right(tmp_path):
    # beers: fix_ounces returns 12 (an int); abv "0.05" and brewery_id "177" are still text, as CSV
    # gives them
    path = tmp_path / "beers.csv"
    path.write_text(
        "id,ounces,abv,brewery_id\n"
        + "".join(
            f"{i},{oz},0.0{5 + i % 3},{170 + i}\n"
            for i, oz in enumerate(
                ["12.0 oz.", "12.0 OZ.", "16.0 ounce", "12", "12.0 oz", "16.9 oz", "12.0", "16"] * 2
            )
        )
    )
    fix = textwrap.dedent("""\
        from recursive_cleaner.toolkit import strip_units, to_number

        def fix_ounces(record):
            record = dict(record)
            record["ounces"] = to_number(strip_units(record.get("ounces")), whole_as_int=True)
            return record""")
    goals = (
        "- ounces: just the number, no unit and no trailing .0\n- abv: a decimal fraction\n- "
        "brewery_id: whole numbers"
    )
    backend = FakeBackend([make_reply("fix_ounces", fix)], default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=16,
        instructions=goals,
        holdout_ratio=0.25,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert result.functions == ["fix_ounces"], result.rejected


def test_a_field_given_up_is_taken_up_again_for_new_kinds_of_wrong_value():
    from recursive_cleaner.profiling.expectations import Expectation
    from recursive_cleaner.profiling.focus import FieldFocus

    focus = FieldFocus(max_attempts=1, max_reopen=1, expectations={"t": Expectation("time12")})
    chunk = lambda *bad: [{"t": "7:10 a.m."}] * 5 + [{"t": b} for b in bad]  # noqa: E731
    first = focus.next(chunk("Not Available"))
    focus.failed(first)
    assert focus.next(chunk("Not Available", "N/A")) is None  # the same remedy: still given up
    assert "t" in focus.unfixable
    # a date in front: to_time_12h, not null_if_placeholder
    again = focus.next(chunk("12/02/2011 6:55 a.m."))
    assert again is not None and again.field == "t" and "t" not in focus.unfixable
    assert (first.primitive, again.primitive) == ("null_if_placeholder", "to_time_12h")
    focus.failed(again)
    assert focus.next(chunk("Thu  20:00")) is None  # the same remedy again
    assert "t" in focus.unfixable


def test_a_new_typo_is_no_reason_to_take_a_field_up_again():
    from recursive_cleaner.profiling.expectations import Expectation
    from recursive_cleaner.profiling.focus import FieldFocus

    focus = FieldFocus(max_attempts=1, expectations={"pid": Expectation("integer")})
    chunk = lambda *bad: [{"pid": "10018"}] * 5 + [{"pid": b} for b in bad]  # noqa: E731
    focus.failed(focus.next(chunk("x00x5")))
    assert focus.next(chunk("x00xx")) is None and "pid" in focus.unfixable


def test_typos_in_a_field_whose_format_only_the_data_sets_are_not_asked_for():
    from recursive_cleaner.profiling.focus import FieldFocus

    zips = [
        "35630",
        "36049",
        "35957",
        "3563x",
        "36x49",
        "35630",
        "36049",
        "35957",
        "35630",
        "36049",
    ]
    rows = [{"zip": z, "city": "dothan"} for z in zips]
    focus = FieldFocus()
    focus.learn(
        "Fix the typos in zip and city.",
        ["zip", "city"],
        {"zip": zips[:3], "city": ["dothan"] * 3},
        check={"zip": zips, "city": ["dothan"] * 10},
    )
    # the goals set no format (the data's reading binds nothing: issue 42): no function is asked
    # for; typos are the rules across rows' (the spelling most rows have)
    assert "zip" not in focus.expectations and "zip" not in focus.rows_frozen
    assert focus.next(rows) is None
    priced = [{"zip": z, "city": "dothan"} for z in ["35630", "36049", "$35,957", "35630", "36049"]]
    assert focus.next(priced) is None  # a value a primitive would convert: still no target


def test_a_field_whose_goals_show_a_change_is_asked_for_though_the_data_sets_its_format():
    from recursive_cleaner.profiling.focus import FieldFocus

    codes = ["4417", "5208", "3391", "REF 44-17", "52-08", "4417", "5208", "3391", "4417"]
    rows = [{"code": c, "room": "b2"} for c in codes]
    # a spec (read, or edited by the user) whose kind for code only the data set, with an example
    spec = {
        "version": 1,
        "scope": "mentioned",
        "keys": [],
        "dedup": False,
        "fields": {
            "code": {
                "kind": "number",
                "source": "data",
                "mentioned": True,
                "examples": [["REF 77-30", "7730"]],
            },
            "room": {"kind": "as_is", "mentioned": True},
        },
    }
    focus = FieldFocus()
    focus.learn("", ["code", "room"], {"code": codes[:3], "room": ["b2"] * 3}, spec=spec)
    assert focus.expectations["code"].source == "data"
    assert focus.shown_changes() == {"code"}
    assert focus.next(rows).field == "code"  # the example shows the change: asked for
    plain = FieldFocus()
    plain.learn(
        "Tidy the code column. Leave room alone.",
        ["code", "room"],
        {"code": codes[:3], "room": ["b2"] * 3},
        check={"code": codes, "room": ["b2"] * 9},
    )
    assert "code" not in plain.expectations and not plain.shown_changes()
    assert plain.next(rows) is None  # no example, no format: nothing binds it (issue 42)


def test_an_open_pass_that_finds_nothing_counts_as_idle_even_beside_field_functions(tmp_path):
    """Issue 18: the open pass stops once it found nothing on two chunks; field functions come from
    the profile."""
    # one dirty email per chunk of three: the usual form (lower case) is the goals' target
    rows = [
        {
            "id": i,
            "email": f" User{i}@X.com" if i % 3 == 0 else f"user{i}@x.com",
            "remark": ["ok", "late by 2 days"][i % 2],  # no target, two forms: the open pass asked
        }
        for i in range(12)
    ]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fix = textwrap.dedent("""\
        def fix_email(record):
            record = dict(record)
            record["email"] = str(record.get("email") or "").strip().lower()
            return record""")
    backend = FakeBackend([make_reply("fix_email", fix)], default=CLEAN_REPLY)
    events = []
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=3,
        instructions="email lower-case, no spaces",
        on_progress=events.append,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        idle_chunks_before_skip=2,
        hint_functions=False,
        scope="all",
    ).run()
    assert result.functions == ["fix_email"]
    # the field function and an open pass on chunk 1, an open pass on chunk 2, then none
    assert backend.calls == 3
    assert [e["status"] for e in events if e["type"] == "chunk_done"] == [
        "clean",
        "clean",
        "clean_by_profile",
        "clean_by_profile",
    ]


def test_the_same_refusal_twice_gives_the_field_up_without_a_third_call(data, tmp_path):
    """Issue 32: a refused attempt repeats at most once with the same reason (names and values
    aside)."""
    other = USELESS.replace("upper()", "lower().upper()")  # another body, the same mistake
    backend = FakeBackend(
        [make_reply("fix_status", USELESS), make_reply("fix_status", other)], default=CLEAN_REPLY
    )
    result, events = _run(backend, data, tmp_path, max_iterations=5, max_field_attempts=3)
    status_prompts = [
        p for p in backend.history if "FIELD TO FIX" in _task(p) and "'status'" in _task(p)
    ]
    assert len(status_prompts) == 2  # before: 3, the third with the same feedback twice
    assert "status" in result.unfixable


def test_different_refusals_keep_the_attempts(data, tmp_path):
    greedy = FIX_STATUS.replace("    return record", "    record['email'] = 'x'\n    return record")
    backend = FakeBackend(
        [
            make_reply("fix_status", USELESS),
            make_reply("fix_status", greedy),
            make_reply("fix_status", FIX_STATUS),
        ],
        default=CLEAN_REPLY,
    )
    result, _ = _run(backend, data, tmp_path, max_iterations=5)
    assert "fix_status" in result.functions


def test_a_reason_key_leaves_out_what_varies_between_attempts():
    from recursive_cleaner.profiling.focus import reason_key as _reason_key

    one = "Function `fix_a` was rejected: it changed 3 values that were already right ('x' -> 'y')"
    two = (
        "Function `fix_a_2` was rejected: it changed 12 values that were already right ('q' -> "
        '"r")'
    )
    assert _reason_key(one) == _reason_key(two)
    assert _reason_key(one) != _reason_key("The field 'status' is not clean yet.")


def test_the_open_pass_is_shown_only_the_fields_it_may_change(tmp_path):
    """Issue 32: fields the goals leave alone are named once, never shown as data or offered as
    work."""
    rows = [
        {"title": t, "country": c, "release_date": d}
        for t, c, d in [
            ("the matrix", "usa", "31/03/1999"),
            ("ALIEN", "Untied States", "May 25, 1979"),
            ("Blade runner", "uk", "1982-06-25"),
        ]
        * 8
    ]
    path = tmp_path / "movies.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    backend = FakeBackend(default=CLEAN_REPLY)
    DataCleaner(
        backend,
        str(path),
        chunk_size=24,
        instructions="Put the movie titles in title case. Leave the "
        "country and the release date exactly as they are.",
        output_path=str(tmp_path / "cf.py"),
        holdout_ratio=0.0,
        sleep=lambda s: None,
        call_every_chunk=True,  # the title function leaves nothing unexplained: ask anyway
    ).run()
    assert backend.calls >= 1
    for prompt in backend.history:
        # neither in the schema nor the data
        assert "Untied States" not in prompt and "31/03/1999" not in prompt
        assert "write no function for them): country, release_date" in prompt


def test_the_focus_never_picks_or_counts_a_field_the_goals_leave_alone():
    """Issue 32: 'runtime' has values of two forms (the data's own format, a primitive that fits)
    and 'country' is left alone by name: neither is profiled as work, asked for, or given up."""
    from recursive_cleaner.profiling.focus import FieldFocus

    rows = [
        {"title": t, "runtime": r, "country": c}
        for t, r, c in [("alien", "117 min", "usa"), ("Heat", 117, "USA"), ("Jaws", 124, "U.S.")]
        * 4
    ]
    focus = FieldFocus()
    focus.learn(
        "Put the titles in Title Case. Leave the country as it is.",
        ["title", "runtime", "country"],
        {f: [r[f] for r in rows] for f in rows[0]},
    )
    assert focus.left_alone == {"runtime", "country"} and focus.protected == {"country"}
    assert set(focus.profile(rows)) == {"title"} and set(focus.counts(rows)) == {"title"}
    assert focus.next(rows).field == "title"
    titled = [{**r, "title": r["title"].title()} for r in rows]
    assert focus.next(titled) is None and not focus.unfixable
