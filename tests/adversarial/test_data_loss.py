"""Issue 17, "data never lost": outputs over inputs, unclosed CSV quotes, huge values, stale and
shared state files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import apply_file, apply_records
from recursive_cleaner.errors import InputError, PathConflictError, StateFileError
from recursive_cleaner.judge.sandbox import SandboxWorker
from recursive_cleaner.profiling import profiler
from recursive_cleaner.profiling.expectations import Expectation
from recursive_cleaner.read.parsers import iter_records
from recursive_cleaner.run.lock import lock_path, state_lock
from recursive_cleaner.ui import cli as cli_module
from recursive_cleaner.ui.cli import cli
from recursive_cleaner.write.state import load_state, save_state
from tests.fakes import CLEAN_REPLY, FakeBackend

ROOT = Path(__file__).resolve().parents[2]
STRIP = textwrap.dedent('''\
    def clean_data(record):
        """Strip the name; fail on the record named bad."""
        record = dict(record)
        if record.get("name") == "bad":
            raise ValueError("bad name")
        record["name"] = str(record.get("name", "")).strip()
        return record
    ''')
ROWS = [{"id": i, "name": f" n{i} "} for i in range(6)] + [{"id": 6, "name": "bad"}]


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        return CliRunner()


@pytest.fixture
def files(tmp_path, monkeypatch):
    """A working folder with data.jsonl and cleaning_functions.py."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    (tmp_path / "cleaning_functions.py").write_text(STRIP)
    return tmp_path


def _cleaner(backend, data, tmp_path, **options) -> DataCleaner:
    options.setdefault("output_path", str(tmp_path / "cf.py"))
    options.setdefault("report_path", None)
    # one call per chunk: the tests count chunks by calls
    options.setdefault("call_every_chunk", True)
    return DataCleaner(backend, str(data), chunk_size=2, sleep=lambda s: None, **options)


# ---------------------------------------------------------------------------- 7. one path, two
# files
@pytest.mark.parametrize(
    "outputs",
    [
        {"output_path": "out.jsonl", "reject_path": "out.jsonl"},
        {"output_path": "out.jsonl", "audit_path": "./out.jsonl"},
        {"output_path": "out.jsonl", "reject_path": "r.jsonl", "audit_path": "sub/../r.jsonl"},
        {"output_path": "data.jsonl"},
        {"output_path": "cleaning_functions.py"},
        {"output_path": "out.jsonl", "reject_path": "link.jsonl"},  # a symlink to the input
    ],
)
def test_apply_refuses_an_output_path_used_twice_and_writes_nothing(files, outputs):
    (files / "sub").mkdir()
    (files / "link.jsonl").symlink_to(files / "data.jsonl")
    before = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()}
    output = outputs.pop("output_path")
    with pytest.raises(PathConflictError, match="is the same file as") as caught:
        apply_file("cleaning_functions.py", "data.jsonl", output, **outputs)
    assert isinstance(caught.value, ValueError)
    # nothing new, nothing changed
    assert {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()} == before
    assert not any(p.name.endswith(".tmp") for p in files.rglob("*"))


def test_apply_records_refuses_one_file_for_rejects_and_audit(tmp_path):
    path = str(tmp_path / "log.jsonl")
    with pytest.raises(PathConflictError, match="audit_path .* reject_path"):
        list(apply_records(STRIP, [{"name": "x"}], reject_path=path, audit_path=path))
    assert not os.path.exists(path)


@pytest.mark.parametrize(
    "args",
    [
        ["-o", "x.jsonl", "--reject-file", "x.jsonl"],
        ["-o", "x.jsonl", "--audit", "x.jsonl"],
        ["-o", "data.jsonl"],
        ["-o", "y.jsonl", "--reject-file", "data.jsonl"],
    ],
)
def test_cli_apply_refuses_an_output_path_used_twice(files, args):
    result = _runner().invoke(cli, ["apply", "cleaning_functions.py", "data.jsonl", *args])
    assert result.exit_code == 2, result.output
    assert "is the same file as" in result.stderr and "Traceback" not in result.stderr
    assert not (files / "x.jsonl").exists() and not (files / "y.jsonl").exists()
    assert (files / "data.jsonl").read_text().count("\n") == len(ROWS)


