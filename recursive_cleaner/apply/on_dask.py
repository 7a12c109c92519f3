"""Apply a cleaning_functions.py to many files on a Dask cluster; each output byte-identical to ``apply_file``'s.

Optional extra ``dask`` (``pip install 'recursive-data-cleaner[dask]'``); dask is imported only
inside :func:`apply_dask`. Dask does the scheduling; this module only says what a task is:

1. **Plan** (one Dask task per file): JSONL and CSV files are cut into *parts* of whole
   ``batch_size`` batches, at least ``partition_size`` input lines (JSONL) or records (CSV)
   each, at exactly the batch boundaries ``apply_file`` uses. This reads each such file once
   (a line scan for JSONL, the csv parser for CSV, so quoted newlines are never cut). JSON,
   Parquet and Excel files are one part each.
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
Cross-row steps (``CROSS_ROW_STEPS``) and the audit log are not supported yet: a file that
has steps is refused unless ``cross_row=False`` (clean_data only). A failure stops the run:
files finished before it stay written, complete; the failing file's output is not written.
"""

from __future__ import annotations

import codecs
import glob
import io
import itertools
import json
import os
import time
from collections import deque
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from .writers import WRITERS, AtomicFile
from ..read.json_stream import dump_json
from .._extras import require
from .local import APPLY_FORMATS, KEEP_SKIPS, ApplyError, ApplyResult, Batch, positive_int, ApplyRun, start_workers
from ..read.parsers import UNCLOSED_QUOTE, SkippedRecord, csv_records, detect_format, iter_chunks
from ..run.setup import check_distinct_paths

__all__ = ["DaskApplyResult", "apply_dask"]

_BOM = codecs.BOM_UTF8
_INDEX = b'{"index": '  # how apply writes a reject line: dump_json({"index": n, "error": ..., "record": ...})


