"""Apply a cleaning_functions.py to many files on a Dask cluster; each output byte-identical to
``apply_file``'s.

Optional extra ``dask`` (``pip install 'recursive-data-cleaner[dask]'``); dask is imported only
inside :func:`apply_dask`. Dask does the scheduling; this module only says what a task is:

1. **Plan** (one Dask task per file): JSONL and CSV files are cut into *parts* of whole
   ``batch_size`` batches, at least ``partition_size`` input lines (JSONL) or records (CSV)
   each, at exactly the batch boundaries ``apply_file`` uses. This reads each such file once
   (a line scan for JSONL, the csv parser for CSV, so quoted newlines are never cut). JSON,
   Parquet and Excel files are one part each (each format's ``plan``, ``read.formats``).
2. **Clean** (a ``dask.bag`` with one part per partition): each task reads its part's byte
   range and runs the batches through apply's own pipeline with one worker: a
   :class:`~recursive_cleaner.judge.sandbox.SandboxWorker` started inside the Dask worker process
   (the same safety policy, rlimits and refusals as ``apply_file``), or with ``trusted=True``
   apply's plain Python child. Generated code never runs in a Dask worker process itself.
3. **Write** (the calling process): the parts' results come back in input order, at most
   ``2 × threads`` parts in flight, and go through apply's writers, one output file per input
   file (written atomically, like ``apply_file``). The writer sees the same batches in the same
   order as in ``apply_file``, which is why the bytes are the same in every format (the CSV
   header and the Parquet types come from the first batch).

Paths must be the same on the calling process and on every worker (a shared filesystem);
they are made absolute on the calling process. Record-level semantics (failed records,
skipped input lines with file and line, what fails the run with ApplyError) are apply's.
Cross-row steps (``CROSS_ROW_STEPS``, unless ``cross_row=False``) and the audit log: file by
file, the two passes of ``apply_file`` as per-part tasks and merged counts (``dask_fit``), with
the same output and the same audit rows. A failure stops the run: files finished before it stay
written, complete; the failing file's output is not written.
"""

from __future__ import annotations

import glob
import itertools
import os
import time
import uuid
from collections import deque
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from .writers import AtomicFile, output_writer
from .._extras import require
from .dask_fit import run_file
from .dask_parts import PartResult, add_counts, clean_part, plan_file, renumbered
from .dask_spool import CrossRowJob
from .fields import output_format
from .local import MAX_DROP
from .out_types import column_types, output_spec, spec_inputs
from .pipeline import ApplyRun
from .pool import start_workers
from .result import ApplyError, ApplyResult, check_input_format, no_records
from .result import positive_int, read_functions
from ..run.setup import check_distinct_paths

__all__ = ["DaskApplyResult", "apply_dask"]


@dataclass
class DaskApplyResult(ApplyResult):
    """Totals over all files (ApplyResult's fields), per-file results, and where each output
    went."""

    # input path -> its counts and dropped_keys
    files: dict[str, ApplyResult] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)  # input path -> output path
    partitions: int = 0


