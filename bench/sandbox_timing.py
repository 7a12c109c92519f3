"""The sandbox's timings that tests no longer assert (issue 46): a checkout's spawn cost, its
wall-clock timeout and its CPU limit, each in its own process, beside another checkout if given.

* ``spawn``: ``run_in_sandbox`` of a phone normaliser on 50 records (a child started, the toolkit
  and the allowed modules loaded, the code run, the child ended): the fastest of ``--repeat`` runs;
* ``start``: ``SandboxWorker.start()`` alone (the child ready for batches), fastest of ``--repeat``;
* ``timeout``: an endless loop under ``timeout=1.0``: when the worker gives up (about 1 s);
* ``cpu``: the same loop under ``timeout=5.0, cpu_seconds=1``: when the CPU limit ends it (about 1 s
  of the child's CPU; well under 5 s, the timeout never fires).

    python bench/sandbox_timing.py                      # this checkout
    python bench/sandbox_timing.py --before ../wt/old   # an older checkout beside it

Prints seconds for each checkout (and the ratio after / before), then ``sandbox_timing spawn=X
start=X timeout=X cpu=X`` (this checkout's seconds).
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
PHONE = (
    "import re\n\nDIGITS = re.compile(r'\\D')\n\n\ndef clean(record):\n"
    "    digits = DIGITS.sub('', record.get('phone') or '')\n"
    "    if len(digits) == 10:\n"
    "        record['phone'] = f'{digits[:3]}-{digits[3:6]}-{digits[6:]}'\n"
    "    return record\n"
)
SPIN = "def clean(record):\n    while True:\n        pass\n"
MEASURES = ("spawn", "start", "timeout", "cpu")


def child(measure: str, repeat: int) -> None:
    """Time one measure with this process's library: print its seconds as JSON."""
    from recursive_cleaner.judge.sandbox import SandboxWorker, run_in_sandbox

    def spawn() -> float:
        records = [{"phone": f"555 000 {i:04d}"} for i in range(50)]
        started = time.perf_counter()
        result = run_in_sandbox(PHONE, "clean", records)
        assert result.ok, result
        return time.perf_counter() - started

    def start() -> float:
        with SandboxWorker(PHONE, "clean") as worker:
            started = time.perf_counter()
            assert worker.start().ok
            return time.perf_counter() - started

    def timeout() -> float:
        started = time.perf_counter()
        result = run_in_sandbox(SPIN, "clean", [{}], timeout=1.0)
        assert result.error == "timed out after 1.0s", result
        return time.perf_counter() - started

    def cpu() -> float:
        started = time.perf_counter()
        result = run_in_sandbox(SPIN, "clean", [{}], timeout=5.0, cpu_seconds=1)
        assert result.error in ("CPU time limit of 1s exceeded", "killed by signal 9 (SIGKILL)")
        return time.perf_counter() - started

    timed = {"spawn": spawn, "start": start, "timeout": timeout, "cpu": cpu}[measure]
    runs = repeat if measure in ("spawn", "start") else 1
    print(json.dumps({"seconds": min(timed() for _ in range(runs))}))


def run(checkout: str, measure: str, repeat: int) -> float:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", measure, str(repeat)],
        cwd=os.path.abspath(checkout),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"]


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="an older checkout of the library, timed beside")
    parser.add_argument("--after", default=ROOT, help="the checkout timed (default: this one)")
    parser.add_argument("--repeat", type=int, default=10, help="runs of spawn and start")
    args = parser.parse_args()
    sides = ("before", "after") if args.before else ("after",)
    print(
        f"{'measure':8}"
        + "".join(f"{side + ' s':>10}" for side in sides)
        + "   ratio" * (len(sides) == 2)
    )
    figures = []
    for measure in MEASURES:
        seconds = {side: run(getattr(args, side), measure, args.repeat) for side in sides}
        ratio = f"{seconds['after'] / seconds['before']:8.2f}" if args.before else ""
        print(f"{measure:8}" + "".join(f"{seconds[side]:10.3f}" for side in sides) + ratio)
        figures.append(f"{measure}={seconds['after']:.3f}")
    print("sandbox_timing " + " ".join(figures))


if __name__ == "__main__":
    main()