@dataclass
class DaskApplyResult(ApplyResult):
    """Totals over all files (ApplyResult's fields), per-file results, and where each output went."""

    files: dict[str, ApplyResult] = field(default_factory=dict)  # input path -> its counts and dropped_keys
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
) -> DaskApplyResult:
    """Write clean_data(record) for every record of every input file, one output file each, on Dask.

    ``inputs``: a path, a glob (``"data/*.jsonl"``) or a list of them. ``output``: the output
    file when ``inputs`` is one plain path, else a directory (created) that gets each file
    under its input's name. ``client``: a ``distributed.Client``; None uses the default client
    if one exists, else dask's local threaded scheduler. ``partition_size``: input lines
    (JSONL) or records (CSV) per part, rounded up to whole batches. ``reject_dir``: records
    clean_data failed on go to ``<reject_dir>/<input name>.rejects.jsonl`` (as apply's
    ``reject_path``) instead of being kept unchanged. ``on_progress`` gets an
    ``apply_progress`` event (with ``path``) per part written. Cross-row steps are not run: a
    file that has ``CROSS_ROW_STEPS`` is refused (ValueError) unless ``cross_row=False``.
    """
    dask = require("dask", "apply_dask")
    db = require("dask.bag", "apply_dask")
    started = time.monotonic()
    code = Path(functions_path).read_text(encoding="utf-8")
    size, per = positive_int(batch_size, "batch_size"), positive_int(partition_size, "partition_size")
    probe = ApplyRun(code, str(functions_path), "", 1, trusted, timeout_per_batch, None, cross_row=cross_row)
    if probe.steps:
        raise ValueError(f"{functions_path} has CROSS_ROW_STEPS ({', '.join(probe.result.cross_row_steps)}), which "
                         "apply_dask does not run: pass cross_row=False to apply clean_data only, or use apply_file")
    start_workers(probe.plan.code, str(functions_path), 0, trusted, timeout_per_batch)  # apply's checks, no worker
    files = _expand(inputs)
    fmts = [detect_format(path) if fmt is None else fmt for path in files]
    for path, kind in zip(files, fmts):
        if kind not in APPLY_FORMATS:
            raise ValueError(f"apply_dask reads {', '.join(APPLY_FORMATS)} files, not {kind!r} ({path})")
    single = isinstance(inputs, (str, os.PathLike)) and not glob.has_magic(str(inputs))
    targets = _targets(files, output, single)
    rejects = [os.path.join(reject_dir, f"{os.path.basename(p)}.rejects.jsonl") if reject_dir else None for p in files]
    check_distinct_paths({"functions_path": functions_path, **{f"inputs[{i}]": p for i, p in enumerate(files)}},
                         {**{f"output of inputs[{i}]": t for i, t in enumerate(targets)},
                          **{f"rejects of inputs[{i}]": r for i, r in enumerate(rejects)}})
    client = _client(client)
    threads = sum(client.nthreads().values()) if client is not None else os.cpu_count() or 1
    result = DaskApplyResult(workers=threads, trusted=trusted)

    per_batches = -(-per // size)
    plan_bag = db.from_sequence(list(zip(files, fmts)), partition_size=1).map(_plan, size, per_batches)
    plans = [list(parts)[0] for parts in _ordered(dask, plan_bag.to_delayed(), client, 2 * threads)]
    everything = [part for parts in plans for part in parts]
    result.partitions = len(everything)
    filename = os.path.abspath(functions_path)
    clean_bag = db.from_sequence(everything, partition_size=1).map(
        _clean_part, code, filename, trusted, size, timeout_per_batch, reject_dir is not None)
    cleaned = _ordered(dask, clean_bag.to_delayed(), client, 2 * threads)
    try:
        for path, kind, parts, target, reject in zip(files, fmts, plans, targets, rejects):
            results = (list(next(cleaned))[0] for _ in parts)
            done = _write_file(path, kind, results, target, reject, result, started, on_progress)
            done.seconds = time.monotonic() - started
            result.files[path], result.outputs[path] = done, target
    finally:
        cleaned.close()
    result.dropped_keys = sorted({key for done in result.files.values() for key in done.dropped_keys})
    result.seconds = time.monotonic() - started
    return result


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
    """The client given, else the default distributed client, else None (dask's threaded scheduler)."""
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
    """The delayed values in order, at most ``window`` scheduled at a time; the rest cancelled on exit."""
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


def _write_file(path: str, fmt: str, parts: Iterable[_PartResult], target: str, reject: str | None,
                total: DaskApplyResult, started: float, on_progress: Callable[[dict], None] | None) -> ApplyResult:
    """One output file from its parts' results, in order, as apply_file writes it."""
    done = ApplyResult(workers=total.workers, trusted=total.trusted)
    with AtomicFile(target) as out, (AtomicFile(reject) if reject else nullcontext()) as rejects:
        writer = WRITERS[fmt](out, "\t" if path.lower().endswith(".tsv") else ",")
        try:
            for part in parts:
                for payload, count in part.payloads:
                    try:
                        writer.write(payload, count)
                    except ValueError as exc:  # a record the output format cannot hold (see table_writers)
                        raise ApplyError(f"{target}: {exc}") from None
                for line in part.rejects:
                    rejects.write(_renumbered(line, done.records_in))
                for result in (done, total):
                    _add(result, part)
                if on_progress is not None:
                    on_progress({"type": "apply_progress", "path": path, "records_in": total.records_in,
                                 "records_out": total.records_out, "failed": total.failed,
                                 "skipped_input": total.skipped_input, "seconds": time.monotonic() - started})
            writer.finish()
        except BaseException:
            getattr(writer, "abort", lambda: None)()  # Parquet/Excel: release the half-written file
            raise
    done.dropped_keys = sorted(getattr(writer, "dropped", ()))
    return done


def _renumbered(line: bytes, first: int) -> bytes:
    """A reject line of a part with its index counted over the file, not the part."""
    number, _, rest = line[len(_INDEX):].partition(b", ")
    if line.startswith(_INDEX) and number.isdigit():
        return _INDEX + b"%d, " % (int(number) + first) + rest
    entry = json.loads(line)  # not as apply writes it today: the same, the slow way
    entry["index"] += first
    return dump_json(entry) + b"\n"


def _add(result: ApplyResult, part: _PartResult) -> None:
    result.records_in += part.records_in
    result.records_out += part.records_out
    result.failed += part.failed
    result.skipped_input += part.skipped_input
    result.skipped.extend(part.skipped[: KEEP_SKIPS - len(result.skipped)])


# ---------------------------------------------------------------------------- Dask tasks
@dataclass(frozen=True)
class _Part:
    """A file, or its bytes [start, end) (end -1: to the end) after ``line`` lines and ``record`` records."""

    path: str
    fmt: str
    start: int = 0
    end: int = -1
    line: int = 0
    record: int = 0
    keys: tuple[str, ...] | None = None  # CSV: the header, for a part that starts after it


@dataclass
class _PartResult:
    """What a part gives back: apply's (payload, count) per batch, its counts and its reject lines."""

    payloads: list[tuple[bytes, int]]
    records_in: int
    records_out: int
    failed: int
    skipped_input: int
    skipped: list[SkippedRecord]
    rejects: list[bytes]


def _plan(item: tuple[str, str], batch_size: int, per_batches: int) -> list[_Part]:
    """The parts of one file (a Dask task): JSONL and CSV cut every ``per_batches`` whole batches."""
    path, fmt = item
    if fmt == "jsonl":
        return _plan_jsonl(path, batch_size, per_batches)
    if fmt == "csv":
        return _plan_csv(path, batch_size * per_batches)
    return [_Part(path, fmt)]


def _plan_jsonl(path: str, batch_size: int, per_batches: int) -> list[_Part]:
    cuts, offset, lines, batches = [(0, 0)], 0, 0, 0
    with open(path, "rb") as f:
        while batch := list(itertools.islice(f, batch_size)):
            if batches == per_batches:
                cuts.append((offset, lines))
                batches = 0
            offset, lines, batches = offset + sum(map(len, batch)), lines + len(batch), batches + 1
    ends = [start for start, _ in cuts[1:]] + [-1]
    return [_Part(path, "jsonl", start, end, line) for (start, line), end in zip(cuts, ends)]


class _Counted:
    """Text lines, counting them and their UTF-8 bytes (csv.reader reads exactly the lines of each row)."""

    def __init__(self, lines: Iterator[str], offset: int) -> None:
        self.lines, self.offset, self.count = lines, offset, 0

    def __iter__(self) -> _Counted:
        return self

    def __next__(self) -> str:
        text = next(self.lines)
        self.offset += len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))
        self.count += 1
        return text


