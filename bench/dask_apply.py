"""apply_dask against apply_file, with the cross-row steps, on hospital and flights replicated to about SIZE MB.

For each table of ``--data-dir`` (hospital, flights; ``dirty.csv`` read as apply reads it):

* the functions: a ``clean_data`` that trims every text value, and the cross-row steps the
  library discovers on the whole table without the model (``discover_steps``; flights with the
  stated key ``flight``, so its majority is the ``src``-weighted vote): hospital gets a
  vocabulary over provider_number and measure_code, majority by provider_number (10 fields),
  by measure_code (2) and by the pair (state, measure_code); flights a vocabulary over flight and
  the weighted vote by flight over the four times. These are the steps of the RESULTS.md runs
  (hospital F1 0.930, flights 0.898). ``--functions-from bench/functions`` uses the model-written
  files of the session-8 runs instead (hospital F1 0.936 at bfe10a6, flights 0.8975 at 41bd914);
* the data: the table as JSONL, repeated until the file holds ``size / tables`` MB;
* apply_file (one sandboxed worker per core) and apply_dask (a ``LocalCluster`` with one worker
  process per core, one thread each), each in its own child process, one after the other;
  wall time, peak RSS of the calling process, of each Dask worker and of the sandbox children;
  the outputs' sha256 (must be equal);
* the step fit's sizes: one part's ``Summary`` (pickled), the merged one, the fitted steps,
  and what a tree merge moves (parts × part summary), the figures ``docs/scaling.md`` scales;
* a simulation of the step fit alone (``--simulate N``, default 100): apply_dask's tree merge of
  N × as many part summaries on the LocalCluster (keys that repeat, as in the replicated
  tables), and of as many parts as the run had with keys that never repeat across parts (every
  key field suffixed per part and copy): wall time, the merged and fitted sizes, the time to
  pick the winners, and the workers' peak RSS.

The last line is machine-readable: ``dask_apply identical=1 ratio=X`` (ratio: Dask seconds over
apply_file seconds, summed over the tables).

    python bench/dask_apply.py --size-mb 1024
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import resource
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

STRIP = '''def strip_text(record):
    """Trim the text values."""
    for key, value in list(record.items()):
        if isinstance(value, str):
            record[key] = value.strip()
    return record
'''
STATED = {"hospital": (), "flights": ["flight"]}


def _functions(table: str, records: list[dict], out: str) -> str:
    from recursive_cleaner.crossrow.plan import discover_steps
    from recursive_cleaner.write.module import render_module

    steps = [s.to_dict() for s in discover_steps(records, stated=STATED[table])]
    path = os.path.join(out, f"{table}_functions.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(render_module([{"name": "strip_text", "code": STRIP}], cross_row=steps))
    return path


def _replicate(records: list[dict], path: str, size_mb: float) -> int:
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
    copies = max(1, round(size_mb * 2**20 / len(lines)))
    if not (os.path.exists(path) and os.path.getsize(path) == copies * len(lines)):
        with open(path + ".tmp", "wb") as f:
            for _ in range(copies):
                f.write(lines)
        os.replace(path + ".tmp", path)
    return copies * len(records)


def _sha(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _peak_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def _side(args: argparse.Namespace) -> None:
    """One measured run in this child process; prints one JSON line."""
    workers = len(os.sched_getaffinity(0))
    started = time.perf_counter()
    info: dict = {}
    if args.side == "local":
        from recursive_cleaner.apply.local import apply_file

        result = apply_file(args.functions, args.input, args.output, workers=workers)
    else:
        import distributed

        from recursive_cleaner.apply.on_dask import apply_dask

        with (
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                memory_limit=0,
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            started = time.perf_counter()
            result = apply_dask(
                args.functions,
                args.input,
                args.output,
                client=client,
                partition_size=args.partition_size,
            )
            peaks = client.run(
                lambda: (_peak_mb(resource.RUSAGE_SELF), _peak_mb(resource.RUSAGE_CHILDREN))
            )
            info["worker_peak_mb"] = sorted(round(p[0]) for p in peaks.values())
            info["sandbox_peak_mb"] = max(round(p[1]) for p in peaks.values())
            info["partitions"] = result.partitions
    info.update(
        seconds=round(time.perf_counter() - started, 1),
        records_in=result.records_in,
        records_out=result.records_out,
        changed=sum(n for f in result.cross_row_changed.values() for n in f.values()),
        caller_peak_mb=round(_peak_mb(resource.RUSAGE_SELF)),
    )
    if args.side == "local":
        info["sandbox_peak_mb"] = round(_peak_mb(resource.RUSAGE_CHILDREN))
    print(json.dumps(info))


def _part_summary(functions: str, table_csv: str, per_part: int, suffix: int | None) -> Any:
    """A part's Summary: the table repeated to ``per_part`` rows; with ``suffix``, every key made
    that part's own."""
    from recursive_cleaner.apply.cross_row import read_plan
    from recursive_cleaner.crossrow.steps import Summary
    from recursive_cleaner.read.parsers import iter_records

    with open(functions, encoding="utf-8") as f:
        steps = read_plan(f.read(), functions).steps
    keys = {k for s in steps for k in s.key + (s.fields if s.kind == "vocabulary" else ())}
    records = list(iter_records(table_csv, "csv"))
    summary = Summary(steps)
    for n in range(per_part):
        record = records[n % len(records)]
        if suffix is not None:
            record = {
                k: f"{v}-{suffix}-{n // len(records)}" if k in keys and v is not None else v
                for k, v in record.items()
            }
        summary.add(record)
    return summary


