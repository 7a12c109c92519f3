"""``log_calls``: one JSON line per model call, appended; a file that cannot be written never
stops the run (one warning)."""

from __future__ import annotations

import json
import logging
import os

__all__ = ["CallLog"]

log = logging.getLogger("recursive_cleaner")


class CallLog:
    """Append each call's entry to ``path`` as one line in one write (O_APPEND, never through a
    symlink; a new file is the owner's only, 0600: prompts and replies quote the data); the first
    failure is warned about and the log is off for the rest of the run."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path, self.failed = os.fspath(path), False

    def __call__(self, entry: dict) -> None:
        if self.failed:
            return
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.path, flags, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError as exc:
            self.failed = True
            log.warning(
                "--log-calls %s cannot be written (%s): model calls are not logged",
                self.path,
                exc.strerror or exc,
            )
