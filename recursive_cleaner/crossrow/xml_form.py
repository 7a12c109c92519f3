"""The cross-row steps as the XML the model writes and reads: ``<cross_row_step kind=... key=... fields=.../>``."""

from __future__ import annotations

import re
from typing import Iterable

from .steps import CrossRowStep

__all__ = ["parse_steps", "format_steps"]

_STEP = re.compile(r"<cross_row_step\b([^>]*?)/?>", re.IGNORECASE)
_ATTR = re.compile(r'(\w+)\s*=\s*["\']([^"\']*)["\']')


def _names(text: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in re.split(r"[,\s]+", text or "") if n.strip())


def parse_steps(text: str, known_fields: Iterable[str] | None = None) -> tuple[list[CrossRowStep], list[str]]:
    """Steps from ``<cross_row_step kind=... key=... fields=.../>`` tags, and why any were refused."""
    known = set(known_fields) if known_fields is not None else None
    steps, problems = [], []
    for m in _STEP.finditer(text or ""):
        attrs = {k.lower(): v for k, v in _ATTR.findall(m.group(1))}
        try:
            step = CrossRowStep(kind=attrs.get("kind", "").strip().lower(), key=_names(attrs.get("key", "")),
                                fields=_names(attrs.get("fields", "")), weight_by=_names(attrs.get("weight_by", "")),
                                normalize=attrs.get("normalize", "casefold").strip().lower() or "casefold")
        except ValueError as exc:
            problems.append(f"{m.group(0)}: {exc}")
            continue
        unknown = [f for f in step.key + step.fields + step.weight_by if known is not None and f not in known]
        if unknown:
            problems.append(f"{m.group(0)}: unknown field(s) {', '.join(unknown)}")
            continue
        fields = tuple(f for f in step.fields if f not in step.key)
        if step.kind == "majority" and not fields:
            problems.append(f"{m.group(0)}: the key cannot also be the field to fix")
            continue
        steps.append(CrossRowStep(**{**step.to_dict(), "key": step.key, "fields": fields, "weight_by": step.weight_by}))
    return steps, problems


def format_steps(steps: Iterable[CrossRowStep]) -> str:
    """The steps as the XML the model writes (for prompts and the report)."""
    out = []
    for s in steps:
        attrs = [f'kind="{s.kind}"']
        if s.key:
            attrs.append(f'key="{", ".join(s.key)}"')
        if s.fields:
            attrs.append(f'fields="{", ".join(s.fields)}"')
        if s.weight_by:
            attrs.append(f'weight_by="{", ".join(s.weight_by)}"')
        if s.kind == "dedup":
            attrs.append(f'normalize="{s.normalize}"')
        out.append(f"<cross_row_step {' '.join(attrs)}/>")
    return "\n".join(out)