def _settle(summary: Any, winners: bool) -> dict:
    """The merged summary's size; with ``winners``, the time to pick them and the fitted steps'
    size."""
    info = {"merged_kb": round(len(pickle.dumps(summary)) / 1024)}
    if winners:
        started = time.perf_counter()
        fitted = summary.fitted()
        info.update(
            fitted_kb=round(len(pickle.dumps(fitted)) / 1024),
            winners_s=round(time.perf_counter() - started, 1),
        )
    return info


def _simulate(args: argparse.Namespace) -> None:
    """The step fit alone on a LocalCluster: ``--parts`` part summaries merged by apply_dask's tree
    (a child)."""
    import dask
    import distributed

    from recursive_cleaner.apply.dask_fit import SPLIT_EVERY, merge_summaries
    from recursive_cleaner.apply.cross_row import read_plan

    with open(args.functions, encoding="utf-8") as f:
        steps = read_plan(f.read(), args.functions).steps
    workers = len(os.sched_getaffinity(0))
    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit=0,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        started = time.perf_counter()
        if args.distinct:  # every part its own keys: each summary made on a worker
            level = [
                dask.delayed(_part_summary)(args.functions, args.input, args.partition_size, k)
                for k in range(args.parts)
            ]
        else:  # the keys repeat: one part's summary, merged args.parts times
            one = c.submit(_part_summary, args.functions, args.input, args.partition_size, None)
            level = [one] * args.parts
        while len(level) > 1:
            level = [
                dask.delayed(merge_summaries)(steps, *level[i : i + SPLIT_EVERY])
                for i in range(0, len(level), SPLIT_EVERY)
            ]
        # keys that never repeat fill a vocabulary to its 5,000 values, whose fit compares each
        # value with each
        # more frequent one (149 s at the cap on hospital, measured alone): not timed here
        info = c.compute(dask.delayed(_settle)(level[0], not args.distinct)).result()
        peaks = c.run(lambda: _peak_mb(resource.RUSAGE_SELF))
    info.update(
        parts=args.parts,
        distinct=args.distinct,
        seconds=round(time.perf_counter() - started, 1),
        worker_peak_mb=sorted(round(p) for p in peaks.values()),
    )
    print(json.dumps(info))


