"""The sandbox's child program: runs untrusted cleaning code in a locked-down interpreter.

Started by ``recursive_cleaner.judge.sandbox`` as ``python -I -S -B -W ignore _child.py``
in a fresh empty directory with an empty environment. Standard library only: it must never
import recursive_cleaner (importing this file as a module has no side effects).

Protocol. Every message on stdin is a frame: an 8-byte big-endian length and that many bytes.
The first frame is the JSON request::

    {"code": str, "function": str, "nonce": str, "memory_mb": int, "cpu_seconds": int,
     "dict_only": bool,
     "toolkit_dir": str (optional; default: the package root, this file's parent folder),
     "watch_fd": int|null (optional; a pipe only the parent writes to: a thread ends the child
                           when it closes; null when the kernel does that, by SIGIO),
     "max_output_chars": int (optional; default MAX_OUTPUT_CHARS)}

Each further frame is one batch: ``J`` + a JSON array of records, or ``L`` + JSONL lines (parsed
here; blank lines ignored; lines that are not UTF-8, not JSON or not an object are skipped
and their 0-based offsets listed). fd 1 (moved off ``sys.stdout``, which goes to /dev/null
with fd 2) carries::

    A                        armed: everything after this ran under the audit hook
    V<hex of UTF-8 text>     one refused operation, written the moment it is refused
    L <nonce> {"error": str|None}            the code is loaded (or why not: then the child ends)
    R <nonce> {"n": int, "size": int, "failed": [[index, str(, line)], ...], "skipped": [line, ...],
               "error": str|None}            one reply per batch, followed by
    <size bytes: n JSON texts (ensure_ascii=False, UTF-8) joined by "\n"; "" where a record failed>
    E <nonce>

until stdin ends or a batch ends in a memory error (exit code ``MEMORY_EXIT`` when it came
outside the code: reading, parsing or writing a batch). The CPU limit applies per batch: before
each, the soft RLIMIT_CPU moves to (CPU used + cpu_seconds) under a one-call permit of the hook.
:func:`serve_batches` speaks the same protocol with NO lock-down (apply's ``trusted=True``).

Output limits (so the parent never has to trust what the code returns): a return value is
encoded to JSON here, and the record *fails* with a readable reason, instead of being sent,
when its JSON is over ``max_output_chars`` characters or nests arrays/objects more than
``MAX_DEPTH`` levels. A float NaN or infinity, which JSON cannot hold, is sent as ``null`` (JSON's
missing value, as the readers turn a DataFrame's NaN into None). Every text the parent receives
from here (an error, a refused operation) is at most ``MESSAGE_CHARS`` characters (plus
" (line N)"). The parent checks all of this again when it reads a reply (sandbox.py).

The environment: the child starts with an empty one (the trusted worker with
``TRUSTED_ENVIRONMENT``, locale and search path only), and ``os.environ`` / ``posix.environ`` are
emptied before any code of the file runs, in both modes.

Order of lock-down: read the request, load ``toolkit.py`` and its ``_toolkit_*.py`` parts from
``toolkit_dir`` as ``recursive_cleaner.toolkit`` under a stub ``recursive_cleaner`` package that
holds nothing else (the real package is never imported), pre-import every allowed module (importing
opens files), drop root to ``nobody``, set rlimits, replace the os/posix/_signal/resource functions
and _imp's module loaders by stand-ins whose every call is a recorded refusal (some, such as
os.pidfd_open or os.write, raise no audit event), make the allowed modules read-only, compile the
untrusted code with every attribute store guarded, arm the default-deny audit hook, and only then
run it. Everything the trusted code uses after arming is bound to locals first, so the untrusted
code cannot monkeypatch it into leaking the nonce or widening the hook.

No record sees an earlier one (issue 43): once the code is loaded, its module-level state (names,
the containers they reach, its functions' defaults) is noted, and put back before every record
(``_make_state_reset``); modules, classes, functions and the allowed modules' objects cannot be
changed through an attribute (``_freeze_modules``, ``_make_store_guard``, ``_guarded_code``).
"""

from __future__ import annotations

import builtins
import codecs
import gc
import json
import os
import resource
import sys

__all__ = [
    "ALLOWED_MODULES",
    "CODE_FILENAME",
    "MEMORY_EXIT",
    "TOOLKIT",
    "MAX_DEPTH",
    "MAX_OUTPUT_CHARS",
    "MESSAGE_CHARS",
    "TRUSTED_ENVIRONMENT",
    "make_depth_check",
    "main",
    "serve_batches",
]

MAX_DEPTH = 100
"""How deep a returned value may nest lists and dicts (a record is depth 1)."""
MAX_OUTPUT_CHARS = 16 << 20
"""Default cap on one returned value's JSON text, in characters."""
MESSAGE_CHARS = 500
"""Cap on any text sent to the parent: an exception's message, a refused operation."""

