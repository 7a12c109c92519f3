"""Early termination (v0.5 feature 5): stop reading chunks once the data's patterns are saturated.

Two signals. :func:`clean_streak_saturated` needs no model call: the last ``window`` chunks
were all clean under the current functions and added no function. :func:`check_saturation`
asks the model, showing the functions written so far and what the recent chunks produced.

Integration (``DataCleaner(early_termination=False, saturation_check_interval=20)``): the
cleaner's ``SaturationWatch`` keeps per processed chunk its status and how many functions it
added. With ``early_termination``, after every ``saturation_check_interval`` processed chunks
``SaturationWatch.should_stop(client, functions)`` calls ``check_saturation(client, functions,
summaries, new_functions_from_recent=n)`` with the run's ModelClient over those chunks (one
summary line each, e.g. ``"chunk 12: clean, 0 new functions"``); when the assessment's
``should_stop`` is true, the cleaner emits an event, saves the state and leaves the chunk loop
(the run report then shows chunks_processed < chunks_total).
``clean_streak_saturated(statuses, window=saturation_check_interval, new_functions=counts)``
can gate the model call (ask only when the cheap signal agrees) or replace it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Literal

from ..model.response import tag_text
from .reply import parse_bool
from ..errors import LLMCallError, ParseError
from ..model.client import ModelClient, as_client
from ..model.llm import LLMStats
from ..types import LLMBackend

__all__ = [
    "SaturationAssessment",
    "check_saturation",
    "build_saturation_prompt",
    "parse_saturation",
    "clean_streak_saturated",
    "CLEAN_STATUSES",
    "SaturationWatch",
]

CLEAN_STATUSES = frozenset({"clean", "clean_by_profile"})
"""The chunk statuses of ``DataCleaner._process_chunk`` that mean "nothing left to fix"."""


@dataclass
class SaturationAssessment:
    """The model's verdict: have the recent chunks stopped teaching new functions?"""

    saturated: bool
    reasoning: str
    recommendation: Literal["stop", "continue"]
    calls: int = 0
    error: str = ""

    @property
    def should_stop(self) -> bool:
        """True only when the model says saturated AND recommends stopping."""
        return self.saturated and self.recommendation == "stop"


_PROMPT = """You are deciding whether a data-cleaning run has seen enough variety in its data to \
stop early.

=== FUNCTIONS WRITTEN SO FAR ({count}) ===
{functions}

=== RECENT CHUNKS ({recent}) ===
{summaries}

=== TASK ===
Decide whether the data's problems are saturated: the recent chunks found nothing the functions \
above \
do not already handle, so reading more chunks would likely add no new function. Recommend stop \
only then.

=== OUTPUT FORMAT ===
<saturation_check>
  <functions_generated>{count}</functions_generated>
  <recent_chunks_analyzed>{recent}</recent_chunks_analyzed>
  <new_functions_from_recent>{new}</new_functions_from_recent>
  <assessment>
    <saturated>true|false</saturated>
    <reasoning>One sentence, e.g. "Last {recent} chunks only produced {new} new \
function(s)"</reasoning>
    <recommendation>stop|continue</recommendation>
  </assessment>
</saturation_check>{feedback}
Now write your <saturation_check> reply."""


def build_saturation_prompt(
    functions: list[dict],
    recent_chunk_summaries: list[str],
    *,
    new_functions_from_recent: int = 0,
    feedback: str = "",
) -> str:
    """The saturation prompt: each function's name and first docstring line, and the recent
    chunks."""
    listed = (
        "\n".join(
            f"- {f.get('name', '?')}: "
            f"{((f.get('docstring') or '').strip().splitlines() or [''])[0]}"
            for f in functions
        )
        or "(none)"
    )
    summaries = "\n".join(f"- {s}" for s in recent_chunk_summaries) or "(none)"
    extra = (
        f"\n\n=== YOUR PREVIOUS REPLY COULD NOT BE USED ===\n- {feedback}\nFix this."
        if feedback
        else ""
    )
    return _PROMPT.format(
        count=len(functions),
        functions=listed,
        recent=len(recent_chunk_summaries),
        summaries=summaries,
        new=new_functions_from_recent,
        feedback=extra,
    )


