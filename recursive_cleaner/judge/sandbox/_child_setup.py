"""The sandbox child before its lock-down: reading frames, the lifeline to the parent, the toolkit
loaded by path, every allowed module imported and warmed up, the environment emptied.

Standard library only (see ``_child.py``); nothing runs on import.
"""

from __future__ import annotations

import codecs
import os
import sys

from ._child_policy import ALLOWED_MODULES, CODECS, INTERNAL_MODULES, TOOLKIT, TOOLKIT_PARTS

__all__ = ["clear_environment", "load_toolkit", "make_frame_reader", "preload", "watch_parent"]


def make_frame_reader(fd: int):
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


def watch_parent(fd) -> None:
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


def load_toolkit(folder: str) -> None:
    """Register toolkit.py (and the _toolkit_*.py modules it imports) as recursive_cleaner.toolkit.

    The package ``recursive_cleaner`` is a stub whose only attribute is ``toolkit``: importing the
    real package would pull in the whole library. The parts are dropped from sys.modules once the
    toolkit holds their tables and parsers.
    """
    module_type, package_name = type(sys), TOOLKIT.partition(".")[0]
    package = module_type(package_name, None)
    sys.modules[package_name] = package
    for name in (*TOOLKIT_PARTS, "toolkit"):
        path = os.path.join(folder, name + ".py")
        with open(path, "rb") as file:
            source = file.read()
        module = module_type(package_name + "." + name)
        module.__file__, module.__package__ = path, package_name
        sys.modules[module.__name__] = module
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    for name in TOOLKIT_PARTS:
        del sys.modules[package_name + "." + name]
    package.toolkit = sys.modules[TOOLKIT]


def preload(toolkit_dir: str | None = None) -> None:
    """Import and warm up everything allowed code may touch, while opening files is still
    allowed."""
    if not toolkit_dir:  # the package root, two folders above this file's (judge/sandbox/)
        toolkit_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    load_toolkit(toolkit_dir)
    for name in sorted(ALLOWED_MODULES | INTERNAL_MODULES):
        __import__(name)
    for encoding in CODECS:
        codecs.lookup(encoding)
    import datetime, decimal, hashlib, html, time, unicodedata  # noqa: E401 (already loaded)
    import ast  # noqa: F401 (the child compiles the code with it: guarded_code)

    datetime.datetime.strptime("2000-01-31 12:30:00", "%Y-%m-%d %H:%M:%S")
    time.strptime("2000", "%Y")
    time.strftime("%c %x %X %Z")
    "x".encode("idna")
    for algo in ("md5", "sha1", "sha256"):
        hashlib.new(algo, b"x").hexdigest()
    decimal.Decimal("1.25").quantize(decimal.Decimal("0.1"))
    html.unescape("&amp;&eacute;")
    unicodedata.normalize("NFKD", "\u00e9")


def clear_environment() -> None:
    """Empty ``os.environ`` and ``posix.environ``: the code run here finds no environment to read or
    copy."""
    import posix

    os.environ.clear()  # unsetenv for each, while it is still allowed
    posix.environ.clear()
