"""What an attempt asks for: no prompt, and no reply grammar, offers a field the goals leave alone
(issue 32 point 3), counted on a movies-like table with a fake that answers as a real model did."""

from __future__ import annotations

import json
import random
import re
import textwrap

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.model.grammar import Grammar, open_reply
from tests.fakes import CLEAN_REPLY, GrammarFakeBackend, make_reply

GOALS = (
    "Put the movie titles in Title Case and make the year a plain integer. "
    "Leave the country and the release date exactly as they are."
)
IN_SCOPE = {"title", "year"}
LEFT_ALONE = {"rating", "country", "release_date", "director", "runtime"}
# what a real model wrote for fields the goals leave alone (issue 32: 6 of 7 calls)
OUT_OF_SCOPE = {
    "country": textwrap.dedent("""\
        def fix_country(record):
            record = dict(record)
            names = {"usa": "US", "united states": "US", "uk": "GB", "u.k.": "GB"}
            value = str(record.get("country") or "").strip()
            record["country"] = names.get(value.lower(), value)
            return record"""),
    "release_date": textwrap.dedent("""\
        from recursive_cleaner.toolkit import to_iso_date

        def fix_release_date(record):
            record = dict(record)
            record["release_date"] = to_iso_date(record.get("release_date"))
            return record"""),
}


def movies(n: int = 200, seed: int = 7) -> list[dict]:
    """Movies: two fields the goals ask for, five left alone that a model would like to 'fix'."""
    rng = random.Random(seed)
    titles = ["the matrix", "alien", "blade runner", "heat", "fargo", "the thing", "jaws"]
    rows = []
    for _ in range(n):
        title = rng.choice(titles)
        title = title.title() if rng.random() < 0.7 else rng.choice([title.upper(), title])
        y = 1970 + rng.randrange(50)
        year = y if rng.random() < 0.8 else rng.choice([f"{y}.0", f" {y} "])
        day, month = rng.randrange(10, 28), rng.randrange(1, 10)
        rows.append(
            {
                "title": title,
                "year": year,
                "rating": rng.choice([7.5, "8/10", 6.1]),
                "country": rng.choice(["USA", "usa", "United States", "UK", "U.K.", "France"]),
                "release_date": rng.choice(
                    [f"{y}-0{month}-{day}", f"{day}/0{month}/{y}", f"May {day}, {y}"]
                ),
                "director": rng.choice(["Ridley Scott", "ridley scott", "M. Mann"]),
                "runtime": rng.choice([117, "117 min", "2h 1m"]),
            }
        )
    return rows


class MovieModel(GrammarFakeBackend):
    """A model that answers each open pass with a function for a field the goals leave alone (the
    next one each time), as a real one did; held to a reply grammar, it writes that function only
    if the grammar lets it, else ``clean``. ``grammar=False``: a backend without grammars."""

    def __init__(self, *, grammar: bool = True) -> None:
        super().__init__(self._answer)
        if not grammar:
            self.capabilities = frozenset({"usage"})
        self.turn = 0
        self.offered = 0  # calls whose grammar allowed a function for a field left alone
        self.grammar: str | None = None

    def generate_grammar(self, prompt: str, grammar: str) -> str:
        self.grammar = grammar
        try:
            return super().generate_grammar(prompt, grammar)
        finally:
            self.grammar = None

    def _answer(self, prompt: str) -> str:
        if not _open_pass(prompt):
            return CLEAN_REPLY  # field prompts: the library's toolkit calls fix title and year
        wanted = _out_of_scope_reply(self.turn)
        self.turn += 1
        if self.grammar is None:
            return wanted
        allowed = _GRAMMARS[self.grammar].accepts(wanted)
        self.offered += allowed
        return wanted if allowed else CLEAN_REPLY


def _open_pass(prompt: str) -> bool:
    return "=== DATA (" in prompt and "List EVERY data quality issue" in prompt


def _out_of_scope_reply(turn: int) -> str:
    field = sorted(OUT_OF_SCOPE)[turn % len(OUT_OF_SCOPE)]
    return make_reply(
        f"fix_{field}",
        OUT_OF_SCOPE[field],
        issues=((f"{field}: values use different formats", False),),
        docstring=f"Normalize {field}.",
    )


_GRAMMARS: dict[str, Grammar] = {}


@pytest.fixture(autouse=True)
def _remember_grammars(monkeypatch):
    """Every grammar the run sends, kept by its GBNF so the fake can match a reply against it."""
    real = Grammar.gbnf

    def gbnf(self: Grammar) -> str:
        text = real(self)
        _GRAMMARS[text] = self
        return text

    monkeypatch.setattr(Grammar, "gbnf", gbnf)
    yield
    _GRAMMARS.clear()


def _data(tmp_path, rows):
    path = tmp_path / "movies.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _run(tmp_path, backend, goals: str = GOALS, **options):
    return DataCleaner(
        backend,
        str(_data(tmp_path, movies())),
        chunk_size=50,
        instructions=goals,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        **options,
    ).run()


