"""One run per state file: an exclusive lock file beside it (``STATE.lock``, holding the pid), held
for the run.

POSIX: ``fcntl.flock`` on the lock file, so a run that dies (even killed) releases it and a
leftover file is no obstacle; Windows: ``msvcrt.locking`` on its first byte. The file is removed
when the run ends. A second run on the same state file fails at once with StateFileError naming
the state file and the pid that holds it. The state file itself is still replaced atomically
(``write.state.atomic_write_text``); the lock is a separate file because each save is a new inode.

The lock file is opened without following a symlink and must be a regular file; one this run
did not create is used (truncated, the pid written) only when it holds what a lock file holds
(a pid line, at most 64 bytes): a ``STATE.lock`` link or hard link to another file is refused
with StateFileError and that file is left as it was (issue 28). It is removed at the end only
if the path still names the file this run locked.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
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
    """Hold the state file's lock for the ``with`` block (nothing without a state file);
    StateFileError if taken."""
    if not state_file:
        yield
        return
    path = lock_path(state_file)
    fd = _acquire(path, os.fspath(state_file))
    try:
        yield
    finally:
        # Windows cannot remove an open file: it is reused next time
        with contextlib.suppress(OSError):
            if os.path.samestat(os.fstat(fd), os.lstat(path)):
                os.unlink(path)
        os.close(fd)  # closing releases the lock


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_PID_LINE = re.compile(rb" ?\d{0,20}\n?")  # what this module writes: " PID\n" (or nothing yet)


def _open(path: str, state_file: str) -> tuple[int, bool]:
    """The lock file, opened without following a symlink: (fd, created by this call); StateFileError
    if unusable."""
    refused = f"lock file {path} of state file {state_file}"
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644), True
    except FileExistsError:
        pass
    try:
        fd = os.open(path, os.O_RDWR | _NOFOLLOW)
    except FileNotFoundError:  # removed meanwhile by the run that held it: try again
        return _open(path, state_file)
    except OSError as exc:  # ELOOP: a symbolic link
        kind = "a symbolic link" if os.path.islink(path) else exc.strerror or str(exc)
        raise StateFileError(f"{refused} is {kind}: not used (remove it)") from None
    info = os.fstat(fd)
    if (
        not stat.S_ISREG(info.st_mode)
        or info.st_nlink > 1
        or info.st_size > 64
        or not _PID_LINE.fullmatch(os.pread(fd, 65, 0) if hasattr(os, "pread") else _read_all(fd))
    ):
        os.close(fd)
        raise StateFileError(
            f"{refused} is not a lock file this library wrote (not a regular file of one pid "
            "line): not used and left as it is (remove it)"
        )
    return fd, False


def _read_all(fd: int) -> bytes:  # pragma: no cover - Windows has no pread
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, 65)


def _acquire(path: str, state_file: str) -> int:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    while True:
        fd, _created = _open(path, state_file)
        try:
            _lock(fd)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise StateFileError(
                f"state file {state_file} is in use by another run (pid {holder}, lock {path}); "
                "wait for it to end or use another state file"
            ) from None
        # the holder may have removed the file between our open and our lock: then lock the new one
        try:
            if os.path.samestat(os.fstat(fd), os.lstat(path)):
                break
        except OSError:
            pass
        os.close(fd)
    # a file this run created, or a lock file left by a killed run (checked in _open)
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, f" {os.getpid()}\n".encode("ascii"))  # byte 0 is the one msvcrt locks
    return fd


def _lock(fd: int) -> None:
    """Lock ``fd`` without waiting; OSError when another process (or another open of it) holds
    it."""
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
