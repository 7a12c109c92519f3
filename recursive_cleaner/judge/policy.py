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
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
import types
from string import Formatter

from ._child import ALLOWED_MODULES, TOOLKIT
from ..errors import clip_text
from ..toolkit import PRIMITIVES

__all__ = ["ALLOWED_IMPORTS", "FORBIDDEN_NAMES", "RESTRICTED_ATTRS", "check_code_safety"]

ALLOWED_IMPORTS: frozenset[str] = ALLOWED_MODULES
"""Modules generated code may import (``import a.b`` needs ``a.b`` itself in the set).

The toolkit is imported as ``from recursive_cleaner.toolkit import ...`` or
``import recursive_cleaner.toolkit as tk``; the bare package ``recursive_cleaner`` is refused.
"""
_TOOLKIT_HINT = f"write `from {TOOLKIT} import <names>` or `import {TOOLKIT} as tk`"

FORBIDDEN_NAMES = frozenset(
    {
        "eval",
        "exec",
        "compile",
        "open",
        "__import__",
        "globals",
        "locals",
        "vars",
        "getattr",
        "setattr",
        "delattr",
        "breakpoint",
        "input",
        "exit",
        "quit",
        "help",
        "memoryview",
    }
)
RESTRICTED_ATTRS = frozenset(
    {
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "f_trace",
        "f_lasti",
        "f_lineno",
        "co_code",
        "co_consts",
        "co_names",
        "co_varnames",
        "co_filename",
        "co_freevars",
        "co_cellvars",
        "co_lines",
        "co_positions",
        "co_lnotab",
        "co_linetable",
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "cr_frame",
        "cr_code",
        "cr_await",
        "ag_frame",
        "ag_code",
        "ag_await",
        "tb_frame",
        "tb_next",
        "cell_contents",
        "mro",
    }
)
_DUNDER = re.compile(r"^__\w+__$")
_DUNDER_IN_TEXT = re.compile(r"__[A-Za-z]\w*__")
_UPPER = re.compile(r"^[A-Z][A-Z0-9_]*$")
_CALLS_AT_DEF_TIME = (
    ast.Call,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.NamedExpr,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
)
_MODULE_LEVEL_HINT = (
    "the module level may only hold imports, function definitions, a docstring "
    "and UPPER_CASE constants set to literal values"
)
_ALLOWED_HINT = "use only the allowed modules, each imported directly (`import re`)"
_FORMAT_METHODS = frozenset({"format", "format_map"})
_UNKNOWN = object()
_MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "popitem",
        "clear",
        "update",
        "setdefault",
        "add",
        "discard",
        "sort",
        "reverse",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
        "appendleft",
        "extendleft",
        "rotate",
        "subtract",
    }
)
# their first argument is a key: text there is data
_DATA_METHODS = frozenset({"get", "pop", "setdefault"})
_TOO_DEEP = "The code is nested too deeply to check; write plain statements."


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
        return _problems(tree)
    # a walk that recurses (ast.unparse of a long chain in a message)
    except (RecursionError, MemoryError):
        return [_TOO_DEEP]


def _problems(tree: ast.Module) -> list[str]:
    problems: list[str] = []
    for stmt in tree.body:
        problem = _module_statement_problem(stmt)
        if problem:
            problems.append(f"Line {stmt.lineno}: {problem}.")
    scope = _Scope(tree)
    for node in ast.walk(tree):
        problem = _node_problem(node) or scope.problem(node)
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
        if len(names) != len(targets) or not all(_UPPER.match(n) for n in names):
            return (
                "module-level assignments must be to UPPER_CASE constant names; "
                f"{_MODULE_LEVEL_HINT}"
            )
        if stmt.value is None or not _is_constant_value(stmt.value):
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
        return f"top-level expressions and calls are not allowed; {_MODULE_LEVEL_HINT}"
    return (
        f"a top-level `{type(stmt).__name__.lower()}` statement is not allowed; "
        f"{_MODULE_LEVEL_HINT}"
    )


def _node_problem(node: ast.AST) -> str | None:
    if isinstance(node, ast.Import):
        bad = [a.name for a in node.names if a.name not in ALLOWED_IMPORTS]
        if any(a.name == TOOLKIT and a.asname is None for a in node.names):
            return f"`import {TOOLKIT}` without `as` binds the whole library; {_TOOLKIT_HINT}"
        return _import_problem(bad[0]) if bad else None
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return "relative imports are not allowed"
        if node.module not in ALLOWED_IMPORTS:
            return _import_problem(node.module or "")
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
            if any(isinstance(sub, _CALLS_AT_DEF_TIME) for sub in ast.walk(expr)):
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
        if _DUNDER.match(node.id):
            return f"the name `{node.id}` is not allowed (no double-underscore names)"
        return None
    if isinstance(node, ast.Attribute):
        if _DUNDER.match(node.attr):
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


