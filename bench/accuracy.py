"""Correction accuracy on a dirty/clean table pair (hospital, beers, flights): Baran precision, recall, F1.

Generates cleaning_functions.py with DataCleaner on the dirty CSV (with the dataset's
plain-language instructions from bench/instructions/NAME.txt, written from the dirty file
only), applies clean_data to every row in the sandbox (a row whose clean_data raised keeps
its dirty values), writes the repaired CSV, reads it back and scores it cell by cell
against the clean CSV (bench/scoring.py). The last line is machine-readable:

    accuracy NAME precision=X recall=X f1=X calls=N tokens=N seconds=X

The local model's prompt cache on disk starts empty (OUT/prompt-cache, emptied first) unless
``--prompt-cache DIR`` names a folder: a measured run does not depend on what an earlier one saved.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import scoring  # noqa: E402  (bench/scoring.py)
from recursive_cleaner.backends.prompt_cache import PROMPT_CACHE_ENV  # noqa: E402

DATASETS = ("hospital", "beers", "flights")
DEFAULT_DATA_DIR = os.path.join(os.path.dirname(ROOT), "shared", "bench-data")
INSTRUCTIONS_DIR = os.path.join(HERE, "instructions")
# prompts are field-focused: the chunk size sets what the profiler sees, not the prompt length
DEFAULT_CHUNK_SIZE = 50


# ---------------------------------------------------------------------------- shared pipeline
@dataclass
class Telemetry:
    """Progress events of one DataCleaner run, counted (pass the instance as on_progress)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    parse_errors: int = 0
    validation_failures: int = 0
    not_clean: int = 0
    functions_generated: int = 0
    chunks_done: int = 0
    records_seen: int = 0
    total_chunks: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    verbose: bool = True
    started: float = field(default_factory=time.monotonic)

    def __call__(self, event: dict) -> None:
        kind = event.get("type")
        self.total_chunks = event.get("total_chunks") or self.total_chunks
        if kind == "llm_call":
            self.calls += 1
            self.prompt_tokens += event.get("prompt_tokens") or 0
            self.completion_tokens += event.get("completion_tokens") or 0
            self.cached_tokens += event.get("cached_tokens") or 0
            self.latencies_ms.append(float(event.get("latency_ms") or 0.0))
        elif kind == "parse_error":
            self.parse_errors += 1
        elif kind == "validation_failed":
            self.validation_failures += 1
        elif kind == "not_clean":  # the model said clean, the library's own profile disagreed
            self.not_clean += 1
        elif kind == "function_generated":
            self.functions_generated += 1
        elif kind == "chunk_start":
            self.records_seen += event.get("records") or 0
        elif kind == "chunk_done":
            self.chunks_done += 1
            if self.verbose:
                print(
                    f"  chunk {event.get('chunk_index', 0) + 1}/{self.total_chunks} "
                    f"{event.get('status')}: "
                    f"{self.calls} calls, {self.functions_generated} functions, "
                    f"{time.monotonic() - self.started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )

    def sync(self, llm: dict | None) -> None:
        """Take the run's own totals (``RunResult.llm``): they also count calls that emit no
        llm_call event."""
        if not llm:
            return
        self.calls = max(self.calls, int(llm.get("calls") or 0))
        self.prompt_tokens = max(self.prompt_tokens, int(llm.get("prompt_tokens") or 0))
        self.completion_tokens = max(self.completion_tokens, int(llm.get("completion_tokens") or 0))
        self.cached_tokens = max(self.cached_tokens, int(llm.get("cached_tokens") or 0))

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def sec_per_call(self) -> float:
        """Mean model latency per call, in seconds (retries included in a call)."""
        return sum(self.latencies_ms) / len(self.latencies_ms) / 1000 if self.latencies_ms else 0.0

    @property
    def cache_share(self) -> float:
        """Share of prompt tokens the server reused from its prompt cache (0 when it does not
        say)."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def parse_fail_rate(self) -> float:
        """parse_error events per LLM call."""
        return self.parse_errors / self.calls if self.calls else 0.0


# the library's own defaults (issue 18: no bench-only defaults)
DEFAULT_OPTIONS: dict[str, Any] = {}


def parse_options(pairs: Sequence[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` pairs (true/false, numbers, text) over DEFAULT_OPTIONS: DataCleaner keyword
    options."""
    options: dict[str, Any] = dict(DEFAULT_OPTIONS)
    for pair in pairs or ():
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"--option needs KEY=VALUE, got {pair!r}")
        value: Any = raw.strip()
        low = value.lower()
        if low in ("true", "false"):
            value = low == "true"
        elif low in ("none", "null"):
            value = None
        else:
            for kind in (int, float):
                try:
                    value = kind(raw)
                    break
                except ValueError:
                    pass
        options[key.strip()] = value
    return options


