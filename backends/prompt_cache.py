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

The runtime reads a state file with no checks of its own, so only files this cache named are
touched (issue 28): a state is handed to llama.cpp only if its name is ``KEY-HASH.slot`` and it
is a regular file (not a symlink) owned by this user; pruning deletes only such files and this
cache's own temporary files (``KEY.PID-RANDOM.tmp``), never another ``*.slot`` or ``*.tmp``; the
folder is created readable by this user only (0o700).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from .model_files import cache_dir, sha256_of

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

    A state's file is named ``KEY-HASH.slot``, HASH being the start of its sha256: files are
    only ever renamed into place whole, so a file whose content does not match its name is
    damaged and is deleted before the runtime sees it (llama.cpp aborts the process on a
    truncated state).
    """

    folder: Path
    key: str
    keep: int = 2
    clock: Callable[[], float] = time.time
    restored_tokens: int = 0
    saved_tokens: int = 0
    failures: list[str] = field(default_factory=list)

    def states(self) -> list[Path]:
        """This key's state files, newest first."""
        try:
            mine = re.compile(re.escape(self.key) + r"-[0-9a-f]{16}" + re.escape(SUFFIX))
            found = [
                p
                for p in self.folder.glob(f"{self.key}-*{SUFFIX}")
                if mine.fullmatch(p.name) and _ours(p)
            ]
        except OSError:
            return []
        return sorted(found, key=_mtime, reverse=True)

    def restore(self, action: SlotAction) -> int:
        """Load the newest intact state into the runtime's slot; the tokens restored (0 when none or
        refused)."""
        for path in self.states():
            if path.stem.rpartition("-")[2] != _digest(path):
                self.failures.append(f"restore: {path.name} is damaged; deleted")
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
        """Write the slot's state under a temporary name, then rename it to its content's name; the
        tokens saved."""
        try:
            if not self.folder.is_dir():
                self.folder.mkdir(parents=True, mode=0o700)
                # the umask may have taken bits the mode asked for; never more
                os.chmod(self.folder, 0o700)
        except OSError as exc:
            self.failures.append(f"cannot create {self.folder}: {exc.strerror or exc}")
            return 0
        temp = self.folder / f"{self.key}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
        answer = self._act(action, "save", temp.name)
        tokens = answer.get("n_saved") if answer else None
        written = answer.get("n_written") if answer else None
        if not isinstance(tokens, int) or tokens <= 0 or not _ours(temp) or _size(temp) != written:
            _remove(temp)
            return 0
        final = self.folder / f"{self.key}-{_digest(temp)}{SUFFIX}"
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

    def prune(self) -> None:
        """Keep the ``keep`` newest states; remove temporary files older than an hour (a killed
        writer's)."""
        try:
            entries = list(self.folder.iterdir())
        except OSError:
            return
        states = sorted(
            (p for p in entries if _STATE_NAME.fullmatch(p.name) and _ours(p)),
            key=_mtime,
            reverse=True,
        )
        for old in states[self.keep :]:
            _remove(old)
        cutoff = self.clock() - 3600
        for temp in (
            p for p in entries if _TEMP_NAME.fullmatch(p.name) and _ours(p) and _mtime(p) < cutoff
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


def _digest(path: Path) -> str:
    """The first 16 hex digits of the file's sha256 ("" if it cannot be read)."""
    try:
        return sha256_of(path)[:16]
    except OSError:
        return ""


def _ours(path: Path) -> bool:
    """A regular file (a symlink is not followed) owned by this user: one this cache may read, hand
    on or delete."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    owner = getattr(os, "geteuid", None)
    return stat.S_ISREG(info.st_mode) and (owner is None or info.st_uid == owner())


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