def parse_saturation(text: str) -> SaturationAssessment:
    """The assessment in a reply; ParseError with feedback when <saturated> is not true or false."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError(
            "The reply was empty. Answer with one <saturation_check> block.", str(text or "")
        )
    body = tag_text(text, "assessment") or tag_text(text, "saturation_check") or text
    saturated = parse_bool(tag_text(body, "saturated"))
    if saturated is None:
        raise ParseError(
            "Put <saturated>true</saturated> or <saturated>false</saturated> (one word) in "
            "<assessment>.",
            text,
        )
    words = (tag_text(body, "recommendation") or "").strip().lower().split()
    recommendation = words[0].strip(".,;!") if words else ""
    if recommendation not in ("stop", "continue"):
        recommendation = "stop" if saturated else "continue"
    return SaturationAssessment(
        saturated=saturated,
        reasoning=" ".join((tag_text(body, "reasoning") or "").split()),
        recommendation=recommendation,
    )  # type: ignore[arg-type]


def check_saturation(
    backend: ModelClient | LLMBackend,
    functions: list[dict],
    recent_chunk_summaries: list[str],
    *,
    new_functions_from_recent: int = 0,
    stats: LLMStats | None = None,
    sleep: Callable[[float], None] = time.sleep,
    attempts: int = 3,
) -> SaturationAssessment:
    """Ask the model whether the patterns are saturated.

    ``backend``: the run's ModelClient (its retries and stats), or a backend whose calls are added
    to ``stats`` and tried ``attempts`` times with ``sleep``. A parse error is fed back once; a
    second unusable reply or a failed LLM call gives a "continue" assessment whose ``error`` says
    why (early termination never ends a run on a failure).
    """
    client = as_client(backend, stats=stats, attempts=attempts, sleep=sleep)
    feedback, calls = "", 0
    for _ in range(2):
        prompt = build_saturation_prompt(
            functions,
            recent_chunk_summaries,
            new_functions_from_recent=new_functions_from_recent,
            feedback=feedback,
        )
        try:
            reply = client.call(prompt, "saturation")
        except LLMCallError as exc:
            return SaturationAssessment(
                False, "", "continue", calls=calls, error=f"the LLM call failed: {exc}"
            )
        calls += 1
        try:
            assessment = parse_saturation(reply)
        except ParseError as exc:
            feedback = str(exc)
            continue
        assessment.calls = calls
        return assessment
    return SaturationAssessment(
        False, "", "continue", calls=calls, error=f"the reply could not be used twice ({feedback})"
    )


def clean_streak_saturated(
    statuses: list[str], window: int, new_functions: list[int] | None = None
) -> bool:
    """True when the last ``window`` chunks were all clean and (when counts are given) added no
    function.

    ``statuses`` are per-chunk statuses, oldest first (see CLEAN_STATUSES); ``new_functions``,
    if given, the functions each of those chunks added, aligned with ``statuses``.
    """
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window!r}")
    if new_functions is not None and len(new_functions) != len(statuses):
        raise ValueError("new_functions must have one count per status")
    if len(statuses) < window:
        return False
    if any(status not in CLEAN_STATUSES for status in statuses[-window:]):
        return False
    return new_functions is None or not any(new_functions[-window:])


class SaturationWatch:
    """What the cleaner keeps for early termination: chunks counted, and for the last ``interval``
    chunks each one's status and the functions it added (``to_dict``/``load`` carry it in the state
    file)."""

    def __init__(self, interval: int = 20, *, enabled: bool = False) -> None:
        self.interval, self.enabled = interval, enabled
        self.count = 0
        self.history: list[tuple[str, int]] = []
        self.last: SaturationAssessment | None = None

    def record(self, status: str, added: int) -> None:
        self.count += 1
        self.history = (self.history + [(status, added)])[-max(1, self.interval) :]

    def to_dict(self) -> dict:
        return {"count": self.count, "recent": [list(h) for h in self.history]}

    def load(self, data: dict | None) -> None:
        """Take back what ``to_dict`` gave (a resumed run keeps counting where it stopped)."""
        if not isinstance(data, dict):
            return
        recent = [(str(s), int(a)) for s, a in data.get("recent", []) if isinstance(a, int)]
        self.count = max(int(data.get("count", 0) or 0), len(recent))
        self.history = recent[-max(1, self.interval) :]

    def should_stop(
        self,
        backend: ModelClient | LLMBackend,
        functions: list[dict],
        *,
        stats: LLMStats | None = None,
        sleep: Callable[[float], None] = time.sleep,
        attempts: int = 3,
    ) -> bool:
        """Every ``interval`` chunks, ask the model, but only when those chunks were all clean and
        added nothing. ``backend``: the run's ModelClient, or a backend as for check_saturation."""
        n = self.interval
        if not self.enabled or n < 1 or not self.count or self.count % n:
            return False
        statuses, added = [s for s, _ in self.history], [a for _, a in self.history]
        if not clean_streak_saturated(statuses, n, added):
            return False
        first = self.count - n
        summaries = [
            f"chunk {first + i + 1}: {s}, {a} new function(s)"
            for i, (s, a) in enumerate(self.history[-n:])
        ]
        self.last = check_saturation(
            backend,
            functions,
            summaries,
            new_functions_from_recent=sum(added[-n:]),
            stats=stats,
            sleep=sleep,
            attempts=attempts,
        )
        return self.last.should_stop
