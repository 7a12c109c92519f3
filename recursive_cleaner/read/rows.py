"""What every reader shares: the record of a skipped input line, and how header names are made unique."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SkippedRecord", "unique_header"]


@dataclass(frozen=True)
class SkippedRecord:
    """A record left out of the stream: file, 1-based line, and what was wrong with it."""

    path: str
    line: int
    reason: str


def unique_header(names: list[str]) -> list[str]:
    """Empty names become column_N (1-based position); repeats get _2, _3, ..."""
    taken = {n for n in names if n.strip()}
    seen: set[str] = set()
    result = []
    for i, name in enumerate(names, 1):
        if not name.strip():
            name = f"column_{i}"
        if name in seen:
            k = 2
            while f"{name}_{k}" in seen or f"{name}_{k}" in taken:
                k += 1
            name = f"{name}_{k}"
        seen.add(name)
        result.append(name)
    return result
