"""What a functions file asks apply for, read as text (``ast``, never run): its code, steps, audit.

``read_plan`` reads a ``cleaning_functions.py``:

* ``CROSS_ROW_STEPS``, a literal list of step dicts (``ast.literal_eval``), as ``CrossRowStep``\\ s;
* the library's own ``clean_dataset`` helper (written by ``output`` next to the steps) is left out
  of the code the workers load: it imports the library, which the sandbox refuses, and the workers
  only call ``clean_data``; its lines become blank lines so line numbers in errors stay right;
* for an audited run, the order in which ``clean_data`` calls the functions (its body must be
  ``record = name(record)`` lines and ``return record``; anything else counts as one step,
  ``clean_data``), and a small wrapper appended to the workers' code that calls them one by
  one, in the worker (sandboxed like everything else), and returns the record with the cells
  each function changed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from ..crossrow.steps import CrossRowStep
from ..write.module import CROSS_ROW_TEMPLATE, source_lines

__all__ = ["AUDIT_FUNCTION", "STEPS_NAME", "FunctionsPlan", "read_plan"]

AUDIT_FUNCTION = "_rc_audit_clean_data"
STEPS_NAME = "CROSS_ROW_STEPS"

# Appended to the workers' code for an audited run; STEPS is replaced by "(0, name), (1, name),
# ...". After each function the record is read once, as its plain JSON copy (NaN as null, as the
# worker writes it), and that copy is what is compared and, for the last function, what is
# written: a dict subclass whose items() changes from call to call cannot write a cell the log
# does not show. A record JSON cannot hold is snapshot instead (deep copies of all but plain
# values), so a later in-place change cannot alter what the log says an earlier function wrote.
# A record whose JSON would name a key twice (keys 1 and "1", at any depth: the copy would keep one
# value) fails, as the worker fails such a record at the top level.
_WRAPPER = """


# ---- appended by recursive_cleaner.apply.local for the audit log (not in the file on disk) ----
import copy as _rc_audit_copy
import json as _rc_audit_json


def _rc_audit_snapshot(record):
    return {key: value if value is None or type(value) in (str, int, float, bool) else \
_rc_audit_copy.deepcopy(value)
            for key, value in record.items()}


def _rc_audit_plain(value):
    if value is None or type(value) in (str, int, float, bool):
        return value
    try:
        _rc_audit_json.dumps(value)
        return value
    except Exception:
        return repr(value)


def _rc_audit_diff(step, before, after, trail):
    for key, new in after.items():
        if key not in before:
            trail.append([step, key, "added", None, _rc_audit_plain(new)])
            continue
        old = before[key]
        if old is not new and (type(old) is not type(new) or old != new):
            trail.append([step, key, "changed", _rc_audit_plain(old), _rc_audit_plain(new)])
    for key in before:
        if key not in after:
            trail.append([step, key, "removed", _rc_audit_plain(before[key]), None])


def _rc_audit_once(pairs):
    record = dict(pairs)
    if len(record) < len(pairs):
        seen = set()
        for key, value in pairs:
            if key in seen:
                raise ValueError("the returned record has two fields named " + repr(key)[:80] + \
" once written as JSON, which turns a key that is not a string into one; return one, with string \
keys")
            seen.add(key)
    return record


def _rc_audit_json_copy(record):
    try:  # one read of the record (a dict subclass may answer items() differently each time), NaN \
as null
        text = _rc_audit_json.dumps(record)
    except Exception:
        return None
    try:  # a key written twice (1 and "1", at any depth) is a ValueError: one value would be lost
        return _rc_audit_json.loads(text, object_pairs_hook=_rc_audit_once, \
parse_constant=lambda constant: None)
    except RecursionError:
        return None


def _rc_audit_clean_data(record):
    trail = []
    last = plain = twice = None
    if isinstance(record, dict):
        try:
            plain = _rc_audit_json_copy(record)
        except ValueError:
            plain = None
        last = plain if type(plain) is dict else _rc_audit_snapshot(record)
    for step, function in (STEPS):
        record = function(record)
        if isinstance(record, dict):
            try:
                plain, twice = _rc_audit_json_copy(record), None
            except ValueError as clash:
                plain, twice = None, str(clash)
            snap = plain if type(plain) is dict else _rc_audit_snapshot(record)
            if last is not None:
                _rc_audit_diff(step, last, snap, trail)
            last = snap
    if not isinstance(record, dict):
        raise TypeError("returned " + repr(type(record))[8:-2] + ", expected a dict")
    if twice is not None:
        raise ValueError(twice)
    return {"record": plain if type(plain) is dict else record, "trail": trail}
