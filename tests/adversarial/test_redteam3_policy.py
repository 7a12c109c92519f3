"""Issue 43, item 5 (third red-team pass): generated code that changes what later records get.

Two families, each spelling run twice, as the other hostile snippets are: through the AST policy
(refused with a readable reason, or marked as one only the sandbox holds) and straight through the
sandbox with no policy, where it must be harmless: every record gets what it would get alone (no
record is changed by an earlier one), or the run is refused and recorded, or the code is refused
when it loads.

Before (main at e9a9118):
* ``sm = difflib.SequenceMatcher; sm.ratio = ...`` passed the policy and, from then on, the
  toolkit's ``closest_value`` turned ``active`` into ``cancelled``;
* the module-constant count bomb (a function counting the records it saw in a module-level
  container and changing them after N calls) passed again when spelled ``operator.setitem(SEEN,
  ...)``, ``for s in (SEEN,)``, a default argument or ``[SEEN][0]``: 280 of 400 records became
  ``"deleted"`` in apply's worker.

Now the policy refuses those spellings (``judge/policy_state.py``) and the child puts the code's
module state back before every record, keeps the allowed modules read-only and refuses attribute
stores on modules, classes, functions and the allowed modules' objects (``judge/_child.py``).
"""

from __future__ import annotations

import sys

import pytest

from recursive_cleaner.judge.policy import check_code_safety
from recursive_cleaner.judge.sandbox import SandboxWorker, run_in_sandbox

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the sandbox is POSIX only")

SANDBOX_ONLY = None  # a spelling the policy lets through: only the sandbox holds it

# ---------------------------------------------------------------------------- family 1: attributes
# Record 0 patches something every record shares; records 1.. call what it patched.
RATIO = "lambda self: 0.99 if self.b == 'cancelled' else 0.0"
RATIOS = ("ratio", "quick_ratio", "real_quick_ratio")
PATCHED = f"sm.ratio = sm.quick_ratio = sm.real_quick_ratio = {RATIO}"
HEAD = "import calendar\nimport collections\nimport difflib\nimport functools\nimport json\n"
HEAD += (
    "import operator\nimport recursive_cleaner.toolkit as tk\n\nRATIOS = " + repr(RATIOS) + "\n\n"
)
TAIL = """
    return {
        "status": tk.closest_value(record["status"], ["cancelled"]),
        "week": calendar.monthcalendar(2024, 1)[0],
        "json": json.dumps({"a": 1}, default=str),
        "top": collections.Counter("aab").most_common(1),
    }
"""


def _patch(body: str) -> str:
    """clean(record): on record 0 run ``body`` (a patch), then return what it would change."""
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    return HEAD + "def clean(record):\n    if record['id'] == 0:\n" + lines + TAIL


