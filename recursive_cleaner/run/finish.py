"""After the last chunk: rules across rows, optimization, cleaning_functions.py, metrics, report.

``finish_run(ctx, result, started)`` is the last stage of ``DataCleaner.run``; it fills the
``RunResult`` and emits ``complete`` (and ``dry_run_complete`` in a dry run).
"""

from __future__ import annotations

import logging
import time

from ..crossrow.discover import discover_steps
from ..crossrow.plan import build_plan_prompt, choose_steps, with_stated
from ..crossrow.validate import validate_steps, writable_fields
from ..crossrow.steps import apply_steps, fit, rows_changed
from ..crossrow.xml_form import plan_reply
from ..judge.assembly import example_mismatches, fill_examples
from ..judge.sandbox import run_in_sandbox
from ..optimizer.grouping import optimize_functions
from ..profiling.spec import read_spec
from ..write.state import atomic_write_text
from ..write.module import OutputResult, write_output
from .measure import measure_improvement, write_run_report
from .result import RunResult
from .labelled import label_lines, labelled_rows, plan_with_labels
from .review import unmet_goals
from .sidecar import spec_path_for, spec_stamp, stamped_spec
from .state import RunContext

__all__ = [
    "finish_run",
    "finish_interrupted",
    "plan_cross_row",
    "optimize",
    "write_functions",
    "write_spec",
]

log = logging.getLogger("recursive_cleaner")


def finish_interrupted(ctx: RunContext, result: RunResult, started: float) -> None:
    """Ctrl-C: the functions accepted so far and their report written (no cross-row plan, no
    optimization, no metrics: they cost calls and time); a failure to write never hides the
    interrupt the caller re-raises."""
    try:
        finish_run(ctx, result, started, interrupted=True)
    except Exception as exc:  # noqa: BLE001 - the interrupt goes on; what failed is said once
        log.warning("interrupted: the functions so far could not be written: %s", exc)


def finish_run(
    ctx: RunContext, result: RunResult, started: float, *, interrupted: bool = False
) -> RunResult:
    """Write the functions (not in a dry run), measure, report, and emit the last event
    (``interrupted``: only the functions and the report of what was accepted, no event)."""
    options, state, stats = ctx.options, ctx.state, ctx.client.stats
    source = None
    # no record was read and nothing resumed: nothing to write (the caller says so; no empty files)
    nothing_read = result.chunks_total == 0 and not state.functions
    wrap_up = not options.dry_run and not interrupted and not nothing_read
    if wrap_up and options.cross_row and options.mode == "structured":
        plan_cross_row(ctx)
    if wrap_up and options.optimize and len(state.functions) >= options.optimize_threshold:
        optimize(ctx)
    if not options.dry_run and not nothing_read:
        written = write_functions(ctx)
        result.functions, source, state.order_note = (
            written.written,
            written.source,
            written.order_note,
        )
        result.code = source or ""
        result.rejected = state.rejected + written.rejected
    else:
        result.rejected = list(state.rejected)
    result.skipped_records, result.skipped = state.skip_count, list(state.skipped)
    result.llm = stats.to_dict()
    result.unfixable = dict(ctx.focus.unfixable)
    result.unmet = unmet_goals(state.spec, state.functions, state.cross_row_steps, result.unfixable)
    result.issues = list(state.issues)
    result.unusable_replies = state.unusable_replies
    result.open_passes, result.open_pass_skipped = state.open_passes, state.open_pass_skipped
    result.modifications = list(state.modifications)
    result.cross_row = [s.to_dict() for s in state.cross_row_steps]
    result.cross_row_dropped, result.cross_row_sample = state.cross_row_drop
    if state.spec is not None:
        result.spec = state.spec.to_dict()
        result.spec_path = None if nothing_read else write_spec(ctx, source)
    result.reflection = ctx.reviewer.stats.to_dict() if ctx.reviewer else {}
    result.fingerprint = dict(state.fingerprint or {})
    if state.consolidation is not None:
        done = state.consolidation
        result.optimization = {
            "original": done.original_count,
            "final": len(done),
            "calls": done.calls,
            "merged": [d.describe() for d in done.accepted],
            "refused": [d.describe() for d in done.refused],
        }
    state.improvement = result.improvement = (
        measure_improvement(ctx, source) if options.track_metrics and not interrupted else None
    )
    result.report_path = (
        None
        if nothing_read
        else write_run_report(ctx, result, time.monotonic() - started, interrupted=interrupted)
    )
    if interrupted:
        return result
    totals = dict(
        chunks=result.chunks_processed,
        skipped_records=state.skip_count,
        llm_calls=stats.calls,
        prompt_tokens=stats.prompt_tokens,
        completion_tokens=stats.completion_tokens,
        cached_tokens=stats.cached_tokens,
        latency_stats=stats.latency_stats(),
        report_path=result.report_path,
        reflection=result.reflection,
        optimization={
            k: v for k, v in result.optimization.items() if k in ("original", "final", "calls")
        },
        stopped_early=result.stopped_early,
    )
    if options.dry_run:
        ctx.emit(
            "dry_run_complete",
            issues=len(state.issues),
            fields=sorted({i["field"] for i in state.issues if i.get("field")}),
            **totals,
        )
    ctx.emit(
        "complete",
        functions=len(result.functions),
        output_path=None if options.dry_run else options.output_path,
        **totals,
    )
    return result


