"""Live progress from the run's events: a rich progress bar on a terminal, plain lines elsewhere.

``LiveProgress`` is an ``on_progress`` callback (``DataCleaner(..., on_progress=LiveProgress())``
or ``apply_file(..., on_progress=LiveProgress())``). On a terminal, with the ``progress`` extra
(rich) installed, it draws a bar over the chunks with records/s and the ETA, the current activity
(calling the model, validating, consolidating ...), functions accepted/rejected and the model's
calls and tokens so far. In a Jupyter notebook it shows the same as an HTML bar updated in place
in the cell's output (an IPython display handle: nothing to install). Otherwise (CI, logs, a pipe,
rich absent) it prints one plain line per notable event. Output goes to stderr unless ``stream``
is given. rich and IPython are imported only when used.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, TextIO

from .progress_tally import ProgressTally
from .progress_views import NotebookView, PlainView, Timer, rich_view, thread_timer

__all__ = ["LiveProgress", "ProgressTally", "rich_available", "in_notebook"]


def rich_available() -> bool:
    """Whether rich (the ``progress`` extra) can be imported."""
    try:
        import rich.progress  # noqa: F401
    except ImportError:
        return False
    return True


def in_notebook() -> bool:
    """Whether this code runs in a Jupyter kernel (IPython's ZMQ shell), where an HTML display
    updates live."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


class LiveProgress:
    """An ``on_progress`` callback that shows a run live (rich bar on a terminal, else plain lines).

    ``live``: True forces the rich bar (rich must be installed), False forces plain lines,
    "notebook" the HTML bar of a Jupyter cell; None (default) picks the notebook bar in a Jupyter
    kernel (when no ``stream`` is given), else the rich bar when rich is installed and ``stream``
    (default stderr) is a terminal, else plain lines.
    The display stops at the ``complete`` event or on ``close()``; use it as a context manager so
    an error also stops it. ``tally`` holds the counts seen so far. While a model call runs, the
    bar and the notebook's HTML show its seconds so far (the bar redraws itself; the notebook is
    redrawn every second by ``timer``), the notebook adds the heartbeat once the call has taken
    ``heartbeat`` seconds, and plain lines add one every ``heartbeat`` seconds (None: off).
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        live: bool | str | None = None,
        refresh_per_second: float = 4.0,
        clock: Callable[[], float] = time.monotonic,
        heartbeat: float | None = 30.0,
        timer: Timer = thread_timer,
    ) -> None:
        self.stream, self.clock, self.refresh = stream, clock, refresh_per_second
        self.heartbeat, self.timer = heartbeat, timer
        target = stream if stream is not None else sys.stderr
        if live is None:
            live = (
                "notebook"
                if stream is None and in_notebook()
                else rich_available() and _is_terminal(target)
            )
        elif live and not rich_available():
            raise ImportError(
                "the live progress bar needs rich: pip install 'recursive-data-cleaner[progress]'",
                name="rich",
            )
        self.live = live
        self.tally = ProgressTally()
        self._view: Any = None

    def __call__(self, event: dict) -> None:
        if self._view is None and self.tally.finished:
            self.tally = ProgressTally()  # the same object reused for another run
        self.tally.update(event, self.clock())
        if self._view is None:
            if self.live == "notebook":
                self._view = NotebookView(
                    self.tally, self.clock, self.refresh, self.heartbeat, self.timer
                )
            elif self.live:
                self._view = rich_view(self.stream, self.tally, self.clock, self.refresh)
            else:
                self._view = PlainView(
                    lambda: self.stream or sys.stderr,
                    self.tally,
                    self.clock,
                    self.heartbeat,
                    self.timer,
                )
        self._view.show(event)
        if event.get("type") == "complete":
            self.close()

    def close(self) -> None:
        """Stop the live display (the last state stays on screen); later events start a new one."""
        view, self._view = self._view, None
        if view is not None:
            view.close()

    def __enter__(self) -> "LiveProgress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _is_terminal(stream: Any) -> bool:
    """A terminal that can redraw a line (not TERM=dumb)."""
    if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
