"""The policy's checks of state one call could leave behind for the next (``SharedState``).

Three rules, each a sentence for the model (issue 43):

* an attribute is set (or deleted) only on a variable of the function that every binding sets to
  what a call returned (``ctx = decimal.Context(); ctx.prec = 3``): never on a module, a class,
  a function, a parameter or an alias (``sm = difflib.SequenceMatcher; sm.ratio = ...``), nor
  through a chain (``a.b.c = ...``);
* a module-level constant that holds a list, dict or set, and a list, dict or set an allowed
  module holds (``calendar.mdays``), is only read where it is named: an item, a method, a
  comparison, an argument, a loop over it; never bound, returned, put in a container, passed
  through ``x or y``, used as a default, or handed to a function that changes its first argument
  (``operator.setitem``, ``heapq.heappush``, ``bisect.insort``);
* a default value is never a list, dict or set (it is made once and shared by every call).

These give readable refusals for the usual spellings; the sandbox holds whatever the spelling:
it puts the module's state back before every record and refuses attribute stores on what every
record shares (``judge/_child.py``).
"""

from __future__ import annotations

import ast

from .policy_rules import UNKNOWN, is_type_call, node_root, shown_code

__all__ = ["SharedState", "MUTATING_FUNCTIONS"]

MUTATING_FUNCTIONS = {
    "operator": (
        "setitem",
        "delitem",
        "iadd",
        "iand",
        "iconcat",
        "ifloordiv",
        "ilshift",
        "imatmul",
        "imod",
        "imul",
        "ior",
        "ipow",
        "irshift",
        "isub",
        "itruediv",
        "ixor",
    ),
    "heapq": ("heappush", "heappop", "heapify", "heapreplace", "heappushpop"),
    "bisect": ("insort", "insort_left", "insort_right"),
}
"""Functions of the allowed modules that change their first argument in place."""

_CONTAINERS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
_MUTABLE_TYPES = (list, dict, set, bytearray)
_TESTS = (ast.If, ast.While, ast.Assert, ast.IfExp)


def _mutating_functions() -> list[object]:
    import importlib

    return [
        getattr(importlib.import_module(module), name)
        for module, names in MUTATING_FUNCTIONS.items()
        for name in names
    ]


def _holds_container(value: ast.AST | None) -> bool:
    """Whether a module-level constant's value is, or holds, a list, dict or set."""
    if value is None:
        return False
    return any(
        isinstance(n, _CONTAINERS)
        or isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in ("set", "list", "dict", "bytearray")
        for n in ast.walk(value)
    )


