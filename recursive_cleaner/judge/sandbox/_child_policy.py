"""What the sandbox child allows, and its limits: the modules generated code may import, the
interpreter's helpers, the codecs warmed up, the os functions kept, the environment of the trusted
worker, the bounds of what the child sends.

Standard library only, no code: the child (``_child.py``) and the parent (the worker, the reply
checks, the AST policy) read the same lists.
"""

from __future__ import annotations

__all__ = [
    "ALLOWED_MODULES",
    "ALWAYS_OK",
    "CODECS",
    "CODE_FILENAME",
    "FROZEN_EXTRA",
    "IMP_DROP",
    "INTERNAL_MODULES",
    "MAX_DEPTH",
    "MAX_OUTPUT_CHARS",
    "MEMORY_EXIT",
    "MESSAGE_CHARS",
    "NOBODY",
    "OS_KEEP",
    "PEEK_ATTRS",
    "TOOLKIT",
    "TOOLKIT_PARTS",
    "TRUSTED_ENVIRONMENT",
]

MAX_DEPTH = 100
"""How deep a returned value may nest lists and dicts (a record is depth 1)."""
MAX_OUTPUT_CHARS = 16 << 20
"""Default cap on one returned value's JSON text, in characters."""
MESSAGE_CHARS = 500
"""Cap on any text sent to the parent: an exception's message, a refused operation."""

TOOLKIT = "recursive_cleaner.toolkit"
"""The library's tested helpers for generated code; in the child, loaded by path (see
``_child_setup.load_toolkit``)."""

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
INTERNAL_MODULES = frozenset({"_strptime", "copyreg", "encodings", "locale", "_locale", "warnings"})
CODECS = (
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
NOBODY = 65534
OS_KEEP = frozenset(
    {"fspath", "fsencode", "fsdecode", "strerror", "urandom", "getpid", "cpu_count"}
)
IMP_DROP = (
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
PEEK_ATTRS = frozenset({"tb_frame", "f_code", "__defaults__", "__kwdefaults__"})
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
ALWAYS_OK = frozenset({"builtins.id"})
"""Audit events the hook always lets through (``id()``: a number, nothing to leak)."""
TOOLKIT_PARTS = (
    "_toolkit_data",
    "_toolkit_dates",
    "_toolkit_numbers",
    "_toolkit_units",
    "_toolkit_text",
)
"""The toolkit's parts, in import order (``_child_setup.load_toolkit``)."""
FROZEN_EXTRA = ("builtins", "recursive_cleaner")
"""Made read-only besides the allowed modules and the interpreter's helpers: builtins and the
toolkit's stub package (``_child_freeze.freeze_modules``)."""
