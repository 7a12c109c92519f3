"""After the last chunk: rules across rows, optimization, cleaning_functions.py, metrics, report.

``finish_run(cleaner, result, started)`` is the last stage of ``DataCleaner.run``; it fills the
``RunResult`` and emits ``complete`` (and ``dry_run_complete`` in a dry run).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .cross_row import apply_steps
from .cross_row_plan import (build_plan_prompt, choose_steps, discover_steps, stated_keys, validate_steps, wants_dedup,
                             with_stated)
from .optimizer import optimize_functions
from .output import OutputResult, write_output
from .result import RunResult
from .run_report import measure_improvement, write_run_report
from .sandbox import run_in_sandbox

if TYPE_CHECKING:
    from .cleaner import DataCleaner

__all__ = ["finish_run", "plan_cross_row", "optimize", "write_functions"]


def finish_run(cleaner: "DataCleaner", result: RunResult, started: float) -> RunResult:
    """Write the functions (not in a dry run), measure, report, and emit the last event."""
    c = cleaner
    source = None
    if not c.dry_run and c.cross_row and c.mode == "structured":
        plan_cross_row(c)
    if not c.dry_run and c.optimize and len(c.functions) >= c.optimize_threshold:
        optimize(c)
    if not c.dry_run:
        written = write_functions(c)
        result.functions, source, c._order_note = written.written, written.source, written.order_note
        result.rejected = c._rejected + written.rejected
    else:
        result.rejected = list(c._rejected)
    result.skipped_records, result.skipped = c._skip_count, list(c._skipped)
    result.llm = c.stats.to_dict()
    result.unfixable = dict(c.focus.unfixable)
    result.issues = list(c._issues)
    result.modifications = list(c._modifications)
    result.cross_row = [s.to_dict() for s in c.cross_row_steps]
    result.cross_row_dropped, result.cross_row_sample = c._cross_row_drop
    result.reflection = c.reviewer.stats.to_dict() if c.reviewer else {}
    if c._consolidation is not None:
        done = c._consolidation
        result.optimization = {"original": done.original_count, "final": len(done), "calls": done.calls,
                               "merged": [d.describe() for d in done.accepted],
                               "refused": [d.describe() for d in done.refused]}
    c._improvement = result.improvement = measure_improvement(c, source) if c.track_metrics else None
    result.report_path = write_run_report(c, result, time.monotonic() - started)
    totals = dict(chunks=result.chunks_processed, skipped_records=c._skip_count, llm_calls=c.stats.calls,
                  prompt_tokens=c.stats.prompt_tokens, completion_tokens=c.stats.completion_tokens,
                  cached_tokens=c.stats.cached_tokens, latency_stats=c.stats.latency_stats(),
                  report_path=result.report_path, reflection=result.reflection,
                  optimization={k: v for k, v in result.optimization.items() if k in ("original", "final", "calls")},
                  stopped_early=result.stopped_early)
    if c.dry_run:
        c._emit("dry_run_complete", issues=len(c._issues),
                fields=sorted({i["field"] for i in c._issues if i.get("field")}), **totals)
    c._emit("complete", functions=len(result.functions), output_path=None if c.dry_run else c.output_path, **totals)
    return result


def plan_cross_row(c: "DataCleaner", sample_size: int = 2000) -> None:
    """Rules across rows (cross_row_plan): found in a cleaned sample, confirmed by the model, checked on it."""
    sample = c.gate.apply(c.functions, c.source.head(sample_size))
    fields = list(dict.fromkeys(k for r in sample if isinstance(r, dict) for k in r))
    stated = stated_keys(c.instructions, fields)
    candidates = discover_steps(sample, stated=stated)
    if not candidates and not wants_dedup(c.instructions):
        return
    dedup = wants_dedup(c.instructions)
    reply = c._call(build_plan_prompt(c._prefix, candidates, len(sample), dedup=dedup),
                    max(c.last_completed_chunk, 0), 0, purpose="cross_row")
    chosen, problems = choose_steps(reply, fields)
    kept, refused = validate_steps(candidates if chosen is None else with_stated(chosen, candidates, stated), sample,
                                   c.focus.expectations, allow_dedup=dedup, stated=stated,
                                   csv_strings=c.focus.csv_strings)
    c.cross_row_steps = kept
    records = [r for r in sample if isinstance(r, dict)]
    c._cross_row_drop = (len(records) - len(apply_steps(kept, records)), len(records))
    c._rejected += refused + [("cross_row_plan", p) for p in problems]
    c._emit("cross_row_planned", steps=[s.to_dict() for s in kept], refused=len(refused),
            source="library" if chosen is None else "model", dropped=c._cross_row_drop[0],
            sample_records=c._cross_row_drop[1])


def optimize(c: "DataCleaner") -> None:
    """Two-pass optimization: consolidate groups of related functions; a merge must match its originals."""
    sample = [r for _, r in c._metrics_sample.items()] if c._metrics_sample else c.source.head(500)
    c._where = {"chunk_index": max(c.last_completed_chunk, 0), "iteration": 0}
    c._consolidation = optimize_functions(
        c.functions, c.backend, records=sample, emit=c._emit, stats=c.stats, sleep=c.sleep,
        llm_attempts=c.llm_attempts, timeout=c.sandbox_timeout, mode=c.mode)
    c.functions = list(c._consolidation)


def write_functions(c: "DataCleaner") -> OutputResult:
    """cleaning_functions.py in dependency order, checked in the sandbox on the file's first records."""
    sample = c.source.head()

    def check(source: str) -> str | None:
        res = run_in_sandbox(source, "clean_data", sample, timeout=c.sandbox_timeout)
        return None if res.ok else (res.error or "; ".join(res.violations) or "failed in the sandbox")

    return write_output(c.functions, c.output_path, mode=c.mode, check=check if c.validate_runtime else None,
                        cross_row=[s.to_dict() for s in c.cross_row_steps])
