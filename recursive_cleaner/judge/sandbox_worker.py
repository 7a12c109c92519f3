"""``SandboxWorker``: a persistent locked-down child (``_child.py``) that loads generated code once
and answers batches of records, each reply bounded and checked (``reply_check``) before it is read.

The child ends when this process closes its pipe (on Linux by the kernel's SIGIO, see
``_tie_to_parent``; elsewhere a thread in the child). ``sandbox.run_in_sandbox`` is the one-shot
form.
"""

from __future__ import annotations

import collections
import fcntl
import json
import os
import queue
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from ..errors import SandboxError, clip_text
from ._child import MAX_OUTPUT_CHARS
from .reply_check import (
    HEAD_TOO_DEEP,
    LOAD_TOO_DEEP,
    TEXT_CHARS,
    BadReply,
    check_payload,
    malformed,
    parse_line,
    read_head,
    violation_text,
)
from .sandbox_result import BatchReply, SandboxResult, as_result, death_message

__all__ = ["SandboxWorker", "CHILD_PATH"]

CHILD_PATH = Path(__file__).with_name("_child.py")
# the child loads toolkit.py from the package root, by path
_TOOLKIT_DIR = str(Path(__file__).resolve().parent.parent)
_MIN_MEMORY_MB = 64
_MAX_VIOLATIONS = 50
_STDERR_KEEP = 1000
_PIPE_BYTES = 1 << 20
# a report line (armed, loaded, one refusal): the child sends at most a few KB
_LINE_BYTES = 64 << 10
_HEAD_BYTES = 64 << 10  # a batch header: this much, plus _FAILED_BYTES per record sent
_FAILED_BYTES = 8 << 10  # one failure entry: MESSAGE_CHARS characters, \uXXXX-escaped, plus numbers


class _Stop(Exception):
    """The child stopped answering: its reason is the message."""


