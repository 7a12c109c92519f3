"""The chunk step's parts: the chunk shown to the gate, and each attempt reviewed, accepted or
failed; when a chunk the profile finds clean is done."""

from __future__ import annotations

import logging

from ..errors import clip_text
from ..judge.verdict import NOT_DONE_KEY, ChunkView, Verdict
from ..model.response import ParsedResponse
from ..profiling.focus import reason_key
from ..profiling.profiler import FieldProfile
from ..read.sampling import split_holdout
from .asking import hint_for
from .open_pass import skip_open_pass
from .setup import first_issue
from .state import RunContext

__all__ = [
    "FEEDBACK_CHARS",
    "show_chunk",
    "review",
    "accept",
    "clean_by_profile",
    "nothing_to_write",
    "record_failure",
    "give_up",
    "retake_set_aside",
]

log = logging.getLogger("recursive_cleaner")

FEEDBACK_CHARS = 2000  # one rejection as the next prompt, the state file and events quote it


def show_chunk(ctx: RunContext, records: list, index: int) -> list:
    """The chunk as the functions so far leave it (one sandbox round trip), the held-out part
    shown to the gate; the part the model sees."""
    options = ctx.options
    visible, hidden = (
        split_holdout(records, options.holdout_ratio, seed=options.seed, salt=index)
        if options.validate_runtime
        else (records, [])
    )
    # one sandbox round trip per chunk
    both = ctx.gate.apply(ctx.state.functions, visible + hidden)
    view = both[: len(visible)]
    ctx.gate.see(ChunkView(view, both[len(visible) :], raw=visible, raw_hidden=hidden))
    return view


def review(
    ctx: RunContext,
    parsed: ParsedResponse,
    view: list,
    focus: FieldProfile | None,
    verdict: Verdict,
) -> str | None:
    """Reflection, when on: feedback for a weak or duplicate candidate (see
    reflection.Reviewer); None accepts."""
    if ctx.reviewer is None or verdict.replaces:
        return None
    problem, crit = ctx.reviewer.review(
        parsed.code,
        parsed.name,
        view,
        ctx.state.functions,
        hidden=ctx.gate.hidden,
        target=focus.field if focus else None,
        expectations=ctx.focus.expectations,
        backend=ctx.client,
        timeout=ctx.options.sandbox_timeout,
        csv_strings=ctx.focus.csv_strings,
    )
    if crit is not None:
        ctx.emit(
            "function_critiqued",
            function_name=parsed.name,
            score=crit.score,
            decision=crit.decision,
            dimensions=crit.dimensions,
        )
    return problem


def accept(
    ctx: RunContext,
    parsed: ParsedResponse,
    verdict: Verdict,
    view: list,
    focus: FieldProfile | None,
    **where: int,
) -> list:
    """Add (or, for a re-sent name, replace) the function; the chunk as it now looks."""
    state = ctx.state
    before = ctx.focus.counts(view)
    view = verdict.outputs if verdict.outputs is not None else view
    ctx.gate.advance(verdict)
    after = ctx.focus.counts(view)
    # the model fixed another field than the one asked for: credit that one
    credited = verdict.field
    entry = {
        "name": parsed.name,
        "docstring": parsed.docstring,
        "code": parsed.code,
        "field": credited or (focus.field if focus else None),
        "issue": (first_issue(parsed) if credited or not focus else focus.issue) or "",
        "issues_before": before,
        "issues_after": after,
        "chunk_index": where["chunk_index"],
        # checked again in the assembled file (judge.assembly)
        "examples": verdict.examples or [],
    }
    if verdict.replaces:
        slot = next(i for i, f in enumerate(state.functions) if f["name"] == verdict.replaces)
        state.functions[slot] = {
            **state.functions[slot],
            **{
                k: v
                for k, v in entry.items()
                if k in ("docstring", "code", "issues_after", "examples")
            },
        }
        state.modifications.append(
            {
                "name": parsed.name,
                "chunk_index": where["chunk_index"],
                "issues_before": before,
                "issues_after": after,
            }
        )
        ctx.emit(
            "function_modified",
            function_name=parsed.name,
            issues_before=before,
            issues_after=after,
            **where,
        )
    else:
        _note_examples(state.functions, entry, parsed, verdict)
        state.functions.append(entry)
        ctx.emit(
            "function_generated",
            function_name=parsed.name,
            field=entry["field"],
            issues_before=before,
            issues_after=after,
            **where,
        )
    ctx.focus.fixed(focus)
    return view


def _note_examples(
    functions: list[dict], entry: dict, parsed: ParsedResponse, verdict: Verdict
) -> None:
    """Keep the goals' examples the library's own call left as they came (said as unmet); a model's
    function for the same field maps each of them, so it does them."""
    if verdict.not_done:
        entry[NOT_DONE_KEY] = [[a, b] for _, a, b in verdict.not_done]
    elif not parsed.hint and entry["field"] is not None:
        for f in functions:
            if f.get("field") == entry["field"]:
                f.pop(NOT_DONE_KEY, None)


