"""What a run reads: the input file's chunks in the sampling order, and the records for metrics."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ..read import parsers
from .sampling import MetricsSample
from .sampling import sample_chunks

__all__ = ["ChunkSource"]


class ChunkSource:
    """Chunks of one file in its ``encoding``; ``on_skip(skipped, chunk_index)`` hears of every
    malformed line.

    Sequential chunks stream straight from the parser. Random and stratified orders (and a
    metrics sample, which needs each record's position in the file) go through
    ``sampling.sample_chunks``, whose memory is bounded by its window.
    """

    def __init__(
        self,
        path: str,
        fmt: str,
        chunk_size: int,
        *,
        strategy: str = "sequential",
        stratify_field: str | None = None,
        seed: int = 0,
        on_skip: Callable[[parsers.SkippedRecord, int], None] | None = None,
        encoding: str = "utf-8",
    ) -> None:
        self.path, self.fmt, self.chunk_size = path, fmt, chunk_size
        self.encoding = encoding
        self.strategy, self.stratify_field, self.seed = strategy, stratify_field, seed
        self._on_skip = on_skip
        self.index = 0

    def chunks(self, metrics: MetricsSample | None = None) -> Iterator[list]:
        """Every chunk once, in order; records also go to ``metrics`` with their position."""
        self.index = 0
        if self.fmt == "text" or (self.strategy == "sequential" and metrics is None):
            stream = parsers.iter_chunks(
                self.path, self.chunk_size, self.fmt, on_skip=self._skip, encoding=self.encoding
            )
        else:
            stream = sample_chunks(
                self._records(metrics),
                self.chunk_size,
                self.strategy,
                stratify_field=self.stratify_field,
                seed=self.seed,
            )
        position = 0
        for records in stream:
            if metrics is not None and self.fmt == "text":
                for piece in records:
                    metrics.add(position, piece)
                    position += 1
            yield records
            self.index += 1

    def _records(self, metrics: MetricsSample | None) -> Iterator[Any]:
        for position, record in enumerate(
            parsers.iter_records(self.path, self.fmt, on_skip=self._skip, encoding=self.encoding)
        ):
            if metrics is not None:
                metrics.add(position, record)
            yield record

    def _skip(self, skipped: parsers.SkippedRecord) -> None:
        if self._on_skip is not None:
            self._on_skip(skipped, self.index)

    def count(self) -> int:
        """How many chunks ``chunks()`` yields."""
        return parsers.count_chunks(self.path, self.chunk_size, self.fmt, encoding=self.encoding)

    def head(self, limit: int = 20) -> list:
        """The first ``limit`` records in file order (a text file gives a two-sentence sample)."""
        if self.fmt == "text":
            return ["Sample text. With two sentences."]
        sample = []
        for rec in parsers.iter_records(self.path, self.fmt, encoding=self.encoding):
            sample.append(rec)
            if len(sample) >= limit:
                break
        return sample
