"""Held-out tables (issue 29): the CLI as a user runs it, on tables and goals no rule was tuned to.

For each table x wording (``bench/heldout/make_tables.py`` writes the tables if missing;
``bench/heldout/goals/<table>_<wording>.txt`` are the goals, written before any run), in a fresh
temporary folder:

    python -m recursive_cleaner generate dirty.csv -i @goals.txt [-b SPEC] [--backend-option n_threads=N]
    python -m recursive_cleaner apply cleaning_functions.py dirty.csv -o cleaned.csv

with the library's defaults and a cold prompt cache (``$RECURSIVE_CLEANER_PROMPT_CACHE`` pointed at
an empty folder of the run), then every cell of ``cleaned.csv`` is scored against ``clean.csv``:

- **to fix**: dirty != truth; **changed**: cleaned != dirty; **fixed**: changed and cleaned = truth;
- **precision** = fixed / changed (0 when nothing changed), **recall** = fixed / to fix, **F1**;
- **broken**: dirty = truth but cleaned != truth; **broken-protected**: those in a field the goals
  say to leave alone (``meta.json``'s ``protect``);
- values compare by number where the truth is a plain number ("14.9" = "14.90" = 14.9; "004817"
  is not a plain number, so it compares as text), else as exact text;
- **calls**: the model calls the CLI reports; **seconds**: generate + apply wall time.

``--library-only`` runs generate with a backend that never offers a function (every prompt is
answered "clean, nothing to fix"): what the library does by itself (hint one-liners, cross-row
steps), in seconds. ``--score-only DIR`` re-scores the runs saved by ``--out DIR``.

    python bench/heldout.py --library-only --out bench/out/heldout/library-only
    python bench/heldout.py --tables lab --wordings email --threads 2 --out bench/out/heldout/lab
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(ROOT), str(HERE / "heldout")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import make_tables  # noqa: E402

__all__ = [
    "WORDINGS",
    "SILENT_REPLY",
    "SilentBackend",
    "same",
    "score",
    "score_files",
    "run_one",
    "ensure_table",
    "format_table",
    "main",
]

# ticket, chat: written in session 12 before their first runs
# the blind_* wordings (session 17, bench/heldout/goals/BLIND.md): written before any run by writers
# who had read only make_tables.py and the tables
BLIND = ("blind_email", "blind_ticket", "blind_chat", "blind_terse", "blind_spec", "blind_slack",
         "blind_meeting")
# blind set B (session 17, bench/heldout/goals/BLIND_B.md, BLIND_BNEW.md): written after the
# evidence mechanisms of issue 42, before any run
BLIND_B = tuple(
    f"blindb_{w}"
    for w in ("email", "ticket", "chat", "terse", "spec", "voice", "handover", "nonnative")
)
# blind set C (session 18, bench/heldout/goals/BLINDC.md): written before any run, with the vet table
BLIND_C = tuple(
    f"blindc_{w}"
    for w in (
        "email", "ticket", "chat", "terse", "spec", "voice", "nonnative", "memo", "slack",
        "sms", "letter", "notes", "volunteer",
    )
)
# blind set D (session 19, bench/heldout/goals/BLINDD.md): written before any run, with the returns
# table
BLIND_D = tuple(
    f"blindd_{w}"
    for w in (
        "jira", "contract", "dictated", "examples", "nonnative", "thread", "handover", "teams",
        "spec", "checklist", "donts", "manager", "sop", "wiki", "auditor",
    )
)
WORDINGS = ("email", "terse", "ticket", "chat", "memo") + BLIND + BLIND_B + BLIND_C + BLIND_D
GOALS = HERE / "heldout" / "goals"
DEFAULT_TABLES = make_tables.DEFAULT_OUT
DEFAULT_JSON = ROOT / "bench" / "out" / "heldout" / "results.json"
PROMPT_CACHE_ENV = "RECURSIVE_CLEANER_PROMPT_CACHE"

SILENT_REPLY = (
    "<cleaning_analysis>\n  <issues_detected>\n"
    '    <issue id="1" solved="true">Nothing to fix</issue>\n'
    "  </issues_detected>\n  <chunk_status>clean</chunk_status>\n</cleaning_analysis>"
)
"""Every prompt's answer in --library-only: a well-formed "clean" reply (never a parse error, so no
retry): a field prompt counts it as one failed attempt at the field, an open pass ends the chunk,
the cross-row plan keeps the library's own candidates (the reply names no plan)."""


