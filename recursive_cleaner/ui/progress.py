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

import html
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

from ..errors import clip_text

__all__ = ["LiveProgress", "ProgressTally", "rich_available", "in_notebook"]

_REASON = 120


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


def _tokens(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e4 else str(n)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _short(text: Any, limit: int = _REASON) -> str:
    """One line of at most ``limit`` characters, terminal escape sequences removed
    (``clip_text``)."""
    return clip_text(" ".join(clip_text(text, 4 * limit).split()), limit)


@dataclass
class ProgressTally:
    """Running counts gathered from the events: what both views show."""

    kind: str = "generate"  # "apply" once an apply_progress event arrives
    chunk: int = 0  # the current chunk, counted from 1
    total_chunks: int = 0
    chunks_done: int = 0  # chunks finished, including those of an earlier run (resume)
    done_this_run: int = 0
    chunk_records: int = 0
    records: int = 0  # records of the chunks finished in this run (apply: records read)
    accepted: int = 0
    revised: int = 0
    rejected: int = 0
    unusable: int = 0  # replies that could not be parsed
    calls: int = 0
    tokens: int = 0
    skipped_lines: int = 0
    issues: int = 0  # dry run: distinct issues found
    seen_issues: set = field(default_factory=set)
    failed: int = 0  # apply: records clean_data failed on
    activity: str = "starting"
    started: float | None = None
    seconds: float | None = None  # apply: the run's own clock
    stopped_early: bool = False
    finished: bool = False

    def where(self) -> str:
        return (
            f"chunk {self.chunk}/{self.total_chunks}"
            if self.total_chunks
            else f"chunk {self.chunk}"
        )

    def elapsed(self, now: float) -> float:
        if self.seconds is not None:
            return self.seconds
        return now - self.started if self.started is not None else 0.0

    def records_per_s(self, now: float) -> float:
        elapsed = self.elapsed(now)
        return self.records / elapsed if elapsed > 0 else 0.0

    def eta(self, now: float) -> float | None:
        """Seconds left at this run's pace over whole chunks; None before the first chunk is
        done."""
        if self.kind != "generate" or not self.done_this_run or not self.total_chunks:
            return None
        left = max(0, self.total_chunks - self.chunks_done)
        return 0.0 if self.finished else self.elapsed(now) / self.done_this_run * left

    def update(self, event: dict, now: float) -> None:
        """Count one event and set the activity it implies."""
        kind = event.get("type")
        self.total_chunks = event.get("total_chunks") or self.total_chunks
        if kind == "chunk_start":
            if self.started is None:  # a resumed run starts with its chunks and functions counted
                self.started, self.chunks_done = now, event["chunk_index"]
                self.accepted = event.get("functions", self.accepted)
            self.chunk, self.chunk_records = event["chunk_index"] + 1, event.get("records", 0)
            self.activity = f"{self.where()}: reading {self.chunk_records} records"
        elif kind == "chunk_profile":
            self.activity = f"{self.where()}: profiling the fields"
        elif kind == "iteration":
            self.activity = (
                f"{self.where()}: calling the model (call {event.get('iteration', 1)} for this "
                "chunk)"
            )
        elif kind == "llm_call":
            self.calls += 1
            self.tokens += (event.get("prompt_tokens") or 0) + (event.get("completion_tokens") or 0)
            self.activity = f"{self.where()}: validating the reply"
        elif kind == "function_generated":
            self.accepted += 1
            self.activity = f"{self.where()}: accepted {event.get('function_name')}"
        elif kind == "function_modified":
            self.revised += 1
        elif kind == "validation_failed":
            self.rejected += 1
            self.activity = f"{self.where()}: rejected {event.get('function_name')}"
        elif kind == "parse_error":
            self.unusable += 1
        elif kind == "issues_detected":  # each chunk reports its own: count each field / text once
            for issue in event.get("issues") or ():
                item = issue if isinstance(issue, dict) else {"issue": issue}
                self.seen_issues.add(
                    item.get("field") or " ".join(str(item.get("issue", "")).split())
                )
            self.issues = len(self.seen_issues)
        elif kind == "record_skipped":
            self.skipped_lines += 1
        elif kind == "chunk_done":
            self.chunks_done, self.done_this_run = event["chunk_index"] + 1, self.done_this_run + 1
            self.records += self.chunk_records
            last = self.total_chunks and self.chunks_done >= self.total_chunks
            self.activity = (
                "writing the functions and the report"
                if last
                else f"{self.where()}: {event.get('status')}"
            )
        elif kind == "early_termination":
            self.stopped_early, self.activity = (
                True,
                "stopped early: writing the functions and the report",
            )
        elif kind == "optimize_start":
            self.activity = f"consolidating {event.get('function_count')} functions"
        elif kind == "optimize_round":
            self.activity = f"consolidating: group {event.get('group')}, round {event.get('round')}"
        elif kind == "apply_progress":
            self.kind, self.records, self.failed = (
                "apply",
                event.get("records_in", 0),
                event.get("failed", 0),
            )
            self.skipped_lines, self.seconds = event.get("skipped_input", 0), event.get("seconds")
            self.activity = "applying clean_data"
        elif kind == "complete":
            self.finished, self.activity = (
                True,
                "done" + (" (stopped early)" if self.stopped_early else ""),
            )
            self.calls = event.get("llm_calls", self.calls)
            self.tokens = (event.get("prompt_tokens") or 0) + (
                event.get("completion_tokens") or 0
            ) or self.tokens

    def counts(self) -> str:
        """One line of totals: functions, model calls and tokens, skipped lines."""
        if self.kind == "apply":
            parts = [f"{self.records:,} records", f"{self.failed} failed"]
        elif self.issues and not self.accepted:
            parts = [f"{self.issues} issues found"]
        else:
            parts = [
                f"functions {self.accepted} accepted, {self.rejected} rejected"
                + (f", {self.revised} revised" if self.revised else "")
                + (f", {self.unusable} unusable replies" if self.unusable else "")
            ]
        if self.kind != "apply":
            parts.append(f"model {self.calls} calls, {_tokens(self.tokens)} tokens")
        if self.skipped_lines:
            parts.append(f"{self.skipped_lines} bad input lines skipped")
        return " · ".join(parts)


class _PlainView:
    """One line per notable event, with the elapsed time: for logs, CI and pipes."""

    def __init__(
        self, stream: Callable[[], TextIO], tally: ProgressTally, clock: Callable[[], float]
    ) -> None:
        self.stream, self.tally, self.clock = stream, tally, clock
        self.start, self.last_apply = clock(), float("-inf")

    def line(self, text: str) -> None:
        print(f"[{self.clock() - self.start:6.0f}s] {text}", file=self.stream(), flush=True)

    def show(self, e: dict) -> None:
        t, kind, now = self.tally, e.get("type"), self.clock()
        if kind == "chunk_start":
            self.line(f"{t.where()} ({e.get('records', 0)} records)")
        elif kind == "llm_call":
            toks = (
                f", {e['prompt_tokens']}+{e['completion_tokens']} tokens"
                if e.get("prompt_tokens")
                else ""
            )
            self.line(f"  model replied in {e.get('latency_ms', 0) / 1000:.1f}s{toks}")
        elif kind == "function_generated":
            self.line(
                f"  + accepted {e.get('function_name')}"
                + (f" ({e['field']})" if e.get("field") else "")
            )
        elif kind == "function_modified":
            self.line(f"  ~ revised {e.get('function_name')}")
        elif kind == "validation_failed":
            self.line(f"  - rejected {e.get('function_name')}: {_short(e.get('error', ''))}")
        elif kind == "parse_error":
            self.line(f"  - unusable reply: {_short(e.get('error', ''))}")
        elif kind == "issues_detected":
            self.line(f"  {len(e.get('issues') or ())} issue(s) found")
        elif kind == "chunk_done":
            self.line(
                f"  {t.where()} {e.get('status')} · {t.counts()} · {t.records_per_s(now):.1f} "
                "records/s"
                f" · ETA {_duration(t.eta(now))}"
            )
        elif kind == "early_termination":
            self.line(
                f"stopped early after {e.get('chunks_processed')} chunks: "
                f"{_short(e.get('reasoning', ''))}"
            )
        elif kind == "optimize_start":
            self.line(f"consolidating {e.get('function_count')} functions")
        elif kind == "optimize_complete":
            self.line(f"consolidated {e.get('original')} -> {e.get('final')} functions")
        elif kind == "apply_progress" and now - self.last_apply >= 1.0:
            self.last_apply = now
            self.line(f"applied {t.counts()} · {t.records_per_s(now):,.0f} records/s")
        elif kind == "complete":
            self.line(f"done in {_duration(t.elapsed(now))}: {t.counts()}")

    def close(self) -> None:
        pass


def _rich_view(
    stream: TextIO | None, tally: ProgressTally, clock: Callable[[], float], refresh: float
):
    """The live display: spinner, bar, chunks, records/s, ETA; the activity and the totals below."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, TaskProgressColumn
    from rich.text import Text

    class Stats(ProgressColumn):
        def render(self, task: Any) -> Text:
            now = clock()
            if tally.kind == "apply":
                return Text(
                    f"{tally.records_per_s(now):,.0f} records/s · {_duration(tally.elapsed(now))}",
                    "cyan",
                )
            return Text(
                f"{tally.chunks_done}/{tally.total_chunks or '?'} chunks · "
                f"{tally.records_per_s(now):.1f} records/s · ETA {_duration(tally.eta(now))}",
                "cyan",
            )

    class Display(Progress):
        def get_renderables(self):
            yield self.make_tasks_table(self.tasks)
            yield Text("  " + tally.activity, overflow="ellipsis", no_wrap=True)
            yield Text("  " + tally.counts(), "dim", overflow="ellipsis", no_wrap=True)

    console = Console(file=stream) if stream is not None else Console(stderr=True)
    display = Display(
        SpinnerColumn(),
        BarColumn(bar_width=24),
        TaskProgressColumn(),
        Stats(),
        console=console,
        refresh_per_second=refresh,
    )

    class View:
        def __init__(self) -> None:
            self.task = display.add_task("", total=None)
            self.sized = False
            self.show({})
            display.start()

        def show(self, _event: dict) -> None:
            if not self.sized and tally.total_chunks and tally.kind == "generate":
                display.reset(self.task, total=tally.total_chunks, completed=tally.chunks_done)
                self.sized = True
            elif self.sized:
                display.update(self.task, completed=tally.chunks_done)

        def close(self) -> None:
            display.refresh()
            display.stop()

    return View()


class _NotebookView:
    """An HTML bar in the cell's output, updated in place through an IPython display handle."""

    def __init__(self, tally: ProgressTally, clock: Callable[[], float], refresh: float) -> None:
        from IPython.display import HTML, display

        self.HTML, self.tally, self.clock = HTML, tally, clock
        self.every, self.last = 1.0 / refresh if refresh > 0 else 0.0, float("-inf")
        self.handle = display(HTML(self.html()), display_id=True)

    def html(self) -> str:
        t, now = self.tally, self.clock()
        if t.kind == "apply":
            bar, head = (
                "<progress></progress>",
                f"{t.records_per_s(now):,.0f} records/s · {_duration(t.elapsed(now))}",
            )
        else:
            total = t.total_chunks or 0
            bar = (
                f'<progress value="{t.chunks_done}" max="{total}"></progress>'
                if total
                else "<progress></progress>"
            )
            head = (
                f"{t.chunks_done}/{total or '?'} chunks · {t.records_per_s(now):.1f} records/s · "
                f"ETA {_duration(t.eta(now))}"
            )
        return (
            f'<div class="recursive-cleaner-progress">{bar} {html.escape(head)}<br>'
            f"<span>{html.escape(_short(t.activity))}</span><br>"
            f'<small style="opacity:.7">{html.escape(t.counts())}</small></div>'
        )

    def show(self, event: dict) -> None:
        now = self.clock()
        if now - self.last >= self.every or event.get("type") in (
            "chunk_done",
            "complete",
            "function_generated",
        ):
            self.last = now
            self.handle.update(self.HTML(self.html()))

    def close(self) -> None:
        self.handle.update(self.HTML(self.html()))


class LiveProgress:
    """An ``on_progress`` callback that shows a run live (rich bar on a terminal, else plain lines).

    ``live``: True forces the rich bar (rich must be installed), False forces plain lines,
    "notebook" the HTML bar of a Jupyter cell; None (default) picks the notebook bar in a Jupyter
    kernel (when no ``stream`` is given), else the rich bar when rich is installed and ``stream``
    (default stderr) is a terminal, else plain lines.
    The display stops at the ``complete`` event or on ``close()``; use it as a context manager so
    an error also stops it. ``tally`` holds the counts seen so far.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        live: bool | str | None = None,
        refresh_per_second: float = 4.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream, self.clock, self.refresh = stream, clock, refresh_per_second
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
                self._view = _NotebookView(self.tally, self.clock, self.refresh)
            elif self.live:
                self._view = _rich_view(self.stream, self.tally, self.clock, self.refresh)
            else:
                self._view = _PlainView(lambda: self.stream or sys.stderr, self.tally, self.clock)
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
