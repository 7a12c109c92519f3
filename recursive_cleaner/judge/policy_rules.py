"""The policy's vocabulary: the allowed imports, the forbidden names and attributes, the hints its
refusals give, and the small AST helpers its checks share (``policy``, ``policy_scope``)."""

from __future__ import annotations

import ast
import importlib
import re
import types
from string import Formatter

from ..errors import clip_text
from .sandbox import ALLOWED_MODULES, TOOLKIT

__all__ = [
    "ALLOWED_IMPORTS",
    "FORBIDDEN_NAMES",
    "RESTRICTED_ATTRS",
    "TOOLKIT_HINT",
    "DUNDER",
    "DUNDER_IN_TEXT",
    "UPPER_NAME",
    "CALLS_AT_DEF_TIME",
    "MODULE_LEVEL_HINT",
    "ALLOWED_HINT",
    "FORMAT_METHODS",
    "UNKNOWN",
    "MUTATORS",
    "DATA_METHODS",
    "TOO_DEEP",
    "node_root",
    "shown_code",
    "is_type_call",
    "module_of",
    "member_of",
    "deep_field",
    "import_problem",
    "is_constant_value",
    "is_re_compile",
    "is_re_flags",
]

ALLOWED_IMPORTS: frozenset[str] = ALLOWED_MODULES
"""Modules generated code may import (``import a.b`` needs ``a.b`` itself in the set).

The toolkit is imported as ``from recursive_cleaner.toolkit import ...`` or
``import recursive_cleaner.toolkit as tk``; the bare package ``recursive_cleaner`` is refused.
"""

TOOLKIT_HINT = f"write `from {TOOLKIT} import <names>` or `import {TOOLKIT} as tk`"

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

DUNDER = re.compile(r"^__\w+__$")
DUNDER_IN_TEXT = re.compile(r"__[A-Za-z]\w*__")
UPPER_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")

CALLS_AT_DEF_TIME = (
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

MODULE_LEVEL_HINT = (
    "the module level may only hold imports, function definitions, a docstring "
    "and UPPER_CASE constants set to literal values"
)

ALLOWED_HINT = "use only the allowed modules, each imported directly (`import re`)"
FORMAT_METHODS = frozenset({"format", "format_map"})
UNKNOWN = object()

MUTATORS = frozenset(
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
DATA_METHODS = frozenset({"get", "pop", "setdefault"})
TOO_DEEP = "The code is nested too deeply to check; write plain statements."


def node_root(node: ast.AST) -> ast.AST:
    """The name an attribute / item / call chain starts from (or whatever else it starts from)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def shown_code(node: ast.AST) -> str:
    """The node's source for a message, cut short (and never a RecursionError)."""
    try:
        return clip_text(ast.unparse(node), 120)
    except (RecursionError, MemoryError, ValueError):
        return f"<a long {type(node).__name__.lower()}>"


def is_type_call(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"


def module_of(name: str) -> object:
    """The allowed module ``name`` (imported in the library's process: standard library or the
    toolkit)."""
    if name not in ALLOWED_IMPORTS:
        return UNKNOWN
    try:
        return importlib.import_module(name)
    except ImportError:
        return UNKNOWN


def member_of(module: object, name: str) -> object:
    """``module.name`` as stored in the module (no ``__getattr__`` runs), or UNKNOWN."""
    if not isinstance(module, types.ModuleType):
        return UNKNOWN
    return vars(module).get(name, UNKNOWN)


def deep_field(text: str, depth: int = 0) -> str | None:
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
            inner = deep_field(spec, depth + 1)
            if inner is not None:
                return inner
    return None


def import_problem(module: str) -> str:
    package = TOOLKIT.partition(".")[0]
    if module == package or module.startswith(package + "."):
        return (
            f"import of '{module}' is not allowed; only the toolkit may be imported from it: "
            f"{TOOLKIT_HINT}"
        )
    allowed = ", ".join(sorted(ALLOWED_IMPORTS))
    return f"import of '{module}' is not allowed; only these modules may be imported: {allowed}"


def is_constant_value(node: ast.expr) -> bool:
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
            and all(is_constant_value(a) for a in node.args)
        )
    if is_re_compile(node.func):
        flags = node.args[1:] + [k.value for k in node.keywords]
        return (
            1 <= len(node.args) <= 2
            and all(k.arg == "flags" for k in node.keywords)
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, (str, bytes))
            and all(is_re_flags(f) for f in flags)
        )
    return False


def is_re_compile(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "compile"
        and isinstance(func.value, ast.Name)
        and func.value.id == "re"
    )


def is_re_flags(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return is_re_flags(node.left) and is_re_flags(node.right)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "re"
        and node.attr.isupper()
    )