ATTRIBUTES: dict[str, tuple[str, str | None]] = {
    # name: (code, a fragment of the policy's refusal, or SANDBOX_ONLY)
    "alias-of-a-class (the pass's attack)": (
        _patch(f"sm = difflib.SequenceMatcher\n{PATCHED}"),
        "setting `sm.ratio` is not allowed: `sm` is not an object this function made",
    ),
    "class-through-import-from": (
        _patch(f"from difflib import SequenceMatcher as sm\n{PATCHED}"),
        "changing `sm.ratio` is not allowed: it belongs to a module",
    ),
    "getattr-with-a-literal": (
        _patch(f"sm = getattr(difflib, 'SequenceMatcher')\n{PATCHED}"),
        "`getattr` is not allowed",
    ),
    "attrgetter-on-the-module": (
        _patch(f"sm = operator.attrgetter('SequenceMatcher')(difflib)\n{PATCHED}"),
        "the module `difflib` may only be used as `difflib.<name>`",
    ),
    "item-of-a-list": (
        _patch("\n".join(f"[difflib.SequenceMatcher][0].{a} = {RATIO}" for a in RATIOS)),
        "set attributes only directly on a variable this function made",
    ),
    "loop-variable": (
        _patch(f"for sm in (difflib.SequenceMatcher,):\n    {PATCHED}"),
        "`sm` is not an object this function made",
    ),
    "type-of-an-instance": (
        _patch(f"sm = type(difflib.SequenceMatcher(None, 'a', 'b'))\n{PATCHED}"),
        "`sm` is not an object this function made",
    ),
    "walrus-in-the-target": (
        _patch(f"(sm := difflib.SequenceMatcher).ratio = {RATIO}\n{PATCHED}"),
        "set attributes only directly on a variable this function made",
    ),
    "setattr-builtin": (
        _patch("\n".join(f"setattr(difflib.SequenceMatcher, {a!r}, {RATIO})" for a in RATIOS)),
        "`setattr` is not allowed",
    ),
    "class-of-another-module (json)": (
        _patch("enc = json.JSONEncoder\nenc.encode = lambda self, o: 'patched'"),
        "`enc` is not an object this function made",
    ),
    "counter-method": (
        _patch("c = collections.Counter\nc.most_common = lambda self, n=None: []"),
        "`c` is not an object this function made",
    ),
    "module-attribute-through-a-list": (
        _patch("[tk][0].closest_value = lambda *a, **k: 'cancelled'"),
        "the module `tk` may only be used as `tk.<name>`",
    ),
    "a-module-object's-method (calendar.c)": (
        _patch("calendar.c.setfirstweekday(6)"),
        "`calendar.c` is not allowed in cleaning code",
    ),
    "update_wrapper-copies-an-attribute": (
        _patch(
            "holder = difflib.SequenceMatcher(None, 'x', 'x')\n"
            "functools.update_wrapper(difflib.SequenceMatcher, holder, assigned=RATIOS, "
            "updated=())"
        ),
        "`functools.update_wrapper` is not allowed",
    ),
    "a-parameter's-default": (
        HEAD + f"def clean(record, sm=difflib.SequenceMatcher):\n    if record['id'] == 0:\n"
        f"        {PATCHED}\n" + TAIL,
        "`sm` is not an object this function made",
    ),
}

ALONE = {
    "status": "active",
    "week": [1, 2, 3, 4, 5, 6, 7],
    "json": '{"a": 1}',
    "top": [["a", 2]],
}
RECORDS = [{"id": i, "status": "active"} for i in range(4)]


@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_the_policy_refuses_each_attribute_spelling(name):
    code, fragment = ATTRIBUTES[name]
    problems = check_code_safety(code)
    assert any(fragment in p for p in problems), problems
    assert all(p.startswith("Line ") and len(p) < 500 for p in problems)


@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_past_the_policy_no_attribute_spelling_changes_a_later_record(name):
    """The records after the patch get what they get alone, or the patch is a recorded
    refusal."""
    result = run_in_sandbox(ATTRIBUTES[name][0], "clean", RECORDS)
    later = result.outputs[1:]
    if result.ok:
        assert later == [ALONE] * 3, result
    else:  # refused: recorded the moment it happened, naming what was set
        assert any("setting the attribute" in v for v in result.violations), result
        assert all(out in (None, ALONE) for out in later), result


def test_what_the_patch_did_before_is_what_alone_prevents():
    """The fixture's premise: in a plain process the pass's patch turns active into cancelled."""
    import difflib

    from recursive_cleaner import toolkit

    saved = {k: vars(difflib.SequenceMatcher)[k] for k in ("ratio", "quick_ratio")}
    saved["real_quick_ratio"] = difflib.SequenceMatcher.real_quick_ratio
    try:
        for attr in saved:
            setattr(difflib.SequenceMatcher, attr, eval(RATIO))  # noqa: S307 (the test's own)
        toolkit._CACHE.clear()
        assert toolkit.closest_value("active", ["cancelled", "pending"]) == "cancelled"
    finally:
        for attr, value in saved.items():
            setattr(difflib.SequenceMatcher, attr, value)
        toolkit._CACHE.clear()
    assert toolkit.closest_value("active", ["cancelled", "pending"]) == "active"