def apply_dask(
    functions_path: str,
    inputs: str | list[str],
    output: str,
    *,
    client: Any = None,
    partition_size: int = 100_000,
    batch_size: int = 2000,
    trusted: bool = False,
    fmt: str | None = None,
    reject_dir: str | None = None,
    timeout_per_batch: float = 60.0,
    on_progress: Callable[[dict], None] | None = None,
    cross_row: bool = True,
    audit: str | None = None,
    max_drop: float = MAX_DROP,
    reject_path: str | None = None,
    encoding: str = "utf-8",
    spec: Any = None,
) -> DaskApplyResult:
    """Write clean_data(record), then the file's cross-row steps, for every input file, one output
    file each, on Dask.

    ``inputs``: a path, a glob (``"data/*.jsonl"``) or a list of them. ``output``: the output file
    when ``inputs`` is one plain path, else a directory (created) that gets each file under its
    input's name. ``client``: a ``distributed.Client``; None uses the default client if one exists,
    else dask's local threaded scheduler. ``partition_size``: input lines (JSONL) or records (CSV)
    per part, rounded up to whole batches. ``reject_dir``: records clean_data failed on go to
    ``<reject_dir>/<input name>.rejects.jsonl`` (as apply's ``reject_path``) instead of being kept
    unchanged; ``reject_path``: the same for a single input, this file. ``on_progress`` gets an
    ``apply_progress`` event (with ``path``) per part written (per file with steps or audit).
    ``CROSS_ROW_STEPS`` run after clean_data, fitted per file, unless ``cross_row=False``;
    ``audit``: apply_file's audit log, the file itself when ``inputs`` is one plain path, else a
    directory that gets ``<input name>.audit.jsonl``; ``max_drop``, ``encoding`` and ``spec`` as
    for apply_file (a file in another encoding than UTF-8 is one part). Input rows that cannot be
    read go to the reject file with their line; a file with no record is an InputError.
    """
    dask = require("dask", "apply_dask")
    db = require("dask.bag", "apply_dask")
    started = time.monotonic()
    code = read_functions(functions_path)
    types = column_types(output_spec(spec, functions_path, None))
    size, per = (
        positive_int(batch_size, "batch_size"),
        positive_int(partition_size, "partition_size"),
    )
    probe = ApplyRun(
        code,
        str(functions_path),
        "",
        1,
        trusted,
        timeout_per_batch,
        None,
        cross_row=cross_row,
        audit=audit is not None,
        max_drop=max_drop,
    )
    # apply's checks, no worker
    start_workers(probe.plan.code, str(functions_path), 0, trusted, timeout_per_batch)
    files = _expand(inputs)
    fmts = [check_input_format("apply_dask", path, fmt).encoded(encoding).name for path in files]
    single = isinstance(inputs, (str, os.PathLike)) and not glob.has_magic(str(inputs))
    targets = _targets(files, output, single)
    for target in targets:  # an extension no writer has: one ValueError, before any task
        output_format(target)
    if reject_path is not None and (reject_dir is not None or not single):
        raise ValueError(
            "reject_path is for one input file; give reject_dir for several (or a glob)"
        )
    rejects = [
        os.path.abspath(reject_path)
        if reject_path
        else os.path.join(reject_dir, f"{os.path.basename(p)}.rejects.jsonl")
        if reject_dir
        else None
        for p in files
    ]
    audits = [
        None
        if audit is None
        else os.path.abspath(audit)
        if single
        else os.path.join(os.path.abspath(audit), f"{os.path.basename(p)}.audit.jsonl")
        for p in files
    ]
    check_distinct_paths(
        {
            "functions_path": functions_path,
            **{f"inputs[{i}]": p for i, p in enumerate(files)},
            **spec_inputs(spec, functions_path, None),
        },
        {
            **{f"output of inputs[{i}]": t for i, t in enumerate(targets)},
            **{f"rejects of inputs[{i}]": r for i, r in enumerate(rejects)},
            **{f"audit of inputs[{i}]": a for i, a in enumerate(audits)},
        },
    )
    client = _client(client)
    threads = sum(client.nthreads().values()) if client is not None else os.cpu_count() or 1
    result = DaskApplyResult(workers=threads, trusted=trusted)
    result.cross_row_steps = list(probe.result.cross_row_steps)

    per_batches = -(-per // size)
    plan_bag = db.from_sequence(list(zip(files, fmts)), partition_size=1).map(
        plan_file, size, per_batches, encoding
    )
    plans = [list(parts)[0] for parts in _ordered(dask, plan_bag.to_delayed(), client, 2 * threads)]
    everything = [part for parts in plans for part in parts]
    result.partitions = len(everything)
    filename = os.path.abspath(functions_path)
    if probe.steps or audit is not None:
        cluster = _Cluster(dask, client, 2 * threads)
        for path, kind, parts, target, reject, log in zip(
            files, fmts, plans, targets, rejects, audits
        ):
            temp = os.path.join(
                os.path.dirname(target), f".{os.path.basename(target)}.{uuid.uuid4().hex[:12]}.dask"
            )
            job = CrossRowJob(
                code,
                filename,
                trusted,
                size,
                timeout_per_batch,
                rejects[0] is not None,
                tuple(probe.steps),
                audit is not None,
                bool(log and log.lower().endswith(".csv")),
                temp,
            )
            os.makedirs(os.path.dirname(target), exist_ok=True)
            done = run_file(
                cluster,
                job,
                path,
                parts,
                target,
                reject,
                log,
                result,
                max_drop,
                started,
                on_progress,
                column_types=types,
            )
            done.seconds = time.monotonic() - started
            result.files[path], result.outputs[path] = done, target
            _totals(result, done)
    else:
        clean_bag = db.from_sequence(everything, partition_size=1).map(
            clean_part, code, filename, trusted, size, timeout_per_batch, rejects[0] is not None
        )
        cleaned = _ordered(dask, clean_bag.to_delayed(), client, 2 * threads)
        try:
            for path, parts, target, reject in zip(files, plans, targets, rejects):
                results = (list(next(cleaned))[0] for _ in parts)
                done = _write_file(
                    path, results, target, reject, result, started, on_progress, types
                )
                done.seconds = time.monotonic() - started
                result.files[path], result.outputs[path] = done, target
        finally:
            cleaned.close()
    result.dropped_keys = sorted(
        {key for done in result.files.values() for key in done.dropped_keys}
    )
    result.seconds = time.monotonic() - started
    return result


@dataclass
class _Cluster:
    """What dask_fit's tasks run on: a distributed client, or dask's threaded scheduler when there
    is none."""

    dask: Any
    client: Any
    window: int

    def compute(self, *delayeds: Any) -> tuple:
        if self.client is None:
            return self.dask.compute(*delayeds, scheduler="threads")
        return tuple(self.client.gather(self.client.compute(list(delayeds))))

    def ordered(self, delayeds: list) -> Iterator[Any]:
        return _ordered(self.dask, delayeds, self.client, self.window)

    def share(self, value: Any) -> Any:
        if self.client is None:
            return self.dask.delayed(value, traverse=False)
        # a dict would be scattered by key
        return self.client.scatter([value], broadcast=True, hash=False)[0]


def _totals(total: DaskApplyResult, done: ApplyResult) -> None:
    """A file's cross-row and audit counts added to the run's totals (its record counts are added as
    it is written)."""
    for step, fields in done.cross_row_changed.items():
        for fld, n in fields.items():
            total.cross_row_changed.setdefault(step, {}).setdefault(fld, 0)
            total.cross_row_changed[step][fld] += n
    for step, n in done.changes_by_step.items():
        total.changes_by_step[step] = total.changes_by_step.get(step, 0) + n
    total.audit_rows += done.audit_rows


# ---------------------------------------------------------------------------- the calling process
def _expand(inputs: str | list[str]) -> list[str]:
    """Absolute input paths: globs expanded (sorted), duplicates dropped, in the order given."""
    found: dict[str, None] = {}
    for item in [inputs] if isinstance(inputs, (str, os.PathLike)) else inputs:
        item = os.fspath(item)
        if glob.has_magic(item):
            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                raise FileNotFoundError(f"no file matches {item!r}")
        elif not os.path.isfile(item):
            raise FileNotFoundError(f"no such file: {item!r}")
        else:
            matches = [item]
        found.update((os.path.abspath(m), None) for m in matches if os.path.isfile(m))
    if not found:
        raise FileNotFoundError(f"no input file in {inputs!r}")
    return list(found)


def _targets(files: list[str], output: str, single: bool) -> list[str]:
    out = os.path.abspath(output)
    if single and not os.path.isdir(out) and not str(output).endswith(("/", os.sep)):
        targets = [out]
    else:
        targets = [os.path.join(out, os.path.basename(path)) for path in files]
        names: dict[str, str] = {}
        for path, target in zip(files, targets):
            if target in names:
                raise ValueError(f"{names[target]} and {path} would both be written to {target}")
            names[target] = path
    for path, target in zip(files, targets):
        if os.path.exists(target) and os.path.samefile(path, target):
            raise ValueError(f"the output {target} would overwrite its input")
    return targets


def _client(client: Any) -> Any:
    """The client given, else the default distributed client, else None (dask's threaded
    scheduler)."""
    if client is not None:
        return client
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()
    except ValueError:
        return None


def _ordered(dask: Any, delayeds: list, client: Any, window: int) -> Iterator[Any]:
    """The delayed values in order, at most ``window`` scheduled at a time; the rest cancelled on
    exit."""
    window = max(2, window)
    if client is None:
        for i in range(0, len(delayeds), window):
            yield from dask.compute(*delayeds[i : i + window], scheduler="threads")
        return
    todo, pending = iter(delayeds), deque()
    try:
        pending.extend(client.compute(d) for d in itertools.islice(todo, window))
        while pending:
            future = pending.popleft()
            value = future.result()
            future.release()
            pending.extend(client.compute(d) for d in itertools.islice(todo, 1))
            yield value
    finally:
        if pending:
            client.cancel(list(pending))


def _write_file(
    path: str,
    parts: Iterable[PartResult],
    target: str,
    reject: str | None,
    total: DaskApplyResult,
    started: float,
    on_progress: Callable[[dict], None] | None,
    types: dict | None = None,
) -> ApplyResult:
    """One output file from its parts' results, in order, as apply_file writes it."""
    done = ApplyResult(workers=total.workers, trusted=total.trusted)
    with AtomicFile(target) as out, AtomicFile(reject) if reject else nullcontext() as rejects:
        # the format the output's extension names, as apply_file writes it (tabs for a .tsv)
        writer = output_writer(output_format(target), out, target, types)
        try:
            for part in parts:
                for payload, count in part.payloads:
                    try:
                        writer.write(payload, count)
                    # a record the output format cannot hold (see table_writers)
                    except ValueError as exc:
                        raise ApplyError(f"{target}: {exc}") from None
                for line in part.rejects:
                    rejects.write(renumbered(line, done.records_in))
                for result in (done, total):
                    add_counts(result, part)
                if on_progress is not None:
                    on_progress(
                        {
                            "type": "apply_progress",
                            "path": path,
                            "records_in": total.records_in,
                            "records_out": total.records_out,
                            "failed": total.failed,
                            "skipped_input": total.skipped_input,
                            "seconds": time.monotonic() - started,
                        }
                    )
            if not done.records_in:  # as apply_file: an input with no record is an error
                raise no_records(path, done)
            writer.finish()
        except BaseException:
            getattr(writer, "abort", lambda: None)()  # Parquet/Excel: release the half-written file
            raise
    done.dropped_keys = sorted(getattr(writer, "dropped", ()))
    return done