def add_prompt_cache_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--prompt-cache",
        metavar="DIR",
        help=(
            "the local model's prompt cache folder, used as it is (default: OUT/prompt-cache, "
            "emptied first)"
        ),
    )


@contextlib.contextmanager
def prompt_cache(out: str, given: str | None = None) -> Iterator[str]:
    """The local model's on-disk prompt cache while a measured run lasts: ``given`` as it is, else
    OUT/prompt-cache emptied, so a run starts cold whatever an earlier one saved
    (docs/backend-local.md)."""
    if given:
        folder = os.path.abspath(given)
    else:
        folder = os.path.join(os.path.abspath(out), "prompt-cache")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    old, os.environ[PROMPT_CACHE_ENV] = os.environ.get(PROMPT_CACHE_ENV), folder
    try:
        yield folder
    finally:
        if old is None:
            os.environ.pop(PROMPT_CACHE_ENV, None)
        else:
            os.environ[PROMPT_CACHE_ENV] = old


def add_option_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="a DataCleaner keyword option, repeatable, e.g. --option rich_context=true "
        "(defaults: "
        f"{', '.join(f'{k}={v}' for k, v in DEFAULT_OPTIONS.items()) or 'the library defaults'})",
    )


def generate(
    backend: Any,
    file_path: str,
    instructions: str,
    out_dir: str,
    *,
    chunk_size: int,
    max_iterations: int = 5,
    verbose: bool = True,
    options: dict | None = None,
) -> tuple[Any, Telemetry, float, str]:
    """Run DataCleaner on ``file_path``; return (RunResult, Telemetry, seconds,
    cleaning_functions.py source)."""
    from recursive_cleaner import DataCleaner

    output = os.path.join(out_dir, "cleaning_functions.py")
    telemetry = Telemetry(verbose=verbose)
    started = time.perf_counter()
    cleaner = DataCleaner(
        backend,
        file_path,
        chunk_size=chunk_size,
        instructions=instructions,
        max_iterations=max_iterations,
        on_progress=telemetry,
        output_path=output,
        **(DEFAULT_OPTIONS if options is None else options),
    )
    result = cleaner.run()
    seconds = time.perf_counter() - started
    telemetry.sync(getattr(result, "llm", None))
    with open(output, encoding="utf-8") as f:
        return result, telemetry, seconds, f.read()


def saved_run(path: str) -> tuple[Any, Telemetry, float, str]:
    """A saved cleaning_functions.py as ``generate`` would return it: no model call, no generation
    time."""
    import ast
    from types import SimpleNamespace

    with open(path, encoding="utf-8") as f:
        source = f.read()
    names = [
        n.name
        for n in ast.parse(source).body
        if isinstance(n, ast.FunctionDef)
        and n.name not in ("clean_data", "clean_dataset")
        and not n.name.startswith("_")
    ]
    return SimpleNamespace(functions=names, rejected=[]), Telemetry(verbose=False), 0.0, source


def cross_row_steps(source: str, *, dedup: bool = False) -> list[dict]:
    """The CROSS_ROW_STEPS literal of a generated module (read with ast, never executed); dedup left
    out unless asked.

    Dropping rows would break the cell-by-position comparison, so dedup steps are not scored.
    """
    import ast

    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
            getattr(t, "id", None) == "CROSS_ROW_STEPS" for t in node.targets
        ):
            return [s for s in ast.literal_eval(node.value) if dedup or s.get("kind") != "dedup"]
    return []


def apply_cross_row(steps: list[dict], keys: list[str], rows: list[list[str]]) -> list[list[str]]:
    """The library's two-pass cross-row code over the repaired rows (trusted: the steps are
    data)."""
    from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps

    records = [dict(zip(keys, row)) for row in rows]
    out = apply_steps([CrossRowStep.from_dict(s) for s in steps], records)
    return [[scoring.to_csv_text(r.get(k)) for k in keys] for r in out]


