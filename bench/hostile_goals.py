"""Hostile goals read by a library checkout, before and after, side by side (issue 43, item 4).

    python bench/hostile_goals.py --before ../old-checkout [--after .] [--timeout 60] [--cases ...]

Each case is a goals text built in memory (the issue's 1,500 and 3,000 backticks, stars and
underscores; "one of" and "must be" repeated to 8 KB; and the pass's own: "leave" repeated, a
hyphenated word, a run of spaces inside a list, "status lower case" repeated, ...). Every case runs
in a fresh subprocess with ``PYTHONPATH`` set to the checkout (default for ``--after``: the one this
script sits in), which times ``profiling.spec.read_spec`` on a small table's fields and sample
values (a unit field among them, for the goals' conversions) and prints the seconds. A case that
takes longer than ``--timeout`` seconds is stopped and shown as ``>T``.

Per case: characters, seconds before and after, and the ratio; the last line is machine-readable:
``hostile_goals case=before/after ...``. Seconds depend on the machine; the ratio and the growth
(the ``x2`` cases double the text: linear reading doubles the time, quadratic quadruples it) are
the figures.
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

FIELDS = [
    "status",
    "email",
    "phone",
    "first_name",
    "last_name",
    "created_at",
    "amount",
    "country",
    "notes",
    "id",
    "volume",
    "volume_unit",
]
SAMPLES = {
    "status": ["active", "pending", "churned", "Active", "active"],
    "email": ["a@b.com", "x@y.org", "c@d.net", "e@f.io", "g@h.de"],
    "phone": ["555-1234", "+15551234567", "555 9876", "555-0000", "+15550001111"],
    "first_name": ["maria", "JOHN", "Ann", "bo", "Li"],
    "last_name": ["smith", "Doe", "Ng", "li", "Ruiz"],
    "created_at": ["2024-01-02 10:00", "03/02/2024", "2024-02-03", "x", "2024-05-06"],
    "amount": ["12.0", "14.90", "3", "7.5", "1"],
    "country": ["us", "DE", "fr", "US", "de"],
    "notes": ["hello", "world", "n/a", "ok", "see above"],
    "id": ["1", "2", "3", "4", "5"],
    "volume": ["1", "2.5", "3", "4", "5"],
    "volume_unit": ["gal", "L", "L", "L", "L"],
}


def _repeat(unit: str, chars: int, before: str = "", after: str = "") -> str:
    return before + unit * max(1, chars // len(unit)) + after


# name -> the goals text
CASES = {
    "backticks-1500": "`" * 1500,
    "backticks-3000": "`" * 3000,
    "stars-1500": "*" * 1500,
    "stars-3000": "*" * 3000,
    "underscores-1500": "_" * 1500,
    "underscores-3000": "_" * 3000,
    "bullet-backticks-3000": "- " + "`" * 3000 + "\n",
    "label-spaces-4000": "- status" + " " * 4000 + ": x\n",
    "one-of-8k": _repeat("one of ", 8000),
    "one-of-16k": _repeat("one of ", 16000),
    "must-be-8k": _repeat("must be ", 8000),
    "must-be-16k": _repeat("must be ", 16000),
    "equals-8k": _repeat("= ", 8000),
    "list-spaces-8k": "status must be a, b" + " " * 8000 + "x",
    "leave-16k": _repeat("leave ", 16000),
    "leave-32k": _repeat("leave ", 32000),
    "set-to-16k": _repeat("set ", 16000),
    "lower-case-8k": _repeat("status lower case ", 8000),
    "lower-case-16k": _repeat("status lower case ", 16000),
    "yes-or-no-8k": _repeat("yes or no ", 8000),
    "hyphen-word-16k": _repeat("a-", 16000),
    "month-chain-16k": _repeat("MM-", 16000, after="MMx"),
    "equation-16k": _repeat("1 gal = 3.785 L ", 16000, before="x. "),
    "every-other-column-8k": _repeat("every other column ", 8000),
    "plain-words-16k": _repeat("word ", 16000),  # a baseline: nothing hostile
}

_CHILD = r"""
import json, sys, time
import recursive_cleaner
from recursive_cleaner.profiling.spec import read_spec
fields, samples, goals = json.loads(sys.stdin.read())
started = time.perf_counter()
read_spec(goals, fields, samples)
print(json.dumps({"seconds": time.perf_counter() - started, "package": recursive_cleaner.__file__}))
"""


def run_case(checkout: str, goals: str, timeout: float) -> float | None:
    """Seconds ``read_spec`` took in a fresh process on ``checkout``; None past ``timeout``."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            input=json.dumps([FIELDS, SAMPLES, goals]),
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=os.path.abspath(checkout),
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    result = json.loads(done.stdout.strip().splitlines()[-1])
    package = os.path.realpath(result["package"])
    if not package.startswith(os.path.realpath(checkout) + os.sep):
        raise SystemExit(f"{checkout}: the child imported {package}, not this checkout")
    return result["seconds"]


def _shown(seconds: float | None, timeout: float) -> str:
    return f">{timeout:g}" if seconds is None else f"{seconds:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="the old checkout (e.g. a worktree of e9a9118)")
    parser.add_argument("--after", default=ROOT, help="the new checkout (default: this one)")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    args = parser.parse_args(argv)
    sides = [("before", args.before), ("after", args.after)] if args.before else []
    sides = sides or [("after", args.after)]
    print(
        "hostile goals: seconds of read_spec in a fresh process ("
        + ", ".join(f"{name} = {path}" for name, path in sides)
        + ")"
    )
    print(f"{'case':24s} {'chars':>7s} " + " ".join(f"{n:>9s}" for n, _ in sides) + "    ratio")
    machine = []
    for name in args.cases:
        goals = CASES[name]
        times = [run_case(path, goals, args.timeout) for _, path in sides]
        ratio = ""
        if len(times) == 2 and times[1]:
            old = args.timeout if times[0] is None else times[0]
            ratio = f"{'>' if times[0] is None else ''}{old / times[1]:.0f}x"
        cells = " ".join(f"{_shown(t, args.timeout):>9s}" for t in times)
        print(f"{name:24s} {len(goals):7d} {cells} {ratio:>8s}", flush=True)
        machine.append(f"{name}=" + "/".join(_shown(t, args.timeout) for t in times))
    print("hostile_goals " + " ".join(machine))
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    sys.exit(code)
