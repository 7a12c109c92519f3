"""Options: declared once in groups, given in groups or by flat name; every one and the backend
string survive a state file and resume(), also a state file saved before the groups."""

from __future__ import annotations

import json
import shutil
from dataclasses import fields
from pathlib import Path

import pytest

from recursive_cleaner import (
    Chunking,
    CrossRow,
    DataCleaner,
    Goals,
    Judging,
    Metrics,
    ModelCalls,
    Optimizer,
    Output,
)
from recursive_cleaner.errors import PathConflictError, StateFileError
from recursive_cleaner.judge.reflection import ReflectionConfig
from recursive_cleaner.option_table import options_table
from recursive_cleaner.options import BY_NAME, Options
from recursive_cleaner.read.sampling import STRATEGIES
from recursive_cleaner.run import checkpoint
from recursive_cleaner.run.fingerprint import LATER_DEFAULTS
from recursive_cleaner.run.setup import resolve_backend, saved_backend_options
from recursive_cleaner.write.state import save_state
from tests.fakes import CLEAN_REPLY, FakeBackend

ROWS = [{"id": i, "email": f"P{i}@X.COM", "status": "active"} for i in range(12)]

# A value different from the default for every option (resolved values where the run resolves them).
NON_DEFAULT = {
    "chunk_size": 7,
    "instructions": "lower-case the emails",
    "max_iterations": 2,
    "context_budget": 1234,
    "validate_runtime": False,
    "schema_sample_size": 4,
    "mode": "structured",
    "encoding": "latin-1",
    "output_path": "OUT/cf.py",
    "holdout_ratio": 0.3,
    "sampling_strategy": "stratified",
    "stratify_field": "status",
    "seed": 9,
    "track_metrics": True,
    "ground_truth": "truth.jsonl",
    "metrics_sample": 77,
    "report_path": "OUT/r.md",
    "dry_run": True,
    "llm_attempts": 5,
    "sandbox_timeout": 3.5,
    "profile_fields": False,
    "max_field_attempts": 6,
    "open_pass_attempts": 2,
    "idle_chunks_before_skip": 4,
    "call_every_chunk": True,
    "constrained": False,
    "chunk_chars": 999,
    "chunk_view": "all",
    "hint_functions": False,
    "toolkit": False,
    "rich_context": True,
    "reflection": {**ReflectionConfig(mode="rules", accept_threshold=0.8).__dict__},
    "cross_row": False,
    "optimize": True,
    "optimize_threshold": 3,
    "early_termination": True,
    "saturation_check_interval": 5,
    "scope": "all",
    "spec": {"fields": {"email": {"kind": "email"}}},
    "draft_spec": True,
    "labels": [{"id": 1, "email": "a@b.co"}],
    "labels_key": "id",
    "backend": "openai:some-model@http://127.0.0.1:9/v1",
    "backend_options": {"timeout": 7},
}


def test_the_table_sets_every_option_to_something_else():
    defaults = Options()
    assert set(NON_DEFAULT) == {f.name for f in fields(Options)}
    assert all(NON_DEFAULT[name] != getattr(defaults, name) for name in NON_DEFAULT)


def test_every_option_and_the_backend_string_come_back_after_resume(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "OUT").mkdir()
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    given = {k: v for k, v in NON_DEFAULT.items() if k not in ("backend", "backend_options")}
    given["reflection"] = ReflectionConfig(mode="rules", accept_threshold=0.8)
    # as the CLI builds -b with --backend-option
    backend = resolve_backend(NON_DEFAULT["backend"], timeout=7)
    cleaner = DataCleaner(backend, str(data), state_file=str(tmp_path / "run.json"), **given)
    assert cleaner.settings == Options(**NON_DEFAULT)
    save_state(tmp_path / "run.json", checkpoint.snapshot(cleaner.ctx))

    state = str(tmp_path / "run.json")
    with pytest.raises(
        StateFileError,
        match=r"made with backend openai:some-model@http://127\.0\.0\.1:9/v1; .*"
        r"give it again: llm_backend='openai:some-model@",
    ):
        DataCleaner.resume(state)  # issue 28: the state file does not choose where the data is sent
    with pytest.raises(
        StateFileError, match=r"writes its functions to OUT/cf\.py; .* output_path='OUT/cf\.py'"
    ):
        DataCleaner.resume(state, NON_DEFAULT["backend"])  # ... nor where files are written
    with pytest.raises(
        StateFileError, match=r"writes its report to OUT/r\.md; .* report_path='OUT/r\.md'"
    ):
        DataCleaner.resume(state, NON_DEFAULT["backend"], output_path="OUT/cf.py")
    resumed = DataCleaner.resume(
        state, NON_DEFAULT["backend"], output_path="OUT/cf.py", report_path="OUT/r.md"
    )
    assert resumed.settings == cleaner.settings
    assert type(resumed.backend).__module__ == "recursive_cleaner.backends.openai_compat"
    assert resumed.backend.timeout == 7  # built with the saved options
    assert resumed.reflection == ReflectionConfig(mode="rules", accept_threshold=0.8)
    # options read by name
    assert (resumed.seed, resumed.llm_attempts, resumed.cross_row) == (9, 5, False)

    other = DataCleaner.resume(
        state,
        FakeBackend(default=CLEAN_REPLY),
        seed=3,
        output_path="OUT/cf.py",
        report_path="OUT/r.md",
    )
    # given wins
    assert other.settings == cleaner.settings.replace(seed=3, backend=None, backend_options=None)