def _score_written(path: str, dirty: list, clean: list, rows: list, normalize) -> Any:
    """Write the repaired table as CSV, read it back and score what the file holds."""
    scoring.write_csv_table(path, [dirty[0]] + rows)
    return scoring.score_tables(
        dirty, clean, scoring.read_csv_table(path), header=True, normalize=normalize
    )


def apply_clean_data(
    source: str, records: list, *, batch_size: int = 500, timeout: float = 60.0
) -> tuple[list, list[str | None]]:
    """clean_data on every record in the sandbox, ``batch_size`` per child; returns (outputs,
    errors).

    ``outputs[i]`` is None where clean_data raised or its batch failed as a whole (a
    timeout, a refused operation); such a batch is retried in halves down to single
    records, so one bad record does not cost the other results.
    """
    from recursive_cleaner.judge.sandbox import run_in_sandbox

    outputs: list = [None] * len(records)
    errors: list[str | None] = [None] * len(records)

    def run(start: int, stop: int) -> None:
        res = run_in_sandbox(source, "clean_data", records[start:stop], timeout=timeout)
        if res.ok:
            outputs[start:stop] = res.outputs
            errors[start:stop] = res.errors
        elif stop - start > 1:
            middle = (start + stop) // 2
            run(start, middle)
            run(middle, stop)
        else:
            errors[start] = res.error or "the sandbox run failed"

    probe = run_in_sandbox(source, "clean_data", [], timeout=timeout)
    if not probe.ok:  # the module itself does not load: no record can be cleaned
        return outputs, [probe.error or "the module does not load in the sandbox"] * len(records)
    for start in range(0, len(records), max(1, batch_size)):
        run(start, min(start + max(1, batch_size), len(records)))
    return outputs, errors


def read_instructions(value: str | None) -> str:
    """TEXT as given, or the contents of FILE for ``@FILE``."""
    if not value:
        return ""
    if value.startswith("@"):
        with open(value[1:], encoding="utf-8") as f:
            return f.read()
    return value


def fmt(x: float) -> str:
    return f"{x:.4f}"


# ---------------------------------------------------------------------------- this benchmark
def _resolve(args: argparse.Namespace) -> tuple[str, str, str, str]:
    """(name, dirty path, clean path, instructions) from the arguments."""
    target = args.dataset
    if args.dirty or args.clean:
        if not (args.dirty and args.clean) or target:
            raise SystemExit(
                "accuracy: give NAME_OR_PATH, or both --dirty and --clean (not both forms)"
            )
        dirty, clean = args.dirty, args.clean
        parent = os.path.basename(os.path.dirname(os.path.abspath(dirty)))
        stem = os.path.splitext(os.path.basename(dirty))[0]
        name = args.name or (parent if stem == "dirty" else stem)
    elif target:
        folder = target if os.path.isdir(target) else os.path.join(args.data_dir, target)
        name = args.name or os.path.basename(os.path.normpath(target))
        dirty, clean = os.path.join(folder, "dirty.csv"), os.path.join(folder, "clean.csv")
    else:
        raise SystemExit(
            "accuracy: give a dataset name (hospital, beers, flights), a folder, or --dirty and "
            "--clean"
        )
    for path in (dirty, clean):
        if not os.path.isfile(path):
            raise SystemExit(f"accuracy: file not found: {path}")
    if args.instructions is not None:
        instructions = read_instructions(args.instructions)
    else:
        default = os.path.join(INSTRUCTIONS_DIR, f"{name}.txt")
        instructions = read_instructions("@" + default) if os.path.isfile(default) else ""
        if not instructions:
            print(
                f"accuracy: no instructions for {name!r} (pass --instructions TEXT|@FILE)",
                file=sys.stderr,
            )
    return name, dirty, clean, instructions


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "dataset",
        nargs="?",
        metavar="NAME_OR_PATH",
        help=(
            "hospital, beers, flights (read from --data-dir) or a folder with dirty.csv and "
            "clean.csv"
        ),
    )
    p.add_argument(
        "--data-dir",
        default=DEFAULT_DATA_DIR,
        help="folder of the named datasets (default ../shared/bench-data)",
    )
    p.add_argument("--dirty", help="dirty CSV (with --clean, instead of NAME_OR_PATH)")
    p.add_argument("--clean", help="ground-truth CSV: same rows and column order as --dirty")
    p.add_argument("--instructions", help="TEXT or @FILE (default bench/instructions/NAME.txt)")
    p.add_argument("--name", help="name on the last line (default: the dataset or folder name)")
    p.add_argument(
        "--backend",
        default="local",
        help="backend spec: local, openai:MODEL@URL, ollama:MODEL ... (default local)",
    )
    p.add_argument(
        "--chunk-size",
        type=int,
        default=DEFAULT_CHUNK_SIZE,
        help=f"rows per chunk (default {DEFAULT_CHUNK_SIZE})",
    )
    p.add_argument(
        "--max-chunks",
        type=int,
        help="generate from the first N chunks only (the cleaner gets a truncated copy)",
    )
    p.add_argument("--rows", type=int, help="clean and score only the first N rows")
    p.add_argument(
        "--max-iterations", type=int, default=5, help="model replies per chunk at most (default 5)"
    )
    p.add_argument("--out", help="output folder (default bench/out/accuracy-NAME)")
    p.add_argument(
        "--batch-size",
        type=int,
        default=500,
        help="rows per sandbox call when applying (default 500)",
    )
    p.add_argument(
        "--apply-timeout",
        type=float,
        default=60.0,
        help="seconds per sandbox call when applying (default 60)",
    )
    p.add_argument(
        "--raha-normalize",
        action="store_true",
        help=(
            "normalise every value as Raha does (HTML unescape, collapse whitespace, strip) before "
            "comparing"
        ),
    )
    p.add_argument("--quiet", action="store_true", help="no per-chunk progress on stderr")
    add_prompt_cache_argument(p)
    p.add_argument(
        "--functions",
        metavar="PATH",
        help=(
            "score this cleaning_functions.py (e.g. a saved run's, with today's toolkit): no "
            "generation"
        ),
    )
    add_option_argument(p)
    return p


