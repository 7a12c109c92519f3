"""Order generated functions by the record fields they read and write.

``field_access`` reads a function's source (AST only, nothing runs) and collects the string-constant
keys it reads and writes on its record parameter. Recognised on the record or an alias of it
(``r = record``, ``r = dict(record)``, ``record.copy()``, ``copy.copy(record)``, ``{**record}``):

- reads: ``rec["f"]``, ``rec.get("f")``, ``"f" in rec``, ``rec.pop("f")``, ``rec.setdefault("f",
  ..)``;
- writes: ``rec["f"] = ..``, ``del rec["f"]``, ``rec["f"] += ..`` (also a read), ``rec.pop("f")``,
  ``rec.setdefault("f", ..)`` (it inserts f when absent), ``rec.update({"f": ..})``,
  ``rec.update(f=..)``, ``rec["f"]["g"] = ..`` (mutates f), and a new dict built from the record
  (``{**record, "f": x}``, ``dict(record, f=x)``) that is returned or bound to a name.

Dynamic keys (``rec[name]``, ``rec.get(key)``, loops over ``rec.items()``) are ignored: the
analysis under-reports them rather than guessing. A field both read and written by one function
is updated in place.

``order_functions`` puts writers before readers: A runs before B when A writes a field that B
reads without writing it itself. In-place normalisers of one field and independent functions
keep their generation order.
"""

from __future__ import annotations

import ast
import heapq
from dataclasses import dataclass

from ..errors import DependencyCycleError

__all__ = ["FieldAccess", "field_access", "order_functions", "DependencyCycleError"]

_COPY_METHODS = {"copy", "deepcopy"}  # record.copy(), copy.copy(record), copy.deepcopy(record)


@dataclass(frozen=True)
class FieldAccess:
    """The record fields a function reads and writes."""

    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()

    @property
    def in_place(self) -> frozenset[str]:
        """Fields both read and written (updated in place)."""
        return self.reads & self.writes


