"""The critique's verdict: weights and thresholds (ReflectionConfig), the Critique, the counts."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from .reflection_measure import DIMENSIONS, NOT_MEASURED

__all__ = [
    "MODEL_DIMENSION",
    "DEFAULT_WEIGHTS",
    "DEFAULT_MINIMUMS",
    "MODES",
    "Critique",
    "ReflectionConfig",
    "ReflectionStats",
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