def test_a_different_reject_file_still_gets_every_reject(files):
    result = apply_file(
        "cleaning_functions.py",
        "data.jsonl",
        "out.jsonl",
        reject_path="rejects.jsonl",
        audit_path="audit.jsonl",
    )
    assert result.failed == 1 and result.records_out == len(ROWS) - 1
    assert json.loads((files / "rejects.jsonl").read_text())["record"] == {"id": 6, "name": "bad"}
    assert result.audit_rows == len((files / "audit.jsonl").read_text().splitlines()) > 0


def test_generate_refuses_to_write_over_its_data_or_state(files, monkeypatch):
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="output_path .* file_path"):  # run() checks them
        _cleaner(backend, "data.jsonl", files, output_path="data.jsonl").run()
    with pytest.raises(PathConflictError, match="state_file .* output_path"):
        _cleaner(backend, "data.jsonl", files, state_file=str(files / "cf.py")).run()
    monkeypatch.setattr(cli_module, "make_backend", lambda spec: backend)
    result = _runner().invoke(cli, ["generate", "data.jsonl", "--report", "data.jsonl"])
    assert (
        result.exit_code == 2
        and "--report data.jsonl is the same file as FILE data.jsonl" in result.stderr
    )
    assert backend.calls == 0 and (files / "data.jsonl").read_text().count("\n") == len(ROWS)


# ---------------------------------------------------------------------------- 8. unclosed CSV quote
def _csv(tmp_path: Path, text: str) -> tuple[list[dict], list]:
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    skipped: list = []
    return list(iter_records(str(path), on_skip=skipped.append)), skipped


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_an_unclosed_quote_is_reported_and_the_lines_it_swallowed_are_read_again(tmp_path, newline):
    text = newline.join(
        ["id,name,note", "1,a,ok", '2,b,"never closed', '3,c,x ""quoted"" y', "4,d,", ""]
    )
    records, skipped = _csv(tmp_path, text)
    assert [r["id"] for r in records] == ["1", "3", "4"]
    # read as the csv module reads that line on its own
    assert records[1]["note"] == 'x ""quoted"" y'
    assert [(s.path, s.line) for s in skipped] == [(str(tmp_path / "t.csv"), 3)]
    assert "unclosed quote" in skipped[0].reason and "2 following line(s)" in skipped[0].reason


def test_an_unclosed_quote_in_the_last_column_no_longer_merges_silently(tmp_path):
    # before: one record {"id": "2", "note": "oops\n3,c,z\n"} with no skip and no warning
    records, skipped = _csv(tmp_path, 'id,name,note\n1,a,ok\n2,b,"oops\n3,c,z\n')
    assert records == [
        {"id": "1", "name": "a", "note": "ok"},
        {"id": "3", "name": "c", "note": "z"},
    ]
    assert [s.line for s in skipped] == [3]
    records, skipped = _csv(tmp_path, 'id,name\n1,"oops')  # on the last line: nothing follows
    assert (
        records == [] and [s.line for s in skipped] == [2] and "unclosed quote" in skipped[0].reason
    )


def test_an_unclosed_quote_in_the_header_is_an_error_naming_the_line(tmp_path):
    with pytest.raises(InputError, match=r"t\.csv: line 1: unclosed quote in the header"):
        _csv(tmp_path, 'id,"name\n1,a\n')


def test_apply_counts_the_unclosed_quote_and_keeps_the_records_after_it(tmp_path):
    (tmp_path / "in.csv").write_text('id,name\n1, a \n2,"oops\n3, c \n4, d \n')
    functions = tmp_path / "cf.py"
    functions.write_text(STRIP)
    result = apply_file(
        str(functions), str(tmp_path / "in.csv"), str(tmp_path / "out.csv"), batch_size=2
    )
    assert (
        result.skipped_input == 1
        and result.skipped[0].line == 3
        and "unclosed quote" in result.skipped[0].reason
    )
    assert (tmp_path / "out.csv").read_text().splitlines() == ["id,name", "1,a", "3,c", "4,d"]


