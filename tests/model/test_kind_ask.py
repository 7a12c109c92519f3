"""The model where the rules find nothing (issue 42 point 6): a field the goals ask a change of but
bind to no format gets one short call whose grammar allows only the menu's kinds or ``none``; the
answer counts only where the data agrees, and never for a field the goals leave alone."""

from __future__ import annotations

import json

from recursive_cleaner import DataCleaner
from recursive_cleaner.model.kind_ask import (
    KIND_NONE,
    asked_kinds,
    kind_prompt,
    kind_reply,
    make_kind_ask,
    parse_kinds,
)
from recursive_cleaner.profiling.spec import read_spec
from tests.fakes import CLEAN_REPLY, FakeBackend, GrammarFakeBackend

FIELDS = ["salary", "notes"]
SAMPLES = {
    "salary": ["72500", "$72,500", "81000", "64000", "55,000 USD", "90000", "41000", "38000"],
    "notes": ["ok", "late", "new", "ok", "remote", "ok", "n/a", "late"],
}
GOALS = "salary just digits please.\n\nLeave the notes alone."


def test_the_reply_grammar_allows_only_a_line_per_field_with_a_menu_kind_or_none():
    form = kind_reply(FIELDS)
    assert form.accepts("salary: integer\nnotes: none\n")
    assert not form.accepts("salary: enum\nnotes: none\n")
    assert not form.accepts("notes: none\nsalary: integer\n") and not form.accepts("salary: x\n")
    assert parse_kinds("salary: integer\nnotes: none\n", FIELDS) == {
        "salary": "integer",
        "notes": None,
    }
    assert parse_kinds("salary: os.system\n", FIELDS) == {"salary": None, "notes": None}
    assert "enum" not in asked_kinds() and "shape" not in asked_kinds()
    assert parse_kinds("salary: keep\nnotes: none\n", FIELDS)["salary"] == "keep"
    prompt = kind_prompt({"salary": ("salary just digits please.", SAMPLES["salary"])})
    assert "salary just digits please." in prompt and "'$72,500'" in prompt


def test_one_call_asks_about_the_mentioned_fields_no_format_binds():
    asked = []
    spec = read_spec(
        GOALS + "\n\nThe hired dates as YYYY-MM-DD.",
        FIELDS + ["hired"],
        {**SAMPLES, "hired": ["2024-01-02", "3/4/2023"] * 4},
        ask=lambda words: asked.append(sorted(words)) or {},
    )
    assert asked == [["salary"]]  # not the notes (left alone), not hired (a format binds it)
    assert spec.fields["notes"].kind == "as_is"


def test_the_data_checks_the_models_answer():
    spec = read_spec(GOALS, FIELDS, SAMPLES, ask=lambda words: {"salary": "number"})
    salary = spec.fields["salary"]
    assert salary.kind == "number" and salary.source == "model" and spec.in_scope("salary")
    spec = read_spec(GOALS, FIELDS, SAMPLES, ask=lambda words: {"salary": "date"})
    assert not spec.in_scope("salary") and "not date" in spec.fields["salary"].note
    # a kind no value has yet is no reading of the data (a whole column rewritten on a guess)
    cased = {"salary": SAMPLES["salary"], "notes": ["ok"] * 8}
    spec = read_spec(
        "salary: digits. notes: check", FIELDS, cased, ask=lambda w: {"notes": "upper"}
    )
    assert not spec.in_scope("notes")


def test_keep_protects_a_field_whose_keep_words_the_rules_did_not_read():
    goals = "salary just digits please.\n\nThe notes go back to HR verbatim."
    spec = read_spec(goals, FIELDS, SAMPLES, ask=lambda words: {"notes": "keep"})
    assert spec.fields["notes"].kind == "as_is" and spec.protected() == {"notes"}


def test_a_run_asks_once_per_field_keeps_the_answer_and_a_resume_asks_again_nothing(tmp_path):
    data = tmp_path / "people.jsonl"
    rows = [{"salary": s, "notes": n} for s, n in zip(SAMPLES["salary"], SAMPLES["notes"])] * 3
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    calls = []

    def answer(prompt: str) -> str:
        if "which one of these formats" in prompt:
            calls.append(prompt)
            return "salary: number\n"
        return CLEAN_REPLY

    state = tmp_path / "state.json"
    cleaner = DataCleaner(
        GrammarFakeBackend(answer),
        str(data),
        instructions=GOALS,
        output_path=str(tmp_path / "cf.py"),
        state_file=str(state),
        sleep=lambda s: None,
    )
    result = cleaner.run()
    assert len(calls) == 1 and result.spec["fields"]["salary"]["kind"] == "number"
    assert json.loads(state.read_text())["spec_kinds"] == {
        "salary\nsalary just digits please.": "number"
    }
    # a backend without grammars is never asked: the field stays unbound, left as it is
    plain = DataCleaner(
        FakeBackend(answer),
        str(data),
        instructions=GOALS,
        output_path=str(tmp_path / "cf2.py"),
        sleep=lambda s: None,
    ).run()
    assert len(calls) == 1 and plain.spec["fields"]["salary"]["source"] == "data"
    assert plain.functions == []


def test_a_planted_answer_in_a_state_file_is_read_like_a_reply():
    known = {"salary\nx": "os.system"}
    ask = make_kind_ask(GrammarFakeBackend(lambda p: ""), {}, lambda p, g: "", known)
    assert ask({"salary": "x"}) == {"salary": None}
