"""Issue 28's second red-team pass: hostile goals, spec, state and functions files, and the child's
output.

One test per attack, asserting what happens now (the refusal, the one-line error, the bounded
result). The attacks on data files are in ``test_redteam2_data.py``. The table of the pass
(attack, before, now, test) is in the pull request note of issue 28.
"""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from recursive_cleaner import clean
from recursive_cleaner.apply import ApplyError, apply_file
from recursive_cleaner.apply.local import read_functions
from recursive_cleaner.errors import StateFileError
from recursive_cleaner.profiling.instructions import read_goals
from recursive_cleaner.profiling.spec import load_spec
from recursive_cleaner.ui.cli import cli
from recursive_cleaner.write.state import load_state
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the sandbox is POSIX only")

FIELDS = ["name", "email", "status"]


# ---------------------------------------------------------------------------- hostile goals
# Before: a goals text of one 40,000-character word took 64 s in the parent (a quadratic regex for
# "a | b | c" lists) and 1 MB of short sentences 32 s (each sentence end copied the block before
# it);
# 100 KB of one word would have taken about 7 minutes. Now both are linear: these return at once.
@pytest.mark.parametrize(
    "goals", ["a" * 100_000, "Lower case. " * 10_000], ids=["one-long-word", "many-sentences"]
)
def test_goals_with_long_words_or_many_sentences_are_read_in_linear_time(goals):
    readings = read_goals(goals, FIELDS)
    assert set(readings) == set(FIELDS)


def test_a_pipe_list_in_the_goals_is_still_read():
    readings = read_goals("status: active | inactive | banned", FIELDS)
    assert readings["status"].expectation.allowed == ("active", "inactive", "banned")


# ---------------------------------------------------------------------------- hostile spec, state
# and goals files
@pytest.fixture
def deep_json(tmp_path):
    """A JSON file nested 100,000 deep: json's decoder recursed into a RecursionError."""
    path = tmp_path / "deep.json"
    path.write_text('{"fields": ' + "[" * 100_000 + "]" * 100_000 + "}")
    return path


def test_a_spec_file_nested_100000_deep_is_a_value_error_naming_it(deep_json):
    with pytest.raises(
        ValueError, match=r"spec file .*deep\.json is not valid JSON: nested too deeply"
    ):
        load_spec(deep_json)


def test_a_spec_file_that_is_not_utf8_is_a_value_error_naming_it(tmp_path):
    path = tmp_path / "spec.json"
    path.write_bytes(b'{"fields": {"\xff": {}}}')
    with pytest.raises(
        ValueError, match=r"spec file .*spec\.json is not valid JSON: 'utf-8' codec"
    ):
        load_spec(path)


@pytest.mark.parametrize(
    "spec, fragment",
    [
        # was TypeError: len()
        ({"fields": {"status": {"kind": "enum", "allowed": 5}}}, "allowed must be a list"),
        # was silently a, b, c
        ({"fields": {"status": {"kind": "enum", "allowed": "abc"}}}, "allowed must be a list"),
        (
            {"fields": {"status": {"kind": "enum", "allowed": [["x"], {"y": 1}]}}},
            "allowed must be a list",
        ),
        ({"fields": {}, "keys": 5}, "keys must be a list"),  # was TypeError: not iterable
        (
            {"fields": {}, "keys": "email"},
            "keys must be a list",
        ),  # was silently the keys e, m, a, i, l
    ],
)
def test_a_spec_with_values_of_the_wrong_type_is_a_one_line_value_error(spec, fragment):
    with pytest.raises(ValueError, match=fragment):
        load_spec(spec)


def test_the_cli_names_a_bad_spec_file_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.jsonl").write_text('{"status": "a"}\n')
    (tmp_path / "spec.json").write_text(
        json.dumps({"fields": {"status": {"kind": "enum", "allowed": 5}}})
    )
    result = CliRunner().invoke(
        cli,
        [
            "generate",
            "data.jsonl",
            "-i",
            "status: a or b",
            "--spec",
            "spec.json",
            "-b",
            "openai:m@http://127.0.0.1:9",
        ],
    )
    assert result.exit_code == 1
    assert (
        result.output.strip()
        .splitlines()[-1]
        .startswith("Error: spec file spec.json: field 'status'")
    )


