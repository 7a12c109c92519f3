"""Run generated cleaning code in a fresh, locked-down child process.

This is the only place in the library that runs generated code, and it never runs it
in the library's own process. Each call starts ``python -I -S -B`` on
``_sandbox_child.py`` in a new session, with an empty environment and a fresh empty
working directory (removed afterwards). The child pre-imports the allowed modules,
drops root to ``nobody``, sets rlimits (address space, CPU, file size 0, no core, no
processes, no new file descriptors), replaces process/signal/fd functions of the
loaded modules by refusals and arms a default-deny audit hook before it compiles the code. The
parent enforces the wall-clock timeout by killing the child's process group.

Records travel to the child as JSON on stdin; results come back as JSON on a pipe.
Whatever the code does, the caller gets a :class:`SandboxResult`;
:class:`~recursive_cleaner.errors.SandboxError` means the sandbox itself could not run.

:class:`SandboxWorker` is the persistent form for applying a file to a whole dataset: one
child with the same guards loads the code once and then answers batch after batch (one JSON
message per batch each way); a timeout, crash, memory error or refused operation ends it.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import select
import selectors
import signal
import subprocess
import sys
import queue
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SandboxError

__all__ = ["SandboxResult", "run_in_sandbox", "BatchReply", "SandboxWorker"]

_CHILD = Path(__file__).with_name("_sandbox_child.py")
_MIN_MEMORY_MB = 64
_MAX_VIOLATIONS = 50
_STDERR_KEEP = 4096


@dataclass
class SandboxResult:
    """What happened when code ran in the sandbox; ``ok`` is False when the run as a whole failed."""

    ok: bool
    outputs: list = field(default_factory=list)
    errors: list[str | None] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    error: str | None = None
    duration_s: float = 0.0


def run_in_sandbox(
    code: str,
    function_name: str,
    records: list,
    *,
    timeout: float = 10.0,
    memory_mb: int = 512,
    cpu_seconds: int | None = None,
) -> SandboxResult:
    """Define `code` as a module in a fresh child process and call function_name(record) on a deep copy of each record.

    ``outputs[i]`` is the JSON round-tripped return value for ``records[i]`` (None where
    the function raised) and ``errors[i]`` is None or ``"ExcType: message (line N)"``.
    Any refused operation (see ``violations``), a timeout, the memory or CPU limit, a
    crash or a load error makes ``ok`` False and sets ``error``. The AST policy of
    :func:`recursive_cleaner.validation.check_code_safety` is *not* applied here.
    """
    if not isinstance(code, str) or not isinstance(function_name, str):
        raise TypeError("code and function_name must be str")
    if not timeout > 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    if memory_mb < _MIN_MEMORY_MB:
        raise ValueError(f"memory_mb must be at least {_MIN_MEMORY_MB}, got {memory_mb!r}")
    texts = []
    for index, record in enumerate(records):
        try:
            texts.append(json.dumps(record))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"record {index} is not JSON-serialisable: {exc}") from None
    cpu = int(cpu_seconds) if cpu_seconds is not None else math.ceil(timeout) + 1
    nonce = secrets.token_hex(16)
    request = json.dumps(
        {"code": code, "function": function_name, "records": texts, "nonce": nonce,
         "memory_mb": int(memory_mb), "cpu_seconds": max(1, cpu)}
    ).encode("ascii")
    output_cap = max(64 << 20, 8 * len(request))

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rc-sandbox-", ignore_cleanup_errors=True) as workdir:
        proc = _spawn(workdir)
        timed_out = overflow = True  # until _exchange says otherwise: kill at once on any failure
        try:
            out, err, timed_out, overflow = _exchange(proc, request, started + timeout, output_cap)
        finally:
            _reap(proc, started + timeout, kill_now=timed_out or overflow)
    duration = time.monotonic() - started

    armed, violations, result = _parse(out, nonce)
    if timed_out:
        error: str | None = f"timed out after {float(timeout)}s"
    elif overflow:
        error = f"output exceeded {output_cap >> 20} MB"
    elif result is None:
        if not armed:
            tail = err.decode("utf-8", "replace").strip()[-1000:]
            raise SandboxError(f"sandbox child failed before running the code (exit code {proc.returncode}): {tail}")
        error = _death_message(proc.returncode, cpu)
    else:
        error = result.get("error")
    if violations and error is None:
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        error = f"refused operation: {violations[0]}{more}"
    n = len(texts)
    outputs = list(result["outputs"]) if result else [None] * n
    errors = list(result["errors"]) if result else [None] * n
    if len(outputs) != n or len(errors) != n:  # cannot happen with an honest child
        outputs, errors, error = [None] * n, [None] * n, error or "malformed result from the sandbox child"
    return SandboxResult(
        ok=error is None and not violations, outputs=outputs, errors=errors,
        violations=violations, error=error, duration_s=duration,
    )


def _spawn(workdir: str, *args: str, stderr=subprocess.PIPE) -> subprocess.Popen:
    """Start the child program in its own session, empty environment, in workdir."""
    if not sys.executable:
        raise SandboxError("cannot locate the Python interpreter (sys.executable is empty)")
    cmd = [sys.executable, "-I", "-S", "-B", "-W", "ignore", str(_CHILD), *args]
    try:
        return subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
            cwd=workdir, env={}, close_fds=True, start_new_session=True,
        )
    except OSError as exc:
        raise SandboxError(f"cannot start the sandbox child: {exc}") from exc


def _exchange(proc: subprocess.Popen, request: bytes, deadline: float, cap: int) -> tuple[bytes, bytes, bool, bool]:
    """Feed request to stdin and collect stdout/stderr until EOF, the deadline, or cap bytes of output."""
    out, err = bytearray(), bytearray()
    pending = memoryview(request)
    with selectors.DefaultSelector() as sel:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin, selectors.EVENT_WRITE)
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        while sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return bytes(out), bytes(err), True, False
            for key, _ in sel.select(remaining):
                stream = key.fileobj
                if stream is proc.stdin:
                    try:
                        pending = pending[os.write(stream.fileno(), pending[: 1 << 16]):]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(stream)
                        stream.close()
                    continue
                chunk = os.read(stream.fileno(), 1 << 16)
                if not chunk:
                    sel.unregister(stream)
                    continue
                if stream is proc.stdout:
                    out += chunk
                    if len(out) > cap:
                        return bytes(out), bytes(err), False, True
                else:
                    err += chunk
                    del err[:-_STDERR_KEEP]
    return bytes(out), bytes(err), False, False


def _reap(proc: subprocess.Popen, deadline: float, *, kill_now: bool) -> None:
    """Wait for the child until the deadline (or not at all), then kill its process group; close the pipes."""
    try:
        proc.wait(timeout=0 if kill_now else max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        for kill in (lambda: os.killpg(proc.pid, signal.SIGKILL), proc.kill):
            try:
                kill()
            except (ProcessLookupError, PermissionError):
                pass
        proc.wait()
    finally:
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream and not stream.closed:
                stream.close()


def _parse(out: bytes, nonce: str) -> tuple[bool, list[str], dict | None]:
    """Split the child's result channel into (armed, violations, result)."""
    armed, violations, result = False, [], None
    prefix = b"R " + nonce.encode("ascii") + b" "
    extra = 0
    for line in out.split(b"\n"):
        if not line:
            continue
        if line == b"A":
            armed = True
            continue
        if line.startswith(b"V"):
            text = _violation_text(line)
        elif line.startswith(prefix) and result is None:
            try:
                result = json.loads(line[len(prefix):])
                continue
            except (ValueError, RecursionError):
                text = "malformed result from the sandbox child"
        else:
            text = "unexpected data on the sandbox result channel"
        if len(violations) < _MAX_VIOLATIONS:
            violations.append(text)
        else:
            extra += 1
    if extra:
        violations.append(f"... {extra} more refused operations")
    if result is not None and not isinstance(result, dict):
        result = None
    return armed, violations, result