LEGIT_STORES = [
    "import decimal\n\ndef f(record):\n    with decimal.localcontext() as ctx:\n"
    "        ctx.prec = 3\n        record['d'] = str(decimal.Decimal(1) / 3)\n    return record",
    "import decimal\n\ndef f(record):\n    ctx = decimal.Context()\n    ctx.prec = 2\n"
    "    record['d'] = str(ctx.divide(decimal.Decimal(1), decimal.Decimal(3)))\n    return record",
    "import textwrap\n\ndef f(record):\n    w = textwrap.TextWrapper()\n    w.width = 4\n"
    "    record['w'] = w.wrap('aaa bbb')\n    return record",
]


@pytest.mark.parametrize("code", LEGIT_STORES)
def test_an_attribute_of_an_object_the_function_made_may_be_set(code):
    assert check_code_safety(code) == []
    result = run_in_sandbox(code, "f", [{"a": 1}, {"a": 2}])
    assert result.ok and result.errors == [None, None], result
    assert result.outputs[0] == {**result.outputs[1], "a": 1}


# ---------------------------------------------------------------------------- family 2: count bomb
# A function that counts the records it has seen in state that outlives a call and marks every
# record after the third "deleted". Alone, each record keeps its status.
def _bomb(setup: str, count: str, seen: str, *, head: str = "", args: str = "") -> str:
    """A bomb: ``count`` adds one to the state, ``seen`` is how many records it has counted."""
    lines = "".join(f"    {line}\n" for line in count.strip().splitlines())
    return (
        "import bisect\nimport collections\nimport functools\nimport heapq\nimport itertools\n"
        "import operator\n"
        "import calendar\nimport copy\nimport decimal\nimport hashlib\nimport typing\n"
        f"{head}{setup}\n\ndef clean(record{args}):\n{lines}"
        f"    record = dict(record)\n    if ({seen}) > 3:\n"
        '        record["status"] = "deleted"\n    return record\n'
    )


