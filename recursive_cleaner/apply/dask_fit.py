"""apply_dask's cross-row steps and audit log: apply_file's two passes as per-part tasks and merged
counts.

For one input file (its parts from ``dask_parts``), with ``CROSS_ROW_STEPS`` or an audit log:

1. **Spool** (a task per part): apply's pipeline with one sandboxed worker, as ``clean_part``; the
   cleaned records go to a spool file beside the output (``row<TAB>JSON``, the local pass 1's
   form), the part's records are counted into a ``crossrow.steps.Summary`` (each step's kind counts:
   vocabulary the values, majority per raw key the counts of each field's values, or of (value,
   source) pairs for a weighted vote), and the functions' audit rows go to a piece file, numbered
   within the part.
2. **Fit**: the summaries are merged in part order by a tree of tasks (``split_every`` at a
   time; each kind's ``merge``: counts add, first sight keeps its order), so the merged summary is
   the one apply_file's single pass counts; the calling process picks the winners from it
   (``Summary.fitted``, the local code). A capped cell (a vocabulary field with more than 5,000
   distinct values) is recounted over the spools for the values kept.
3. **Duplicate keys** (a ``keeps_first`` kind, dedup; a round per such step, in order): each part's
   dedup keys after the steps before it, merged in part order into "the first part that has
   this key"; only keys in two or more parts are kept and sent to the parts.
4. **Transform** (a task per part): the fitted steps on the spooled records, a record dropped
   when its key was seen earlier in its part or belongs to an earlier part; the audit pieces
   (renumbered over the file, in the log's format). The calling process re-cuts the parts'
   records into apply_file's batches (the same CSV header and Parquet types), writes them in
   order, and joins the audit pieces: the functions' rows of every part, then the steps' rows.

Nothing but counts and winners crosses the network besides the output itself; no group of
rows is ever gathered. Spools and pieces are removed at the end, whatever happens.

``run_file`` runs the four steps; their tasks are in ``dask_spool`` (1, 2), ``dask_keys`` (3) and
``dask_write`` (4).
"""

from __future__ import annotations

import os
import shutil
from typing import Any, Callable

from .cross_row import loss_message, step_label
from .dask_keys import dedup_keys, dedup_part, merge_keys, owners_of, with_owners
from .dask_parts import Part
from .dask_spool import CrossRowJob, added, merge_summaries, recount, spool_part
from .dask_write import transform_part, write_output
from .result import ApplyResult
from ..crossrow.steps import kind_of
from ..errors import DataLossError

__all__ = [
    "CrossRowJob",
    "SPLIT_EVERY",
    "spool_part",
    "merge_summaries",
    "run_file",
    "with_owners",
    "dedup_keys",
    "merge_keys",
    "owners_of",
]

SPLIT_EVERY = 8  # summaries merged per task of the tree


def run_file(
    cluster: Any,
    job: CrossRowJob,
    path: str,
    parts: list[Part],
    target: str,
    reject: str | None,
    audit_path: str | None,
    total: ApplyResult,
    max_drop: float,
    started: float,
    on_progress: Callable[[dict], None] | None,
    *,
    column_types: dict | None = None,
) -> ApplyResult:
    """One input file with cross-row steps and/or an audit log (see the module docstring); its
    ApplyResult.

    ``cluster`` (apply_dask's): ``dask``, ``compute(*delayed)`` -> values, ``ordered(delayeds)`` ->
    values in order a window at a time, ``share(value)`` -> a value sent once to every worker, for
    tasks to take.
    """
    dask, compute = cluster.dask, cluster.compute
    done = ApplyResult(workers=total.workers, trusted=total.trusted)
    steps = list(job.steps)
    labels = [step_label(i, s) for i, s in enumerate(steps)]
    done.cross_row_steps = labels
    os.mkdir(job.temp)  # the umask's mode: workers running as another user must write here
    try:
        spooled = [
            dask.delayed(spool_part, nout=2, pure=False)(job, k, part)
            for k, part in enumerate(parts)
        ]
        level = [s for _, s in spooled]
        while len(level) > 1:
            level = [
                dask.delayed(merge_summaries)(steps, *level[i : i + SPLIT_EVERY])
                for i in range(0, len(level), SPLIT_EVERY)
            ]
        *stats, summary = compute(*[st for st, _ in spooled], level[0])
        capped = sorted(summary.capped)
        if capped:
            counts = compute(
                *[
                    dask.delayed(recount)(summary, capped, job.path(k, "pass1"))
                    for k in range(len(parts))
                ]
            )
            summary.recounted(added(list(counts)))
        fitted = summary.fitted()
        fitted_d = cluster.share(fitted)
        owners: dict[int, dict] = {}
        drops: dict[int, int] = {}
        for j in (i for i, s in enumerate(steps) if kind_of(s).keeps_first):
            known = cluster.share(owners)
            level = [
                dask.delayed(dedup_part)(job, fitted_d, known, j, k) for k in range(len(parts))
            ]
            while len(level) > 1:
                level = [
                    dask.delayed(merge_keys)(*level[i : i + SPLIT_EVERY])
                    for i in range(0, len(level), SPLIT_EVERY)
                ]
            owners[j], drops[j] = compute(
                dask.delayed(owners_of)(dask.delayed(merge_keys)(level[0]))
            )[0]
        rows = sum(s.rows for s in stats)
        if sum(n for j, n in drops.items() if not steps[j].asked) > max_drop * rows:
            raise DataLossError(
                loss_message(drops, steps, labels, rows, max_drop),
                sum(n for j, n in drops.items() if not steps[j].asked),
                rows,
            )
        bases = [0]
        for s in stats:
            bases.append(bases[-1] + s.result.records_in)
        known = cluster.share(owners)
        transformed = cluster.ordered(
            [
                dask.delayed(transform_part)(job, fitted_d, known, k, bases[k])
                for k in range(len(parts))
            ]
        )
        write_output(
            job,
            path,
            stats,
            transformed,
            target,
            reject,
            audit_path,
            done,
            total,
            started,
            on_progress,
            column_types,
        )
    # a task still running after a failure finds no folder to write in: nothing is left behind
    finally:
        shutil.rmtree(job.temp, ignore_errors=True)
    return done
