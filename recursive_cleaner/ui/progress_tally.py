"""The counts a run's progress events add up to, and the text both progress views show."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import clip_text

__all__ = ["ProgressTally", "tokens_text", "duration_text", "short_text", "waiting_text"]

_REASON = 120


def tokens_text(n: int) -> str:
    """A token count as ``950``, ``12.3k`` or ``1.2M``."""
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e4 else str(n)


def duration_text(seconds: float | None) -> str:
    """``H:MM:SS``, or ``-:--:--`` when unknown."""
    if seconds is None:
        return "-:--:--"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def short_text(text: Any, limit: int = _REASON) -> str:
    """One line of at most ``limit`` characters, terminal escape sequences removed
    (``clip_text``)."""
    return clip_text(" ".join(clip_text(text, 4 * limit).split()), limit)


def waiting_text(call: Any, seconds: float) -> str:
    """The heartbeat: ``still waiting for the model (call 3, 60 s)``."""
    return f"still waiting for the model (call {call}, {seconds:.0f} s)"


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
    chunk_calls: int = 0  # model calls started on the current chunk
    retries: int = 0  # failed model attempts tried again
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
    call: Any = None  # the model call under way (its number), and since when (None: no call)
    call_since: float | None = None

    def where(self) -> str:
        return (
            f"chunk {self.chunk}/{self.total_chunks}"
            if self.total_chunks
            else f"chunk {self.chunk}"
        )

    def retry_text(self, event: dict) -> str:
        """``HTTP 429, retrying in 3 s (call 4, attempt 1)``."""
        wait = event.get("wait_s") or 0
        return (
            f"{short_text(event.get('reason') or 'error', 40)}, retrying in {wait:.0f} s "
            f"(call {event.get('call')}, attempt {event.get('attempt')})"
        )

    def elapsed(self, now: float) -> float:
        if self.seconds is not None:
            return self.seconds
        return now - self.started if self.started is not None else 0.0

    def waiting(self, now: float) -> float | None:
        """Seconds the model call under way has taken so far; None when no call is under way."""
        return None if self.call_since is None else max(0.0, now - self.call_since)

    def activity_at(self, now: float) -> str:
        """The activity, with the seconds of the model call under way (``... · 25 s``)."""
        waited = self.waiting(now)
        return self.activity if waited is None else f"{self.activity} · {waited:.0f} s"

    def heartbeat(self, now: float, every: float | None) -> str:
        """The heartbeat once a model call has taken ``every`` seconds or more, else ""."""
        waited = self.waiting(now)
        if waited is None or not every or every <= 0 or waited < every:
            return ""
        return waiting_text(self.call, waited)

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
        if kind == "llm_request":
            self.call, self.call_since = event.get("call"), now
        elif kind != "llm_retry":  # a reply, a failure, anything else: no call under way
            self.call_since = None
        if kind == "chunk_start":
            if self.started is None:  # a resumed run starts with its chunks and functions counted
                self.started, self.chunks_done = now, event["chunk_index"]
                self.accepted = event.get("functions", self.accepted)
            self.chunk, self.chunk_records = event["chunk_index"] + 1, event.get("records", 0)
            self.chunk_calls = 0
            self.activity = f"{self.where()}: reading {self.chunk_records} records"
        elif kind == "chunk_profile":
            self.activity = f"{self.where()}: profiling the fields"
        elif kind == "iteration":  # the library's own function or a model call: no call yet
            self.activity = f"{self.where()}: looking for the next fix"
        elif kind == "function_from_hint":
            self.activity = f"{self.where()}: trying the library's own function for a field"
        elif kind == "llm_request":  # the calls counted so far agree: this one is the next
            self.chunk_calls += 1
            purpose = event.get("purpose") or "generate"
            self.activity = f"{self.where()}: calling the model " + (
                f"(call {self.chunk_calls} for this chunk)"
                if purpose == "generate"
                else f"({purpose})"
            )
        elif kind == "llm_retry":
            self.retries += 1
            self.activity = f"{self.where()}: {self.retry_text(event)}"
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
        elif kind == "open_pass_skipped":
            self.activity = f"{self.where()}: {short_text(event.get('reason', ''))}"
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
            parts.append(f"model {self.calls} calls, {tokens_text(self.tokens)} tokens")
        if self.skipped_lines:
            parts.append(f"{self.skipped_lines} bad input lines skipped")
        return " · ".join(parts)
