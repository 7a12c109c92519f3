"""What putting module state back before every record costs the sandbox worker (issue 43 item 5).

Since issue 43 the sandbox child puts the code's module-level names, the lists/dicts/sets they
reach and the decimal context back before each record. This times a loaded ``SandboxWorker`` on
batches of records (the worker's start is not counted) with the library of each checkout given,
each run in its own process, the checkouts interleaved, the fastest of ``--repeat`` rounds kept:

* ``identity``: ``return record`` — the fixed cost per record, where the reset weighs most;
* ``crm``: ``bench/crm_functions.py`` (ten functions, two dicts, tuples, regexes) on CRM records;
* ``tables``: a file with a 500-entry dict, a 200-item list and a 100-item set at module level
  (the reset refills each before every record) and a function that reads them.

    python bench/sandbox_reset.py --before ../wt/old-checkout --after .

Prints microseconds per record for each checkout and the ratio after / before, then
``sandbox_reset identity=X crm=X tables=X`` (the ratios).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

TABLES = (
    "TABLE = {"
    + ", ".join(f"'k{i}': 'v{i}'" for i in range(500))
    + "}\nITEMS = ["
    + ", ".join(f"'i{i}'" for i in range(200))
    + "]\nCODES = {"
    + ", ".join(str(i) for i in range(100))
    + "}\n\n\ndef clean_data(record):\n    record = dict(record)\n"
    "    record['t'] = TABLE.get(record['k'], '')\n"
    "    record['i'] = record['k'] in ITEMS or 7 in CODES\n    return record\n"
)


def _records(workload: str, n: int) -> list[dict]:
    if workload == "crm":
        return [
            {
                "customer_id": f"CUST-{1000 + i}",
                "name": "  jane   DOE ",
                "email": " Jane.Doe@Example.COM ",
                "phone": "(555) 123-4567",
                "status": "actve",
                "signup_date": "03/14/2023",
                "country": "united states",
                "amount": "$1,234.50",
                "notes": "n/a",
                "tags": "vip; new",
            }
            for i in range(n)
        ]
    return [{"k": f"k{i % 600}", "n": i} for i in range(n)]


def child(workload: str, batches: int, size: int) -> None:
    """Time one workload in this process's library: print seconds per record as JSON."""
    from recursive_cleaner.judge.sandbox import SandboxWorker

    if workload == "crm":
        with open(os.path.join(HERE, "crm_functions.py"), encoding="utf-8") as file:
            code = file.read()
    elif workload == "tables":
        code = TABLES
    else:
        code = "def clean_data(record):\n    return record\n"
    records = _records(workload, size)
    with SandboxWorker(code, "clean_data", dict_only=True) as worker:
        assert worker.start(timeout=60).ok
        worker.run_batch(records[:100], timeout=120)  # warm
        start = time.perf_counter()
        for _ in range(batches):
            worker.submit(records)
        for _ in range(batches):
            reply = worker.receive(timeout=300)
            assert reply.ok, reply
        elapsed = time.perf_counter() - start
    print(json.dumps({"s_per_record": elapsed / (batches * size)}))


def run(checkout: str, workload: str, batches: int, size: int) -> float:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", workload, str(batches), str(size)],
        cwd=os.path.abspath(checkout),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])["s_per_record"]


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a checkout of the library before")
    parser.add_argument("--after", default=ROOT, help="a checkout after (default: this one)")
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--size", type=int, default=2000, help="records per batch")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'workload':10} {'before us/rec':>14} {'after us/rec':>13} {'ratio':>6}")
    ratios = []
    for workload in ("identity", "crm", "tables"):
        best = {"before": float("inf"), "after": float("inf")}
        for _ in range(args.repeat):
            for side in ("before", "after"):
                seconds = run(getattr(args, side), workload, args.batches, args.size)
                best[side] = min(best[side], seconds)
        before, after = best["before"] * 1e6, best["after"] * 1e6
        print(f"{workload:10} {before:14.2f} {after:13.2f} {after / before:6.2f}")
        ratios.append(f"{workload}={after / before:.2f}")
    print("sandbox_reset " + " ".join(ratios))


if __name__ == "__main__":
    main()
