"""Issue 28, points 1 and 2: a result is tied to what made it, and a state file cannot steer.

The two silent wrong results of the issue (a second run with other goals on the same state file
handed back the first run's functions; ``CleanResult.apply`` ran whatever cleaning_functions.py
held by then), each with the fake backend; then the fingerprint's parts, the saved result
artifact, and what ``resume`` never takes from a state file (a backend, an endpoint, a path).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from recursive_cleaner import CleanResult, DataCleaner, clean
from recursive_cleaner.errors import StateFileError
from recursive_cleaner.run.setup import BACKEND_ENV, restorable_backend_options
from recursive_cleaner.write.state import load_state, save_state
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply
from tests.cli_helpers import invoke, one_error_line

ROWS = [
    {"id": i, "phone": p, "email": e}
    for i, (p, e) in enumerate(
        [
            ("(555) 123-4567", "Ann@X.COM"),
            ("555.987.6543", "BOB@Y.COM"),
            ("555 000 1111", "Cy@Z.com"),
        ]
    )
]
PHONE = '''\
from recursive_cleaner.toolkit import to_e164


def fix_phone(record):
    """Phone numbers to E.164."""
    record = dict(record)
    record["phone"] = to_e164(record.get("phone"))
    return record
'''
EMAIL = '''\
def fix_email(record):
    """E-mails in lower case."""
    record = dict(record)
    record["email"] = str(record.get("email", "")).lower()
    return record
'''
PHONE_GOALS, EMAIL_GOALS = "phone: E.164 (+15551234567)", "email: lower case"


def writes(name: str, code: str) -> FakeBackend:
    """A backend that writes ``name`` on its first call, then says every chunk is clean."""
    return FakeBackend([make_reply(name, code)], default=CLEAN_REPLY)


def run(goals: str, backend: FakeBackend, **options) -> CleanResult:
    options = {
        "chunk_size": 3,
        "holdout_ratio": 0,
        "progress": False,
        "profile_fields": False,
        "cross_row": False,
        **options,
    }
    return clean("data.jsonl", goals, backend=backend, **options)


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return tmp_path


# ---------------------------------------------------------------------------- 1. silent result:
# other goals, one state file
def test_a_second_clean_with_other_goals_on_the_same_state_file_is_refused_not_answered_with_the_old_functions(  # noqa: E501
    work,
):
    """The README's first and second Python examples both use cleaning_state.json."""
    first = run(PHONE_GOALS, writes("fix_phone", PHONE), state_file="cleaning_state.json")
    assert first.functions == ["fix_phone"]
    second = writes("fix_email", EMAIL)
    with pytest.raises(
        StateFileError,
        match=r"^state file cleaning_state\.json was made with other goals; use "
        r"restart=True / --restart to start afresh",
    ):
        run(EMAIL_GOALS, second, state_file="cleaning_state.json")
    assert second.calls == 0 and load_state("cleaning_state.json")["instructions"] == PHONE_GOALS
    again = run(EMAIL_GOALS, second, state_file="cleaning_state.json", restart=True)
    assert (
        again.functions == ["fix_email"]
        and load_state("cleaning_state.json")["instructions"] == EMAIL_GOALS
    )
    # same job
    assert run(EMAIL_GOALS, FakeBackend([]), state_file="cleaning_state.json").functions == [
        "fix_email"
    ]


def test_the_cli_refuses_a_state_file_made_with_other_goals_in_one_line_and_restart_starts_afresh(
    work, use
):
    use(writes("fix_phone", PHONE))
    base = [
        "generate",
        "data.jsonl",
        "--state",
        "run.json",
        "--chunk-size",
        "3",
        "--holdout",
        "0",
        "--progress",
        "off",
        "--no-profile-fields",
        "--no-cross-row",
    ]
    assert invoke(*base, "-i", PHONE_GOALS).exit_code == 0
    line = one_error_line(invoke(*base, "-i", EMAIL_GOALS))
    assert line == (
        "Error: state file run.json was made with other goals; use restart=True / --restart to "
        "start "
        "afresh (or another state file)"
    )
    use(writes("fix_email", EMAIL))
    result = invoke(*base, "-i", EMAIL_GOALS, "--restart")
    assert result.exit_code == 0, result.stderr
    assert (
        "fix_email" in result.stdout
        and "fix_phone" not in (work / "cleaning_functions.py").read_text()
    )