TOOLKIT = "recursive_cleaner.toolkit"
"""The library's tested helpers for generated code; in the child, loaded by path (see
_load_toolkit)."""

ALLOWED_MODULES = frozenset(
    {
        "__future__",
        "base64",
        "binascii",
        "bisect",
        "calendar",
        "collections",
        "collections.abc",
        "copy",
        "datetime",
        "decimal",
        "difflib",
        "fractions",
        "functools",
        "hashlib",
        "heapq",
        "html",
        "ipaddress",
        "itertools",
        "json",
        "math",
        "numbers",
        "operator",
        "re",
        "statistics",
        "string",
        "textwrap",
        "time",
        "typing",
        "unicodedata",
        TOOLKIT,
    }
)
"""Modules generated code may import; each is imported before the audit hook is armed."""

# Harmless helpers that C code imports on the caller's behalf (datetime.strptime imports
# _strptime through the calling frame's __import__, which is the guarded one).
_INTERNAL_MODULES = frozenset(
    {"_strptime", "copyreg", "encodings", "locale", "_locale", "warnings"}
)
_CODECS = (
    "utf-8",
    "utf-8-sig",
    "utf-16",
    "utf-16-le",
    "utf-16-be",
    "utf-32",
    "ascii",
    "latin-1",
    "cp1252",
    "cp1250",
    "cp437",
    "cp850",
    "iso8859-15",
    "mac-roman",
    "idna",
    "punycode",
    "unicode-escape",
    "raw-unicode-escape",
    "charmap",
)
CODE_FILENAME = "<cleaning_code>"
# exit code: out of memory outside the code (a batch too large to read, parse or write)
MEMORY_EXIT = 4
_NOBODY = 65534
_OS_KEEP = frozenset(
    {"fspath", "fsencode", "fsdecode", "strerror", "urandom", "getpid", "cpu_count"}
)
_IMP_DROP = (
    "create_builtin",
    "create_dynamic",
    "exec_builtin",
    "exec_dynamic",
    "init_frozen",
    "get_frozen_object",
    "find_frozen",
    "_override_frozen_modules_for_tests",
    "_override_multi_interp_extensions_check",
)
_PEEK_ATTRS = frozenset({"tb_frame", "f_code", "__defaults__", "__kwdefaults__"})
TRUSTED_ENVIRONMENT = (
    "PATH",
    "HOME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_NUMERIC",
    "LC_TIME",
    "LC_COLLATE",
    "LC_MONETARY",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "PYTHONPATH",
)
"""The variables the trusted worker is started with (no secrets: no keys, tokens or passwords)."""
_ALWAYS_OK = frozenset({"builtins.id"})


def _make_frame_reader(fd: int):
    """read_frame() -> the next length-prefixed frame on fd, or None at end of input."""
    read, join, from_bytes, len_ = os.read, b"".join, int.from_bytes, len

    def read_exact(n: int):
        parts = []
        while n > 0:
            chunk = read(fd, n if n < 1 << 20 else 1 << 20)
            if not chunk:
                return None
            parts.append(chunk)
            n -= len_(chunk)
        return join(parts)

    def read_frame():
        head = read_exact(8)
        return None if head is None or len_(head) != 8 else read_exact(from_bytes(head, "big"))

    return read_frame


def _watch_parent(fd) -> None:
    """Exit at once when the parent is gone: a thread waits on fd, whose only write end the parent
    holds.

    Nothing is ever written to that pipe, so the read returns only at its end, when the parent
    exits or is killed; a child sleeping in generated code then goes with it (the CPU limit
    would never stop a sleep). Started before the lock-down, with its functions bound now.
    """
    if type(fd) is not int:
        return
    import _thread

    read, exit_ = os.read, os._exit

    def watch() -> None:
        try:
            while read(fd, 1):
                pass
        finally:
            exit_(70)

    old = _thread.stack_size(1 << 18)  # a small stack: it counts against the address-space limit
    try:
        _thread.start_new_thread(watch, ())
    finally:
        _thread.stack_size(old)


# in import order
_TOOLKIT_PARTS = (
    "_toolkit_data",
    "_toolkit_dates",
    "_toolkit_numbers",
    "_toolkit_units",
    "_toolkit_text",
)


