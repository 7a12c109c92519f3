"""model.grammar: the reply forms as GBNF for llama.cpp, and the same language as a regex the tests
check."""

from __future__ import annotations

import json
import textwrap

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.crossrow import xml_form
from recursive_cleaner.model import grammar
from recursive_cleaner.model.response import parse_response
from tests.fakes import CLEAN_REPLY, FakeBackend, GrammarFakeBackend, make_reply

CODE = textwrap.dedent('''\
    import re
    from recursive_cleaner.toolkit import to_e164

    def fix_phone(record):
        """Phone to E.164."""
        record = dict(record)

        record["phone"] = to_e164(record.get("phone"))
        return record''')


def _field_reply(
    name: str = "fix_phone", code: str = CODE, docstring: str = "Phone to E.164."
) -> str:
    return (
        "<cleaning_analysis>\n  <function_to_generate>\n"
        f"    <name>{name}</name>\n    <docstring>{docstring}</docstring>\n"
        f"    <code>\n```python\n{code}\n```\n    </code>\n  </function_to_generate>\n"
        "  <chunk_status>needs_more_work</chunk_status>\n</cleaning_analysis>"
    )


def test_the_field_form_accepts_one_function_with_the_asked_name_and_the_parser_reads_it():
    form = grammar.field_reply("fix_phone")
    reply = _field_reply(docstring="Phone to E.164.\nTags: phone, normalize")
    assert form.accepts(reply)
    parsed = parse_response(reply)
    assert (
        parsed.name == "fix_phone"
        and "to_e164" in parsed.code
        and "Tags: phone" in parsed.docstring
    )


@pytest.mark.parametrize(
    "reply",
    [
        _field_reply(name="fix_phones"),  # another name than the one asked for
        # the code defines another function
        _field_reply(code=CODE.replace("def fix_phone", "def fix_phones")),
        # a module-level statement after the function
        _field_reply(code=CODE + "\nprint(fix_phone({}))"),
        _field_reply(code="record['phone'] = 1"),  # no function at all
        # a backtick ends the fence early
        _field_reply(code=CODE.replace('"""Phone to E.164."""', '"""Use `to_e164`."""')),
        make_reply(status="clean"),  # "clean" is no answer to a field prompt
        "Sure! Here is the function:\n" + _field_reply(),  # prose before the block
    ],
)
def test_the_field_form_refuses_what_the_parser_or_the_loop_would_refuse(reply):
    assert not grammar.field_reply("fix_phone").accepts(reply)


def test_the_open_form_is_issues_then_one_function_or_clean():
    form = grammar.open_reply()
    assert form.accepts(make_reply("fix_phone", CODE)) and form.accepts(CLEAN_REPLY)
    # needs work, but no function: never parses
    assert not form.accepts(make_reply(status="needs_more_work"))
    assert not form.accepts(make_reply("fix_phone", CODE, status="clean"))
    assert not form.accepts(make_reply(status="clean", issues=()))  # at least one issue listed
    many = [(f"issue {i}", False) for i in range(grammar.MAX_ISSUES + 1)]
    assert not form.accepts(make_reply("fix_phone", CODE, issues=many))  # a looping list is cut off


def test_the_open_form_writes_a_function_only_for_an_unsolved_issue_and_clean_only_when_all_are_solved():  # noqa: E501
    form = grammar.open_reply()
    solved, unsolved = ("Phones fixed by fix_phone", True), ("Amounts carry a currency sign", False)
    # the CRM run's refused duplicate
    assert not form.accepts(make_reply("fix_phone", CODE, issues=[solved]))
    assert form.accepts(make_reply("fix_phone", CODE, issues=[solved, unsolved, solved]))
    assert form.accepts(make_reply(status="clean", issues=[solved, solved]))
    assert not form.accepts(make_reply(status="clean", issues=[solved, unsolved]))


def test_every_reply_the_open_form_accepts_in_these_samples_parses():
    for reply in (
        make_reply("fix_phone", CODE),
        CLEAN_REPLY,
        make_reply("fix_phone", CODE, fence=True),
    ):
        assert grammar.open_reply().accepts(reply)
        parse_response(reply)  # raises on a reply the loop cannot use


def test_text_mode_functions_take_text_and_the_detect_form_has_no_function():
    code = "def strip_text(text):\n    return text.strip()"
    assert grammar.open_reply("text").accepts(make_reply("strip_text", code))
    assert not grammar.open_reply().accepts(make_reply("strip_text", code))
    assert grammar.detect_reply().accepts(make_reply(status="needs_more_work"))
    assert not grammar.detect_reply().accepts(make_reply("fix_phone", CODE))


def test_the_gbnf_is_one_root_rule_with_every_literal_escaped():
    text = grammar.field_reply("fix_phone").gbnf()
    assert text.startswith("root ::= ") and text.count("::=") == 1 and text.endswith("\n")
    assert "\\n" in text and '"\\"' not in text and '" solved=\\""' in grammar.open_reply().gbnf()
    with pytest.raises(ValueError):
        grammar.field_reply('x" | [^a]* "')  # a name is a Python identifier, never grammar text