def _plan_csv(path: str, per: int) -> list[_Part]:
    with open(path, "rb") as raw:
        bom = raw.read(3) == _BOM
    delimiter = "\t" if path.lower().endswith(".tsv") else ","
    parts, start, cut = [], _Part(path, "csv"), None
    unclosed: list[SkippedRecord] = []  # past an unclosed quote the lines were read twice: no more cuts

    def skipped(record: SkippedRecord) -> None:
        if record.reason.startswith(UNCLOSED_QUOTE):
            unclosed.append(record)

    with open(path, newline="", encoding="utf-8-sig", errors="surrogateescape") as f:
        lines = _Counted(f, 3 if bom else 0)
        for count, record in enumerate(csv_records(lines, path, skipped, delimiter), 1):
            if cut is not None:  # a record after a full part: the part ends where the last one did
                parts.append(_Part(path, "csv", start.start, cut[0], start.line, start.record, start.keys))
                start, cut = _Part(path, "csv", cut[0], -1, cut[1], cut[2], tuple(record)), None
            if count % per == 0 and not unclosed:
                cut = (lines.offset, lines.count, count)
    return parts + [start]


class _Slice(io.RawIOBase):
    """At most ``size`` bytes of a binary file, from where it stands."""

    def __init__(self, f: BinaryIO, size: int) -> None:
        self.f, self.left = f, size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.left <= 0:
            return 0
        n = self.f.readinto(memoryview(buffer)[: min(len(buffer), self.left)]) or 0
        self.left -= n
        return n


def _csv_part(part: _Part, on_skip: Callable[[SkippedRecord], None]) -> Iterator[dict]:
    """The records of a CSV part, read as parsers._iter_csv reads the whole file."""
    with open(part.path, "rb") as raw:
        raw.seek(part.start)
        data = raw if part.end < 0 else io.BufferedReader(_Slice(raw, part.end - part.start))
        encoding = "utf-8-sig" if part.start == 0 else "utf-8"
        text = io.TextIOWrapper(data, encoding=encoding, errors="surrogateescape", newline="")
        keys = None if part.keys is None else list(part.keys)
        yield from csv_records(text, part.path, on_skip, "\t" if part.path.lower().endswith(".tsv") else ",",
                                keys, part.line)


def _jsonl_part(part: _Part, size: int) -> Iterator[Batch]:
    """Raw JSONL batches of a part, as apply's _jsonl_batches cuts the whole file (BOM dropped)."""
    with open(part.path, "rb") as f:
        f.seek(part.start)
        line, offset = part.line + 1, part.start
        while (part.end < 0 or offset < part.end) and (lines := list(itertools.islice(f, size))):
            if offset == 0 and lines[0].startswith(_BOM):
                lines[0], offset = lines[0][3:], 3
            data = b"".join(lines)
            yield Batch(data=data if data.endswith(b"\n") else data + b"\n", line=line, offset=offset)
            line, offset = line + len(lines), offset + len(data)


@dataclass
class _NumberedBatch(Batch):
    """A batch of records whose numbers in messages count from the start of the file, not of the part."""

    base: int = 0

    def where(self, first: int) -> str:
        return super().where(self.base + first)


class _Lines(list):
    """Collects apply's reject lines (one ``write`` each) for the calling process to number."""

    def write(self, data: bytes) -> None:
        self.append(data)


def _clean_part(part: _Part, code: str, filename: str, trusted: bool, size: int, timeout: float,
                rejects: bool) -> _PartResult:
    """Clean one part (a Dask task): apply's pipeline with one sandboxed worker, started in this process."""
    run = ApplyRun(code, filename, part.path, 1, trusted, timeout, None, cross_row=False)
    if part.fmt == "jsonl":
        batches: Iterable[Batch] = _jsonl_part(part, size)
    elif part.fmt == "csv":
        records = _csv_part(part, run.skip)
        chunks = iter(lambda: list(itertools.islice(records, size)), [])
        batches = (_NumberedBatch(records=chunk, base=part.record) for chunk in chunks)
    else:
        batches = map(Batch, iter_chunks(part.path, size, part.fmt, on_skip=run.skip))
    lines = _Lines() if rejects else None
    payloads = list(run.cleaned(iter(batches), lines))
    r = run.result
    return _PartResult(payloads, r.records_in, r.records_out, r.failed, r.skipped_input, r.skipped, list(lines or ()))
