"""The cleaner end to end on the CRM sample: LLM calls, tokens, parse failures, latency and accuracy.

Runs DataCleaner on test_cases/crm_customers.jsonl with test_cases/crm_instructions.txt,
counts the progress events (llm_call, parse_error), applies clean_data to every record in
the sandbox (a record whose clean_data raised stays as it was) and compares the result
with test_cases/crm_customers.clean.jsonl by key (bench/scoring.py: score_records). Also
prints the accuracy of the untouched file (the baseline), per field before and after, and
the cost figures of bench/cost.py. Writes OUT/summary.json. The last line is:

    real_model calls=N prompt_tokens=N completion_tokens=N parse_fail_rate=X sec_per_call=X cache_share=X accuracy=X
    records_kept=N/N wall_seconds=X parse_errors=N

``--baseline COMMIT`` (or a checkout's folder) first runs the same benchmark at that commit (a
git worktree under OUT/baseline-src), then this one, and prints both rows side by side: wall
seconds, generation seconds, calls, parse failures, cache share, accuracy.

The local model's prompt cache on disk (backends/prompt_cache.py) starts empty: the run uses
OUT/prompt-cache, emptied first, unless ``--prompt-cache DIR`` names another folder (kept as it
is). ``--warm-with TEXT|@FILE`` first runs the job with those goals in a new process to fill it
(another job's prompt, not measured); ``--again`` runs the same job once more in a new process
after the measured run (a rerun). Every row is printed side by side.

The cross-row steps (dedup included) run after clean_data, as ``apply`` runs them; records they
drop are counted in ``records_kept``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import scoring  # noqa: E402
from recursive_cleaner.model.capabilities import (  # noqa: E402
    GRAMMAR,
    JSON,
    PROMPT_CACHE,
    USAGE,
    capabilities_of,
)
from accuracy import (
    PROMPT_CACHE_ENV,
    add_option_argument,
    add_prompt_cache_argument,  # noqa: E402
    apply_clean_data,
    cross_row_steps,
    fmt,
    generate,
    parse_options,
    prompt_cache,
    read_instructions,
)

DEFAULT_DATA = os.path.join(ROOT, "test_cases", "crm_customers.jsonl")
DEFAULT_TRUTH = os.path.join(ROOT, "test_cases", "crm_customers.clean.jsonl")
DEFAULT_INSTRUCTIONS = "@" + os.path.join(ROOT, "test_cases", "crm_instructions.txt")
DEFAULT_OUT = os.path.join(HERE, "out", "real_model")


def read_jsonl(path: str) -> list[dict]:
    """Every non-blank line of a JSONL file as a dict; ValueError naming the line otherwise."""
    records = []
    with open(path, encoding="utf-8-sig") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}: line {lineno}: invalid JSON: {exc}") from None
            if not isinstance(record, dict):
                raise ValueError(f"{path}: line {lineno}: not a JSON object")
            records.append(record)
    return records


def write_jsonl(path: str, records: list) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


def cost_figures(calls: int, tokens: int, records: int, functions: int) -> dict[str, float]:
    """calls per 1000 records processed by the generator, and tokens per accepted function."""
    return {
        "calls_per_1k": calls / records * 1000 if records else 0.0,
        "tokens_per_function": tokens / max(1, functions),
    }


class CallLog:
    """Wraps a backend: every call's prompt, reply, grammar/schema use and token counts, one JSON
    line each.

    ``bench/constrained.py`` replays the logged prompts with and without the grammar.
    """

    def __init__(self, backend: Any, path: str) -> None:
        self.backend, self.path = backend, path
        open(path, "w", encoding="utf-8").close()
        self.capabilities = capabilities_of(backend)  # it declares what the wrapped one does
        if GRAMMAR in self.capabilities:
            self.generate_grammar = lambda prompt, grammar: self._log(prompt, "grammar", grammar)
        if JSON in self.capabilities:
            self.generate_json = lambda prompt, schema: self._log(prompt, "schema", schema)

    # last_usage, last_timings, n_ctx ... of the wrapped backend
    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)

    def generate(self, prompt: str) -> str:
        return self._log(prompt, None, None)

    def _log(self, prompt: str, kind: str | None, held: Any) -> str:
        started = time.perf_counter()
        if kind == "grammar":
            reply = self.backend.generate_grammar(prompt, held)
        elif kind == "schema":
            reply = self.backend.generate_json(prompt, held)
        else:
            reply = self.backend.generate(prompt)
        usage = (self.backend.last_usage if USAGE in self.capabilities else None) or {}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(
                json.dumps(
                    {
                        "prompt": prompt,
                        "reply": reply,
                        "held": kind,
                        "grammar": held if kind == "grammar" else None,
                        "seconds": round(time.perf_counter() - started, 2),
                        **usage,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
        return reply


def parser(description: str | None = None) -> argparse.ArgumentParser:
    """Options shared by real_model.py and cost.py."""
    p = argparse.ArgumentParser(description=description or __doc__.split("\n\n")[0])
    p.add_argument(
        "--backend",
        default="local",
        help="backend spec: local, openai:MODEL@URL, ollama:MODEL ... (default local)",
    )
    p.add_argument(
        "--data", default=DEFAULT_DATA, help="messy JSONL (default test_cases/crm_customers.jsonl)"
    )
    p.add_argument(
        "--truth",
        default=DEFAULT_TRUTH,
        help="ground truth JSONL, line by line (default test_cases/crm_customers.clean.jsonl)",
    )
    p.add_argument(
        "--instructions",
        default=DEFAULT_INSTRUCTIONS,
        help="TEXT or @FILE (default @test_cases/crm_instructions.txt)",
    )
    p.add_argument("--chunk-size", type=int, default=50, help="records per chunk (default 50)")
    p.add_argument(
        "--max-chunks",
        type=int,
        help="generate from the first N chunks only (the cleaner gets a truncated copy)",
    )
    p.add_argument(
        "--records", type=int, help="use only the first N records (generation, apply and scoring)"
    )
    p.add_argument(
        "--max-iterations", type=int, default=5, help="model replies per chunk at most (default 5)"
    )
    p.add_argument(
        "--out", default=DEFAULT_OUT, help="output folder (default bench/out/real_model)"
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=500,
        help="records per sandbox call when applying (default 500)",
    )
    p.add_argument(
        "--apply-timeout",
        type=float,
        default=60.0,
        help="seconds per sandbox call when applying (default 60)",
    )
    p.add_argument("--quiet", action="store_true", help="no per-chunk progress on stderr")
    p.add_argument(
        "--no-call-log",
        action="store_true",
        help="do not write OUT/calls.jsonl (every prompt and reply)",
    )
    add_prompt_cache_argument(p)
    p.add_argument(
        "--warm-with",
        metavar="TEXT|@FILE",
        help=(
            "first run the job with these goals in a new process, to fill the prompt cache (not "
            "measured)"
        ),
    )
    p.add_argument(
        "--again",
        action="store_true",
        help=(
            "after the measured run, run the same job again in a new process (the prompt cache "
            "warm)"
        ),
    )
    p.add_argument(
        "--baseline",
        metavar="COMMIT|DIR",
        help=(
            "first run the same benchmark at COMMIT (a worktree) or in the checkout DIR; print "
            "both rows"
        ),
    )
    add_option_argument(p)
    return p


def run(args: argparse.Namespace, backend: Any = None) -> dict[str, Any]:
    """Generate, apply and score; return the summary (also written to OUT/summary.json)."""
    wall_started = time.perf_counter()
    data, truth = read_jsonl(args.data), read_jsonl(args.truth)
    if len(data) != len(truth):
        raise SystemExit(
            f"real_model: {args.data} has {len(data)} records, {args.truth} has {len(truth)}"
        )
    if args.records is not None:
        data, truth = data[: args.records], truth[: args.records]
    os.makedirs(args.out, exist_ok=True)
    gen_records = data if args.max_chunks is None else data[: args.max_chunks * args.chunk_size]
    gen_input = os.path.join(args.out, "generation_input.jsonl")
    write_jsonl(gen_input, gen_records)
    spec = args.backend if backend is None else type(backend).__name__
    print(
        f"real_model: generating from {len(gen_records)} of {len(data)} records "
        f"(chunk size {args.chunk_size}), backend {spec}",
        file=sys.stderr,
        flush=True,
    )
    model = backend if backend is not None else args.backend
    if not getattr(args, "no_call_log", False):
        if isinstance(model, str):
            from recursive_cleaner.run.setup import resolve_backend

            model = resolve_backend(model)  # as DataCleaner builds it (stop sequences)
        model = CallLog(model, os.path.join(args.out, "calls.jsonl"))
    result, tel, gen_seconds, source = generate(
        model,
        gen_input,
        read_instructions(args.instructions),
        args.out,
        chunk_size=args.chunk_size,
        max_iterations=args.max_iterations,
        verbose=not args.quiet,
        options=parse_options(args.option),
    )

    started = time.perf_counter()
    outputs, errors = apply_clean_data(
        source, data, batch_size=args.batch_size, timeout=args.apply_timeout
    )
    apply_seconds = time.perf_counter() - started
    failed = sum(
        1 for out, err in zip(outputs, errors) if err is not None or not isinstance(out, dict)
    )
    cleaned = [
        out if err is None and isinstance(out, dict) else rec
        for rec, out, err in zip(data, outputs, errors)
    ]
    from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps

    steps = [CrossRowStep.from_dict(d) for d in cross_row_steps(source, dedup=True)]
    final = apply_steps(steps, cleaned) if steps else cleaned  # what `apply` writes, dedup included
    records_kept = len(final)
    if records_kept == len(data):
        cleaned = final
    else:  # rows were dropped: cells can no longer be compared by position; score clean_data alone
        print(
            f"real_model: the cross-row steps drop {len(data) - records_kept} of {len(data)} "
            "records; "
            "accuracy is clean_data's alone",
            file=sys.stderr,
        )
    write_jsonl(os.path.join(args.out, "cleaned.jsonl"), cleaned)
    after, before = scoring.score_records(truth, cleaned), scoring.score_records(truth, data)

    summary: dict[str, Any] = {
        "benchmark": "real_model",
        "backend": args.backend if backend is None else repr(backend),
        "records": len(data),
        "records_kept": records_kept,
        "cross_row_steps": len(steps),
        "generation_records": tel.records_seen,
        "chunk_size": args.chunk_size,
        "max_chunks": args.max_chunks,
        "functions": result.functions,
        "records_failed_apply": failed,
        "calls": tel.calls,
        "prompt_tokens": tel.prompt_tokens,
        "completion_tokens": tel.completion_tokens,
        "cached_tokens": tel.cached_tokens,
        "cache_share": tel.cache_share,
        "prompt_tokens_per_call": tel.prompt_tokens / tel.calls if tel.calls else 0.0,
        "sec_per_function": gen_seconds / len(result.functions) if result.functions else None,
        "parse_errors": tel.parse_errors,
        "parse_fail_rate": tel.parse_fail_rate,
        "validation_failures": tel.validation_failures,
        "not_clean": tel.not_clean,
        "sec_per_call": tel.sec_per_call,
        "rejected": [[n, r[:300]] for n, r in result.rejected],
        "generation_seconds": gen_seconds,
        "apply_seconds": apply_seconds,
        "accuracy": after.accuracy,
        "strict_accuracy": after.strict_accuracy,
        "baseline_accuracy": before.accuracy,
        "field_accuracy": after.field_accuracy(),
        "baseline_field_accuracy": before.field_accuracy(),
        **cost_figures(tel.calls, tel.tokens, tel.records_seen, len(result.functions)),
        "calls_per_1k_file": tel.calls / len(gen_records) * 1000 if gen_records else 0.0,
        "options": parse_options(args.option),
        "chunks_processed": tel.chunks_done,
        "stopped_early": getattr(result, "stopped_early", False),
        "prompt_cache": _prompt_cache_stats(model),
        "wall_seconds": time.perf_counter() - wall_started,
    }
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
    return summary


def _prompt_cache_stats(model: Any) -> dict[str, Any] | None:
    try:
        return model.prompt_cache_stats() if PROMPT_CACHE in capabilities_of(model) else None
    except Exception:  # noqa: BLE001 - a wrapped backend without it
        return None


def print_report(s: dict[str, Any]) -> None:
    """The human-readable table (everything but the last line)."""
    print(
        f"records          {s['records']} ({s['generation_records']} seen by the generator, chunk "
        f"size {s['chunk_size']})"
    )
    print(f"functions        {len(s['functions'])} ({', '.join(s['functions']) or 'none'})")
    print(
        f"records kept     {s['records_kept']} of {s['records']} after {s['cross_row_steps']} "
        "cross-row step(s)"
    )
    print(
        f"llm calls        {s['calls']} ({s['parse_errors']} parse errors, "
        f"{s['validation_failures']} rejected functions, "
        f"{s.get('not_clean', 0)} 'clean' replies overruled)"
    )
    print(f"tokens           {s['prompt_tokens']} prompt + {s['completion_tokens']} completion")
    print(
        f"prompt per call  {s['prompt_tokens_per_call']:.0f} tokens, {100 * s['cache_share']:.0f}% "
        "reused from the server's cache"
    )
    pc = s.get("prompt_cache")
    if pc:
        print(
            f"prompt cache     {pc['restored_tokens']} tokens restored from disk, "
            f"{pc['saved_tokens']} saved "
            f"({pc['folder']}){'; ' + '; '.join(pc['failures']) if pc['failures'] else ''}"
        )
    print(f"sec per call     {s['sec_per_call']:.2f}")
    spf = s["sec_per_function"]
    print(
        f"sec per function {'n/a' if spf is None else f'{spf:.1f}'} (generation seconds / accepted "
        "functions)"
    )
    print(
        f"seconds          {s['generation_seconds']:.1f} generation + {s['apply_seconds']:.1f} "
        "apply"
    )
    print(
        f"accuracy         {fmt(s['accuracy'])} (untouched file: {fmt(s['baseline_accuracy'])}; "
        f"type-strict: {fmt(s['strict_accuracy'])})"
    )
    print(
        f"not cleaned      {s['records_failed_apply']} records (clean_data raised; kept as they "
        "were)"
    )
    print("field            before   after")
    for key, value in s["field_accuracy"].items():
        print(f"  {key:<14} {fmt(s['baseline_field_accuracy'][key])}   {fmt(value)}")
    print(
        f"cost             calls_per_1k={s['calls_per_1k']:.1f} "
        f"tokens_per_function={s['tokens_per_function']:.0f} "
        f"(per 1000 records of the file: {s.get('calls_per_1k_file', 0.0):.1f} calls; "
        f"{s.get('chunks_processed', 0)} chunks "
        f"read{', stopped early' if s.get('stopped_early') else ''})"
    )


_FORWARDED = (
    "backend",
    "data",
    "truth",
    "instructions",
    "chunk_size",
    "max_chunks",
    "records",
    "max_iterations",
)


def baseline_checkout(ref: str, out: str) -> str:
    """The folder to run the baseline in: ``ref`` itself if it is a folder, else a worktree of that
    commit."""
    import subprocess

    if os.path.isdir(ref):
        return os.path.abspath(ref)
    commit = subprocess.run(
        ["git", "-C", ROOT, "rev-parse", "--verify", f"{ref}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    folder = os.path.join(os.path.abspath(out), "baseline-src", commit[:12])
    if not os.path.isdir(folder):
        subprocess.run(
            ["git", "-C", ROOT, "worktree", "add", "--detach", folder, commit],
            check=True,
            capture_output=True,
            text=True,
        )
    link = os.path.join(folder, "recursive_cleaner", "backends")
    if os.path.isdir(os.path.join(folder, "backends")) and not os.path.exists(link):
        os.symlink("../backends", link)  # as the installed package maps it (package-dir)
    return folder


def run_in_process(
    args: argparse.Namespace,
    folder: str,
    name: str,
    *,
    instructions: str | None = None,
    cache_folder: str | None = None,
) -> dict[str, Any]:
    """The same benchmark in a new process, from the checkout ``folder``, into OUT/``name``; its
    summary.json."""
    import subprocess

    out = os.path.join(os.path.abspath(args.out), name)
    cmd = [sys.executable, os.path.join(folder, "bench", "real_model.py"), "--out", out]
    for key in _FORWARDED:
        value = (
            instructions
            if key == "instructions" and instructions is not None
            else getattr(args, key)
        )
        if value is not None:
            cmd += [
                f"--{key.replace('_', '-')}",
                os.path.abspath(value) if key in ("data", "truth") else str(value),
            ]
    for pair in args.option or ():
        cmd += ["--option", pair]
    if args.quiet:
        cmd.append("--quiet")
    if cache_folder is not None:
        cmd += ["--prompt-cache", cache_folder]
    env = dict(os.environ)
    if cache_folder is not None:
        env[PROMPT_CACHE_ENV] = cache_folder  # older checkouts read only the variable
    started = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=folder, env=env)
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    # older scripts did not time the whole run
    summary.setdefault("wall_seconds", time.perf_counter() - started)
    summary["checkout"] = folder
    return summary


def run_baseline(args: argparse.Namespace) -> dict[str, Any]:
    """The same benchmark in the baseline checkout (its own code and defaults); its summary.json."""
    folder = baseline_checkout(args.baseline, args.out)
    print(f"real_model: baseline at {folder}", file=sys.stderr, flush=True)
    return run_in_process(args, folder, "baseline")


def _commit(folder: str) -> str:
    import subprocess

    done = subprocess.run(
        ["git", "-C", folder, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "-C", folder, "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return (done.stdout.strip() or "?") + ("+changes" if dirty else "")


def print_side_by_side(rows: list[tuple[str, dict[str, Any]]]) -> None:
    """One row per run: the acceptance figures of issue 18."""
    width = max(26, *(len(label) for label, _ in rows))
    print(
        f"{'run':<{width}} {'wall s':>7} {'gen s':>7} {'calls':>5} {'parse fail':>11} {'cache':>6} "
        f"{'accuracy':>8}"
    )
    for label, s in rows:
        fails = f"{s.get('parse_errors', 0)} ({100 * s.get('parse_fail_rate', 0):.0f}%)"
        print(
            f"{label:<{width}} {s.get('wall_seconds', 0):>7.1f} {s['generation_seconds']:>7.1f} "
            f"{s['calls']:>5} "
            f"{fails:>11} {100 * s.get('cache_share', 0):>5.0f}% {fmt(s['accuracy']):>8}"
        )


def main(argv: Sequence[str] | None = None, backend: Any = None) -> int:
    """Run the benchmark; ``backend`` (an object) overrides --backend, for tests."""
    args = parser().parse_args(argv)
    rows = []
    if args.baseline:
        before = run_baseline(args)
        rows.append((f"baseline {_commit(before['checkout'])}", before))
    with prompt_cache(args.out, args.prompt_cache) as cache:
        return _main(args, backend, rows, cache)


def _main(args: argparse.Namespace, backend: Any, rows: list, cache: str) -> int:
    label = (
        "prompt cache cold"
        if not (args.prompt_cache or args.warm_with)
        else "prompt cache as given"
    )
    if args.warm_with:
        print(
            "real_model: filling the prompt cache with another job (not measured)",
            file=sys.stderr,
            flush=True,
        )
        other = run_in_process(
            args, ROOT, "warm-with", instructions=args.warm_with, cache_folder=cache
        )
        rows.append((f"this {_commit(ROOT)}, another job first", other))
        label = "after another job"
    s = run(args, backend)
    print_report(s)
    rows.append((f"this {_commit(ROOT)}, {label}", s))
    if args.again:
        again = run_in_process(args, ROOT, "again", cache_folder=cache)
        rows.append((f"this {_commit(ROOT)}, the same again", again))
    if len(rows) > 1:
        print_side_by_side(rows)
    print(
        f"real_model calls={s['calls']} prompt_tokens={s['prompt_tokens']} "
        f"completion_tokens={s['completion_tokens']} "
        f"parse_fail_rate={fmt(s['parse_fail_rate'])} sec_per_call={s['sec_per_call']:.2f} "
        f"cache_share={fmt(s['cache_share'])} accuracy={fmt(s['accuracy'])} "
        f"records_kept={s['records_kept']}/{s['records']} wall_seconds={s['wall_seconds']:.1f} "
        f"parse_errors={s['parse_errors']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