def _shown(prompt: str) -> set[str]:
    """The fields whose values an open-pass prompt shows as data."""
    if "=== DATA (" not in prompt:
        return set()
    data = prompt[prompt.index("=== DATA (") : prompt.index("=== TASK ===")]
    return {k for line in data.splitlines() if line.startswith("{") for k in json.loads(line)}


def _asked(prompt: str) -> set[str]:
    """The field a focused prompt asks a function for."""
    return set(re.findall(r"that fixes the field '([^']+)'", prompt))


def _harm(backend: MovieModel, result) -> dict:
    """Per run: calls, prompts that show or ask about a field left alone, grammars that allow a
    function for one, functions refused."""
    about = [p for p in backend.history if (_shown(p) | _asked(p)) & LEFT_ALONE]
    return {
        "calls": backend.calls,
        "prompts_about_left_alone": len(about),
        "grammars_allowing_left_alone": backend.offered,
        "refused": len(result.rejected),
    }


# the reference loop: every chunk asked, three open passes each
EVERY_CHUNK = dict(call_every_chunk=True, open_pass_attempts=3, max_iterations=5)
# case: (a grammar backend, options, calls before at 264311a, calls now)
CASES = {
    "grammar-defaults": (True, {}, 7, 0),  # issue 45: nothing left unexplained, no open pass
    "grammar-every-chunk": (True, EVERY_CHUNK, 15, 4),
    "plain-every-chunk": (False, EVERY_CHUNK, 15, 8),
}


@pytest.mark.parametrize("case", list(CASES))
def test_no_prompt_or_grammar_offers_a_field_the_goals_leave_alone(tmp_path, case):
    """Before (264311a) calls / prompts about fields left alone / grammars allowing one / refused:
    grammar-defaults 7/6/1/1, grammar-every-chunk 15/6/9/9, plain-every-chunk 15/6/0/9. The six
    prompts asked for rating, runtime and director (out of scope, profiled by the data's own
    format); now the focus never picks them, the open pass's grammar names only title and year,
    and a plain backend's open pass stops at the second identical refusal of a chunk."""
    grammar, options, _, calls = CASES[case]
    backend = MovieModel(grammar=grammar)
    result = _run(tmp_path, backend, **options)
    harm = _harm(backend, result)
    assert set(result.functions) >= {"fix_title", "fix_year"}
    assert harm["prompts_about_left_alone"] == 0
    assert harm["grammars_allowing_left_alone"] == 0
    assert harm["calls"] == calls
    # a grammar keeps the open pass on title and year; without one, two refusals per chunk at most
    assert harm["refused"] == (0 if grammar else 2 * 4)
    if grammar and options:
        open_grammars = [g for g, p in zip(backend.grammars, backend.history) if _open_pass(p)]
        assert open_grammars and all(
            "fix_title_2" in g and "fix_year_2" in g for g in open_grammars
        )
        assert not any("fix_country" in g or "fix_rating" in g for g in open_grammars)
    assert "rating" not in result.unfixable and "country" not in result.unfixable


def test_without_goals_every_field_is_in_scope_and_the_open_pass_is_as_before(tmp_path):
    """No goals: nothing is left alone, the open pass sees every field and may name any function."""
    backend = MovieModel()
    result = _run(tmp_path, backend, goals="")
    assert result.functions
    opened = [(g, p) for g, p in zip(backend.grammars, backend.history) if _open_pass(p)]
    assert opened
    for gbnf, prompt in opened:
        assert _shown(prompt) >= {"title", "country", "release_date", "runtime"}
        assert _GRAMMARS[gbnf] == open_reply()


def test_goals_that_leave_every_field_alone_cost_no_call(tmp_path):
    backend = MovieModel()
    goals = "Leave the title, year, rating, country, release date, director and runtime alone."
    result = _run(tmp_path, backend, goals=goals)
    assert backend.calls == 0 and result.functions == []


def test_a_dry_run_asks_only_about_the_fields_in_scope(tmp_path):
    backend = MovieModel()
    result = _run(tmp_path, backend, dry_run=True)
    assert backend.calls >= 1
    assert all(not (_shown(p) & LEFT_ALONE) for p in backend.history)
    # the library's own profile (no call) still reports what it sees in every field
    assert {i["field"] for i in result.issues if i.get("field")} > IN_SCOPE


def test_with_rich_context_the_open_pass_may_revise_a_function_so_far(tmp_path):
    backend = MovieModel()
    result = _run(tmp_path, backend, rich_context=True, call_every_chunk=True)
    opened = [g for g, p in zip(backend.grammars, backend.history) if _open_pass(p)]
    assert opened and backend.offered == 0 and set(result.functions) >= {"fix_title", "fix_year"}
    assert all('"fix_title"' in g and '"fix_title_2"' in g for g in opened)
