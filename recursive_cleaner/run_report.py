"""After a run: quality before/after on a sample of the records seen, and the markdown cleaning report."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from . import parsers
from .cross_row import CrossRowStep
from .metrics import ImprovementReport, compare_quality
from .report import ReportData, write_report
from .sandbox import run_in_sandbox

if TYPE_CHECKING:  # pragma: no cover
    from .cleaner import DataCleaner, RunResult

__all__ = ["MetricsSample", "measure_improvement", "report_data", "write_run_report"]


class MetricsSample:
    """A seeded reservoir of (position in the file, record): bounded memory however large the input."""

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


def _truth_rows(path: str, positions: list[int]) -> list[Any] | None:
    """The records of the ground-truth file at ``positions`` (file order); None if it is shorter."""
    wanted, found = set(positions), {}
    for pos, rec in enumerate(parsers.iter_records(path)):
        if pos in wanted:
            found[pos] = rec
            if len(found) == len(wanted):
                break
    if len(found) < len(wanted):
        return None
    return [found[p] for p in positions]


def measure_improvement(cleaner: "DataCleaner", source: str | None) -> ImprovementReport | None:
    """Run the final ``clean_data`` on the sample in the sandbox and compare before/after (and truth)."""
    sample = cleaner._metrics_sample
    if sample is None or not sample.items():
        return None
    positions = [p for p, _ in sample.items()]
    before = [r for _, r in sample.items()]
    after = before
    if source:
        res = run_in_sandbox(source, "clean_data", before, timeout=max(cleaner.sandbox_timeout, 60.0))
        if res.ok:
            after = [out if err is None else rec for rec, out, err in zip(before, res.outputs, res.errors)]
    truth = _truth_rows(cleaner.ground_truth, positions) if cleaner.ground_truth else None
    return compare_quality(before, after, expectations=cleaner.focus.expectations, truth=truth,
                           csv_strings=cleaner.focus.csv_strings)


def report_data(cleaner: "DataCleaner", result: "RunResult", seconds: float | None) -> ReportData:
    """Everything the markdown report shows, from the cleaner and its run result."""
    llm = dict(result.llm)
    return ReportData(
        title="Data analysis (dry run)" if cleaner.dry_run else "Cleaning report",
        source=cleaner.file_path, instructions=cleaner.instructions, mode=cleaner.mode, dry_run=cleaner.dry_run,
        chunks_total=result.chunks_total, chunks_processed=result.chunks_processed,
        records_seen=cleaner._records_seen,
        functions=[f for f in cleaner.functions if f["name"] in set(result.functions)],
        rejected=list(result.rejected), unfixable=dict(result.unfixable), issues=list(result.issues),
        improvement=cleaner._improvement, llm=llm, latency=llm.get("latency") or {},
        skipped_records=result.skipped_records,
        skipped_examples=[f"{s.path}:{s.line}: {s.reason}" for s in result.skipped[:10]],
        output_path="" if cleaner.dry_run else result.output_path, order_note=cleaner._order_note,
        modifications=list(result.modifications), reflection=dict(result.reflection),
        optimization=dict(result.optimization), stopped_early=result.stopped_early,
        cross_row=[CrossRowStep.from_dict(d).describe() for d in result.cross_row],
        cross_row_dropped=result.cross_row_dropped, cross_row_sample=result.cross_row_sample,
        seconds=seconds)


def write_run_report(cleaner: "DataCleaner", result: "RunResult", seconds: float | None) -> str | None:
    """Write the report to ``cleaner.report_path`` (None: no report); returns the path written."""
    if not cleaner.report_path:
        return None
    return write_report(cleaner.report_path, report_data(cleaner, result, seconds))
