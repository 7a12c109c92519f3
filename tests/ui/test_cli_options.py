"""The command line and Python agree (issue 19): a flag per declared DataCleaner option with its
default and help, --backend-option, the default backend from the environment and the state file,
apply's output formats."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from pathlib import Path

import click
import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.options import GROUPS, OPTIONS
from recursive_cleaner.read.parsers import iter_records
from recursive_cleaner.ui import cli as cli_module
from recursive_cleaner.ui.cli import cli
from recursive_cleaner.ui.cli_options import BACKEND_ENV, RUN_FLAGS
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply
from tests.cli_helpers import EMAIL, ROWS, invoke, one_error_line

ROOT = Path(__file__).resolve().parents[2]
# FILE, -b, --progress, --state; **options takes the flat names
NOT_OPTIONS = {"llm_backend", "file_path", "on_progress", "state_file", "options"}


def _params(command: str) -> dict:
    return {p.name: p for p in cli.commands[command].params}


def test_every_datacleaner_parameter_and_group_field_is_declared_once():
    params = set(inspect.signature(DataCleaner.__init__).parameters) - {"self"} - NOT_OPTIONS
    basics = {s.name for s in OPTIONS if s.group is None}
    assert params == basics | set(GROUPS)
    for keyword, group in GROUPS.items():
        declared = [s.attr for s in OPTIONS if s.group == keyword]
        assert [f.name for f in dataclasses.fields(group)] == declared
    assert len({s.name for s in OPTIONS}) == len(OPTIONS)  # one flat name per option


def test_the_signature_defaults_are_the_declared_ones():
    python = inspect.signature(DataCleaner.__init__).parameters
    for spec in OPTIONS:
        if spec.group is None:
            assert python[spec.name].default == spec.default, spec.name


@pytest.mark.parametrize("command", ["generate", "analyze"])
def test_every_declared_option_has_its_flag_with_the_declared_default(command):
    params = _params(command)
    for spec in OPTIONS:
        if not spec.flags or command not in spec.commands:
            assert spec.name not in params, spec.name
            continue
        assert spec.name in params, spec.name
        param = params[spec.name]
        assert set(spec.flags) <= set(param.opts), spec.name
        # analyze writes no functions: its -o and --report say what they are there
        if not (command == "analyze" and spec.name in ("output_path", "report_path")):
            assert param.help == spec.help, spec.name
        none = spec.default is None and spec.cli_none is not None
        assert param.default == (spec.cli_none if none else spec.default), spec.name
    assert [s.name for s in OPTIONS if not s.flags] == ["sleep"]  # a callable: Python only
    assert set(RUN_FLAGS) == {s.name for s in OPTIONS if s.flags}


PLAIN_DEFAULTS = (type(None), bool, int, float, str, tuple, list)


def test_every_option_declares_a_plain_default_on_any_click():
    """click 8.2+ gives an undeclared default its own sentinel (UNSET); --help and the parity test
    read it."""
    for name, command in cli.commands.items():
        for p in command.params:
            if isinstance(p, click.Option) and not p.required:
                assert isinstance(p.default, PLAIN_DEFAULTS), (name, p.name, p.default)
                if p.is_flag and not p.multiple:
                    assert isinstance(p.default, bool) or p.flag_value is not True, (name, p.name)


def test_every_flag_the_readme_names_is_on_a_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # pip's flags are pip's
    ours = "\n".join(line for line in readme.splitlines() if "pip install" not in line)
    documented = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", ours))
    offered = {
        opt
        for command in cli.commands.values()
        for p in command.params
        for opt in (*p.opts, *p.secondary_opts)
    } | {"--help", "--version"}
    assert documented and documented - offered == set()


def test_generate_flags_reach_the_run_and_are_saved_in_the_state(work, use):
    use(FakeBackend([make_reply("lower_emails", EMAIL)], default=CLEAN_REPLY))
    result = invoke(
        "generate",
        "crm.jsonl",
        "-i",
        "email: lower case",
        "--state",
        "st.json",
        "--progress",
        "off",
        "--context-budget",
        "5000",
        "--schema-sample-size",
        "7",
        "--no-validate-runtime",
        "--sandbox-timeout",
        "4.5",
        "--no-profile-fields",
        "--max-field-attempts",
        "2",
        "--open-pass-attempts",
        "2",
        "--idle-chunks-before-skip",
        "3",
        "--chunk-chars",
        "9000",
        "--no-toolkit",
        "--rich-context",
        "--reflection",
        "rules",
        "--no-cross-row",
        "--optimize",
        "--optimize-threshold",
        "3",
        "--metrics-sample",
        "50",
        "--no-constrained",
    )
    assert result.exit_code == 0, result.stderr
    saved = json.loads((work / "st.json").read_text())
    options = {**saved, **saved["options"]}
    assert {
        k: options[k]
        for k in (
            "context_budget",
            "schema_sample_size",
            "validate_runtime",
            "sandbox_timeout",
            "profile_fields",
            "max_field_attempts",
            "open_pass_attempts",
            "idle_chunks_before_skip",
            "chunk_chars",
            "toolkit",
            "rich_context",
            "cross_row",
            "optimize",
            "optimize_threshold",
            "metrics_sample",
            "constrained",
        )
    } == {
        "context_budget": 5000,
        "schema_sample_size": 7,
        "validate_runtime": False,
        "sandbox_timeout": 4.5,
        "profile_fields": False,
        "max_field_attempts": 2,
        "open_pass_attempts": 2,
        "idle_chunks_before_skip": 3,
        "chunk_chars": 9000,
        "toolkit": False,
        "rich_context": True,
        "cross_row": False,
        "optimize": True,
        "optimize_threshold": 3,
        "metrics_sample": 50,
        "constrained": False,
    }
    assert options["reflection"]["mode"] == "rules"


@pytest.fixture
def built(monkeypatch):
    """The (spec, options) of every backend the CLI builds; each is a FakeBackend that says
    clean."""
    seen: list[tuple[str, dict]] = []

    def make(spec, **options):
        seen.append((spec, options))
        return FakeBackend(default=CLEAN_REPLY)

    monkeypatch.setattr(cli_module, "make_backend", make)
    return seen


def test_backend_options_go_to_the_backend(work, built):
    seen = built
    result = invoke(
        "analyze",
        "crm.jsonl",
        "-b",
        "openai:m@http://127.0.0.1:9/v1",
        "--progress",
        "off",
        "--backend-option",
        "timeout=30",
        "--backend-option",
        "max-tokens=2048",
        "--backend-option",
        "temperature=0.2",
        "--backend-option",
        "system_prompt=be brief",
    )
    assert result.exit_code == 0, result.stderr
    assert seen == [
        (
            "openai:m@http://127.0.0.1:9/v1",
            {"timeout": 30, "max_tokens": 2048, "temperature": 0.2, "system_prompt": "be brief"},
        )
    ]
    bad = invoke("analyze", "crm.jsonl", "--backend-option", "timeout", "--progress", "off")
    assert bad.exit_code == 2 and "expected KEY=VALUE, got 'timeout'" in bad.stderr


def test_resume_builds_the_backend_with_the_options_the_run_was_given(work, built):
    seen = built
    spec = "openai:m@http://127.0.0.1:9/v1"
    result = invoke(
        "generate",
        "crm.jsonl",
        "-b",
        spec,
        "--state",
        "st.json",
        "--progress",
        "off",
        "--chunk-size",
        "3",
        "--backend-option",
        "timeout=30",
        "--backend-option",
        "api_key=sk-SECRET",
    )
    assert result.exit_code == 0, result.stderr
    state = (work / "st.json").read_text()
    assert (
        json.loads(state)["options"]["backend_options"] == {"timeout": 30}
        and "sk-SECRET" not in state
    )
    # issue 28: the state file does not choose the server
    refused = invoke("resume", "st.json", "--progress", "off")
    assert (
        refused.exit_code == 2
        and f"made with backend {spec}; to carry on with it, give it again: -b {spec}"
        in refused.stderr
        and len(seen) == 1
    )
    for args in (
        ("-b", spec),
        ("-b", spec, "--backend-option", "timeout=5"),
        ("-b", "ollama:other"),
    ):
        assert invoke("resume", "st.json", "--progress", "off", *args).exit_code == 0
    # as saved (the key was never saved: it comes from the environment)
    assert seen[1:] == [
        (spec, {"timeout": 30}),
        (spec, {"timeout": 5}),  # given again: the new options win
        # another backend: the saved options were for the old one
        ("ollama:other", {}),
    ]


def test_an_option_the_backend_does_not_take_is_a_usage_error(work):
    result = invoke(
        "analyze",
        "crm.jsonl",
        "-b",
        "openai:m@http://127.0.0.1:9/v1",
        "--backend-option",
        "nope=1",
        "--progress",
        "off",
    )
    assert result.exit_code == 2 and "unexpected keyword argument 'nope'" in result.stderr


def test_the_default_backend_comes_from_the_environment(work, use, monkeypatch):
    specs = use(FakeBackend(default=CLEAN_REPLY))
    monkeypatch.setenv(BACKEND_ENV, "ollama:tiny")
    assert invoke("analyze", "crm.jsonl", "--progress", "off").exit_code == 0
    monkeypatch.delenv(BACKEND_ENV)
    assert invoke("analyze", "crm.jsonl", "--progress", "off").exit_code == 0
    assert invoke("analyze", "crm.jsonl", "-b", "ollama:given", "--progress", "off").exit_code == 0
    assert specs == ["ollama:tiny", "local", "ollama:given"]


def test_resume_asks_for_a_backend_of_the_state_file_that_is_not_the_default(
    work, use, monkeypatch
):
    """Issue 28: the state file's backend is named and asked for, never used silently; the default
    needs no -b."""
    specs = use(FakeBackend(default=CLEAN_REPLY))
    assert (
        invoke(
            "generate",
            "crm.jsonl",
            "-b",
            "ollama:first",
            "--state",
            "st.json",
            "--progress",
            "off",
            "--chunk-size",
            "3",
        ).exit_code
        == 0
    )
    monkeypatch.setenv(BACKEND_ENV, "ollama:env")
    line = one_error_line(invoke("resume", "st.json", "--progress", "off"), code=2)
    assert (
        "made with backend ollama:first; to carry on with it, give it again: -b ollama:first"
        in line
    )
    assert "the default is ollama:env" in line and specs == ["ollama:first"]
    monkeypatch.setenv(BACKEND_ENV, "ollama:first")  # the default now: no flag needed
    result = invoke("resume", "st.json", "--progress", "off")
    assert result.exit_code == 0, result.stderr
    assert specs == ["ollama:first", "ollama:first"]


@pytest.mark.parametrize(
    "suffix, module", [(".csv", None), (".parquet", "pyarrow"), (".xlsx", "openpyxl")]
)
def test_apply_writes_the_format_the_output_names_from_jsonl(work, suffix, module):
    if module:
        from tests.optional_deps import optional

        optional(module)
    (work / "cleaning_functions.py").write_text(
        EMAIL + "\n\ndef clean_data(record):\n    return lower_emails(record)\n"
    )
    result = invoke(
        "apply",
        "cleaning_functions.py",
        "crm.jsonl",
        "-o",
        f"x{suffix}",
        "--workers",
        "1",
        "--progress",
        "off",
    )
    assert result.exit_code == 0, result.stderr
    assert not (work / f"x{suffix}").read_bytes().startswith(b'{"')
    back = list(iter_records(str(work / f"x{suffix}")))
    assert [r["email"] for r in back] == [r["email"].lower() for r in ROWS]


def test_apply_refuses_an_output_extension_it_cannot_write(work):
    (work / "cleaning_functions.py").write_text(
        EMAIL + "\n\ndef clean_data(record):\n    return lower_emails(record)\n"
    )
    line = one_error_line(
        invoke("apply", "cleaning_functions.py", "crm.jsonl", "-o", "x.txt", "--progress", "off")
    )
    assert "cannot tell the output format from 'x.txt'" in line and not (work / "x.txt").exists()


def test_apply_warns_when_the_data_lacks_the_fields_the_functions_read(work):
    (work / "cleaning_functions.py").write_text(
        EMAIL + "\n\ndef clean_data(record):\n    return lower_emails(record)\n"
    )
    (work / "products.jsonl").write_text("".join(json.dumps({"sku": i}) + "\n" for i in range(3)))
    result = invoke(
        "apply",
        "cleaning_functions.py",
        "products.jsonl",
        "-o",
        "p.jsonl",
        "--workers",
        "1",
        "--progress",
        "off",
    )
    assert result.exit_code == 0, result.stderr
    assert (
        "warning: products.jsonl has no field 'email' that cleaning_functions.py reads"
        in result.stderr
    )


def test_generate_reports_unusable_replies(work, use):
    use(
        FakeBackend(
            ["not the XML asked for", make_reply("lower_emails", EMAIL)], default=CLEAN_REPLY
        )
    )
    args = ("-i", "email: lower case", "--progress", "off", "--holdout", "0")
    # the open pass, though the library's email function leaves nothing unexplained (issue 45)
    result = invoke("generate", "crm.jsonl", *args, "--call-every-chunk")
    assert result.exit_code == 0, result.stderr
    assert ", 1 unusable replies" in result.stdout
