"""Behaviour fingerprints that need no model: run before and after a refactor, the lines must match.

Each line is ``NAME sha256`` of bytes a user gets, so ``diff`` of two runs shows what changed:

- ``heldout/TABLE-WORDING/FILE``: ``bench/heldout.py --library-only`` on every held-out table and
  wording (generate + apply through the CLI; the library's own functions and cross-row steps):
  ``cleaning_functions.py``, ``cleaning_spec.json`` (the spec; ``_written``), ``cleaned.csv``;
- ``saved/TABLE/cleaned.csv``: the saved model functions of ``bench/functions/`` applied to the
  benchmark table's ``dirty.csv`` with ``apply_file`` (needs ``--data-dir``; skipped if absent);
- ``scripted/LABEL/...``: two ``DataCleaner`` runs (the defaults; no hint functions, no
  cross-row) on ``test_cases/crm_customers.jsonl`` with a scripted backend (toolkit one-liners
  for four fields, "clean" otherwise): every prompt it was sent, in order, and the files it
  wrote (``cleaning_functions.py``, ``cleaning_spec.json``).

    python bench/golden.py --data-dir ../shared/bench-data > before.txt
    ... change the code ...
    python bench/golden.py --data-dir ../shared/bench-data > after.txt && diff before.txt after.txt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(ROOT), str(HERE), str(ROOT / "tests")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

_KEEP = ("cleaning_functions.py", "cleaning_spec.json", "cleaned.csv")
_FIXES = {
    "email": "normalize_email(record.get('email'))",
    "phone": "to_e164(record.get('phone'))",
    "signup_date": "to_iso_date(record.get('signup_date'))",
    "status": "closest_value(record.get('status'), ['active', 'pending', 'churned'])",
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _stable(data: bytes) -> bytes:
    """Bytes with what a run stamps (dates, seconds, temporary paths) masked."""
    text = data.decode("utf-8", "replace")
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?", "<time>", text)
    text = re.sub(r"/tmp/[^\s\"']+", "<tmp>", text)
    return text.encode("utf-8")


def _written(folder: Path, name: str) -> bytes | None:
    """A file a run wrote, as the line ``name`` hashes it. ``cleaning_spec.json``: the spec, named
    after the functions since issue 43 (``cleaning_functions.spec.json``), without its
    ``written_for`` stamp (the functions' digest: already a line of its own), so the line is
    comparable with a run of an older checkout."""
    path = folder / name
    if name == "cleaning_spec.json":
        named = folder / "cleaning_functions.spec.json"
        if named.is_file():
            spec = json.loads(named.read_text(encoding="utf-8"))
            spec.pop("written_for", None)
            return (json.dumps(spec, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return path.read_bytes() if path.is_file() else None


def _line(folder: Path, name: str) -> str:
    data = _written(folder, name)
    return _sha(_stable(data)) if data is not None else "missing"


def heldout() -> list[str]:
    import heldout as bench_heldout
    import make_tables

    lines = []
    with tempfile.TemporaryDirectory() as keep:
        for table in make_tables.TABLES:
            for wording in bench_heldout.WORDINGS:
                if not (bench_heldout.GOALS / f"{table}_{wording}.txt").is_file():
                    continue
                bench_heldout.run_one(
                    table,
                    wording,
                    tables=bench_heldout.DEFAULT_TABLES,
                    library_only=True,
                    keep=Path(keep),
                )
                for name in _KEEP:
                    digest = _line(Path(keep) / f"{table}-{wording}", name)
                    lines.append(f"heldout/{table}-{wording}/{name} {digest}")
    return lines


def saved(data_dir: Path | None) -> list[str]:
    from recursive_cleaner.apply import apply_file

    lines = []
    for table in ("hospital", "flights"):
        dirty = data_dir / table / "dirty.csv" if data_dir else None
        if dirty is None or not dirty.is_file():
            lines.append(f"saved/{table}/cleaned.csv skipped (no --data-dir)")
            continue
        with tempfile.TemporaryDirectory() as work:
            out = Path(work) / "cleaned.csv"
            apply_file(str(HERE / "functions" / f"{table}.py"), str(dirty), str(out), workers=1)
            lines.append(f"saved/{table}/cleaned.csv {_sha(out.read_bytes())}")
    return lines


def scripted() -> list[str]:
    from fakes import FakeBackend, toolkit_fixer

    from recursive_cleaner import DataCleaner

    lines = []
    goals = (ROOT / "test_cases" / "crm_instructions.txt").read_text(encoding="utf-8")
    for label, options in (
        ("defaults", {}),
        ("no-hints", {"hint_functions": False, "cross_row": False}),
    ):
        with tempfile.TemporaryDirectory() as work:
            backend = FakeBackend(toolkit_fixer(_FIXES))
            out = Path(work) / "cleaning_functions.py"
            cleaner = DataCleaner(
                backend,
                str(ROOT / "test_cases" / "crm_customers.jsonl"),
                chunk_size=40,
                instructions=goals,
                output_path=str(out),
                report_path=None,
                **options,
            )
            cleaner.run()
            for i, prompt in enumerate(backend.history):
                lines.append(
                    f"scripted/{label}/prompt-{i:02d} {_sha(_stable(prompt.encode('utf-8')))}"
                )
            for name in ("cleaning_functions.py", "cleaning_spec.json"):
                lines.append(f"scripted/{label}/{name} {_line(Path(work), name)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="the benchmark tables (hospital/, flights/)"
    )
    parser.add_argument("--only", choices=("heldout", "saved", "scripted"), default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault(
        "RECURSIVE_CLEANER_PROMPT_CACHE", tempfile.mkdtemp(prefix="golden-cache-")
    )
    parts = {"scripted": scripted, "saved": lambda: saved(args.data_dir), "heldout": heldout}
    for name, part in parts.items():
        if args.only in (None, name):
            for line in part():
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
