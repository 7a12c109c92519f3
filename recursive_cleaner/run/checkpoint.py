"""A run's progress as a state-file dict, and back (the file itself is written by
``write.state``)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from ..errors import StateFileError
from ..model.llm import LLMStats
from ..write.state import load_state, save_state
from .fingerprint import changes, describe_changes, make_fingerprint
from .state import RunContext

__all__ = [
    "snapshot",
    "restore",
    "load_matching_state",
    "check_input",
    "save_interrupted",
    "FUNCTION_KEYS",
    "CONTRACT_OPTIONS",
]

FUNCTION_KEYS = ("name", "docstring", "code")
_FUNCTION_EXTRAS = ("field", "issue", "issues_before", "issues_after", "chunk_index", "examples")
CONTRACT_OPTIONS = ("chunk_size", "instructions")  # top-level fields of the state file (spec 01)

log = logging.getLogger("recursive_cleaner")


def snapshot(ctx: RunContext) -> dict[str, Any]:
    """Everything needed to resume: the contract fields first, then every option (backend spec
    included)."""
    options, state = ctx.options, ctx.state
    return {
        "file_path": os.path.abspath(ctx.file_path),
        "instructions": options.instructions,
        "chunk_size": options.chunk_size,
        "last_completed_chunk": state.last_completed_chunk,
        "total_chunks": state.total_chunks,
        "file_size": state.input_size if state.input_size >= 0 else os.path.getsize(ctx.file_path),
        "functions": state.functions,
        "skipped_records": state.skip_count,
        "rejected": [list(r) for r in state.rejected[-200:]],
        "issues": state.issues[-500:],
        "unusable_replies": state.unusable_replies,
        **(
            {
                "spec_draft": {
                    f: [kind, list(allowed)] for f, (kind, allowed) in state.spec_draft.items()
                }
            }
            if state.spec_draft is not None
            else {}
        ),
        **({"spec_ties": dict(state.spec_ties)} if state.spec_ties else {}),
        **({"spec_kinds": dict(state.spec_kinds)} if state.spec_kinds else {}),
        "llm": ctx.client.stats.to_dict(),
        "options": {k: v for k, v in options.to_dict().items() if k not in CONTRACT_OPTIONS},
        "early_termination": {
            **ctx.watch.to_dict(),
            "idle_chunks": state.idle_chunks,
            "open_passes": state.open_passes,
            "open_pass_skipped": state.open_pass_skipped,
        },
        "fingerprint": state.fingerprint or make_fingerprint(options, ctx.file_path),
    }


def restore(ctx: RunContext, saved: dict[str, Any]) -> None:
    """Put a snapshot back into the run (functions, progress, counters)."""
    state = ctx.state
    state.functions = [
        {k: f[k] for k in FUNCTION_KEYS + _FUNCTION_EXTRAS if k in f} for f in saved["functions"]
    ]
    state.last_completed_chunk = saved["last_completed_chunk"]
    state.total_chunks = saved.get("total_chunks", 0)
    size = saved.get("file_size")
    state.input_size = size if isinstance(size, int) and not isinstance(size, bool) else -1
    state.skip_count = saved.get("skipped_records", 0)
    state.rejected = [tuple(r) for r in saved.get("rejected", [])]
    state.issues = list(saved.get("issues", []))
    state.unusable_replies = int(saved.get("unusable_replies", 0) or 0)
    draft = saved.get("spec_draft")
    if isinstance(draft, dict):
        state.spec_draft = {
            str(f): (v[0], tuple(v[1]))
            for f, v in draft.items()
            if isinstance(v, list) and len(v) == 2 and isinstance(v[1], list)
        }
    ties = saved.get("spec_ties")
    if isinstance(ties, dict):
        state.spec_ties = {
            str(c): (str(f) if isinstance(f, str) else None) for c, f in ties.items()
        }
    kinds = saved.get("spec_kinds")
    if isinstance(kinds, dict):
        state.spec_kinds = {
            str(k): (str(v) if isinstance(v, str) else None) for k, v in kinds.items()
        }
    progress = saved.get("early_termination")
    if isinstance(progress, dict):
        ctx.watch.load(progress)
        state.idle_chunks = _count(progress.get("idle_chunks"))
        state.open_passes = _count(progress.get("open_passes"))
        state.open_pass_skipped = _count(progress.get("open_pass_skipped"))
    llm = saved.get("llm", {})
    ctx.client.stats = LLMStats(
        calls=llm.get("calls", 0),
        failed_attempts=llm.get("failed_attempts", 0),
        prompt_tokens=llm.get("prompt_tokens", 0),
        completion_tokens=llm.get("completion_tokens", 0),
        cached_tokens=llm.get("cached_tokens", 0),
        on_add=ctx.client.stats.on_add,
    )


def _count(value: Any) -> int:
    """A saved count: a non-negative int, else 0 (a state file is data)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def load_matching_state(ctx: RunContext, state_file: str | None) -> int | None:
    """Continue from the state file when it exists and belongs to this job; the chunk resumed after.

    Read under the run's lock: a state restored earlier (``DataCleaner.resume``) gives way to a
    file another run has carried further since. A state file made from other goals, another
    field spec, other generating options or another version of the data (its ``fingerprint``)
    is refused with StateFileError naming what changed, unless the run starts afresh
    (``restart=True``: the file is then overwritten at the first save). A resumed run keeps
    options given to ``resume`` on purpose: only goals, spec and data are compared for it.
    """
    ctx.state.fingerprint = make_fingerprint(ctx.options, ctx.file_path)
    if not state_file or ctx.restart or not Path(state_file).exists():
        saved = None
    else:
        saved = load_state(state_file)
        same_file = os.path.abspath(saved["file_path"]) == os.path.abspath(ctx.file_path)
        if not same_file or saved["chunk_size"] != ctx.options.chunk_size:
            raise StateFileError(
                f"state file {state_file} belongs to {saved['file_path']} with chunk_size "
                f"{saved['chunk_size']}; use restart=True / --restart to start afresh, or pass "
                "another state_file"
            )
        found = changes(saved, ctx.state.fingerprint, ctx.options, compare_options=not ctx.resumed)
        if found:
            raise StateFileError(describe_changes(state_file, found))
        if 0 <= ctx.state.last_completed_chunk >= saved["last_completed_chunk"]:
            saved = None
    if saved is not None:
        restore(ctx, saved)
    last = ctx.state.last_completed_chunk
    return last if last >= 0 else None