def test_backend_options_are_saved_without_secrets_or_values_json_cannot_hold():
    backend = resolve_backend(
        "openai:m@http://127.0.0.1:9/v1",
        timeout=30,
        max_tokens=64,
        api_key="sk-XYZ",
        extra_headers={"Authorization": "Bearer sk-XYZ"},
        extra_body={"top_p": 0.5, "provider": {"api_key": "sk-XYZ", "order": ["a"]}},
    )
    assert saved_backend_options(backend) == {
        "timeout": 30,
        "max_tokens": 64,
        "extra_body": {"top_p": 0.5, "provider": {"order": ["a"]}},
    }
    backend.backend_options = {
        "temperature": float("nan"),
        "system_prompt": object(),
        "password": "p",
        "access_token": "t",
        "auth": "a",
        "API-KEY": "k",
    }
    assert saved_backend_options(backend) is None
    assert saved_backend_options(FakeBackend(default=CLEAN_REPLY)) is None  # an object says nothing


def test_a_run_given_an_object_saves_no_backend_and_resume_asks_for_one(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    state = tmp_path / "run.json"
    DataCleaner(
        FakeBackend(default=CLEAN_REPLY),
        str(data),
        chunk_size=6,
        state_file=str(state),
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    saved = json.loads(state.read_text())
    assert saved["options"]["backend"] is None and saved["chunk_size"] == 6
    with pytest.raises(StateFileError, match="pass the backend to resume"):
        DataCleaner.resume(str(state))


def test_a_state_file_from_before_the_options_object_still_resumes(tmp_path):
    """Old files kept a subset of options and reflection as a mode string."""
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    old = {
        "version": "0.2.0",
        "file_path": str(data),
        "instructions": "x",
        "chunk_size": 6,
        "last_completed_chunk": 0,
        "total_chunks": 2,
        "functions": [],
        "options": {"max_iterations": 2, "reflection": "rules", "seed": 4},
    }
    (tmp_path / "old.json").write_text(json.dumps(old))
    resumed = DataCleaner.resume(str(tmp_path / "old.json"), FakeBackend(default=CLEAN_REPLY))
    assert (resumed.max_iterations, resumed.seed, resumed.reflection.mode) == (2, 4, "rules")
    assert resumed.last_completed_chunk == 0 and resumed.llm_attempts == 3


# ---------------------------------------------------------------- option groups, declared once
DATA = Path(__file__).resolve().parent / "data"
# The options tests/data/make_state_v_before_groups.py gave the run, in groups.
FIXTURE_GROUPS = dict(
    chunking=Chunking(holdout=0.25, sampling="random", seed=4, chars=9000, view="all"),
    judging=Judging(
        sandbox_timeout=5.0,
        max_field_attempts=2,
        open_pass_attempts=2,
        idle_chunks_before_skip=2,
        call_every_chunk=True,
        hint_functions=False,
        rich_context=True,
        reflection="rules",
    ),
    model=ModelCalls(attempts=2, constrained=False, sleep=lambda s: None),
    cross_row=False,
    optimizer=Optimizer(enabled=True, threshold=3, saturation_check_interval=5),
    metrics=Metrics(track=True, sample=50),
    goals=Goals(scope="all"),
)
GOALS = "email: lower case"


@pytest.fixture
def old_state(tmp_path, monkeypatch):
    """The state file the code before option groups saved (main ba09ef5), its data: in tmp_path."""
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(DATA / "state_v_before_groups.jsonl", tmp_path / "d.jsonl")
    saved = json.loads((DATA / "state_v_before_groups.json").read_text(encoding="utf-8"))
    saved["file_path"] = str(tmp_path / "d.jsonl")
    (tmp_path / "run.json").write_text(json.dumps(saved), encoding="utf-8")
    return saved


def test_a_state_file_saved_before_option_groups_resumes_with_every_option(old_state):
    keys = set(old_state["options"]) | {"chunk_size", "instructions"} | set(LATER_DEFAULTS)
    assert keys == {f.name for f in fields(Options)}
    resumed = DataCleaner.resume("run.json", FakeBackend(default=CLEAN_REPLY), sleep=lambda s: None)
    assert resumed.settings == Options.from_dict(
        {
            **old_state["options"],
            "chunk_size": 6,
            "instructions": GOALS,
            "backend": None,
            "backend_options": None,
        }
    )
    assert resumed.reflection.mode == "rules" and resumed.last_completed_chunk == 0
    assert [f["name"] for f in resumed.functions] == ["lower_emails"]
    result = resumed.run()
    assert result.resumed_from_chunk == 0 and result.chunks_processed == 2
    assert result.functions == ["lower_emails"]


@pytest.mark.parametrize("given", ["groups", "flat"])
def test_the_same_options_given_again_carry_on_an_old_state_file(old_state, given):
    """The saved options mean what they meant: given again (in groups or flat), the same job."""
    flat = {
        k: v for k, v in old_state["options"].items() if k not in ("backend", "backend_options")
    }
    basics = dict(chunk_size=6, instructions=GOALS)
    if given == "groups":
        options = {
            **basics,
            "max_iterations": 2,
            "context_budget": 5000,
            "schema_sample_size": 4,
            **FIXTURE_GROUPS,
        }
    else:
        options = {
            **basics,
            **flat,
            "reflection": ReflectionConfig(**flat["reflection"]),
            "sleep": lambda s: None,
        }
    cleaner = DataCleaner(
        FakeBackend(default=CLEAN_REPLY), "d.jsonl", state_file="run.json", **options
    )
    assert cleaner.settings.to_dict() == {
        **flat,
        **LATER_DEFAULTS,  # options added since: their defaults, outside the fingerprint
        "chunk_size": 6,
        "instructions": GOALS,
        "backend": None,
        "backend_options": None,
    }
    result = cleaner.run()
    assert result.resumed_from_chunk == 0 and result.chunks_processed == 2


def test_resume_takes_options_in_groups(old_state):
    resumed = DataCleaner.resume(
        "run.json",
        FakeBackend(default=CLEAN_REPLY),
        chunking=Chunking(seed=7),
        model=ModelCalls(attempts=4),
    )
    assert (resumed.seed, resumed.llm_attempts) == (7, 4)
    assert resumed.sampling_strategy == "random"  # the rest as saved
    with pytest.raises(TypeError, match="'seed' twice"):
        DataCleaner.resume("run.json", FakeBackend(), chunking=Chunking(seed=7), seed=8)


def _data(tmp_path) -> str:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return str(data)


def test_groups_and_flat_names_and_plain_values_give_the_same_settings(tmp_path):
    data, backend = _data(tmp_path), FakeBackend(default=CLEAN_REPLY)
    flat = DataCleaner(
        backend,
        data,
        holdout_ratio=0.1,
        sampling_strategy="stratified",
        stratify_field="status",
        optimize=True,
        optimize_threshold=4,
        track_metrics=True,
        output_path="o/cf.py",
        cross_row=False,
        llm_attempts=2,
        scope="all",
        chunk_view="all",
        reflection="rules",
    )
    grouped = DataCleaner(
        backend,
        data,
        chunking=Chunking(holdout=0.1, sampling="stratified", stratify_field="status", view="all"),
        optimizer=Optimizer(enabled=True, threshold=4),
        metrics=Metrics(track=True),
        output=Output(path="o/cf.py"),
        cross_row=CrossRow(enabled=False),
        model=ModelCalls(attempts=2),
        goals=Goals(scope="all"),
        judging=Judging(reflection="rules"),
    )
    plain = DataCleaner(
        backend,
        data,
        chunking=Chunking(holdout=0.1, sampling="stratified", view="all"),
        stratify_field="status",
        optimizer=True,
        optimize_threshold=4,
        metrics=True,
        output="o/cf.py",
        cross_row=False,
        model=ModelCalls(attempts=2),
        scope="all",
        reflection="rules",
    )
    assert flat.settings == grouped.settings == plain.settings
    assert flat.settings.report_path == "o/cleaning_report.md"  # beside the functions, as before


def test_an_option_given_twice_or_unknown_is_a_type_error(tmp_path):
    data, backend = _data(tmp_path), FakeBackend()
    twice = r"got the option 'seed' twice: seed=4 and chunking=Chunking\(seed=3\)"
    with pytest.raises(TypeError, match=twice):
        DataCleaner(backend, data, chunking=Chunking(seed=3), seed=4)
    with pytest.raises(TypeError, match="'optimize' twice"):
        DataCleaner(backend, data, optimizer=True, optimize=False)
    unknown = r"DataCleaner.__init__\(\) got an unexpected keyword argument 'sed'"
    with pytest.raises(TypeError, match=unknown):
        DataCleaner(backend, data, sed=1)
    with pytest.raises(TypeError, match=r"optimizer= takes Optimizer\(...\) or a bool, got str"):
        DataCleaner(backend, data, optimizer="yes")
    with pytest.raises(TypeError, match=r"chunking= takes Chunking\(...\), got Judging"):
        DataCleaner(backend, data, chunking=Judging())
    with pytest.raises(TypeError):
        Chunking(3)  # keyword-only
    DataCleaner(backend, data, optimizer=Optimizer(threshold=3), optimize=True)  # two options


def test_values_no_run_could_use_fail_at_construction_with_the_same_messages(tmp_path):
    data, backend = _data(tmp_path), FakeBackend()
    for options, message in (
        ({"chunk_size": 0}, "chunk_size must be at least 1"),
        ({"chunking": Chunking(holdout=1.0)}, "holdout_ratio must be at least 0 and below 1"),
        ({"sampling_strategy": "stratified"}, "needs stratify_field"),
        ({"goals": Goals(scope="some")}, "scope must be 'mentioned' or 'all'"),
    ):
        with pytest.raises(ValueError, match=message):
            DataCleaner(backend, data, **options)


def test_the_constructor_only_stores_run_builds_the_context(tmp_path, monkeypatch):
    """scikit-learn style: no backend built, no file read or written, no path checked: run()."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path))  # a DataFrame's file
    data = _data(tmp_path)
    cleaner = DataCleaner("nope:model", "missing.jsonl", output_path=data)  # both wrong
    assert cleaner.settings.backend == "nope:model" and cleaner.file_path == "missing.jsonl"
    assert cleaner._ctx is None
    with pytest.raises(ValueError, match="nope"):
        cleaner.run()
    with pytest.raises(PathConflictError, match="output_path .* is the same file as file_path"):
        DataCleaner(FakeBackend(), data, output_path=data).run()
    with pytest.raises(FileNotFoundError, match="data file not found: missing.jsonl"):
        DataCleaner(FakeBackend(), "missing.jsonl").run()
    frame = DataCleaner(FakeBackend(default=CLEAN_REPLY), ROWS, output_path=str(tmp_path / "cf.py"))
    assert frame.file_path is None and frame.mode == "structured"
    assert not list(tmp_path.glob("**/input-*.jsonl"))
    frame.run()
    # the context built by run() (no model call: its rows leave nothing unexplained, issue 45)
    assert frame.file_path.endswith(".jsonl") and frame.ctx is not None
    assert list(tmp_path.glob("**/input-*.jsonl")) == [Path(frame.file_path)]


def test_the_sampling_choices_are_the_readers_strategies():
    assert BY_NAME["sampling_strategy"].choices == STRATEGIES


def test_the_docs_table_is_the_declarations():
    page = (Path(__file__).resolve().parents[1] / "docs" / "options.md").read_text(encoding="utf-8")
    start, end = "<!-- options table: begin -->\n", "<!-- options table: end -->"
    assert page[page.index(start) + len(start) : page.index(end)] == options_table()
