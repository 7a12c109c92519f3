"""``SandboxWorker``: a persistent locked-down child (``_child.py``) that loads generated code once
and answers batches of records, each reply bounded and checked (``_reply_check``) before it is read.

The child's process is ``_process``'s (the child ends when this process closes its lifeline: on
Linux by the kernel's SIGIO, see ``tie_to_parent``; elsewhere a thread in the child), what it
writes is read through a ``_channel.Channel``. Every wait for the child runs until a deadline on
``clock`` (``time.monotonic``) through ``wait`` (a select): a test injects both, no real time
passing. ``run_in_sandbox`` is the one-shot form.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import secrets
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from ...errors import SandboxError, clip_text
from ._channel import LINE_BYTES, Channel, Stop, wait_readable
from ._child_policy import MAX_OUTPUT_CHARS
from ._process import Child, feed, kill_child, launch, stderr_tail, wait_child
from ._reply_check import (
    HEAD_TOO_DEEP,
    LOAD_TOO_DEEP,
    TEXT_CHARS,
    BadReply,
    check_payload,
    malformed,
    read_head,
)
from ._result import BatchReply, SandboxResult, as_result, death_message

__all__ = ["CHILD_PATH", "SandboxWorker"]

CHILD_PATH = Path(__file__).with_name("_child.py")
# the child loads toolkit.py from the package root, by path
_TOOLKIT_DIR = str(Path(__file__).resolve().parents[2])
_MIN_MEMORY_MB = 64
_HEAD_BYTES = 64 << 10  # a batch header: this much, plus _FAILED_BYTES per record sent
_FAILED_BYTES = 8 << 10  # one failure entry: MESSAGE_CHARS characters, \uXXXX-escaped, plus numbers


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

    Time: timeouts are seconds of ``clock``; ``wait(fd, seconds)`` waits for the child's output
    (whether fd can be read by then). Tests pass a fake clock and a wait that moves it.
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
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[int, float], bool] = wait_readable,
    ) -> None:
        if memory_mb < _MIN_MEMORY_MB:
            raise ValueError(f"memory_mb must be at least {_MIN_MEMORY_MB}, got {memory_mb!r}")
        self.cpu_seconds, self.memory_mb = max(1, int(cpu_seconds)), int(memory_mb)
        self.nonce, self.clock = secrets.token_hex(16), clock
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
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._channel = Channel(self.nonce, self._death, clock, wait)
        self._child: Child | None = None
        self._feeder = self._workdir = None
        self.closed = False

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

    def _launch(self) -> None:
        """Start the child in its own session, its output read by the channel."""
        cmd, cwd, env = self._command()
        try:
            self._child = launch(cmd, cwd, env)
        finally:
            self._drop_workdir()
        self._request["watch_fd"] = self._child.watch_fd
        self._channel.fd = self._child.from_child

    def _drop_workdir(self) -> None:
        """Remove the working directory now: the child keeps it as its (deleted, empty) cwd; nothing
        is left behind."""
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def _wait(self, timeout: float) -> int | None:
        return wait_child(self._child.proc, timeout)

    def _death(self) -> str:
        """Why the child ended without answering (its output ended)."""
        return death_message(self._wait(1.0), self.cpu_seconds, self.memory_mb)

    # -- the protocol --
    def start(self, timeout: float = 10.0) -> BatchReply:
        """Start the child and load the code; the reply is ``ok`` when ready, else says why not
        (worker closed)."""
        return self.start_by(self.clock() + timeout, f"timed out after {float(timeout)}s")

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
        return self.receive_by(self.clock() + timeout, f"timed out after {float(timeout)}s")

    def run_batch(self, records: list, timeout: float = 60.0) -> SandboxResult:
        """submit + receive, with the outputs parsed: the shape of :func:`run_in_sandbox`'s
        result."""
        started = self.clock()
        self.submit(records)
        return as_result(self.receive(timeout), len(records), started, self.clock)

    def close(self, *, kill: bool = False, grace: float = 2.0) -> None:
        """End the child: end of input and a short wait (or a kill at once), then clean up."""
        if self.closed:
            return
        self.closed = True
        self._queue.put(None)
        if self._child is not None and (kill or self._wait(grace) is None):
            kill_child(self._child.proc)
            self._wait(grace)
        if self._feeder is not None:
            self._feeder.join(grace)
        child = self._child
        for closing in (
            lambda: os.close(self._channel.fd),
            child and child.stderr.close,
            child and (lambda: os.close(child.lifeline)),
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
        """``start`` with a deadline on ``clock`` and the message a timeout gives."""
        self._launch()
        self._feeder = threading.Thread(
            target=feed,
            args=(self._queue, self._child.to_child),
            name="rc-sandbox-feeder",
            daemon=True,
        )
        self._feeder.start()
        self._send(json.dumps(self._request).encode("ascii"))
        reply = BatchReply()
        try:
            error = self._channel.message(
                b"L", deadline, reply.violations, LINE_BYTES, LOAD_TOO_DEEP
            ).get("error")
            if error is not None and not isinstance(error, str):
                raise malformed()
            reply.error = None if error is None else clip_text(error, TEXT_CHARS)
        except (Stop, BadReply) as stop:
            if not self._channel.armed and str(stop) != "timeout":
                tail = stderr_tail(self._child.stderr)
                self.close()
                raise SandboxError(
                    f"sandbox child failed before running the code ({stop}): {tail}"
                ) from None
            reply.error = timed_out if str(stop) == "timeout" else str(stop)
        return self._settle(reply)

    def receive_by(self, deadline: float, timed_out: str) -> BatchReply:
        """``receive`` with a deadline on ``clock`` and the message a timeout gives."""
        reply = BatchReply()
        try:
            if self.closed:
                raise Stop("the worker is closed")
            sent = self._sent.popleft() if self._sent else 0
            head = self._channel.message(
                b"R", deadline, reply.violations, _HEAD_BYTES + _FAILED_BYTES * sent, HEAD_TOO_DEEP
            )
            reply.n, size, reply.failed, reply.skipped, reply.error = read_head(head, sent)
            if size > self._reply_cap:
                raise Stop(
                    f"output exceeded {self._reply_cap >> 20} MB (a smaller batch needs less)"
                )
            reply.payload = self._channel.take(size, deadline)
            self._channel.trailer(deadline)
            check_payload(reply.payload, reply.n, reply.failed)
        except (Stop, BadReply) as stop:
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