def check_input(ctx: RunContext, state_file: str | None, saved_chunks: int) -> None:
    """StateFileError when resumed progress does not fit the data file as it is now; then remember
    its size.

    ``saved_chunks`` is the state file's ``total_chunks`` (0 if unknown), ``ctx.state.total_chunks``
    the file's chunks now. Progress past the last chunk, or a file whose size or number of chunks
    changed since the state was saved, would skip data or mix two files' functions.
    """
    state, options = ctx.state, ctx.options
    size, last, total = (
        os.path.getsize(ctx.file_path),
        ctx.state.last_completed_chunk,
        ctx.state.total_chunks,
    )
    if last >= 0:
        again = "use restart=True / --restart to start afresh"
        if last >= total:
            raise StateFileError(
                f"state file {state_file}: last_completed_chunk is {last} ({last + 1} chunk(s) "
                "done), but "
                f"{ctx.file_path} has {total} chunk(s) of {options.chunk_size} now; the data file "
                f"changed: {again}"
            )
        if (
            state.input_size >= 0
            and state.input_size != size
            or saved_chunks > 0
            and saved_chunks != total
        ):
            then = f"{state.input_size:,} bytes, " if state.input_size >= 0 else ""
            raise StateFileError(
                f"state file {state_file} was saved when {ctx.file_path} had {then}{saved_chunks} "
                "chunk(s); it has "
                f"{size:,} bytes, {total} chunk(s) now: the finished chunks would not line up; "
                f"{again}"
            )
    state.input_size = size


def save_interrupted(ctx: RunContext, state_file: str | None) -> bool:
    """Ctrl-C or SIGTERM inside a chunk, the first included: the state file written atomically with
    what was accepted so far and the position at that chunk's start (``last_completed_chunk`` is the
    chunk before), so ``resume`` does that chunk again with the functions it already has.

    True when it was written; a failure is warned about and never hides the interrupt.
    """
    if not state_file:
        return False
    try:
        save_state(state_file, snapshot(ctx))
    except Exception as exc:  # noqa: BLE001 - the interrupt goes on; what failed is said once
        log.warning("interrupted: the state file %s could not be written: %s", state_file, exc)
        return False
    return True
