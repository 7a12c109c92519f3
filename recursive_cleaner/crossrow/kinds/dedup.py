"""``dedup``: drop a record whose key (fields, normalised) was seen before; keep the first.

Memory: one entry per distinct key (``Fitted.seen``). Only when the goals ask to remove duplicates
(``asked``); the guard checks that its key identifies records.
"""

from __future__ import annotations

from typing import Any

from ...model.grammar import alt, seq
from ..values import NORMALIZERS
from ._base import StepKind

__all__ = ["Dedup"]


class Dedup(StepKind):
    """Remove records whose key was seen before."""

    name, needs_key, writes, drops, keeps_first = "dedup", True, False, True, True
    prompt = (
        '<cross_row_step kind="dedup" key="FIELD" normalize="casefold"/>  remove records '
        "whose FIELD was seen before"
    )
    task = "add a dedup rule only if the goals ask to remove duplicates"

    def describe(self, step: Any) -> str:
        return (
            f"drop records whose {'+'.join(step.key)} ({step.normalize}) was seen before; "
            "keep the first"
        )

    def xml_attrs(self, step: Any) -> list[str]:
        return super().xml_attrs(step) + [f'normalize="{step.normalize}"']

    def grammar(self, listed: Any) -> Any:
        return seq(
            '<cross_row_step kind="dedup" key="',
            listed,
            '" normalize="',
            alt(*NORMALIZERS),
            '"/>\n',
        )

    def transform(self, fitted: Any, i: int, out: dict) -> bool:
        key = fitted.key(i, out)
        if key is not None:
            seen = fitted.seen.setdefault(i, set())
            if key in seen:
                fitted.dropped += 1
                fitted.dropped_by[i] += 1
                return False
            seen.add(key)
        return True
