"""Isolation between records, part one: the allowed modules made read-only and every attribute
store of the code guarded, so modules, classes, functions and the allowed modules' objects cannot
be changed (``freeze_modules``, ``make_store_guard``, ``guarded_code``); the state the code's own
names hold is put back by ``_child_reset``. So no record's output depends on the records before it.

Standard library only (see ``_child.py``); nothing runs on import.
"""

from __future__ import annotations

import os
import sys

from ._child_lockdown import make_blocker
from ._child_policy import ALLOWED_MODULES, FROZEN_EXTRA, INTERNAL_MODULES, TOOLKIT

__all__ = ["freeze_modules", "guard_helpers", "guarded_code", "make_store_guard"]


def _refusal(what: str):
    """refuse(obj, name) -> never returns: a recorded refusal (the hook raises), else
    PermissionError."""
    audit, perm_error, type_, str_ = sys.audit, PermissionError, type, str

    def refuse(name, *_):
        name = name[:80] if type_(name) is str_ else "?"
        audit("sandbox.frozen", what, name)
        raise perm_error(
            "sandbox: setting the attribute " + name + " of " + what + " is not allowed"
        )

    return refuse


def freeze_modules(protected: set) -> None:
    """Make every allowed module (and the toolkit, the interpreter's helpers, builtins) read-only.

    Each module becomes an instance of a ModuleType subclass whose ``__setattr__`` /
    ``__delattr__`` refuse and whose ``__dict__`` is a read-only view; its public lists, dicts and
    sets are replaced by a tuple, a read-only view of the same dict and a frozenset; each object of
    a Python class it holds (``calendar.c``, ``json._default_encoder``) becomes an instance of a
    subclass that refuses attribute stores too (where the class allows it). The ids of every
    module and every object the modules hold go into ``protected``: the store guard refuses them.
    """
    import types

    module_type, proxy = types.ModuleType, types.MappingProxyType
    dict_of = module_type.__dict__["__dict__"].__get__
    refuse_module = _refusal("a module")

    class FrozenModule(module_type):
        __slots__ = ()
        __setattr__ = __delattr__ = lambda self, name, *_: refuse_module(name)
        __dict__ = property(lambda self: proxy(dict_of(self)))
        __dir__ = lambda self: list(dict_of(self))  # noqa: E731 (dir() wants the real dict)

    FrozenModule.__name__ = FrozenModule.__qualname__ = "module"  # messages read as before

    frozen_classes: dict = {}

    def frozen_class(kind):
        if kind not in frozen_classes:
            refuse = _refusal("an object of the module " + str(kind.__module__)[:60])
            try:
                frozen_classes[kind] = type(
                    kind.__name__,
                    (kind,),
                    {
                        "__slots__": (),
                        "__module__": kind.__module__,
                        "__qualname__": kind.__qualname__,
                        "__setattr__": lambda self, name, *_: refuse(name),
                        "__delattr__": lambda self, name: refuse(name),
                    },
                )
            except BaseException:  # final classes, enumerations with members, odd layouts
                frozen_classes[kind] = None
        return frozen_classes[kind]

    # an allowed package's public submodules are reached as its attributes (html.entities,
    # json.decoder): read-only as the package is
    packages = tuple(n + "." for n in ALLOWED_MODULES if n != TOOLKIT)
    subs = frozenset(
        n for n in sys.modules if n.startswith(packages) and not n.rpartition(".")[2][:1] == "_"
    )
    names = sorted(ALLOWED_MODULES | INTERNAL_MODULES | frozenset(FROZEN_EXTRA) | subs)
    modules = [sys.modules[n] for n in names if type(sys.modules.get(n)) is module_type]
    protected.update(id(m) for m in modules)
    read_only = {list: tuple, dict: proxy, set: frozenset}
    set_type_attr = type.__setattr__
    for module in modules:
        namespace = dict_of(module)
        # the helpers (warnings) keep their lists
        public = module.__name__ in ALLOWED_MODULES or module.__name__ in subs
        for name, value in list(namespace.items()):
            kind = type(value)
            if kind in read_only and public and not name.startswith("_"):
                value = namespace[name] = read_only[kind](value)
            protected.add(id(value))
            if public and isinstance(value, type) and value.__flags__ & 512:
                # a class's public tables (calendar.HTMLCalendar.cssclasses,
                # textwrap.TextWrapper.unicode_whitespace_trans): every instance reads the same one
                for attr, table in list(vars(value).items()):
                    if type(table) in read_only and not attr.startswith("_"):
                        try:
                            set_type_attr(value, attr, read_only[type(table)](table))
                        except BaseException:  # a class that refuses its own stores
                            pass
            if (
                kind.__flags__ & 512  # a heap type: a class written in Python
                and not isinstance(value, (type, module_type, types.FunctionType))
                and kind not in read_only
            ):
                frozen = frozen_class(kind)
                if frozen is not None:
                    try:
                        value.__class__ = frozen
                    except BaseException:
                        pass
    for module in modules:
        module.__class__ = FrozenModule


