"""Scans of the goals' text in linear time, for what a pattern would read again from every start.

``LeadThen(lead, target)`` finds what ``lead[^.;]*?target`` finds ("leave ... alone"): from each
lead word, the nearest target after it in its part of the sentence (``leads``: what
``lead(?=[^.;]*target)`` finds, "set ... to"). ``Spans``: stretches of text that never overlap,
asked which of them a new one overlaps by bisection (each format word of a long clause was checked
against every one found before it). As one pattern, every lead read
on to the end of its part when no target stands there (the goals "leave leave leave ...": 16 KB in
minutes). Here every lead and every place a target starts is found once, and each lead takes its
target by bisection.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterator

__all__ = ["LeadThen", "Span", "Spans"]


@dataclass(frozen=True)
class Span:
    """A found stretch of text, read like a match: ``start()``, ``end()``, ``group()``."""

    text: str
    at: int
    to: int

    def start(self) -> int:
        return self.at

    def end(self) -> int:
        return self.to

    def span(self) -> tuple[int, int]:
        return self.at, self.to

    def group(self) -> str:
        return self.text[self.at : self.to]


class LeadThen:
    """``lead[^<stops>]*?target`` (both patterns without look-behind past their own start), with
    ``finditer`` and ``search`` in linear time."""

    def __init__(self, lead: str, target: str, flags: int = 0, stops: str = ".;") -> None:
        self.lead = re.compile(lead, flags)
        # every place a target starts, with its end (the target as the whole pattern would take it)
        self.target = re.compile(rf"(?=({target}))", flags)
        self.stops = re.compile(f"[{re.escape(stops)}]")

    def _found(self, text: str) -> Iterator[tuple[re.Match, int | None]]:
        """Each lead, with the end of the nearest target after it in its part (None: none)."""
        starts, ends = [], []
        for m in self.target.finditer(text):
            starts.append(m.start())
            ends.append(m.end(1))
        stops = [m.start() for m in self.stops.finditer(text)] if starts else []
        for lead in self.lead.finditer(text):
            k = bisect.bisect_left(stops, lead.end())
            stop = stops[k] if k < len(stops) else len(text)
            i = bisect.bisect_left(starts, lead.end())
            yield lead, ends[i] if i < len(starts) and starts[i] <= stop else None

    def finditer(self, text: str) -> Iterator[Span]:
        """The matches of the whole pattern, in order and not overlapping, as ``re.finditer``."""
        resume = 0
        for lead, end in self._found(text):
            if end is not None and lead.start() >= resume:
                resume = end
                yield Span(text, lead.start(), end)

    def search(self, text: str) -> Span | None:
        """The first match, or None."""
        return next(self.finditer(text), None)

    def leads(self, text: str) -> Iterator[re.Match]:
        """The leads a target follows in their part: ``lead(?=[^.;]*target)``."""
        return (lead for lead, end in self._found(text) if end is not None)


class Spans:
    """Stretches ``[start, end)`` of one text that never overlap one another, in order."""

    def __init__(self) -> None:
        self.items: list[tuple[int, int]] = []
        self.ends: list[int] = []  # in the same order: stretches that never overlap end in order

    @classmethod
    def of(cls, spans) -> Spans:
        """The stretches ``spans`` (that never overlap) in order."""
        out = cls()
        out.items = sorted(spans)
        out.ends = [end for _, end in out.items]
        return out

    def overlapping(self, start: int, end: int) -> list[tuple[int, int]]:
        """The stretches that overlap ``[start, end)`` (``a < end and start < b``)."""
        out = []
        k = bisect.bisect_right(self.ends, start)  # the first one ending after ``start``
        while k < len(self.items) and self.items[k][0] < end:
            out.append(self.items[k])
            k += 1
        return out

    def add(self, start: int, end: int) -> None:
        k = bisect.bisect_left(self.items, (start, end))
        self.items.insert(k, (start, end))
        self.ends.insert(k, end)

    def remove(self, start: int, end: int) -> None:
        k = bisect.bisect_left(self.items, (start, end))
        del self.items[k], self.ends[k]