class _Scope:
    """What the names of one piece of code refer to: imports resolved in the real modules, nothing
    run."""

    def __init__(self, tree: ast.Module) -> None:
        self.parent: dict[ast.AST, ast.AST] = {
            child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)
        }
        self.imported: dict[str, object] = {}
        # name -> every literal text it is set to (None: not only those)
        self.texts: dict[str, list[str] | None] = {}
        self.local: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imported[alias.asname] = _module(alias.name)
                    else:
                        top = alias.name.partition(".")[0]
                        self.imported[top] = (
                            _module(top) if alias.name in ALLOWED_IMPORTS else _UNKNOWN
                        )
            elif (
                isinstance(node, ast.ImportFrom)
                and not node.level
                and node.module in ALLOWED_IMPORTS
            ):
                source = _module(node.module)
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = _member(source, alias.name)
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
                args = node.args
                self.local.update(
                    a.arg
                    for a in [
                        *args.posonlyargs,
                        *args.args,
                        *args.kwonlyargs,
                        args.vararg,
                        args.kwarg,
                    ]
                    if a is not None
                )
                body = node.body if isinstance(node, ast.FunctionDef) else [node.body]
                for stmt in body:
                    self.local.update(
                        n.id
                        for n in ast.walk(stmt)
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                    )
        for node in ast.walk(tree):  # names bound by patterns and handlers are local too
            name = (
                getattr(node, "name", None)
                if isinstance(node, (ast.MatchAs, ast.MatchStar, ast.ExceptHandler))
                else getattr(node, "rest", None)
                if isinstance(node, ast.MatchMapping)
                else None
            )
            if isinstance(name, str):
                self.local.add(name)
        for node in ast.walk(tree):  # names only ever set to literal text (format templates)
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                parent = self.parent.get(node)
                value = (
                    getattr(parent, "value", None)
                    if isinstance(parent, (ast.Assign, ast.AnnAssign))
                    else None
                )
                text = (
                    value.value
                    if isinstance(value, ast.Constant) and isinstance(value.value, str)
                    else None
                )
                if text is None or node.id in self.texts and self.texts[node.id] is None:
                    self.texts[node.id] = None
                else:
                    self.texts.setdefault(node.id, []).append(text)
        self.evaluators = _evaluators()
        self.getters = _computed_getters()
        self.shared = _shared_state()
        self.module_names: set[str] = set()  # what the module level binds: constants, functions
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.module_names.add(stmt.name)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                self.module_names.update(
                    n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
                )
        self.type_results = {  # names set to what type(...) returns: calling them makes a class
            t.id
            for node in ast.walk(tree)
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr))
            and _is_type_call(node.value)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        self._resolved: dict[ast.AST, object] = {}

    def resolve(self, node: ast.AST) -> object:
        """The object a name or an attribute chain rooted at an import refers to, or _UNKNOWN (no
        recursion)."""
        chain = []
        while isinstance(node, ast.Attribute) and node not in self._resolved:
            chain.append(node)
            node = node.value
        if node in self._resolved:
            value = self._resolved[node]
        elif isinstance(node, ast.Name):
            value = self.imported.get(node.id, _UNKNOWN)
        else:
            value = _UNKNOWN
        for link in reversed(chain):
            value = _member(value, link.attr) if isinstance(value, types.ModuleType) else _UNKNOWN
            self._resolved[link] = value
        return value

    def _shared_root(self, root: ast.AST) -> bool:
        """Whether ``root`` names something every function shares: an import or a module-level
        name."""
        return isinstance(root, ast.Name) and (
            root.id in self.imported or root.id in self.module_names or root.id not in self.local
        )

    def _type_problem(self, node: ast.AST) -> str | None:
        """``type`` only called on one value; what it returns never called."""
        parent = self.parent.get(node)
        if isinstance(node, ast.Name) and node.id == "type":
            if not isinstance(node.ctx, ast.Load):
                return (
                    "do not bind the name `type` (it hides the built-in); call the variable `kind`"
                )
            if not (isinstance(parent, ast.Call) and parent.func is node):
                return (
                    "`type` may only be called as `type(value)`; it cannot be stored, passed or "
                    "returned "
                    "(classes cannot be made in cleaning code)"
                )
            if (
                len(parent.args) == 1
                and isinstance(parent.args[0], ast.Name)
                and isinstance(getattr(builtins, parent.args[0].id, None), type)
            ):
                return (
                    f"`type({parent.args[0].id})` is the class of a class; compare with "
                    f"`type(value) is {parent.args[0].id}`"
                )
        if isinstance(node, ast.Call) and (
            _is_type_call(node.func)
            or isinstance(node.func, ast.Name)
            and node.func.id in self.type_results
        ):
            return (
                "calling what `type(...)` returns is not allowed (it makes objects of any class); "
                "use literals"
            )
        return None

    def _data_text(self, node: ast.Constant) -> bool:
        """Whether a text constant is data (a key, a comparison, a docstring), not a name of
        anything."""
        parent = self.parent.get(node)
        if (
            isinstance(parent, ast.Subscript)
            and parent.slice is node
            or isinstance(parent, ast.Compare)
        ):
            return True
        if (
            isinstance(parent, ast.Call)
            and parent.args
            and parent.args[0] is node
            and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in _DATA_METHODS
        ):
            return True
        if isinstance(parent, ast.Expr) and isinstance(
            self.parent.get(parent), (ast.Module, ast.FunctionDef)
        ):
            return self.parent[parent].body[0] is parent
        return False

    def problem(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found = _DUNDER_IN_TEXT.search(node.value)
            if found and not self._data_text(node):
                return (
                    f"string literals naming double-underscore attributes ({found.group()!r}) are "
                    "not allowed "
                    "outside a key (`record[...]`, `.get(...)`); pick a sentinel without double "
                    "underscores"
                )
            return None
        problem = self._type_problem(node)
        if problem:
            return problem
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MUTATORS
        ):
            root = _root(node.func.value)
            if self._shared_root(root) and not (
                isinstance(root, ast.Name) and root.id in self.imported and node.func.value is root
            ):
                return (
                    f"`{_shown(node.func)}(...)` changes `{root.id}`, which every function shares; "
                    f"change a copy in a local variable instead (`copy.copy({root.id})`)"
                )
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "register"
            and isinstance(node.ctx, ast.Load)
            and self.resolve(node.value) is not _UNKNOWN
        ):
            return f"`{_shown(node)}` changes a registry every function shares; it is not allowed"
        if (
            isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr))
            and isinstance(node.value, ast.Name)
            and node.value.id in self.module_names
            and node.value.id not in self.imported
            and node.value.id[:1].isupper()
            and self.parent.get(node) is not None
            and not isinstance(self.parent.get(node), ast.Module)
        ):
            return (
                f"an alias of the module-level `{node.value.id}` would let a function change it "
                "for every "
                f"other; use `{node.value.id}` directly, or copy it (`dict({node.value.id})`)"
            )
        if isinstance(node, ast.ImportFrom) and node.module in ALLOWED_IMPORTS and not node.level:
            for alias in node.names:
                value = self.imported.get(alias.asname or alias.name, _UNKNOWN)
                if isinstance(value, types.ModuleType) and value.__name__ not in ALLOWED_IMPORTS:
                    return (
                        f"`from {node.module} import {alias.name}` reaches the module "
                        f"`{value.__name__}`, "
                        f"which is not allowed; {_ALLOWED_HINT}"
                    )
            return None
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            return self._store_problem(node)
        if isinstance(node, ast.Attribute) and node.attr in _FORMAT_METHODS:
            return self._format_problem(node)
        if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(node.ctx, ast.Load):
            return None
        value = self.resolve(node)
        if value is _UNKNOWN:
            return None
        shown = _shown(node)
        if isinstance(value, types.ModuleType):
            if isinstance(node, ast.Attribute) and value.__name__ not in ALLOWED_IMPORTS:
                return (
                    f"`{shown}` is the module `{value.__name__}`, reached through another module; "
                    f"{_ALLOWED_HINT}"
                )
            parent = self.parent.get(node)
            if not (isinstance(parent, ast.Attribute) and parent.value is node):
                return (
                    f"the module `{shown}` may only be used as `{shown}.<name>`; "
                    "it cannot be stored, passed or returned"
                )
            return None
        for obj, why in self.evaluators + self.shared:
            if value is obj:
                return f"`{shown}` is not allowed in cleaning code: {why}"
        if any(value is getter for getter in self.getters):
            return self._getter_problem(node, shown, value is self.getters[1])
        return None

    def _getter_problem(self, node: ast.AST, shown: str, methodcaller: bool) -> str | None:
        """attrgetter / methodcaller: called on the spot, with literal public names only."""
        call = self.parent.get(node)
        if not (isinstance(call, ast.Call) and call.func is node and call.args):
            return (
                f"`{shown}` may only be called directly with literal names, like `{shown}('name')`"
            )
        names = call.args[:1] if methodcaller else call.args
        for arg in names:
            if (
                not (isinstance(arg, ast.Constant) and isinstance(arg.value, str))
                or call.keywords
                and not methodcaller
            ):
                return f"`{shown}` needs literal attribute names (computed names are not allowed)"
            parts = arg.value.split(".")
            if any(p.startswith("_") or p in RESTRICTED_ATTRS for p in parts) or (
                methodcaller and arg.value in _FORMAT_METHODS
            ):
                return (
                    f"`{shown}({clip_text(arg.value, 80)!r})` is not allowed: no private or format "
                    "attributes, "
                    "nor interpreter internals"
                )
        return None

    def _format_problem(self, node: ast.Attribute) -> str | None:
        """``"...".format(...)``: called on the spot, on a literal format string whose fields are
        plain."""
        call = self.parent.get(node)
        hint = "use an f-string, or call `.format` on a literal format string"
        if not (isinstance(call, ast.Call) and call.func is node) or not isinstance(
            node.ctx, ast.Load
        ):
            return f"`.{node.attr}` may only be called directly on a literal format string; {hint}"
        receiver = node.value
        if isinstance(receiver, ast.Name) and receiver.id == "str" and "str" not in self.texts:
            receiver = call.args[0] if call.args else None
        texts = self._literal_texts(receiver)
        if texts is None:
            return (
                f"`.{node.attr}` is only allowed on a literal format string (not a built-up one); "
                f"{hint}"
            )
        for text in texts:
            field = _deep_field(text)
            if field is not None:
                return (
                    f"the format field {{{field}}} reaches an attribute or item; format fields may "
                    "only be "
                    f"positions or names ({hint})"
                )
        return None

    def _literal_texts(self, node: ast.AST | None) -> list[str] | None:
        """The literal format string(s) ``node`` can be: a literal, or a name only ever set to
        literals."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.Name):
            return self.texts.get(node.id)
        return None

    def _store_problem(self, node: ast.Attribute | ast.Subscript) -> str | None:
        """Assigning to (or deleting) a part of something every function shares."""
        root = _root(node.value)
        if not self._shared_root(root):
            return None
        return (
            f"changing `{_shown(node)}` is not allowed: it belongs to a module or to the whole "
            "file and "
            "would change it for every function; keep changes in local variables"
        )


def _root(node: ast.AST) -> ast.AST:
    """The name an attribute / item / call chain starts from (or whatever else it starts from)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _shown(node: ast.AST) -> str:
    """The node's source for a message, cut short (and never a RecursionError)."""
    try:
        return clip_text(ast.unparse(node), 120)
    except (RecursionError, MemoryError, ValueError):
        return f"<a long {type(node).__name__.lower()}>"


