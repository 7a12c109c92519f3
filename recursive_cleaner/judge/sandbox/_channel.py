"""The parent's read end of a sandbox child: bounded lines, the messages under the worker's nonce,
the refusals reported before them, exact-size payloads, every wait until a deadline on an injected
clock (``clock``: seconds, ``wait(fd, seconds)``: whether fd can be read by then)."""

from __future__ import annotations

import os
import select
from typing import Callable

from ._reply_check import malformed, parse_line, violation_text

__all__ = ["LINE_BYTES", "Channel", "Stop", "wait_readable"]

# a report line (armed, loaded, one refusal): the child sends at most a few KB
LINE_BYTES = 64 << 10
_MAX_VIOLATIONS = 50


class Stop(Exception):
    """The child stopped answering: its reason is the message ("timeout": the deadline passed)."""


def wait_readable(fd: int, seconds: float) -> bool:
    """Whether ``fd`` can be read (data, or its end) within ``seconds``: a select."""
    return bool(select.select([fd], [], [], seconds)[0])


class Channel:
    """What a child writes, read as the protocol allows: ``message`` and ``take``, until a
    deadline.

    ``died()`` says why the child ended when its output ends; ``armed`` turns True when the child
    reports that everything after ran under its audit hook.
    """

    def __init__(
        self,
        nonce: str,
        died: Callable[[], str],
        clock: Callable[[], float],
        wait: Callable[[int, float], bool],
    ) -> None:
        self.fd, self.armed = -1, False
        self.nonce, self.clock, self.wait, self._died = nonce.encode("ascii"), clock, wait, died
        self._buf, self._pos = bytearray(), 0

    def message(
        self,
        kind: bytes,
        deadline: float,
        violations: list[str],
        limit: int,
        too_deep: Callable[[bytes], bool],
    ) -> dict:
        """The JSON object on the next ``<kind> <nonce> {...}`` line; refusals reported before it go
        to violations.

        A line over ``limit`` bytes, or one that ``too_deep`` refuses, is malformed (BadReply), not
        parsed.
        """
        prefix, extra = kind + b" " + self.nonce + b" ", 0
        try:
            while True:
                line = self._line(deadline, max(limit, LINE_BYTES))
                if line.startswith(prefix):
                    return parse_line(line[len(prefix) :], limit, too_deep)
                if line == b"A":
                    self.armed = True
                elif line and len(violations) >= _MAX_VIOLATIONS:
                    # counted, not kept: a loop that catches refusals cannot fill the memory
                    extra += 1
                elif line:
                    violations.append(
                        violation_text(line)
                        if line.startswith(b"V")
                        else "unexpected data on the sandbox result channel"
                    )
        finally:
            if extra:
                violations.append(f"... {extra} more refused operations")

    def take(self, size: int, deadline: float) -> bytes:
        """The next ``size`` bytes."""
        while len(self._buf) - self._pos < size:
            self._fill(deadline)
        data = bytes(self._buf[self._pos : self._pos + size])
        self._pos += size
        return data

    def trailer(self, deadline: float) -> None:
        """The end of a reply, ``\\nE <nonce>\\n``; anything else is malformed (BadReply)."""
        if self.take(len(self.nonce) + 4, deadline) != b"\nE " + self.nonce + b"\n":
            raise malformed()

    def _fill(self, deadline: float) -> None:
        remaining = deadline - self.clock()
        if remaining <= 0 or not self.wait(self.fd, remaining):
            raise Stop("timeout")
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            raise Stop(self._died())
        if self._pos > (1 << 20) and self._pos > len(self._buf) // 2:
            del self._buf[: self._pos]
            self._pos = 0
        self._buf += chunk

    def _line(self, deadline: float, limit: int = LINE_BYTES) -> bytes:
        """The next line; a child that sends more than ``limit`` bytes without a newline is
        stopped."""
        scanned = 0  # bytes after _pos known to hold no newline (_fill may move _pos to 0)
        while (end := self._buf.find(b"\n", self._pos + scanned)) < 0:
            scanned = len(self._buf) - self._pos
            if scanned > limit:
                raise Stop(f"the sandbox child sent a line over {limit >> 10} KB")
            self._fill(deadline)
        line = bytes(self._buf[self._pos : end])
        self._pos = end + 1
        return line
