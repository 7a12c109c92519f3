"""What a sandbox child's run gives back: ``BatchReply`` (one batch, as the worker read it),
``SandboxResult`` (the outputs parsed: ``as_result``), and the words for a child that died
(``death_message``)."""

from __future__ import annotations

import json
import signal
import time
from dataclasses import dataclass, field
from typing import Callable

from ._child_policy import MEMORY_EXIT

__all__ = ["SandboxResult", "BatchReply", "as_result", "death_message"]


@dataclass
class SandboxResult:
    """What happened when code ran in the sandbox; ``ok`` is False when the run as a whole
    failed."""

    ok: bool
    outputs: list = field(default_factory=list)
    errors: list[str | None] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    error: str | None = None
    duration_s: float = 0.0


@dataclass
class BatchReply:
    """A worker's answer to one batch: ``payload`` holds n JSON texts joined by b"\\n" (b"" where a
    record failed).

    ``failed`` holds (record index, error) pairs, plus the line offset for raw JSONL batches, whose
    ``skipped`` lists the offsets of lines that are not UTF-8, not JSON, or not an object.
    """

    n: int = 0
    payload: bytes = b""
    failed: list[tuple] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        """False when the batch (or the load) as a whole failed; the worker is then closed."""
        return self.error is None and not self.violations


def as_result(
    reply: BatchReply, n: int, started: float, clock: Callable[[], float] = time.monotonic
) -> SandboxResult:
    """A reply to a batch of n records as a SandboxResult, the outputs parsed (``receive_by``
    checked them first); ``started`` is when the run began, on ``clock``."""
    outputs, errors = [None] * n, [None] * n
    try:
        if reply.payload or reply.n:
            for index, text in enumerate(reply.payload.split(b"\n")[:n]):
                outputs[index] = json.loads(text) if text else None
    # not JSON: only a child that breaks the protocol sends that
    except (ValueError, RecursionError):
        outputs, reply.error = [None] * n, reply.error or "malformed reply from the sandbox child"
    for index, message, *_ in reply.failed:
        if index < n:
            errors[index] = message
    return SandboxResult(
        ok=reply.ok,
        outputs=outputs,
        errors=errors,
        violations=reply.violations,
        error=reply.error,
        duration_s=clock() - started,
    )


def death_message(returncode: int | None, cpu_seconds: int, memory_mb: int = 0) -> str:
    """Explain a child that ended without reporting a result."""
    if returncode == MEMORY_EXIT:
        return (
            f"ran out of memory (limit {memory_mb} MB) reading or writing the batch: "
            "the batch, or one record in it, is too large for the sandbox"
        )
    if returncode is not None and returncode < 0:
        number = -returncode
        if number == signal.SIGXCPU:
            return f"CPU time limit of {cpu_seconds}s exceeded"
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {number} ({name})"
    return f"the sandbox child exited with code {returncode} without a result"
