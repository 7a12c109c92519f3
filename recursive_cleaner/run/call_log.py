"""``log_calls``: one JSON line per model call, appended; a file that cannot be written never
stops the run (one warning).

The path is checked with every other output before the first call (``run.setup.check_run_paths``:
never an input or another output, a regular file or absent, not under /proc, /sys or /dev); each
append opens it again without following a link or blocking, and writes only to a regular file.
"""

from __future__ import annotations

import json
import logging
import os
import stat

__all__ = ["CallLog"]

log = logging.getLogger("recursive_cleaner")

# O_NONBLOCK: a FIFO put there after the check fails the open (no reader) instead of hanging it;
# O_NOFOLLOW: a link put there is never followed
_FLAGS = (
    os.O_WRONLY
    | os.O_APPEND
    | os.O_CREAT
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
)


class CallLog:
    """Append each call's entry to ``path`` as one line in one write (O_APPEND, never through a
    symlink, only to a regular file; a new file is the owner's only, 0600: prompts and replies
    quote the data); the first failure is warned about and the log is off for the rest of the
    run."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path, self.failed = os.fspath(path), False

    def __call__(self, entry: dict) -> None:
        if self.failed:
            return
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        try:
            fd = os.open(self.path, _FLAGS, 0o600)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO with a reader, a device
                    raise OSError(0, "not a regular file")
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
