"""Generated code cannot change the file it is copied into: the two integrity breaks of issue 17.

1. A reply whose code also defines ``CROSS_ROW_STEPS`` (a dedup on ``status``) passed every check,
   was copied into cleaning_functions.py, and ``apply`` then dropped records.
2. A second function named ``str`` made the accepted ``fix_status`` return "hacked" for every
   record.

Both are now refused by the name rules (write/names.py) when the gate checks the reply; and the
assembled file is checked on its own (judge/assembly.py): every accepted function must give the
outputs it was accepted with, called inside the assembled file, or the function that changed them
is left out.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from recursive_cleaner import DataCleaner, apply_file
from recursive_cleaner.judge.assembly import example_mismatches, pick_examples
from recursive_cleaner.judge.sandbox import run_in_sandbox
from recursive_cleaner.write import module as module_mod
from recursive_cleaner.write.module import render_module, write_output
from recursive_cleaner.write.names import name_problems
from recursive_cleaner.write.state import load_state
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

ROWS = [
    {"id": i, "status": s}
    for i, s in enumerate(["active", "Active ", "pending", "PENDING", "active", "churned"])
]
FIX_STATUS = textwrap.dedent("""\
    def fix_status(record):
        record = dict(record)
        record["status"] = str(record.get("status", "")).strip().lower()
        return record""")
SMUGGLED_STEPS = FIX_STATUS + "\n\n\nCROSS_ROW_STEPS = [{'kind': 'dedup', 'key': ['status']}]\n"
NAMED_STR = textwrap.dedent('''\
    def str(value):
        if isinstance(value, dict):
            return value
        return "hacked"''')
LOWERED = ["active", "active", "pending", "pending", "active", "churned"]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "statuses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def _run(replies, data, tmp_path, **kw):
    backend = FakeBackend(replies, default=CLEAN_REPLY)
    kw.setdefault("cross_row", False)
    cleaner = DataCleaner(
        backend,
        str(data),
        instructions="Lower-case the status; keep every record.",
        output_path=str(tmp_path / "cleaning_functions.py"),
        sleep=lambda s: None,
        chunk_size=6,
        profile_fields=False,
        holdout_ratio=0.0,
        **kw,
    )
    return cleaner, cleaner.run(), backend


def _applied(tmp_path, data, **kw) -> list[dict]:
    out = tmp_path / "out.jsonl"
    apply_file(str(tmp_path / "cleaning_functions.py"), str(data), str(out), workers=1, **kw)
    return [json.loads(line) for line in out.read_text().splitlines()]


# --- 1. smuggled cross-row steps
# -------------------------------------------------------------------


def test_a_reply_defining_cross_row_steps_is_refused_and_apply_keeps_every_record(data, tmp_path):
    cleaner, result, backend = _run(
        [make_reply("fix_status", SMUGGLED_STEPS), make_reply("fix_status", FIX_STATUS)],
        data,
        tmp_path,
    )
    assert [name for name, _ in result.rejected] == ["fix_status"]
    assert "`CROSS_ROW_STEPS`" in result.rejected[0][1] and "library" in result.rejected[0][1]
    assert "CROSS_ROW_STEPS" in backend.history[1]  # the model is told why, and tries again
    assert result.functions == ["fix_status"]
    source = (tmp_path / "cleaning_functions.py").read_text()
    assert "CROSS_ROW_STEPS" not in source
    # even with every drop allowed, nothing is dropped
    rows = _applied(tmp_path, data, max_drop=1.0)
    assert [r["status"] for r in rows] == LOWERED


def test_steps_in_a_restored_function_are_left_out_when_writing(tmp_path):
    """A function that reached the state file another way (an old run, an edit) is checked again."""
    library_steps = [{"kind": "dedup", "key": ["id"]}]
    res = write_output(
        [{"name": "fix_status", "docstring": "", "code": SMUGGLED_STEPS}],
        str(tmp_path / "o.py"),
        cross_row=library_steps,
    )
    assert res.written == [] and res.rejected[0][0] == "fix_status"
    assert "CROSS_ROW_STEPS" in res.rejected[0][1]
    # the library's own
    assert res.source.count("CROSS_ROW_STEPS = [") == 1 and "'key': ['id']" in res.source


# --- 2. a function named after a builtin
# -------------------------------------------------------------


def test_a_function_named_str_is_refused_and_fix_status_keeps_its_outputs(data, tmp_path):
    cleaner, result, backend = _run(
        [make_reply("fix_status", FIX_STATUS), make_reply("str", NAMED_STR)], data, tmp_path
    )
    assert result.functions == ["fix_status"]
    assert result.rejected[0][0] == "str" and "`str` is a Python builtin" in result.rejected[0][1]
    assert [r["status"] for r in _applied(tmp_path, data)] == LOWERED


def test_without_the_name_rules_the_assembled_check_still_leaves_str_out(
    data, tmp_path, monkeypatch
):
    """Defence in depth: the gate lets `str` through, the check of the assembled file catches it."""
    import recursive_cleaner.judge.gate as gate_mod

    monkeypatch.setattr(gate_mod, "name_problems", lambda code, others=(): [])
    monkeypatch.setattr(module_mod, "name_problems", lambda code, others=(): [])
    cleaner, result, _ = _run(
        [make_reply("fix_status", FIX_STATUS), make_reply("str", NAMED_STR)], data, tmp_path
    )
    # both accepted, each alone
    assert [f["name"] for f in cleaner.functions] == ["fix_status", "str"]
    assert result.functions == ["fix_status"]
    name, why = result.rejected[-1]
    assert name == "str" and "`fix_status` no longer gives the outputs it was accepted with" in why
    assert '"hacked"' in why
    assert [r["status"] for r in _applied(tmp_path, data)] == LOWERED


# --- interference the name rules cannot see: shared process state
# -----------------------------------

THIRDS = textwrap.dedent("""\
    import decimal

    def price_thirds(record):
        record = dict(record)
        record["third"] = str(decimal.Decimal(record["price"]) / 3)
        return record""")
LOW_PRECISION = textwrap.dedent("""\
    import decimal

    def round_prices(record):
        context = decimal.getcontext()
        context.prec = 3
        record = dict(record)
        record["price"] = str(decimal.Decimal(record["price"]) + 0)
        return record""")


@pytest.mark.parametrize("policy_knows", [True, False])
def test_a_function_that_changes_another_through_process_state_is_left_out(
    tmp_path, monkeypatch, policy_knows
):
    """The policy refuses the shared decimal context (issue 28); without that rule the assembled
    check still does."""
    if not policy_knows:
        monkeypatch.setattr("recursive_cleaner.judge.policy._shared_state", lambda: [])
    data = tmp_path / "prices.jsonl"
    data.write_text(
        "".join(json.dumps({"id": i, "price": p}) + "\n" for i, p in enumerate(["1", "2", "10"]))
    )
    cleaner, result, _ = _run(
        [make_reply("price_thirds", THIRDS), make_reply("round_prices", LOW_PRECISION)],
        data,
        tmp_path,
    )
    assert result.functions == ["price_thirds"]
    name, why = result.rejected[-1]
    if policy_knows:
        assert name == "round_prices" and "`decimal.getcontext` is not allowed" in why
    else:
        assert (
            name == "round_prices" and "`price_thirds` no longer gives" in why and '"0.333"' in why
        )
    rows = _applied(tmp_path, data)
    assert rows[0]["third"] == "0.3333333333333333333333333333"


# --- what is kept and where
# ---------------------------------------------------------------------------


def test_accepted_functions_keep_examples_in_the_state_file(data, tmp_path):
    state = tmp_path / "state.json"
    cleaner, result, _ = _run(
        [make_reply("fix_status", FIX_STATUS)], data, tmp_path, state_file=str(state)
    )
    examples = cleaner.functions[0]["examples"]
    assert examples[0] == {
        "input": {"id": 1, "status": "Active "},
        "output": {"id": 1, "status": "active"},
    }
    assert len(examples) == 6  # the two changed records first, then unchanged ones
    assert load_state(str(state))["functions"][0]["examples"] == examples
    resumed = DataCleaner.resume(
        str(state), FakeBackend([], default=CLEAN_REPLY), sleep=lambda s: None
    )
    resumed.run()
    assert resumed.functions[0]["examples"] == examples


def test_pick_examples_prefers_changes_and_keeps_to_its_budget():
    inputs = [{"a": "x" * 50}, {"a": "B"}, {"a": "c"}]
    outputs = [{"a": "x" * 50}, {"a": "b"}, None]
    assert pick_examples(inputs, outputs, [None, None, "ValueError"]) == [
        {"input": {"a": "B"}, "output": {"a": "b"}},
        {"input": inputs[0], "output": outputs[0]},
    ]
    assert pick_examples(inputs, outputs, [None, None, "x"], budget=100) == [
        {"input": {"a": "B"}, "output": {"a": "b"}}
    ]


def _fn(name: str, code: str, records: list) -> dict:
    res = run_in_sandbox(code, name, records)
    return {
        "name": name,
        "docstring": "",
        "code": code,
        "examples": pick_examples(records, res.outputs, res.errors),
    }


def test_example_mismatches_runs_each_function_inside_the_assembled_file():
    fix = _fn("fix_status", FIX_STATUS, ROWS)
    assert example_mismatches(render_module([fix]), [fix]) == {}
    hacked = render_module([fix]).replace(
        '"status", "")).strip().lower()', '"status", "")).upper()'
    )
    found = example_mismatches(hacked, [fix])
    assert list(found) == ["fix_status"] and "ACTIVE" in found["fix_status"]
    refused = example_mismatches("def fix_status(record):\n    return open('x')\n", [fix])
    assert list(refused) == [""] and "open('x'" in refused[""]  # a refusal fails the whole file


def test_a_function_that_is_not_reproducible_alone_is_kept_unverified(tmp_path):
    fix = _fn("fix_status", FIX_STATUS, ROWS)
    code = (
        "def stamp(record):\n    record = dict(record)\n    record['h'] = "
        "hash(record['status'])\n    return record"
    )
    stamp = _fn("stamp", code, ROWS)

    def verify(source, funcs):
        return example_mismatches(source, funcs)

    res = write_output([fix, stamp], str(tmp_path / "o.py"), verify=verify)
    assert res.written == ["fix_status", "stamp"] and res.rejected == []
    assert [name for name, _ in res.unverified] == ["stamp"]


def test_the_newcomer_is_left_out_when_it_changes_an_earlier_function(tmp_path):
    a = {"name": "a", "docstring": "", "code": "def a(record):\n    return record"}
    b = {"name": "b", "docstring": "", "code": "def b(record):\n    return record"}
    c = {"name": "c", "docstring": "", "code": "def c(record):\n    return record"}

    def verify(source, funcs):  # b's presence changes a's outputs
        return {"a": "on {} it returned 1 when accepted, now 2"} if "def b(" in source else {}

    res = write_output([a, b, c], str(tmp_path / "o.py"), verify=verify)
    assert res.written == ["a", "c"]
    assert res.rejected == [
        (
            "b",
            "with it in the file, `a` no longer gives the outputs it was accepted with "
            "(on {} it returned 1 when accepted, now 2)",
        )
    ]


def test_future_imports_come_first_when_merged(tmp_path):
    a = {
        "name": "a",
        "docstring": "",
        "code": "from __future__ import annotations\n\ndef a(record: dict) -> dict:\n"
        "    return record",
    }
    b = {"name": "b", "docstring": "", "code": "import re\n\ndef b(record):\n    return record"}
    res = write_output([a, b], str(tmp_path / "o.py"))
    assert res.written == ["a", "b"] and res.rejected == []
    compile(res.source, "o.py", "exec")


# --- the name rules
# --------------------------------------------------------------------------------

OTHERS = [
    {
        "name": "fix_names",
        "code": "import re\nimport json\nSPACES = re.compile(r'\\s+')\n\n"
        "def _norm(v):\n    return v\n\ndef fix_names(record):\n    return record",
    },
]


@pytest.mark.parametrize(
    "code, fragment",
    [
        (
            "def f(record):\n    return record\n\nCROSS_ROW_STEPS = []",
            "`CROSS_ROW_STEPS` is the list of rules across rows",
        ),
        ("def clean_data(record):\n    return record", "`clean_data` is the entry point"),
        ("def clean_dataset(records):\n    return records", "`clean_dataset` is the helper"),
        (
            "def _rc_audit_clean_data(record):\n    return record",
            "names starting with `_rc_` are kept for the library",
        ),
        ("def str(value):\n    return value", "`str` is a Python builtin"),
        (
            "from re import sub as len\n\ndef f(record):\n    return record",
            "`len` is a Python builtin",
        ),
        ("import json as list\n\ndef f(record):\n    return record", "`list` is a Python builtin"),
        ("def to_int(value):\n    return value", "`to_int` is a toolkit helper's name"),
        (
            "from re import sub as to_int\n\ndef f(record):\n    return record",
            "`to_int` is a toolkit helper's name",
        ),
        (
            "import re\n\ndef re(record):\n    return record",
            "`re` is bound twice at module level (lines 1 and 3)",
        ),
        (
            "def f(record):\n    return [v for v in record if v in VALID]",
            "`VALID` is used but neither defined nor imported",
        ),
        ("def f(record):\n    return fix_names(record)", "`fix_names` is used but neither defined"),
        (
            "def _norm(v):\n    return v.strip()\n\ndef f(record):\n    return record",
            "`_norm` is already defined as a function by the accepted function `fix_names`",
        ),
        (
            "SPACES = ' '\n\ndef f(record):\n    return record",
            "`SPACES` is already defined as a constant",
        ),
        (
            "import json as re\n\ndef f(record):\n    return record",
            "`re` is already imported (module re)",
        ),
        (
            "from re import sub as json\n\ndef f(record):\n    return record",
            "`json` is already imported (module json)",
        ),
        (
            "def fix_names(record):\n    return record",
            "`fix_names` is already defined as a function",
        ),
    ],
)
def test_each_name_rule_trips_with_a_helpful_message(code, fragment):
    problems = name_problems(code, OTHERS)
    hits = [p for p in problems if fragment in p]
    assert hits, problems
    assert hits[0].startswith("Line ") and hits[0].endswith(".")


@pytest.mark.parametrize(
    "code",
    [
        "import re\nimport json\nfrom recursive_cleaner.toolkit import to_int\nimport "
        "recursive_cleaner.toolkit as tk\n"
        "VALID = {'a': 1}\nWORD = re.compile(r'\\w+')\n\n"
        "def _helper(value: Any) -> str:\n    return str(value)\n\n"
        "def f(record: dict) -> dict:\n    out = {k: _helper(v) for k, v in record.items() if k in "
        "VALID}\n"
        "    try:\n        out['n'] = to_int(out.get('n')) or tk.to_int('1')\n    except "
        "ValueError as exc:\n"
        "        out['e'] = str(exc)\n    out['w'] = WORD.findall(json.dumps(out))\n    return out",
        "def f(record):\n    str = record.get('s')  # a local name shadows nothing outside the "
        "function\n    return record",
    ],
)
def test_ordinary_names_pass(code):
    assert name_problems(code, OTHERS) == []