def _is_type_call(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


def _module(name: str) -> object:
    """The allowed module ``name`` (imported in the library's process: standard library or the
    toolkit)."""
    if name not in ALLOWED_IMPORTS:
        return _UNKNOWN
    try:
        return importlib.import_module(name)
    except ImportError:
        return _UNKNOWN


def _member(module: object, name: str) -> object:
    """``module.name`` as stored in the module (no ``__getattr__`` runs), or _UNKNOWN."""
    if not isinstance(module, types.ModuleType):
        return _UNKNOWN
    return vars(module).get(name, _UNKNOWN)


def _deep_field(text: str, depth: int = 0) -> str | None:
    """The first replacement field of a format string that names an attribute or an item, or
    None."""
    try:
        parsed = list(Formatter().parse(text))
    except (ValueError, IndexError):
        # not a valid format string: .format would fail anyway; refuse rather than guess
        return text
    for _literal, field, spec, _conversion in parsed:
        if field and ("." in field or "[" in field):
            return field
        if spec and depth < 2:
            inner = _deep_field(spec, depth + 1)
            if inner is not None:
                return inner
    return None


def _import_problem(module: str) -> str:
    package = TOOLKIT.partition(".")[0]
    if module == package or module.startswith(package + "."):
        return (
            f"import of '{module}' is not allowed; only the toolkit may be imported from it: "
            f"{_TOOLKIT_HINT}"
        )
    allowed = ", ".join(sorted(ALLOWED_IMPORTS))
    return f"import of '{module}' is not allowed; only these modules may be imported: {allowed}"


def _is_constant_value(node: ast.expr) -> bool:
    """A literal, frozenset/set/tuple of a literal, or re.compile(<literal>[, re.FLAGS])."""
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple"):
        return (
            not node.keywords
            and len(node.args) <= 1
            and all(_is_constant_value(a) for a in node.args)
        )
    if _is_re_compile(node.func):
        flags = node.args[1:] + [k.value for k in node.keywords]
        return (
            1 <= len(node.args) <= 2
            and all(k.arg == "flags" for k in node.keywords)
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, (str, bytes))
            and all(_is_re_flags(f) for f in flags)
        )
    return False


def _is_re_compile(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "compile"
        and isinstance(func.value, ast.Name)
        and func.value.id == "re"
    )


def _is_re_flags(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_re_flags(node.left) and _is_re_flags(node.right)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "re"
        and node.attr.isupper()
    )