class SilentBackend:
    """A backend that never offers a function: every prompt gets ``SILENT_REPLY``."""

    def __init__(self) -> None:
        self.calls = 0

    def generate(self, prompt: str) -> str:
        self.calls += 1
        return SILENT_REPLY


# ---------------------------------------------------------------- scoring

# the truth's plain numbers: no leading zeros, no sign +
_PLAIN = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _number(text: str, pattern: re.Pattern) -> float | None:
    return float(text) if pattern.fullmatch(text) else None


def same(value: Any, truth: str) -> bool:
    """``value`` equals ``truth``: by number when the truth is a plain number, else as exact
    text."""
    value = "" if value is None else str(value)
    if value == truth:
        return True
    t, v = _number(truth, _PLAIN), _number(value, _NUMBER)
    return t is not None and v is not None and math.isclose(t, v, rel_tol=1e-9, abs_tol=1e-9)


def score(
    dirty: list[dict],
    truth: list[dict],
    cleaned: list[dict],
    columns: list[str],
    protect: list[str] | tuple = (),
) -> dict[str, Any]:
    """Cell metrics of ``cleaned`` against ``truth`` (rows by position; a missing cell is "")."""
    per: dict[str, dict[str, int]] = {
        c: dict(to_fix=0, changed=0, fixed=0, broken=0) for c in columns
    }
    for d_row, t_row, c_row in zip(dirty, truth, cleaned):
        for col in columns:
            d, t, c = d_row.get(col, ""), t_row.get(col, ""), c_row.get(col, "")
            c = "" if c is None else str(c)
            was_right, now_right = same(d, t), same(c, t)
            # by number where the dirty value is a plain number; right before and after by the
            # truth's rule is no change ("2012." -> "2012" where the truth is 2012)
            changed = not same(c, d) and not (was_right and now_right)
            n = per[col]
            n["to_fix"] += not was_right
            n["changed"] += changed
            n["fixed"] += changed and now_right and not was_right
            n["broken"] += was_right and not now_right
    total = {k: sum(n[k] for n in per.values()) for k in ("to_fix", "changed", "fixed", "broken")}
    p = total["fixed"] / total["changed"] if total["changed"] else 0.0
    r = total["fixed"] / total["to_fix"] if total["to_fix"] else 0.0
    return {
        **total,
        "precision": round(p, 4),
        "recall": round(r, 4),
        "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
        "broken_protected": sum(per[c]["broken"] for c in protect if c in per),
        "rows": len(truth),
        "rows_out": len(cleaned),
        "per_column": per,
    }


def read_csv(path: Path) -> tuple[list[str], list[dict]]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def _aligned(truth: list[dict], cleaned: list[dict], key: str | None) -> list[dict]:
    """The cleaned rows in the truth's order: by position, or by the id column when rows were
    dropped."""
    if len(cleaned) == len(truth) or not key:
        return cleaned + [{}] * (len(truth) - len(cleaned))
    by_id = {r.get(key): r for r in cleaned}
    return [by_id.get(t.get(key), {}) for t in truth]


def score_files(table_dir: Path, cleaned_csv: Path) -> dict[str, Any]:
    """Score a cleaned CSV against a table folder's dirty.csv, clean.csv and meta.json."""
    meta = json.loads((table_dir / "meta.json").read_text(encoding="utf-8"))
    columns, dirty = read_csv(table_dir / "dirty.csv")
    _, truth = read_csv(table_dir / "clean.csv")
    # no output: nothing changed
    cleaned = read_csv(cleaned_csv)[1] if cleaned_csv.is_file() else list(dirty)
    result = score(
        dirty, truth, _aligned(truth, cleaned, meta.get("id")), columns, meta.get("protect", [])
    )
    return {**result, "rows_out": len(cleaned)}


# ---------------------------------------------------------------- running


def ensure_table(tables: Path, name: str) -> Path:
    folder = tables / name
    if not all((folder / f).is_file() for f in ("dirty.csv", "clean.csv", "meta.json")):
        make_tables.write_table(name, tables)
    return folder


def _cli(
    argv: list[str], *, cwd: Path, env: dict, library_only: bool
) -> tuple[int, str, str, float]:
    if library_only:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--silent-cli", *argv]
    else:
        cmd = [sys.executable, "-m", "recursive_cleaner", *argv]
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr, round(time.perf_counter() - started, 2)


