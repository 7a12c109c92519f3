"""Reflection: critique a candidate cleaning function on dimensions MEASURED in the sandbox, before
acceptance.

The critique -> refine -> dedup pattern (``../shared/spec/05-pattern-reflection.md``), each
dimension measured on the records instead of guessed. The candidate runs in the sandbox on the
visible and held-out records, then once more on its own outputs; each dimension is a score in
[0, 1] with evidence (counts, example values):

- ``runs``: share of the records on which it returns a dict without raising (0 for all when the
  code breaks the safety policy, does not load, times out or attempts a refused operation);
- ``fixes_issue``: with a target field, the share of that field's wrong values
  (``profiler.issue_counts``) it removes; blanking a value (None, "" or the key removed) does not
  fix it. Without a target: 1.0 when the records' wrong values go down, 0.5 when it changes
  values the profile does not judge, 0.0 when it changes nothing or a field gets more wrong values;
- ``specific``: share of the fields it changed that it names: the target, else the fields its
  code writes (``dependencies.field_access``); 1.0 with "cannot tell" evidence when the code
  writes through dynamic keys only (``record[key]``) and there is no target;
- ``side_effects``: the worst of three checks: records that do not show the issue (the named
  fields with an open issue already conform) come back unchanged; no record loses a field;
  f(f(x)) == f(x).

The quality score is the weighted mean (``ReflectionConfig.weights``; by default the pattern's
0.3/0.3/0.2/0.2, its "actionable" read as "runs"). Its decision logic, with its thresholds:
score < ``discard_threshold`` (0.3) -> "discard"; score < ``accept_threshold`` (0.7) -> "refine";
else "accept". A dimension under its entry in ``minimums`` turns an "accept" into a "refine": by
default runs 1.0, fixes_issue 0.1 and specific 1.0, the library's own acceptance rules
(``improvement.judge_change``): a function that crashes on one record, fixes (almost) nothing
or changes a field it was not asked to is never accepted, whatever its other scores.

Model mode (``mode="model"``) adds one call through the run's ``ModelClient``: the model sees the
code, the measurements and the values it changed and judges ``correctness`` (are the new values
the right values?), which no measurement tells. It adds to the measurements and never replaces one:
``score = (1 - model_weight) * measured + model_weight * correctness`` (``model_weight`` 0.2, so
the model tips borderline scores). An unreadable reply or a failed call leaves the measured score,
and ``evidence["model"]`` says so. ``model_prompt`` / ``combine_model_reply`` do the same in two
steps for a caller that makes the call itself.

The refine loop lives in the cleaner: ``Critique.feedback()`` is the text for the next prompt.
The measuring is in ``reflection_measure``; ``find_duplicate`` (the dedup step) in ``dedup``.
"""

from __future__ import annotations

import dataclasses
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .reflection_measure import DIMENSIONS, NOT_MEASURED, measure, plain_records, short
from .dedup import code_similarity, find_duplicate
from ..errors import LLMCallError
from ..profiling.expectations import Expectation
from ..model.client import ModelClient, as_client
from ..model.llm import LLMStats
from ..model.response import MAX_REPLY_CHARS
from ..types import LLMBackend

__all__ = [
    "DIMENSIONS",
    "MODEL_DIMENSION",
    "DEFAULT_WEIGHTS",
    "DEFAULT_MINIMUMS",
    "Critique",
    "ReflectionConfig",
    "ReflectionStats",
    "critique",
    "model_prompt",
    "combine_model_reply",
    "find_duplicate",
    "code_similarity",
    "Reviewer",
]

MODEL_DIMENSION = "correctness"
DEFAULT_WEIGHTS = {"runs": 0.3, "fixes_issue": 0.3, "specific": 0.2, "side_effects": 0.2}
# side_effects: idempotence is in the function contract
DEFAULT_MINIMUMS = {"runs": 1.0, "fixes_issue": 0.1, "specific": 1.0, "side_effects": 0.5}
MODES = ("rules", "model")


def _check_number(
    name: str, value: Any, low: float, high: float, *, open_low: bool = False
) -> None:
    ok = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (value > low if open_low else value >= low)
        and value <= high
    )
    if not ok:
        raise ValueError(
            f"{name} must be a number in {'(' if open_low else '['}{low}, {high}], got {value!r}"
        )


