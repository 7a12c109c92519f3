"""A field's profile (``FieldProfile``, made by ``profiler``) and its text in a prompt: the issue,
the offending values and the toolkit primitive that fits (``format_issue_for_prompt``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .expectations import VALUE_CHARS, Expectation, is_placeholder

__all__ = ["FieldProfile", "format_issue_for_prompt", "short_value", "MAX_OFFENDING"]

MAX_OFFENDING = 12


@dataclass
class FieldProfile:
    """What one field's values look like, and its open issue if any."""

    field: str
    total: int
    nulls: int
    types: dict[str, int]
    shapes: dict[str, int]
    expectation: Expectation | None
    conforming: int
    offending: list
    examples_ok: list
    variants: list[list[str]]
    issue: str | None
    primitive: str
    distinct_offending: int = 0
    bad_keys: frozenset = frozenset()  # value_key of every offending value (uncapped)
    csv_strings: bool = False

    @property
    def non_null(self) -> int:
        return self.total - self.nulls

    @property
    def n_offending(self) -> int:
        """Non-null values that do not conform."""
        return self.non_null - self.conforming

    @property
    def score(self) -> float:
        """Share of non-null values that conform (1.0 when all do)."""
        return 1.0 if self.non_null <= 0 else self.conforming / self.non_null


def short_value(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 2] + "…" + text[-1]


def _join(values: list, budget: int) -> tuple[str, int]:
    parts: list[str] = []
    used = 0
    for value in values:
        text = short_value(value)
        if parts and used + len(text) + 2 > budget:
            break
        parts.append(text)
        used += len(text) + 2
    return ", ".join(parts), len(parts)


def format_issue_for_prompt(p: FieldProfile, *, max_values: int = MAX_OFFENDING) -> str:
    """A compact block for the model: the field, the required format, distinct offending values, the
    primitive."""
    if not p.issue:
        return ""
    exp = p.expectation
    if exp is not None:
        need = f"{exp.describe(csv_strings=p.csv_strings)} (from {exp.source or 'caller'})"
    elif p.primitive == "closest_value":
        need = "one spelling per value (the most frequent spelling)"
    else:
        like = (
            f", like the most common values (e.g. {short_value(p.examples_ok[0])})"
            if p.examples_ok
            else ""
        )
        need = f"one consistent format for every value{like}"
    lines = [
        f"Field {p.field!r}: {p.n_offending} of {p.non_null} values do not conform. Required: "
        f"{need}."
    ]
    shown, k = _join(p.offending[:max_values], 380)
    more = p.distinct_offending - k
    tail = f", ... ({more} more)" if more > 0 else ""
    lines.append(f"Offending values ({p.distinct_offending} distinct): {shown}{tail}")
    if exp is None and p.primitive == "closest_value" and p.variants:
        groups = [f"[{_join(g, 120)[0]}]" for g in p.variants[:3]]
        lines.append("Same value spelled differently: " + "; ".join(groups))
    if p.examples_ok:
        lines.append("Conforming: " + _join(p.examples_ok, 140)[0])
    if p.primitive:
        note = ""
        if p.primitive != "null_if_placeholder" and any(is_placeholder(v) for v in p.offending):
            note = " (placeholders like 'N/A' -> null_if_placeholder)"
        lines.append(f"Toolkit primitive that fits: {p.primitive}{note}")
    return "\n".join(lines)