def test_apply_dask_reads_an_unclosed_quote_as_apply_file_does(tmp_path):
    pytest.importorskip("dask.bag", reason="dask is an optional extra")
    from recursive_cleaner.apply.on_dask import apply_dask

    rows = ["id,name"] + [f"{i}, n{i} " for i in range(12)]
    rows[5] = '4,"oops'
    (tmp_path / "in.csv").write_text("\n".join(rows) + "\n")
    functions = tmp_path / "cf.py"
    functions.write_text(STRIP)
    ref = apply_file(
        str(functions), str(tmp_path / "in.csv"), str(tmp_path / "ref.csv"), batch_size=2, workers=1
    )
    result = apply_dask(
        str(functions),
        str(tmp_path / "in.csv"),
        str(tmp_path / "dask.csv"),
        batch_size=2,
        partition_size=2,
        trusted=True,
    )
    assert (tmp_path / "dask.csv").read_bytes() == (tmp_path / "ref.csv").read_bytes()
    assert (
        ref.records_out == 11
        and result.skipped_input == ref.skipped_input == 1
        and result.partitions >= 2
    )


# ---------------------------------------------------------------------------- 9. huge values
def test_the_profiler_reads_a_bounded_prefix_of_a_multi_megabyte_cell():
    # the whole value's shape is "a9"; its first 10,000 characters': "a"
    huge = "x" * 20_000 + "1" * 3_000_000
    profile = profiler.profile_field("note", [huge, "plain text", None])
    assert profile.shapes == {"a": 1, "a a": 1} and profile.total == 3 and profile.nulls == 1
    dated = profiler.profile_field("when", [huge, "2024-01-02"], Expectation("date"))
    assert dated.n_offending == 1 and dated.offending[0] is huge  # reported as the whole value
    assert profiler.value_key(huge) in dated.bad_keys


def test_the_profilers_cap_is_configurable(monkeypatch):
    monkeypatch.setattr(profiler, "MAX_VALUE_CHARS", 5)
    assert profiler.bounded("abcde12345") == "abcde" and profiler.bounded(12345678) == 12345678
    assert profiler.profile_field("f", ["abcde12345"]).shapes == {"a": 1}
    monkeypatch.setattr(profiler, "MAX_VALUE_CHARS", 10_000)
    assert profiler.profile_field("f", ["abcde12345"]).shapes == {"a9": 1}


def test_a_batch_too_large_for_the_sandbox_names_the_memory_limit():
    with SandboxWorker(
        "def clean_data(record):\n    return record\n", memory_mb=64, dict_only=True
    ) as worker:
        assert worker.start().ok
        worker.submit_lines((json.dumps({"note": "x" * (40 << 20)}) + "\n").encode())
        reply = worker.receive(60)
    assert not reply.ok and reply.error.startswith("ran out of memory (limit 64 MB)")
    assert "exited with code" not in reply.error


# ---------------------------------------------------------------------------- 10. state beyond the
# file
def _interrupted(data: Path, tmp_path: Path, state: Path) -> None:
    """A run of data.jsonl (4 chunks of 2) that saved chunk 0 and then lost its backend."""
    backend = FakeBackend([CLEAN_REPLY, ConnectionError("down")])
    with pytest.raises(Exception, match="down"):
        _cleaner(backend, data, tmp_path, state_file=str(state), llm_attempts=1).run()
    assert load_state(state)["last_completed_chunk"] == 0


def test_a_state_past_the_end_of_the_file_is_refused_naming_both_numbers(files):
    state = files / "state.json"
    _interrupted(files / "data.jsonl", files, state)
    saved = load_state(state)
    save_state(state, {**saved, "last_completed_chunk": 40})
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(
        StateFileError, match=r"last_completed_chunk is 40 .* has 4 chunk\(s\) of 2"
    ):
        DataCleaner.resume(
            str(state), backend, sleep=lambda s: None, output_path=str(files / "cf.py")
        ).run()
    assert backend.calls == 0 and not (files / "cf.py").exists()


