"""The AST policy (check_code_safety) and the verdicts of validate_function."""

from __future__ import annotations

import pytest

from recursive_cleaner.judge.validation import (
    ALLOWED_IMPORTS,
    ValidationReport,
    check_code_safety,
    validate_function,
    validate_function_detailed,
)

GOOD = '''"""Cleaning functions for the contacts file."""
from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Any

PHONE = re.compile(r"\\D+", re.IGNORECASE | re.MULTILINE)
STATES = {"calif.": "CA", "n.y.": "NY"}
BAD: frozenset = frozenset({"n/a", "-"})
LIMIT = -1


def _strip(value: str | None, default: str = "") -> str:
    return (value or default).strip()


def clean_contact(record: dict[str, Any]) -> dict[str, Any]:
    """Tidy one contact."""
    name = unicodedata.normalize("NFC", _strip(record.get("name")))
    record["name"] = " ".join(part.capitalize() for part in name.split())
    record["state"] = STATES.get(_strip(record.get("state")).lower(), record.get("state"))
    try:
        record["joined"] = datetime.strptime(record["joined"], "%m/%d/%Y").date().isoformat()
    except (KeyError, ValueError):
        pass
    fix = lambda s, sep="-": sep.join(s.split())  # noqa: E731
    record["id"] = fix(str(record.get("id", "")))
    return record
'''


def test_allowed_code_passes():
    assert check_code_safety(GOOD) == []


def test_allowed_imports_are_the_documented_set():
    assert {"re", "datetime", "json", "unicodedata", "collections.abc"} <= ALLOWED_IMPORTS
    assert (
        not {"os", "sys", "subprocess", "socket", "ctypes", "importlib", "builtins", "io"}
        & ALLOWED_IMPORTS
    )


@pytest.mark.parametrize(
    "code, line, fragment",
    [
        (
            "import os",
            1,
            "import of 'os' is not allowed; only these modules may be imported: __future__, base64",
        ),
        ("import os.path", 1, "import of 'os.path'"),
        ("import re, subprocess", 1, "import of 'subprocess'"),
        ("from socket import socket", 1, "import of 'socket'"),
        ("from . import helpers", 1, "relative imports are not allowed"),
        ("from re import *", 1, "`from re import *` is not allowed"),
        ("def f(r):\n    import ctypes\n    return r", 2, "import of 'ctypes'"),
        ("def f(r):\n    return eval(r)", 2, "`eval` is not allowed"),
        ("def f(r):\n    exec('x')", 2, "`exec` is not allowed"),
        ("def f(r):\n    return open('/etc/passwd')", 2, "`open` is not allowed"),
        ("def f(r):\n    return getattr(r, 'x')", 2, "`getattr` is not allowed"),
        ("def f(r):\n    return globals()", 2, "`globals` is not allowed"),
        ("def f(r):\n    return __import__('os')", 2, "`__import__` is not allowed"),
        ("def f(r):\n    return __builtins__", 2, "the name `__builtins__` is not allowed"),
        ("def f(r):\n    return r.__class__", 2, "double-underscore attribute `.__class__`"),
        ("def f(r):\n    return ().__class__.__mro__[1].__subclasses__()", 2, "`.__subclasses__`"),
        ("def f(r):\n    return f.__globals__", 2, "`.__globals__`"),
        ("def f(r):\n    return r.tb_frame.f_back", 2, "interpreter internals (`.f_back`)"),
        ("def f(r):\n    return r.gi_frame", 2, "interpreter internals (`.gi_frame`)"),
        (
            "def f(r):\n    return '{0.__class__}'.format(r)",
            2,
            "string literals naming double-underscore attributes",
        ),
        ("class Cleaner:\n    pass", 1, "class definitions (`class Cleaner`) are not allowed"),
        ("async def f(r):\n    return r", 1, "async code is not allowed"),
        (
            "import functools\n@functools.lru_cache\ndef f(r):\n    return r",
            3,
            "decorators are not allowed (on `f`)",
        ),
        (
            "def f(r, seen=set()):\n    return r",
            1,
            "default argument values and annotations must not call anything",
        ),
        ("def f(r: print('hi')):\n    return r", 1, "must not call anything"),
        (
            "x = 1\ndef f(r):\n    return r",
            1,
            "module-level assignments must be to UPPER_CASE constant names",
        ),
        (
            "import re\nPAT = re.sub('a', 'b', 'c')",
            2,
            "module-level constant PAT must be a literal",
        ),
        ("NOW = len('abc')", 1, "module-level constant NOW must be a literal"),
        (
            'def f(r):\n    return r\nif __name__ == "__main__":\n    f({})',
            3,
            'remove the `if __name__ == "__main__":` block',
        ),
        (
            "def f(r):\n    return r\nprint(f({}))",
            3,
            "top-level expressions and calls are not allowed",
        ),
        ("for i in range(3):\n    pass", 1, "a top-level `for` statement is not allowed"),
        (
            "try:\n    import re\nexcept ImportError:\n    pass",
            1,
            "a top-level `try` statement is not allowed",
        ),
        ("def f(r)\n    return r", 1, "SyntaxError"),
    ],
)
def test_each_rule_trips_with_a_helpful_message(code, line, fragment):
    problems = check_code_safety(code)
    assert problems, code
    hits = [p for p in problems if fragment in p]
    assert hits, problems
    assert hits[0].startswith(f"Line {line}: ") and hits[0].endswith(".")


