"""Hostile snippets by family (the AST-bypass families of issue 17), shared by the adversarial
tests.

Each snippet defines ``clean(record)`` and, once it has reached what its family reaches, tries to
read the file named by ``PATH`` (a host file), the ``RC_SECRET`` environment variable, and to import
``socket``.
"""

from __future__ import annotations

D = '"_" * 2'  # a dunder built at run time, so no literal names it

_SINK_SYS = """
    found = {"env": str(sys_.modules["os"].environ.get("RC_SECRET"))}
    try:
        found["socket"] = str(sys_.modules["builtins"].__import__("socket"))
    except BaseException as exc:
        found["socket_error"] = repr(exc)
    found["file"] = sys_.modules["io"].open(PATH).read()
    return found"""

FAMILIES: dict[str, tuple[str, str, str]] = {
    # name: (code, fragment of the AST layer's refusal, what the sandbox does: "refused" (a recorded
    # refusal of
    # open/compile), "blocked" (another recorded refusal, e.g. an interpreter attribute) or
    # "harmless")
    "attrgetter-computed": (
        """import operator

def clean(record):
    d = """
        + D
        + """
    get = lambda name: operator.attrgetter(d + name + d)
    subs = operator.methodcaller(d + "subclasses" + d)(get("base")(get("class")(())))
    wrap = [c for c in subs if get("name")(c) == "_wrap_close"][0]
    g = get("globals")(get("init")(wrap))
    return {"env": str(g["environ"].get("RC_SECRET")), "file": str(g["open"](PATH, 0))}""",
        "needs literal attribute names",
        "refused",
    ),
    "attrgetter-aliased": (
        """from operator import attrgetter as pick

def clean(record):
    d = """
        + D
        + """
    subs = [c for c in pick(d + "base" + d)(pick(d + "class" + d)([])).__subclasses__()]
    warn = [c for c in subs if pick(d + "name" + d)(c) == "catch_warnings"][0]
    real = pick(d + "globals" + d)(pick(d + "init" + d)(warn))[d + "builtins" + d]
    return {"file": real["open"](PATH).read()}""",
        "`pick` needs literal attribute names",
        "refused",
    ),
    "methodcaller-getattribute": (
        """import operator

def clean(record):
    d = """
        + D
        + """
    attr = lambda kind, obj, name: operator.methodcaller(d + "getattribute" + d, obj, d + name + \
d)(kind)
    subs = operator.methodcaller(d + "subclasses" + d)(object)
    wrap = [c for c in subs if "_wrap_close" in str(c)][0]
    g = attr(object, attr(type, wrap, "init"), "globals")
    return {"env": str(g["environ"].get("RC_SECRET")), "file": str(g["open"](PATH, 0))}""",
        "`operator.methodcaller` needs literal attribute names",
        "refused",
    ),
    "typing.sys": (
        """import typing

def clean(record):
    sys_ = typing.sys"""
        + _SINK_SYS,
        "`typing.sys` is the module `sys`, reached through another module",
        "refused",
    ),
    "from-typing-import-sys": (
        """from typing import sys as sys_

def clean(record):"""
        + _SINK_SYS,
        "`from typing import sys` reaches the module `sys`",
        "refused",
    ),
    "collections._sys": (
        """import collections

def clean(record):
    sys_ = collections._sys"""
        + _SINK_SYS,
        "private attribute `._sys`",
        "refused",
    ),
    "from-collections-import-_sys": (
        """from collections import _sys as sys_

def clean(record):"""
        + _SINK_SYS,
        "importing the private name `_sys` from `collections`",
        "refused",
    ),
    "json.codecs": (
        """import json

def clean(record):
    return {"file": json.codecs.open(PATH).read()}""",
        "`json.codecs` is the module `codecs`",
        "refused",
    ),
    "module-as-value": (
        """import typing

def clean(record):
    m = typing
    sys_ = m.sys"""
        + _SINK_SYS,
        "the module `typing` may only be used as `typing.<name>`",
        "refused",
    ),
    "format-built-field": (
        """import typing

def clean(record):
    d = """
        + D
        + """
    text = ("{0." + d + "globals" + d + "[sys].modules[os].environ}").format(typing.cast)
    return {"env": text}""",
        "`.format` is only allowed on a literal format string",
        "harmless",
    ),
    "str.format-unbound": (
        """import typing

def clean(record):
    d = """
        + D
        + """
    return {"env": str.format("{0." + d + "globals" + d + "[sys].modules[os].environ}", \
typing.cast)}""",
        "`.format` is only allowed on a literal format string",
        "harmless",
    ),
    "format_map-built-field": (
        """import typing

def clean(record):
    d = """
        + D
        + """
    return {"env": ("{f." + d + "globals" + d + "[sys].modules[os].environ}").format_map({"f": \
typing.cast})}""",
        "`.format_map` is only allowed on a literal format string",
        "harmless",
    ),
    "format-literal-item-field": (
        """def clean(record):
    return {"env": "{0[a]}".format(record)}""",
        "the format field {0[a]} reaches an attribute or item",
        "harmless",
    ),
    "string.Formatter": (
        """import string
import typing

def clean(record):
    d = """
        + D
        + """
    value, _ = string.Formatter().get_field("0." + d + "globals" + d, (typing.cast,), {})
    return {"env": str(value["sys"].modules["os"].environ)}""",
        "`string.Formatter` is not allowed",
        "harmless",
    ),
    "get_type_hints-eval": (
        """import typing

def holder(x: "op" + "en(" + QUOTED_PATH + ").read()"):
    return x

def clean(record):
    return {"file": str(typing.get_type_hints(holder))}""",
        "`typing.get_type_hints` is not allowed",
        "refused",
    ),
    "singledispatch-eval": (
        """import functools

def base(x):
    return x

def holder(x: "op" + "en(" + QUOTED_PATH + ").read()"):
    return x

def clean(record):
    functools.singledispatch(base).register(holder)
    return record""",
        "`functools.singledispatch` is not allowed",
        "refused",
    ),
    # issue 28: paths through interpreter internals, class patterns, type as a value, shared module
    # state
    "attrgetter-frame-path": (
        """import operator

def clean(record):
    gen = (x for x in [1])
    g = operator.attrgetter("gi_frame.f_back.f_globals")(gen)
    return {"env": str(g["os"].environ.get("RC_SECRET")), "file": g["open"](PATH).read()}""",
        "no private or format attributes, nor interpreter internals",
        "blocked",
    ),
    "match-class-dunder": (
        """def clean(record):
    match record:
        case object(__class__=object(__base__=base)):
            pass
    match base:
        case object(__subclasses__=subs):
            pass
    wrap = [c for c in subs() if "_wrap_close" in str(c)][0]
    match wrap:
        case object(__init__=object(__globals__=g)):
            pass
    return {"env": str(g["environ"].get("RC_SECRET")), "file": str(g["open"](PATH).read())}""",
        "a class pattern may not name the attribute `__class__=`",
        "refused",
    ),
    "type-as-value": (
        """def clean(record):
    make = type
    Holder = make("Holder", (dict,), {"items": lambda self: [("env", "x")]})
    held = Holder(record)
    return {"file": open(PATH).read(), "held": str(list(held.items()))}""",
        "`type` may only be called as `type(value)`",
        "refused",
    ),
    "type-of-a-class": (
        """def clean(record):
    Holder = type(dict)("Holder", (dict,), {})
    return {"file": open(PATH).read(), "held": str(Holder(record))}""",
        "calling what `type(...)` returns is not allowed",
        "refused",
    ),
    "decimal-shared-context": (
        """import decimal

def clean(record):
    ctx = decimal.getcontext()
    ctx.prec = 2
    return {"third": str(decimal.Decimal(1) / 3)}""",
        "`decimal.getcontext` is not allowed",
        "harmless",
    ),
    "module-constant-item-store": (
        """TABLE = {"NY": "New York"}

def clean(record):
    TABLE["NY"] = "changed for every later record"
    return {"state": TABLE["NY"]}""",
        "changing `TABLE['NY']` is not allowed",
        "harmless",
    ),
    "module-constant-mutator": (
        """SEEN = []

def clean(record):
    SEEN.append(record.get("a"))
    return {"seen": len(SEEN)}""",
        "`SEEN.append(...)` changes `SEEN`",
        "harmless",
    ),
}


def snippet(name: str, path: str) -> str:
    """The code of family ``name``, aimed at the file ``path``."""
    return FAMILIES[name][0].replace("QUOTED_PATH", repr(repr(path))).replace("PATH", repr(path))