class SandboxWorker:
    """A persistent sandboxed child: ``code`` is loaded once, then each batch goes through
    ``function_name``.

    ``start()``, then ``submit(records)`` any number of batches and ``receive(timeout)`` their
    replies in the same order (or ``run_batch`` for both), then ``close()``. Batches are written
    by a feeder thread, so submitting never blocks on a busy child. ``cpu_seconds`` limits each
    batch; ``dict_only`` makes a non-dict return value an error for that record. Any failure of a
    batch as a whole (timeout, crash, memory, refused operation) kills the child.

    Output limits: one record's output is at most ``max_output_chars`` characters of JSON (else
    that record fails), one batch's reply at most ``max_reply_mb`` (default: half of ``memory_mb``,
    at least 64; else the batch fails, "output exceeded").
    """

    def __init__(
        self,
        code: str,
        function_name: str = "clean_data",
        *,
        memory_mb: int = 512,
        cpu_seconds: int = 61,
        dict_only: bool = False,
        max_reply_mb: int | None = None,
        max_output_chars: int = MAX_OUTPUT_CHARS,
    ) -> None:
        if memory_mb < _MIN_MEMORY_MB:
            raise ValueError(f"memory_mb must be at least {_MIN_MEMORY_MB}, got {memory_mb!r}")
        self.cpu_seconds, self.memory_mb = max(1, int(cpu_seconds)), int(memory_mb)
        self.nonce = secrets.token_hex(16)
        self._request = {
            "code": code,
            "function": function_name,
            "nonce": self.nonce,
            "memory_mb": int(memory_mb),
            "cpu_seconds": self.cpu_seconds,
            "dict_only": bool(dict_only),
            "toolkit_dir": _TOOLKIT_DIR,
            "max_output_chars": max(1, int(max_output_chars)),
        }
        self._reply_cap = (
            max(64, int(memory_mb) // 2) if max_reply_mb is None else int(max_reply_mb)
        ) << 20
        # records in each batch not answered yet
        self._sent: collections.deque[int] = collections.deque()
        self._buf, self._pos = bytearray(), 0
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._proc = self._feeder = self._workdir = self._stderr = None
        self._rfd = self._wfd = self._watch_fd = -1
        self.closed = self._armed = False

    # -- the process (apply's trusted worker overrides _command) --
    def _command(self) -> tuple[list[str], str, dict]:
        """(argv, working directory, environment) of the child: the locked-down child program."""
        if not sys.executable:
            raise SandboxError("cannot locate the Python interpreter (sys.executable is empty)")
        self._workdir = tempfile.mkdtemp(prefix="rc-sandbox-")
        return (
            [sys.executable, "-I", "-S", "-B", "-W", "ignore", str(CHILD_PATH)],
            self._workdir,
            {},
        )

    def _launch(self) -> tuple[int, int]:
        """Start the child in its own session; return (fd to write batches to, fd to read replies
        from)."""
        cmd, cwd, env = self._command()
        self._stderr = tempfile.TemporaryFile()
        (child_in, wfd), (rfd, child_out) = os.pipe(), os.pipe()
        # the child's lifeline: this process holds the only write end
        watched, self._watch_fd = os.pipe()
        # room for a whole batch, so a child rarely waits for the parent to read
        for fd in (wfd, rfd):
            try:
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
            except (AttributeError, OSError):
                pass
        try:
            self._proc = subprocess.Popen(
                cmd,
                stdin=child_in,
                stdout=child_out,
                stderr=self._stderr,
                cwd=cwd,
                env=env,
                close_fds=True,
                pass_fds=(watched,),
                start_new_session=True,
            )
            signalled = _tie_to_parent(watched, self._proc.pid)
        except OSError as exc:
            for fd in (wfd, rfd, self._watch_fd):
                os.close(fd)
            self._watch_fd = -1
            raise SandboxError(f"cannot start the sandbox child: {exc}") from exc
        finally:
            for fd in (child_in, child_out, watched):
                os.close(fd)
            self._drop_workdir()
        # else the child watches the pipe itself
        self._request["watch_fd"] = None if signalled else watched
        return wfd, rfd

    def _drop_workdir(self) -> None:
        """Remove the working directory now: the child keeps it as its (deleted, empty) cwd; nothing
        is left behind."""
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def _kill(self) -> None:
        for kill in (lambda: os.killpg(self._proc.pid, signal.SIGKILL), self._proc.kill):
            try:
                kill()
            except (ProcessLookupError, PermissionError):
                pass

    def _wait(self, timeout: float) -> int | None:
        try:
            return self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    # -- the protocol --
    def start(self, timeout: float = 10.0) -> BatchReply:
        """Start the child and load the code; the reply is ``ok`` when ready, else says why not
        (worker closed)."""
        return self.start_by(time.monotonic() + timeout, f"timed out after {float(timeout)}s")

    def submit(self, records: list) -> None:
        """Queue one batch of records for the child; never waits."""
        self.send_frame(b"J" + json.dumps(records).encode("ascii"), len(records))

    def submit_lines(self, data: bytes) -> None:
        """Queue one batch of raw JSONL lines, parsed by the child (see ``BatchReply.skipped``);
        never waits."""
        self.send_frame(b"L" + data, data.count(b"\n") + 1)

    def receive(self, timeout: float = 60.0) -> BatchReply:
        """The reply to the oldest unanswered batch; after a failure (see ``error``) the worker is
        closed."""
        return self.receive_by(time.monotonic() + timeout, f"timed out after {float(timeout)}s")

    def run_batch(self, records: list, timeout: float = 60.0) -> SandboxResult:
        """submit + receive, with the outputs parsed: the shape of :func:`run_in_sandbox`'s
        result."""
        started = time.monotonic()
        self.submit(records)
        return as_result(self.receive(timeout), len(records), started)

    def close(self, *, kill: bool = False, grace: float = 2.0) -> None:
        """End the child: end of input and a short wait (or a kill at once), then clean up."""
        if self.closed:
            return
        self.closed = True
        self._queue.put(None)
        if self._proc is not None and (kill or self._wait(grace) is None):
            self._kill()
            self._wait(grace)
        if self._feeder is not None:
            self._feeder.join(grace)
        for closing in (
            lambda: os.close(self._rfd),
            self._stderr and self._stderr.close,
            self._watch_fd >= 0 and (lambda: os.close(self._watch_fd)),
        ):
            try:
                closing and closing()
            except OSError:
                pass
        self._drop_workdir()

    def __enter__(self) -> SandboxWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)

    def start_by(self, deadline: float, timed_out: str) -> BatchReply:
        """``start`` with a monotonic deadline and the message a timeout gives."""
        self._wfd, self._rfd = self._launch()
        self._feeder = threading.Thread(target=self._feed, name="rc-sandbox-feeder", daemon=True)
        self._feeder.start()
        self._send(json.dumps(self._request).encode("ascii"))
        reply = BatchReply()
        try:
            error = self._message(b"L", deadline, reply.violations, _LINE_BYTES, LOAD_TOO_DEEP).get(
                "error"
            )
            if error is not None and not isinstance(error, str):
                raise malformed()
            reply.error = None if error is None else clip_text(error, TEXT_CHARS)
        except (_Stop, BadReply) as stop:
            if not self._armed and str(stop) != "timeout":
                self._stderr.seek(0, os.SEEK_END)
                self._stderr.seek(max(0, self._stderr.tell() - 4 * _STDERR_KEEP))
                tail = clip_text(
                    self._stderr.read().decode("utf-8", "replace").strip()[-_STDERR_KEEP:],
                    _STDERR_KEEP,
                )
                self.close()
                raise SandboxError(
                    f"sandbox child failed before running the code ({stop}): {tail}"
                ) from None
            reply.error = timed_out if str(stop) == "timeout" else str(stop)
        return self._settle(reply)

    def receive_by(self, deadline: float, timed_out: str) -> BatchReply:
        """``receive`` with a monotonic deadline and the message a timeout gives."""
        reply = BatchReply()
        try:
            if self.closed:
                raise _Stop("the worker is closed")
            sent = self._sent.popleft() if self._sent else 0
            head = self._message(
                b"R", deadline, reply.violations, _HEAD_BYTES + _FAILED_BYTES * sent, HEAD_TOO_DEEP
            )
            reply.n, size, reply.failed, reply.skipped, reply.error = read_head(head, sent)
            if size > self._reply_cap:
                raise _Stop(
                    f"output exceeded {self._reply_cap >> 20} MB (a smaller batch needs less)"
                )
            reply.payload = self._take(size, deadline)
            if (
                self._take(len(self.nonce) + 4, deadline)
                != b"\nE " + self.nonce.encode("ascii") + b"\n"
            ):
                raise malformed()
            check_payload(reply.payload, reply.n, reply.failed)
        except (_Stop, BadReply) as stop:
            reply.error = timed_out if str(stop) == "timeout" else str(stop)
            reply.payload, reply.n = b"", 0
        return self._settle(reply)

    def _settle(self, reply: BatchReply) -> BatchReply:
        """A refusal is the error unless another came first; any failure closes the worker."""
        if reply.violations and reply.error is None:
            more = f" (and {len(reply.violations) - 1} more)" if len(reply.violations) > 1 else ""
            reply.error = f"refused operation: {reply.violations[0]}{more}"
        if reply.error is not None:
            self.close(kill=True)
        return reply

    def _send(self, frame: bytes) -> None:
        self._queue.put(len(frame).to_bytes(8, "big") + frame)

    def send_frame(self, frame: bytes, records: int) -> None:
        """Queue a batch frame of ``records`` records (lines): its reply may hold no more than
        that."""
        self._sent.append(records)
        self._send(frame)

    def _feed(self) -> None:
        """Feeder thread: write queued frames to the child, in order; close its input at the end."""
        try:
            while (data := self._queue.get()) is not None:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._wfd, view) :]
        except OSError:
            pass  # the child is gone; receive() reports why
        finally:
            try:
                os.close(self._wfd)
            except OSError:
                pass

    def _message(
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
        prefix, extra = kind + b" " + self.nonce.encode("ascii") + b" ", 0
        try:
            while True:
                line = self._line(deadline, max(limit, _LINE_BYTES))
                if line.startswith(prefix):
                    return parse_line(line[len(prefix) :], limit, too_deep)
                if line == b"A":
                    self._armed = True
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

    def _fill(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self._rfd], [], [], remaining)[0]:
            raise _Stop("timeout")
        chunk = os.read(self._rfd, 1 << 20)
        if not chunk:
            raise _Stop(death_message(self._wait(1.0), self.cpu_seconds, self.memory_mb))
        if self._pos > (1 << 20) and self._pos > len(self._buf) // 2:
            del self._buf[: self._pos]
            self._pos = 0
        self._buf += chunk

    def _line(self, deadline: float, limit: int = _LINE_BYTES) -> bytes:
        """The next line; a child that sends more than ``limit`` bytes without a newline is
        stopped."""
        scanned = 0  # bytes after _pos known to hold no newline (_fill may move _pos to 0)
        while (end := self._buf.find(b"\n", self._pos + scanned)) < 0:
            scanned = len(self._buf) - self._pos
            if scanned > limit:
                raise _Stop(f"the sandbox child sent a line over {limit >> 10} KB")
            self._fill(deadline)
        line = bytes(self._buf[self._pos : end])
        self._pos = end + 1
        return line

    def _take(self, size: int, deadline: float) -> bytes:
        while len(self._buf) - self._pos < size:
            self._fill(deadline)
        data = bytes(self._buf[self._pos : self._pos + size])
        self._pos += size
        return data


def _tie_to_parent(read_fd: int, pid: int) -> bool:
    """Linux: have the kernel send SIGIO (default action: terminate) to pid when the pipe's write
    end closes.

    The write end is this process's alone, so it closes when this process ends, even by SIGKILL.
    The signal needs nothing from the child, so it also ends one sleeping or stuck in C code.
    False where this is not available (macOS ignores SIGIO by default): the child then watches
    the pipe with a thread instead (on Linux a thread would cost it a 64 MB malloc arena of its
    address-space limit). PR_SET_PDEATHSIG would need ctypes in the child and fires when the
    spawning *thread* ends; setuid clears it too.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        fcntl.fcntl(read_fd, fcntl.F_SETOWN, pid)
        fcntl.fcntl(read_fd, fcntl.F_SETFL, fcntl.fcntl(read_fd, fcntl.F_GETFL) | os.O_ASYNC)
    except (AttributeError, OSError):
        return False
    return True