BOMBS: dict[str, tuple[str, str | None]] = {
    "operator.setitem (the pass's)": (
        _bomb("SEEN = {'n': 0}", "operator.setitem(SEEN, 'n', SEEN['n'] + 1)", "SEEN['n']"),
        "`operator.setitem(...)` changes `SEEN`",
    ),
    "for over a tuple (the pass's)": (
        _bomb("SEEN = []", "for s in (SEEN,):\n    s.append(1)", "len(SEEN)"),
        "`SEEN` is a list, dict or set every function (and every record) shares",
    ),
    "list default (the pass's)": (
        _bomb("", "seen.append(1)", "len(seen)", args=", seen=[]"),
        "the default value `[]` is made once and shared by every call",
    ),
    "set() default (the pass's)": (
        _bomb("", "seen.add(len(seen))", "len(seen)", args=", seen=set()"),
        "default argument values and annotations must not call anything",
    ),
    "item of a list display (the pass's)": (
        _bomb("SEEN = []", "[SEEN][0].append(1)", "len(SEEN)"),
        "`SEEN` is a list, dict or set every function",
    ),
    "a constant as a default": (
        _bomb("SEEN = []", "box.append(1)", "len(box)", args=", box=SEEN"),
        "`SEEN` is a list, dict or set every function",
    ),
    "functools.partial": (
        _bomb(
            "SEEN = []", "functools.partial(operator.setitem, SEEN)(slice(0, 0), [1])", "len(SEEN)"
        ),
        SANDBOX_ONLY,
    ),
    "closure through a lambda": (
        _bomb("SEEN = []", "(lambda s: s)(SEEN).append(1)", "len(SEEN)"),
        SANDBOX_ONLY,
    ),
    "a bound method kept": (
        _bomb("SEEN = []", "add = SEEN.append\nadd(1)", "len(SEEN)"),
        SANDBOX_ONLY,
    ),
    "reduce hands the list back": (
        _bomb("SEEN = []", "functools.reduce(lambda a, b: a, [0], SEEN).append(1)", "len(SEEN)"),
        "`functools.reduce(lambda a, b: a, [0], SEEN).append(...)` changes `functools`",
    ),
    "x or y": (
        _bomb("SEEN = []", "(SEEN or SEEN).append(1)", "len(SEEN)"),
        "`SEEN` is a list, dict or set every function",
    ),
    "a helper returns it": (
        _bomb("SEEN = []\n\ndef box():\n    return SEEN", "box().append(1)", "len(SEEN)"),
        "`SEEN` is a list, dict or set every function",
    ),
    "heapq.heappush": (
        _bomb("SEEN = []", "heapq.heappush(SEEN, 1)", "len(SEEN)"),
        "`heapq.heappush(...)` changes `SEEN`",
    ),
    "bisect.insort": (
        _bomb("SEEN = []", "bisect.insort(SEEN, 1)", "len(SEEN)"),
        "`bisect.insort(...)` changes `SEEN`",
    ),
    "a list inside a tuple constant": (
        _bomb("SEEN = ([],)", "SEEN[0].append(1)", "len(SEEN[0])"),
        "`SEEN[0].append(...)` changes `SEEN`",
    ),
    "globals()": (
        _bomb("SEEN = []", "globals()['SEEN'].append(1)", "len(SEEN)"),
        "`globals` is not allowed",
    ),
    "vars() of the function": (
        _bomb("", "vars(clean).setdefault('n', []).append(1)", "len(vars(clean)['n'])"),
        "`vars` is not allowed",
    ),
    "function attribute through an alias": (
        _bomb("", "for f in (clean,):\n    f.n = f.n + 1 if 'n' in dir(f) else 1", "clean.n"),
        "`f` is not an object this function made",
    ),
    "class attribute": (
        _bomb(
            "",
            "k = collections.Counter\nk.n = k.n + 1 if 'n' in dir(k) else 1",
            "collections.Counter.n",
        ),
        "`k` is not an object this function made",
    ),
    "__defaults__": (
        _bomb("", "clean.__defaults__[0].append(1)", "len(box)", args=", box=()"),
        "double-underscore attribute `.__defaults__`",
    ),
    "itertools.count at module level": (
        _bomb("COUNTER = itertools.count()", "n = next(COUNTER)", "n + 1"),
        "module-level constant COUNTER must be a literal",
    ),
    "itertools.count as a default": (
        _bomb("", "n = next(counter)", "n + 1", args=", counter=itertools.count()"),
        "default argument values and annotations must not call anything",
    ),
    "a generator kept alive in a default": (
        _bomb(
            "",
            "box.append(box.pop() if box else (i for i in range(99)))\nn = next(box[0])",
            "n + 1",
            args=", box=[]",
        ),
        "the default value `[]` is made once",
    ),
    "a module's list (calendar.mdays)": (
        _bomb("", "m = calendar.mdays\nm[0] += 1", "calendar.mdays[0]"),
        "`calendar.mdays` is a list, dict or set every function",
    ),
    "a module's dict (copy.dispatch_table)": (
        _bomb(
            "",
            "d = copy.dispatch_table\nd[len(d) + 1000] = 1",
            "sum(type(k) is int for k in copy.dispatch_table)",
        ),
        "`copy.dispatch_table` is a list, dict or set every function",
    ),
    "a module's set (hashlib.algorithms_available)": (
        _bomb(
            "",
            "s = hashlib.algorithms_available\ns.add('rc' + str(len(s)))",
            "sum(a.startswith('rc') for a in hashlib.algorithms_available)",
        ),
        "`hashlib.algorithms_available` is a list, dict or set",
    ),
    "the decimal context": (
        _bomb("", "decimal.getcontext().prec -= 1", "30 - decimal.getcontext().prec"),
        "`decimal.getcontext` is not allowed",
    ),
    "an abstract class's registry through an alias": (
        "import collections.abc\n\n\ndef clean(record):\n    record = dict(record)\n"
        "    if isinstance(record, collections.abc.Sequence):\n"
        '        record["status"] = "deleted"\n'
        "    s = collections.abc.Sequence\n    s.register(dict)\n    return record\n",
        "`s.register` changes a registry every function shares",
    ),
    "sys.modules (reached through typing)": (
        _bomb(
            "",
            "typing.sys.modules.setdefault('rc_n', []).append(1)",
            "len(typing.sys.modules['rc_n'])",
        ),
        "`typing.sys` is the module `sys`",
    ),
}


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_the_policy_refuses_each_count_bomb_spelling_it_can_see(name):
    code, fragment = BOMBS[name]
    problems = check_code_safety(code)
    if fragment is SANDBOX_ONLY:
        assert problems == [], problems  # pinned: only the sandbox holds this one
    else:
        assert any(fragment in p for p in problems), problems


