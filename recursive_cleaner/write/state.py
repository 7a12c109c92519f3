"""The state file: written atomically after every chunk, read back to resume."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import OutputError, StateFileError

__all__ = [
    "STATE_VERSION",
    "save_state",
    "load_state",
    "atomic_write_text",
    "new_file_mode",
    "check_output_path",
    "system_folder",
    "make_parent",
]

STATE_VERSION = "0.2.0"
_REQUIRED = {
    "version": str,
    "file_path": str,
    "instructions": str,
    "chunk_size": int,
    "last_completed_chunk": int,
    "functions": list,
}


def new_file_mode(target: str | os.PathLike) -> int:
    """The mode a rewritten ``target`` gets: its current one, else 0o666 minus the process umask."""
    try:
        return os.stat(target).st_mode & 0o777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


# pseudo-file systems: their "files" are the kernel's (/proc/self/environ, a device), never output;
# /dev/shm holds ordinary files in memory
_SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")
_SYSTEM_EXCEPT = ("/dev/shm",)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def system_folder(path: str | os.PathLike) -> str | None:
    """The pseudo-file system ``path`` lies under (``/proc``, ``/sys``, ``/dev``), links resolved;
    None for any other path."""
    if os.name != "posix":
        return None
    real = os.path.realpath(os.fspath(path))
    if any(_under(real, f) for f in _SYSTEM_EXCEPT):
        return None
    return next((f for f in _SYSTEM_FOLDERS if _under(real, f)), None)


def check_output_path(path: str | os.PathLike) -> None:
    """OutputError unless ``path`` can be written as a regular file: it is absent or a regular file
    (not a symlink, folder, FIFO, socket or device), not under ``/proc``, ``/sys`` or ``/dev``, and
    the nearest existing folder above it is a folder, not a plain file.

    It only looks (``lstat``, never ``open``): a FIFO is refused without blocking on it.
    """
    target = Path(path)
    try:
        info = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise OutputError(
            f"{target} is a symbolic link: the library does not write through links "
            "(remove it or choose another path)"
        )
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise OutputError(
            f"{target} is not a regular file: it is not written (choose another path)"
        )
    system = system_folder(target)
    if system is not None:
        raise OutputError(
            f"{target} is under {system}, the system's own files: it is not written "
            "(choose another path)"
        )
    folder = target.absolute().parent
    while True:
        try:
            if not stat.S_ISDIR(os.stat(folder).st_mode):
                raise OutputError(f"cannot write {target}: {folder} is a file, not a folder")
            return
        except (FileNotFoundError, NotADirectoryError):
            if folder.parent == folder:
                return
            folder = folder.parent


def make_parent(path: str | os.PathLike) -> None:
    """Create the folder of ``path`` (checked first: ``check_output_path``); OutputError naming it
    on failure."""
    target = Path(path)
    check_output_path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder of {target}: {exc.strerror or exc}") from None


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` so a reader sees the old or the new file, never half of one.

    The mode is the existing file's, else 0o666 minus the umask like any other tool (0644 under
    022). ``path`` must be absent or a regular file (``check_output_path``: a symlink is never
    written through or replaced); the temporary file beside it is created new (``mkstemp``: O_EXCL,
    no link followed) and removed on any failure.
    """
    target = Path(path)
    make_parent(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:  # a folder that takes no new file (read-only, full, not ours)
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        os.chmod(fd, new_file_mode(target))
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        # disk full, a file-size limit, ...
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def save_state(path: str | os.PathLike, state: dict[str, Any]) -> None:
    """Stamp ``state`` with version and time and write it atomically as JSON."""
    data = {"version": STATE_VERSION, **state, "timestamp": datetime.now(timezone.utc).isoformat()}
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def load_state(path: str | os.PathLike) -> dict[str, Any]:
    """Read and check a state file; FileNotFoundError if absent, StateFileError (a ValueError) if
    unusable."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"state file not found: {p}")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise StateFileError(f"state file {p} is not valid JSON: {exc}") from None
    except RecursionError:  # json's decoder recurses: a hostile file nested 100,000 deep
        raise StateFileError(f"state file {p} is not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise StateFileError(f"state file {p} must hold a JSON object")
    for key, kind in _REQUIRED.items():
        if not isinstance(data.get(key), kind):
            raise StateFileError(
                f"state file {p} is missing '{key}' (or it is not a {kind.__name__})"
            )
    major = data["version"].split(".")[0]
    if major != STATE_VERSION.split(".")[0]:
        raise StateFileError(
            f"state file {p} has version {data['version']}; this library reads {STATE_VERSION}"
        )
    for i, f in enumerate(data["functions"]):
        if not (
            isinstance(f, dict)
            and all(isinstance(f.get(k), str) for k in ("name", "docstring", "code"))
        ):
            raise StateFileError(
                f"state file {p}: functions[{i}] needs string name, docstring and code"
            )
        if not f["name"].isidentifier():  # it is written into clean_data() as a call
            raise StateFileError(f"state file {p}: functions[{i}]'s name is not a Python name")
        examples = f.get("examples", [])
        if not isinstance(examples, list) or not all(
            isinstance(e, dict) and "input" in e and "output" in e for e in examples
        ):
            raise StateFileError(
                f"state file {p}: functions[{i}]'s examples must be a list of input/output pairs"
            )
    _check_entries(data, p)
    return data


# what resume and ``report`` read besides _REQUIRED: an entry present must have its type (the file
# is untrusted: a list where a dict belongs was a raw AttributeError in the middle of resuming)
_OPTIONAL = {
    "total_chunks": int,
    "file_size": int,
    "skipped_records": int,
    "unusable_replies": int,
    "rejected": list,
    "issues": list,
    "llm": dict,
    "options": dict,
    "early_termination": dict,
    "spec_draft": dict,
    "spec_ties": dict,
    "fingerprint": dict,
}
_WORDS = {int: "a whole number", list: "a list", dict: "an object"}
_LLM_COUNTS = ("calls", "failed_attempts", "prompt_tokens", "completion_tokens", "cached_tokens")


def _check_entries(data: dict[str, Any], p: Path) -> None:
    for key, kind in _OPTIONAL.items():
        value = data.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise StateFileError(f"state file {p}: '{key}' must be {_WORDS[kind]}")
    parts = {"rejected": list, "issues": dict}
    for key, kind in parts.items():
        if not all(isinstance(item, kind) for item in data.get(key) or ()):
            raise StateFileError(
                f"state file {p}: every entry of '{key}' must be a {kind.__name__}"
            )
    llm = data.get("llm") or {}
    counts = [llm.get(k, 0) for k in _LLM_COUNTS]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts):
        raise StateFileError(f"state file {p}: 'llm' must hold counts (whole numbers)")