def test_a_state_file_nested_100000_deep_is_a_state_file_error(deep_json):
    with pytest.raises(StateFileError, match="nested too deeply"):
        load_state(deep_json)


def test_a_goals_file_that_is_not_utf8_is_a_usage_error_naming_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.jsonl").write_text('{"a": 1}\n')
    (tmp_path / "goals.txt").write_bytes(b"a: lower case \xff\n")
    result = CliRunner().invoke(
        cli, ["generate", "data.jsonl", "-i", "@goals.txt", "-b", "openai:m@http://127.0.0.1:9"]
    )
    assert result.exit_code == 2
    assert "instructions file goals.txt is not UTF-8 text" in result.output


# ---------------------------------------------------------------------------- hostile functions
# files for apply
ROWS = '{"a": 1}\n{"a": 2}\n'


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text(ROWS)
    return path


def test_a_utf7_coding_cookie_is_read_as_an_import_reads_it_and_its_hidden_import_refused(
    data, tmp_path
):
    """In UTF-7, ``+AAo-`` is a newline: the comment hides ``import os`` from a UTF-8 reading, not
    from an import.

    Before: apply checked and ran the UTF-8 reading (a harmless comment) while ``import
    cleaning_functions`` ran ``os.getcwd()``: the code reviewed and checked was not the code Python
    runs. Now both read the cookie.
    """
    path = tmp_path / "fns.py"
    path.write_bytes(
        b"# -*- coding: utf-7 -*-\ndef clean_data(record):\n"
        b'    # +AAo-    import os+AAo-    record["x"] = os.getcwd()\n    return record\n'
    )
    with pytest.raises(ApplyError, match=r"refused by the safety policy: Line 4: import of 'os'"):
        apply_file(str(path), str(data), str(tmp_path / "out.jsonl"), workers=1)


@pytest.mark.parametrize(
    "raw",
    [
        b"\xef\xbb\xbf" + b"def clean_data(record):\n    return record\n",
        b"# -*- coding: latin-1 -*-\ndef clean_data(record):\n    return record\n#\xe9\n",
    ],
    ids=["utf8-bom", "latin1-cookie"],
)
def test_a_functions_file_python_can_import_is_applied(raw, data, tmp_path):
    """Before: a BOM (Windows editors) was a SyntaxError on U+FEFF, a Latin-1 file a bare codec
    error."""
    (tmp_path / "fns.py").write_bytes(raw)
    result = apply_file(str(tmp_path / "fns.py"), str(data), str(tmp_path / "out.jsonl"), workers=1)
    assert result.records_out == 2


def test_a_functions_file_that_is_not_text_is_one_error_naming_it(data, tmp_path):
    (tmp_path / "fns.py").write_bytes(b"\xff\xfedef clean_data(record):\n    return record\n")
    with pytest.raises(ApplyError, match=r"cannot load .*fns\.py: it is not Python source text"):
        apply_file(str(tmp_path / "fns.py"), str(data), str(tmp_path / "out.jsonl"), workers=1)


def test_a_utf7_cookie_in_a_reply_never_reaches_the_first_lines_of_the_written_file(
    tmp_path, monkeypatch
):
    """The cookie is only read on line 1 or 2; the written file starts with the library's
    docstring."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.jsonl").write_text('{"a": "x"}\n{"a": "y"}\n')
    code = (
        '# -*- coding: utf-7 -*-\ndef mark(record):\n    # +AAo-    record["a"] = "pwned"+AAo-\n'
        '    record = dict(record)\n    record["a"] = str(record.get("a", "")).upper()\n    return '
        "record"
    )
    backend = FakeBackend([make_reply("mark", code)], default=CLEAN_REPLY)
    result = clean(
        "data.jsonl",
        "a: upper case",
        backend=backend,
        chunk_size=2,
        holdout_ratio=0,
        progress=False,
        profile_fields=False,
        cross_row=False,
    )
    assert result.functions == ["mark"]
    text = (tmp_path / "cleaning_functions.py").read_bytes()
    assert b"coding" not in b"\n".join(text.splitlines()[:2])
    assert read_functions(tmp_path / "cleaning_functions.py") == text.decode("utf-8")
