"""The module-level names of generated code: what one function's code may bind in
cleaning_functions.py.

Every function's code is copied into one module, so its module-level names (functions, constants,
imports) share one namespace with the library's own names and every other function's. The rules
(``name_problems``): no name the library writes (``clean_data``, ``clean_dataset``,
``CROSS_ROW_STEPS``, anything starting with ``_rc_``); no builtin (``str``) and no toolkit helper's
name, unless it is that helper's own import; each name bound once; no name another accepted
function binds (an identical import is fine); and every name the code reads is its own, an import or
a builtin, never another function's. Problems are one sentence each, for the next prompt.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import Iterable

from .. import toolkit
from ..toolkit import PRIMITIVES

__all__ = [
    "LIBRARY_NAMES",
    "LIBRARY_PREFIX",
    "BUILTIN_NAMES",
    "Binding",
    "module_bindings",
    "free_names",
    "name_problems",
]

LIBRARY_NAMES: dict[str, str] = {
    "clean_data": "the entry point that calls every function",
    "clean_dataset": "the helper that runs clean_data and then the rules across rows",
    "CROSS_ROW_STEPS": (
        "the list of rules across rows (dedup, majority, ...), planned only by the library"
    ),
}
"""Module-level names the library itself writes into cleaning_functions.py, and what each is."""
LIBRARY_PREFIX = "_rc_"
"""Names starting with this are kept for code the library adds (apply's audit wrapper, the assembly
check)."""
BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("__"))
_TOOLKIT = toolkit.__name__


@dataclass(frozen=True)
class Binding:
    """One module-level name of a piece of code: a function, a constant or an import (and what it
    imports)."""

    name: str
    kind: str  # "function", "constant" or "import"
    target: str = ""  # imports: "module re", "re.sub"
    line: int = 0

    def describe(self) -> str:
        return f"imported ({self.target})" if self.kind == "import" else f"defined as a {self.kind}"


def module_bindings(tree: ast.Module) -> list[Binding]:
    """The names ``tree`` binds at module level, in order."""
    out: list[Binding] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(Binding(node.name, "function", line=node.lineno))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out += [
                Binding(n.id, "constant", line=node.lineno)
                for t in targets
                for n in ast.walk(t)
                if isinstance(n, ast.Name)
            ]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                out.append(
                    Binding(
                        alias.asname or top,
                        "import",
                        f"module {alias.name if alias.asname else top}",
                        node.lineno,
                    )
                )
        elif isinstance(node, ast.ImportFrom):
            out += [
                Binding(
                    a.asname or a.name,
                    "import",
                    f"{'.' * node.level}{node.module or ''}.{a.name}",
                    node.lineno,
                )
                for a in node.names
            ]
    return out


def free_names(tree: ast.Module) -> dict[str, int]:
    """Names the code reads but binds nowhere (not builtins, not in annotations), with the first
    line each."""
    bound: set[str] = set()
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
            if node.annotation is not None:
                skip.update(id(n) for n in ast.walk(node.annotation))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            skip.update(id(n) for n in ast.walk(node.returns))
        elif isinstance(node, ast.AnnAssign):
            skip.update(id(n) for n in ast.walk(node.annotation))
    free: dict[str, int] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and id(node) not in skip
            and node.id not in bound
            and node.id not in BUILTIN_NAMES
            and not node.id.startswith("__")
        ):
            free.setdefault(node.id, node.lineno)
    return dict(sorted(free.items(), key=lambda item: item[1]))


def _own_problem(b: Binding) -> str | None:
    if b.name in LIBRARY_NAMES:
        return (
            f"`{b.name}` is {LIBRARY_NAMES[b.name]}; the library writes it into "
            "cleaning_functions.py "
            "itself, so generated code may not define or import it"
        )
    if b.name.startswith(LIBRARY_PREFIX):
        return f"names starting with `{LIBRARY_PREFIX}` are kept for the library; rename `{b.name}`"
    if b.name in BUILTIN_NAMES:
        return (
            f"`{b.name}` is a Python builtin; a module-level name `{b.name}` would change what "
            f"`{b.name}` "
            "means for every function in the file, so give yours another name"
        )
    if b.name in PRIMITIVES and not (b.kind == "import" and b.target == f"{_TOOLKIT}.{b.name}"):
        return (
            f"`{b.name}` is a toolkit helper's name; import the helper (`from {_TOOLKIT} import "
            f"{b.name}`) "
            "or give yours another name"
        )
    return None


def name_problems(code: str, others: Iterable[dict] = ()) -> list[str]:
    """Why the module-level names of ``code`` cannot join ``others`` (accepted functions) in one
    file; [] if they can."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []  # the AST policy reports it
    problems: list[str] = []
    mine = module_bindings(tree)
    seen: dict[str, Binding] = {}
    for b in mine:
        problem = _own_problem(b)
        if problem:
            problems.append(f"Line {b.line}: {problem}.")
        first = seen.setdefault(b.name, b)
        if first is not b and not _same_import(first, b):
            problems.append(
                f"Line {b.line}: `{b.name}` is bound twice at module level (lines {first.line} and "
                f"{b.line}); use one name for one thing."
            )
    for name, line in free_names(tree).items():
        problems.append(
            f"Line {line}: `{name}` is used but neither defined nor imported in this code; a "
            "function "
            "may only use its own names, its imports and builtins (other functions' names are not "
            "shared)."
        )
    taken: dict[str, tuple[str, Binding]] = {}
    for other in others:
        try:
            for b in module_bindings(ast.parse(other.get("code") or "")):
                taken.setdefault(b.name, (other.get("name", "?"), b))
        except (SyntaxError, ValueError):
            continue
    for b in mine:
        if b.name in taken and not _same_import(taken[b.name][1], b):
            owner, theirs = taken[b.name]
            problems.append(
                f"Line {b.line}: `{b.name}` is already {theirs.describe()} by the accepted "
                "function "
                f"`{owner}`; every function's names share one file, so give yours another name."
            )
    return list(dict.fromkeys(problems))


def _same_import(a: Binding, b: Binding) -> bool:
    return a.kind == b.kind == "import" and a.target == b.target
