"""The local model's prompt cache on disk: what one process read, the next one need not read again.

Prompt reading is most of a call on a CPU (~65 tokens/s for the embedded 1.5B). Within a
process llama.cpp keeps the tokens it read in its slot and reuses the longest common prefix
of the next prompt. That is lost when the process ends, so a run with one call (the README's
main job) reused nothing. This module saves the slot to a file after a process's first call
and restores it when the model loads: the next run's calls start from the longest common
prefix with that state, which is the role, contract, toolkit and reply format of every
cleaning prompt, and the whole prompt when the same job runs again.

A state is only valid for the exact model file, context size, runtime version and KV types,
so the file name starts with a hash of all of them. Files are written to a temporary name and
renamed to a name that ends in a hash of their content, so a reader never sees half a file and
a damaged one is found before the runtime reads it; a file the runtime refuses is deleted; at
most ``keep`` files stay. Every failure here is swallowed and recorded in ``failures``: the
cache can only save time.

The runtime reads a state file with no checks of its own, so only files this cache wrote are
touched (issues 28 and 43): the folder is a private one (``private_dir.private_folder``: 0o700,
this user's, not a symbolic link; else the cache is off); a state is handed to llama.cpp only if
its name is ``KEY-MAC.slot``, it is a regular file (not a symlink) owned by this user, and MAC is
the start of the HMAC-SHA256 of its content under this folder's own random key (``slot-key``,
0o600, written once): a file planted there, even one named by its content's sha256, is deleted
unread. Pruning deletes only such files and this cache's own temporary files
(``KEY.PID-RANDOM.tmp``), never another ``*.slot`` or ``*.tmp``. (A process of the same user that
reads the key can still sign a state: nothing on disk stops the same user.)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from .model_files import cache_dir
from .private_dir import open_owned, owned_file, private_folder

__all__ = [
    "PROMPT_CACHE_ENV",
    "PromptCache",
    "prompt_cache_dir",
    "resolve_prompt_cache",
    "state_key",
]

PROMPT_CACHE_ENV = "RECURSIVE_CLEANER_PROMPT_CACHE"
"""A folder for the saved prompt states, or ``off`` (also ``0``, ``false``, ``no``) for none."""

_OFF = {"off", "0", "false", "no", "none"}
SUFFIX = ".slot"
# KEY-HASH.slot: a state this cache wrote
_STATE_NAME = re.compile(r"[0-9a-f]{32}-[0-9a-f]{16}\.slot")
# KEY.PID-RANDOM.tmp: one it is writing
_TEMP_NAME = re.compile(r"[0-9a-f]{32}\.\d+-[0-9a-f]{8}\.tmp")
# the folder's own signing key: 32 random bytes, 0o600
KEY_FILE = "slot-key"
_KEY_BYTES = 32
_CHUNK = 1 << 20

# action(name, filename) -> the runtime's JSON answer; name is "save" or "restore".
SlotAction = Callable[[str, str], dict]


def prompt_cache_dir() -> Path | None:
    """``$RECURSIVE_CLEANER_PROMPT_CACHE`` (None when it says off), else ``prompt-cache`` in the
    model cache."""
    env = os.environ.get(PROMPT_CACHE_ENV, "").strip()
    if env and env.lower() in _OFF:
        return None
    return Path(env).expanduser() if env else cache_dir() / "prompt-cache"


def resolve_prompt_cache(setting: bool | str | os.PathLike[str] | None) -> Path | None:
    """The folder a LocalBackend's ``prompt_cache`` names: True = the default, False/None/"off" =
    none."""
    if setting is True:
        return prompt_cache_dir()
    if setting is None or setting is False:
        return None
    if isinstance(setting, str) and setting.strip().lower() in _OFF:
        return None
    return Path(setting).expanduser()


def state_key(parts: Iterable[Any]) -> str:
    """A file-name-safe hash of everything a saved state depends on."""
    text = json.dumps([str(p) for p in parts], separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def model_identity(model_path: str) -> list[Any]:
    """The model file as a saved state depends on it: real path, size and modification time."""
    real = os.path.realpath(model_path)
    try:
        st = os.stat(real)
    except OSError:
        return [real, None, None]
    return [real, st.st_size, st.st_mtime_ns]


@dataclass
class PromptCache:
    """Saved prompt states in ``folder`` under ``key``; ``restore`` once on load, ``save`` after a
    call.

    A state's file is named ``KEY-MAC.slot``, MAC being the start of the HMAC-SHA256 of its content
    under the folder's key: files are only ever renamed into place whole, so a file whose content
    does not match its name is damaged or was not written by this cache, and is deleted before
    the runtime sees it (llama.cpp aborts the process on a truncated state, and reads a crafted one
    with no checks).
    """

    folder: Path
    key: str
    keep: int = 2
    clock: Callable[[], float] = time.time
    restored_tokens: int = 0
    saved_tokens: int = 0
    failures: list[str] = field(default_factory=list)
    _secret: bytes | None = field(default=None, init=False, repr=False)

    def states(self) -> list[Path]:
        """This key's state files, newest first."""
        try:
            mine = re.compile(re.escape(self.key) + r"-[0-9a-f]{16}" + re.escape(SUFFIX))
            found = [
                p
                for p in self.folder.glob(f"{self.key}-*{SUFFIX}")
                if mine.fullmatch(p.name) and owned_file(p)
            ]
        except OSError:
            return []
        return sorted(found, key=_mtime, reverse=True)

    def restore(self, action: SlotAction) -> int:
        """Load the newest intact state into the runtime's slot; the tokens restored (0 when none or
        refused)."""
        if not os.path.lexists(self.folder) or not self._private():
            return 0
        states = self.states()
        secret = self._signing_key(create=False) if states else None
        for path in states:
            if secret is None or path.stem.rpartition("-")[2] != _mac(path, secret):
                self.failures.append(
                    f"restore: {path.name} is damaged or was not saved by this cache; deleted"
                )
                _remove(path)
                continue
            answer = self._act(action, "restore", path.name)
            tokens = answer.get("n_restored") if answer else None
            if not isinstance(tokens, int) or tokens <= 0:
                # refused: a state this runtime cannot read is no use to the next run either
                _remove(path)
                return 0
            self.restored_tokens = tokens
            return tokens
        return 0

    def save(self, action: SlotAction) -> int:
        """Write the slot's state under a temporary name, then rename it to its content's signed
        name; the tokens saved."""
        if not self._private():
            return 0
        temp = self.folder / f"{self.key}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
        answer = self._act(action, "save", temp.name)
        tokens = answer.get("n_saved") if answer else None
        written = answer.get("n_written") if answer else None
        if (
            not isinstance(tokens, int)
            or tokens <= 0
            or not owned_file(temp)
            or _size(temp) != written
        ):
            _remove(temp)
            return 0
        secret = self._signing_key(create=True)
        mac = _mac(temp, secret) if secret is not None else ""
        if not mac:
            _remove(temp)
            return 0
        final = self.folder / f"{self.key}-{mac}{SUFFIX}"
        try:
            os.replace(temp, final)
        except OSError as exc:
            self.failures.append(f"cannot rename the saved state: {exc.strerror or exc}")
            _remove(temp)
            return 0
        self.saved_tokens = tokens
        for older in self.states():
            if older != final:
                _remove(older)
        self.prune()
        return tokens

    def _private(self) -> bool:
        """The folder made or checked as this user's only (0o700, not a link); a failure
        recorded."""
        try:
            private_folder(self.folder)
        except OSError as exc:
            self.failures.append(f"cannot create or use {self.folder}: {exc.strerror or exc}")
            return False
        return True

    def _signing_key(self, *, create: bool) -> bytes | None:
        """The folder's key (written once when ``create``); None, the failure recorded, when it
        is missing or is not a 0o600 regular file of this user's holding 32 bytes."""
        if self._secret is not None:
            return self._secret
        path = self.folder / KEY_FILE
        if create and not os.path.lexists(path):
            _write_key(path)
        try:
            fd = open_owned(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.failures.append(f"key: {exc.strerror or exc}")
            return None
        try:
            shared = stat.S_IMODE(os.fstat(fd).st_mode) & 0o077
            data = os.read(fd, _KEY_BYTES + 1)
        finally:
            os.close(fd)
        if shared or len(data) != _KEY_BYTES:
            self.failures.append(f"key: {path} is not this cache's key (mode or size); not used")
            return None
        self._secret = data
        return data

    def prune(self) -> None:
        """Keep the ``keep`` newest states; remove temporary files older than an hour (a killed
        writer's)."""
        try:
            entries = list(self.folder.iterdir())
        except OSError:
            return
        states = sorted(
            (p for p in entries if _STATE_NAME.fullmatch(p.name) and owned_file(p)),
            key=_mtime,
            reverse=True,
        )
        for old in states[self.keep :]:
            _remove(old)
        cutoff = self.clock() - 3600
        for temp in (
            p
            for p in entries
            if _TEMP_NAME.fullmatch(p.name) and owned_file(p) and _mtime(p) < cutoff
        ):
            _remove(temp)

    def _act(self, action: SlotAction, name: str, filename: str) -> dict | None:
        try:
            answer = action(name, filename)
        # the cache only saves time; any failure means "no cache"
        except Exception as exc:  # noqa: BLE001
            self.failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
            return None
        if not isinstance(answer, dict) or "error" in answer:
            self.failures.append(f"{name}: {str(answer)[:200]}")
            return None
        return answer


def _mac(path: Path, secret: bytes) -> str:
    """The first 16 hex digits of the HMAC-SHA256 of the file's content under ``secret`` ("" if
    it is not a regular file of this user's or cannot be read)."""
    mac = hmac.new(secret, digestmod=hashlib.sha256)
    try:
        with os.fdopen(open_owned(path), "rb") as fh:
            while chunk := fh.read(_CHUNK):
                mac.update(chunk)
    except OSError:
        return ""
    return mac.hexdigest()[:16]


def _write_key(path: Path) -> None:
    """A new random key at ``path``, 0o600, linked into place whole (a key another process wrote
    first is kept)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}")
    try:
        fd = os.open(
            temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(_KEY_BYTES))
        os.link(temp, path)
    except OSError:
        pass  # another process linked its key first, or the folder is read-only: read what is there
    finally:
        _remove(temp)


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
