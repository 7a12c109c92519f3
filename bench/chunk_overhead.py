"""The loop's own work per chunk, without the model: how a run's cost grows with the file.

Runs DataCleaner with the library defaults on the first N records of a CRM file
(``test_cases/make_crm.py --records 50000`` makes a big one) with a scripted stand-in for the
model: it writes one e-mail function when asked for the e-mail field and answers nothing
usable otherwise, so every other field is given up on and every later chunk costs no call.
What is left is the per-chunk work (profiling each chunk, the accepted functions run on it
in the sandbox). The last line is:

    chunk_overhead records=N chunks=N calls=N seconds=X ms_per_chunk=X
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

FIX_EMAIL = """def fix_email(record):
    record = dict(record)
    record["email"] = str(record.get("email") or "").replace(" ", "").lower()
    return record"""


def reply(prompt: str) -> str:
    """The e-mail function when the field prompt asks for it; a reply that does not parse
    otherwise."""
    if "fixes the field 'email'" in prompt[prompt.rfind("=== TASK") :]:
        return (
            "<cleaning_analysis>\n  <function_to_generate>\n    <name>fix_email</name>\n"
            "    <docstring>E-mail lower case, no spaces.</docstring>\n"
            f"    <code>\n```python\n{FIX_EMAIL}\n```\n    </code>\n  </function_to_generate>\n"
            "  <chunk_status>needs_more_work</chunk_status>\n</cleaning_analysis>"
        )
    return "no reply"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--data",
        default=os.path.join(ROOT, "test_cases", "crm_customers.jsonl"),
        help="JSONL records",
    )
    p.add_argument("--records", type=int, help="the first N records only (default: all)")
    p.add_argument(
        "--instructions", default=os.path.join(ROOT, "test_cases", "crm_instructions.txt")
    )
    args = p.parse_args(argv)
    from recursive_cleaner import DataCleaner

    calls = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.jsonl")
        with open(args.data, encoding="utf-8") as src, open(path, "w", encoding="utf-8") as dst:
            for i, line in enumerate(src):
                if args.records is not None and i >= args.records:
                    break
                dst.write(line)
        with open(args.instructions, encoding="utf-8") as f:
            goals = f.read()
        started = time.perf_counter()
        result = DataCleaner(
            lambda prompt: calls.append(1) or reply(prompt),
            path,
            instructions=goals,
            output_path=os.path.join(tmp, "cf.py"),
            report_path=None,
            sleep=lambda s: None,
        ).run()
        seconds = time.perf_counter() - started
    records = (
        sum(1 for _ in open(args.data, encoding="utf-8")) if args.records is None else args.records
    )
    print(
        f"chunk_overhead records={records} chunks={result.chunks_processed} calls={len(calls)} "
        f"seconds={seconds:.1f} ms_per_chunk={1000 * seconds / max(1, result.chunks_processed):.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
