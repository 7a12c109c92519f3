"""The sandbox's child program: runs untrusted cleaning code in a locked-down interpreter.

Started by ``recursive_cleaner.judge.sandbox`` as ``python -I -S -B -W ignore _child.py``
in a fresh empty directory with an empty environment. Standard library only: it must never
import recursive_cleaner. This file registers its folder as the package ``_rc_sandbox_child``
(the folder's ``__init__`` never runs) and imports the child's modules from it, all before the
lock-down; importing this file as a module has no side effects. The modules, by concern:

    _child_policy    what the child allows (modules, codecs, os functions, environment), limits
    _child_setup     before the lock-down: frames, the parent's lifeline, the toolkit, preloading
    _child_lockdown  root dropped, rlimits, refusing stand-ins, the audit hook, the import guard
    _child_freeze    read-only modules, guarded attribute stores (isolation between records)
    _child_reset     module state put back before every record (isolation between records)
    _child_records   each record run, its error described, its value encoded under the limits
    _child_server    the protocol's child end: the per-batch CPU budget, the batch server
    _child_main      ``main`` (locked down, in the order below) and ``serve_batches`` (trusted)

Protocol. Every message on stdin is a frame: an 8-byte big-endian length and that many bytes.
The first frame is the JSON request::

    {"code": str, "function": str, "nonce": str, "memory_mb": int, "cpu_seconds": int,
     "dict_only": bool,
     "toolkit_dir": str (optional; default: the package root, two folders up),
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
" (line N)"). The parent checks all of this again when it reads a reply (``_reply_check``).

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
(``make_state_reset``); modules, classes, functions and the allowed modules' objects cannot be
changed through an attribute (``freeze_modules``, ``make_store_guard``, ``guarded_code``).
"""

from __future__ import annotations

import os
import sys

__all__ = ["PACKAGE", "main", "serve_batches"]

PACKAGE = "_rc_sandbox_child"
"""The name the child's modules are imported under in the child: never ``recursive_cleaner``."""


def _programs():
    """This folder as the package ``PACKAGE`` (nothing of it runs), and its ``_child_main``."""
    if PACKAGE not in sys.modules:
        package = type(sys)(PACKAGE)
        package.__path__ = [os.path.dirname(os.path.abspath(__file__))]
        sys.modules[PACKAGE] = package
    return __import__(PACKAGE + "._child_main", fromlist=["main"])


def main() -> None:
    """The locked-down child: load the request's code and answer batches (``_child_main.main``)."""
    _programs().main()


def serve_batches(filename: str) -> None:
    """The trusted worker, NOT sandboxed (``_child_main.serve_batches``)."""
    _programs().serve_batches(filename)


if __name__ == "__main__":
    main()
