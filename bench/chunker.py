"""Throughput and peak memory of parsers.iter_chunks against a plain json.loads loop (stdlib only).

Generates the JSONL file if it is missing (bench/generate_crm.py), reads it once to warm
the page cache, then runs each reader in its own child process and reports MB/s and
peak RSS (VmHWM of the child, cross-checked with getrusage(RUSAGE_CHILDREN)). The last
line is machine-readable:

    chunker ratio=X ours_mb_s=X baseline_mb_s=X peak_rss_mb=X
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)


def _vm_hwm_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(kind: str, path: str, chunk_size: int) -> None:
    """Run one reader over the file and print a JSON line with its figures."""
    start = time.perf_counter()
    records = 0
    if kind == "ours":
        from recursive_cleaner.read.parsers import iter_chunks

        for chunk in iter_chunks(path, chunk_size):
            records += len(chunk)
    else:
        with open(path, encoding="utf-8") as f:
            for line in f:
                json.loads(line)
                records += 1
    seconds = time.perf_counter() - start
    print(json.dumps({"records": records, "seconds": seconds, "peak_rss_mb": _vm_hwm_mb()}))


def run_child(kind: str, path: str, chunk_size: int) -> dict:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        kind,
        "--path",
        path,
        "--chunk-size",
        str(chunk_size),
    ]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    # max over children so far (a forked child starts as a copy of this process, so this is an upper
    # bound)
    result["ru_maxrss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--size-mb",
        type=float,
        default=1024,
        help="size of the generated file in MiB (default 1024)",
    )
    parser.add_argument(
        "--path", help="JSONL file (default bench/out/crm_<size>mb.jsonl; generated if missing)"
    )
    parser.add_argument(
        "--chunk-size", type=int, default=50, help="records per chunk for iter_chunks (default 50)"
    )
    parser.add_argument("--child", choices=["ours", "baseline"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    path = args.path or os.path.join(HERE, "out", f"crm_{args.size_mb:g}mb.jsonl")
    if args.child:
        child(args.child, path, args.chunk_size)
        return 0
    from generate_crm import ensure_file

    size_mb = ensure_file(path, args.size_mb)
    # first child: RUSAGE_CHILDREN is exactly its peak
    ours = run_child("ours", path, args.chunk_size)
    base = run_child("baseline", path, args.chunk_size)
    if ours["records"] != base["records"]:
        print(f"warning: record counts differ: ours {ours['records']}, baseline {base['records']}")
    ours_mb_s, base_mb_s = size_mb / ours["seconds"], size_mb / base["seconds"]
    print(
        f"file: {path} ({size_mb:.1f} MB, {base['records']} records), chunk_size={args.chunk_size}"
    )
    print(f"{'reader':<34}{'seconds':>9}{'MB/s':>9}{'peak RSS MB':>13}")
    rows = (
        ("parsers.iter_chunks", ours, ours_mb_s),
        ("for line in f: json.loads(line)", base, base_mb_s),
    )
    for name, res, mb_s in rows:
        print(f"{name:<34}{res['seconds']:>9.2f}{mb_s:>9.1f}{res['peak_rss_mb']:>13.1f}")
    print(
        "(getrusage RUSAGE_CHILDREN ru_maxrss after the iter_chunks child: "
        f"{ours['ru_maxrss_mb']:.1f} MB)"
    )
    print(
        f"chunker ratio={ours_mb_s / base_mb_s:.3f} ours_mb_s={ours_mb_s:.1f} "
        f"baseline_mb_s={base_mb_s:.1f} peak_rss_mb={ours['peak_rss_mb']:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
