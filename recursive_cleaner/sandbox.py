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
"""

from __future__ import annotations

import json
import math
import os
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SandboxError

__all__ = ["SandboxResult", "run_in_sandbox"]

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


def _spawn(workdir: str) -> subprocess.Popen:
    """Start the child program in its own session, empty environment, in workdir."""
    if not sys.executable:
        raise SandboxError("cannot locate the Python interpreter (sys.executable is empty)")
    cmd = [sys.executable, "-I", "-S", "-B", "-W", "ignore", str(_CHILD)]
    try:
        return subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
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
            try:
                text = bytes.fromhex(line[1:].decode("ascii")).decode("utf-8", "replace")
            except ValueError:
                text = "unreadable violation report"
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