@dataclass
class ReflectionConfig:
    """Weights, thresholds and mode of the critique; an invalid value raises ValueError at
    construction."""

    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    accept_threshold: float = 0.7
    discard_threshold: float = 0.3
    max_refine_rounds: int = 2
    mode: str = "rules"
    minimums: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_MINIMUMS))
    model_weight: float = 0.2
    dedup_threshold: float = 0.9

    def __post_init__(self) -> None:
        if not isinstance(self.weights, dict) or not self.weights:
            raise ValueError(f"weights must be a non-empty dict over {', '.join(DIMENSIONS)}")
        unknown = sorted(set(map(str, self.weights)) - set(DIMENSIONS))
        if unknown:
            raise ValueError(
                f"unknown weight(s) {unknown}; the dimensions are {', '.join(DIMENSIONS)}"
            )
        for key, weight in self.weights.items():
            _check_number(f"weights[{key!r}]", weight, 0.0, 1e9)
        if not sum(self.weights.values()) > 0:
            raise ValueError("at least one weight must be above 0")
        for name in ("accept_threshold", "discard_threshold", "model_weight"):
            _check_number(name, getattr(self, name), 0.0, 1.0)
        _check_number("dedup_threshold", self.dedup_threshold, 0.0, 1.0, open_low=True)
        if self.discard_threshold > self.accept_threshold:
            raise ValueError(
                f"discard_threshold ({self.discard_threshold}) must not exceed "
                f"accept_threshold ({self.accept_threshold})"
            )
        if (
            isinstance(self.max_refine_rounds, bool)
            or not isinstance(self.max_refine_rounds, int)
            or self.max_refine_rounds < 0
        ):
            raise ValueError(
                f"max_refine_rounds must be an int >= 0, got {self.max_refine_rounds!r}"
            )
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if not isinstance(self.minimums, dict):
            raise ValueError(
                "minimums must be a dict: dimension -> lowest score that may be accepted"
            )
        unknown = sorted(set(map(str, self.minimums)) - {*DIMENSIONS, MODEL_DIMENSION})
        if unknown:
            raise ValueError(
                f"unknown minimum(s) {unknown}; the dimensions are "
                f"{', '.join((*DIMENSIONS, MODEL_DIMENSION))}"
            )
        for key, low in self.minimums.items():
            _check_number(f"minimums[{key!r}]", low, 0.0, 1.0)

    def measured_score(self, dimensions: dict[str, float]) -> float:
        """Weighted mean of the measured dimensions (a missing one counts 0)."""
        total = sum(self.weights.values())
        return sum(w * dimensions.get(d, 0.0) for d, w in self.weights.items()) / total

    def decide(self, score: float, dimensions: dict[str, float]) -> tuple[str, list[str]]:
        """The decision for ``score``, and the dimensions under their minimum (they block
        "accept")."""
        blocked = [d for d, low in self.minimums.items() if d in dimensions and dimensions[d] < low]
        if score < self.discard_threshold:
            return "discard", blocked
        if score < self.accept_threshold or blocked:
            return "refine", blocked
        return "accept", []