STATUSES = [{"id": i, "status": "active"} for i in range(8)]


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_past_the_policy_no_count_bomb_changes_a_later_record(name):
    result = run_in_sandbox(BOMBS[name][0], "clean", STATUSES)
    if name.startswith("sys.modules"):
        # NOT held by the sandbox: sys is reached only through a spelling the policy refuses
        # (typing.sys), and the child does not put the interpreter's module table back
        assert result.ok and [o["status"] for o in result.outputs[2:4]] == ["active", "deleted"]
        return
    if result.ok:
        assert all(out in (None, dict(rec)) for out, rec in zip(result.outputs, STATUSES)), result
        assert "deleted" not in str(result.outputs)
    else:  # refused when it loaded, or a recorded refusal
        assert result.error or result.violations, result
        assert "deleted" not in str(result.outputs), result


@pytest.mark.parametrize(
    "name", ["itertools.count at module level", "itertools.count as a default"]
)
def test_state_the_child_cannot_put_back_is_refused_when_the_code_loads(name):
    result = run_in_sandbox(BOMBS[name][0], "clean", STATUSES[:1])
    assert not result.ok
    assert "holds a count object, whose state would carry from one record to the next" in (
        result.error or ""
    ), result


def test_the_pass_s_400_records_in_apply_s_worker_keep_their_status():
    """The pass's figure: a bomb past the policy set 280 of 400 records to "deleted" in apply's
    persistent worker (4 batches of 100); now none, batch after batch."""
    code = _bomb("SEEN = {'n': 0}", "operator.setitem(SEEN, 'n', SEEN['n'] + 1)", "SEEN['n'] // 30")
    records = [{"id": i, "status": "active"} for i in range(400)]
    with SandboxWorker(code, "clean", dict_only=True) as worker:
        assert worker.start().ok
        outputs = []
        for start in range(0, 400, 100):
            reply = worker.run_batch(records[start : start + 100], timeout=60)
            assert reply.ok, reply
            outputs += reply.outputs
    assert sum(out["status"] == "deleted" for out in outputs) == 0
    assert outputs == records


def test_module_constants_are_put_back_as_the_code_left_them_at_load():
    """Tables keep their contents and order; nested containers and a function's __dict__ too."""
    code = (
        "TABLE = {'b': [1, 2], 'a': {'x': {1, 2}}}\nORDER = ['z', 'y']\n\n"
        "def clean(record):\n"
        "    out = {'table': repr(TABLE), 'order': list(ORDER)}\n"
        "    for t in (TABLE,):\n"
        "        t['b'].append(3)\n        t['a']['x'].add(9)\n        t['new'] = 1\n"
        "    for o in (ORDER,):\n        o.reverse()\n"
        "    return out\n"
    )
    result = run_in_sandbox(code, "clean", [{}] * 3)
    first = {"table": "{'b': [1, 2], 'a': {'x': {1, 2}}}", "order": ["z", "y"]}
    assert result.ok and result.outputs == [first] * 3, result
