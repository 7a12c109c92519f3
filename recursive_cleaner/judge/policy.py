"""The AST policy for generated code (``check_code_safety``), applied before anything runs.

Each problem is one actionable sentence (it goes verbatim into the next prompt). Besides the
import allow-list and the forbidden names, the policy looks up what a name or an attribute chain
rooted at an import refers to, in the real modules and without running anything, so that whole
families of tricks are refused at their root rather than one spelling at a time:

* a module reached through another module (``typing.sys``, ``json.codecs``, ``from typing import
  sys``) or a private name (``collections._sys``); a module used as a value (``m = typing``);
* attribute names computed at run time: ``operator.attrgetter`` / ``methodcaller`` only with
  literal, public names; ``.format`` / ``.format_map`` only on a literal format string whose fields
  name no attribute or item; helpers that evaluate text as code (``typing.get_type_hints``,
  ``ForwardRef``, ``functools.singledispatch``) and ``string.Formatter``;
* changes one function could make to what another sees: ``global``, assignments to attributes or
  items of modules or module-level names and their mutating methods (``TABLE.update``), an alias
  of a module-level name (``t = TABLE``), the shared decimal context (``decimal.getcontext``) and
  other process-wide registries (``calendar.setfirstweekday``, ``Mapping.register``);
* classes: ``type`` only as ``type(value)``, never bound, passed or called with a class's
  arguments, and what ``type(...)`` returns never called; class patterns in ``match`` naming
  private, double-underscore or interpreter attributes (``case object(__class__=c)``);
* ``operator.attrgetter`` / ``methodcaller`` paths through interpreter internals
  (``gi_frame.f_back``).

Text naming a double-underscore attribute is refused, except where it is data: a subscript
(``record["__class__"]``), the key of ``.get`` / ``.pop`` / ``.setdefault``, a comparison, a
docstring: a field name is never refused. Code nested too deeply to walk is a refusal, never a
``RecursionError``.

The sandbox (``judge.sandbox``) holds on its own whatever slips through; this layer refuses early
and says why.

The allowed imports, forbidden names and refusal hints are in ``policy_rules``; what a name
refers to, and the checks that need it, in ``policy_scope`` (``Scope``).
"""

from __future__ import annotations

import ast
import re
from string import Formatter

from .sandbox import TOOLKIT
from ..toolkit import PRIMITIVES
from .policy_rules import (
    ALLOWED_IMPORTS,
    CALLS_AT_DEF_TIME,
    DUNDER,
    FORBIDDEN_NAMES,
    MODULE_LEVEL_HINT,
    RESTRICTED_ATTRS,
    TOOLKIT_HINT,
    TOO_DEEP,
    UPPER_NAME,
    import_problem,
    is_constant_value,
)
from .policy_scope import Scope
from .policy_state import SharedState

__all__ = ["ALLOWED_IMPORTS", "FORBIDDEN_NAMES", "RESTRICTED_ATTRS", "check_code_safety"]


def _evaluators() -> list[tuple[object, str]]:
    """Objects refused wherever they are reached from: they turn text into code or attribute
    access."""
    import functools
    import typing

    why_eval = "it evaluates text as code"
    return [
        (typing.get_type_hints, why_eval),
        (typing.ForwardRef, why_eval),
        (functools.singledispatch, why_eval),
        (functools.singledispatchmethod, why_eval),
        (Formatter, "it reaches attributes named by text; use an f-string"),
    ]


def _computed_getters() -> tuple[object, ...]:
    import operator

    return operator.attrgetter, operator.methodcaller


def _shared_state() -> list[tuple[object, str]]:
    """Functions and objects whose use changes what every other function sees (process-wide
    state)."""
    import calendar
    import decimal
    import functools

    why = (
        "it is the decimal context every function shares; use `with decimal.localcontext() as "
        "ctx:` "
        "and change `ctx` inside the block"
    )
    out: list[tuple[object, str]] = [
        (getattr(decimal, name), why)
        for name in (
            "getcontext",
            "setcontext",
            "DefaultContext",
            "BasicContext",
            "ExtendedContext",
        )
    ]
    out.append(
        (
            calendar.setfirstweekday,
            "it changes the calendar of every function; pass `firstweekday=` instead",
        )
    )
    out.append(
        (
            calendar.c,
            "it is the calendar every function shares; make one: `calendar.Calendar(...)`",
        )
    )
    why = "it sets attributes on the function or class you pass, which every record shares"
    out += [(functools.update_wrapper, why), (functools.wraps, why)]
    return out