def _calls(stdout: str) -> tuple[int | None, list[str]]:
    m = re.search(r"LLM calls (\d+)", stdout)
    f = re.search(r"function\(s\)( .*)?$", stdout, re.M)
    return (int(m.group(1)) if m else None), (
        f.group(1).strip().split(", ") if f and f.group(1) else []
    )


def _env(folder: Path, threads: int | None) -> dict:
    env = dict(os.environ)
    # cold: a cache of this run only (the library makes it)
    env[PROMPT_CACHE_ENV] = str(folder / "prompt-cache")
    if threads:
        env["RECURSIVE_CLEANER_THREADS"] = str(threads)
    return env


def run_one(
    table: str,
    wording: str,
    *,
    tables: Path,
    backend: str | None = None,
    threads: int | None = None,
    library_only: bool = False,
    keep: Path | None = None,
) -> dict[str, Any]:
    """Generate + apply + score one table with one wording; the run's files go to ``keep`` if
    given."""
    table_dir = ensure_table(tables, table)
    work = Path(tempfile.mkdtemp(prefix=f"heldout-{table}-{wording}-"))
    try:
        shutil.copy(table_dir / "dirty.csv", work / "dirty.csv")
        shutil.copy(GOALS / f"{table}_{wording}.txt", work / "goals.txt")
        env = _env(work, threads)
        gen = ["generate", "dirty.csv", "-i", "@goals.txt"]
        if backend and not library_only:
            gen += ["-b", backend]
        spec = backend or env.get("RECURSIVE_CLEANER_BACKEND", "") or "local"
        if threads and not library_only and spec.split(":")[0] == "local":
            gen += ["--backend-option", f"n_threads={threads}"]
        rc, out, err, gen_s = _cli(gen, cwd=work, env=env, library_only=library_only)
        (work / "generate.log").write_text(
            f"$ {' '.join(gen)}\nexit {rc}\n{out}\n--- stderr\n{err}", encoding="utf-8"
        )
        apply_s, arc, error = (
            0.0,
            None,
            None if rc == 0 else f"generate exit {rc}: {err.strip()[-300:]}",
        )
        if rc == 0:
            app = ["apply", "cleaning_functions.py", "dirty.csv", "-o", "cleaned.csv"]
            arc, aout, aerr, apply_s = _cli(app, cwd=work, env=env, library_only=False)
            (work / "apply.log").write_text(
                f"$ {' '.join(app)}\nexit {arc}\n{aout}\n--- stderr\n{aerr}", encoding="utf-8"
            )
            if arc not in (0, 3):  # 3: finished, clean_data failed on some records (kept unchanged)
                error = f"apply exit {arc}: {aerr.strip()[-300:]}"
        calls, functions = _calls(out)
        result = {
            "table": table,
            "wording": wording,
            "mode": "library-only" if library_only else "model",
            "backend": "silent (library-only)" if library_only else spec,
            "threads": threads,
            **score_files(table_dir, work / "cleaned.csv"),
            "calls": calls,
            "functions": functions,
            "generate_seconds": gen_s,
            "apply_seconds": apply_s,
            "seconds": round(gen_s + apply_s, 2),
            "error": error,
        }
        (work / "run.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        if keep is not None:
            dest = keep / f"{table}-{wording}"
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(work, dest, ignore=shutil.ignore_patterns("prompt-cache"))
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def rescore(saved: Path, tables: Path) -> list[dict[str, Any]]:
    """Score again every run folder (TABLE-WORDING/ with run.json) saved under ``saved``."""
    results = []
    for run in sorted(p.parent for p in saved.glob("*/run.json")):
        old = json.loads((run / "run.json").read_text(encoding="utf-8"))
        fresh = score_files(ensure_table(tables, old["table"]), run / "cleaned.csv")
        results.append({**old, **fresh})
    return results


# ---------------------------------------------------------------- output

HEADER = (
    "table",
    "wording",
    "F1",
    "P",
    "R",
    "fixed/to-fix",
    "broken",
    "broken-protected",
    "calls",
    "seconds",
)


def format_table(results: list[dict[str, Any]]) -> str:
    rows = [HEADER] + [
        (
            r["table"],
            r["wording"],
            f"{r['f1']:.3f}",
            f"{r['precision']:.3f}",
            f"{r['recall']:.3f}",
            f"{r['fixed']}/{r['to_fix']}",
            str(r["broken"]),
            str(r["broken_protected"]),
            "?" if r.get("calls") is None else str(r["calls"]),
            f"{r.get('seconds', 0):.1f}",
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _git(*args: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def commit() -> str:
    head = _git("rev-parse", "--short=12", "HEAD") or "unknown"
    # uncommitted or untracked changes to what a run uses: the library, the backends, the bench
    # scripts
    return head + (
        "+dirty"
        if _git("status", "--porcelain", "--", "recursive_cleaner", "backends", "bench")
        else ""
    )


def _library() -> dict[str, str]:
    code = (
        "import recursive_cleaner as r, recursive_cleaner.backends as b; print(r.__file__); "
        "print(b.__file__)"
    )
    # from an empty folder, as the CLI runs (cwd is the run's folder): with ``-c`` the current
    # folder comes first on sys.path, so the harness's checkout would hide $PYTHONPATH's
    with tempfile.TemporaryDirectory() as empty:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=empty
        )
    lines = done.stdout.split()
    return (
        {"library": lines[0], "backends": lines[1]}
        if len(lines) == 2
        else {"library": done.stderr[-200:]}
    )


def _silent_cli(argv: list[str]) -> int:
    """The CLI itself with ``make_backend`` answering every spec with a SilentBackend
    (--library-only)."""
    from recursive_cleaner.ui import cli

    cli.make_backend = lambda spec, **options: SilentBackend()
    return cli.main(argv)


def _names(text: str, known: tuple[str, ...], what: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in known]
    if bad:
        raise SystemExit(f"unknown {what} {', '.join(bad)} (known: {', '.join(known)})")
    return names


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--silent-cli"]:
        return _silent_cli(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default=",".join(make_tables.TABLES))
    parser.add_argument("--wordings", default=",".join(WORDINGS))
    parser.add_argument(
        "--backend",
        default=None,
        help="the CLI's -b (default: none given: $RECURSIVE_CLEANER_BACKEND, else local)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="the local backend's n_threads (--backend-option; also $RECURSIVE_CLEANER_THREADS)",
    )
    parser.add_argument(
        "--library-only",
        action="store_true",
        help="a backend that never offers a function: what the library does by itself",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="keep each run's files in OUT/TABLE-WORDING/"
    )
    parser.add_argument(
        "--score-only",
        type=Path,
        default=None,
        metavar="DIR",
        help="score again the runs saved in DIR by --out (no generate, no apply)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_TABLES,
        help="where the tables are (made if missing)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=None,
        help="results JSON [default: OUT/results.json, else bench/out/heldout/results.json]",
    )
    args = parser.parse_args(argv)
    tables = _names(args.tables, make_tables.TABLES, "table")
    wordings = _names(args.wordings, WORDINGS, "wording")
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    if args.score_only:
        results = [
            r
            for r in rescore(args.score_only, args.data_dir)
            if r["table"] in tables and r["wording"] in wordings
        ]
    else:
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
        results = []
        for table in tables:
            for wording in wordings:
                if not (GOALS / f"{table}_{wording}.txt").exists():
                    continue  # not every table has every wording (fleet: email and terse)
                r = run_one(
                    table,
                    wording,
                    tables=args.data_dir,
                    backend=args.backend,
                    threads=args.threads,
                    library_only=args.library_only,
                    keep=args.out,
                )
                results.append(r)
                print(
                    f"{table} {wording}: F1 {r['f1']:.3f} ({r['seconds']:.1f} s)"
                    + (f" ERROR {r['error']}" if r["error"] else ""),
                    file=sys.stderr,
                    flush=True,
                )
    print(format_table(results))
    for r in results:
        if r.get("error"):
            print(f"{r['table']} {r['wording']}: {r['error']}")
    path = args.json or (
        (args.score_only or args.out) / "results.json"
        if (args.score_only or args.out)
        else DEFAULT_JSON
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    summary = {
        "commit": commit(),
        "started": started,
        "command": " ".join(["python", "bench/heldout.py", *argv]),
        "mode": "score-only"
        if args.score_only
        else ("library-only" if args.library_only else "model"),
        **_library(),
        "results": results,
    }
    path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"commit {summary['commit']}; results {path}")
    return 1 if any(r.get("error") for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
