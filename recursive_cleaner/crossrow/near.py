"""Close spellings found in bounded work: a banded edit distance and an index of strings by their
segments.

The cross-row steps look for a rare value (or key) within a few edits of a much more frequent one.
Compared pair by pair, that is quadratic in the number of values and, for the edit distance, in
their length; hostile data (thousands of keys, values of thousands of characters) stalls the parent.
Here instead:

* ``distance(a, b, limit)``: Levenshtein distance, exact up to ``limit`` (``limit + 1`` beyond it),
  computed only in the diagonal band ``|i - j| <= limit`` (Ukkonen) after the common prefix and
  suffix are cut off: O(limit * n), and O(1) when the lengths differ by more than ``limit``;
* ``NearIndex``: strings of length L >= k + 1 cut into k + 1 segments. Two strings within k edits
  share at least one segment, at most k characters away from where it was (an edit touches one
  segment at most, and k edits leave one of k + 1 segments whole), so looking the probe's
  substrings up by (length, segment, text) finds every string within k edits, and few others;
  shorter strings are always candidates;
* a ``Budget`` of work units that a step spends in a fixed order, each unit about one step of
  Python (a few tenths of a microsecond): one per candidate looked up, ``look`` per candidate
  compared character by character (``two_values``, a shape's or a word's letters), and per
  distance the cells of its band it computed (``measured``); and ``MAX_CHARS``: what is longer, or
  what comes after the budget ran out, is left alone and counted. Ordinary data never reaches
  either: only work the old pairwise scan would have taken many seconds for is cut. (Until issue
  43 a unit of distance was 16 cells, so 3,000 keys of 250 characters two edits apart took tens of
  seconds within the budget.)
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = [
    "MAX_CHARS",
    "MAX_WORK",
    "PROBE_WORK",
    "Budget",
    "NearIndex",
    "cost",
    "look",
    "measured",
    "distance",
    "closest_spellings",
    "close_keys",
    "two_values",
]

MAX_CHARS = 256
"""Values (and keys) longer than this are never matched to a close spelling: left alone and
counted."""
MAX_WORK = 2_000_000
"""Work units one step (one vocabulary field, one majority step's keys) may spend while fitting:
about half a second."""
PROBE_WORK = 20_000
_CALL = 8  # the work units of a call that compares two strings, before its characters
"""Work units for one key first seen while transforming (a key an earlier step wrote)."""
# above this distance the index keeps lengths only (few segments would be too short)
_MAX_SEGMENTED = 6


class Budget:
    """Work units left; ``spend(n)`` is False once they are gone (and stays False)."""

    def __init__(self, units: int) -> None:
        self.left = units

    def spend(self, units: int = 1) -> bool:
        if self.left < 0:
            return False
        self.left -= units
        return self.left >= 0


def _common_ends(a: str, b: str) -> tuple[int, int]:
    """(length of the common prefix, of the common suffix after it): slices compared in C,
    halving."""
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix, rest = lo, n - lo
    lo, hi = 0, rest
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return prefix, lo


def cost(a: str, b: str, limit: int) -> int:
    """The work units ``distance(a, b, limit)`` may take at most: its band's cells, plus two."""
    return _CALL + max(len(a), len(b)) // 32 + (2 * limit + 1) * min(len(a), len(b))


def look(a: str, b: str) -> int:
    """The work units of comparing ``a`` and ``b`` character by character (``two_values``, a
    shape's classes, a word's letters), at most: a call, and four characters a unit."""
    return _CALL + min(len(a), len(b)) // 4


def distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``limit + 1`` when it is more than ``limit``."""
    return measured(a, b, limit)[0]


def measured(a: str, b: str, limit: int) -> tuple[int, int]:
    """(``distance(a, b, limit)``, the work units it took: a call, the common ends cut, and the
    band's cells it computed: a row or two when the strings differ early, ``cost`` at most)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1, 1
    if a == b:
        return 0, 1
    prefix, suffix = _common_ends(a, b)
    call = _CALL + max(len(a), len(b)) // 32
    a, b = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    if len(a) > len(b):
        a, b = b, a
    n, m, over, width = len(a), len(b), limit + 1, 2 * limit + 1
    if n == 0:
        return (m if m <= limit else over), call
    # Row i holds the cells j = i - limit + d for d in range(width) (the band); cells outside it
    # count as over.
    prev = [over] * width
    for j in range(min(m, limit) + 1):
        prev[j + limit] = j
    for i in range(1, n + 1):
        cur = [over] * width
        ca, best, first = a[i - 1], over, i - limit
        for d in range(width):
            j = first + d
            if j < 0 or j > m:
                continue
            if j == 0:
                value = i
            else:
                value = prev[d] + (ca != b[j - 1])
                if d + 1 < width and prev[d + 1] + 1 < value:
                    value = prev[d + 1] + 1
                if d and cur[d - 1] + 1 < value:
                    value = cur[d - 1] + 1
                if value > over:
                    value = over
            cur[d] = value
            if value < best:
                best = value
        if best > limit:
            return over, call + i * width
        prev = cur
    result = prev[m - n + limit]
    return (result if result <= limit else over), call + n * width


class NearIndex:
    """Strings (each with an item) found again by ``near(text, k)``: every one within k edits, for k
    <= ``k``."""

    def __init__(self, k: int) -> None:
        self.k = max(0, int(k))
        self.segments = self.k + 1 if self.k <= _MAX_SEGMENTED else 0
        self.table: dict[tuple[int, int, str], list[tuple[int, Any]]] = {}
        # length -> strings too short to cut (always candidates)
        self.short: dict[int, list[tuple[int, Any]]] = {}
        self.count = 0
        self._cut_cache: dict[int, list[tuple[int, int]]] = {}

    def _cuts(self, length: int) -> list[tuple[int, int]]:
        """(start, size) of each of the ``segments`` segments of a string of ``length``
        characters."""
        if length in self._cut_cache:
            return self._cut_cache[length]
        size, extra = divmod(length, self.segments)
        cuts, start = [], 0
        for s in range(self.segments):
            width = size + (1 if s >= self.segments - extra else 0)
            cuts.append((start, width))
            start += width
        self._cut_cache[length] = cuts
        return cuts

    def add(self, text: str, item: Any) -> None:
        """Index ``text`` with ``item`` (items come back in the order they were added)."""
        entry = (self.count, item)
        self.count += 1
        if not self.segments or len(text) < self.segments:
            self.short.setdefault(len(text), []).append(entry)
            return
        for s, (start, size) in enumerate(self._cuts(len(text))):
            self.table.setdefault((len(text), s, text[start : start + size]), []).append(entry)

    def near(self, text: str, k: int, budget: Budget) -> list[Any] | None:
        """The items whose text may be within ``k`` edits of ``text`` (a superset), in order; None
        when out of budget."""
        k = min(k, self.k)
        n, found = len(text), {}
        for length in range(max(0, n - k), n + k + 1):
            entries: list[list[tuple[int, Any]]] = [self.short.get(length, [])]
            if self.segments and length >= self.segments:
                for s, (start, size) in enumerate(self._cuts(length)):
                    for p in range(max(0, start - k), min(n - size, start + k) + 1):
                        hit = self.table.get((length, s, text[p : p + size]))
                        if hit:
                            entries.append(hit)
            for entry in entries:
                if not budget.spend(len(entry) + 1):
                    return None
                found.update(entry)
        return [found[seq] for seq in sorted(found)]


_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?")


def two_values(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` two values rather than two spellings of one?

    Two well-formed numbers are two values ("5.2" and "5.3", "12" and "120"), and so are two
    strings that differ only in their digits ("AB-1234" and "AB-1235", "2023-01-05" and
    "2023-01-06", "5.2 mmol/L" and "5.3 mmol/L"): a digit is data, not a spelling. A letter where
    a digit belongs ("3563x" for "35630") is still a typo.
    """
    a, b = a.strip(), b.strip()
    if _NUMBER.fullmatch(a) and _NUMBER.fullmatch(b):
        return True
    if len(a) != len(b):
        return False
    if a == b:
        return any(c.isdigit() for c in a)
    prefix, suffix = _common_ends(a, b)  # between them: the first and last characters that differ
    end = len(a) - suffix
    return all(
        x == y or (x.isdigit() and y.isdigit()) for x, y in zip(a[prefix:end], b[prefix:end])
    )


def _loose(text: str) -> str:
    """Case, spaces and punctuation removed (letters and digits kept): " A.L.T." -> "alt"."""
    return "".join(c for c in text.casefold() if c.isalnum()) if len(text) <= MAX_CHARS else ""


def closest_spellings(
    counts: Mapping[Any, int], max_distance: int, ratio: float
) -> tuple[dict[str, str], int]:
    """(rare string -> its unambiguous close spelling at least ``ratio`` times as frequent, strings
    left alone).

    A string with the same letters and digits as a far more frequent one, cased, spaced or
    punctuated otherwise ("GLUCOSE", " ALT", "A.L.T."), is that one.

    A short code seen more than once is a value of its own ("KY" is not a typo of "NY"); two
    numbers, or two strings that differ only in digits, are two values (``two_values``); short
    strings take one edit at most. Strings over
    ``MAX_CHARS``, and those after the work budget ran out, are left alone (counted).
    """
    strings = [(v, n) for v, n in counts.items() if isinstance(v, str)]
    fixes: dict[str, str] = {}
    if not strings:
        return fixes, 0
    least = min(n for _, n in strings)
    index = NearIndex(max_distance)
    for other, m in sorted(strings, key=lambda vn: -vn[1]):  # the candidates, most frequent first
        if m >= ratio * least and len(other) <= MAX_CHARS:
            index.add(other, (other, m))
    budget, left_alone = Budget(MAX_WORK), 0
    spelled: dict[str, tuple[int, str]] = {}  # loose key -> the most frequent string with it
    for other, m in strings:
        key = _loose(other)
        if key and (key not in spelled or m > spelled[key][0]):
            spelled[key] = (m, other)
    for value, n in strings:
        top = spelled.get(_loose(value))
        if top is not None and top[1] != value and top[0] >= ratio * n:
            # the same letters and digits, cased or spaced otherwise: "A.L.T." is ALT
            fixes[value] = top[1]
            continue
        if len(value.strip()) < 4 and n > 1:
            continue
        limit = min(max_distance, max(1, len(value) // 4))
        near = index.near(value, limit, budget) if len(value) <= MAX_CHARS else None
        best: list[tuple[int, int, str]] | None = []
        for other, m in near or ():
            if m < ratio * n or other == value:
                continue
            if not budget.spend(look(value, other)):
                best = None
                break
            if two_values(value, other):
                continue
            d, work = measured(value, other, limit)
            if not budget.spend(work):
                best = None
                break
            if d <= limit:
                best.append((d, -m, other))
        if near is None or best is None:
            left_alone += 1
            continue
        if not best:
            continue
        best.sort()
        if len(best) > 1 and best[1][0] == best[0][0] and -best[1][1] * 2 > -best[0][1]:
            continue  # two candidates at the same distance and of similar frequency: ambiguous
        fixes[value] = best[0][2]
    return fixes, left_alone


def close_keys(text: str, index: NearIndex, max_distance: int, budget: Budget) -> list[Any] | None:
    """The items of ``index`` whose text is within ``max_distance`` edits of ``text``; None: left
    alone (too long, budget)."""
    if len(text) > MAX_CHARS:
        return None
    found = index.near(text, max_distance, budget)
    if found is None:
        return None
    out = []
    for other, other_text in found:
        if text.isdigit() and other_text.isdigit():
            continue  # two well-formed numbers are two keys, not a typo
        d, work = measured(text, other_text, max_distance)
        if not budget.spend(work):
            return None
        if d <= max_distance:
            out.append(other)
    return out
