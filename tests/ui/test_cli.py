"""The command line (click's CliRunner, the shared FakeBackend) and the live progress display."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from recursive_cleaner.backends import BackendError
from recursive_cleaner.ui import cli as cli_module
from recursive_cleaner import cleaner as cleaner_module
from recursive_cleaner.options import DEFAULTS
from recursive_cleaner.ui import progress as progress_module
from recursive_cleaner.ui.cli import cli
from recursive_cleaner.ui.progress import LiveProgress
from tests.cli_helpers import EMAIL, ROWS, invoke, one_error_line, runner as _runner
from tests.encoded_files import CODE as ENCODED_CODE
from tests.encoded_files import FORMATS, bad_byte_file
from tests.encoded_files import write as write_encoded
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

ROOT = Path(__file__).resolve().parents[2]
USAGE = {"prompt_tokens": 100, "completion_tokens": 20}


def _scripted(*replies, default=CLEAN_REPLY):
    return FakeBackend(list(replies), default=default, usage=USAGE)


# ---------------------------------------------------------------------------- help and wiring
def test_help_lists_every_command_and_each_command_has_help():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("generate", "analyze", "resume", "apply", "report"):
        assert command in result.output
        sub = invoke(command, "--help")
        assert sub.exit_code == 0 and "Usage:" in sub.output, command
    assert "--holdout" in invoke("generate", "--help").output
    assert "--reject-file" in invoke("apply", "--help").output


def test_every_flag_of_every_command_has_help_and_help_has_two_sections():
    for name, command in [("", cli), *cli.commands.items()]:
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help and param.help.strip(), (name, param.name)
    for command in ("generate", "analyze", "resume", "apply", "validate"):
        text = invoke(command, "--help").output
        common, advanced = text.index("Common options:"), text.index("Advanced options:")
        assert common < text.index("--help") < advanced, command
    apply_help = invoke("apply", "--help").output
    assert apply_help.index("--max-failures") < apply_help.index("Advanced options:")
    assert apply_help.index("Advanced options:") < apply_help.index("--batch-size")
    analyze_help = invoke("analyze", "--help").output
    assert "Analyze writes no functions" in analyze_help and "analysis_report.md" in analyze_help


def test_console_script_and_python_dash_m():
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["recursive-cleaner"] == "recursive_cleaner.ui.cli:main"
    assert any(d.startswith("click") for d in project["dependencies"])
    extras = project["optional-dependencies"]
    assert extras["progress"] == ["rich>=13.0.0"] and any("progress" in d for d in extras["dev"])
    out = subprocess.run(
        [sys.executable, "-m", "recursive_cleaner", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        out.returncode == 0
        and "generate" in out.stdout
        and "python -m recursive_cleaner" in out.stdout
    )


# ---------------------------------------------------------------------------- generate / analyze
def test_generate_writes_functions_report_and_plain_progress(work, use):
    specs = use(_scripted(make_reply("lower_emails", EMAIL)))
    (work / "goals.txt").write_text("email: lower case")
    result = invoke(
        "generate",
        "crm.jsonl",
        "-i",
        "@goals.txt",
        "--chunk-size",
        "3",
        "-b",
        "ollama:m",
        "--no-hint-functions",
    )
    assert result.exit_code == 0, result.stderr
    assert specs == ["ollama:m"]
    assert "wrote cleaning_functions.py: 1 function(s) lower_emails" in result.stdout
    assert "chunks 2/2" in result.stdout and "report cleaning_report.md" in result.stdout
    assert "def lower_emails" in (work / "cleaning_functions.py").read_text()
    assert (work / "cleaning_report.md").is_file()
    # not a terminal: plain progress lines on stderr
    assert "chunk 1/2 (3 records)" in result.stderr and "+ accepted lower_emails" in result.stderr
    assert "records/s" in result.stderr and "ETA" in result.stderr and "done in" in result.stderr


def test_generate_defaults_are_the_python_defaults(work, use, monkeypatch):
    """The CLI and DataCleaner(...) run the same loop unless told otherwise (issue 18: no CLI-only
    defaults)."""
    seen = {}
    original = cleaner_module.DataCleaner.__init__

    def spy(self, backend, file_path, **kwargs):
        seen.update(kwargs)
        original(self, backend, file_path, **kwargs)

    monkeypatch.setattr(cleaner_module.DataCleaner, "__init__", spy)
    use(_scripted())
    result = invoke("generate", "crm.jsonl", "-i", "fix it", "--progress", "off")
    assert result.exit_code == 0, result.stderr
    defaults = DEFAULTS  # the declared defaults (recursive_cleaner.options), Python's and the CLI's
    passed = {
        k: v
        for k, v in seen.items()
        if k not in ("instructions", "state_file", "on_progress", "dry_run")
    }
    assert {"early_termination", "call_every_chunk", "holdout_ratio", "chunk_size"} <= set(passed)
    assert {k: v for k, v in passed.items() if v != defaults[k]} == {}


def test_generate_passes_its_options_to_the_cleaner(work, use, monkeypatch):
    seen = {}
    original = cleaner_module.DataCleaner.__init__

    def spy(self, backend, file_path, **kwargs):
        seen.update(kwargs, file_path=file_path)
        original(self, backend, file_path, **kwargs)

    monkeypatch.setattr(cleaner_module.DataCleaner, "__init__", spy)
    use(_scripted())
    result = invoke(
        "generate",
        "crm.jsonl",
        "-i",
        "fix it",
        "--chunk-size",
        "2",
        "--max-iterations",
        "2",
        "--holdout",
        "0.3",
        "--sampling",
        "stratified",
        "--stratify-field",
        "status",
        "--seed",
        "7",
        "--track-metrics",
        "--early-termination",
        "--call-every-chunk",
        "--report",
        "",
        "-o",
        "out/cf.py",
        "--state",
        "st.json",
        "--llm-attempts",
        "2",
        "--progress",
        "off",
    )
    assert result.exit_code == 0, result.stderr
    assert seen["file_path"] == "crm.jsonl" and seen["instructions"] == "fix it"
    assert (seen["chunk_size"], seen["max_iterations"], seen["holdout_ratio"]) == (2, 2, 0.3)
    assert (seen["sampling_strategy"], seen["stratify_field"], seen["seed"]) == (
        "stratified",
        "status",
        7,
    )
    assert (
        seen["track_metrics"] is True
        and seen["early_termination"] is True
        and seen["dry_run"] is False
    )
    assert seen["call_every_chunk"] is True
    assert (
        seen["report_path"] is None
        and seen["output_path"] == "out/cf.py"
        and seen["state_file"] == "st.json"
    )
    assert seen["llm_attempts"] == 2 and seen["on_progress"] is None
    assert (work / "out" / "cf.py").is_file() and (work / "st.json").is_file()
    assert result.stderr == ""  # --progress off


def test_analyze_reports_issues_and_writes_no_code(work, use):
    use(
        _scripted(default=make_reply(status="clean", issues=(("Emails are in mixed case", False),)))
    )
    for args, report in (
        (("analyze",), "analysis_report.md"),
        (("generate", "--dry-run"), "cleaning_report.md"),
        (("analyze", "--report", "mine.md"), "mine.md"),
    ):
        (work / "cleaning_report.md").write_text("a generate run's report")
        (work / "cleaning_report.html").write_text("a generate run's html report")
        result = invoke(*args, "crm.jsonl", "-i", "email: lower case", "--chunk-size", "3")
        assert result.exit_code == 0, result.stderr
        assert "found" in result.stdout and "issue(s)" in result.stdout
        assert not (work / "cleaning_functions.py").exists()
        assert "Emails are in mixed case" in (work / report).read_text()
        assert "issue(s) found" in result.stderr
        if args[0] == "analyze":  # analyze leaves generate's reports as they are
            assert (work / "cleaning_report.md").read_text() == "a generate run's report"
            html = (work / "cleaning_report.html").read_text()
            assert html == "a generate run's html report"


def test_usage_errors_exit_2():
    assert invoke("generate").exit_code == 2  # FILE missing
    assert invoke("generate", "x.jsonl", "--chunk-size", "0").exit_code == 2
    assert invoke("frobnicate").exit_code == 2
    version = invoke("--version")
    assert version.exit_code == 0 and "recursive-cleaner, version" in version.output


def test_stratified_without_field_and_unknown_backend_are_usage_errors(work):
    result = invoke("generate", "crm.jsonl", "--sampling", "stratified")
    assert result.exit_code == 2 and "--stratify-field" in result.stderr
    result = invoke("generate", "crm.jsonl", "-b", "nosuch:model")  # the real backend registry
    assert result.exit_code == 2 and "unknown backend 'nosuch:model'" in result.stderr


# ---------------------------------------------------------------------------- errors: one line,
# exit 1
def test_missing_data_file(work, use):
    use(_scripted())
    assert (
        one_error_line(invoke("generate", "nope.jsonl")) == "Error: data file not found: nope.jsonl"
    )
    assert (
        one_error_line(invoke("analyze", "nope.jsonl")) == "Error: data file not found: nope.jsonl"
    )


def test_missing_instructions_file(work, use):
    use(_scripted())
    line = one_error_line(invoke("generate", "crm.jsonl", "-i", "@goals.txt"))
    assert line == "Error: instructions file not found: goals.txt"


def test_missing_optional_extra_names_the_install_command(work, use, monkeypatch):
    def missing(spec):
        raise ModuleNotFoundError("No module named 'xllamacpp'", name="xllamacpp")

    monkeypatch.setattr(cli_module, "make_backend", missing)
    line = one_error_line(invoke("generate", "crm.jsonl"))
    assert "xllamacpp" in line and "pip install 'recursive-data-cleaner[local]'" in line
    # what the local backend really raises when its runtime is absent: the hint reaches the shell
    use(
        FakeBackend(
            [
                BackendError(
                    "no local model runtime is installed: pip install "
                    "'recursive-data-cleaner[local]'"
                )
            ]
        )
    )
    line = one_error_line(
        invoke(
            "generate",
            "crm.jsonl",
            "-i",
            "email: lower case",
            "--llm-attempts",
            "1",
            "--call-every-chunk",  # the profile leaves nothing unexplained: ask anyway (issue 45)
        )
    )
    assert "pip install 'recursive-data-cleaner[local]'" in line


def test_dead_server_then_resume_finishes_the_run(work, use):
    # chunk 1 (clean: one open-ended call) gets its answer, then the server dies: exit 1, one line,
    # and the state file keeps chunk 1
    (work / "crm.jsonl").write_text(
        "".join(json.dumps({**r, "email": r["email"].lower()}) + "\n" for r in ROWS)
    )
    use(FakeBackend([CLEAN_REPLY, ConnectionRefusedError(111, "Connection refused")]))
    line = one_error_line(
        invoke(
            "generate",
            "crm.jsonl",
            "--chunk-size",
            "3",
            "--state",
            "st.json",
            "--call-every-chunk",  # so chunk 2 asks too (and chunk 1: issue 45)
            "--llm-attempts",
            "1",
            "-b",
            "openai:m@http://127.0.0.1:9/v1",
        )
    )
    assert "LLM backend failed after 1 attempt(s)" in line and "Connection refused" in line
    assert "recursive-cleaner resume st.json -b openai:m@http://127.0.0.1:9/v1" in line
    assert json.loads((work / "st.json").read_text())["last_completed_chunk"] == 0
    summary = invoke("report", "st.json")
    assert (
        summary.exit_code == 0
        and "1/2 chunks done" in summary.stdout
        and "resume st.json" in summary.stdout
    )

    specs = use(_scripted())
    result = invoke("resume", "st.json", "-b", "ollama:m")
    assert result.exit_code == 0, result.stderr
    assert specs == ["ollama:m"]
    assert "chunks 1/2 (resumed after chunk 1)" in result.stdout and "chunk 2/2" in result.stderr
    assert (work / "cleaning_functions.py").is_file()
    assert "2/2 chunks done" in invoke("report", "st.json").stdout


def test_bad_or_missing_state_file(work, use):
    use(_scripted())
    assert one_error_line(invoke("resume", "gone.json")) == "Error: state file not found: gone.json"
    (work / "bad.json").write_text("{not json")
    assert "is not valid JSON" in one_error_line(invoke("resume", "bad.json"))
    assert "is not valid JSON" in one_error_line(invoke("report", "bad.json"))
    (work / "old.json").write_text(json.dumps({"version": "0.2.0"}))
    assert "is missing 'file_path'" in one_error_line(invoke("resume", "old.json"))
    # a state file of another job given to generate
    (work / "other.jsonl").write_text(json.dumps({"a": 1}) + "\n")
    assert (
        invoke("generate", "other.jsonl", "--state", "st.json", "--progress", "off").exit_code == 0
    )
    assert "belongs to" in one_error_line(invoke("generate", "crm.jsonl", "--state", "st.json"))


def test_ctrl_c_exits_130_with_the_resume_hint(work, use):
    (work / "crm.jsonl").write_text(
        "".join(json.dumps({**r, "email": r["email"].lower()}) + "\n" for r in ROWS)
    )
    specs = use(FakeBackend([CLEAN_REPLY, KeyboardInterrupt()]))
    result = invoke(
        "generate",
        "crm.jsonl",
        "--chunk-size",
        "3",
        "--state",
        "st.json",
        "--call-every-chunk",  # the profile leaves nothing unexplained: ask anyway (issue 45)
    )
    line = one_error_line(result, code=130)
    assert "interrupted" in line and "recursive-cleaner resume st.json" in line
    assert specs == ["local"]
    # issue 31: what was accepted so far is written, and its report
    assert (work / "cleaning_functions.py").exists() and (work / "cleaning_report.md").exists()


def test_ctrl_c_is_not_retried_by_the_model_call(work, use):
    fake = FakeBackend([KeyboardInterrupt()], default=CLEAN_REPLY)
    use(fake)
    line = one_error_line(
        invoke("generate", "crm.jsonl", "--state", "st.json", "--call-every-chunk"), code=130
    )
    assert fake.calls == 1
    # no chunk finished, yet the state is saved at the first chunk's start (issue 43)
    hint = "carry on with: recursive-cleaner resume st.json"
    assert line == f"Error: interrupted; progress is saved, {hint}"


def test_debug_shows_the_traceback(work, use):
    use(_scripted())
    for args in (("--debug", "generate", "nope.jsonl"), ("generate", "nope.jsonl", "--debug")):
        result = invoke(*args)
        assert result.exit_code == 1
        assert (
            "Traceback (most recent call last)" in result.stderr
            and "FileNotFoundError" in result.stderr
        )
        assert result.stderr.strip().splitlines()[-1] == "Error: data file not found: nope.jsonl"


def test_unexpected_error_is_one_line_with_its_type(work, use):
    use(FakeBackend(lambda prompt: 42))  # not a str: LLMCallError
    result = invoke("generate", "crm.jsonl", "--llm-attempts", "1", "--call-every-chunk")
    assert "TypeError" in one_error_line(result)


# ---------------------------------------------------------------------------- apply, report
FUNCS = textwrap.dedent("""\
    def clean_data(record):
        if record["id"] == 4:
            raise ValueError("no four")
        record["email"] = record["email"].lower()
        return record""")


def test_apply_writes_the_cleaned_file(work):
    (work / "cf.py").write_text(
        FUNCS.replace('        raise ValueError("no four")\n', "        pass\n")
    )
    result = invoke("apply", "cf.py", "crm.jsonl", "-o", "clean.jsonl", "--workers", "1")
    assert result.exit_code == 0, result.stderr
    assert "wrote clean.jsonl: 6 of 6 records" in result.stdout and "sandboxed" in result.stdout
    emails = [json.loads(line)["email"] for line in (work / "clean.jsonl").read_text().splitlines()]
    assert emails == [r["email"].lower() for r in ROWS]
    assert "applied 6 records" in result.stderr


def test_apply_trusted_with_reject_file(work):
    (work / "cf.py").write_text(FUNCS)
    result = invoke(
        "apply",
        "cf.py",
        "crm.jsonl",
        "-o",
        "clean.jsonl",
        "--trusted",
        "--workers",
        "1",
        "--reject-file",
        "rejects.jsonl",
        "--batch-size",
        "2",
    )
    assert result.exit_code == 1, result.stderr  # finished, but not every record was cleaned
    assert (
        "5 of 6 records, 1 failed (in rejects.jsonl)" in result.stdout
        and "trusted" in result.stdout
    )
    assert (
        "error: clean_data failed on 1 record(s), in rejects.jsonl (--max-failures 0: exit 1)"
        in result.stderr
    )
    rejected = [json.loads(line) for line in (work / "rejects.jsonl").read_text().splitlines()]
    assert [r["index"] for r in rejected] == [4] and "no four" in rejected[0]["error"]


def test_apply_max_failures_allows_that_many(work):
    (work / "cf.py").write_text(FUNCS)
    args = ("apply", "cf.py", "crm.jsonl", "-o", "clean.jsonl", "--trusted", "--workers", "1")
    result = invoke(*args, "--max-failures", "1")
    assert result.exit_code == 0, result.stderr
    assert (
        "warning: clean_data failed on 1 record(s), written unchanged to clean.jsonl "
        "(--max-failures 1)" in result.stderr
    )
    assert invoke(*args, "--max-failures", "-1").exit_code == 2


def test_apply_errors(work):
    assert (
        one_error_line(invoke("apply", "cf.py", "crm.jsonl", "-o", "x.jsonl"))
        == "Error: functions file not found: cf.py"
    )
    (work / "cf.py").write_text("import os\ndef clean_data(record):\n    return record\n")
    assert (
        one_error_line(invoke("apply", "cf.py", "gone.jsonl", "-o", "x.jsonl"))
        == "Error: data file not found: gone.jsonl"
    )
    assert "refused by the safety policy" in one_error_line(
        invoke("apply", "cf.py", "crm.jsonl", "-o", "x.jsonl", "--workers", "1")
    )
    assert invoke("apply", "cf.py", "crm.jsonl").exit_code == 2  # -o is required


def test_report_prints_a_markdown_report(work):
    (work / "cleaning_report.md").write_text("# Cleaning report\n\nAll good.\n")
    result = invoke("report")
    assert result.exit_code == 0 and result.stdout == "# Cleaning report\n\nAll good.\n"
    assert (
        one_error_line(invoke("report", "nothing.md"))
        == "Error: report or state file not found: nothing.md"
    )


# ---------------------------------------------------------------------------- LiveProgress
EVENTS = [
    {"type": "chunk_start", "chunk_index": 0, "total_chunks": 2, "records": 3},
    {"type": "iteration", "chunk_index": 0, "total_chunks": 2, "iteration": 1},
    {
        "type": "llm_call",
        "chunk_index": 0,
        "total_chunks": 2,
        "latency_ms": 1500.0,
        "prompt_tokens": 900,
        "completion_tokens": 100,
    },
    {
        "type": "function_generated",
        "chunk_index": 0,
        "total_chunks": 2,
        "function_name": "fix_a",
        "field": "a",
    },
    {
        "type": "llm_call",
        "chunk_index": 0,
        "total_chunks": 2,
        "latency_ms": 900.0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
    },
    {
        "type": "validation_failed",
        "chunk_index": 0,
        "total_chunks": 2,
        "function_name": "fix_b",
        "error": "boom",
    },
    {"type": "chunk_done", "chunk_index": 0, "total_chunks": 2, "status": "clean"},
    {"type": "chunk_start", "chunk_index": 1, "total_chunks": 2, "records": 3},
    {"type": "parse_error", "chunk_index": 1, "total_chunks": 2, "error": "no XML"},
    {"type": "chunk_done", "chunk_index": 1, "total_chunks": 2, "status": "max_iterations"},
    {
        "type": "complete",
        "total_chunks": 2,
        "functions": 1,
        "llm_calls": 2,
        "prompt_tokens": 900,
        "completion_tokens": 100,
    },
]


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_live_progress_plain_lines_and_tally():
    out = io.StringIO()
    progress = LiveProgress(out, clock=_Clock())
    assert progress.live is False  # a StringIO is not a terminal
    for event in EVENTS:
        progress(event)
    t = progress.tally
    assert (t.accepted, t.rejected, t.unusable, t.calls, t.tokens, t.chunks_done, t.records) == (
        1,
        1,
        1,
        2,
        1000,
        2,
        6,
    )
    text = out.getvalue()
    assert (
        "chunk 1/2 (3 records)" in text
        and "+ accepted fix_a (a)" in text
        and "- rejected fix_b: boom" in text
    )
    assert "chunk 1/2 clean · functions 1 accepted, 1 rejected · model 2 calls, 1000 tokens" in text
    assert "ETA 0:00:" in text and "done in" in text


def test_live_progress_draws_the_rich_bar():
    pytest.importorskip("rich")
    out = io.StringIO()
    with LiveProgress(out, live=True, clock=_Clock()) as progress:
        for event in EVENTS:
            progress(event)
    text = out.getvalue()  # a file gets the final frame
    assert "100%" in text and "2/2 chunks" in text and "functions 1 accepted, 1 rejected" in text
    assert "━" in text


def test_live_progress_without_rich(monkeypatch):
    monkeypatch.setattr(progress_module, "rich_available", lambda: False)

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert LiveProgress(Tty()).live is False  # falls back to plain lines
    with pytest.raises(ImportError, match=r"recursive-data-cleaner\[progress\]"):
        LiveProgress(live=True)
    assert "pip install 'recursive-data-cleaner[progress]'" in cli_module.error_message(
        ImportError(
            "the live progress bar needs rich: pip install 'recursive-data-cleaner[progress]'",
            name="rich",
        )
    )


def test_live_progress_on_apply_events():
    out = io.StringIO()
    with LiveProgress(out, clock=_Clock()) as progress:
        progress(
            {
                "type": "apply_progress",
                "records_in": 2000,
                "records_out": 2000,
                "failed": 3,
                "skipped_input": 1,
                "seconds": 2.0,
            }
        )
    assert (
        "applied 2,000 records · 3 failed · 1 bad input lines skipped · 1,000 records/s"
        in out.getvalue()
    )


# ---------------------------------------------------------------------------- a real terminal
PTY_SCRIPT = textwrap.dedent("""\
    import sys
    sys.path.insert(0, {root!r})
    from recursive_cleaner.ui import cli
    from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply
    EMAIL = {email!r}
    cli.make_backend = lambda spec: FakeBackend([make_reply("lower_emails", EMAIL)], \
default=CLEAN_REPLY,
                                                usage={{"prompt_tokens": 100, "completion_tokens": \
20}})
    sys.exit(cli.main(["generate", "crm.jsonl", "-i", "email: lower case", "--chunk-size", "3", \
"--no-hint-functions"]))
""")


def test_progress_bar_in_a_real_terminal(work):
    pexpect = pytest.importorskip("pexpect", reason="pexpect is in the dev extra")
    pytest.importorskip("rich", reason="rich (the progress extra) is in the dev extra")
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(
        sys.executable,
        ["-c", PTY_SCRIPT.format(root=str(ROOT), email=EMAIL)],
        cwd=str(work),
        env=env,
        encoding="utf-8",
        timeout=120,
        dimensions=(30, 100),
    )
    child.expect(pexpect.EOF)
    child.close()
    screen = child.before
    assert child.exitstatus == 0, screen
    assert "━" in screen and "100%" in screen and "2/2 chunks" in screen
    assert "functions 1 accepted" in screen
    assert "wrote cleaning_functions.py: 1 function(s) lower_emails" in screen
    assert "[     0s] chunk" not in screen  # the bar, not the plain lines


# ---------------------------------------------------------------------------- other formats
@pytest.mark.parametrize("suffix, module", [(".parquet", "pyarrow"), (".xlsx", "openpyxl")])
def test_generate_and_apply_on_parquet_and_excel(work, use, suffix, module):
    from tests.optional_deps import optional, write_table_file

    optional(module)
    write_table_file(work / f"crm{suffix}", ROWS)
    use(_scripted(make_reply("lower_emails", EMAIL)))
    result = invoke(
        "generate",
        f"crm{suffix}",
        "-i",
        "email: lower case",
        "--chunk-size",
        "3",
        "--no-hint-functions",
    )
    assert result.exit_code == 0, result.stderr
    assert (
        "lower_emails" in result.stdout
        and "def lower_emails" in (work / "cleaning_functions.py").read_text()
    )
    result = invoke(
        "apply", "cleaning_functions.py", f"crm{suffix}", "-o", f"clean{suffix}", "--workers", "1"
    )
    assert result.exit_code == 0, result.stderr
    from recursive_cleaner.read.parsers import iter_records

    back = list(iter_records(str(work / f"clean{suffix}")))
    assert [r["email"] for r in back] == [r["email"].lower() for r in ROWS]
    assert [r["status"] for r in back] == ["active"] * len(ROWS)


def test_generate_on_a_document_runs_in_text_mode(work, use, monkeypatch):
    from recursive_cleaner.read import documents

    monkeypatch.setattr(documents.tempfile, "gettempdir", lambda: str(work))
    (work / "notes.html").write_text("<h1>Notes</h1><p>Seen on 03/04/2021.</p><script>x()</script>")
    backend = _scripted()
    use(backend)
    result = invoke("generate", "notes.html", "-i", "Dates as YYYY-MM-DD.")
    assert result.exit_code == 0, result.stderr
    assert "Seen on 03/04/2021." in backend.history[0] and "x()" not in backend.history[0]
    assert "def clean_data(text" in (work / "cleaning_functions.py").read_text()


def test_a_document_without_its_extra_is_one_line_with_the_install_command(work, use, monkeypatch):
    from recursive_cleaner.read import documents

    monkeypatch.setattr(documents.tempfile, "gettempdir", lambda: str(work))
    monkeypatch.setitem(sys.modules, "pypdf", None)
    (work / "scan.pdf").write_bytes(b"%PDF-1.4\n")
    use(_scripted())
    line = one_error_line(invoke("generate", "scan.pdf"))
    assert "reading .pdf needs pypdf: pip install 'recursive-data-cleaner[documents]'" in line


def test_apply_refuses_an_unasked_drop_unless_allowed(work):
    """A dedup on a field with a handful of values (the README's job at 61b931a kept 2 of 300): exit
    1, no file."""
    from recursive_cleaner.write.module import render_module

    fn = {"name": "keep", "code": "def keep(record):\n    return record", "docstring": ""}
    (work / "cf.py").write_text(
        render_module([fn], cross_row=[{"kind": "dedup", "key": ["status"]}])
    )
    line = one_error_line(
        invoke("apply", "cf.py", "crm.jsonl", "-o", "out.jsonl", "--workers", "1")
    )
    assert "would drop at least 5 of 6 records" in line and "--allow-drop" in line
    assert not (work / "out.jsonl").exists()
    result = invoke(
        "apply", "cf.py", "crm.jsonl", "-o", "out.jsonl", "--workers", "1", "--allow-drop"
    )
    assert result.exit_code == 0, result.stderr
    assert (
        "wrote out.jsonl: 1 of 6 records" in result.stdout
        and "5 duplicates dropped" in result.stdout
    )


def test_resume_uses_the_backend_string_the_state_file_keeps_when_given_again(work, use):
    """A run made with -b SPEC is resumed with that backend when -b SPEC is given again (issue 28:
    asked for)."""
    specs = use(_scripted(make_reply("lower_emails", EMAIL)))
    spec = "openai:some-model@http://127.0.0.1:9/v1"
    result = invoke(
        "generate",
        "crm.jsonl",
        "-i",
        "email: lower case",
        "--chunk-size",
        "3",
        "-b",
        spec,
        "--state",
        "run.json",
        "--max-iterations",
        "1",
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads((work / "run.json").read_text())["options"]["backend"] == spec
    assert f"give it again: -b {spec}" in one_error_line(invoke("resume", "run.json"), code=2)
    result = invoke("resume", "run.json", "-b", spec)
    assert result.exit_code == 0, result.stderr
    assert specs == [spec, spec]


def test_generate_writes_the_spec_and_takes_it_back_with_spec(work, use):
    use(_scripted())
    result = invoke("generate", "crm.jsonl", "-i", "email: lower case", "--chunk-size", "3")
    assert result.exit_code == 0, result.stderr
    assert (
        "field spec cleaning_functions.spec.json (edit it and pass it back with --spec)"
        in result.stdout
    )
    spec = json.loads((work / "cleaning_functions.spec.json").read_text())
    assert spec["fields"]["email"]["mentioned"] and spec["scope"] == "mentioned"
    use(_scripted())
    again = invoke(
        "generate",
        "crm.jsonl",
        "--spec",
        "cleaning_functions.spec.json",
        "--scope",
        "all",
        "--chunk-size",
        "3",
    )
    assert again.exit_code == 0, again.stderr
    assert (
        one_error_line(invoke("generate", "crm.jsonl", "--spec", "nope.json"))
        == "Error: spec file not found: nope.json"
    )


def test_draft_spec_asks_the_model_for_the_spec_first(work, use):
    prompts: list[str] = []
    draft = (
        "customer_id: none\nname: none\nemail: email\nstatus: enum: active | pending | churned\n"
    )

    def reply(prompt):
        prompts.append(prompt)
        return draft if "fill in, for every field" in prompt else CLEAN_REPLY

    use(FakeBackend(reply, usage=USAGE))
    result = invoke(
        "generate", "crm.jsonl", "-i", "email: lower case", "--chunk-size", "3", "--draft-spec"
    )
    assert result.exit_code == 0, result.stderr
    assert "fill in, for every field" in prompts[0]
    use(FakeBackend(reply, usage=USAGE))
    prompts.clear()
    assert (
        invoke("generate", "crm.jsonl", "-i", "email: lower case", "--chunk-size", "3").exit_code
        == 0
    )
    assert not any("fill in, for every field" in p for p in prompts)  # off by default


# ---------------------------------------------------------------------------- edge cases said out
# loud (issue 31)
def test_an_empty_input_is_one_error_line_and_exit_1(work, use):
    use(_scripted())
    (work / "empty.jsonl").write_text("")
    result = invoke(
        "generate", "empty.jsonl", "-i", "email: lower case", "-b", "ollama:m", "--progress", "off"
    )
    line = one_error_line(result, 1)
    assert "empty.jsonl has no records (an empty file)" in line
    assert "function(s)" not in result.output
    # nothing half-made is left behind: no empty functions file, spec or report
    made = {"cleaning_functions.py", "cleaning_report.md", "cleaning_report.html"}
    assert not made & {p.name for p in work.iterdir()}


def test_an_input_whose_every_line_is_skipped_has_no_records(work, use):
    use(_scripted())
    (work / "broken.jsonl").write_text("{oops\n[1,\n")
    result = invoke("analyze", "broken.jsonl", "-b", "ollama:m", "--progress", "off")
    assert result.exit_code == 1
    assert "broken.jsonl has no records (all 2 lines skipped)" in result.stderr
    assert "issue(s)" not in result.output


def test_goals_left_out_are_a_warning(work, use):
    use(_scripted())
    result = invoke(
        "generate",
        "crm.jsonl",
        "-i",
        "  ",
        "--chunk-size",
        "3",
        "-b",
        "ollama:m",
        "--progress",
        "off",
    )
    assert result.exit_code == 0
    assert "warning: no goals given: every field the data check flags may change; pass -i" in (
        result.stderr
    )


def test_goals_left_out_are_said_before_the_run(work, use):
    use(FakeBackend([BackendError("the server is down")]))
    args = ("-i", "", "--llm-attempts", "1", "--progress", "off", "--call-every-chunk")
    result = invoke("generate", "crm.jsonl", *args)
    assert result.exit_code == 1  # the run failed at its first call; the warning came first
    said = result.stderr
    assert said.index("warning: no goals given") < said.index("the server is down")


def test_the_run_names_both_reports(work, use):
    use(_scripted())
    result = invoke(
        "generate", "crm.jsonl", "-i", "email: lower case", "-b", "ollama:m", "--progress", "off"
    )
    assert result.exit_code == 0, result.output
    assert "report cleaning_report.md and cleaning_report.html" in result.stdout
    assert (work / "cleaning_report.html").exists()


def test_resuming_a_finished_run_says_nothing_was_left(work, use):
    use(_scripted())
    first = invoke(
        "generate",
        "crm.jsonl",
        "-i",
        "email: lower case",
        "--chunk-size",
        "3",
        "-b",
        "ollama:m",
        "--state",
        "run.json",
        "--progress",
        "off",
    )
    assert first.exit_code == 0, first.stderr
    again = invoke("resume", "run.json", "-b", "ollama:m", "--progress", "off")
    assert again.exit_code == 0, again.stderr
    assert "the run in run.json finished: " in again.output
    assert "nothing to resume \u2014 use generate --restart to start over" in again.output
    assert "chunks 0/" not in again.output and "resumed after" not in again.output


def test_log_calls_writes_one_json_line_per_model_call(work, use):
    use(_scripted())
    args = ("-i", "email: lower case", "--chunk-size", "3", "-b", "ollama:m", "--progress", "off")
    every = "--call-every-chunk"  # the profile leaves nothing unexplained: ask anyway (issue 45)
    result = invoke("generate", "crm.jsonl", *args, every, "--log-calls", "calls.jsonl")
    assert result.exit_code == 0, result.stderr
    lines = [json.loads(line) for line in (work / "calls.jsonl").read_text().splitlines()]
    assert lines and all(line["error"] is None and line["prompt"] for line in lines)
    assert f"LLM calls {len(lines)}," in result.output


# ---------------------------------------------------------------------------- --encoding
@pytest.mark.parametrize("fmt", FORMATS)
def test_encoding_on_every_command_and_one_error_line_for_a_bad_byte(work, use, fmt):
    use(_scripted())
    good = write_encoded(work, fmt, "utf-16").name
    bad, line, offset = bad_byte_file(work, fmt, "utf-8", b"\xe9")
    said = f"{bad.name}: line {line}: byte 0xe9 at byte offset {offset} is not valid UTF-8; "
    run = ("-i", "city: upper case", "--progress", "off", "--report", "", "-o", "gen.py")
    result = invoke("generate", good, "--encoding", "utf-16", *run)
    assert result.exit_code == 0, result.stderr
    for command in ("generate", "analyze"):
        error = one_error_line(invoke(command, bad.name, *run))
        assert said in error and "--encoding latin-1" in error
    if fmt == "txt":  # apply and validate read records
        return
    (work / "cf.py").write_text(ENCODED_CODE)
    for enc, name in (("utf-8", write_encoded(work, fmt).name), ("utf-16", good)):
        out = ("-o", f"out-{enc}.jsonl", "--workers", "1", "--encoding", enc)
        result = invoke("apply", "cf.py", name, *out, "--report", f"page-{enc}.html")
        assert result.exit_code == 0 and "wrote out-" in result.stdout, result.stderr
        assert "ZÜRICH" in (work / f"page-{enc}.html").read_text(encoding="utf-8")
    assert (work / "out-utf-8.jsonl").read_bytes() == (work / "out-utf-16.jsonl").read_bytes()
    assert said in one_error_line(invoke("apply", "cf.py", bad.name, "-o", "x.jsonl"))
    assert not (work / "x.jsonl").exists()
    city = {"kind": "enum", "allowed": ["Zürich", "Bogotá"], "mentioned": True}
    spec = {"version": 1, "scope": "mentioned", "keys": [], "fields": {"city": city}}
    (work / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    result = invoke("validate", good, "--encoding", "utf-16", "--spec", "spec.json")
    assert result.exit_code == 0 and "city: 0 of 7 value(s) break" in result.stdout
    assert said in one_error_line(invoke("validate", bad.name, "--spec", "spec.json"))