def _load_toolkit(folder: str) -> None:
    """Register toolkit.py (and the _toolkit_*.py modules it imports) as recursive_cleaner.toolkit.

    The package ``recursive_cleaner`` is a stub whose only attribute is ``toolkit``: importing the
    real package would pull in the whole library. The parts are dropped from sys.modules once the
    toolkit holds their tables and parsers.
    """
    module_type, package_name = type(sys), TOOLKIT.partition(".")[0]
    package = module_type(package_name, None)
    sys.modules[package_name] = package
    for name in (*_TOOLKIT_PARTS, "toolkit"):
        path = os.path.join(folder, name + ".py")
        with open(path, "rb") as file:
            source = file.read()
        module = module_type(package_name + "." + name)
        module.__file__, module.__package__ = path, package_name
        sys.modules[module.__name__] = module
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    for name in _TOOLKIT_PARTS:
        del sys.modules[package_name + "." + name]
    package.toolkit = sys.modules[TOOLKIT]


def _preload(toolkit_dir: str | None = None) -> None:
    """Import and warm up everything allowed code may touch, while opening files is still
    allowed."""
    _load_toolkit(toolkit_dir or os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for name in sorted(ALLOWED_MODULES | _INTERNAL_MODULES):
        __import__(name)
    for encoding in _CODECS:
        codecs.lookup(encoding)
    import datetime, decimal, hashlib, html, time, unicodedata  # noqa: E401 (already loaded)
    import ast  # noqa: F401 (the child compiles the code with it: _guarded_code)

    datetime.datetime.strptime("2000-01-31 12:30:00", "%Y-%m-%d %H:%M:%S")
    time.strptime("2000", "%Y")
    time.strftime("%c %x %X %Z")
    "x".encode("idna")
    for algo in ("md5", "sha1", "sha256"):
        hashlib.new(algo, b"x").hexdigest()
    decimal.Decimal("1.25").quantize(decimal.Decimal("0.1"))
    html.unescape("&amp;&eacute;")
    unicodedata.normalize("NFKD", "\u00e9")


def _clear_environment() -> None:
    """Empty ``os.environ`` and ``posix.environ``: the code run here finds no environment to read or
    copy."""
    import posix

    os.environ.clear()  # unsetenv for each, while it is still allowed
    posix.environ.clear()


def _lock_down(memory_mb: int, cpu_seconds: int, top_fd: int) -> None:
    """Drop root, set the rlimits, and replace process, signal and fd functions of loaded modules by
    refusals."""
    if os.geteuid() == 0:
        try:
            os.setgroups([])
            os.setgid(_NOBODY)
            os.setuid(_NOBODY)
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

    blocked = _make_blocker()
    for module in (os, posix, _signal, resource):
        for name, value in list(vars(module).items()):
            if (
                callable(value)
                and not isinstance(value, type)
                and name not in _OS_KEEP
                and not name.startswith("__")
            ):
                setattr(module, name, blocked(module.__name__ + "." + name))
    for name in _IMP_DROP:
        if hasattr(_imp, name):
            setattr(_imp, name, blocked("_imp." + name))


def _make_blocker():
    """Make stand-ins for removed functions: calling one is a refused, recorded operation."""
    audit = sys.audit

    def blocked(qualname: str):
        def refuse(*args, **kwargs):
            audit("sandbox.blocked", qualname, args)

        refuse.__name__ = refuse.__qualname__ = qualname.rpartition(".")[2]
        return refuse

    return blocked


def _make_hook(out_fd: int, permits: list):
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
    peek_attrs, always_ok, limit = _PEEK_ATTRS, _ALWAYS_OK, MESSAGE_CHARS

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


def _make_import_guard():
    """An __import__ for the untrusted code that only hands out allowed modules."""
    real_import, audit, type_, str_ = __import__, sys.audit, type, str
    allowed = ALLOWED_MODULES | _INTERNAL_MODULES

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if type_(name) is not str_ or level != 0 or name not in allowed:
            audit("sandbox.import", name if type_(name) is str_ else "?")
        return real_import(name, globals, locals, fromlist, level)

    return guarded_import


# ---- isolation between records: frozen modules, guarded attribute stores, state put back ----
# The code's module-level names and what they hold, its functions' defaults and the decimal
# context are put back before every record (_make_state_reset); modules, classes, functions and
# the allowed modules' own objects cannot be changed through an attribute (_freeze_modules,
# _make_store_guard, _guarded_code); the allowed modules' public lists, dicts and sets are
# read-only. So no record's output depends on the records before it.
_FROZEN_EXTRA = ("builtins", "recursive_cleaner")


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


def _freeze_modules(protected: set) -> None:
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
    names = sorted(ALLOWED_MODULES | _INTERNAL_MODULES | frozenset(_FROZEN_EXTRA) | subs)
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


def _make_store_guard(protected: set):
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


def _guard_helpers(guard) -> None:
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

    abc.ABCMeta.register = _make_blocker()("abc.ABCMeta.register")


def _guarded_code(code: str, filename: str, guard):
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
    code_type = type(_guarded_code.__code__)

    def swap(code_obj):
        consts = tuple(
            guard if type(c) is str and c == marker else swap(c) if type(c) is code_type else c
            for c in code_obj.co_consts
        )
        return code_obj.replace(co_consts=consts)

    return swap(compile(tree, filename, "exec", dont_inherit=True))


def _make_state_reset(namespace: dict, protected: set, permits: list, template):
    """reset() puts back, before each record, what the code's module-level names held at load.

    The names themselves, and in place every list, dict, set and bytearray they reach (through
    tuples, containers, the defaults of the code's functions, their ``__dict__`` and closure
    cells), and, when the code reaches the decimal module, the decimal context (as ``template``,
    taken before the code ran). Returns (reset, None), or (None, why) when a module-level
    name holds an object whose state cannot be put back (an iterator, an instance): the code is
    then refused. Runs after the code is loaded, reading functions' defaults under a permit.
    """
    import decimal
    import types
    import re

    atoms = frozenset(
        {type(None), bool, int, float, complex, str, bytes, type(...), re.Pattern, range}
    )
    module_type, function_type, cell_type = types.ModuleType, types.FunctionType, types.CellType
    tname = type.__dict__["__name__"].__get__
    snapshot = dict(namespace)
    lists, dicts, sets, arrays, cells, seen = [], [], [], [], [], set()
    decimal_ids, reaches_decimal = {id(v) for v in vars(decimal).values()}, False
    todo = [(name, value) for name, value in snapshot.items() if name != "__builtins__"]
    was_enabled = gc.isenabled()
    gc.disable()  # no untrusted __del__ runs while the permit is open
    permits[2] = 1
    try:
        while todo:
            where, obj = todo.pop()
            kind = type(obj)
            if kind in atoms or id(obj) in seen:
                continue
            seen.add(id(obj))
            if kind is tuple or kind is frozenset:
                todo.extend((where, item) for item in obj)
            elif kind is list:
                lists.append((obj, list(obj)))
                todo.extend((where, item) for item in obj)
            elif kind is dict:
                dicts.append((obj, dict(obj)))
                todo.extend((where, item) for pair in obj.items() for item in pair)
            elif kind is set:
                sets.append((obj, frozenset(obj)))
                todo.extend((where, item) for item in obj)
            elif kind is bytearray:
                arrays.append((obj, bytes(obj)))
            elif issubclass(kind, module_type) or id(obj) in protected:
                reaches_decimal = reaches_decimal or obj is decimal or id(obj) in decimal_ids
                continue
            elif kind is function_type and obj.__globals__ is namespace:
                todo.extend((where, item) for item in obj.__defaults__ or ())
                kwdefaults = obj.__kwdefaults__
                if kwdefaults is not None:
                    todo.append((where, kwdefaults))
                todo.append((where, obj.__dict__))
                for cell in obj.__closure__ or ():
                    try:
                        value = cell.cell_contents
                    except ValueError:  # empty cell
                        continue
                    cells.append((cell, value))
                    todo.append((where, value))
            else:
                return None, (
                    "ValueError: the module-level name "
                    + repr(where)[:80]
                    + " holds a "
                    + tname(kind)[:60]
                    + " object, whose state would carry from one record to the next; create it "
                    "inside the function"
                )
    finally:
        permits[2] = 0
        if was_enabled:
            gc.enable()
    whole = slice(None)
    ns_clear, ns_update = namespace.clear, namespace.update
    list_set, list_clear, dict_clear, dict_update, set_clear, set_update = (
        list.__setitem__,
        list.clear,
        dict.clear,
        dict.update,
        set.clear,
        set.update,
    )
    array_set, cell_set = bytearray.__setitem__, cell_type.cell_contents.__set__

    def refill_list(obj, items) -> None:
        list_set(obj, whole, items)

    def refill_dict(obj, items) -> None:
        dict_clear(obj)
        dict_update(obj, items)

    def refill_set(obj, items) -> None:
        set_clear(obj)
        set_update(obj, items)

    def refill_array(obj, data) -> None:
        array_set(obj, whole, data)

    # (refill, container, its contents at load), and the containers that were empty (cleared)
    refills, empties = [], []
    for refill, clear, pairs in (
        (refill_list, list_clear, lists),
        (refill_dict, dict_clear, dicts),
        (refill_set, set_clear, sets),
        (refill_array, None, arrays),
    ):
        for obj, items in pairs:
            if items or clear is None:
                refills.append((refill, obj, items))
            else:
                empties.append((clear, obj))
    refills += [(cell_set, cell, value) for cell, value in cells]
    setcontext, context_copy = decimal.setcontext, decimal.Context.copy
    names, count, list_, len_ = list(snapshot), len(snapshot), list, len

    def reset() -> None:
        ns_update(snapshot)  # values put back in place: the globals' lookup caches stay valid
        if len_(namespace) != count or list_(namespace) != names:
            ns_clear()
            ns_update(snapshot)
        for refill, obj, items in refills:
            refill(obj, items)
        for clear, obj in empties:
            if obj:
                clear(obj)
        if reaches_decimal:  # only the decimal module changes the decimal context
            setcontext(context_copy(template))

    return reset, None


def _make_describer(permits: list, filename: str):
    """describe() -> (text, is_memory_error) for the exception being handled; runs no untrusted code
    while peeking."""
    exc_info, type_, str_, int_, streq, len_ = sys.exc_info, type, str, int, str.__eq__, len
    # a class's own name, without running a metaclass property
    tname = type.__dict__["__name__"].__get__
    base_exc, memory_error, limit = BaseException, MemoryError, MESSAGE_CHARS
    syntax_errors = (SyntaxError, IndentationError, TabError)
    gc_disable, gc_enable, gc_isenabled = gc.disable, gc.enable, gc.isenabled

    def describe_exception() -> tuple:
        tb = exc_info()[2]
        line = None
        was_enabled = gc_isenabled()
        gc_disable()  # no collection, hence no untrusted __del__, while the peek is allowed
        permits[2] = 1
        try:
            while tb is not None:
                if streq(filename, tb.tb_frame.f_code.co_filename) is True:
                    line = tb.tb_lineno
                tb = tb.tb_next
        finally:
            permits[2] = 0
            if was_enabled:
                gc_enable()
        exc = exc_info()[1]
        kind = type_(exc)
        if kind in syntax_errors:
            message, line = exc.msg, exc.lineno
        else:
            try:
                message = str_(exc)
            except base_exc:
                message = "<unprintable message>"
        name = tname(kind)
        if len_(name) > 100:  # a class made with type(name, ...) names itself
            name = name[:97] + "..."
        if type_(message) is not str_:
            message = "<unprintable message>"
        elif len_(message) > limit:
            message = message[:limit]
        text = name + ": " + message if message else name
        if len_(text) > limit:
            text = text[: limit - 3] + "..."
        if type_(line) is int_ and 0 <= line < 1 << 31:
            text = text + " (line " + str_(line) + ")"
        return text, kind is memory_error

    return describe_exception


def main() -> None:
    request = json.loads(_make_frame_reader(0)())
    _watch_parent(request.get("watch_fd"))
    code, function_name, nonce = (
        request["code"],
        request["function"],
        request["nonce"].encode("ascii"),
    )
    memory_mb, cpu_seconds = int(request["memory_mb"]), int(request["cpu_seconds"])
    dict_only, toolkit_dir = bool(request.get("dict_only")), request.get("toolkit_dir")
    max_chars = int(request.get("max_output_chars") or MAX_OUTPUT_CHARS)
    del request
    _preload(toolkit_dir)
    _clear_environment()
    out_fd, in_fd = os.dup(1), os.dup(0)
    null_fd = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null_fd, fd)
    os.close(null_fd)

    # Everything used after arming, bound now: the untrusted code may rewrite module globals.
    write, exit_, exec_, callable_, repr_ = (
        os.write,
        os._exit,
        exec,
        callable,
        repr,
    )
    base_exc, memory_error, memory_exit, filename = (
        BaseException,
        MemoryError,
        MEMORY_EXIT,
        CODE_FILENAME,
    )
    # no compile (the code is compiled before arming), one exec (ours), the peek switch (traceback,
    # functions' defaults), one setrlimit
    permits = [0, 1, 0, 0]
    describe_exception = _make_describer(permits, filename)
    memory_text = "memory limit " + str(memory_mb) + " MB exceeded"
    resets: list = [None]  # the state reset, once the code is loaded
    run_records = _make_runner(describe_exception, memory_text, dict_only, max_chars, resets)
    serve = _make_server(
        _make_frame_reader(in_fd),
        out_fd,
        nonce,
        run_records,
        _make_cpu_budget(cpu_seconds, permits),
    )

    protected: set = set()  # ids of what every record shares: filled by _freeze_modules
    guard, guarded_setattr, guarded_delattr = _make_store_guard(protected)
    builtins_ns = dict(vars(builtins))
    builtins_ns["__import__"] = _make_import_guard()
    builtins_ns["setattr"], builtins_ns["delattr"] = guarded_setattr, guarded_delattr
    namespace = {"__name__": "cleaning_code", "__builtins__": builtins_ns}
    hook = _make_hook(out_fd, permits)
    _lock_down(memory_mb, cpu_seconds, max(out_fd, in_fd))
    _guard_helpers(guard)
    _freeze_modules(protected)
    import decimal

    decimal_template = decimal.getcontext().copy()
    load_error = code_object = function = None
    try:  # compiled before arming (compiling runs nothing): the guard goes in as a constant
        code_object = _guarded_code(code, filename, guard)
    except base_exc:
        load_error, is_memory = describe_exception()
        if is_memory:
            load_error = memory_text
    write(out_fd, b"A\n")
    sys.addaudithook(hook)
    del hook

    # ---- armed: from here on the hook refuses anything outside the permits ----
    try:
        try:
            if load_error is None:
                exec_(code_object, namespace)
                function = namespace.get(function_name)
                if function is None:
                    load_error = "NameError: the code does not define a function named " + repr_(
                        function_name
                    )
                elif not callable_(function):
                    load_error = "TypeError: " + repr_(function_name) + " is not a function"
                else:
                    resets[0], load_error = _make_state_reset(
                        namespace, protected, permits, decimal_template
                    )
        except base_exc:
            load_error, is_memory = describe_exception()
            if is_memory:
                load_error = memory_text
        serve(function, load_error)
    except memory_error:  # reading, parsing or writing a batch: the parent names the memory limit
        exit_(memory_exit)
    except base_exc:
        exit_(3)
    exit_(0)