def _crm(tmp_path, rows):
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_the_cleaner_sends_each_reply_form_its_grammar(tmp_path):
    rows = [
        {"id": i, "status": s} for i, s in enumerate(["active", "actve", "pending", "Pending"] * 3)
    ]
    fix = textwrap.dedent("""\
        def fix_status(record):
            record = dict(record)
            s = str(record.get("status") or "").strip().lower()
            record["status"] = {"actve": "active"}.get(s, s)
            return record""")
    backend = GrammarFakeBackend([make_reply("fix_status", fix)], default=CLEAN_REPLY)
    DataCleaner(
        backend,
        _crm(tmp_path, rows),
        chunk_size=12,
        instructions="status is one of active, pending",
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        holdout_ratio=0,
        hint_functions=False,
        call_every_chunk=True,  # the open pass though the function left nothing (issue 45)
    ).run()
    # the field prompt: its name pinned
    assert backend.grammars[0] == grammar.field_reply("fix_status").gbnf()
    # then the open pass over the chunk: a function for status only, the goals leave id alone
    assert (
        backend.grammars[1] == grammar.open_reply(fields=["status"], names=["fix_status_2"]).gbnf()
    )
    assert "fix_status" in (tmp_path / "cf.py").read_text()


def test_constrained_false_and_backends_without_grammars_get_plain_calls(tmp_path):
    rows = [{"id": i, "email": f"u{i}@x.com"} for i in range(6)]
    off = GrammarFakeBackend(default=CLEAN_REPLY)
    DataCleaner(
        off,
        _crm(tmp_path, rows),
        chunk_size=6,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        constrained=False,
        call_every_chunk=True,  # the open pass though nothing is left unexplained (issue 45)
    ).run()
    assert off.calls == 1 and off.grammars == [None]
    # no generate_grammar: the same prompt through generate
    plain = FakeBackend(default=CLEAN_REPLY)
    DataCleaner(
        plain,
        _crm(tmp_path, rows),
        chunk_size=6,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        call_every_chunk=True,
    ).run()
    assert plain.history == off.history


def test_the_dry_run_asks_for_issues_only(tmp_path):
    rows = [{"id": i, "email": f"U{i}@X.com "} for i in range(4)]
    backend = GrammarFakeBackend(default=make_reply(status="needs_more_work"))
    DataCleaner(
        backend,
        _crm(tmp_path, rows),
        chunk_size=4,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        dry_run=True,
    ).run()
    assert backend.grammars == [grammar.detect_reply().gbnf()]


def test_the_plan_form_names_only_the_data_fields_and_dedup_only_when_asked():
    from recursive_cleaner.crossrow.plan import choose_steps

    fields = ["provider", "name", "city", "email"]
    reply = (
        '<cross_row_plan>\n<cross_row_step kind="majority" key="provider" fields="name, city"/>\n'
        '<cross_row_step kind="vocabulary" fields="city"/>\n</cross_row_plan>'
    )
    form = xml_form.plan_reply(fields)
    assert form.accepts(reply) and form.accepts("<cross_row_plan>\n</cross_row_plan>")
    chosen, problems = choose_steps(reply, fields)
    assert [(s.kind, s.key, s.fields) for s in chosen] == [
        ("majority", ("provider",), ("name", "city")),
        ("vocabulary", (), ("city",)),
    ] and problems == []
    # not a field of the data
    assert not form.accepts(reply.replace('fields="name, city"', 'fields="name, town"'))
    dedup = (
        '<cross_row_plan>\n<cross_row_step kind="dedup" key="email" '
        'normalize="casefold"/>\n</cross_row_plan>'
    )
    assert not form.accepts(dedup) and xml_form.plan_reply(fields, dedup=True).accepts(dedup)
    assert xml_form.plan_reply(['a"b', "x\ny"]).accepts("<cross_row_plan>\n</cross_row_plan>")


def test_the_plan_form_writes_only_the_writable_fields_and_keys_by_any():
    """Issue 32: a field the goals leave alone may be a key, never a field a step writes."""
    fields = ["provider", "name", "city"]
    form = xml_form.plan_reply(fields, writable=["city"])
    step = '<cross_row_step kind="majority" key="{}" fields="{}"/>\n'
    plan = "<cross_row_plan>\n{}</cross_row_plan>"
    assert form.accepts(plan.format(step.format("provider", "city")))
    assert form.accepts(plan.format(step.format("name", "city")))  # a key is only read
    assert not form.accepts(plan.format(step.format("provider", "name")))
    assert not form.accepts(plan.format(step.format("provider", "city, name")))
    assert not form.accepts(plan.format('<cross_row_step kind="vocabulary" fields="name"/>\n'))
    assert form.accepts(plan.format('<cross_row_step kind="vocabulary" fields="city"/>\n'))
    # nothing writable: only an empty plan, or a dedup when the goals ask for one
    none = xml_form.plan_reply(fields, writable=[])
    assert none.accepts(plan.format("")) and not none.accepts(
        plan.format('<cross_row_step kind="vocabulary" fields="city"/>\n')
    )
    dedup = '<cross_row_step kind="dedup" key="provider" normalize="casefold"/>\n'
    assert xml_form.plan_reply(fields, dedup=True, writable=[]).accepts(plan.format(dedup))


