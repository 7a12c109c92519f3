"""Reflection's model mode: the prompt for the model's ``correctness`` and its reply combined."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from .reflection_measure import DIMENSIONS, short
from .reflection_verdict import MODEL_DIMENSION, Critique, ReflectionConfig
from ..model.response import MAX_REPLY_CHARS

__all__ = ["model_prompt", "combine_model_reply"]

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