"""


@dataclass
class FunctionsPlan:
    """What the workers load and call, the cross-row steps to run after them, and the audited step
    names."""

    code: str
    function: str = "clean_data"
    steps: list[CrossRowStep] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # audited run: trail step index -> function name

    @property
    def audited(self) -> bool:
        return self.function == AUDIT_FUNCTION


def read_plan(
    code: str, filename: str, *, steps: bool = True, audit: bool = False
) -> FunctionsPlan:
    """The plan for ``code`` (see the module docstring); ValueError for an unreadable
    ``CROSS_ROW_STEPS``.

    Code that does not parse is returned as it is: loading it in the workers reports the error.
    Code nested too deeply for Python's parser (or for reading its tree) is a ValueError, one line.
    """
    try:
        tree = ast.parse(code, filename)
    except (SyntaxError, ValueError):
        return FunctionsPlan(code)
    except (RecursionError, MemoryError):
        raise ValueError(_TOO_DEEP.format(filename=filename)) from None
    try:
        return _plan(code, filename, tree, steps, audit)
    except (RecursionError, MemoryError):
        raise ValueError(_TOO_DEEP.format(filename=filename)) from None


_TOO_DEEP = (
    "{filename} holds an expression nested too deeply for Python to read (its parser or a walk "
    "over its "
    "tree ran out of depth or memory); write it as plain statements"
)


def _plan(code: str, filename: str, tree: ast.Module, steps: bool, audit: bool) -> FunctionsPlan:
    plan = FunctionsPlan(_without_helper(code, tree))
    if steps:
        plan.steps = _read_steps(tree, filename)
    if audit:
        chain = _clean_data_chain(tree)
        plan.names = chain if chain else ["clean_data"]
        taken = sorted(n for n in _top_level_names(tree) if n.startswith("_rc_audit_"))
        if taken:
            raise ValueError(
                f"{filename} defines {', '.join(taken)}: names starting with _rc_audit_ are kept "
                "for "
                "the audit log"
            )
        calls = "".join(f"({i}, {name}), " for i, name in enumerate(plan.names))
        plan.code = plan.code.rstrip("\n") + "\n" + _WRAPPER.replace("STEPS", calls)
        plan.function = AUDIT_FUNCTION
    return plan


def _read_steps(tree: ast.Module, filename: str) -> list[CrossRowStep]:
    value: Any = None
    for node in tree.body:  # the last assignment wins, as when the module runs
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if (
            any(isinstance(t, ast.Name) and t.id == STEPS_NAME for t in targets)
            and node.value is not None
        ):
            value = node.value
    if value is None:
        return []
    where = f"{filename}: {STEPS_NAME} (line {value.lineno})"
    try:
        steps = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(f"{where} must be a literal list of step dicts") from None
    if not isinstance(steps, (list, tuple)) or not all(isinstance(s, dict) for s in steps):
        raise ValueError(f"{where} must be a list of step dicts")
    out = []
    for i, step in enumerate(steps):
        try:
            out.append(CrossRowStep.from_dict(step))
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{where}, step {i}: {exc}") from None
    return out


def _helper_dumps() -> set[str]:
    """ast.dump of the clean_dataset that ``write.module`` writes, and of the one 0.2.0 wrote
    (another import path)."""
    out = set()
    for template in (
        CROSS_ROW_TEMPLATE,
        CROSS_ROW_TEMPLATE.replace("recursive_cleaner.crossrow ", "recursive_cleaner.cross_row "),
    ):
        tree = ast.parse(template.format(steps=f"{STEPS_NAME} = []"))
        out.add(
            next(
                ast.dump(n)
                for n in tree.body
                if isinstance(n, ast.FunctionDef) and n.name == "clean_dataset"
            )
        )
    return out


def _without_helper(code: str, tree: ast.Module) -> str:
    """``code`` with the library's clean_dataset (exactly as output writes it) turned into blank
    lines."""
    nodes = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "clean_dataset"]
    if not nodes or ast.dump(nodes[-1]) not in _helper_dumps():
        return code
    node, lines = nodes[-1], source_lines(code, keepends=True)
    for k in range(node.lineno - 1, node.end_lineno or node.lineno):
        lines[k] = "\n"
    return "".join(lines)


def _top_level_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names)
        else:
            names.update(
                n.id
                for n in ast.walk(node)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            )
    return names


def _clean_data_chain(tree: ast.Module) -> list[str] | None:
    """The names clean_data calls, in order, when its body is ``record = name(record)``... ``return
    record``."""
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "clean_data"]
    if not defs or defs[-1].decorator_list:
        return None
    fn = defs[-1]
    args = fn.args
    if (
        len(args.args) != 1
        or args.posonlyargs
        or args.vararg
        or args.kwonlyargs
        or args.kwarg
        or args.defaults
    ):
        return None
    param, body = args.args[0].arg, list(fn.body)
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if not body or not (
        isinstance(body[-1], ast.Return)
        and isinstance(body[-1].value, ast.Name)
        and body[-1].value.id == param
    ):
        return None
    names = []
    for stmt in body[:-1]:
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == param
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name)
            and not stmt.value.keywords
            and len(stmt.value.args) == 1
            and isinstance(stmt.value.args[0], ast.Name)
            and stmt.value.args[0].id == param
            and stmt.value.func.id != param
        ):
            return None
        names.append(stmt.value.func.id)
    return names
