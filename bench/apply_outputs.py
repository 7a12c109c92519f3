"""apply's writers beside an older checkout: seconds per output format, and what each output kept.

    python bench/apply_outputs.py --before ../wt/t43-apply-before --after .  # issue 43
    python bench/apply_outputs.py --rows 200000 --formats csv parquet

Each checkout runs in its own subprocess (``PYTHONPATH`` = the checkout): a CSV of ``--rows`` rows
(every 7th amount blank, two ragged rows) with a ``cleaning_spec.json`` beside the functions
(``amount`` a number), cleaned by one function that adds a column from the second half on, to each
``--formats`` output with ``batch_size=2000``, ``workers=2``. Printed per checkout and format:
seconds, output bytes, whether the late column is in the output, the blank amounts written as
null, the rows in the reject file; then the after/before time ratio. Speed lives here, never in
test assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FUNCTIONS = '''
def clean_data(record):
    """The amount as a number; a note from the second half of the file on."""
    record = dict(record)
    value = record.get("amount")
    if isinstance(value, str) and value.strip():
        record["amount"] = float(value)
    if int(record["id"]) >= LATE:
        record["note"] = "late"
    return record
'''
SPEC = {
    "version": 1,
    "scope": "mentioned",
    "fields": {"amount": {"kind": "number", "mentioned": 1}},
}

CHILD = textwrap.dedent(
    """
    import json, os, sys, time
    import recursive_cleaner
    from recursive_cleaner.apply.local import apply_file
    from recursive_cleaner.read.parsers import iter_records
    folder, fmt = sys.argv[1], sys.argv[2]
    out = os.path.join(folder, "out." + fmt)
    start = time.perf_counter()
    apply_file(os.path.join(folder, "cleaning_functions.py"), os.path.join(folder, "in.csv"), out,
               workers=2, batch_size=2000, reject_path=os.path.join(folder, "r.jsonl"),
               max_failures=None)
    seconds = time.perf_counter() - start
    late = blank = 0
    for record in iter_records(out):
        late += record.get("note") == "late"
        blank += record.get("amount") is None
    rejects = sum(1 for _ in open(os.path.join(folder, "r.jsonl")))
    print(json.dumps({"seconds": seconds, "bytes": os.path.getsize(out), "late": late,
                      "null_amounts": blank, "rejects": rejects,
                      "library": os.path.dirname(os.path.dirname(recursive_cleaner.__file__))}))
    """
)


def make_input(folder: str, rows: int) -> None:
    with open(os.path.join(folder, "in.csv"), "w", encoding="utf-8") as f:
        f.write("id,name,amount\n")
        for i in range(rows):
            if i in (3, rows // 3):
                f.write(f"{i},ragged,1,extra\n")
            else:
                f.write(f"{i},name {i},{'' if i % 7 == 0 else f'{i * 1.5}'}\n")
    with open(os.path.join(folder, "cleaning_functions.py"), "w", encoding="utf-8") as f:
        f.write(FUNCTIONS.replace("LATE", str(rows // 2)))
    with open(os.path.join(folder, "cleaning_spec.json"), "w", encoding="utf-8") as f:
        json.dump(SPEC, f)


def run(checkout: str, folder: str, fmt: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    # run in the data's folder: ``-c`` puts the working folder first on sys.path
    done = subprocess.run(
        [sys.executable, "-c", CHILD, folder, fmt],
        env=env,
        capture_output=True,
        text=True,
        cwd=folder,
    )
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="an older checkout to run beside")
    parser.add_argument("--after", default=HERE, help="the checkout to measure (default: this)")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--formats", nargs="+", default=["csv", "jsonl", "parquet"])
    args = parser.parse_args(argv)
    sides = ([("before", args.before)] if args.before else []) + [("after", args.after)]
    for side, checkout in sides:
        print(f"{side}: {os.path.abspath(checkout)}")
    print(
        f"{args.rows:,} rows, 2 ragged; columns: side, format, seconds, bytes, rows with the late"
    )
    print("column, null amounts, reject lines")
    for fmt in args.formats:
        seen = {}
        for side, checkout in sides:
            with tempfile.TemporaryDirectory() as folder:
                make_input(folder, args.rows)
                got = seen[side] = run(checkout, folder, fmt)
            if "library" in got and got["library"] != os.path.abspath(checkout):
                got = {"error": f"ran {got['library']}, not {checkout}"}
            if "error" in got:
                print(f"{side:>6} {fmt:>8}  error: {got['error']}")
                continue
            print(
                f"{side:>6} {fmt:>8} {got['seconds']:8.2f}s {got['bytes']:>11,} "
                f"{got['late']:>8,} {got['null_amounts']:>8,} {got['rejects']:>4}"
            )
        if len(seen) == 2 and all("seconds" in v for v in seen.values()):
            ratio = seen["after"]["seconds"] / seen["before"]["seconds"]
            print(f"{'':>6} {fmt:>8} after/before {ratio:.2f}")


if __name__ == "__main__":
    main()