@dataclass
class Critique:
    """The verdict on one candidate: quality score, decision, and each dimension's score with its
    evidence."""

    name: str
    score: float
    decision: str  # "accept" | "refine" | "discard"
    dimensions: dict[str, float]
    evidence: dict[str, str]
    blocked_by: list[str] = field(default_factory=list)
    target: str | None = None
    accept_threshold: float = 0.7
    minimums: dict[str, float] = field(default_factory=dict)
    suggestion: str = ""  # the model's, in model mode
    # values it changed on the visible records: 'a' -> 'b'
    examples: list[str] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return self.decision == "accept"

    def weak(self) -> list[str]:
        """Dimensions scoring under 1.0, worst first."""
        return sorted(
            (d for d, v in self.dimensions.items() if v < 1.0), key=lambda d: self.dimensions[d]
        )

    def feedback(self) -> str:
        """Text for the model's next prompt: the score, the weak dimensions with their numbers, what
        to keep."""
        lines = [
            f"Review of `{self.name}`: quality {self.score:.2f} of 1.00 (accepted from "
            f"{self.accept_threshold:.2f}); decision: {self.decision}."
        ]
        weak = self.weak()
        unmeasured = [d for d in weak if self.evidence.get(d) == NOT_MEASURED]
        if weak:
            lines.append("Improve:")
            lines += [
                f"- {d} {self.dimensions[d]:.2f}: {self.evidence.get(d, '')}"
                for d in weak
                if d not in unmeasured
            ]
        if unmeasured:
            lines.append(
                f"- {', '.join(unmeasured)}: not measured until it returns a dict for the records."
            )
        if self.blocked_by and self.decision != "discard":
            below = ", ".join(
                f"{d} is below {self.minimums.get(d, 1.0):.2f}" for d in self.blocked_by
            )
            lines.append(f"It cannot be accepted while {below}.")
        fine = [f"{d} {v:.2f}" for d, v in self.dimensions.items() if v >= 1.0]
        if fine:
            lines.append(f"Keep what already works: {', '.join(fine)}.")
        if self.suggestion:
            lines.append(f"Reviewer's suggestion: {self.suggestion}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain data, for events and reports."""
        return dataclasses.asdict(self)


@dataclass
class ReflectionStats:
    """Counts over a run, as in the pattern's metrics.

    ``original``: candidates critiqued for the first time; ``discarded``: dropped (decision
    "discard", or still "refine" when the rounds ran out); ``refined``: refine rounds run (a
    critique fed back to the model); ``deduplicated``: dropped as near-duplicates of an accepted
    function; ``final``: accepted.
    """

    original: int = 0
    discarded: int = 0
    refined: int = 0
    deduplicated: int = 0
    final: int = 0

    def to_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


def critique(
    code: str,
    name: str,
    records: list,
    *,
    hidden: list | None = None,
    target: str | None = None,
    expectations: dict[str, Expectation] | None = None,
    config: ReflectionConfig | None = None,
    backend: ModelClient | LLMBackend | None = None,
    timeout: float = 10.0,
    csv_strings: bool | None = None,
    stats: LLMStats | None = None,
    sleep: Callable[[float], None] = time.sleep,
    attempts: int = 3,
) -> Critique:
    """Measure function ``name`` of ``code`` on ``records`` (and ``hidden``) in the sandbox, score
    it and decide.

    ``target`` is the field it should fix (None for an open-ended function); ``expectations`` and
    ``csv_strings`` go to the profiler as in ``improvement.judge_change``. Model mode needs
    ``backend``: the run's ModelClient (its retries and stats), or a plain backend whose call is
    added to ``stats`` and tried up to ``attempts`` times with ``sleep``.
    """
    config = config or ReflectionConfig()
    if config.mode == "model" and backend is None:
        raise ValueError("mode='model' needs a backend")
    visible, held = plain_records(records, "records"), plain_records(hidden or [], "hidden")
    dims, evidence, examples = measure(
        code, name, visible, held, target, expectations, timeout, csv_strings
    )
    score = round(config.measured_score(dims), 4)
    decision, blocked = config.decide(score, dims)
    result = Critique(
        name,
        score,
        decision,
        dims,
        evidence,
        blocked,
        target,
        config.accept_threshold,
        dict(config.minimums),
        examples=examples,
    )
    if config.mode != "model":
        return result
    client = as_client(backend, stats=stats, attempts=attempts, sleep=sleep)
    try:
        reply = client.call(model_prompt(result, code), "reflection")
    except LLMCallError as exc:
        result.evidence["model"] = (
            f"the critique call failed ({exc}); the measured score {score:.2f} stands"
        )
        return result
    return combine_model_reply(result, reply, config)


# ---------------------------------------------------------------- model mode
_NUMBER = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*(%|/\s*(\d+(?:\.\d+)?))?")
_NONE = {"", "none", "no", "n/a", "nothing", "none needed"}


def _tag(text: str, name: str) -> str | None:
    """Inner text of <name>; an unclosed tag runs to the next tag or the end (linear: no "<" inside
    a tag)."""
    m = re.search(
        rf"<{name}\b[^<>]*>(.*?)(?:</{name}\s*>|<|\Z)",
        text[:MAX_REPLY_CHARS],
        re.DOTALL | re.IGNORECASE,
    )
    return m.group(1) if m else None


def _one_line(text: str | None, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _parse_model_reply(text: Any) -> tuple[float, str, str] | None:
    """(correctness in [0, 1], reason, suggestion) from the reply; None when no usable number is
    there."""
    if not isinstance(text, str):
        return None
    text = text[:MAX_REPLY_CHARS]
    raw = _tag(text, MODEL_DIMENSION)
    if raw is None:
        m = re.search(rf"{MODEL_DIMENSION}\s*[:=]\s*([^\n<]*)", text, re.IGNORECASE)
        raw = m.group(1) if m else None
    m = _NUMBER.search(raw or "")
    if not m:
        return None
    value = float(m.group(1))
    if m.group(2) == "%":
        value /= 100
    elif m.group(3):
        denominator = float(m.group(3))
        if denominator <= 0:
            return None
        value /= denominator
    if not 0.0 <= value <= 1.0:
        return None
    suggestion = _one_line(_tag(text, "suggestion"))
    return (
        value,
        _one_line(_tag(text, "reason")),
        "" if suggestion.strip(" .").lower() in _NONE else suggestion,
    )


def model_prompt(result: Critique, code: str) -> str:
    """The prompt for the model's judgement of a measured critique (reply parsed by
    ``combine_model_reply``)."""
    task = (
        f"It must fix the field '{result.target}'."
        if result.target
        else "It was written without a target field."
    )
    measured = "\n".join(
        f"- {d} {result.dimensions[d]:.2f}: {result.evidence.get(d, '')}"
        for d in DIMENSIONS
        if d in result.dimensions
    )
    changed = "\n".join(f"- {e}" for e in result.examples) or "- (it changed no value)"
    return (
        f"You review one data-cleaning function, `{result.name}`, before it is accepted. {task}\n\n"
        f"```python\n{code}\n```\n\n"
        f"The library ran it in a sandbox and measured:\n{measured}\n\n"
        f"Values it changed (before -> after):\n{changed}\n\n"
        "Judge only what the measurements cannot tell: are the new values correct, with the same "
        "meaning "
        "as before (nothing invented, lost or misread, such as day and month swapped)?\n"
        "Reply with only this XML:\n"
        "<critique>\n"
        "  <correctness>a number from 0.0 (the new values are wrong) to 1.0 (all "
        "correct)</correctness>\n"
        "  <reason>one sentence</reason>\n"
        "  <suggestion>one concrete change to the code, or none</suggestion>\n"
        "</critique>"
    )


def combine_model_reply(
    result: Critique, reply: str, config: ReflectionConfig | None = None
) -> Critique:
    """A new Critique with the model's ``correctness`` added (see the module docstring); unreadable:
    measured stands."""
    config = config or ReflectionConfig(mode="model")
    combined = dataclasses.replace(
        result, dimensions=dict(result.dimensions), evidence=dict(result.evidence)
    )
    parsed = _parse_model_reply(reply)
    if parsed is None:
        combined.evidence["model"] = (
            f"unreadable critique reply (no {MODEL_DIMENSION} number in "
            f"{short(reply)}); the measured score {result.score:.2f} stands"
        )
        return combined
    value, reason, suggestion = parsed
    combined.dimensions[MODEL_DIMENSION] = value
    combined.evidence[MODEL_DIMENSION] = f"the model's judgement: {reason or 'no reason given'}"
    combined.suggestion = suggestion
    measured = config.measured_score(result.dimensions)
    combined.score = round((1 - config.model_weight) * measured + config.model_weight * value, 4)
    combined.decision, combined.blocked_by = config.decide(combined.score, combined.dimensions)
    return combined


class Reviewer:
    """The cleaner's reflection step for one run: dedup, critique, refine rounds per field,
    stats."""

    def __init__(self, config: ReflectionConfig) -> None:
        self.config = config
        self.stats = ReflectionStats()
        self.rounds = 0

    def new_task(self) -> None:
        """A new field (or the open-ended pass) is being worked on: its refine rounds start
        again."""
        self.rounds = 0

    def review(
        self,
        code: str,
        name: str,
        records: list,
        accepted: list[dict],
        *,
        hidden: list | None = None,
        target: str | None = None,
        expectations: dict | None = None,
        backend: ModelClient | LLMBackend | None = None,
        timeout: float = 10.0,
        stats: LLMStats | None = None,
        sleep: Callable[[float], None] = time.sleep,
        attempts: int = 3,
        csv_strings: bool | None = None,
    ) -> tuple[str | None, Critique | None]:
        """(feedback for the model, the critique): feedback None accepts the candidate.

        ``backend``: the run's ModelClient (model mode), or a backend with ``stats``, ``sleep`` and
        ``attempts`` as for :func:`critique`.

        A candidate still judged "refine" when the rounds are used up is accepted: it passed the
        cleaner's own checks, so reflection never accepts less than the run would without it.
        """
        duplicate = find_duplicate(code, name, accepted, threshold=self.config.dedup_threshold)
        if duplicate:
            self.stats.deduplicated += 1
            return (
                f"it does the same as `{duplicate}`, which already runs before yours; fix a "
                "different issue.",
                None,
            )
        if self.rounds == 0:
            self.stats.original += 1
        crit = critique(
            code,
            name,
            records,
            hidden=hidden,
            target=target,
            expectations=expectations,
            config=self.config,
            backend=backend,
            timeout=timeout,
            stats=stats,
            sleep=sleep,
            attempts=attempts,
            csv_strings=csv_strings,
        )
        if crit.decision == "accept" or (
            crit.decision == "refine" and self.rounds >= self.config.max_refine_rounds
        ):
            self.stats.final += 1
            return None, crit
        if crit.decision == "refine":
            self.rounds += 1
            self.stats.refined += 1
        else:
            self.stats.discarded += 1
        return crit.feedback(), crit