def _violation_text(line: bytes) -> str:
    try:
        return bytes.fromhex(line[1:].decode("ascii")).decode("utf-8", "replace")
    except ValueError:
        return "unreadable violation report"


def _death_message(returncode: int | None, cpu_seconds: int) -> str:
    """Explain a child that ended without reporting a result."""
    if returncode is not None and returncode < 0:
        number = -returncode
        if number == signal.SIGXCPU:
            return f"CPU time limit of {cpu_seconds}s exceeded"
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {number} ({name})"
    return f"the sandbox child exited with code {returncode} without a result"


# ---------------------------------------------------------------------------- persistent worker
@dataclass
class BatchReply:
    """A worker's answer to one batch: ``payload`` holds n JSON texts joined by b"\\n" (b"" where a record failed).

    ``failed`` holds (record index, error) pairs, plus the line offset for raw JSONL batches, whose
    ``skipped`` lists the offsets of lines that are not UTF-8, not JSON, or not an object.
    """

    n: int = 0
    payload: bytes = b""
    failed: list[tuple] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        """False when the batch as a whole failed (the worker is then closed)."""
        return self.error is None and not self.violations


class _Stop(Exception):
    """The child stopped answering: its reason is the message."""


class SandboxWorker:
    """A persistent sandboxed child: ``code`` is loaded once, then each batch goes through ``function_name``.

    ``start()``, then ``submit(records)`` any number of batches and ``receive(timeout)`` their
    replies in the same order (or ``run_batch`` for both), then ``close()``. Batches are written
    by a feeder thread, so submitting never blocks on a busy child. ``cpu_seconds`` limits each
    batch; ``dict_only`` makes a non-dict return value an error for that record.
    """

    def __init__(self, code: str, function_name: str = "clean_data", *, memory_mb: int = 512,
                 cpu_seconds: int = 61, dict_only: bool = False) -> None:
        if memory_mb < _MIN_MEMORY_MB:
            raise ValueError(f"memory_mb must be at least {_MIN_MEMORY_MB}, got {memory_mb!r}")
        self.cpu_seconds = max(1, int(cpu_seconds))
        self.nonce = secrets.token_hex(16)
        self._request = json.dumps({"code": code, "function": function_name, "nonce": self.nonce,
                                    "memory_mb": int(memory_mb), "cpu_seconds": self.cpu_seconds,
                                    "dict_only": bool(dict_only)}).encode("ascii")
        self._buf, self._pos = bytearray(), 0
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._proc = self._feeder = self._workdir = self._stderr = None
        self._rfd = self._wfd = -1
        self.closed = self._armed = False

    # -- the process (apply's trusted worker overrides _command) --
    def _command(self) -> tuple[list[str], str, dict]:
        """(argv, working directory, environment) of the child: the locked-down child in batch mode."""
        if not sys.executable:
            raise SandboxError("cannot locate the Python interpreter (sys.executable is empty)")
        self._workdir = tempfile.mkdtemp(prefix="rc-sandbox-")
        return [sys.executable, "-I", "-S", "-B", "-W", "ignore", str(_CHILD), "--batch"], self._workdir, {}

    def _launch(self) -> tuple[int, int]:
        """Start the child in its own session; return (fd to write batches to, fd to read replies from)."""
        cmd, cwd, env = self._command()
        self._stderr = tempfile.TemporaryFile()
        (child_in, wfd), (rfd, child_out) = os.pipe(), os.pipe()
        try:
            self._proc = subprocess.Popen(cmd, stdin=child_in, stdout=child_out, stderr=self._stderr, cwd=cwd,
                                          env=env, close_fds=True, start_new_session=True)
        except OSError as exc:
            for fd in (wfd, rfd):
                os.close(fd)
            raise SandboxError(f"cannot start the worker process: {exc}") from exc
        finally:
            os.close(child_in)
            os.close(child_out)
        return wfd, rfd

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
    def start(self, timeout: float = 10.0) -> str | None:
        """Start the child and load the code: None when ready, else why not (the worker is then closed)."""
        self._wfd, self._rfd = self._launch()
        self._feeder = threading.Thread(target=self._feed, name="rc-sandbox-feeder", daemon=True)
        self._feeder.start()
        self._send(self._request)
        violations: list[str] = []
        try:
            error = self._message(b"L", time.monotonic() + timeout, violations)["error"]
        except _Stop as stop:
            if not self._armed and str(stop) != "timeout":
                self._stderr.seek(0)
                tail = self._stderr.read().decode("utf-8", "replace").strip()[-1000:]
                self.close()
                raise SandboxError(f"the worker process failed before loading the code ({stop}): {tail}") from None
            error = f"loading timed out after {float(timeout)}s" if str(stop) == "timeout" else str(stop)
        if violations and error is None:
            error = "refused operation: " + violations[0]
        if error is not None:
            self.close(kill=True)
        return error

    def submit(self, records: list) -> None:
        """Queue one batch of records for the child; never waits."""
        self._send(b"J" + json.dumps(records).encode("ascii"))

    def submit_lines(self, data: bytes) -> None:
        """Queue one batch of raw JSONL lines, parsed by the child (see ``BatchReply.skipped``); never waits."""
        self._send(b"L" + data)

    def receive(self, timeout: float = 60.0) -> BatchReply:
        """The reply to the oldest unanswered batch; after a failure (see ``error``) the worker is closed."""
        deadline, reply = time.monotonic() + timeout, BatchReply()
        try:
            if self.closed:
                raise _Stop("the worker is closed")
            head = self._message(b"R", deadline, reply.violations)
            reply.n, reply.failed, reply.skipped, reply.error = head["n"], head["failed"], head["skipped"], head["error"]
            reply.payload = self._take(head["size"], deadline)
            if self._take(len(self.nonce) + 4, deadline) != b"\nE " + self.nonce.encode("ascii") + b"\n":
                raise _Stop("malformed reply from the sandbox child")
        except _Stop as stop:
            reply.error = f"timed out after {float(timeout)}s" if str(stop) == "timeout" else str(stop)
        if reply.violations and reply.error is None:
            more = f" (and {len(reply.violations) - 1} more)" if len(reply.violations) > 1 else ""
            reply.error = f"refused operation: {reply.violations[0]}{more}"
        if reply.error is not None:
            self.close(kill=True)
        return reply

    def run_batch(self, records: list, timeout: float = 60.0) -> SandboxResult:
        """submit + receive, with the outputs parsed: the shape of :func:`run_in_sandbox`'s result."""
        started = time.monotonic()
        self.submit(records)
        reply = self.receive(timeout)
        outputs, errors = [None] * len(records), [None] * len(records)
        if reply.ok and records:
            outputs = [json.loads(text) if text else None for text in reply.payload.split(b"\n")]
        for index, message, *_ in reply.failed:
            errors[index] = message
        return SandboxResult(ok=reply.ok, outputs=outputs, errors=errors, violations=reply.violations,
                             error=reply.error, duration_s=time.monotonic() - started)

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
        for closing in (lambda: os.close(self._rfd), self._stderr and self._stderr.close):
            try:
                closing and closing()
            except OSError:
                pass
        if self._workdir:
            shutil.rmtree(self._workdir, ignore_errors=True)

    def __enter__(self) -> SandboxWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(kill=exc[0] is not None)

    def _feed(self) -> None:
        """Feeder thread: write queued frames to the child, in order; close its input at the end."""
        try:
            while (data := self._queue.get()) is not None:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._wfd, view):]
        except OSError:
            pass  # the child is gone; receive() reports why
        finally:
            try:
                os.close(self._wfd)
            except OSError:
                pass

    def _send(self, frame: bytes) -> None:
        self._queue.put(len(frame).to_bytes(8, "big") + frame)

    def _message(self, kind: bytes, deadline: float, violations: list[str]) -> dict:
        """The JSON of the next ``<kind> <nonce> {...}`` line; refusals reported before it go to violations."""
        prefix = kind + b" " + self.nonce.encode("ascii") + b" "
        while True:
            line = self._line(deadline)
            if line.startswith(prefix):
                return json.loads(line[len(prefix):])
            if line == b"A":
                self._armed = True
            elif line.startswith(b"V"):
                violations.append(_violation_text(line))
            elif line:
                violations.append("unexpected data on the sandbox result channel")

    def _fill(self, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self._rfd], [], [], remaining)[0]:
            raise _Stop("timeout")
        chunk = os.read(self._rfd, 1 << 20)
        if not chunk:
            code = self._wait(1.0)
            raise _Stop(_death_message(code, self.cpu_seconds) if code else "the sandbox child stopped without a reply")
        if self._pos > (1 << 20) and self._pos > len(self._buf) // 2:
            del self._buf[: self._pos]
            self._pos = 0
        self._buf += chunk

    def _line(self, deadline: float) -> bytes:
        while (end := self._buf.find(b"\n", self._pos)) < 0:
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
