"""Issue 43's third red-team pass, the run's files: ``--log-calls`` as an output, outputs under
/proc, /sys or /dev refused before any model call, each run's field spec its own, and Ctrl-C /
SIGTERM inside the first chunk leaving a state file to resume.

One test per attack or ordinary-use loss, asserting what happens now; the fake backend counts the
model calls (0 before a refusal).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply import apply_file
from recursive_cleaner.apply.report import find_spec, spec_beside
from recursive_cleaner.errors import OutputError, PathConflictError
from recursive_cleaner.run.call_log import CallLog
from recursive_cleaner.run.sidecar import STAMP_KEY, spec_path_for
from recursive_cleaner.ui.cli_errors import Terminated
from recursive_cleaner.write.state import check_output_path, load_state
from tests.cli_helpers import invoke, one_error_line
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

posix = pytest.mark.skipif(os.name != "posix", reason="FIFOs, /proc and modes as POSIX has them")
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and /sys: Linux")

ROWS = [{"id": i, "email": e} for i, e in enumerate(["A@X.COM", "b@x.com", "C@x.com", "d@x.com"])]
LOWER = (
    "def fix_email(record):\n    record = dict(record)\n"
    '    record["email"] = str(record.get("email", "")).strip().lower()\n    return record'
)
GOALS = "email: an email address, all lower case (A@X.COM -> a@x.com)"


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def _cleaner(backend, data, **options) -> DataCleaner:
    return DataCleaner(
        backend,
        str(data),
        chunk_size=2,
        instructions=GOALS,
        holdout_ratio=0,
        hint_functions=False,
        call_every_chunk=True,
        sleep=lambda s: None,
        **{"output_path": str(data.parent / "cf.py"), "report_path": None, **options},
    )


# ---------------------------------------------------------------------------- --log-calls
# Before: the log was opened at the first call with no check; pointed at the input it appended
# each prompt to the data (4 records read back as 8 on the next run), a FIFO hung the run.
def test_a_call_log_over_the_input_is_refused_before_the_first_call(data):
    before = data.read_bytes()
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="log_calls .* is the same file as file_path"):
        _cleaner(fake, data, log_calls=str(data)).run()
    assert fake.calls == 0 and data.read_bytes() == before


@pytest.mark.parametrize("other", ["output_path", "state_file", "report_path"])
def test_a_call_log_over_another_output_is_refused(data, other):
    path = str(data.parent / "same.out")
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="another output"):
        _cleaner(fake, data, log_calls=path, **{other: path}).run()
    assert fake.calls == 0


def test_the_cli_refuses_log_calls_on_its_data_file_as_a_usage_error(data, use):
    fake = FakeBackend(default=CLEAN_REPLY)
    use(fake)
    result = invoke("generate", "data.jsonl", "--log-calls", "data.jsonl")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "Error: --log-calls data.jsonl is the same file as FILE data.jsonl" in result.stderr
    assert fake.calls == 0


@posix
def test_a_fifo_as_the_call_log_is_refused_up_front_and_never_opened(data):
    fifo = data.parent / "calls.fifo"
    os.mkfifo(fifo)  # no reader: opening it for writing would block the run forever
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(OutputError, match="log_calls: .*calls.fifo is not a regular file"):
        _cleaner(fake, data, log_calls=str(fifo)).run()
    assert fake.calls == 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode)


@posix
def test_a_fifo_put_there_after_the_check_gets_nothing_and_turns_the_log_off(tmp_path):
    """The open does not block (O_NONBLOCK) and writes only to a regular file: with a reader
    waiting, not a byte reaches the pipe."""
    fifo = tmp_path / "calls.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so even a blocking open would return
    try:
        log = CallLog(fifo)
        log({"prompt": "a secret value"})
        assert log.failed
        try:
            got = os.read(reader, 100)  # b"": the writer came and went, writing nothing
        except BlockingIOError:
            got = b""
        assert got == b""
    finally:
        os.close(reader)
    no_reader = CallLog(fifo)  # no reader at all: ENXIO at once, not a hang
    no_reader({"prompt": "x"})
    assert no_reader.failed


@posix
def test_a_call_log_symlink_is_refused_before_the_first_call(data):
    target = data.parent / "precious.txt"
    target.write_text("precious\n")
    (data.parent / "calls.jsonl").symlink_to(target)
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(OutputError, match="symbolic link"):
        _cleaner(fake, data, log_calls=str(data.parent / "calls.jsonl")).run()
    assert fake.calls == 0 and target.read_text() == "precious\n"


def test_a_resumed_run_checks_its_call_log_too(data):
    state = str(data.parent / "st.json")
    first = _cleaner(FakeBackend([KeyboardInterrupt()]), data, state_file=state)
    with pytest.raises(KeyboardInterrupt):
        first.run()
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="log_calls"):
        DataCleaner.resume(
            state, fake, log_calls=str(data), output_path=str(data.parent / "cf.py")
        ).run()
    assert fake.calls == 0


# ---------------------------------------------------------------------------- /proc, /sys, /dev
# Before: an output under /proc/self/ passed the check (absent, in a folder) and failed with a raw
# FileNotFoundError when written, after 3 model calls (the whole run).
@linux
@pytest.mark.parametrize(
    "option, path",
    [
        ("output_path", "/proc/self/cf.py"),
        ("report_path", "/proc/self/comm"),  # an existing "regular" file of the kernel's
        ("report_path", "/proc/self/report.md"),
        ("state_file", "/proc/self/st.json"),
        ("log_calls", "/proc/self/calls.jsonl"),
        ("output_path", "/sys/kernel/cf.py"),
        ("log_calls", "/dev/null"),
    ],
)
def test_an_output_under_a_system_folder_is_refused_before_any_model_call(data, option, path):
    fake = FakeBackend(default=CLEAN_REPLY)
    # /dev/null exists and is no regular file: refused as such first
    refused = r"is under /(proc|sys|dev)|is not a regular file"
    with pytest.raises(OutputError, match=rf"{option}: .* ({refused})"):
        _cleaner(fake, data, **{option: path}).run()
    assert fake.calls == 0


@linux
def test_a_link_to_a_system_folder_is_followed_to_it_and_refused(data):
    (data.parent / "out").symlink_to("/proc/self")
    with pytest.raises(OutputError, match="is under /proc"):
        check_output_path(data.parent / "out" / "cf.py")
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(OutputError):
        _cleaner(fake, data, output_path=str(data.parent / "out" / "cf.py")).run()
    assert fake.calls == 0


@linux
def test_the_cli_refuses_an_output_under_proc_in_one_line_before_any_call(data, use):
    fake = FakeBackend(default=CLEAN_REPLY)
    use(fake)
    for args in (["-o", "/proc/self/cf.py"], ["--report", "/proc/self/r.md"]):
        line = one_error_line(invoke("generate", "data.jsonl", *args))
        assert "is under /proc, the system's own files" in line
    assert fake.calls == 0


@linux
def test_apply_refuses_an_output_under_proc_before_reading_anything(data):
    (data.parent / "f.py").write_text("def clean_data(record):\n    return record\n")
    with pytest.raises(OutputError, match="output_path: .* is under /proc"):
        apply_file(str(data.parent / "f.py"), str(data), "/proc/self/out.jsonl", workers=1)


def test_dev_shm_holds_ordinary_files_and_is_not_refused(tmp_path):
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm here")
    check_output_path("/dev/shm/recursive-cleaner-never-written.jsonl")  # no error


# ---------------------------------------------------------------------------- each run's spec
# Before: analyze wrote cleaning_spec.json beside the functions generate had written with it;
# apply --report and validate then counted by analyze's reading of other goals.
def _csv_rows(work):
    rows = [
        {"id": i, "status": s, "code": f"00{i}"}
        for i, s in enumerate(["active", "ACTIVE", "pending", "Pending", "actve", "active"])
    ]
    (work / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_analyze_with_other_goals_leaves_the_spec_generate_wrote_for_its_functions(data, use):
    work = data.parent
    _csv_rows(work)
    use(FakeBackend(default=CLEAN_REPLY))
    goals = "status: one of active, pending. Leave code alone."
    made = invoke("generate", "in.jsonl", "-i", goals, "--progress", "off")
    assert made.exit_code == 0, made.stderr
    mine = json.loads((work / "cleaning_functions.spec.json").read_text())
    assert mine["fields"]["status"]["kind"] == "enum"
    assert mine[STAMP_KEY]["functions"] == "cleaning_functions.py"
    other = invoke("analyze", "in.jsonl", "-i", "code: five digits", "--progress", "off")
    assert other.exit_code == 0, other.stderr
    assert (work / "analysis_report.spec.json").is_file()  # analyze's own, beside its report
    assert json.loads((work / "cleaning_functions.spec.json").read_text()) == mine
    assert not (work / "cleaning_spec.json").exists()
    # apply --report and validate read generate's reading, not analyze's
    assert find_spec(work / "cleaning_functions.py").path == str(
        work / "cleaning_functions.spec.json"
    )
    applied = invoke(
        "apply", "cleaning_functions.py", "in.jsonl", "-o", "out.jsonl", "--report", "r.html"
    )
    assert applied.exit_code == 0, applied.stderr
    assert "wrong values counted by" in applied.stdout and "cleaning_functions.spec.json" in (
        applied.stdout
    )
    checked = invoke("validate", "in.jsonl")
    assert checked.exit_code == 1 and "status: 3 of 6 value(s) break" in checked.stdout


def test_a_spec_written_for_other_code_is_said_so_and_not_counted_by(data, use):
    work = data.parent
    _csv_rows(work)
    use(FakeBackend(default=CLEAN_REPLY))
    made = invoke(
        "generate", "in.jsonl", "-i", "status: one of active, pending", "--progress", "off"
    )
    assert made.exit_code == 0, made.stderr
    functions = work / "cleaning_functions.py"
    functions.write_text(functions.read_text() + "\n# edited by hand\n")
    found = find_spec(functions)
    assert found.path is None and "cleaning_functions.spec.json was written for other code" in (
        found.note
    )
    applied = invoke(
        "apply", "cleaning_functions.py", "in.jsonl", "-o", "out.jsonl", "--report", "r.html"
    )
    assert applied.exit_code == 0, applied.stderr
    assert "note: " in applied.stderr and "not used; pass --spec" in applied.stderr
    assert "no field spec: nothing counted" in applied.stdout
    # the user says it is the one: counted by it
    forced = invoke(
        "apply", "cleaning_functions.py", "in.jsonl", "-o", "out.jsonl", "--report", "r.html",
        "--spec", "cleaning_functions.spec.json",
    )  # fmt: skip
    assert "wrong values counted by cleaning_functions.spec.json" in forced.stdout
    refused = invoke("validate", "in.jsonl")
    assert refused.exit_code == 2 and "was written for other code" in refused.stderr


def test_crlf_line_ends_keep_the_functions_and_their_spec_together(data, use):
    work = data.parent
    _csv_rows(work)
    use(FakeBackend(default=CLEAN_REPLY))
    invoke("generate", "in.jsonl", "-i", "status: one of active, pending", "--progress", "off")
    functions = work / "cleaning_functions.py"
    functions.write_bytes(functions.read_bytes().replace(b"\n", b"\r\n"))  # a Windows checkout
    assert spec_beside(functions) == str(work / "cleaning_functions.spec.json")


def test_an_analyze_report_named_after_the_functions_is_never_taken_for_their_spec(data, use):
    work = data.parent
    _csv_rows(work)
    use(FakeBackend(default=CLEAN_REPLY))
    invoke("generate", "in.jsonl", "-i", "status: one of active, pending", "--progress", "off")
    clash = invoke(
        "analyze", "in.jsonl", "-i", "code: digits", "--report", "cleaning_functions.md",
        "--progress", "off",
    )  # fmt: skip
    assert clash.exit_code == 0, clash.stderr
    found = find_spec(work / "cleaning_functions.py")
    assert found.path is None and "written by analyze" in found.note


def test_a_spec_from_an_earlier_version_is_read_with_a_note(tmp_path):
    functions = tmp_path / "cleaning_functions.py"
    functions.write_text("def clean_data(record):\n    return record\n")
    legacy = tmp_path / "cleaning_spec.json"
    legacy.write_text(json.dumps({"fields": {"status": {"kind": "free"}}}))
    found = find_spec(functions)
    assert found.path == str(legacy) and "the name earlier versions wrote" in found.note
    # the run's own spec, once there, wins over it
    own = tmp_path / "cleaning_functions.spec.json"
    own.write_text(json.dumps({"fields": {}}))
    assert find_spec(functions) == type(found)(str(own))


def test_each_run_names_its_spec_after_what_it_writes():
    assert spec_path_for("out/cf.py") == os.path.join("out", "cf.spec.json")
    assert spec_path_for("out/cf.py", "r/analysis.md", dry_run=True) == "r/analysis.spec.json"
    assert spec_path_for("out/cf.py", None, dry_run=True) == os.path.join(
        "out", "analysis.spec.json"
    )


def test_a_python_dry_run_and_a_run_keep_their_specs_apart(data):
    made = _cleaner(FakeBackend(default=CLEAN_REPLY), data, report_path=None).run()
    dry = _cleaner(
        FakeBackend(default="no issues"),
        data,
        dry_run=True,
        report_path=str(data.parent / "dry.md"),
    ).run()
    assert made.spec_path == str(data.parent / "cf.spec.json")
    assert dry.spec_path == str(data.parent / "dry.spec.json")
    assert json.loads(Path(made.spec_path).read_text())["fields"]["email"]["mentioned"]


def test_a_run_refuses_a_spec_path_that_is_its_input(tmp_path, monkeypatch):
    """The spec is an output too: named after the functions, it must not be the data file."""
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "x.spec.json"
    data.write_text(json.dumps([{"a": 1}]))
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="the field spec"):
        DataCleaner(fake, str(data), output_path=str(tmp_path / "x.py"), report_path=None).run()
    assert fake.calls == 0


# ---------------------------------------------------------------------------- Ctrl-C, SIGTERM
# Before: the state file was saved only after a finished chunk, so Ctrl-C in the first one left
# nothing to resume (the accepted function was in cleaning_functions.py, not in any state).
@pytest.mark.parametrize("nth", [1, 2, 3])
def test_ctrl_c_on_the_nth_call_saves_a_state_that_resume_carries_on(data, nth):
    state = str(data.parent / "st.json")
    # call 1 writes fix_email for chunk 0; 2 says chunk 0 is clean; 3 is chunk 1
    replies = [make_reply("fix_email", LOWER), CLEAN_REPLY, CLEAN_REPLY][: nth - 1]
    with pytest.raises(KeyboardInterrupt):
        _cleaner(FakeBackend([*replies, KeyboardInterrupt()]), data, state_file=state).run()
    saved = load_state(state)
    assert saved["last_completed_chunk"] == (-1 if nth < 3 else 0)  # the chunk's start
    assert [f["name"] for f in saved["functions"]] == (["fix_email"] if nth > 1 else [])
    again = FakeBackend(default=CLEAN_REPLY)
    if nth == 1:
        again = FakeBackend([make_reply("fix_email", LOWER)], default=CLEAN_REPLY)
    result = DataCleaner.resume(state, again, output_path=str(data.parent / "cf.py")).run()
    assert result.functions == ["fix_email"]
    assert result.chunks_processed == (2 if nth < 3 else 1)
    assert load_state(state)["last_completed_chunk"] == 1
    assert "a@x.com" in Path(data.parent / "cf.py").read_text() or "lower()" in (
        Path(data.parent / "cf.py").read_text()
    )


def test_a_state_that_cannot_be_written_on_ctrl_c_never_hides_the_interrupt(
    data, monkeypatch, caplog
):
    import recursive_cleaner.run.checkpoint as checkpoint

    def full(path, state):
        raise OutputError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr(checkpoint, "save_state", full)
    with pytest.raises(KeyboardInterrupt):
        _cleaner(
            FakeBackend([KeyboardInterrupt()]), data, state_file=str(data.parent / "st.json")
        ).run()
    assert "the state file" in caplog.text and "No space left" in caplog.text


def test_the_cli_ctrl_c_in_the_first_chunk_hints_resume_and_resume_finishes(data, use):
    use(FakeBackend([make_reply("fix_email", LOWER), KeyboardInterrupt()]))
    # the open pass after the function is asked though nothing is left unexplained (issue 45)
    args = ["generate", "data.jsonl", "-i", GOALS, "--chunk-size", "2", "--state", "st.json"]
    args.append("--call-every-chunk")
    line = one_error_line(invoke(*args, "--no-hint-functions", "--holdout", "0"), code=130)
    assert "interrupted; progress is saved, carry on with: recursive-cleaner resume st.json" in line
    use(FakeBackend(default=CLEAN_REPLY))
    done = invoke("resume", "st.json", "--progress", "off")
    assert done.exit_code == 0, done.stderr
    assert "def fix_email" in (data.parent / "cleaning_functions.py").read_text()


def test_sigterm_in_the_first_chunk_saves_the_state_too(data, use):
    """The CLI turns SIGTERM into ``Terminated`` (a KeyboardInterrupt): exit 143, state saved,
    nothing else written (no functions or report: it exits at once)."""
    fake = FakeBackend([make_reply("fix_email", LOWER), Terminated()])
    use(fake)
    # the open pass after the function is asked though nothing is left unexplained (issue 45)
    args = ["generate", "data.jsonl", "-i", GOALS, "--chunk-size", "2", "--state", "st.json"]
    args.append("--call-every-chunk")
    line = one_error_line(invoke(*args, "--no-hint-functions", "--holdout", "0"), code=143)
    assert "terminated; progress is saved" in line
    saved = load_state(str(data.parent / "st.json"))
    assert saved["last_completed_chunk"] == -1
    assert [f["name"] for f in saved["functions"]] == ["fix_email"]
    assert not (data.parent / "cleaning_functions.py").exists()


# ---------------------------------------------------------------------------- a pass of our own
# Attacks on the same files not in the lists, each asserting what happens now.
def test_a_state_file_whose_lock_is_the_input_is_refused_before_the_lock_takes_it(tmp_path):
    """Before: a text input named ``st.json.lock`` holding one number passed as a lock file left
    by a killed run: it was truncated to the pid line and removed at the end."""
    data = tmp_path / "st.json.lock"
    data.write_text("12\n")
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="is locked through .* which is file_path"):
        DataCleaner(
            fake,
            str(data),
            mode="text",
            output_path=str(tmp_path / "cf.py"),
            state_file=str(tmp_path / "st.json"),
        ).run()
    assert fake.calls == 0 and data.read_text() == "12\n"


def test_the_reports_html_page_over_an_input_document_is_refused(tmp_path):
    """``page.html`` cleaned with ``report_path="page.md"``: the page's HTML report is the input."""
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Mine. All of it.</p></body></html>")
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="the HTML report .* the document"):
        DataCleaner(
            fake,
            str(page),
            output_path=str(tmp_path / "cf.py"),
            report_path=str(tmp_path / "page.md"),
        ).run()
    assert fake.calls == 0 and "Mine. All of it." in page.read_text()


