"""A private per-user folder for caches and temporary files, and files in it opened without
following links (issue 43).

The library keeps files between runs in a few folders: a DataFrame's JSONL and a document's text
(``read/inputs.py``, ``read/documents.py``, under the shared temp folder), the local model's prompt
states (``backends/prompt_cache.py``) and the joined model (``backends/model_files.py``). Another
user who can write such a folder could plant a text that replaces a document, a link that sends a
private file to the model, or a state that llama.cpp reads with no checks of its own. So each is
used only through ``private_folder``: made with mode 0o700, or, when it exists, a real folder (not a
symbolic link) owned by this user, narrowed to 0o700 through a descriptor (no path is followed
twice); anything else is a ``PermissionError`` naming the folder. A file in it is reused only when
``owned_file`` says it is a regular file (not a symbolic or hard link) owned by this user, and read
through ``open_owned`` (``O_NOFOLLOW``, then the same check on the open descriptor, so a FIFO never
blocks the reader).

It lives in ``backends`` because that package may import nothing else of the library, and the
readers may import it (tests/test_architecture.py).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["PRIVATE_MODE", "private_folder", "owned_file", "open_owned", "user_suffix"]

PRIVATE_MODE = 0o700
"""The mode of a private folder: this user reads, writes and enters it; nobody else."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _uid() -> int | None:
    """This process's effective user id (None where the platform has none: Windows)."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else None


def user_suffix() -> str:
    """``-UID`` for a per-user name in a shared folder (``recursive_cleaner_inputs-1000``); "" on a
    platform without user ids."""
    uid = _uid()
    return "" if uid is None else f"-{uid}"


def private_folder(path: str | os.PathLike, *, parents: bool = True) -> Path:
    """``path`` as a folder only this user can use: made with mode 0o700 (its parents as usual),
    or an existing real folder owned by this user, narrowed to 0o700; PermissionError naming it
    when it is a symbolic link, not a folder, or another user's."""
    folder = Path(path)
    if parents:
        folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(folder, PRIVATE_MODE)
    except FileExistsError:
        pass
    try:
        fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) or os.path.islink(folder):
            why = "is a symbolic link"
        elif exc.errno == errno.ENOTDIR:
            why = "is not a folder"
        else:
            raise
        raise PermissionError(f"{folder} {why}: refused as a private folder") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISDIR(info.st_mode):  # no O_DIRECTORY on this platform
            raise PermissionError(f"{folder} is not a folder: refused as a private folder")
        uid = _uid()
        if uid is not None and info.st_uid != uid:
            raise PermissionError(
                f"{folder} belongs to another user (uid {info.st_uid}): refused as a private "
                "folder; remove it, or point TMPDIR / the cache setting elsewhere"
            )
        if stat.S_IMODE(info.st_mode) != PRIVATE_MODE and hasattr(os, "fchmod"):
            os.fchmod(fd, PRIVATE_MODE)  # the umask may have taken bits, or an old run left 0o755
    finally:
        os.close(fd)
    return folder


def _owned(info: os.stat_result) -> bool:
    """A regular file of this user's with one name: a hard link to another file is not one."""
    uid = _uid()
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1 and (uid is None or info.st_uid == uid)


def owned_file(path: str | os.PathLike) -> bool:
    """True for a regular file (a symbolic link is not followed) owned by this user, with no other
    name (a hard link planted to a private file is not one)."""
    try:
        return _owned(os.lstat(path))
    except OSError:
        return False


def open_owned(path: str | os.PathLike, flags: int = os.O_RDONLY) -> int:
    """A descriptor for the existing file ``path``, opened without following a link and checked,
    once open, to be a regular file owned by this user; PermissionError naming it otherwise."""
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise PermissionError(f"{os.fspath(path)} is a symbolic link: not opened") from None
        raise
    try:
        if not _owned(os.fstat(fd)):
            raise PermissionError(
                f"{os.fspath(path)} is not a regular file of this user's: not opened"
            )
    except BaseException:
        os.close(fd)
        raise
    return fd