def check_code_safety(code: str) -> list[str]:
    """Return the AST policy problems of `code`, one actionable sentence each; [] when it is
    acceptable."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return [f"Line {exc.lineno}: SyntaxError: {exc.msg}."]
    except ValueError as exc:  # e.g. null bytes
        return [f"The code cannot be parsed: {exc}."]
    except (RecursionError, MemoryError):  # Python's parser gives up on deeply nested code
        return ["The code is nested too deeply to parse; write plain statements."]
    try:
        return _hidden(code) + _problems(tree)
    # a walk that recurses (ast.unparse of a long chain in a message)
    except (RecursionError, MemoryError):
        return [TOO_DEEP]


# terminal escapes, other C0/C1 controls and the bidirectional overrides and isolates: a file read
# with ``cat`` or in an editor (a review before ``--trusted``) shows other code than runs (ESC [2K
# erases a line; Trojan Source, CVE-2021-42574). Tab, the line ends and the separators Python
# reads inside a string (\v \f \x1c-\x1e \x85) stay.
_HIDDEN = re.compile(r"[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069]")


def _hidden(code: str) -> list[str]:
    found = _HIDDEN.search(code)
    if found is None:
        return []
    line, c = code.count("\n", 0, found.start()) + 1, ord(found.group())
    escape = f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
    return [
        f"Line {line}: the code holds the control character U+{c:04X}, which shows other code "
        f"than runs where the file is read; write it as an escape in a string (`'{escape}'`)"
    ]


def _problems(tree: ast.Module) -> list[str]:
    problems: list[str] = []
    for stmt in tree.body:
        problem = _module_statement_problem(stmt)
        if problem:
            problems.append(f"Line {stmt.lineno}: {problem}.")
    scope = Scope(tree, _evaluators(), _computed_getters(), _shared_state())
    state = SharedState(tree, scope)
    for node in ast.walk(tree):
        problem = _node_problem(node) or scope.problem(node) or state.problem(node)
        if problem:
            problems.append(f"Line {getattr(node, 'lineno', '?')}: {problem}.")
    return list(dict.fromkeys(problems))


def _module_statement_problem(stmt: ast.stmt) -> str | None:
    if isinstance(
        stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)
    ):
        return None  # checked by _node_problem wherever they appear
    if (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    ):
        return None
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if len(names) != len(targets) or not all(UPPER_NAME.match(n) for n in names):
            return (
                "module-level assignments must be to UPPER_CASE constant names; "
                f"{MODULE_LEVEL_HINT}"
            )
        if stmt.value is None or not is_constant_value(stmt.value):
            return (
                f"module-level constant {names[0]} must be a literal (str, number, tuple, list, "
                "dict, set) "
                "or re.compile(<literal>); compute anything else inside the function"
            )
        return None
    if isinstance(stmt, ast.If) and "__name__" in {
        n.id for n in ast.walk(stmt.test) if isinstance(n, ast.Name)
    }:
        return 'remove the `if __name__ == "__main__":` block; the code must only define functions'
    if isinstance(stmt, ast.Expr):
        return f"top-level expressions and calls are not allowed; {MODULE_LEVEL_HINT}"
    return (
        f"a top-level `{type(stmt).__name__.lower()}` statement is not allowed; {MODULE_LEVEL_HINT}"
    )


def _node_problem(node: ast.AST) -> str | None:
    if isinstance(node, ast.Import):
        bad = [a.name for a in node.names if a.name not in ALLOWED_IMPORTS]
        if any(a.name == TOOLKIT and a.asname is None for a in node.names):
            return f"`import {TOOLKIT}` without `as` binds the whole library; {TOOLKIT_HINT}"
        return import_problem(bad[0]) if bad else None
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return "relative imports are not allowed"
        if node.module not in ALLOWED_IMPORTS:
            return import_problem(node.module or "")
        if any(a.name == "*" for a in node.names):
            return (
                f"`from {node.module} import *` is not allowed; import the names you use explicitly"
            )
        unknown = [
            a.name for a in node.names if node.module == TOOLKIT and a.name not in PRIMITIVES
        ]
        if unknown:
            return f"`{TOOLKIT}` has no `{unknown[0]}`; its helpers are: {', '.join(PRIMITIVES)}"
        private = [a.name for a in node.names if a.name.startswith("_")]
        if private:
            return (
                f"importing the private name `{private[0]}` from `{node.module}` is not allowed; "
                "use public names"
            )
        return None
    if isinstance(node, ast.ClassDef):
        return (
            f"class definitions (`class {node.name}`) are not allowed; use plain functions, dicts "
            "and tuples"
        )
    if isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)):
        return "async code is not allowed; write a plain synchronous function"
    if isinstance(node, ast.FunctionDef) and node.decorator_list:
        return f"decorators are not allowed (on `{node.name}`); call helpers explicitly instead"
    if isinstance(node, (ast.FunctionDef, ast.Lambda)):
        args = node.args
        evaluated = [*args.defaults, *[d for d in args.kw_defaults if d is not None]]
        if isinstance(node, ast.FunctionDef):
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            evaluated += [a.annotation for a in every if a is not None and a.annotation is not None]
            evaluated += [node.returns] if node.returns is not None else []
        for expr in evaluated:
            if any(isinstance(sub, CALLS_AT_DEF_TIME) for sub in ast.walk(expr)):
                return (
                    "default argument values and annotations must not call anything; use literals "
                    "or None"
                )
        return None
    if isinstance(node, ast.Global):
        return (
            f"`global {', '.join(node.names)}` is not allowed: a cleaning function must not rebind "
            "module-level names (every function in the file shares them); return values instead"
        )
    if isinstance(node, ast.Name):
        if node.id in FORBIDDEN_NAMES:
            return f"`{node.id}` is not allowed in cleaning code; work on the record directly"
        if DUNDER.match(node.id):
            return f"the name `{node.id}` is not allowed (no double-underscore names)"
        return None
    if isinstance(node, ast.Attribute):
        if DUNDER.match(node.attr):
            return f"access to the double-underscore attribute `.{node.attr}` is not allowed"
        if node.attr in RESTRICTED_ATTRS:
            return f"access to interpreter internals (`.{node.attr}`) is not allowed"
        if node.attr.startswith("_"):
            return (
                f"access to the private attribute `.{node.attr}` is not allowed; use public names"
            )
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "type"
        and len(node.args) + len(node.keywords) > 1
    ):
        return (
            "making classes with `type(name, bases, namespace)` is not allowed; use dicts and "
            "functions"
        )
    if isinstance(node, ast.MatchClass):
        for attr in node.kwd_attrs:
            if attr.startswith("_") or attr in RESTRICTED_ATTRS:
                return (
                    f"a class pattern may not name the attribute `{attr}=` (private, "
                    "double-underscore or "
                    "interpreter internals); match on the value itself or on dict keys"
                )
    if isinstance(node, ast.arg) and node.arg == "type":
        return "do not name a parameter `type` (it hides the built-in); call it `kind`"
    return None
