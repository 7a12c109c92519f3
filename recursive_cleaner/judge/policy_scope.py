"""What the names of one piece of generated code refer to (``Scope``): imports resolved in the real
modules, nothing run; the policy's checks of calls, attributes, format strings, classes and shared
state that need it (``policy.check_code_safety``)."""

from __future__ import annotations

import ast
import builtins
import types

from ..errors import clip_text
from .policy_rules import (
    ALLOWED_HINT,
    ALLOWED_IMPORTS,
    DATA_METHODS,
    DUNDER_IN_TEXT,
    FORMAT_METHODS,
    MUTATORS,
    RESTRICTED_ATTRS,
    UNKNOWN,
    deep_field,
    is_type_call,
    member_of,
    module_of,
    node_root,
    shown_code,
)

__all__ = ["Scope"]


class Scope:
    """What the names of one piece of code refer to: imports resolved in the real modules, nothing
    run."""

    def __init__(self, tree: ast.Module, evaluators: list, getters: tuple, shared: list) -> None:
        """``evaluators``, ``getters``, ``shared``: the objects the policy refuses (``policy``)."""
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
                        self.imported[alias.asname] = module_of(alias.name)
                    else:
                        top = alias.name.partition(".")[0]
                        self.imported[top] = (
                            module_of(top) if alias.name in ALLOWED_IMPORTS else UNKNOWN
                        )
            elif (
                isinstance(node, ast.ImportFrom)
                and not node.level
                and node.module in ALLOWED_IMPORTS
            ):
                source = module_of(node.module)
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = member_of(source, alias.name)
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
        self.evaluators, self.getters, self.shared = evaluators, getters, shared
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
            and is_type_call(node.value)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        self._resolved: dict[ast.AST, object] = {}

    def resolve(self, node: ast.AST) -> object:
        """The object a name or an attribute chain rooted at an import refers to, or UNKNOWN (no
        recursion)."""
        chain = []
        while isinstance(node, ast.Attribute) and node not in self._resolved:
            chain.append(node)
            node = node.value
        if node in self._resolved:
            value = self._resolved[node]
        elif isinstance(node, ast.Name):
            value = self.imported.get(node.id, UNKNOWN)
        else:
            value = UNKNOWN
        for link in reversed(chain):
            value = member_of(value, link.attr) if isinstance(value, types.ModuleType) else UNKNOWN
            self._resolved[link] = value
        return value

    def shared_root(self, root: ast.AST) -> bool:
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
            is_type_call(node.func)
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
            and parent.func.attr in DATA_METHODS
        ):
            return True
        if isinstance(parent, ast.Expr) and isinstance(
            self.parent.get(parent), (ast.Module, ast.FunctionDef)
        ):
            return self.parent[parent].body[0] is parent
        return False

    def problem(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found = DUNDER_IN_TEXT.search(node.value)
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
            and node.func.attr in MUTATORS
        ):
            root = node_root(node.func.value)
            if self.shared_root(root) and not (
                isinstance(root, ast.Name) and root.id in self.imported and node.func.value is root
            ):
                return (
                    f"`{shown_code(node.func)}(...)` changes `{root.id}`, which every function "
                    "shares; "
                    f"change a copy in a local variable instead (`copy.copy({root.id})`)"
                )
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "register"
            and isinstance(node.ctx, ast.Load)
        ):  # whatever it is called on: `s = collections.abc.Sequence; s.register(dict)` too
            return (
                f"`{shown_code(node)}` changes a registry every function shares; it is not allowed"
            )
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
                value = self.imported.get(alias.asname or alias.name, UNKNOWN)
                if isinstance(value, types.ModuleType) and value.__name__ not in ALLOWED_IMPORTS:
                    return (
                        f"`from {node.module} import {alias.name}` reaches the module "
                        f"`{value.__name__}`, "
                        f"which is not allowed; {ALLOWED_HINT}"
                    )
            return None
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            return self._store_problem(node)
        if isinstance(node, ast.Attribute) and node.attr in FORMAT_METHODS:
            return self._format_problem(node)
        if not isinstance(node, (ast.Name, ast.Attribute)) or not isinstance(node.ctx, ast.Load):
            return None
        value = self.resolve(node)
        if value is UNKNOWN:
            return None
        shown = shown_code(node)
        if isinstance(value, types.ModuleType):
            if isinstance(node, ast.Attribute) and value.__name__ not in ALLOWED_IMPORTS:
                return (
                    f"`{shown}` is the module `{value.__name__}`, reached through another module; "
                    f"{ALLOWED_HINT}"
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
                methodcaller and arg.value in FORMAT_METHODS
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
            field = deep_field(text)
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
        root = node_root(node.value)
        if not self.shared_root(root):
            return None
        return (
            f"changing `{shown_code(node)}` is not allowed: it belongs to a module or to the whole "
            "file and "
            "would change it for every function; keep changes in local variables"
        )
