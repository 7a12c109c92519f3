"""Generated code is assembled, read and run as written; the child shows no environment (issue 28,
point 4).

Before:
1. ``write.module.split_imports`` cut ``str.splitlines()`` by the tree's line numbers, so a function
   whose string constant held U+2028, U+0085 or a form feed lost its last lines (or was dropped);
2. a deeply nested expression in a functions file (``read_plan``) and a 1,500-link attribute chain
   in the policy's ``resolve`` raised a raw ``RecursionError`` / ``MemoryError``;
3. the library's own one-liner for a field named ``__class__`` was refused by its own policy;
4. ``os.environ`` / ``posix.environ`` held the environment in the trusted worker (a function
   copied a secret into the output);
5. a dict subclass whose ``items()`` answered differently each time changed a field that
   ``--audit`` never logged.
"""

from __future__ import annotations

import json

import pytest

from recursive_cleaner import DataCleaner, apply_file
from recursive_cleaner.apply.cross_row import read_plan
from recursive_cleaner.apply.local import ApplyError, apply_records
from recursive_cleaner.judge.policy import check_code_safety
from recursive_cleaner.judge.sandbox import run_in_sandbox
from recursive_cleaner.judge.validation import validate_function
from recursive_cleaner.write.module import render_module, source_lines
from tests.fakes import CLEAN_REPLY, FakeBackend

ENV_SECRET = "env-secret-28b"
SEPARATORS = ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e"]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_a_function_whose_text_holds_a_line_separator_is_assembled_whole(sep):
    first = (
        f'def tag(record):\n    record = dict(record)\n    record["t"] = "a{sep}b"\n'
        f'    record["u"] = "after"\n    return record'
    )
    second = (
        'import re\n\ndef trim(record):\n    record = dict(record)\n    record["s"] = re.sub(" +", '
        '" ", "x  y")\n    return record'
    )
    module = render_module([{"name": "tag", "code": first}, {"name": "trim", "code": second}])
    assert first in module and 'record["s"] = re.sub' in module
    result = run_in_sandbox(module, "clean_data", [{"a": 1}])
    assert result.ok and result.outputs == [{"a": 1, "t": f"a{sep}b", "u": "after", "s": "x y"}]


def test_source_lines_count_lines_as_ast_does():
    code = 'x = "\u2028\x0c\x85"\r\ny = 1\rz = 2\n'
    assert source_lines(code) == ['x = "\u2028\x0c\x85"', "y = 1", "z = 2", ""]
    assert "".join(source_lines(code, keepends=True)) == code


def test_apply_blanks_its_own_helper_at_the_right_lines(tmp_path):
    fn = (
        'def tag(record):\n    record = dict(record)\n    record["t"] = "a\u2028b"\n    return '
        "record"
    )
    module = render_module(
        [{"name": "tag", "code": fn}], cross_row=[{"kind": "dedup", "key": ["t"]}]
    )
    plan = read_plan(module, "f.py")
    assert "def clean_dataset" not in plan.code and 'record["t"] = "a\u2028b"' in plan.code
    assert len(source_lines(plan.code)) == len(source_lines(module))


DEEP = [
    "def clean_data(record):\n    x = " + "-" * 100_000 + "1\n    return record\n",
    "def clean_dataset(records):\n    return "
    + "-" * 20_000
    + "1\n\ndef clean_data(record):\n    return record\n",
]


@pytest.mark.parametrize("code", DEEP)
def test_a_functions_file_nested_too_deeply_is_a_one_line_refusal(code, tmp_path):
    with pytest.raises(ValueError, match="nested too deeply"):
        read_plan(code, "f.py", audit=True)
    path, data = tmp_path / "f.py", tmp_path / "in.jsonl"
    path.write_text(code)
    data.write_text('{"a": 1}\n')
    for trusted in (False, True):
        with pytest.raises(ApplyError) as caught:
            apply_file(
                str(path), str(data), str(tmp_path / "out.jsonl"), workers=1, trusted=trusted
            )
        assert "\n" not in str(caught.value) and "nested too deeply" in str(caught.value)


