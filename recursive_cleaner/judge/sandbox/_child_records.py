"""The sandbox child runs records: each through the function, its exception described, its return
value encoded to JSON under the output limits (``max_output_chars``, ``MAX_DEPTH``; NaN and
infinities as null), a record whose keys would be written twice refused.

Standard library only (see ``_child.py``); nothing runs on import.
"""

from __future__ import annotations

import gc
import json
import sys

from ._child_policy import MAX_DEPTH, MAX_OUTPUT_CHARS, MESSAGE_CHARS

__all__ = ["make_depth_check", "make_describer", "make_runner"]


def make_describer(permits: list, filename: str):
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


def make_runner(
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
    docstring). ``resets[0]``, when set, runs before each record (``make_state_reset``).
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