def test_cli_resume_of_a_state_past_the_end_exits_1_with_one_line(files, monkeypatch):
    state = files / "state.json"
    _interrupted(files / "data.jsonl", files, state)
    save_state(state, {**load_state(state), "last_completed_chunk": 99})
    backend = FakeBackend([])
    monkeypatch.setattr(cli_module, "make_backend", lambda spec: backend)
    result = _runner().invoke(
        cli, ["resume", str(state), "-o", str(files / "cf.py"), "--progress", "off"]
    )
    assert result.exit_code == 1 and backend.calls == 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "last_completed_chunk is 99" in lines[0] and "4 chunk(s)" in lines[0]


def test_a_data_file_changed_since_the_state_was_saved_is_refused(files):
    state = files / "state.json"
    data = files / "data.jsonl"
    _interrupted(data, files, state)
    assert load_state(state)["file_size"] == data.stat().st_size
    with data.open("a") as f:
        f.write(json.dumps({"id": 7, "name": " late "}) + "\n")
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(StateFileError, match="would not line up"):
        _cleaner(backend, data, files, state_file=str(state)).run()
    assert backend.calls == 0


# ---------------------------------------------------------------------------- 11. one run per state
# file
HOLD = """
import sys
sys.path.insert(0, {root!r})
from recursive_cleaner.run.lock import state_lock
with state_lock({state!r}):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_a_second_run_on_a_state_file_in_use_fails_naming_the_pid(files):
    state = files / "state.json"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD.format(root=str(ROOT), state=str(state))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        backend = FakeBackend(default=CLEAN_REPLY)
        with pytest.raises(
            StateFileError, match=rf"{state.name} is in use by another run \(pid {holder.pid}"
        ):
            _cleaner(backend, files / "data.jsonl", files, state_file=str(state)).run()
        assert backend.calls == 0 and not state.exists()
    finally:
        holder.communicate("", timeout=30)
    # released and removed on exit
    assert holder.returncode == 0 and not os.path.exists(lock_path(state))
    backend = FakeBackend(default=CLEAN_REPLY)
    _cleaner(backend, files / "data.jsonl", files, state_file=str(state)).run()
    assert backend.calls == 4 and not os.path.exists(lock_path(state))


def test_the_cli_refuses_a_second_generate_on_one_state_file(files, monkeypatch):
    backend = FakeBackend(default=CLEAN_REPLY)
    monkeypatch.setattr(cli_module, "make_backend", lambda spec: backend)
    # another run holds it (flock: another open file conflicts)
    with state_lock(str(files / "state.json")):
        result = _runner().invoke(
            cli, ["generate", "data.jsonl", "--state", "state.json", "--progress", "off"]
        )
    assert result.exit_code == 1 and backend.calls == 0
    assert f"state file state.json is in use by another run (pid {os.getpid()}" in result.stderr


def test_a_lock_file_left_by_a_killed_run_does_not_block(files):
    state = files / "state.json"
    Path(lock_path(state)).write_text(" 999999999\n")  # no process holds it
    backend = FakeBackend(default=CLEAN_REPLY)
    _cleaner(backend, files / "data.jsonl", files, state_file=str(state)).run()
    assert backend.calls == 4 and not os.path.exists(lock_path(state))


def test_a_resumed_run_rereads_a_state_another_run_carried_further(files):
    state = files / "state.json"
    _interrupted(files / "data.jsonl", files, state)
    # restored at chunk 0
    resumed = DataCleaner.resume(
        str(state), FakeBackend([]), sleep=lambda s: None, output_path=str(files / "cf.py")
    )
    other = FakeBackend(default=CLEAN_REPLY)
    # meanwhile: chunks 1-3 done
    _cleaner(other, files / "data.jsonl", files, state_file=str(state)).run()
    assert other.calls == 3 and load_state(state)["last_completed_chunk"] == 3
    result = resumed.run()  # its FakeBackend has no reply: a call would fail the test
    assert result.resumed_from_chunk == 3 and result.chunks_processed == 0
