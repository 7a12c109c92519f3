"""A sandbox child's process, seen from the parent: started in its own session with enlarged pipes,
its stderr kept in a temporary file, tied to this process by a lifeline pipe (``tie_to_parent``),
fed its frames by a thread (``feed``), killed with its process group."""

from __future__ import annotations

import fcntl
import os
import queue
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import IO

from ...errors import SandboxError, clip_text

__all__ = ["Child", "feed", "kill_child", "launch", "stderr_tail", "tie_to_parent", "wait_child"]

_STDERR_KEEP = 1000
_PIPE_BYTES = 1 << 20


@dataclass
class Child:
    """A started child: its process, its stderr file, and the parent's ends of its pipes."""

    proc: subprocess.Popen
    stderr: IO[bytes]
    to_child: int  # batches are written here (by the feeder thread, which closes it)
    from_child: int  # its replies are read here
    lifeline: int  # the write end of its lifeline: this process's alone, never written to
    watch_fd: int | None  # the child's end of the lifeline, for its thread; None: SIGIO ends it


def launch(cmd: list[str], cwd: str, env: dict) -> Child:
    """Start the child in its own session; SandboxError when it cannot start."""
    stderr = tempfile.TemporaryFile()
    (child_in, wfd), (rfd, child_out) = os.pipe(), os.pipe()
    # the child's lifeline: this process holds the only write end
    watched, lifeline = os.pipe()
    # room for a whole batch, so a child rarely waits for the parent to read
    for fd in (wfd, rfd):
        try:
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        except (AttributeError, OSError):
            pass
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=child_in,
            stdout=child_out,
            stderr=stderr,
            cwd=cwd,
            env=env,
            close_fds=True,
            pass_fds=(watched,),
            start_new_session=True,
        )
        signalled = tie_to_parent(watched, proc.pid)
    except OSError as exc:
        for fd in (wfd, rfd, lifeline):
            os.close(fd)
        stderr.close()
        raise SandboxError(f"cannot start the sandbox child: {exc}") from exc
    finally:
        for fd in (child_in, child_out, watched):
            os.close(fd)
    # else the child watches the pipe itself
    return Child(proc, stderr, wfd, rfd, lifeline, None if signalled else watched)


def kill_child(proc: subprocess.Popen) -> None:
    """SIGKILL the child's process group (and the child itself, should it have left it)."""
    for killing in (lambda: os.killpg(proc.pid, signal.SIGKILL), proc.kill):
        try:
            killing()
        except (ProcessLookupError, PermissionError):
            pass


def wait_child(proc: subprocess.Popen, timeout: float) -> int | None:
    """The child's exit code once it ends within ``timeout`` seconds, else None."""
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def stderr_tail(stderr: IO[bytes]) -> str:
    """The last lines the child wrote to stderr, clipped: why it failed before running the code."""
    stderr.seek(0, os.SEEK_END)
    stderr.seek(max(0, stderr.tell() - 4 * _STDERR_KEEP))
    return clip_text(stderr.read().decode("utf-8", "replace").strip()[-_STDERR_KEEP:], _STDERR_KEEP)


def feed(frames: queue.SimpleQueue, fd: int) -> None:
    """Feeder thread: write queued frames to the child, in order; close its input at the end."""
    try:
        while (data := frames.get()) is not None:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
    except OSError:
        pass  # the child is gone; receive() reports why
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


def tie_to_parent(read_fd: int, pid: int) -> bool:
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
