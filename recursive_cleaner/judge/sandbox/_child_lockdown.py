"""The sandbox child's lock-down: root dropped, rlimits, process/signal/fd functions replaced by
recorded refusals, the default-deny audit hook, the import guard.

Standard library only (see ``_child.py``); nothing runs on import.
"""

from __future__ import annotations

import os
import resource
import sys

from ._child_policy import (
    ALLOWED_MODULES,
    ALWAYS_OK,
    IMP_DROP,
    INTERNAL_MODULES,
    MESSAGE_CHARS,
    NOBODY,
    OS_KEEP,
    PEEK_ATTRS,
)

__all__ = ["lock_down", "make_blocker", "make_hook", "make_import_guard"]


def lock_down(memory_mb: int, cpu_seconds: int, top_fd: int) -> None:
    """Drop root, set the rlimits, and replace process, signal and fd functions of loaded modules by
    refusals."""
    if os.geteuid() == 0:
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        except OSError:
            pass  # best effort; the audit hook still refuses process creation
    limits = {
        resource.RLIMIT_AS: (memory_mb << 20,) * 2,
        # the soft limit moves on per batch
        resource.RLIMIT_CPU: (cpu_seconds, resource.RLIM_INFINITY),
        resource.RLIMIT_FSIZE: (0, 0),
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_NPROC: (0, 0),
        resource.RLIMIT_NOFILE: (top_fd + 1,) * 2,
    }
    for which, value in limits.items():
        resource.setrlimit(which, value)
    import _imp
    import _signal
    import posix

    blocked = make_blocker()
    for module in (os, posix, _signal, resource):
        for name, value in list(vars(module).items()):
            if (
                callable(value)
                and not isinstance(value, type)
                and name not in OS_KEEP
                and not name.startswith("__")
            ):
                setattr(module, name, blocked(module.__name__ + "." + name))
    for name in IMP_DROP:
        if hasattr(_imp, name):
            setattr(_imp, name, blocked("_imp." + name))


def make_blocker():
    """Make stand-ins for removed functions: calling one is a refused, recorded operation."""
    audit = sys.audit

    def blocked(qualname: str):
        def refuse(*args, **kwargs):
            audit("sandbox.blocked", qualname, args)

        refuse.__name__ = refuse.__qualname__ = qualname.rpartition(".")[2]
        return refuse

    return blocked


def make_hook(out_fd: int, permits: list):
    """Build the audit hook: default deny, every refusal written to out_fd before it is raised."""
    write, type_, str_, bytes_, int_, float_, bool_, none_ = (
        os.write,
        type,
        str,
        bytes,
        int,
        float,
        bool,
        type(None),
    )
    tuple_, repr_, len_, tname = tuple, repr, len, type.__dict__["__name__"].__get__
    base_exc, perm_error, import_error = BaseException, PermissionError, ImportError
    peek_attrs, always_ok, limit = PEEK_ATTRS, ALWAYS_OK, MESSAGE_CHARS

    def safe(value) -> str:
        kind = type_(value)
        text = "<" + tname(kind) + ">"
        if (
            kind is str_
            or kind is bytes_
            or kind is int_
            or kind is float_
            or kind is bool_
            or kind is none_
        ):
            try:
                text = repr_(value)
            except base_exc:
                pass
        return text if len_(text) <= 120 else text[:117] + "..."

    def describe(event: str, args: tuple) -> str:
        if type_(event) is not str_:
            event = "<" + tname(type_(event)) + ">"
        # an event name is the code's choice (sys.audit): only its head is reported
        elif len_(event) > 120:
            event = event[:117] + "..."
        if type_(args) is not tuple_:
            return event
        if event in ("import", "sandbox.import") and args:
            return "import " + (args[0][:120] if type_(args[0]) is str_ else safe(args[0]))
        if event == "open" and len_(args) >= 2:
            return "open(" + safe(args[0]) + ("" if args[1] is None else ", " + safe(args[1])) + ")"
        if (
            event == "sandbox.blocked"
            and len_(args) == 2
            and type_(args[0]) is str_
            and type_(args[1]) is tuple_
        ):
            return args[0] + "(" + ", ".join([safe(a) for a in args[1][:4]]) + ")"
        if event == "sandbox.frozen" and len_(args) == 2 and type_(args[0]) is str_:
            name = args[1][:80] if type_(args[1]) is str_ else "?"
            return "setting the attribute " + repr_(name) + " of " + args[0][:120]
        if event == "object.__getattr__" and len_(args) == 2:
            return "access to attribute " + safe(args[1]) + " of a " + tname(type_(args[0]))
        return event + "(" + ", ".join([safe(a) for a in args[:4]]) + ")"

    def hook(event: str, args: tuple) -> None:
        if event in always_ok:
            return
        if event == "compile" and permits[0]:
            permits[0] = 0
            return
        if event == "exec" and permits[1]:
            permits[1] = 0
            return
        if event == "resource.setrlimit" and permits[3]:  # ours: the per-batch CPU limit
            permits[3] = 0
            return
        if (
            event == "object.__getattr__"
            and permits[2]
            and len_(args) == 2
            and type_(args[1]) is str_
        ):
            if args[1] in peek_attrs:
                return
        try:
            text = describe(event, args)
        except base_exc:
            text = "an operation"
        if len_(text) > limit:
            text = text[: limit - 3] + "..."
        write(out_fd, b"\nV" + text.encode("utf-8", "backslashreplace").hex().encode() + b"\n")
        if event in ("import", "sandbox.import"):
            raise import_error("sandbox: " + text + " is not allowed")
        raise perm_error("sandbox: " + text + " is not allowed")

    return hook


def make_import_guard():
    """An __import__ for the untrusted code that only hands out allowed modules."""
    real_import, audit, type_, str_ = __import__, sys.audit, type, str
    allowed = ALLOWED_MODULES | INTERNAL_MODULES

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if type_(name) is not str_ or level != 0 or name not in allowed:
            audit("sandbox.import", name if type_(name) is str_ else "?")
        return real_import(name, globals, locals, fromlist, level)

    return guarded_import