def _make_runner(
    describe,
    memory_text: str,
    dict_only: bool,
    max_chars: int = MAX_OUTPUT_CHARS,
    resets: list | None = None,
):
    """run(function, records) -> (JSON texts, [[index, error], ...], run_error); "" where a record
    failed.

    A return value is sent only as JSON of at most ``max_chars`` characters nested at most
    ``MAX_DEPTH`` deep (otherwise the record fails), NaN and infinities as null (see the module
    docstring). ``resets[0]``, when set, runs before each record (``_make_state_reset``).
    """
    resets = resets if resets is not None else [None]
    str_, type_, len_, range_, isinstance_, dict_ = str, type, len, range, isinstance, dict
    tname, base_exc, exc_info = type.__dict__["__name__"].__get__, BaseException, sys.exc_info
    recursion_error, value_error, type_error, memory_error = (
        RecursionError,
        ValueError,
        TypeError,
        MemoryError,
    )
    dumps, too_deep, depth = _make_utf8_dumps(), make_depth_check(MAX_DEPTH), str(MAX_DEPTH)
    too_deep_text = (
        "ValueError: the return value nests lists/dicts more than " + depth + " levels deep"
    )

    def kind_name(value) -> str:
        name = tname(type_(value))
        return name if len_(name) <= 60 else name[:57] + "..."

    key_text, str_only, set_, map_ = _json_key_text, frozenset((str_,)), set, map

    def twice_named(value) -> str | None:
        """A record with keys 1 and "1" (or None and "null", two NaN) would be written with one
        field twice."""
        # the usual record: no conversion, no clash (C speed)
        if set_(map_(type_, value)) <= str_only:
            return None
        seen = set_()
        for key in value:
            text = key_text(key)
            if text in seen:
                return (
                    "ValueError: the returned record has two fields named "
                    + repr(text)[:80]
                    + " once written as JSON, which turns a "
                    + kind_name(key)
                    + " key into a string; return one, with string keys"
                )
            seen.add(text)
        return None

    def unserialisable(value) -> str:
        """Why dumps(value) failed; only the library's own exceptions are read (str() of a
        built-in)."""
        exc = exc_info()[1]
        kind = type_(exc)
        if kind is recursion_error:
            return too_deep_text
        if kind is memory_error:
            return "MemoryError: the return value is too large to encode"
        why = "?"
        if kind is value_error or kind is type_error:
            # e.g. "Object of type set is not JSON serializable", "Out of range float values ..."
            try:
                why = str_(exc)[:150]
            except base_exc:
                pass
        return (
            "TypeError: the return value is not JSON-serialisable ("
            + kind_name(value)
            + "): "
            + why
        )

    def run(function, records: list) -> tuple:
        texts, failed, run_error = [], [], None
        append, fail = texts.append, failed.append
        reset = resets[0]
        for index in range_(len_(records)):
            if reset is not None:
                try:
                    reset()
                except base_exc:  # the state could not be put back: no further record runs
                    run_error = describe()[0]
                    break
            try:
                value = function(records[index])
            except base_exc:
                text, is_memory = describe()
                fail([index, text])
                append("")
                if is_memory:
                    run_error = memory_text
                    break
                continue
            try:
                if dict_only and not isinstance_(value, dict_):
                    fail([index, "TypeError: returned " + kind_name(value) + ", expected a dict"])
                    append("")
                    continue
                clash = twice_named(value) if type_(value) is dict_ else None
                if clash is not None:
                    fail([index, clash])
                    append("")
                    continue
                text = dumps(value)
            except base_exc:
                try:
                    fail([index, unserialisable(value)])
                except base_exc:
                    fail([index, "TypeError: the return value is not JSON-serialisable"])
                append("")
                continue
            value = None
            if len_(text) > max_chars:
                fail(
                    [
                        index,
                        "ValueError: the return value is too large ("
                        + str_(len_(text))
                        + " characters of JSON;"
                        " the limit is " + str_(max_chars) + ")",
                    ]
                )
                append("")
            elif too_deep(text):
                fail([index, too_deep_text])
                append("")
            else:
                append(text)
        return texts, failed, run_error

    return run