class SharedState:
    """The shared-state checks of one module; ``scope`` is its ``policy_scope.Scope``."""

    def __init__(self, tree: ast.Module, scope) -> None:
        self.scope, self.parent = scope, scope.parent
        self.mutating = _mutating_functions()
        self.containers: set[str] = set()  # module-level constants holding a list, dict or set
        for stmt in tree.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and _holds_container(stmt.value):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                self.containers.update(t.id for t in targets if isinstance(t, ast.Name))
        self.made: dict[str, bool] = {}  # name -> every binding is what a call returned
        for node in ast.walk(tree):
            for name, made in self._bindings(node):
                self.made[name] = self.made.get(name, True) and made

    def _bindings(self, node: ast.AST) -> list[tuple[str, bool]]:
        """(name, bound to what a call returned) for each name ``node`` binds."""
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            parent = self.parent.get(node)
            value = None
            if isinstance(parent, ast.Assign) and node in parent.targets:
                value = parent.value
            elif isinstance(parent, (ast.AnnAssign, ast.NamedExpr)) and parent.target is node:
                value = parent.value
            elif isinstance(parent, ast.withitem) and parent.optional_vars is node:
                value = parent.context_expr
            made = isinstance(value, ast.Call) and not is_type_call(value)
            return [(node.id, made)]
        if isinstance(node, ast.arg):
            return [(node.arg, False)]
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return [((a.asname or a.name).partition(".")[0], False) for a in node.names]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [(node.name, False)]
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return [(name, False) for name in node.names]
        name = getattr(node, "name", None) or getattr(node, "rest", None)
        if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)):
            return [(name, False)] if isinstance(name, str) else []
        return []

    def problem(self, node: ast.AST) -> str | None:
        """The shared-state problem of ``node``, or None."""
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            return self._attribute_store(node)
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            return self._default_problem(node)
        if isinstance(node, ast.Call):
            return self._mutating_call(node)
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            return self._alias_problem(node)
        return None

    def _attribute_store(self, node: ast.Attribute) -> str | None:
        target, shown = node.value, shown_code(node)
        if self.scope.shared_root(node_root(target)):
            return None  # the store rule of policy_scope names it
        if not isinstance(target, ast.Name):
            return (
                f"setting `{shown}` is not allowed: set attributes only directly on a variable "
                "this function made with a call (`ctx = decimal.Context(); ctx.prec = 3`)"
            )
        if not self.made.get(target.id, False):
            return (
                f"setting `{shown}` is not allowed: `{target.id}` is not an object this function "
                "made with a call (it may be a class, a function or an object every record "
                "shares); set attributes only on what a call here returned "
                "(`ctx = decimal.Context(); ctx.prec = 3`)"
            )
        return None

    def _default_problem(self, node: ast.FunctionDef | ast.Lambda) -> str | None:
        args = node.args
        for expr in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
            if any(isinstance(n, _CONTAINERS) for n in ast.walk(expr)):
                return (
                    f"the default value `{shown_code(expr)}` is made once and shared by every "
                    "call (and every record); use None or a tuple and build the list, dict or "
                    "set inside the function"
                )
        return None

    def _mutating_call(self, node: ast.Call) -> str | None:
        func = self.scope.resolve(node.func)
        if func is UNKNOWN or not any(func is f for f in self.mutating) or not node.args:
            return None
        first = node.args[0]
        root = node_root(first)
        if self._is_shared_container(first) or self.scope.shared_root(root):
            return (
                f"`{shown_code(node.func)}(...)` changes `{shown_code(first)}`, which every "
                "function shares; change a copy in a local variable instead"
            )
        return None

    def _is_shared_container(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name) and node.id in self.containers:
            return True
        if isinstance(node, (ast.Name, ast.Attribute)):
            return isinstance(self.scope.resolve(node), _MUTABLE_TYPES)
        return False

    def _alias_problem(self, node: ast.Name | ast.Attribute) -> str | None:
        """A shared list, dict or set read anywhere its object could be kept or passed on."""
        if not self._is_shared_container(node) or not self._escapes(node):
            return None
        parent = self.parent.get(node)
        if (
            isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr))
            and parent.value is node
            and isinstance(node, ast.Name)
        ):
            return None  # the alias rule of policy_scope names it
        shown = shown_code(node)
        return (
            f"`{shown}` is a list, dict or set every function (and every record) shares: it may "
            f"only be read where it is named (`{shown}[key]`, `{shown}.get(...)`, `x in {shown}`, "
            f"`for x in {shown}`, an argument); for a value of your own, copy it "
            f"(`list({shown})`, `dict({shown})`)"
        )

    def _escapes(self, node: ast.AST) -> bool:
        """Whether the object ``node`` evaluates to could be bound, returned or stored."""
        child, parent = node, self.parent.get(node)
        # `a or b`, `a if c else b` pass their operand on: judge where the result goes
        while isinstance(parent, ast.BoolOp) or (
            isinstance(parent, ast.IfExp) and parent.test is not child
        ):
            child, parent = parent, self.parent.get(parent)
        if isinstance(parent, (ast.Subscript, ast.Attribute)) and parent.value is child:
            return child is not node  # `(a or b)[0]` reads; `a[0]` is read
        if isinstance(parent, ast.Subscript):
            return False
        if isinstance(parent, (ast.Compare, ast.BinOp, ast.UnaryOp, ast.Starred)):
            return False
        if isinstance(parent, (ast.FormattedValue, ast.Expr)):
            return False
        if isinstance(parent, ast.AugAssign) and parent.value is child:
            return False  # `items += TABLE` adds its items
        if isinstance(parent, _TESTS) and parent.test is child:
            return False
        if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is child:
            return False
        if isinstance(parent, ast.Call) and parent.func is not child:
            return False  # an argument (a function that changes it: _mutating_call)
        if isinstance(parent, ast.keyword):
            return False
        if isinstance(parent, ast.Dict):  # `{**TABLE}` copies
            return not any(k is None and v is child for k, v in zip(parent.keys, parent.values))
        return True