def test_the_refusal_names_the_options_the_spec_and_the_data_that_changed(work):
    run(PHONE_GOALS, writes("fix_phone", PHONE), state_file="s.json", seed=1)
    with pytest.raises(StateFileError, match=r"made with other options \(max_iterations, seed\);"):
        run(PHONE_GOALS, FakeBackend([]), state_file="s.json", seed=2, max_iterations=2)
    # not generating
    run(PHONE_GOALS, FakeBackend([]), state_file="s.json", seed=1, llm_attempts=9, report_path=None)
    spec = {"fields": {"phone": {"kind": "phone_e164"}}}
    with pytest.raises(StateFileError, match=r"made with another field spec;"):
        run(PHONE_GOALS, FakeBackend([]), state_file="s.json", seed=1, spec=spec)
    data = work / "data.jsonl"
    # the same size, other bytes
    data.write_text(data.read_text().replace("Ann@X.COM", "Ann@Q.COM"))
    with pytest.raises(
        StateFileError, match=r"made with another version of the data file \(its content differs"
    ):
        run(PHONE_GOALS, FakeBackend([]), state_file="s.json", seed=1)
    saved = load_state("s.json")["fingerprint"]
    assert (
        set(saved) == {"version", "goals", "spec", "options", "data"}
        and saved["data"]["size"] == data.stat().st_size
    )


def test_a_state_file_from_before_fingerprints_still_resumes_and_is_compared_by_its_goals(work):
    run(PHONE_GOALS, writes("fix_phone", PHONE), state_file="old.json", chunk_size=1)
    old = load_state("old.json")
    del old["fingerprint"]
    save_state("old.json", {**old, "last_completed_chunk": 0})
    with pytest.raises(StateFileError, match="made with other goals"):
        run(EMAIL_GOALS, FakeBackend([]), state_file="old.json", chunk_size=1)
    resumed = DataCleaner.resume("old.json", FakeBackend(default=CLEAN_REPLY))
    result = resumed.run()
    assert result.resumed_from_chunk == 0 and result.functions == ["fix_phone"]
    assert "fingerprint" in load_state("old.json")  # written from now on


def test_resume_with_an_option_given_on_purpose_is_not_a_change(work):
    run(PHONE_GOALS, writes("fix_phone", PHONE), state_file="s.json", chunk_size=1)
    save_state("s.json", {**load_state("s.json"), "last_completed_chunk": 0})
    result = DataCleaner.resume("s.json", FakeBackend(default=CLEAN_REPLY), max_iterations=2).run()
    assert result.resumed_from_chunk == 0


# ---------------------------------------------------------------------------- 1. silent result:
# apply ran the file's code
def test_a_result_applies_its_own_functions_after_another_clean_rewrote_the_file(work):
    first = run(PHONE_GOALS, writes("fix_phone", PHONE))
    second = run(EMAIL_GOALS, writes("fix_email", EMAIL))
    assert (
        first.functions_path == second.functions_path
        and "fix_email" in Path(first.functions_path).read_text()
    )
    record = dict(ROWS[0])
    assert first.apply([record]) == [{**record, "phone": "+15551234567"}]  # not the e-mail function
    assert "fix_phone" in first.code and "fix_email" not in first.code
    out = first.apply("data.jsonl", "clean.jsonl", workers=1)
    assert out.records_out == 3
    assert [json.loads(line)["email"] for line in Path("clean.jsonl").read_text().splitlines()][
        0
    ] == "Ann@X.COM"
    assert second.apply([record]) == [{**record, "email": "ann@x.com"}]


def test_a_saved_result_loads_and_applies_its_own_code_without_any_file_of_the_run(work):
    first = run(PHONE_GOALS, writes("fix_phone", PHONE))
    first.save("phones.result.json")
    saved = json.loads(Path("phones.result.json").read_text())
    assert {"code", "cross_row_steps", "spec", "functions", "fingerprint", "version"} <= set(saved)
    assert saved["fingerprint"]["goals"] == first.fingerprint["goals"] and saved["functions"] == [
        "fix_phone"
    ]
    Path("cleaning_functions.py").write_text(
        "def clean_data(record):\n    return {'hijacked': True}\n"
    )
    loaded = CleanResult.load("phones.result.json")
    assert (
        loaded.functions == ["fix_phone"]
        and loaded.code == first.code
        and "Cleaning report" in str(loaded.report)
    )
    assert loaded.apply([dict(ROWS[1])]) == [{**ROWS[1], "phone": "+15559876543"}]
    Path("cleaning_functions.py").unlink()
    assert loaded.apply("data.jsonl", "out.csv", workers=1).records_out == 3


@pytest.mark.parametrize(
    "text, problem",
    [
        ("{", "is not valid JSON"),
        ("[]", "is not a saved CleanResult"),
        ('{"format": "recursive_cleaner.result", "version": 99}', "has version 99"),
        ('{"format": "recursive_cleaner.result", "version": 1}', "missing 'code'"),
    ],
)
def test_a_bad_result_file_is_one_line_naming_it(work, text, problem):
    Path("r.json").write_text(text)
    with pytest.raises(ValueError, match=rf"^result file r\.json.*{re.escape(problem)}") as caught:
        CleanResult.load("r.json")
    assert "\n" not in str(caught.value)