def retake_set_aside(ctx: RunContext, view: list, index: int) -> list:
    """A field given up on gets the library's own call on a chunk whose wrong values one mends (a
    list's case and typos where the first chunk held only values no call maps): no model call,
    the gate as for any function; the chunk as it then looks."""
    for prof in ctx.focus.set_aside(view):
        parsed = hint_for(ctx, prof, view, index, 0)
        if parsed is None:
            continue
        verdict = ctx.gate.check(parsed, view, ctx.state.functions, prof)
        problem = verdict.problem or review(ctx, parsed, view, prof, verdict)
        if problem:
            ctx.state.rejected.append((parsed.name, clip_text(problem, FEEDBACK_CHARS)))
            continue
        # still said as given up: the values it was given up on stay as they came
        view = accept(ctx, parsed, verdict, view, prof, chunk_index=index, iteration=0)
    return view


def clean_by_profile(
    ctx: RunContext, open_failures: int, accepted: int, view: list | None = None
) -> bool:
    """The profile shows nothing left: stop after the open-ended pass found nothing it could
    fix, or with no open pass at all where the profile leaves nothing unexplained.

    Without a model call when the open-ended passes of the last ``idle_chunks_before_skip``
    chunks found nothing (homogeneous data stops costing calls, so a run's cost does not grow
    with the file; off with ``call_every_chunk``, the reference design). Field functions do
    not count: the profile finds those issues on every chunk without the open pass. Otherwise
    after ``open_pass_attempts`` failed open-ended attempts on this chunk. Never a call when the
    goals leave every field alone (with or without the profile): nothing could be accepted, nor
    when ``view`` (the chunk as the functions left it) has nothing the profile leaves unexplained
    (``open_pass.unexplained``). False (an open pass follows) is counted in
    ``state.open_passes``.
    """
    options, state = ctx.options, ctx.state
    if nothing_to_write(ctx):
        return True
    if not ctx.focus.enabled:
        state.open_passes += 1
        return False
    if (
        not options.call_every_chunk
        and accepted == 0
        and open_failures == 0
        and state.idle_chunks >= options.idle_chunks_before_skip
    ):
        return True
    if open_failures >= options.open_pass_attempts:
        state.idle_chunks += accepted == 0
        return True
    if view is not None and skip_open_pass(ctx, view):
        return True
    state.open_passes += 1
    return False


def nothing_to_write(ctx: RunContext) -> bool:
    """The goals leave every field alone: an open pass could only be refused."""
    spec = ctx.focus.spec
    return (
        ctx.options.mode == "structured"
        and spec is not None
        and bool(spec.fields)
        and set(spec.fields) <= ctx.focus.left_alone
    )


def record_failure(
    ctx: RunContext,
    focus: FieldProfile | None,
    feedback: list[str],
    message: str,
    event: str,
    **fields,
) -> int:
    """Record a failed attempt: feedback for the next prompt, an event, and the field's failure
    count; what it counts against the chunk's open passes (0 for a field's attempt, 1, or all of
    them when the open pass was refused for the same reason before: no third call).

    The message quotes what the model and the sandboxed code produced: it is clipped
    (``clip_text``).
    """
    message = clip_text(message, FEEDBACK_CHARS)
    repeated = reason_key(message) in {reason_key(f) for f in feedback}
    feedback.append(message)
    ctx.focus.failed(focus, message)
    ctx.state.unusable_replies += event == "parse_error"
    ctx.emit(event, error=clip_text(fields.pop("error", message), FEEDBACK_CHARS), **fields)
    if focus is not None:
        return 0
    return max(ctx.options.open_pass_attempts, 1) if repeated else 1


def give_up(ctx: RunContext, index: int, view: list, asked: set, last_reply: str) -> str:
    """``max_iterations`` reached: always the ``chunk_skipped`` event; the warning only when a
    field the model was asked about is still open (or, without the profile, the model never
    called the chunk clean), never for a chunk its fields left fixed or nothing the model tried."""
    total, tries = ctx.state.total_chunks, ctx.options.max_iterations
    still = {f: n for f, n in ctx.focus.counts(view).items() if n}
    failed = sorted(f for f in asked if f is not None and f in still)
    warned = bool(failed) or (not ctx.focus.enabled and bool(asked))
    if failed:
        log.warning(
            "chunk %d/%d: %s still not clean after %d model attempts (max_iterations); moving on",
            index + 1,
            total,
            ", ".join(clip_text(f, 80) for f in failed),
            tries,
        )
    elif warned:
        log.warning(
            "chunk %d/%d: still not clean after %d model attempts (max_iterations); moving on",
            index + 1,
            total,
            tries,
        )
    ctx.emit(
        "chunk_skipped",
        chunk_index=index,
        attempts=tries,
        last_reply=last_reply[-500:],
        open_issues={f: still[f] for f in failed},
        warned=warned,
    )
    return "max_iterations"
