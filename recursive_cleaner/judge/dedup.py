"""Near-duplicate cleaning functions: the same logic under another name, other variable names or
docstring.

Nothing runs: the code is parsed, its docstrings and ``from __future__`` imports are dropped, every
name it binds (functions, parameters, variables, constants) becomes ``v0, v1, ...`` in order of
first appearance and import aliases become the imported name. Equal normalised code is a duplicate
(similarity 1.0); otherwise the similarity is difflib's ratio over the tokens of the normalised
code. Two functions that read or write different record fields (``dependencies.field_access``) are
never duplicates, however alike their text: ``fix_phone`` and ``fix_mobile`` may differ in one
string only.
"""

from __future__ import annotations

import ast
import difflib
import re

from ..write.dependencies import field_access

__all__ = ["normalise_code", "code_similarity", "find_duplicate"]

_TOKEN = re.compile(r"\w+|[^\w\s]")


def _drop_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]


def _bound_names(tree: ast.AST) -> tuple[set[str], dict[str, str]]:
    """Names the code binds itself, and import aliases -> the imported name."""
    bound: set[str] = set()
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
    return bound - set(aliases), aliases


class _Renamer(ast.NodeTransformer):
    """Bound names -> v0, v1, ... in order of first appearance; aliases -> the imported name."""

    def __init__(self, bound: set[str], aliases: dict[str, str]) -> None:
        self.bound, self.aliases, self.names = bound, aliases, {}

    def rename(self, name: str) -> str:
        if name in self.aliases:
            return self.aliases[name]
        if name not in self.bound:
            return name
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.rename(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.rename(node.arg)
        node.annotation = None
        return node

    def _def(self, node):
        node.name = self.rename(node.name)
        if hasattr(node, "returns"):
            node.returns = None
        return self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _def

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        if node.name:
            node.name = self.rename(node.name)
        return self.generic_visit(node)

    def visit_alias(self, node: ast.alias) -> ast.AST:
        node.asname = None
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | None:
        return None if node.module == "__future__" else self.generic_visit(node)


def normalise_code(code: str) -> str:
    """The code without docstrings, comments and its own names (see the module docstring); text as
    is if unparsable."""
    try:
        tree = ast.parse(code)
        _drop_docstrings(tree)
        tree = _Renamer(*_bound_names(tree)).visit(tree)
        return ast.unparse(ast.fix_missing_locations(tree))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return " ".join(str(code).split())


def code_similarity(a: str, b: str) -> float:
    """1.0 for equal normalised code, else difflib's ratio over the tokens of the normalised
    code."""
    na, nb = normalise_code(a), normalise_code(b)
    if na == nb:
        return 1.0
    return difflib.SequenceMatcher(
        None, _TOKEN.findall(na), _TOKEN.findall(nb), autojunk=False
    ).ratio()


def find_duplicate(
    code: str, name: str, accepted: list[dict], *, threshold: float = 0.9
) -> str | None:
    """The name of the accepted function (dicts with 'name' and 'code') that ``code`` nearly
    duplicates, or None.

    The most similar one at or above ``threshold`` wins; functions touching other record fields
    never match.
    """
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    access = field_access(code, name)
    best: tuple[float, str] | None = None
    for fn in accepted:
        other, other_name = fn.get("code") or "", str(fn.get("name", ""))
        if field_access(other, other_name or None) != access:
            continue
        similarity = code_similarity(code, other)
        if similarity >= threshold and (best is None or similarity > best[0]):
            best = (similarity, other_name)
    return best[1] if best else None
