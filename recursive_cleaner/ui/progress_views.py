"""How the tally is shown: plain lines, the rich bar on a terminal, the HTML bar of a notebook."""

from __future__ import annotations

import html
import threading
from typing import Any, Callable, TextIO

from .progress_tally import ProgressTally, duration_text, short_text, waiting_text

__all__ = ["PlainView", "rich_view", "generate_head", "NotebookView", "Timer", "thread_timer"]

Timer = Callable[[float, Callable[[], None]], Callable[[], None]]
"""``timer(interval, tick)`` calls ``tick`` every ``interval`` seconds until the returned stop."""


def thread_timer(interval: float, tick: Callable[[], None]) -> Callable[[], None]:
    """A daemon thread calling ``tick`` every ``interval`` seconds; the stop function it returns."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval):
            tick()

    threading.Thread(target=loop, name="recursive-cleaner-heartbeat", daemon=True).start()
    return stop.set


class PlainView:
    """One line per notable event, with the elapsed time: for logs, CI and pipes.

    While a model call runs, a heartbeat line every ``heartbeat`` seconds ("still waiting for the
    model (call 3, 60 s)"), from ``timer`` (a thread; tests pass their own and call ``tick``).
    """

    def __init__(
        self,
        stream: Callable[[], TextIO],
        tally: ProgressTally,
        clock: Callable[[], float],
        heartbeat: float | None = 30.0,
        timer: Timer = thread_timer,
    ) -> None:
        self.stream, self.tally, self.clock = stream, tally, clock
        self.start, self.last_apply = clock(), float("-inf")
        self.heartbeat, self.timer = heartbeat, timer
        self.waiting: tuple[Any, float, float] | None = None  # call, since, next beat
        self.stop_timer: Callable[[], None] | None = None
        self.lock = threading.Lock()  # the timer's thread and the run's

    def tick(self) -> None:
        """A heartbeat line when the model call has taken another ``heartbeat`` seconds."""
        with self.lock:
            waiting, now = self.waiting, self.clock()
            if waiting is None or self.heartbeat is None or now < waiting[2]:
                return
            call, since, _ = waiting
            self.waiting = (call, since, now + self.heartbeat)
            self.line(f"  {waiting_text(call, now - since)}")

    def wait_for(self, call: Any) -> None:
        """A model call starts: the heartbeat counts from now."""
        self.done_waiting()
        if self.heartbeat is None or self.heartbeat <= 0:
            return
        now = self.clock()
        self.waiting = (call, now, now + self.heartbeat)
        self.stop_timer = self.timer(min(1.0, self.heartbeat), self.tick)

    def done_waiting(self) -> None:
        """The call is over (a reply, an error, the end): no more heartbeat lines."""
        with self.lock:
            stop, self.stop_timer, self.waiting = self.stop_timer, None, None
        if stop is not None:
            stop()

    def line(self, text: str) -> None:
        print(f"[{self.clock() - self.start:6.0f}s] {text}", file=self.stream(), flush=True)

    def show(self, e: dict) -> None:
        t, kind, now = self.tally, e.get("type"), self.clock()
        if kind == "llm_request":
            self.wait_for(e.get("call"))
        elif kind != "llm_retry":
            self.done_waiting()
        if kind == "llm_retry":
            self.line(f"  {t.retry_text(e)}")
        elif kind == "chunk_start":
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
            self.line(f"  - rejected {e.get('function_name')}: {short_text(e.get('error', ''))}")
        elif kind == "parse_error":
            self.line(f"  - unusable reply: {short_text(e.get('error', ''))}")
        elif kind == "issues_detected":
            self.line(f"  {len(e.get('issues') or ())} issue(s) found")
        elif kind == "chunk_done":
            self.line(
                f"  {t.where()} {e.get('status')} · {t.counts()} · {t.records_per_s(now):.1f} "
                "records/s"
                f" · ETA {duration_text(t.eta(now))}"
            )
        elif kind == "early_termination":
            self.line(
                f"stopped early after {e.get('chunks_processed')} chunks: "
                f"{short_text(e.get('reasoning', ''))}"
            )
        elif kind == "open_pass_skipped":
            self.line(f"  {short_text(e.get('reason', ''))}")
        elif kind == "optimize_start":
            self.line(f"consolidating {e.get('function_count')} functions")
        elif kind == "optimize_complete":
            self.line(f"consolidated {e.get('original')} -> {e.get('final')} functions")
        elif kind == "apply_progress" and now - self.last_apply >= 1.0:
            self.last_apply = now
            self.line(f"applied {t.counts()} · {t.records_per_s(now):,.0f} records/s")
        elif kind == "complete":
            self.line(f"done in {duration_text(t.elapsed(now))}: {t.counts()}")

    def close(self) -> None:
        self.done_waiting()


def generate_head(tally: ProgressTally, now: float) -> str:
    """A generate run's head line: chunks, the elapsed time, records/s and the ETA."""
    return (
        f"{tally.chunks_done}/{tally.total_chunks or '?'} chunks · "
        f"{duration_text(tally.elapsed(now))} elapsed · "
        f"{tally.records_per_s(now):.1f} records/s · ETA {duration_text(tally.eta(now))}"
    )


def rich_view(
    stream: TextIO | None, tally: ProgressTally, clock: Callable[[], float], refresh: float
) -> Any:
    """The live display: spinner, bar, chunks, records/s, ETA; the activity and the totals below."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, TaskProgressColumn
    from rich.text import Text

    class Stats(ProgressColumn):
        def render(self, task: Any) -> Text:
            now = clock()
            if tally.kind == "apply":
                return Text(
                    f"{tally.records_per_s(now):,.0f} records/s · "
                    f"{duration_text(tally.elapsed(now))}",
                    "cyan",
                )
            return Text(generate_head(tally, now), "cyan")

    class Display(Progress):
        def get_renderables(self):
            yield self.make_tasks_table(self.tasks)
            # redrawn by rich's own refresh: the seconds of a model call move while it runs
            yield Text("  " + tally.activity_at(clock()), overflow="ellipsis", no_wrap=True)
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


class NotebookView:
    """An HTML bar in the cell's output, updated in place through an IPython display handle.

    While a model call runs, ``timer`` (a thread; tests pass their own) redraws it every second:
    the call's seconds, and the heartbeat once it has taken ``heartbeat`` seconds (None: none).
    """

    TICK = 1.0  # seconds between redraws while a model call runs
    ALWAYS = frozenset(
        {"chunk_start", "chunk_done", "complete", "function_generated", "llm_request", "llm_call"}
    )

    def __init__(
        self,
        tally: ProgressTally,
        clock: Callable[[], float],
        refresh: float,
        heartbeat: float | None = 30.0,
        timer: Timer = thread_timer,
    ) -> None:
        from IPython.display import HTML, display

        self.HTML, self.tally, self.clock = HTML, tally, clock
        self.heartbeat, self.timer = heartbeat, timer
        self.every, self.last = 1.0 / refresh if refresh > 0 else 0.0, float("-inf")
        self.stop_timer: Callable[[], None] | None = None
        self.lock = threading.Lock()  # the timer's thread and the run's
        self.handle = display(HTML(self.html()), display_id=True)

    def html(self) -> str:
        t, now = self.tally, self.clock()
        if t.kind == "apply":
            bar, head = (
                "<progress></progress>",
                f"{t.records_per_s(now):,.0f} records/s · {duration_text(t.elapsed(now))}",
            )
        else:
            total = t.total_chunks or 0
            bar = (
                f'<progress value="{t.chunks_done}" max="{total}"></progress>'
                if total
                else "<progress></progress>"
            )
            head = generate_head(t, now)
        beat = t.heartbeat(now, self.heartbeat)
        return (
            f'<div class="recursive-cleaner-progress">{bar} {html.escape(head)}<br>'
            f"<span>{html.escape(short_text(t.activity_at(now)))}</span><br>"
            + (f"<span>{html.escape(beat)}</span><br>" if beat else "")
            + f'<small style="opacity:.7">{html.escape(t.counts())}</small></div>'
        )

    def redraw(self) -> None:
        with self.lock:
            self.last = self.clock()
            self.handle.update(self.HTML(self.html()))

    def tick(self) -> None:
        """A redraw while a model call runs (the timer's)."""
        if self.tally.call_since is not None:
            self.redraw()

    def show(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "llm_request" and self.stop_timer is None:
            self.stop_timer = self.timer(self.TICK, self.tick)
        elif kind not in ("llm_request", "llm_retry"):
            self.stop_ticks()
        if self.clock() - self.last >= self.every or kind in self.ALWAYS:
            self.redraw()

    def stop_ticks(self) -> None:
        stop, self.stop_timer = self.stop_timer, None
        if stop is not None:
            stop()

    def close(self) -> None:
        self.stop_ticks()
        self.redraw()