# ---------------------------------------------------------------------------- 2. a state file
# cannot steer
def _interrupted_state(work: Path, **options) -> str:
    """A run of 3 chunks of 1 that saved chunk 0 (its backend died), with ``options``."""
    backend = FakeBackend([CLEAN_REPLY, ConnectionError("down")])
    with pytest.raises(Exception, match="down"):
        DataCleaner(
            backend,
            "data.jsonl",
            chunk_size=1,
            holdout_ratio=0,
            profile_fields=False,
            cross_row=False,
            state_file="st.json",
            llm_attempts=1,
            sleep=lambda s: None,
            **options,
        ).run()
    return "st.json"


def _edit(state: str, **options) -> None:
    saved = load_state(state)
    save_state(state, {**saved, "options": {**saved["options"], **options}})


def test_resume_never_takes_a_backend_url_from_an_edited_state_file(work):
    state = _interrupted_state(work)
    _edit(
        state,
        backend="openai:gpt-4o@http://attacker.example/v1",
        backend_options={
            "base_url": "http://attacker.example",
            "api_key_env": "AWS_SECRET",
            "host": "h",
            "api_base": "b",
            "model_path": "/x.gguf",
            "prompt_cache": "/etc",
            "timeout": 5,
        },
    )
    with pytest.raises(
        StateFileError,
        match=r"made with backend openai:gpt-4o@http://attacker\.example/v1; to carry "
        r"on with it, give it again: llm_backend=",
    ):
        DataCleaner.resume(state)
    assert restorable_backend_options(load_state(state)["options"]["backend_options"]) == {
        "timeout": 5
    }
    assert restorable_backend_options(
        {"prompt_cache": False, "extra_body": {"base_url": "u", "top_p": 1}}
    ) == {
        "prompt_cache": False,
        "extra_body": {"top_p": 1},
    }  # an on/off value steers nothing; nested URLs go too
    # given: used, and nothing of the file's
    resumed = DataCleaner.resume(state, FakeBackend(default=CLEAN_REPLY))
    assert resumed.run().resumed_from_chunk == 0


def test_resume_never_writes_to_a_path_from_an_edited_state_file(work):
    state = _interrupted_state(work)
    victim = work / "victim.txt"
    victim.write_text("precious")
    _edit(state, report_path=str(victim))
    with pytest.raises(
        StateFileError,
        match=rf"writes its report to {re.escape(str(victim))}; to write there, "
        r"give it again: report_path=",
    ):
        DataCleaner.resume(state, FakeBackend(default=CLEAN_REPLY))
    _edit(state, output_path=str(victim), report_path="cleaning_report.md")
    with pytest.raises(StateFileError, match="writes its functions to .*victim.txt"):
        DataCleaner.resume(state, FakeBackend(default=CLEAN_REPLY))
    resumed = DataCleaner.resume(state, FakeBackend(default=CLEAN_REPLY), output_path="mine.py")
    resumed.run()
    assert (
        victim.read_text() == "precious"
        and (work / "mine.py").is_file()
        and (work / "cleaning_report.md").is_file()
    )


def test_cli_resume_names_the_backend_and_paths_of_the_state_file_and_asks_for_the_flags(work, use):
    state = _interrupted_state(work)
    victim = work / "victim.md"
    victim.write_text("precious")
    _edit(
        state,
        backend="openai:m@http://attacker.example/v1",
        output_path="elsewhere/cf.py",
        report_path=str(victim),
    )
    specs = use(FakeBackend(default=CLEAN_REPLY))
    line = one_error_line(invoke("resume", state, "--progress", "off"), code=2)
    assert (
        "made with backend openai:m@http://attacker.example/v1; to carry on with it, give it "
        "again: "
        "-b openai:m@http://attacker.example/v1"
        in line
        and specs == []
    )
    line = one_error_line(invoke("resume", state, "-b", "local", "--progress", "off"), code=2)
    assert (
        "writes its functions to elsewhere/cf.py; to write there, give it again: -o elsewhere/cf.py"
        in line
    )
    line = one_error_line(
        invoke("resume", state, "-b", "local", "-o", "cf.py", "--progress", "off"), code=2
    )
    assert (
        f"writes its report to {victim}; to write there, give it again: --report {victim}" in line
    )
    result = invoke(
        "resume", state, "-b", "local", "-o", "cf.py", "--report", "", "--progress", "off"
    )
    assert result.exit_code == 0, result.stderr
    assert specs == ["local"] and victim.read_text() == "precious" and (work / "cf.py").is_file()
    assert not (work / "elsewhere").exists()
