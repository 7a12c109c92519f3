"""The cross-row steps as the XML the model writes and reads: ``<cross_row_step kind=... .../>``.

``plan_reply`` is the plan's reply form as a grammar (``model.grammar``): each registered kind's
``<cross_row_step .../>`` line (``StepKind.grammar``), naming only the data's fields, and as the
fields a step writes only those it may write.
"""

from __future__ import annotations

import inspect
import re
from typing import Iterable

from ..model.grammar import Grammar, alt, lit, rep, seq
from . import kinds
from .steps import CrossRowStep, kind_of

__all__ = ["parse_steps", "format_steps", "plan_reply", "MAX_STEPS"]

MAX_STEPS = 12  # rules in a cross-row plan at most
_STEP = re.compile(r"<cross_row_step\b([^>]*?)/?>", re.IGNORECASE)
_ATTR = re.compile(r'(\w+)\s*=\s*["\']([^"\']*)["\']')


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in re.split(r"[,\s]+", text or "") if n.strip())


def parse_steps(
    text: str, known_fields: Iterable[str] | None = None
) -> tuple[list[CrossRowStep], list[str]]:
    """Steps from ``<cross_row_step kind=... key=... fields=.../>`` tags, and why any were
    refused."""
    known = set(known_fields) if known_fields is not None else None
    steps, problems = [], []
    for m in _STEP.finditer(text or ""):
        attrs = {k.lower(): v for k, v in _ATTR.findall(m.group(1))}
        try:
            step = CrossRowStep(
                kind=attrs.get("kind", "").strip().lower(),
                key=_names(attrs.get("key", "")),
                fields=_names(attrs.get("fields", "")),
                weight_by=_names(attrs.get("weight_by", "")),
                normalize=attrs.get("normalize", "casefold").strip().lower() or "casefold",
            )
        except ValueError as exc:
            problems.append(f"{m.group(0)}: {exc}")
            continue
        if not kind_of(step).planned:
            problems.append(f"{m.group(0)}: a {step.kind} step is the library's own, not planned")
            continue
        unknown = [
            f
            for f in step.key + step.fields + step.weight_by
            if known is not None and f not in known
        ]
        if unknown:
            problems.append(f"{m.group(0)}: unknown field(s) {', '.join(unknown)}")
            continue
        fields = tuple(f for f in step.fields if f not in step.key)
        if kind_of(step).needs_fields and not fields:
            problems.append(f"{m.group(0)}: the key cannot also be the field to fix")
            continue
        steps.append(
            CrossRowStep(
                **{**step.to_dict(), "key": step.key, "fields": fields, "weight_by": step.weight_by}
            )
        )
    return steps, problems


def format_steps(steps: Iterable[CrossRowStep]) -> str:
    """The steps as the XML the model writes (for prompts and the report)."""
    return "\n".join(f"<cross_row_step {' '.join(kind_of(s).xml_attrs(s))}/>" for s in steps)


def _usable(fields: Iterable[str]) -> list[str]:
    """The names that can stand inside an attribute (no quote, ``<``, line break)."""
    return [f for f in dict.fromkeys(fields) if f and not any(c in f for c in '"<>\n\r`')]


def _listed(names: list[str]) -> object:
    name = alt(*names)
    return seq(name, rep(seq(", ", name), 0, 11))


def _line(kind: kinds.StepKind, listed: object, written: object) -> object:
    """``kind``'s grammar line; a kind whose ``grammar`` takes no ``written`` names any field."""
    if "written" in inspect.signature(kind.grammar).parameters:
        return kind.grammar(listed, written=written)
    return kind.grammar(listed)


def plan_reply(
    fields: list[str], *, dedup: bool = False, writable: Iterable[str] | None = None
) -> Grammar:
    """The cross-row plan: ``<cross_row_step .../>`` lines naming only the data's fields.

    ``dedup``: whether the goals ask to remove duplicates; without it no kind that ``drops`` records
    is offered. ``writable``: the fields a step may write (default all): a field the goals leave
    alone may still be a key, never a step's ``fields``; a kind that writes with none writable is
    not offered. Field names that could not stand inside an attribute (a quote, ``<``, a line
    break) are left out of the grammar; with no usable field the plan can only be empty.
    """
    names = _usable(fields)
    written_names = names if writable is None else [f for f in _usable(writable) if f in names]
    if not names:
        return Grammar(lit("<cross_row_plan>\n</cross_row_plan>"))
    listed = _listed(names)
    written = _listed(written_names) if written_names else None
    lines = [
        _line(kind, listed, written)
        for kind in kinds.registered()
        if kind.planned
        and (dedup or not kind.drops)
        and (written is not None or not kind.needs_fields)
    ]
    if not lines:
        return Grammar(lit("<cross_row_plan>\n</cross_row_plan>"))
    return Grammar(seq("<cross_row_plan>\n", rep(alt(*lines), 0, MAX_STEPS), "</cross_row_plan>"))
