"""After a run: quality before/after on a sample of the records seen, and the cleaning report
(markdown, and the HTML page beside it)."""

from __future__ import annotations

from typing import Any

from ..crossrow.steps import CrossRowStep
from ..judge.sandbox import run_in_sandbox
from ..profiling.expectations import Expectation
from ..read import formats, parsers
from ..write.metrics import ImprovementReport, compare_quality
from ..write.report import ReportData, write_report
from ..write.report.profile import add_profile
from ..write.report_html import html_report_path, left_alone_fields, write_html_report
from .review import plan_lines
from .result import RunResult
from .state import RunContext

__all__ = ["measure_improvement", "report_data", "write_run_report"]


def _truth_rows(path: str, positions: list[int], encoding: str) -> list[Any] | None:
    """The records of the ground-truth file at ``positions`` (file order); None if it is shorter."""
    wanted, found = set(positions), {}
    encoding = encoding if formats.detect(path).decodes else "utf-8"  # Parquet, Excel: none
    for pos, rec in enumerate(parsers.iter_records(path, encoding=encoding)):
        if pos in wanted:
            found[pos] = rec
            if len(found) == len(wanted):
                break
    if len(found) < len(wanted):
        return None
    return [found[p] for p in positions]


def measure_improvement(ctx: RunContext, source: str | None) -> ImprovementReport | None:
    """Run the final ``clean_data`` on the sample in the sandbox and compare before/after (and
    truth)."""
    sample, options = ctx.state.metrics_sample, ctx.options
    if sample is None or not sample.items():
        return None
    positions = [p for p, _ in sample.items()]
    before = [r for _, r in sample.items()]
    after = before
    if source:
        res = run_in_sandbox(
            source, "clean_data", before, timeout=max(options.sandbox_timeout, 60.0)
        )
        if res.ok:
            after = [
                out if err is None else rec
                for rec, out, err in zip(before, res.outputs, res.errors)
            ]
    truth = (
        _truth_rows(options.ground_truth, positions, options.encoding)
        if options.ground_truth
        else None
    )
    # a field the goals leave alone is measured as such: no wrong values by a kind the data
    # suggests (nothing was asked of it)
    kept = Expectation("as_is", source="instructions")
    return compare_quality(
        before,
        after,
        expectations={**ctx.focus.expectations, **dict.fromkeys(ctx.focus.left_alone, kept)},
        truth=truth,
        csv_strings=ctx.focus.csv_strings,
    )


def report_data(
    ctx: RunContext, result: RunResult, seconds: float | None, *, interrupted: bool = False
) -> ReportData:
    """Everything the markdown report shows, from the run and its result."""
    llm, options, state = dict(result.llm), ctx.options, ctx.state
    return ReportData(
        title="Data analysis (dry run)" if options.dry_run else "Cleaning report",
        source=ctx.file_path,
        instructions=options.instructions,
        mode=options.mode,
        dry_run=options.dry_run,
        chunks_total=result.chunks_total,
        chunks_processed=result.chunks_processed,
        records_seen=state.records_seen,
        functions=[f for f in state.functions if f["name"] in set(result.functions)],
        rejected=list(result.rejected),
        unfixable=dict(result.unfixable),
        unmet=dict(result.unmet),
        issues=list(result.issues),
        improvement=state.improvement,
        llm=llm,
        latency=llm.get("latency") or {},
        skipped_records=result.skipped_records,
        unusable_replies=result.unusable_replies,
        skipped_examples=[f"{s.path}:{s.line}: {s.reason}" for s in result.skipped[:10]],
        output_path="" if options.dry_run else result.output_path,
        order_note=state.order_note,
        open_pass=result.open_pass_note(),
        modifications=list(result.modifications),
        reflection=dict(result.reflection),
        optimization=dict(result.optimization),
        stopped_early=result.stopped_early,
        cross_row=[CrossRowStep.from_dict(d).describe() for d in result.cross_row],
        cross_row_dropped=result.cross_row_dropped,
        cross_row_sample=result.cross_row_sample,
        spec=state.spec.summary() if state.spec else [],
        spec_path=result.spec_path or "",
        suggestions=ctx.focus.suggestions(ctx.source.head(200)) if ctx.focus.suggested else [],
        seconds=seconds,
        cross_row_rows=list(state.cross_row_rows),
        cross_row_notes=[list(n) for n in state.cross_row_notes],
        labels=list(state.label_lines),
        left_alone=left_alone_fields(state.spec),
        interrupted=interrupted,
        plan=plan_lines(state.spec) if state.spec else [],
    )


def write_run_report(
    ctx: RunContext, result: RunResult, seconds: float | None, *, interrupted: bool = False
) -> str | None:
    """Write the report to the ``report_path`` option (None: no report), and the HTML report
    beside it (``.html``), both from ``result.report_data``; returns the markdown report's path."""
    if not ctx.options.report_path:
        return None
    data = result.report_data = report_data(ctx, result, seconds, interrupted=interrupted)
    add_profile(data, ctx.file_path, spec=ctx.state.spec, encoding=ctx.source.encoding)
    write_html_report(html_report_path(ctx.options.report_path), data)
    return write_report(ctx.options.report_path, data)