def _make_cpu_budget(cpu_seconds: int, permits: list):
    """before_batch(): move the soft CPU limit to (CPU used so far + cpu_seconds), under a
    permit."""
    import time

    setrlimit, process_time, int_ = resource.setrlimit, time.process_time, int
    cpu, hard = resource.RLIMIT_CPU, resource.RLIM_INFINITY

    def before_batch() -> None:
        permits[3] = 1
        try:
            setrlimit(cpu, (int_(process_time() + 0.5) + cpu_seconds, hard))
        finally:
            permits[3] = 0

    return before_batch


def _make_server(read_frame, out_fd: int, nonce: bytes, run_records, before_batch):
    """serve(function, load_error): report the load, then answer each batch frame until input
    ends."""
    write, loads, dumps, join_text, join_bytes = (
        os.write,
        json.loads,
        json.dumps,
        "\n".join,
        b"".join,
    )
    encode, decode, len_, enumerate_, type_, dict_ = (
        str.encode,
        bytes.decode,
        len,
        enumerate,
        type,
        dict,
    )
    unicode_error, parse_errors, strip = UnicodeEncodeError, (ValueError, RecursionError), str.strip
    blank = " \t\r\x0b\x0c"  # what bytes.strip() removes: parsers' test for a blank line
    scan, json_space, not_scanned = (
        json.JSONDecoder().scan_once,
        " \t\r\n",
        (ValueError, RecursionError, StopIteration),
    )

    def send(data: bytes) -> None:
        while data:
            data = data[write(out_fd, data) :]

    def parse_lines(data: bytes) -> tuple:
        """JSONL lines -> (records, line of each record, lines skipped as not UTF-8 / not JSON / not
        an object)."""
        try:
            lines = decode(data, "utf-8").split("\n")
        except ValueError:
            lines = []
            for raw in data.split(b"\n"):
                try:
                    lines.append(decode(raw, "utf-8"))
                except ValueError:
                    lines.append(None)
        records, line_of, skipped = [], [], []
        for offset, line in enumerate_(lines):
            if line is None:
                skipped.append(offset)
                continue
            # the scanner alone is faster; json.loads decides whenever the line is not one whole
            # value
            try:
                value, end = scan(line, 0)
            except not_scanned:
                end = -1
            if end != len_(line) and (end < 0 or strip(line[end:], json_space)):
                try:
                    value = loads(line)
                except parse_errors:
                    if strip(line, blank):  # blank lines are ignored, as parsers does
                        skipped.append(offset)
                    continue
            if type_(value) is dict_:
                records.append(value)
                line_of.append(offset)
            else:
                skipped.append(offset)
        return records, line_of, skipped

    def serve(function, load_error: str | None) -> None:
        send(
            join_bytes((b"\nL ", nonce, b" ", encode(dumps({"error": load_error}), "ascii"), b"\n"))
        )
        while load_error is None:
            frame = read_frame()
            if frame is None:
                return
            before_batch()
            # raw JSONL lines (apply's fast path); else b"J" + a JSON array of records
            if frame[:1] == b"L":
                records, line_of, skipped = parse_lines(frame[1:])
            else:
                records, line_of, skipped = loads(frame[1:]), None, []
            texts, failed, load_error = run_records(function, records)
            if line_of is not None:
                for item in failed:
                    item.append(line_of[item[0]])
            try:
                data = encode(join_text(texts), "utf-8")
            except unicode_error:  # lone surrogates: those records go out as ASCII JSON instead
                for index, text in enumerate_(texts):
                    try:
                        encode(text, "utf-8")
                    except unicode_error:
                        texts[index] = dumps(loads(text))
                data = encode(join_text(texts), "utf-8")
            head = b'{"n":%d,"size":%d,"failed":' % (len_(texts), len_(data)) + encode(
                dumps(failed)
                + ',"skipped":'
                + dumps(skipped)
                + ',"error":'
                + dumps(load_error)
                + "}",
                "ascii",
            )
            send(join_bytes((b"\nR ", nonce, b" ", head, b"\n", data, b"\nE ", nonce, b"\n")))

    return serve