def _fit_sizes(functions: str, records: list[dict], per_part: int, total: int) -> dict:
    """Pickled sizes of one part's Summary, the merged one and the fitted steps; also with keys
    distinct per copy.

    Replicated, the table's keys repeat: a part's summary, the merged one and the fitted steps stay
    the size of the table's. ``*_distinct`` simulates data whose keys do not repeat across copies
    (every key field suffixed with the copy's number): the merged summary then grows with the rows.
    """
    from recursive_cleaner.apply.cross_row import read_plan
    from recursive_cleaner.crossrow.steps import Summary

    with open(functions, encoding="utf-8") as f:
        steps = read_plan(f.read(), functions).steps
    keys = {k for s in steps for k in s.key + (s.fields if s.kind == "vocabulary" else ())}
    part, distinct = Summary(steps), Summary(steps)
    for n in range(per_part):
        record = records[n % len(records)]
        part.add(record)
        copy = n // len(records)
        distinct.add(
            {k: f"{v}-{copy}" if k in keys and v is not None else v for k, v in record.items()}
        )
    merged = Summary(steps).merge(part).merge(part)
    parts = -(-total // per_part)
    size, size_distinct = len(pickle.dumps(part)), len(pickle.dumps(distinct))
    return {
        "parts": parts,
        "part_summary_kb": round(size / 1024),
        "merged_summary_kb": round(len(pickle.dumps(merged)) / 1024),
        "fitted_kb": round(len(pickle.dumps(merged.fitted())) / 1024),
        "tree_merge_mb": round(parts * size * (1 + 1 / 7) / 2**20, 1),
        "part_summary_kb_distinct": round(size_distinct / 1024),
        "merged_summary_mb_distinct": round(parts * size_distinct / 2**20, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--size-mb",
        type=float,
        default=1024,
        help="total size of the replicated tables (default 1024)",
    )
    p.add_argument("--data-dir", default="/work/shared/bench-data")
    p.add_argument("--tables", nargs="+", default=["hospital", "flights"])
    p.add_argument("--out", default=os.path.join(HERE, "out", "dask-apply"))
    p.add_argument(
        "--partition-size", type=int, default=100_000, help="apply_dask's partition_size (lines)"
    )
    p.add_argument(
        "--functions-from",
        metavar="DIR",
        help="use DIR/TABLE.py (a generated cleaning_functions.py) instead of the trim + "
        "discovered steps; "
        "bench/functions holds the model runs of RESULTS.md (hospital F1 0.936, flights 0.898)",
    )
    p.add_argument(
        "--keep", action="store_true", help="keep the outputs (default: removed once hashed)"
    )
    p.add_argument(
        "--simulate",
        type=int,
        default=100,
        metavar="N",
        help="also run the step fit alone at N times the size (repeated keys) and at 1x with keys "
        "that do "
        "not repeat (0: no simulation; default 100)",
    )
    p.add_argument("--side", choices=["local", "dask", "fit"], help=argparse.SUPPRESS)
    p.add_argument("--parts", type=int, help=argparse.SUPPRESS)
    p.add_argument("--distinct", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--functions", help=argparse.SUPPRESS)
    p.add_argument("--input", help=argparse.SUPPRESS)
    p.add_argument("--output", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.side:
        _simulate(args) if args.side == "fit" else _side(args)
        return 0
    from recursive_cleaner.read.parsers import iter_records

    os.makedirs(args.out, exist_ok=True)
    rows, identical, seconds = [], True, {"local": 0.0, "dask": 0.0}
    for table in args.tables:
        records = list(iter_records(os.path.join(args.data_dir, table, "dirty.csv"), "csv"))
        functions = (
            os.path.join(args.functions_from, f"{table}.py")
            if args.functions_from
            else _functions(table, records, args.out)
        )
        source = os.path.join(args.out, f"{table}-{args.size_mb:g}mb.jsonl")
        n = _replicate(records, source, args.size_mb / len(args.tables))
        hashes = {}
        for side in ("local", "dask"):
            target = os.path.join(args.out, f"{table}.{side}.jsonl")
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--side",
                    side,
                    "--functions",
                    functions,
                    "--input",
                    source,
                    "--output",
                    target,
                    "--partition-size",
                    str(args.partition_size),
                ],
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": ROOT},
            )
            info = json.loads(done.stdout.strip().splitlines()[-1])
            hashes[side] = _sha(target)
            if not args.keep:
                os.unlink(target)
            seconds[side] += info["seconds"]
            rows.append(
                {
                    "table": table,
                    "side": side,
                    "mb": round(os.path.getsize(source) / 2**20),
                    "records": n,
                    **info,
                    "sha256": hashes[side][:12],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
        identical &= hashes["local"] == hashes["dask"]
        fit = _fit_sizes(functions, records, args.partition_size, n)
        print(
            json.dumps(
                {
                    "table": table,
                    "fit": fit,
                    "identical": hashes["local"] == hashes["dask"],
                    "ratio": round(rows[-1]["seconds"] / rows[-2]["seconds"], 2),
                }
            ),
            flush=True,
        )
        for parts, distinct in (
            ((fit["parts"] * args.simulate, False), (fit["parts"], True)) if args.simulate else ()
        ):
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--side",
                    "fit",
                    "--functions",
                    functions,
                    "--input",
                    os.path.join(args.data_dir, table, "dirty.csv"),
                    "--parts",
                    str(parts),
                    "--partition-size",
                    str(args.partition_size),
                ]
                + (["--distinct"] if distinct else []),
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": ROOT},
            )
            print(
                json.dumps(
                    {
                        "table": table,
                        "fit_simulation": json.loads(done.stdout.strip().splitlines()[-1]),
                    }
                ),
                flush=True,
            )
    print(f"dask_apply identical={int(identical)} ratio={seconds['dask'] / seconds['local']:.2f}")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