def make_store_guard(protected: set):
    """guard(obj, name) -> obj, or a recorded refusal when obj is a module, a class, a function (or
    anything callable) or an object an allowed module holds: what every record shares."""
    type_, issubclass_, callable_, id_ = type, issubclass, callable, id
    module_type, tname = type(sys), type.__dict__["__name__"].__get__
    audit, perm_error = sys.audit, PermissionError
    str_, len_ = str, len

    def guard(obj, name, functions=True):
        kind = type_(obj)
        if issubclass_(kind, module_type):
            what = "a module"
        elif issubclass_(kind, type_):
            what = "the class " + tname(obj)[:60]
        elif id_(obj) in protected:
            what = "an object of an allowed module"
        elif functions and callable_(obj):
            what = "a function"
        else:
            return obj
        if type_(name) is not str_ or len_(name) > 80:
            name = "?"
        audit("sandbox.frozen", what, name)
        raise perm_error(
            "sandbox: setting the attribute " + name + " of " + what + " is not allowed"
        )

    real_setattr, real_delattr = setattr, delattr

    def guarded_setattr(obj, name, value):
        return real_setattr(guard(obj, name), name, value)

    def guarded_delattr(obj, name):
        return real_delattr(guard(obj, name), name)

    return guard, guarded_setattr, guarded_delattr


def guard_helpers(guard) -> None:
    """``functools.update_wrapper`` (and so ``wraps``) and ``total_ordering`` set attributes on
    what they are given: given a module, a class or an allowed module's object, they refuse (a new
    wrapper, such as ``lru_cache``'s, is still theirs to set). ``ABCMeta.register`` refuses."""
    import functools

    update_wrapper, total_ordering = functools.update_wrapper, functools.total_ordering

    def guarded_update_wrapper(wrapper, *args, **kwargs):
        return update_wrapper(guard(wrapper, "update_wrapper", False), *args, **kwargs)

    def guarded_total_ordering(cls):
        return total_ordering(guard(cls, "total_ordering", False))

    for name, value in (
        ("update_wrapper", guarded_update_wrapper),
        ("total_ordering", guarded_total_ordering),
    ):
        value.__name__ = value.__qualname__ = name
        value.__module__, value.__doc__ = "functools", getattr(functools, name).__doc__
        vars(functools)[name] = value
    # an abstract class's registry (`collections.abc.Sequence.register(dict)`) is shared by
    # every record: every module registered what it needed when it was imported
    import abc

    abc.ABCMeta.register = make_blocker()("abc.ABCMeta.register")


def guarded_code(code: str, filename: str, guard):
    """Compile ``code`` with every attribute store and delete (``x.a = v``, ``del x.a``,
    ``x.a += 1``, ``for x.a in ...``) going through ``guard(x, "a")`` first.

    The guard is a constant of the code objects, not a name, so the code cannot shadow it. Runs
    before the hook is armed (compiling runs nothing).
    """
    import ast

    marker = "rc-guard-" + os.urandom(8).hex()
    tree = ast.parse(code, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            target = node.value
            call = ast.Call(ast.Constant(marker), [target, ast.Constant(node.attr)], [])
            for part in (call, call.func, call.args[1]):
                ast.copy_location(part, target)
            node.value = call
    code_type = type(guarded_code.__code__)

    def swap(code_obj):
        consts = tuple(
            guard if type(c) is str and c == marker else swap(c) if type(c) is code_type else c
            for c in code_obj.co_consts
        )
        return code_obj.replace(co_consts=consts)

    return swap(compile(tree, filename, "exec", dont_inherit=True))
