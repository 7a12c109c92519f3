"""The model for what the rules cannot tie (issue 29, point 3): one short call whose grammar allows
only the header's names or ``none``, asked only about a clause with a format word that names no
field; the data checks."""

from __future__ import annotations

import json

from recursive_cleaner import DataCleaner
from recursive_cleaner.model.field_tie import TIE_NONE, make_tie, parse_tie, tie_prompt, tie_reply
from recursive_cleaner.profiling.spec import read_spec
from tests.fakes import CLEAN_REPLY, FakeBackend, GrammarFakeBackend

FIELDS = ["joined", "note"]
SAMPLES = {
    "joined": ["2024-01-02", "3/4/2023", "2023/05/06", "x", "5 Apr 2023", "2023-01-01"],
    "note": ["hello", "world", "foo", "bar", "baz", "qux"],
}
GOALS = "When people signed up is written in many ways: use YYYY-MM-DD. Keep the notes."


def test_the_reply_grammar_allows_only_the_headers_names_or_none():
    form = tie_reply(FIELDS)
    assert form.accepts("joined") and form.accepts("note") and form.accepts(TIE_NONE)
    assert not form.accepts("joined, note") and not form.accepts("date") and not form.accepts("")
    assert parse_tie(" joined.", FIELDS) == "joined" and parse_tie("none", FIELDS) is None
    assert parse_tie("signup", FIELDS) is None
    prompt = tie_prompt("use YYYY-MM-DD", SAMPLES)
    assert "use YYYY-MM-DD" in prompt and "- joined: '2024-01-02'" in prompt


def test_the_rules_ask_only_about_a_clause_with_a_format_word_that_names_no_field():
    asked = []
    read_spec(
        GOALS + " Notes are lower case. Everything else stays as it is. Fix the typos.",
        FIELDS,
        SAMPLES,
        tie=lambda clause: asked.append(clause),
    )
    assert asked == ["When people signed up is written in many ways: use YYYY-MM-DD."]


def test_the_data_checks_the_models_answer():
    spec = read_spec(GOALS, FIELDS, SAMPLES, tie=lambda clause: "joined")
    assert (
        spec.fields["joined"].kind == "date"
        and spec.in_scope("joined")
        and "model tied" in spec.fields["joined"].note
    )
    # no note is, or becomes, a date
    spec = read_spec(GOALS, FIELDS, SAMPLES, tie=lambda clause: "note")
    assert (
        spec.fields["note"].kind is None and "0 of 6 sample values fit" in spec.fields["note"].note
    )
    assert not spec.in_scope("joined")
    spec = read_spec(
        GOALS, FIELDS, {"joined": ["2024-01-02"], "note": ["x"]}, tie=lambda clause: "joined"
    )
    assert spec.fields["joined"].kind is None  # too few values to check the answer: not taken


def test_no_tie_without_a_grammar_or_with_constrained_off():
    def call(prompt, gbnf):
        raise AssertionError("no call")

    assert make_tie(FakeBackend([]), FIELDS, SAMPLES, call, {}) is None
    assert make_tie(GrammarFakeBackend([]), FIELDS, SAMPLES, call, {}, constrained=False) is None
    assert (
        make_tie(GrammarFakeBackend([]), [f"f{i}" for i in range(300)], SAMPLES, call, {}) is None
    )


def _data(tmp_path):
    path = tmp_path / "people.jsonl"
    rows = [{"joined": SAMPLES["joined"][i % 6], "note": SAMPLES["note"][i % 6]} for i in range(24)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_run_asks_once_with_the_grammar_and_the_spec_takes_the_checked_answer(tmp_path):
    def handler(prompt):
        return "joined" if "Which one field" in prompt else CLEAN_REPLY

    backend = GrammarFakeBackend(handler)
    cleaner = DataCleaner(
        backend,
        str(_data(tmp_path)),
        instructions=GOALS,
        chunk_size=12,
        holdout_ratio=0.0,
        output_path=str(tmp_path / "f.py"),
        state_file=str(tmp_path / "s.json"),
        sleep=lambda s: None,
        dry_run=True,
    )
    cleaner.run()
    asked = [i for i, p in enumerate(backend.history) if "Which one field" in p]
    assert len(asked) == 1 and backend.grammars[asked[0]] == tie_reply(FIELDS).gbnf()
    assert cleaner.state.spec.fields["joined"].kind == "date" and cleaner.state.spec.in_scope(
        "joined"
    )
    assert cleaner.state.spec_ties == {
        "When people signed up is written in many ways: use YYYY-MM-DD.": "joined"
    }


def test_a_run_with_the_plain_fake_makes_no_such_call(tmp_path):
    backend = FakeBackend(lambda prompt: CLEAN_REPLY)
    cleaner = DataCleaner(
        backend,
        str(_data(tmp_path)),
        instructions=GOALS,
        chunk_size=12,
        holdout_ratio=0.0,
        output_path=str(tmp_path / "f.py"),
        state_file=str(tmp_path / "s.json"),
        sleep=lambda s: None,
        dry_run=True,
    )
    cleaner.run()
    assert not any("Which one field" in p for p in backend.history)
    assert not cleaner.state.spec.in_scope("joined")  # its data's own format, and out of scope


def test_a_resumed_run_does_not_ask_again(tmp_path):
    def handler(prompt):
        return "joined" if "Which one field" in prompt else CLEAN_REPLY

    state = tmp_path / "s.json"
    first = GrammarFakeBackend(handler)
    DataCleaner(
        first,
        str(_data(tmp_path)),
        instructions=GOALS,
        chunk_size=12,
        holdout_ratio=0.0,
        output_path=str(tmp_path / "f.py"),
        state_file=str(state),
        sleep=lambda s: None,
    ).run()
    assert json.loads(state.read_text())["spec_ties"] == {
        "When people signed up is written in many ways: use YYYY-MM-DD.": "joined"
    }
    again = GrammarFakeBackend(handler)
    resumed = DataCleaner.resume(str(state), again, output_path=str(tmp_path / "f.py"))
    resumed.run()
    assert not any("Which one field" in p for p in again.history)
    assert resumed.state.spec.fields["joined"].kind == "date"


def test_a_guess_never_adds_to_a_field_the_rules_read():
    samples = {
        "ibu": ["10", "N/A", "35", "60", "45", "20"],
        "abv": ["0.05", "5%", "0.06", "0.07", "0.04", "0.05"],
    }
    goals = "The numeric columns came out as text. IBU is an integer."
    spec = read_spec(goals, ["ibu", "abv"], samples, tie=lambda clause: "ibu")
    assert spec.fields["ibu"].kind == "integer" and "model" not in spec.fields["ibu"].note
    spec = read_spec(goals, ["ibu", "abv"], samples, tie=lambda clause: "abv")
    assert spec.fields["abv"].kind == "number" and "model tied" in spec.fields["abv"].note
