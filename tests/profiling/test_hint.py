"""A field's first attempt is the toolkit one-liner its profile names (profiling/hint.py), judged
like a reply."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from recursive_cleaner import DataCleaner
from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.profiling.hint import hint_function
from recursive_cleaner.profiling.profiler import profile_field
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply


def _code(field, values, exp, name="fix_it"):
    written = hint_function(profile_field(field, values, exp), name)
    return None if written is None else written[1]


def test_the_one_liner_calls_the_primitive_the_profile_names_with_its_arguments():
    phone = _code(
        "phone", ["(555) 123-4567", "+15551234567"], Expectation("phone_e164"), "fix_phone"
    )
    assert (
        "record['phone'] = to_e164(record.get('phone'))" in phone
        and "def fix_phone(record):" in phone
    )
    status = _code(
        "status", ["active", "actve", "Pending"], Expectation("enum", ("active", "pending"))
    )
    assert "closest_value(record.get('status'), ['active', 'pending'])" in status
    ounces = _code("ounces", ["12.0 oz", "12"], Expectation("number", ("whole_as_int",)))
    assert "to_number(record.get('ounces'), whole_as_int=True)" in ounces
    odd = _code('a "b\n', ["(555) 123-4567"], Expectation("phone_e164"))
    assert ast.parse(odd) and "record['a \"b\\n']" in odd  # any field name is a plain literal


def test_the_one_liner_leaves_a_missing_field_missing():
    phone = _code("phone", ["(555) 123-4567", "+15551234567"], Expectation("phone_e164"))
    namespace: dict = {}
    exec(compile(phone, "<hint>", "exec"), namespace)  # noqa: S102
    assert namespace["fix_it"]({"other": 1}) == {"other": 1}  # no empty column on apply
    assert namespace["fix_it"]({"phone": "(555) 123-4567"}) == {"phone": "+15551234567"}


def test_no_one_liner_where_no_plain_call_fits():
    # a format guessed from the data: the model decides
    assert _code("zip", ["35630", "$35,630"], None) is None
    # a list the goals do not give
    assert _code("city", ["boston", "Boston"], Expectation("enum", ())) is None
    assert (
        hint_function(
            profile_field("phone", ["(555) 123-4567"], Expectation("phone_e164")), "not a name"
        )
        is None
    )


def _rows(tmp_path, values):
    path = tmp_path / "data.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i, "signup": v}) + "\n" for i, v in enumerate(values))
    )
    return str(path)


def test_the_one_liner_is_accepted_without_a_model_call(tmp_path):
    events = []
    backend = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        _rows(tmp_path, ["4/5/2023", "2023-04-06", "April 7, 2023"] * 4),
        chunk_size=12,
        instructions="signup: ISO dates",
        holdout_ratio=0,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        on_progress=events.append,
        sleep=lambda s: None,
    ).run()
    assert result.functions == ["fix_signup"]
    assert [e["field"] for e in events if e["type"] == "function_from_hint"] == ["signup"]
    # no call at all: the one-liner leaves nothing unexplained, so no open pass (issue 45)
    assert backend.calls == 0
    assert "to_iso_date(record.get('signup'))" in (tmp_path / "cf.py").read_text()


def test_a_field_no_toolkit_call_fixes_goes_straight_to_the_model(tmp_path):
    fix = (
        "def fix_signup(record):\n    record = dict(record)\n"
        "    record['signup'] = {'the fifth of may': '2023-05-05'}.get(record.get('signup'), "
        "record.get('signup'))\n"
        "    return record"
    )
    backend = FakeBackend([make_reply("fix_signup", fix)], default=CLEAN_REPLY)
    events = []
    result = DataCleaner(
        backend,
        _rows(tmp_path, ["the fifth of may", "2023-04-06"] * 6),
        chunk_size=6,
        instructions="signup: ISO dates",
        holdout_ratio=0,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        on_progress=events.append,
    ).run()
    # to_iso_date changes nothing here: the library tries it on the chunk, not in the sandbox, and
    # asks at once
    assert [e["type"] for e in events].count("function_from_hint") == 0 and result.rejected == []
    assert "FIELD TO FIX" in backend.history[0] and "was rejected" not in backend.history[0]
    assert (
        result.functions == ["fix_signup"]
        and "'the fifth of may': '2023-05-05'" in (tmp_path / "cf.py").read_text()
    )


def test_hint_functions_false_asks_the_model_for_every_function(tmp_path):
    backend = FakeBackend(default=CLEAN_REPLY)
    DataCleaner(
        backend,
        _rows(tmp_path, ["4/5/2023", "2023-04-06"] * 6),
        chunk_size=12,
        instructions="signup: ISO dates",
        holdout_ratio=0,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        hint_functions=False,
        max_field_attempts=1,
    ).run()
    assert "FIELD TO FIX" in backend.history[0]


def test_the_librarys_one_liners_do_not_use_up_the_chunks_model_attempts(tmp_path, caplog):
    """Issue 31: the README job printed "not clean after 5 attempts" with 0 model calls: eight
    one-liners were the 5."""
    backend = FakeBackend(default=CLEAN_REPLY)
    events = []
    cases = Path(__file__).resolve().parents[2] / "test_cases"
    result = DataCleaner(
        backend,
        str(cases / "crm_customers.jsonl"),
        chunk_size=50,
        max_iterations=2,
        instructions=(cases / "crm_instructions.txt").read_text(),
        holdout_ratio=0,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        on_progress=events.append,
    ).run()
    # every field's one-liner on the first chunk, with 2 model attempts allowed
    assert len(result.functions) == 8
    assert {e["chunk_index"] for e in events if e["type"] == "function_from_hint"} == {0}
    assert not [e for e in events if e["type"] == "chunk_skipped"]
    assert "max_iterations" not in caplog.text