@pytest.mark.parametrize(
    "code",
    [
        "import typing\n\ndef f(record):\n    x = typing" + ".a" * 1500 + "\n    return record\n",
        "def f(record):\n    record" + ".a" * 1500 + " = 1\n    return record\n",
        "import re\n\ndef f(record):\n    re" + ".a" * 1500 + " = 1\n    return record\n",
        "import decimal\n\ndef f(record):\n    x = "
        + "(" * 150
        + "decimal.getcontext"
        + ")" * 150
        + "\n    return record\n",
    ],
)
def test_the_policy_answers_long_chains_with_problems_never_a_recursion_error(code):
    problems = check_code_safety(code)
    assert isinstance(problems, list) and all(len(p) < 400 for p in problems)
    if "re.a" in code or "getcontext" in code:
        assert problems


def test_a_field_named_like_a_dunder_is_data_and_gets_cleaned(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [{"__class__": v, "id": i} for i, v in enumerate(["12", " 7", "3.0", "x9", "4"] * 4)]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = DataCleaner(
        FakeBackend([CLEAN_REPLY], default=CLEAN_REPLY),
        "d.jsonl",
        sleep=lambda s: None,
        instructions="- __class__: whole numbers (integers)",
    ).run()
    assert result.functions  # before: the library's own one-liner was refused by its own policy
    code = (tmp_path / "cleaning_functions.py").read_text()
    assert "record['__class__']" in code and check_code_safety(code) == []
    cleaned = list(apply_records(code, rows[:3]))
    assert [r["__class__"] for r in cleaned] == [12, 7, 3]


def test_dunder_text_outside_a_key_is_still_refused():
    for code in (
        'import operator\n\ndef f(record):\n    return operator.attrgetter("__class__")(record)',
        'def f(record):\n    name = "__class__"\n    return record',
    ):
        assert check_code_safety(code), code
    assert validate_function(
        'def f(record):\n    """Fixes __class__."""\n    record = dict(record)\n'
        '    if record.get("__x__") == "__y__":\n        record.pop("__x__")\n    return record',
        [{"__x__": "__y__"}],
        "f",
    ) == (True, None)


ENV_CODE = """import os
import posix

def clean_data(record):
    record = dict(record)
    record["env"] = os.environ.get("RC_SECRET")
    record["posix"] = str(posix.environ.get(b"RC_SECRET"))
    with open("/proc/self/environ", "rb") as file:
        record["proc"] = file.read().decode("latin-1")
    return record
"""


def test_the_trusted_worker_has_no_environment_to_copy(monkeypatch):
    monkeypatch.setenv("RC_SECRET", ENV_SECRET)
    out = list(apply_records(ENV_CODE, [{"a": 1}], trusted=True))
    assert out[0]["env"] is None and out[0]["posix"] == "None"
    assert ENV_SECRET not in json.dumps(out)


def test_the_sandboxed_child_environment_is_empty(monkeypatch):
    monkeypatch.setenv("RC_SECRET", ENV_SECRET)
    code = (
        "import typing\n\ndef clean(record):\n    sys_ = typing.sys\n"
        '    return {"os": dict(sys_.modules["os"].environ), "posix": '
        'len(sys_.modules["posix"].environ)}'
    )
    result = run_in_sandbox(code, "clean", [{"a": 1}])
    assert result.ok and result.outputs == [{"os": {}, "posix": 0}]


STATEFUL = """
class Shifty(dict):
    reads = 0

    def items(self):
        Shifty.reads += 1
        return [(k, "unlogged" if Shifty.reads > 1 and k == "a" else v) for k, v in \
dict.items(self)]


def shift(record):
    return Shifty(record)


def clean_data(record):
    record = shift(record)
    return record
"""


def test_the_audit_log_compares_what_is_written(tmp_path):
    path, data = tmp_path / "f.py", tmp_path / "in.jsonl"
    path.write_text(STATEFUL)
    data.write_text('{"a": "x", "b": 1}\n{"a": "y", "b": NaN}\n')
    audit = tmp_path / "audit.jsonl"
    apply_file(
        str(path),
        str(data),
        str(tmp_path / "out.jsonl"),
        workers=1,
        trusted=True,
        audit_path=str(audit),
    )
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    log = [json.loads(line) for line in audit.read_text().splitlines()]
    inputs = [{"a": "x", "b": 1}, {"a": "y", "b": None}]
    logged = {(e["row"], e["field"]): e["new"] for e in log}
    # every written change is logged, and only those
    for row, (before, after) in enumerate(zip(inputs, out)):
        changed = {(row, k): v for k, v in after.items() if before.get(k) != v}
        assert changed == {key: new for key, new in logged.items() if key[0] == row}
