"""Before the first chunk: a saved run resumed or refused, the chunks counted, the prompt
prepared, the result begun."""

from __future__ import annotations

from ..read.sampling import MetricsSample
from . import checkpoint
from .prepare import prepare_prompt
from .result import RunResult
from .state import RunContext

__all__ = ["start_run"]


def start_run(ctx: RunContext, state_file: str | None) -> RunResult:
    """The first stage of ``DataCleaner.run`` (``finish_run`` is the last): the state file loaded
    when it matches, the input checked against it, the schema, spec and static prefix; the
    ``RunResult`` the loop fills."""
    resumed = checkpoint.load_matching_state(ctx, state_file)
    options, state = ctx.options, ctx.state
    saved_chunks, state.total_chunks = state.total_chunks, ctx.source.count()
    checkpoint.check_input(ctx, state_file, saved_chunks)
    prepare_prompt(ctx)  # schema, spec, the goals' conversions, the static prefix
    state.metrics_sample = (
        MetricsSample(options.metrics_sample, options.seed) if options.track_metrics else None
    )
    return RunResult(
        output_path=options.output_path,
        functions=[],
        chunks_total=state.total_chunks,
        resumed_from_chunk=resumed,
    )