def test_a_kind_whose_grammar_takes_no_written_names_still_plans():
    """A registered kind written before ``written`` (``grammar(listed)``) names any field."""
    from recursive_cleaner.crossrow import kinds
    from recursive_cleaner.model.grammar import seq

    class Old(kinds.StepKind):
        name, needs_fields = "oldkind", True

        def grammar(self, listed):
            return seq('<cross_row_step kind="oldkind" fields="', listed, '"/>\n')

    kinds.register(Old())
    try:
        form = xml_form.plan_reply(["a", "b"], writable=["a"])
        line = '<cross_row_plan>\n<cross_row_step kind="oldkind" fields="b"/>\n</cross_row_plan>'
        assert form.accepts(line)
    finally:
        kinds.REGISTRY.pop("oldkind", None)


def test_the_cleaner_sends_the_plan_its_grammar(tmp_path):
    rows = [
        {"provider": p, "city": c}
        for p, c in [
            ("1", "mobile"),
            ("1", "mobile"),
            ("1", "mobxle"),
            ("2", "dothan"),
            ("2", "dothan"),
            ("2", "dothan"),
        ]
        * 3
    ]
    plans = _plan_grammars(tmp_path, rows, "The same provider has the same city.")
    assert plans == [xml_form.plan_reply(["provider", "city"]).gbnf()]


def _plan_grammars(tmp_path, rows: list, goals: str) -> list:
    """The grammars a run on ``rows`` sent with its cross-row plan prompt."""
    backend = GrammarFakeBackend(
        lambda p: "<cross_row_plan>\n</cross_row_plan>" if "RULES ACROSS ROWS" in p else CLEAN_REPLY
    )
    DataCleaner(
        backend,
        _crm(tmp_path, rows),
        chunk_size=18,
        instructions=goals,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
    ).run()
    return [g for p, g in zip(backend.history, backend.grammars) if "RULES ACROSS ROWS" in p]


def test_the_plan_grammar_never_offers_a_field_left_alone_to_write(tmp_path):
    """Issue 32: the goals leave ``name`` as it is; the plan's grammar cannot write it."""
    rows = [
        {"provider": p, "city": c, "name": n}
        for p, c, n in [
            ("1", "mobile", "Ann"),
            ("1", "mobile", "Ann"),
            ("1", "mobxle", "Anne"),
            ("2", "dothan", "Bo"),
            ("2", "dothan", "Bo"),
            ("2", "dothan", "Bob"),
        ]
        * 3
    ]
    goals = "The same provider has the same city. Leave the name as it is."
    plans = _plan_grammars(tmp_path, rows, goals)
    fields = ["provider", "city", "name"]
    assert plans == [xml_form.plan_reply(fields, writable=["provider", "city"]).gbnf()]
    assert plans[0] != xml_form.plan_reply(fields).gbnf()


def _movie_reply(name: str, lead: str, solved: tuple = ()) -> str:
    code = CODE.replace("fix_phone", name).replace('"phone"', '"title"')
    return make_reply(name, code, issues=[*solved, (f"{lead}values vary in case", False)])


def test_the_open_form_with_fields_offers_a_function_only_for_them():
    """Issue 32: the goals leave the country alone; the open pass may write for title and year."""
    form = grammar.open_reply(fields=["title", "year"], names=["fix_title_2", "fix_year"])
    solved = [("country: left as it is", True)]
    assert form.accepts(_movie_reply("fix_title_2", "title: ", tuple(solved)))
    assert form.accepts(_movie_reply("fix_year", "title: "))  # the name and the lead are not tied
    assert form.accepts(CLEAN_REPLY)
    assert not form.accepts(_movie_reply("fix_country", "country: "))
    assert not form.accepts(_movie_reply("fix_title", "title: "))  # taken: the next name
    assert not form.accepts(_movie_reply("fix_title_2", "country: "))  # the issue names its field
    assert not form.accepts(_movie_reply("fix_title_2", ""))
    parse_response(_movie_reply("fix_title_2", "title: "))


def test_the_open_form_with_no_field_to_write_is_clean_only_and_odd_names_lead_nothing():
    for form in (grammar.open_reply(fields=[]), grammar.open_reply(fields=["title"], names=[])):
        assert form.accepts(CLEAN_REPLY)
        assert not form.accepts(_movie_reply("fix_title", "title: "))
    odd = grammar.open_reply(fields=["a<b`\nc"], names=["fix_a_b_c"])  # no tag, backtick, line
    assert odd.accepts(_movie_reply("fix_a_b_c", ""))
    quoted = grammar.open_reply(fields=['say "x"\\'], names=["fix_say_x"])  # escaped in the GBNF
    assert quoted.accepts(_movie_reply("fix_say_x", 'say "x"\\: '))
    assert '"say \\"x\\"\\\\: "' in quoted.gbnf()
    with pytest.raises(ValueError):
        grammar.open_reply(fields=["x"], names=['x" | [^a]* "'])
