"""--log-calls / log_calls: one JSON line per model call; a file that cannot be written warns once
(issue 31)."""

from __future__ import annotations

import json
import logging
import stat
import sys

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.errors import OutputError
from recursive_cleaner.run.call_log import CallLog
from tests.fakes import CLEAN_REPLY, FakeBackend


def _run(tmp_path, log_calls):
    data = tmp_path / "d.jsonl"
    data.write_text('{"a": 1}\n{"a": 2}\n')
    return DataCleaner(
        FakeBackend(default=CLEAN_REPLY, usage={"prompt_tokens": 7, "completion_tokens": 3}),
        str(data),
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        call_every_chunk=True,
        chunk_size=1,
        log_calls=log_calls,
    ).run()


def test_every_model_call_is_one_json_line(tmp_path):
    path = tmp_path / "calls.jsonl"
    _run(tmp_path, str(path))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 2
    assert set(lines[0]) == {
        "purpose",
        "prompt",
        "reply",
        "prompt_tokens",
        "completion_tokens",
        "seconds",
        "attempt",
        "error",
    }
    assert lines[0]["reply"] == CLEAN_REPLY and lines[0]["prompt_tokens"] == 7
    assert lines[0]["purpose"] == "generate" and lines[0]["attempt"] == 1
    assert lines[0]["error"] is None and '"a"' in lines[0]["prompt"]


def test_off_by_default(tmp_path):
    _run(tmp_path, None)
    assert not list(tmp_path.glob("*calls*"))


def test_a_log_path_that_is_no_regular_file_is_refused_before_the_first_call(tmp_path):
    """Issue 43: checked with the other outputs (a folder, a FIFO, a device: never opened)."""
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(OutputError, match="log_calls: .*a-folder is not a regular file"):
        _run(tmp_path, str(folder))
    assert not (tmp_path / "cf.py").exists()


def test_a_log_that_cannot_be_written_warns_once_and_the_run_goes_on(tmp_path, caplog):
    """A log that fails after the check (its folder made a file, the disk full): one warning."""
    caplog.set_level(logging.WARNING, "recursive_cleaner")
    log = CallLog(tmp_path / "gone" / "calls.jsonl")  # no such folder: the open fails
    log({"x": 1})
    log({"x": 2})
    assert log.failed and caplog.text.count("cannot be written") == 1


def test_a_symlink_is_not_followed(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    (tmp_path / "link.jsonl").symlink_to(target)
    log = CallLog(tmp_path / "link.jsonl")
    log({"x": 1})
    assert log.failed and target.read_text() == "keep"


def test_a_resumed_run_logs_its_calls_too(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text('{"a": 1}\n{"a": 2}\n')
    state, path = str(tmp_path / "st.json"), tmp_path / "calls.jsonl"
    first = DataCleaner(
        FakeBackend([CLEAN_REPLY, KeyboardInterrupt()]),
        str(data),
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        call_every_chunk=True,
        chunk_size=1,
        state_file=state,
    )
    try:
        first.run()
    except KeyboardInterrupt:
        pass
    again = DataCleaner.resume(
        state,
        FakeBackend(default=CLEAN_REPLY),
        log_calls=str(path),
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
    )
    again.run()
    assert len(path.read_text().splitlines()) == 1


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_new_log_is_readable_by_its_owner_only(tmp_path):
    """Prompts and replies quote the data's values: the log is 0600 whatever the umask."""
    path = tmp_path / "calls.jsonl"
    CallLog(path)({"purpose": "field", "prompt": "a secret value", "reply": ""})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