def main(argv: Sequence[str] | None = None, backend: Any = None) -> int:
    """Run the benchmark; ``backend`` (an object) overrides --backend, for tests."""
    args = _parser().parse_args(argv)
    name, dirty_path, clean_path, instructions = _resolve(args)
    dirty, clean = scoring.read_csv_table(dirty_path), scoring.read_csv_table(clean_path)
    if not dirty:
        raise SystemExit(f"accuracy: {dirty_path} is empty")
    if len(dirty) != len(clean):
        raise SystemExit(
            f"accuracy: {dirty_path} has {len(dirty)} rows, {clean_path} has {len(clean)}"
        )
    if args.rows is not None:
        dirty, clean = dirty[: args.rows + 1], clean[: args.rows + 1]
    out = args.out or os.path.join(HERE, "out", f"accuracy-{name}")
    os.makedirs(out, exist_ok=True)

    # The cleaner reads a copy: the first --rows rows, cut to --max-chunks chunks.
    gen_rows = dirty[1:]
    if args.max_chunks is not None:
        gen_rows = gen_rows[: args.max_chunks * args.chunk_size]
    gen_input = os.path.join(out, "generation_input.csv")
    scoring.write_csv_table(gen_input, [dirty[0]] + gen_rows)
    if args.functions:
        result, tel, gen_seconds, source = saved_run(args.functions)
        print(
            f"accuracy {name}: scoring {args.functions} (no generation)",
            file=sys.stderr,
            flush=True,
        )
    else:
        print(
            f"accuracy {name}: generating from {len(gen_rows)} of {len(dirty) - 1} rows "
            f"(chunk size {args.chunk_size}), backend "
            f"{args.backend if backend is None else type(backend).__name__}",
            file=sys.stderr,
            flush=True,
        )
        with prompt_cache(out, args.prompt_cache):
            result, tel, gen_seconds, source = generate(
                backend if backend is not None else args.backend,
                gen_input,
                instructions,
                out,
                chunk_size=args.chunk_size,
                max_iterations=args.max_iterations,
                verbose=not args.quiet,
                options=parse_options(args.option),
            )

    # Apply to every row, with the keys the cleaner saw (the parser's de-duplicated header).
    from recursive_cleaner.read.parsers import iter_records

    keys = list(next(iter_records(gen_input, "csv"), {}).keys()) or list(dirty[0])
    width = len(keys)
    rows = dirty[1:]
    fed = [i for i, row in enumerate(rows) if len(row) == width]
    started = time.perf_counter()
    outputs, errors = apply_clean_data(
        source,
        [dict(zip(keys, rows[i])) for i in fed],
        batch_size=args.batch_size,
        timeout=args.apply_timeout,
    )
    apply_seconds = time.perf_counter() - started
    repaired = [list(row) for row in rows]
    failed = len(rows) - len(fed)
    for i, cleaned, error in zip(fed, outputs, errors):
        if error is not None or not isinstance(cleaned, dict):
            failed += 1
            continue  # keeps its dirty values
        # a dropped key is written as ""
        repaired[i] = [scoring.to_csv_text(cleaned.get(k)) for k in keys]
    normalize = scoring.raha_normalize if args.raha_normalize else None
    per_record = None
    steps = cross_row_steps(source)
    # score clean_data alone too, then run the cross-row steps over every row (row count kept)
    if steps:
        per_record = _score_written(
            os.path.join(out, "repaired_per_record.csv"), dirty, clean, repaired, normalize
        )
        repaired = apply_cross_row(steps, keys, repaired)
    repaired_path = os.path.join(out, "repaired.csv")
    score = _score_written(repaired_path, dirty, clean, repaired, normalize)

    seconds = gen_seconds + apply_seconds
    summary = {
        "benchmark": "accuracy",
        "dataset": name,
        "backend": args.backend if backend is None else repr(backend),
        "rows": score.rows,
        "generation_rows": len(gen_rows),
        "chunk_size": args.chunk_size,
        "max_chunks": args.max_chunks,
        "functions": result.functions,
        "rows_failed_apply": failed,
        "calls": tel.calls,
        "prompt_tokens": tel.prompt_tokens,
        "completion_tokens": tel.completion_tokens,
        "rejected": [[n, r[:300]] for n, r in result.rejected],
        "parse_errors": tel.parse_errors,
        "validation_failures": tel.validation_failures,
        "not_clean": tel.not_clean,
        "generation_seconds": gen_seconds,
        "apply_seconds": apply_seconds,
        "raha_normalize": args.raha_normalize,
        **score.to_dict(),
        "cross_row_steps": steps,
        "per_record_only": per_record.to_dict() if per_record else None,
        "options": parse_options(args.option),
        "chunks_processed": tel.chunks_done,
        "stopped_early": getattr(result, "stopped_early", False),
        "reflection": getattr(result, "reflection", {}),
        "optimization": getattr(result, "optimization", {}),
        "modifications": len(getattr(result, "modifications", []) or []),
    }
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)

    print(
        f"dataset          {name}: {score.rows} rows x {score.columns} columns, {score.cells} cells"
    )
    print(f"functions        {len(result.functions)} ({', '.join(result.functions) or 'none'})")
    print(f"precision        {fmt(score.precision)}")
    print(f"recall           {fmt(score.recall)}")
    print(f"f1               {fmt(score.f1)}")
    print(f"error cells      {score.error_cells}")
    print(f"changed cells    {score.changed_cells}")
    print(f"correct repairs  {score.correct_repairs}")
    print(f"broken cells     {score.broken_cells}")
    if per_record is not None:
        print(
            f"clean_data only  precision={fmt(per_record.precision)} "
            f"recall={fmt(per_record.recall)} "
            f"f1={fmt(per_record.f1)} broken={per_record.broken_cells} (before the {len(steps)} "
            "cross-row step(s))"
        )
    print(f"cell accuracy    {fmt(score.cell_accuracy)} (dirty file: {fmt(score.dirty_accuracy)})")
    print(f"rows not cleaned {failed} (clean_data raised or returned no dict; kept dirty)")
    print(
        f"llm calls        {tel.calls} ({tel.parse_errors} parse errors, {tel.validation_failures} "
        "rejected functions, "
        f"{tel.not_clean} 'clean' replies overruled)"
    )
    print(f"tokens           {tel.prompt_tokens} prompt + {tel.completion_tokens} completion")
    print(f"seconds          {gen_seconds:.1f} generation + {apply_seconds:.1f} apply")
    print(f"output           {out}")
    print(
        f"accuracy {name} precision={fmt(score.precision)} recall={fmt(score.recall)} "
        f"f1={fmt(score.f1)} "
        f"calls={tel.calls} tokens={tel.tokens} seconds={seconds:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