def test_null_bytes_are_a_problem_not_a_crash():
    assert check_code_safety("x = 1\0") != []


# --- validate_function ------------------------------------------------------------

RECORDS = [{"name": "ada", "age": "36"}, {"name": "bob", "age": "n/a"}, {"name": "cy", "age": "7"}]
TO_INT = "def fix_age(record):\n    record['age'] = int(record['age'])\n    return record"


def test_a_working_function_passes():
    good = "def fix_age(record):\n    record['age'] = record['age'].strip()\n    return record"
    assert validate_function(good, RECORDS, "fix_age") == (True, None)


def test_a_crash_on_one_record_names_the_record():
    ok, message = validate_function(TO_INT, RECORDS, "fix_age")
    assert not ok
    assert message.startswith(
        "Record 1 failed with ValueError: invalid literal for int() with base 10: 'n/a' (line 2)."
    )
    assert "Input: {'name': 'bob', 'age': 'n/a'}" in message


def test_long_inputs_are_truncated_in_the_message():
    ok, message = validate_function(TO_INT, [{"age": "x" * 1000}], "fix_age")
    assert not ok and len(message) < 700 and message.endswith("...")


@pytest.mark.parametrize(
    "body, expected",
    [
        (
            "    record['x'] = 1",
            "returned None (a missing return statement?); it must return the cleaned record as a "
            "dict",
        ),
        ("    return [record]", "returned a list; it must return the cleaned record as a dict"),
        ("    return str(record)", "returned a str; it must return the cleaned record as a dict"),
        ("    return {1, 2}", "TypeError: the return value is not JSON-serialisable (set)"),
    ],
)
def test_wrong_return_types(body, expected):
    ok, message = validate_function(f"def fix(record):\n{body}", RECORDS[:1], "fix")
    assert not ok and message.startswith("Record 0") and expected in message


def test_every_failing_record_is_counted():
    ok, message = validate_function("def fix(record):\n    return None", RECORDS, "fix")
    assert not ok and "(3 of 3 records failed.)" in message


def test_missing_function_name():
    ok, message = validate_function(
        "def something_else(record):\n    return record", RECORDS, "fix_age"
    )
    assert (ok, message) == (
        False,
        "The code must define `def fix_age(record):` at module level (functions defined: "
        "something_else).",
    )


def test_wrong_arity():
    ok, message = validate_function("def fix(a, b):\n    return a", RECORDS, "fix")
    assert not ok and "must take exactly one argument" in message


def test_syntax_error():
    ok, message = validate_function("def fix(record)\n    return record", RECORDS, "fix")
    assert not ok and "SyntaxError" in message and "Line 1" in message


def test_policy_problems_come_before_running():
    ok, message = validate_function(
        "import os\ndef fix(record):\n    return record", RECORDS, "fix"
    )
    assert not ok and message.startswith(
        "The code breaks the safety policy: Line 1: import of 'os'"
    )


def test_load_time_errors_are_reported():
    code = "import re\nPAT = re.compile('(')\ndef fix(record):\n    return record"
    ok, message = validate_function(code, RECORDS, "fix")
    assert not ok and message.startswith(
        "The code failed to load: error: missing ), unterminated subpattern"
    )
    assert message.endswith("(line 2)")


def test_runtime_refusals_are_reported():
    # passes the AST policy, but namedtuple() compiles code at run time, which the sandbox refuses
    code = (
        "import collections\ndef fix(record):\n    try:\n        collections.namedtuple('P', 'a "
        "b')\n    except Exception:\n        pass\n    return record"
    )
    ok, message = validate_function(code, RECORDS, "fix")
    assert not ok and message.startswith("The function attempted a forbidden operation: compile(")
    assert "Cleaning functions must be pure" in message


def test_text_mode_expects_str():
    code = "def fix(text):\n    return ' '.join(text.split())"
    assert validate_function(code, ["  a  b ", "c"], "fix", expect=str) == (True, None)
    ok, message = validate_function(
        "def fix(text):\n    return {'t': text}", ["a"], "fix", expect=str
    )
    assert not ok and "returned a dict; it must return the cleaned str" in message
    ok, message = validate_function(code, ["a"], "fix")  # expect=dict by default
    assert not ok and "returned a str" in message


def test_detailed_report_counts_changes():
    code = "def fix(record):\n    record['name'] = record['name'].title()\n    return record"
    report = validate_function_detailed(code, RECORDS + [{"name": "Di", "age": "1"}], "fix")
    assert isinstance(report, ValidationReport)
    assert report.ok and report.error is None and report.changed == 3
    assert [o["name"] for o in report.outputs] == ["Ada", "Bob", "Cy", "Di"]
    assert report.duration_s > 0 and report.violations == [] and report.errors == [None] * 4


def test_empty_sample_still_loads_the_code():
    assert validate_function("def fix(record):\n    return record", [], "fix") == (True, None)
    ok, message = validate_function(
        "import re\nX = re.compile('[')\ndef fix(record):\n    return record", [], "fix"
    )
    assert not ok and "failed to load" in message
