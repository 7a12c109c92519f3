"""How one value shows on the HTML page: counts, cut texts, code spans, before → after pairs.

Every text the run did not write itself goes through ``escape.html_text`` here or in the section
that shows it."""

from __future__ import annotations

import math
from typing import Any

from ...escape import html_text, terminal_text
from .data import example_cell

__all__ = [
    "VALUE_CHARS",
    "count_of",
    "number_text",
    "cut",
    "middle",
    "value_code",
    "shown",
    "pair_item",
    "share_text",
]

VALUE_CHARS = 80  # a value longer than this is cut with "…"


def count_of(value: Any) -> int | None:
    """A count as an int, None when it is not a finite, non-negative whole number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        return None
    return int(value) if value >= 0 else None


def number_text(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"


def share_text(part: int, whole: int) -> str:
    """'12 (4.0%)'; the share left out when there is no whole."""
    if whole <= 0:
        return f"{part:,}"
    return f"{part:,} ({100 * part / whole:.1f}%)"


def cut(text: Any, limit: int = VALUE_CHARS) -> str:
    """At most ``limit`` characters, ending in "…" when cut."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def middle(text: str, limit: int = VALUE_CHARS) -> str:
    """At most ``limit`` characters: a long text keeps its start and its end."""
    if len(text) <= limit:
        return text
    tail = limit // 3
    return text[: limit - tail - 1] + "…" + text[-tail:]


def value_code(text: str, limit: int = VALUE_CHARS) -> str:
    """A value's text in a code span, escaped, its middle cut when long."""
    return f"<code>{html_text(middle(text, limit))}</code>"


def shown(value: Any) -> str:
    """A value as the page shows it: ``example_cell``, or its repr when it holds control
    characters."""
    text = example_cell(value)
    return repr(value) if isinstance(value, str) and terminal_text(value) != value else text


def pair_item(old: Any, new: Any) -> str:
    """``<li>before → after</li>``; both as their repr when they would read the same ('1002' →
    1002)."""
    left, right = shown(old), shown(new)
    if middle(left) == middle(right):
        left, right = repr(old), repr(new)
    return f"<li>{value_code(left)} → {value_code(right)}</li>"