def write_spec(ctx: RunContext, source: str | None = None) -> str:
    """The reading of the goals, editable: ``<functions stem>.spec.json`` beside the functions
    (their code's digest in it: ``source``, as written), or in a dry run beside its report
    (``run.sidecar``)."""
    options = ctx.options
    path = spec_path_for(options.output_path, options.report_path, dry_run=options.dry_run)
    stamp = (
        spec_stamp(report_path=options.report_path)
        if options.dry_run
        else spec_stamp(functions_path=options.output_path, source=source)
    )
    atomic_write_text(path, stamped_spec(ctx.state.spec.to_dict(), stamp))
    return path


def plan_cross_row(ctx: RunContext, sample_size: int = 2000) -> None:
    """Rules across rows (crossrow.plan): found in a cleaned sample, confirmed by the model, checked
    on it."""
    state = ctx.state
    sample = ctx.gate.apply(state.functions, ctx.source.head(sample_size))
    fields = list(dict.fromkeys(k for r in sample if isinstance(r, dict) for k in r))
    # the goals as the spec reads them, and as the user may have corrected them: keys, their fields,
    # dedup
    spec = state.spec if state.spec is not None else read_spec(ctx.options.instructions, fields)
    stated = {
        k: [f for f in named if f in fields] for k, named in spec.stated().items() if k in fields
    }
    dedup = spec.dedup
    # a rule across rows may also mend a field the goals ask for with no format ("fix the typos
    # in the city")
    frozen = ctx.focus.rows_frozen
    candidates = discover_steps(sample, stated=stated, protected=ctx.focus.protected, frozen=frozen)
    labels = ctx.focus.labels
    if not candidates and not dedup:
        state.cross_row_steps = plan_with_labels(ctx, [])
        state.label_lines = label_lines(ctx, sample, state.cross_row_steps)
        return
    # a field the goals leave alone may be a key, never offered as a field a step writes
    writable = writable_fields(fields, stated, ctx.focus.protected, frozen)
    form = (
        plan_reply(fields, dedup=dedup, writable=writable).gbnf()
        if ctx.options.constrained
        else None
    )
    reply = ctx.call(
        build_plan_prompt(state.prefix, candidates, len(sample), dedup=dedup),
        max(state.last_completed_chunk, 0),
        0,
        purpose="cross_row",
        grammar=form,
    )
    chosen, problems = choose_steps(reply, fields)
    kept, refused = validate_steps(
        candidates if chosen is None else with_stated(chosen, candidates, stated),
        sample,
        ctx.focus.expectations,
        allow_dedup=dedup,
        stated=stated,
        frozen=frozen,
        csv_strings=ctx.focus.csv_strings,
        protected=ctx.focus.protected,
        kept=ctx.focus.kept,
        examples=ctx.focus.spec.examples() if ctx.focus.spec else None,
        content=ctx.focus.harm,
        labels=labelled_rows(ctx),
        labels_key=labels.key if labels is not None else "",
    )
    kept = plan_with_labels(ctx, kept)
    state.cross_row_steps = kept
    state.label_lines = label_lines(ctx, sample, kept)
    records = [r for r in sample if isinstance(r, dict)]
    state.cross_row_drop = (len(records) - len(apply_steps(kept, records)), len(records))
    state.cross_row_rows = rows_changed(kept, records)
    state.cross_row_notes = fit(kept, records).notes()
    state.rejected += refused + [("cross_row_plan", p) for p in problems]
    ctx.emit(
        "cross_row_planned",
        steps=[s.to_dict() for s in kept],
        refused=len(refused),
        source="library" if chosen is None else "model",
        dropped=state.cross_row_drop[0],
        sample_records=state.cross_row_drop[1],
    )


def optimize(ctx: RunContext) -> None:
    """Two-pass optimization: consolidate groups of related functions; a merge must match its
    originals."""
    state, client = ctx.state, ctx.client
    sample = (
        [r for _, r in state.metrics_sample.items()]
        if state.metrics_sample
        else ctx.source.head(500)
    )
    ctx.where.update(chunk_index=max(state.last_completed_chunk, 0), iteration=0)
    state.consolidation = optimize_functions(
        state.functions,
        client,
        records=sample,
        emit=ctx.emit,
        timeout=ctx.options.sandbox_timeout,
        mode=ctx.options.mode,
    )
    state.functions = list(state.consolidation)


def write_functions(ctx: RunContext) -> OutputResult:
    """cleaning_functions.py in dependency order, checked in the sandbox on the file's first
    records.

    Each function must also give its accepted outputs inside the assembled file
    (``judge.assembly``); one that changes what another returns is left out and listed in
    ``rejected``.
    """
    sample = ctx.source.head()
    options = ctx.options

    def check(source: str) -> str | None:
        res = run_in_sandbox(source, "clean_data", sample, timeout=options.sandbox_timeout)
        return (
            None if res.ok else (res.error or "; ".join(res.violations) or "failed in the sandbox")
        )

    def verify(source: str, functions: list[dict]) -> dict[str, str]:
        return example_mismatches(source, functions, timeout=options.sandbox_timeout)

    functions = ctx.state.functions
    # merged or restored functions get examples from the file's first records
    if options.validate_runtime:
        functions = fill_examples(functions, sample, timeout=options.sandbox_timeout)
    return write_output(
        functions,
        options.output_path,
        mode=options.mode,
        check=check if options.validate_runtime else None,
        cross_row=[s.to_dict() for s in ctx.state.cross_row_steps],
        verify=verify if options.validate_runtime else None,
    )
