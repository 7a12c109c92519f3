"""Which records the model sees together: chunk sampling strategies and the per-chunk holdout.

``sample_chunks`` regroups a stream of records into chunks of ``chunk_size``. Every record lands
in exactly one chunk and every chunk is full except possibly the last. Input is streamed; memory
is bounded by ``window`` records (or ``chunk_size``, if larger):

- ``sequential``: input order, one chunk at a time (nothing buffered beyond the chunk).
- ``random``: a seeded shuffle buffer. ``window`` records are read, shuffled, emitted as full
  chunks, and the remainder is carried into the next window. The shuffle is therefore *within
  windows of ``window`` records*, not over the whole file: a global shuffle would need the whole
  file in memory. Records far apart in the input never share a chunk unless the window covers both.
- ``stratified``: each window is grouped by the value of ``stratify_field`` (missing field or a
  non-dict record: the stratum ``"(missing)"``; unhashable values are keyed by ``str()``). Each
  chunk draws from every stratum that still has records (at least one record each, the rest of
  the chunk proportionally to what is left, largest remainder first), interleaved round-robin.
  With more strata than ``chunk_size``, chunks rotate through the strata. So rare values reach
  the model in the first chunks instead of after thousands of common ones. Strata keep the order
  of their first appearance; records inside a stratum are shuffled with ``seed``.

``split_holdout`` hides a reproducible share of a chunk from the model, so a function can be
checked on records it was not written from.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from itertools import islice
from typing import Any

__all__ = [
    "STRATEGIES",
    "MISSING_STRATUM",
    "sample_chunks",
    "split_holdout",
    "stratum_of",
    "MetricsSample",
]

STRATEGIES = ("sequential", "random", "stratified")
MISSING_STRATUM = "(missing)"  # real values are keyed as tuples, so a value "(missing)" stays apart


def sample_chunks(
    records: Iterable[Any],
    chunk_size: int,
    strategy: str = "sequential",
    *,
    stratify_field: str | None = None,
    seed: int = 0,
    window: int = 10_000,
) -> Iterator[list]:
    """Records grouped into chunks of chunk_size in the order the strategy picks.

    Arguments are checked at the call (ValueError), not at the first ``next()``.
    """
    if strategy not in STRATEGIES:
        raise ValueError(
            f"unknown sampling strategy {strategy!r}; expected one of {', '.join(STRATEGIES)}"
        )
    if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise ValueError(f"window must be a positive integer, got {window!r}")
    if strategy == "stratified" and not stratify_field:
        raise ValueError(
            'sampling_strategy "stratified" needs stratify_field (the field to balance on)'
        )
    it = iter(records)
    if strategy == "sequential":
        return _sequential(it, chunk_size)
    window = max(window, chunk_size)
    if strategy == "random":
        return _shuffled(it, chunk_size, window, random.Random(seed))
    rng = random.Random(seed)
    return _stratified(it, chunk_size, window, stratify_field, rng)  # type: ignore[arg-type]


def _sequential(it: Iterator[Any], chunk_size: int) -> Iterator[list]:
    while chunk := list(islice(it, chunk_size)):
        yield chunk


def _windows(
    it: Iterator[Any], chunk_size: int, window: int, arrange: Callable[[list], list]
) -> Iterator[list]:
    """Read windows (carry-over included), let ``arrange`` order each, emit full chunks, carry the
    rest."""
    carry: list = []
    while True:
        fresh = list(islice(it, window - len(carry)))
        buffer = carry + fresh
        if not buffer:
            return
        at_end = len(buffer) < window
        ordered = arrange(buffer)
        del buffer, fresh
        full = len(ordered) - len(ordered) % chunk_size
        for start in range(0, full, chunk_size):
            yield ordered[start : start + chunk_size]
        carry = ordered[full:]
        if at_end:
            if carry:
                yield carry
            return


def _shuffled(
    it: Iterator[Any], chunk_size: int, window: int, rng: random.Random
) -> Iterator[list]:
    def arrange(buffer: list) -> list:
        rng.shuffle(buffer)
        return buffer

    return _windows(it, chunk_size, window, arrange)


def stratum_of(record: Any, field: str) -> Any:
    """The stratum key of a record: ``(type, value)``, ``("unhashable", str(value))`` or
    MISSING_STRATUM.

    The type keeps True apart from 1 and 1.0; all NaNs share one stratum.
    """
    if not isinstance(record, dict) or field not in record:
        return MISSING_STRATUM
    value = record[field]
    try:
        hash(value)
    except TypeError:
        return ("unhashable", str(value))
    if isinstance(value, float) and math.isnan(value):
        return (float, "nan")
    return (type(value), value)


def _stratified(
    it: Iterator[Any], chunk_size: int, window: int, field: str, rng: random.Random
) -> Iterator[list]:
    def arrange(buffer: list) -> list:
        strata: dict[Any, list] = {}
        for record in buffer:
            strata.setdefault(stratum_of(record, field), []).append(record)
        queues = []
        for members in strata.values():
            rng.shuffle(members)
            queues.append(deque(members))
        return _interleave(queues, len(buffer), chunk_size)

    return _windows(it, chunk_size, window, arrange)


def _interleave(queues: list[deque], total: int, chunk_size: int) -> list:
    """All records of the strata queues in chunk order: every live stratum in each chunk, then
    proportional."""
    active: deque[deque] = deque(queues)
    out: list = []
    while total:
        slots = min(chunk_size, total)
        if len(active) >= slots:
            picked = [active.popleft() for _ in range(slots)]  # rotate through the strata
            out.extend(q.popleft() for q in picked)
            active.extend(q for q in picked if q)
        else:
            counts = [1] * len(active)
            _share(counts, [len(q) - 1 for q in active], slots - len(active))
            rounds = list(active)
            for i in range(max(counts)):
                out.extend(q.popleft() for q, n in zip(rounds, counts) if n > i)
            active = deque(q for q in rounds if q)
        total -= slots
    return out


def _share(counts: list[int], spare: list[int], extra: int) -> None:
    """Add ``extra`` slots to counts in proportion to spare (largest remainder; sum(spare) >=
    extra)."""
    pool = sum(spare)
    if extra <= 0 or pool <= 0:
        return
    given, rests = 0, []
    for i, s in enumerate(spare):
        whole, rest = divmod(extra * s, pool)
        counts[i] += whole
        given += whole
        rests.append((-rest, i))
    for _, i in sorted(rests)[: extra - given]:
        counts[i] += 1


def split_holdout(
    records: list, ratio: float, *, seed: int = 0, salt: int = 0
) -> tuple[list, list]:
    """(visible, hidden): a reproducible share `ratio` of the chunk is hidden from the model.

    hidden = floor(len * ratio), at least 1 when ratio > 0 and there are two records or more, and
    never every record. Both lists keep the chunk's order; ``salt`` (say, the chunk index) varies
    the choice from chunk to chunk under one seed.
    """
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 <= ratio < 1:
        raise ValueError(f"holdout ratio must be in [0, 1), got {ratio!r}")
    records = list(records)
    n = len(records)
    if ratio == 0 or n < 2:
        return records, []
    hidden_count = int(Fraction(repr(float(ratio))) * n)  # exact floor: 0.29 * 100 is 29, not 28
    hidden_count = min(max(hidden_count, 1), n - 1)
    rng = random.Random(f"holdout:{seed}:{salt}")
    hidden_at = set(rng.sample(range(n), hidden_count))
    visible = [r for i, r in enumerate(records) if i not in hidden_at]
    hidden = [r for i, r in enumerate(records) if i in hidden_at]
    return visible, hidden


class MetricsSample:
    """A seeded reservoir of (position in the file, record): bounded memory however large the
    input."""

    def __init__(self, size: int = 1000, seed: int = 0) -> None:
        self.size = size
        self.seen = 0
        self._rng = random.Random(seed)
        self._items: list[tuple[int, Any]] = []

    def add(self, position: int, record: Any) -> None:
        self.seen += 1
        if len(self._items) < self.size:
            self._items.append((position, record))
            return
        slot = self._rng.randrange(self.seen)
        if slot < self.size:
            self._items[slot] = (position, record)

    def items(self) -> list[tuple[int, Any]]:
        """The sample in file order."""
        return sorted(self._items, key=lambda item: item[0])
