"""The AST policy refuses the bypass families of issue 17 at their root, and the sandbox holds on
its own.

Each family (tests/adversarial/families.py) is run twice: through ``check_code_safety``, which must
refuse it with a readable reason, and straight through ``run_in_sandbox`` (no AST policy), where it
must not read a host file, the test process's environment or open a socket.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from recursive_cleaner.judge.policy import check_code_safety
from recursive_cleaner.judge.sandbox import run_in_sandbox
from recursive_cleaner.judge.validation import validate_function
from tests.adversarial.families import FAMILIES, snippet

FILE_SECRET, ENV_SECRET = "file-secret-7f3a", "env-secret-91c2"


@pytest.fixture
def secret_file(monkeypatch):
    """A world-readable host file and an environment variable holding secrets."""
    folder = Path(tempfile.mkdtemp(prefix="rc-policy-test-"))
    folder.chmod(0o755)
    path = folder / "secret.txt"
    path.write_text(FILE_SECRET)
    path.chmod(0o644)
    monkeypatch.setenv("RC_SECRET", ENV_SECRET)
    yield str(path)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_ast_layer_refuses_each_family_with_a_reason(family, secret_file):
    code, fragment, _ = FAMILIES[family]
    problems = check_code_safety(snippet(family, secret_file))
    hits = [p for p in problems if fragment in p]
    assert hits, problems
    assert hits[0].startswith("Line ") and hits[0].endswith(".") and len(hits[0]) < 400


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_past_the_ast_layer_the_sandbox_still_keeps_secrets(family, secret_file):
    before = (os.getcwd(), dict(os.environ), set(sys.modules))
    result = run_in_sandbox(snippet(family, secret_file), "clean", [{"a": 1}])
    assert (os.getcwd(), dict(os.environ), set(sys.modules)) == before
    seen = json.dumps([result.outputs, result.errors, result.violations, result.error])
    assert FILE_SECRET not in seen and ENV_SECRET not in seen
    # it reached for the file (or the socket): refused and recorded
    if FAMILIES[family][2] == "refused":
        assert not result.ok and result.violations
        assert any("open" in v or "compile" in v for v in result.violations), result.violations
    # stopped on the way (an interpreter attribute): refused and recorded
    elif FAMILIES[family][2] == "blocked":
        assert not result.ok and result.violations, result.violations
    else:  # attribute reads through format strings: it runs, and what it reads holds no secret
        assert result.ok and result.errors == [None]


def test_the_socket_import_through_a_reached_sys_is_refused_at_run_time(secret_file):
    result = run_in_sandbox(snippet("typing.sys", secret_file), "clean", [{"a": 1}])
    assert "import socket" in result.violations


LEGIT = [
    (
        'def f(record):\n    record["p"] = "{:.2f}".format(float(record["p"]))\n    return record',
        None,
    ),
    (
        'FMT = "{} {}"\n\ndef f(record):\n    record["n"] = FMT.format(record["a"], '
        'record["b"])\n    return record',
        None,
    ),
    ('def f(record):\n    record["n"] = str.format("{0}-{1}", 1, 2)\n    return record', None),
    (
        "import operator\n\ndef f(record):\n    return dict(sorted(record.items(), "
        "key=operator.itemgetter(0)))",
        None,
    ),
    (
        "import operator\nimport datetime\n\ndef f(record):\n"
        '    record["y"] = operator.attrgetter("year")(datetime.date(2020, 1, 2))\n    return '
        "record",
        None,
    ),
    (
        "import collections.abc\nfrom collections import abc\n\ndef f(record):\n"
        '    record["m"] = isinstance(record, collections.abc.Mapping) and isinstance(record, '
        "abc.Mapping)\n"
        "    return record",
        None,
    ),
    (
        "import decimal\n\ndef f(record):\n    with decimal.localcontext() as ctx:\n        "
        "ctx.prec = 3\n"
        '        record["d"] = str(decimal.Decimal(1) / 3)\n    return record',
        None,
    ),
    (
        'import json\n\ndef f(record):\n    try:\n        record["j"] = json.loads(record.get("j") '
        'or "null")\n'
        "    except json.JSONDecodeError:\n        pass\n    return record",
        None,
    ),
    (
        'import recursive_cleaner.toolkit as tk\n\ndef f(record):\n    record["a"] = '
        'tk.to_int(record["a"])\n'
        "    return record",
        None,
    ),
]


@pytest.mark.parametrize("code, _", LEGIT)
def test_ordinary_cleaning_code_still_passes_and_runs(code, _):
    assert check_code_safety(code) == []
    assert validate_function(code, [{"a": "7", "b": "x", "p": "2.5", "j": "[1]"}], "f") == (
        True,
        None,
    )


@pytest.mark.parametrize(
    "code, fragment",
    [
        (
            "import re\n\ndef f(record):\n    re.sub = len\n    return record",
            "changing `re.sub` is not allowed",
        ),
        (
            "import decimal\n\ndef f(record):\n    decimal.getcontext().prec = 2\n    return "
            "record",
            "changing `decimal.getcontext().prec`",
        ),
        (
            "import recursive_cleaner.toolkit as tk\n\ndef f(record):\n    tk.CATALOGUE = ''\n    "
            "return record",
            "changing `tk.CATALOGUE`",
        ),
        (
            "def f(record):\n    global SEEN\n    SEEN = 1\n    return record",
            "`global SEEN` is not allowed",
        ),
        (
            "def helper(x):\n    return x\n\ndef f(record):\n    helper.cache = 1\n    return "
            "record",
            "changing `helper.cache`",
        ),
        (
            "def f(record):\n    return type('X', (), {})",
            "making classes with `type(name, bases, namespace)`",
        ),
        (
            "import operator\n\ndef f(record):\n    g = operator.attrgetter\n    return record",
            "may only be called directly with literal names",
        ),
        (
            "import operator\n\ndef f(record):\n    return operator.attrgetter('a._b')(record)",
            "no private",
        ),
        (
            "import operator\n\ndef f(record):\n    return operator.methodcaller('format', "
            "1)('{0.x}')",
            "no private or format",
        ),
        ("def f(record):\n    g = '{}'.format\n    return record", "may only be called directly"),
        (
            "def f(record):\n    return {'x': '{0.real}'.format(1)}",
            "the format field {0.real} reaches",
        ),
        (
            "def f(record):\n    return {'x': '{:{0.real}}'.format(1)}",
            "the format field {0.real} reaches",
        ),
        (
            "from typing import get_type_hints\n\ndef f(record):\n    return get_type_hints(f)",
            "`get_type_hints` is not allowed",
        ),
        (
            "import fractions\n\ndef f(record):\n    m = fractions.math\n    return record",
            "may only be used as",
        ),
        (
            "import html\n\ndef f(record):\n    return html.entities.html5",
            "`html.entities` is the module",
        ),
    ],
)
def test_root_rules_trip_with_a_readable_reason(code, fragment):
    problems = check_code_safety(code)
    assert any(fragment in p for p in problems), problems


def test_a_template_held_in_a_name_set_only_to_literals_may_be_formatted():
    ok = (
        'def f(record):\n    tmpl = "{}-{}"\n    record["k"] = tmpl.format(record["a"], '
        'record["b"])\n    return record'
    )
    assert check_code_safety(ok) == []
    for bad in (
        'def f(record):\n    tmpl = "{0.real}"\n    return {"k": tmpl.format(1)}',
        'def f(record):\n    tmpl = "{}"\n    tmpl = tmpl + "{0.real}"\n    return {"k": '
        "tmpl.format(1)}",
        'def f(record, tmpl="{}"):\n    return {"k": tmpl.format(1)}',
    ):
        assert check_code_safety(bad) != [], bad
