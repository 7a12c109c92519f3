"""One run per state file: an exclusive lock file beside it (``STATE.lock``, holding the pid), held for the run.

POSIX: ``fcntl.flock`` on the lock file, so a run that dies (even killed) releases it and a
leftover file is no obstacle; Windows: ``msvcrt.locking`` on its first byte. The file is removed
when the run ends. A second run on the same state file fails at once with StateFileError naming
the state file and the pid that holds it. The state file itself is still replaced atomically
(``write.state.atomic_write_text``); the lock is a separate file because each save is a new inode.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

from ..errors import StateFileError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["state_lock", "lock_path"]


def lock_path(state_file: str | os.PathLike) -> str:
    """The lock file of a state file: ``STATE.lock`` beside it."""
    return os.fspath(state_file) + ".lock"


@contextlib.contextmanager
def state_lock(state_file: str | os.PathLike | None) -> Iterator[None]:
    """Hold the state file's lock for the ``with`` block (nothing without a state file); StateFileError if taken."""
    if not state_file:
        yield
        return
    path = lock_path(state_file)
    fd = _acquire(path, os.fspath(state_file))
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # Windows cannot remove an open file: it is reused next time
            os.unlink(path)
        os.close(fd)  # closing releases the lock


def _acquire(path: str, state_file: str) -> int:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock(fd)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise StateFileError(f"state file {state_file} is in use by another run (pid {holder}, lock {path}); "
                                 "wait for it to end or use another state file") from None
        try:  # the holder may have removed the file between our open and our lock: then lock the new one
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                break
        except OSError:
            pass
        os.close(fd)
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, f" {os.getpid()}\n".encode("ascii"))  # byte 0 is the one msvcrt locks
    return fd


def _lock(fd: int) -> None:
    """Lock ``fd`` without waiting; OSError when another process (or another open of it) holds it."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    import msvcrt  # pragma: no cover - Windows

    os.lseek(fd, 0, os.SEEK_SET)  # pragma: no cover
    msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]  # pragma: no cover


def _holder(fd: int) -> str:
    """The pid written in a held lock file, or 'unknown'."""
    try:
        os.lseek(fd, 1, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return "unknown"
    return text if text.isdigit() else "unknown"