def _json_key_text(key) -> str:
    """The name json.dumps writes for a dict key (it converts bool, None, int and float keys)."""
    if type(key) is str or isinstance(key, str):
        return str(key)
    if key is True or key is False or key is None:
        return "true" if key is True else "false" if key is False else "null"
    if isinstance(key, float):
        return (
            "NaN"
            if key != key
            else "Infinity"
            if key == float("inf")
            else "-Infinity"
            if key == -float("inf")
            else float.__repr__(key)
        )
    # json refuses others anyway
    return int.__repr__(key) if isinstance(key, int) else "?" + str(id(key))


def _make_utf8_dumps():
    """json.dumps(value, ensure_ascii=False) with NaN and infinities as null; the C encoder is built
    once."""
    import re
    from json.encoder import c_make_encoder, encode_basestring

    if c_make_encoder is None:  # a Python without the C accelerator
        encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
    else:
        encoder = c_make_encoder(
            None,
            json.JSONEncoder().default,
            encode_basestring,
            None,
            ": ",
            ", ",
            False,
            False,
            True,
        )
        join = "".join

        def encode(value) -> str:
            return join(encoder(value, 0))

    # In the encoder's output a string is always complete, so this pattern never backtracks.
    constants = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?Infinity|NaN', re.DOTALL).sub

    def as_null(match) -> str:
        text = match.group()
        return text if text[0] == '"' else "null"

    def dumps(value) -> str:
        text = encode(value)
        if "NaN" in text or "Infinity" in text:
            text = constants(as_null, text)
        return text

    return dumps


