"""One options object: every DataCleaner option and the backend string survive a state file and resume()."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.errors import StateFileError
from recursive_cleaner.judge.reflection import ReflectionConfig
from recursive_cleaner.options import Options
from recursive_cleaner.run import checkpoint
from recursive_cleaner.run.setup import resolve_backend, saved_backend_options
from recursive_cleaner.write.state import save_state
from tests.fakes import CLEAN_REPLY, FakeBackend

ROWS = [{"id": i, "email": f"P{i}@X.COM", "status": "active"} for i in range(12)]

# A value different from the default for every option (resolved values where the run resolves them).
NON_DEFAULT = {
    "chunk_size": 7, "instructions": "lower-case the emails", "max_iterations": 2, "context_budget": 1234,
    "validate_runtime": False, "schema_sample_size": 4, "mode": "structured", "output_path": "OUT/cf.py",
    "holdout_ratio": 0.3, "sampling_strategy": "stratified", "stratify_field": "status", "seed": 9,
    "track_metrics": True, "ground_truth": "truth.jsonl", "metrics_sample": 77, "report_path": "OUT/r.md",
    "dry_run": True, "llm_attempts": 5, "sandbox_timeout": 3.5, "profile_fields": False, "max_field_attempts": 6,
    "open_pass_attempts": 2, "idle_chunks_before_skip": 4, "call_every_chunk": True, "constrained": False, "chunk_chars": 999, "chunk_view": "all", "hint_functions": False, "toolkit": False,
    "rich_context": True, "reflection": {**ReflectionConfig(mode="rules", accept_threshold=0.8).__dict__},
    "cross_row": False, "optimize": True, "optimize_threshold": 3, "early_termination": True,
    "saturation_check_interval": 5, "scope": "all", "spec": {"fields": {"email": {"kind": "email"}}},
    "draft_spec": True,
    "backend": "openai:some-model@http://127.0.0.1:9/v1", "backend_options": {"timeout": 7},
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
    backend = resolve_backend(NON_DEFAULT["backend"], timeout=7)  # as the CLI builds -b with --backend-option
    cleaner = DataCleaner(backend, str(data), state_file=str(tmp_path / "run.json"), **given)
    assert cleaner.settings == Options(**NON_DEFAULT)
    save_state(tmp_path / "run.json", checkpoint.snapshot(cleaner.ctx))

    state = str(tmp_path / "run.json")
    with pytest.raises(StateFileError, match=r"made with backend openai:some-model@http://127\.0\.0\.1:9/v1; .*"
                                             r"give it again: llm_backend='openai:some-model@"):
        DataCleaner.resume(state)  # issue 28: the state file does not choose where the data is sent
    with pytest.raises(StateFileError, match=r"writes its functions to OUT/cf\.py; .* output_path='OUT/cf\.py'"):
        DataCleaner.resume(state, NON_DEFAULT["backend"])  # ... nor where files are written
    with pytest.raises(StateFileError, match=r"writes its report to OUT/r\.md; .* report_path='OUT/r\.md'"):
        DataCleaner.resume(state, NON_DEFAULT["backend"], output_path="OUT/cf.py")
    resumed = DataCleaner.resume(state, NON_DEFAULT["backend"], output_path="OUT/cf.py", report_path="OUT/r.md")
    assert resumed.settings == cleaner.settings
    assert type(resumed.backend).__module__ == "recursive_cleaner.backends.openai_compat"
    assert resumed.backend.timeout == 7  # built with the saved options
    assert resumed.reflection == ReflectionConfig(mode="rules", accept_threshold=0.8)
    assert (resumed.seed, resumed.llm_attempts, resumed.cross_row) == (9, 5, False)  # options read by name

    other = DataCleaner.resume(state, FakeBackend(default=CLEAN_REPLY), seed=3, output_path="OUT/cf.py",
                               report_path="OUT/r.md")
    assert other.settings == cleaner.settings.replace(seed=3, backend=None, backend_options=None)  # given wins


def test_backend_options_are_saved_without_secrets_or_values_json_cannot_hold():
    backend = resolve_backend("openai:m@http://127.0.0.1:9/v1", timeout=30, max_tokens=64, api_key="sk-XYZ",
                              extra_headers={"Authorization": "Bearer sk-XYZ"},
                              extra_body={"top_p": 0.5, "provider": {"api_key": "sk-XYZ", "order": ["a"]}})
    assert saved_backend_options(backend) == {"timeout": 30, "max_tokens": 64,
                                              "extra_body": {"top_p": 0.5, "provider": {"order": ["a"]}}}
    backend.backend_options = {"temperature": float("nan"), "system_prompt": object(), "password": "p",
                               "access_token": "t", "auth": "a", "API-KEY": "k"}
    assert saved_backend_options(backend) is None
    assert saved_backend_options(FakeBackend(default=CLEAN_REPLY)) is None  # an object says nothing


def test_a_run_given_an_object_saves_no_backend_and_resume_asks_for_one(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    state = tmp_path / "run.json"
    DataCleaner(FakeBackend(default=CLEAN_REPLY), str(data), chunk_size=6, state_file=str(state),
                output_path=str(tmp_path / "cf.py"), sleep=lambda s: None).run()
    saved = json.loads(state.read_text())
    assert saved["options"]["backend"] is None and saved["chunk_size"] == 6
    with pytest.raises(StateFileError, match="pass the backend to resume"):
        DataCleaner.resume(str(state))


def test_a_state_file_from_before_the_options_object_still_resumes(tmp_path):
    """Old files kept a subset of options and reflection as a mode string."""
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    old = {"version": "0.2.0", "file_path": str(data), "instructions": "x", "chunk_size": 6, "last_completed_chunk": 0,
           "total_chunks": 2, "functions": [], "options": {"max_iterations": 2, "reflection": "rules", "seed": 4}}
    (tmp_path / "old.json").write_text(json.dumps(old))
    resumed = DataCleaner.resume(str(tmp_path / "old.json"), FakeBackend(default=CLEAN_REPLY))
    assert (resumed.max_iterations, resumed.seed, resumed.reflection.mode) == (2, 4, "rules")
    assert resumed.last_completed_chunk == 0 and resumed.llm_attempts == 3