def test_a_dry_runs_spec_over_the_input_is_refused(tmp_path):
    data = tmp_path / "look.spec.json"
    data.write_text(json.dumps([{"a": 1}]))
    fake = FakeBackend(default="no issues")
    with pytest.raises(PathConflictError, match="the field spec"):
        DataCleaner(
            fake,
            str(data),
            dry_run=True,
            output_path=str(tmp_path / "cf.py"),
            report_path=str(tmp_path / "look.md"),
        ).run()
    assert fake.calls == 0


@posix
def test_a_call_log_hard_linked_to_the_input_is_refused(data):
    os.link(data, data.parent / "calls.jsonl")
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="log_calls"):
        _cleaner(fake, data, log_calls=str(data.parent / "calls.jsonl")).run()
    assert fake.calls == 0


def test_a_call_log_over_the_ground_truth_is_refused(data):
    truth = data.parent / "truth.jsonl"
    truth.write_text(data.read_text())
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(PathConflictError, match="log_calls .* ground_truth"):
        _cleaner(fake, data, log_calls=str(truth), ground_truth=str(truth)).run()
    assert fake.calls == 0


@linux
def test_resume_checks_its_paths_before_any_call(data):
    state = str(data.parent / "st.json")
    with pytest.raises(KeyboardInterrupt):
        _cleaner(FakeBackend([KeyboardInterrupt()]), data, state_file=state).run()
    fake = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(OutputError, match="output_path: /proc/self/cf.py is under /proc"):
        DataCleaner.resume(state, fake, output_path="/proc/self/cf.py").run()
    with pytest.raises(PathConflictError, match="log_calls .*another output"):
        DataCleaner.resume(
            state, fake, output_path=str(data.parent / "cf.py"), log_calls=state
        ).run()
    assert fake.calls == 0


@posix
def test_a_spec_file_planted_as_a_link_beside_the_functions_is_never_read(tmp_path):
    functions = tmp_path / "cleaning_functions.py"
    functions.write_text("def clean_data(record):\n    return record\n")
    private = tmp_path / "private.json"
    private.write_text(json.dumps({"fields": {"secret": {"kind": "free"}}}))
    (tmp_path / "cleaning_functions.spec.json").symlink_to(private)
    found = find_spec(functions)
    assert found.path is None and "is a symbolic link: not read" in found.note
    (tmp_path / "cleaning_functions.spec.json").unlink()
    (tmp_path / "cleaning_spec.json").symlink_to(private)  # the old name too
    assert find_spec(functions).path is None


@posix
def test_a_fifo_named_like_the_spec_is_passed_over_without_blocking(tmp_path):
    functions = tmp_path / "cleaning_functions.py"
    functions.write_text("def clean_data(record):\n    return record\n")
    os.mkfifo(tmp_path / "cleaning_functions.spec.json")
    assert find_spec(functions).path is None  # never opened: no reader would ever come
