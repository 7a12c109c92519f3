"""Throughput and peak memory of apply_file against a plain one-process loop (stdlib only).

Generates the CRM JSONL file if it is missing (bench/generate_crm.py), reads it once to warm
the page cache, then runs, each in its own child process and side by side in one run:

* baseline: ``for line in f: out.write(json.dumps(clean_data(json.loads(line)), ensure_ascii=False) + "\\n")``
  with the functions file imported normally;
* apply_file with 1 worker and with one worker per core, sandboxed (the default) and trusted.

With ``--repeat N`` the five variants run N times, interleaved, and each keeps its fastest run
(on a shared machine, a burst of other load then spoils one round, not the comparison).

Each child reports its own peak RSS (VmHWM) and, for apply, the largest worker's (getrusage
RUSAGE_CHILDREN after the workers are reaped); "total" is parent + workers × largest worker,
an upper bound of the memory in use at once. Every output is hashed and compared with the
baseline's (same records, same order, same bytes). The last line is machine-readable:

    apply ratio_1core=X ratio_all=X records_s=X

ratio_1core / ratio_all: sandboxed apply_file with 1 worker / all cores, throughput over the
baseline's; records_s: sandboxed all-core records per second.

    python bench/apply.py --size-mb 1024
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
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

VARIANTS = ("baseline", "sandboxed-1", "sandboxed-all", "trusted-1", "trusted-all")


def _vm_hwm_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(variant: str, path: str, out: str, functions: str, batch_size: int) -> None:
    """Run one variant over the file and print a JSON line with its figures."""
    start = time.perf_counter()
    workers = 1
    if variant == "baseline":
        spec = importlib.util.spec_from_file_location("cleaning_functions", functions)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        clean_data, records = module.clean_data, 0
        with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as o:
            for line in f:
                o.write(json.dumps(clean_data(json.loads(line)), ensure_ascii=False) + "\n")
                records += 1
    else:
        from recursive_cleaner.apply.local import apply_file

        mode, count = variant.split("-")
        result = apply_file(
            functions,
            path,
            out,
            workers=1 if count == "1" else None,
            batch_size=batch_size,
            trusted=mode == "trusted",
        )
        records, workers = result.records_out, result.workers
    seconds = time.perf_counter() - start
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    print(
        json.dumps(
            {
                "records": records,
                "seconds": seconds,
                "workers": workers,
                "parent_rss_mb": _vm_hwm_mb(),
                "worker_rss_mb": kids.ru_maxrss / 1024 if variant != "baseline" else 0.0,
                "parent_cpu_s": own.ru_utime + own.ru_stime,
                "worker_cpu_s": kids.ru_utime + kids.ru_stime,
            }
        )
    )


def run_child(variant: str, path: str, out: str, functions: str, batch_size: int) -> dict:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        variant,
        "--path",
        path,
        "--out",
        out,
        "--functions",
        functions,
        "--batch-size",
        str(batch_size),
    ]
    result = json.loads(
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        .stdout.strip()
        .splitlines()[-1]
    )
    result["sha256"] = _sha256(out)
    os.remove(out)
    return result


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


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
        "--functions",
        default=os.path.join(HERE, "crm_functions.py"),
        help="cleaning functions file (default bench/crm_functions.py)",
    )
    parser.add_argument(
        "--batch-size",
        type=int,
        default=2000,
        help="records per batch for apply_file (default 2000)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help=(
            "rounds of all variants, interleaved; each variant keeps its fastest round (default 1)"
        ),
    )
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help="comma-separated subset to run (default all: " + ",".join(VARIANTS) + ")",
    )
    parser.add_argument("--child", choices=VARIANTS, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    path = args.path or os.path.join(HERE, "out", f"crm_{args.size_mb:g}mb.jsonl")
    functions = os.path.abspath(args.functions)
    if args.child:
        child(args.child, path, args.out, functions, args.batch_size)
        return 0
    from generate_crm import ensure_file

    size_mb = ensure_file(path, args.size_mb)
    print(
        f"file: {path} ({size_mb:.1f} MB), functions: {functions}, batch_size={args.batch_size}, "
        f"cores={len(os.sched_getaffinity(0))}, load average at start: {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    chosen = [v for v in VARIANTS if v in {x.strip() for x in args.variants.split(",")}]
    missing = {"baseline", "sandboxed-1", "sandboxed-all"} - set(chosen)
    if missing:
        parser.error(
            f"--variants must include {', '.join(sorted(missing))} (the last line compares them)"
        )
    results: dict[str, dict] = {}
    for round_ in range(1, max(1, args.repeat) + 1):
        for variant in chosen:
            out = os.path.join(os.path.dirname(os.path.abspath(path)), f"apply_{variant}.jsonl")
            res = run_child(variant, path, out, functions, args.batch_size)
            print(
                f"  round {round_} {variant}: {res['seconds']:.1f} s (load average "
                f"{os.getloadavg()[0]:.2f})",
                flush=True,
            )
            if variant not in results or res["seconds"] < results[variant]["seconds"]:
                results[variant] = res
    base = results["baseline"]
    base_rate = base["records"] / base["seconds"]
    print(
        f"{'variant':<15}{'workers':>8}{'records':>11}{'seconds':>9}{'records/s':>11}{'ratio':>7}"
        f"{'parent MB':>11}{'worker MB':>11}{'total MB':>10}{'cpu s':>8}  same as baseline"
    )
    for variant, res in results.items():
        rate = res["records"] / res["seconds"]
        total = (
            res["parent_rss_mb"] + res["workers"] * res["worker_rss_mb"]
            if variant != "baseline"
            else res["parent_rss_mb"]
        )
        same = (
            "-" if variant == "baseline" else ("yes" if res["sha256"] == base["sha256"] else "NO")
        )
        print(
            f"{variant:<15}{res['workers']:>8}{res['records']:>11}{res['seconds']:>9.2f}{rate:>11.0f}"
            f"{rate / base_rate:>7.2f}{res['parent_rss_mb']:>11.1f}{res['worker_rss_mb']:>11.1f}{total:>10.1f}"
            f"{res['parent_cpu_s'] + res['worker_cpu_s']:>8.1f}  {same}"
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    ratio = {k: (results[k]["records"] / results[k]["seconds"]) / base_rate for k in results}
    all_rate = results["sandboxed-all"]["records"] / results["sandboxed-all"]["seconds"]
    print(
        f"apply ratio_1core={ratio['sandboxed-1']:.3f} ratio_all={ratio['sandboxed-all']:.3f} "
        f"records_s={all_rate:.0f}"
    )
    return 0 if all(r["sha256"] == base["sha256"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