def _key(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _dict_keys(node: ast.Dict) -> set[str]:
    return {k for k in map(_key, node.keys) if k is not None}


def _find_def(tree: ast.Module, name: str | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    top = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    named = [n for n in defs if n.name == name] if name else []
    return (named or top or defs or [None])[0]


class _Visitor:
    """Collects reads and writes on the record and its aliases."""

    def __init__(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str) -> None:
        self.fn = fn
        self.aliases = {param}
        self.reads: set[str] = set()
        self.writes: set[str] = set()

    def is_record(self, node: ast.AST | None) -> bool:
        return isinstance(node, ast.Name) and node.id in self.aliases

    def copies_record(self, node: ast.AST) -> bool:
        """An expression that is the record itself or a (shallow) copy of it."""
        if self.is_record(node):
            return True
        if isinstance(node, ast.Dict):
            return any(k is None and self.is_record(v) for k, v in zip(node.keys, node.values))
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "dict" and node.args:
                return self.is_record(node.args[0])
            if isinstance(func, ast.Attribute) and func.attr in _COPY_METHODS:
                return self.is_record(func.value) or (
                    len(node.args) == 1 and self.is_record(node.args[0])
                )
        return False

    def find_aliases(self) -> None:
        changed = True
        while changed:
            changed = False
            for node in ast.walk(self.fn):
                targets, value = _assignment(node)
                if value is None or not self.copies_record(value):
                    continue
                for target in targets:
                    if isinstance(target, ast.Name) and target.id not in self.aliases:
                        self.aliases.add(target.id)
                        changed = True

    def new_dict_writes(self, value: ast.AST) -> None:
        """``{**record, "f": x}`` or ``dict(record, f=x)``: the keys it sets are writes."""
        if isinstance(value, ast.Dict) and self.copies_record(value):
            self.writes |= _dict_keys(value)
        elif isinstance(value, ast.Call) and self.copies_record(value):
            self.writes.update(kw.arg for kw in value.keywords if kw.arg)

    def root_field(self, node: ast.AST) -> str | None:
        """For ``rec["f"]["g"]...``: f when the chain starts at the record."""
        while isinstance(node, ast.Subscript):
            if self.is_record(node.value):
                return _key(node.slice)
            node = node.value
        return None

    def visit(self) -> None:
        self.find_aliases()
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Subscript) and self.is_record(node.value):
                key = _key(node.slice)
                if key is not None:
                    (self.reads if isinstance(node.ctx, ast.Load) else self.writes).add(key)
            elif isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
                root = self.root_field(node)
                if root is not None:
                    self.writes.add(root)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
                root = self.root_field(node.target)
                if root is not None:
                    self.reads.add(root)
            elif isinstance(node, ast.Call):
                self.visit_call(node)
            elif isinstance(node, ast.Compare):
                for left, op, right in zip(
                    [node.left, *node.comparators], node.ops, node.comparators
                ):
                    key = _key(left)
                    if (
                        isinstance(op, (ast.In, ast.NotIn))
                        and self.is_record(right)
                        and key is not None
                    ):
                        self.reads.add(key)
            elif isinstance(node, ast.Return) and node.value is not None:
                self.new_dict_writes(node.value)
            targets, value = _assignment(node)
            if value is not None and any(isinstance(t, ast.Name) for t in targets):
                self.new_dict_writes(value)

    def visit_call(self, node: ast.Call) -> None:
        func = node.func
        if not (isinstance(func, ast.Attribute) and self.is_record(func.value)):
            return
        key = _key(node.args[0]) if node.args else None
        if func.attr == "get" and key:
            self.reads.add(key)
        elif func.attr in ("pop", "setdefault") and key:
            self.reads.add(key)
            self.writes.add(key)
        elif func.attr == "update":
            for arg in node.args:
                if isinstance(arg, ast.Dict):
                    self.writes |= _dict_keys(arg)
            self.writes.update(kw.arg for kw in node.keywords if kw.arg)


def _assignment(node: ast.AST) -> tuple[list[ast.AST], ast.AST | None]:
    if isinstance(node, ast.Assign):
        return list(node.targets), node.value
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
        return [node.target], node.value
    return [], None


def field_access(code: str, name: str | None = None) -> FieldAccess:
    """Fields the function reads and writes on its record parameter (AST analysis).

    The function is ``name`` if the code defines it, else the first top-level def; its first
    parameter is the record. Code that does not parse reads and writes nothing.
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return FieldAccess()
    fn = _find_def(tree, name)
    params = [*fn.args.posonlyargs, *fn.args.args] if fn else []
    if fn is None or not params:
        return FieldAccess()
    visitor = _Visitor(fn, params[0].arg)
    visitor.visit()
    return FieldAccess(frozenset(visitor.reads), frozenset(visitor.writes))


def _edges(accesses: list[FieldAccess]) -> dict[int, dict[int, set[str]]]:
    """after[a][b] = fields through which function a must run before function b."""
    after: dict[int, dict[int, set[str]]] = {i: {} for i in range(len(accesses))}
    for a, writer in enumerate(accesses):
        for b, reader in enumerate(accesses):
            if a != b:
                fields = writer.writes & (reader.reads - reader.writes)
                if fields:
                    after[a][b] = set(fields)
    return after


def _find_cycle(after: dict[int, dict[int, set[str]]], left: set[int]) -> list[int]:
    """A cycle among the unsorted functions, as indices with the first repeated at the end."""
    before: dict[int, list[int]] = {b: [] for b in left}
    for a in left:
        for b in after[a]:
            if b in left:
                before[b].append(a)
    path: list[int] = []
    at = min(left)
    while at not in path:  # every unsorted function still waits for an unsorted one: walk back
        path.append(at)
        at = min(before[at])
    loop = path[path.index(at) :][::-1]
    start = loop.index(min(loop))
    loop = loop[start:] + loop[:start]
    return loop + [loop[0]]


def order_functions(functions: list[dict]) -> list[dict]:
    """Functions (dicts with 'name' and 'code') in dependency order: writers before readers.

    Otherwise generation order: Kahn's algorithm, lowest original position first. Raises
    ``DependencyCycleError`` when functions need each other's output (the caller keeps the
    generation order then).
    """
    accesses = [field_access(fn.get("code") or "", fn.get("name")) for fn in functions]
    after = _edges(accesses)
    waiting = [0] * len(functions)
    for successors in after.values():
        for b in successors:
            waiting[b] += 1
    ready = [i for i, n in enumerate(waiting) if n == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        a = heapq.heappop(ready)
        order.append(a)
        for b in after[a]:
            waiting[b] -= 1
            if waiting[b] == 0:
                heapq.heappush(ready, b)
    if len(order) < len(functions):
        cycle = _find_cycle(after, set(range(len(functions))) - set(order))
        names = [str(functions[i].get("name", f"#{i}")) for i in cycle]
        fields = sorted(set().union(*(after[a][b] for a, b in zip(cycle, cycle[1:]))))
        raise DependencyCycleError(
            f"functions {' -> '.join(names)} depend on each other through fields "
            f"{', '.join(fields)}; keeping generation order",
            cycle=names,
            fields=fields,
        )
    return [functions[i] for i in order]
