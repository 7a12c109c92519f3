"""What the parent accepts from a sandbox child: each line, header and output checked before it is
parsed.

The child (``_child.py``) sends JSON texts nested at most ``MAX_DEPTH`` deep with no NaN or
infinity, and messages of at most ``MESSAGE_CHARS``; nothing here assumes it did. A header must
name no more records than were sent, with well-formed failure entries; the output must be one
text per record, empty exactly where a record failed, none nested deeper than ``MAX_DEPTH`` (a
linear scan, no recursion), no bare ``NaN`` / ``Infinity``. Anything else raises
:class:`BadReply`; the worker then fails the batch and kills the child. Texts are clipped
(``errors.clip_text``) as they are read.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from ...errors import clip_text
from ._child_policy import MAX_DEPTH, MESSAGE_CHARS
from ._child_records import make_depth_check

__all__ = [
    "BadReply",
    "TEXT_CHARS",
    "LOAD_TOO_DEEP",
    "HEAD_TOO_DEEP",
    "malformed",
    "parse_line",
    "read_head",
    "check_payload",
    "violation_text",
]

TEXT_CHARS = MESSAGE_CHARS + 20
"""The longest message kept from the child: MESSAGE_CHARS and " (line N)"."""
LOAD_TOO_DEEP = make_depth_check(1)  # {"error": null}
HEAD_TOO_DEEP = make_depth_check(3)  # {"failed": [[index, "error", line]], ...}
_too_deep = make_depth_check(MAX_DEPTH)
_NOT_BRACKET_OR_NEWLINE = bytes(b for b in range(256) if b not in b"[]{}\n")
_CONSTANT = re.compile(rb"NaN|Infinity")


class BadReply(Exception):
    """A reply that breaks the protocol; the message says so."""


def parse_line(text: bytes, limit: int, too_deep: Callable[[bytes], bool]) -> dict[str, Any]:
    """The JSON object on a protocol line; BadReply when it is over ``limit`` bytes, too deep, or no
    object."""
    if len(text) > limit or too_deep(text):
        raise malformed()
    try:
        head = json.loads(text)
    except (ValueError, RecursionError):
        raise malformed() from None
    if not isinstance(head, dict):
        raise malformed()
    return head


def violation_text(line: bytes) -> str:
    """A refused operation as the child reported it (``V`` + hex of UTF-8): clipped, terminal
    escapes removed."""
    try:
        return clip_text(
            bytes.fromhex(line[1 : 1 + 8 * TEXT_CHARS].decode("ascii")).decode("utf-8", "replace"),
            TEXT_CHARS,
        )
    except ValueError:
        return "unreadable violation report"


def malformed() -> BadReply:
    """The one error for a reply that breaks the protocol."""
    return BadReply("malformed reply from the sandbox child")


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def read_head(head: dict, sent: int) -> tuple[int, int, list[tuple], list[int], str | None]:
    """A batch header checked against the batch of ``sent`` records: (n, size, failed, skipped,
    error), texts clipped."""
    n, size, failed, skipped, error = (
        head.get(k) for k in ("n", "size", "failed", "skipped", "error")
    )
    if not (
        _count(n)
        and n <= sent
        and _count(size)
        and isinstance(failed, list)
        and isinstance(skipped, list)
        and len(failed) <= n
        and len(skipped) <= sent
        and (error is None or isinstance(error, str))
    ):
        raise malformed()
    entries = []
    for entry in failed:
        if not (
            isinstance(entry, list)
            and 2 <= len(entry) <= 3
            and _count(entry[0])
            and entry[0] < n
            and isinstance(entry[1], str)
            and all(_count(x) and x < sent for x in entry[2:])
        ):
            raise malformed()
        entries.append((entry[0], clip_text(entry[1], TEXT_CHARS), *entry[2:]))
    if not all(_count(x) and x < sent for x in skipped):
        raise malformed()
    return n, size, entries, skipped, None if error is None else clip_text(error, TEXT_CHARS)


def check_payload(payload: bytes, n: int, failed: list[tuple]) -> None:
    """n JSON texts joined by newlines, empty exactly where a record failed, none too deep, no NaN
    or infinity.

    C-speed passes over the whole payload pick the few texts worth a closer look: one with more
    than MAX_DEPTH brackets (most records have a handful), one holding "NaN" or "Infinity".
    """
    if payload.count(b"\n") != max(0, n - 1) or (n == 0 and payload):
        raise malformed()
    if (
        failed
        or b"\n\n" in payload
        or payload[:1] == b"\n"
        or payload[-1:] == b"\n"
        or (n and not payload)
    ):
        failures = {entry[0] for entry in failed}
        if any(
            (not text) != (index in failures) for index, text in enumerate(payload.split(b"\n"))
        ):
            raise malformed()
    if payload.count(b"[") + payload.count(b"{") > MAX_DEPTH:
        # per text, its brackets only
        brackets = payload.translate(None, _NOT_BRACKET_OR_NEWLINE).split(b"\n")
        if max(map(len, brackets)) > MAX_DEPTH:
            texts = payload.split(b"\n")
            if any(
                len(kept) > MAX_DEPTH and _too_deep(texts[k]) for k, kept in enumerate(brackets)
            ):
                raise malformed()
    if b"NaN" in payload or b"Infinity" in payload:
        pos = 0
        while (found := _CONSTANT.search(payload, pos)) is not None:
            start = payload.rfind(b"\n", 0, found.start()) + 1
            end = payload.find(b"\n", found.start())
            end = len(payload) if end < 0 else end
            if _has_constant(payload[start:end]):
                raise malformed()
            pos = end + 1


def _has_constant(text: bytes) -> bool:
    """Whether a JSON text (nested at most MAX_DEPTH) holds a bare NaN or Infinity, or is no JSON at
    all."""
    try:
        json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return True
    return False


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")