def make_depth_check(limit: int):
    """too_deep(text) -> whether a JSON text (str or bytes) nests arrays/objects more than ``limit``
    deep.

    Linear in the text, no recursion: escapes are blanked, then strings, then everything but
    brackets is removed and the running depth summed. For a text json.loads accepts, the depth
    found is exactly the nesting json.loads would recurse through; for any other text it is at
    least the nesting json.loads reaches before it fails. Texts with at most ``limit`` opening
    brackets are answered by two counts.
    """
    import itertools
    import re

    accumulate, max_, map_, type_, bytes_, str_ = itertools.accumulate, max, map, type, bytes, str
    # per type: '[', '{', then (pattern.sub, replacement) for escapes, strings, all but brackets;
    # step
    forms = {
        str_: (
            "[",
            "{",
            (
                (re.compile(r"\\.", re.DOTALL).sub, "_"),
                (re.compile(r'"[^"]*"').sub, ""),
                (re.compile(r"[^\[\]{}]+").sub, ""),
            ),
            {"[": 1, "{": 1, "]": -1, "}": -1}.__getitem__,
        ),
        bytes_: (
            b"[",
            b"{",
            (
                (re.compile(rb"\\.", re.DOTALL).sub, b"_"),
                (re.compile(rb'"[^"]*"').sub, b""),
                (re.compile(rb"[^\[\]{}]+").sub, b""),
            ),
            tuple(1 if b in b"[{" else -1 for b in range(256)).__getitem__,
        ),
    }

    def too_deep(text) -> bool:
        square, curly, passes, step = forms[bytes_ if type_(text) is bytes_ else str_]
        if text.count(square) + text.count(curly) <= limit:
            return False
        for sub, replacement in passes:
            text = sub(replacement, text)
        return max_(accumulate(map_(step, text)), default=0) > limit

    return too_deep


