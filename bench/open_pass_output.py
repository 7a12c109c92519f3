"""The README job with no model (a backend that answers every call "clean"), before and after a
change: model calls, open passes, and the bytes a user gets (issue 45: the open pass only where the
profile leaves something unexplained must change no output).

Each checkout runs in its own subprocess (PYTHONPATH = the checkout): DataCleaner on
test_cases/crm_customers.jsonl with test_cases/crm_instructions.txt, then ``apply_file`` over the
whole file; it prints the calls, the sha256 of ``cleaning_functions.py`` and of the cleaned JSONL,
and the records whose every cell matches test_cases/crm_customers.clean.jsonl.

    python bench/open_pass_output.py --before OLD_CHECKOUT [--after NEW_CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

_CHILD = r"""
import hashlib, json, os, sys, tempfile
sys.path.insert(0, os.path.join(sys.argv[2], "bench"))
from recursive_cleaner import DataCleaner, apply_file
from scoring import values_match
from fakes import CLEAN_REPLY, FakeBackend

root, out = sys.argv[1], tempfile.mkdtemp()
backend = FakeBackend(default=CLEAN_REPLY)
data = os.path.join(root, "test_cases", "crm_customers.jsonl")
goals = open(os.path.join(root, "test_cases", "crm_instructions.txt"), encoding="utf-8").read()
functions = os.path.join(out, "cleaning_functions.py")
result = DataCleaner(
    backend, data, instructions=goals, output_path=functions,
    report_path=os.path.join(out, "cleaning_report.md"), sleep=lambda s: None,
).run()
cleaned = os.path.join(out, "cleaned.jsonl")
apply_file(functions, data, cleaned)
truth = [json.loads(line) for line in open(os.path.join(root, "test_cases",
         "crm_customers.clean.jsonl"), encoding="utf-8") if line.strip()]
rows = [json.loads(line) for line in open(cleaned, encoding="utf-8") if line.strip()]
right = sum(all(values_match(v, r.get(k)) for k, v in t.items()) for t, r in zip(truth, rows))
digest = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()[:16]
print(json.dumps({
    "calls": backend.calls, "open_passes": getattr(result, "open_passes", None),
    "functions_sha": digest(functions), "cleaned_sha": digest(cleaned),
    "records_right": f"{right}/{len(truth)}", "functions": result.functions,
}))
"""


def run(checkout: str) -> dict:
    """The README job in ``checkout`` (its own code), in a subprocess; what it printed."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([checkout, os.path.join(ROOT, "tests")]))
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, checkout, ROOT],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode:
        raise SystemExit(f"{checkout}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Run both checkouts and print a row each; exit 1 when the outputs differ."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, help="the older checkout's folder")
    p.add_argument("--after", default=ROOT, help="the newer checkout (default: this one)")
    args = p.parse_args(argv)
    rows = [("before", run(os.path.abspath(args.before))), ("after", run(args.after))]
    for label, r in rows:
        print(
            f"{label:<7} calls={r['calls']} functions_sha={r['functions_sha']} "
            f"cleaned_sha={r['cleaned_sha']} records_right={r['records_right']}"
        )
    (_, a), (_, b) = rows
    same = a["functions_sha"] == b["functions_sha"] and a["cleaned_sha"] == b["cleaned_sha"]
    print("output byte-identical" if same else "OUTPUT DIFFERS")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
