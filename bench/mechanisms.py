"""Each judgement-loop mechanism against the baseline, on the accuracy benchmark (issue 6).

For every dataset and configuration, runs ``bench/accuracy.py`` in a child process (one model
job at a time) and prints one table: calls, tokens, precision, recall, F1, cells broken and
functions in the output. The baseline is the library's defaults (every mechanism off); each
other row turns one mechanism on; ``all`` turns them all on.

    python bench/mechanisms.py hospital beers --max-chunks 6

A configuration whose ``summary.json`` already exists in ``--out`` is read, not re-run
(``--fresh`` re-runs it), so an interrupted table resumes where it stopped. The last lines
are machine-readable, one per run:

    mechanism DATASET CONFIG calls=N tokens=N precision=X recall=X f1=X broken=N functions=N seconds=X
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Sequence

HERE = os.path.dirname(os.path.abspath(__file__))

OFF = {
    "rich_context": "false",
    "reflection": "none",
    "optimize": "false",
    "early_termination": "false",
}
ON = {
    "rich_context": {"rich_context": "true"},
    "reflection": {"reflection": "rules"},
    # a 6-chunk run writes < 10 functions
    "optimize": {"optimize": "true", "optimize_threshold": "2"},
    "early_termination": {"early_termination": "true"},
}
CONFIGS: dict[str, dict[str, str]] = {"baseline": dict(OFF)}
CONFIGS.update({name: {**OFF, **on} for name, on in ON.items()})
CONFIGS["all"] = {k: v for on in ON.values() for k, v in on.items()}


def options_for(config: str) -> list[str]:
    """The ``--option KEY=VALUE`` arguments of one configuration."""
    return [arg for key, value in CONFIGS[config].items() for arg in ("--option", f"{key}={value}")]


def run_one(dataset: str, config: str, args: argparse.Namespace) -> dict:
    """The accuracy summary of one (dataset, configuration), run now unless already on disk."""
    out = os.path.join(args.out, f"{os.path.basename(os.path.normpath(dataset))}-{config}")
    summary_path = os.path.join(out, "summary.json")
    if args.fresh or not os.path.isfile(summary_path):
        cmd = [
            sys.executable,
            os.path.join(HERE, "accuracy.py"),
            dataset,
            "--out",
            out,
            "--backend",
            args.backend,
            "--chunk-size",
            str(args.chunk_size),
            *options_for(config),
        ]
        if args.max_chunks is not None:
            cmd += ["--max-chunks", str(args.max_chunks)]
        if args.data_dir:
            cmd += ["--data-dir", args.data_dir]
        print(f"mechanisms: {dataset} {config}: {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        sys.stderr.write(done.stdout)
        if done.returncode != 0 or not os.path.isfile(summary_path):
            return {
                "dataset": dataset,
                "config": config,
                "error": f"accuracy.py exited {done.returncode}",
            }
    with open(summary_path, encoding="utf-8") as f:
        return {**json.load(f), "config": config}


def row(s: dict) -> str:
    """One markdown table row."""
    if "error" in s:
        return f"| {s['dataset']} | {s['config']} | failed: {s['error']} | | | | | | | |"
    seconds = s.get("generation_seconds", 0.0) + s.get("apply_seconds", 0.0)
    return (
        f"| {s['dataset']} | {s['config']} | {s['calls']} | "
        f"{s['prompt_tokens'] + s['completion_tokens']:,} "
        f"| {s['precision']:.3f} | {s['recall']:.3f} | **{s['f1']:.3f}** | {s['broken_cells']} "
        f"| {len(s['functions'])} | {seconds:.0f} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "datasets",
        nargs="*",
        default=["hospital", "beers"],
        help="names or folders (default hospital beers)",
    )
    p.add_argument(
        "--configs", default=",".join(CONFIGS), help=f"comma-separated, from {', '.join(CONFIGS)}"
    )
    p.add_argument(
        "--max-chunks", type=int, default=6, help="chunks the generator reads (default 6; 0 = all)"
    )
    p.add_argument("--chunk-size", type=int, default=50)
    p.add_argument("--backend", default="local")
    p.add_argument(
        "--data-dir", help="folder of the named datasets (accuracy.py's default otherwise)"
    )
    p.add_argument("--out", default=os.path.join(HERE, "out", "mechanisms"))
    p.add_argument(
        "--fresh", action="store_true", help="re-run configurations that already have a summary"
    )
    args = p.parse_args(argv)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        p.error(f"unknown configuration(s) {unknown}; choose from {', '.join(CONFIGS)}")
    if args.max_chunks == 0:
        args.max_chunks = None
    results = [run_one(d, c, args) for d in args.datasets for c in configs]
    print(
        "| data | config | calls | tokens | precision | recall | F1 | broken | functions | seconds "
        "|"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in results:
        print(row(s))
    for s in results:
        if "error" not in s:
            print(
                f"mechanism {s['dataset']} {s['config']} calls={s['calls']} "
                f"tokens={s['prompt_tokens'] + s['completion_tokens']} "
                f"precision={s['precision']:.4f} "
                f"recall={s['recall']:.4f} f1={s['f1']:.4f} broken={s['broken_cells']} "
                f"functions={len(s['functions'])} "
                f"seconds={s['generation_seconds'] + s['apply_seconds']:.1f}"
            )
    return 0 if all("error" not in s for s in results) else 1


if __name__ == "__main__":
    sys.exit(main())