def serve_batches(filename: str) -> None:
    """Trusted mode (apply with trusted=True), NOT sandboxed: the protocol on stdin/stdout, the code
    a plain module."""
    import types

    in_fd, out_fd, null_fd = os.dup(0), os.dup(1), os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null_fd, fd)
    read_frame = _make_frame_reader(in_fd)
    request = json.loads(read_frame())
    _watch_parent(request.get("watch_fd"))
    describe = _make_describer([0, 0, 0, 0], filename)
    # the parent starts this process with TRUSTED_ENVIRONMENT only; none of it is shown
    _clear_environment()
    module = types.ModuleType("cleaning_functions")
    module.__file__ = filename
    sys.modules[module.__name__] = module
    name, function, error = request["function"], None, None
    try:
        exec(compile(request["code"], filename, "exec", dont_inherit=True), module.__dict__)
        function = module.__dict__.get(name)
        if function is None:
            error = "NameError: the code does not define a function named " + repr(name)
        elif not callable(function):
            error = "TypeError: " + repr(name) + " is not a function"
    except BaseException:
        error = describe()[0]
    os.dup2(null_fd, 2)
    run_records = _make_runner(describe, "MemoryError", bool(request.get("dict_only")))
    _make_server(read_frame, out_fd, request["nonce"].encode("ascii"), run_records, lambda: None)(
        function, error
    )


if __name__ == "__main__":
    main()
