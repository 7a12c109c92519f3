"""Measure the local backend: first-use join, load, a ~2k-token prompt with ~300 tokens out,
prefix reuse.

Run: ``python -m recursive_cleaner.backends.measure [--runtime xllamacpp|llama-cpp-python]
[--model 1.5b|0.5b|PATH]``.
Prints one JSON object; docs/backends.md quotes its numbers. The on-disk prompt cache is off
here (``prompt_cache=False``), so the first prompt is read cold whatever an earlier process saved.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .local import LocalBackend
from .model_files import EMBEDDED_MODELS, ensure_model

__all__ = ["cleaning_prompt", "measure", "main"]

_TASK = (
    "You are a data-cleaning engineer. Below are records from a messy customer file (JSON lines).\n"
    "Write ONE Python function `clean_record(record: dict) -> dict` that normalises phone numbers "
    "to E.164,\n"
    "dates to ISO 8601, trims and title-cases names, lower-cases emails, and maps country names to "
    "ISO codes.\n"
    "Explain every step in detail before the code, then give the code in a ```python block.\n\n"
)


def cleaning_prompt(records: int = 28, nonce: str = "") -> str:
    """A deterministic cleaner-like prompt: task, then ``records`` messy JSON lines (~45 tokens
    each)."""
    rows = []
    for i in range(records):
        rows.append(
            json.dumps(
                {
                    "id": i,
                    "name": [" alice SMITH", "Bob  jones ", "CHARLIE o'neil", "dana-lee ward"][
                        i % 4
                    ],
                    "email": f" User{i}@Example.COM ",
                    "phone": ["(555) 010-{:04d}", "+1 555 010 {:04d}", "555.010.{:04d}"][
                        i % 3
                    ].format(i),
                    "signup": ["03/0{}/2021", "2021-0{}-11", "{} March 2021"][i % 3].format(
                        1 + i % 9
                    ),
                    "country": ["usa", "U.S.", "United States", "Deutschland", "germany"][i % 5],
                }
            )
        )
    return (f"[run {nonce}]\n" if nonce else "") + _TASK + "\n".join(rows) + "\n"


def _timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def measure(
    model: str = "1.5b", runtime: str = "auto", n_ctx: int = 8192, max_tokens: int = 300
) -> dict[str, Any]:
    """Run the measurements and return them as a dict (seconds and tokens/second)."""
    out: dict[str, Any] = {
        "model": model,
        "runtime": runtime,
        "n_ctx": n_ctx,
        "cpus": os.cpu_count(),
    }
    if model in EMBEDDED_MODELS:
        with tempfile.TemporaryDirectory() as tmp:
            _, out["first_use_join_s"] = _timed(lambda: ensure_model(model, directory=tmp))
        ensure_model(model)
        _, out["reuse_check_s"] = _timed(lambda: ensure_model(model))
        backend = LocalBackend(
            embedded=model, n_ctx=n_ctx, max_tokens=1, runtime=runtime, prompt_cache=False
        )
    else:
        backend = LocalBackend(
            Path(model), n_ctx=n_ctx, max_tokens=1, runtime=runtime, prompt_cache=False
        )
    _, out["load_s"] = _timed(backend.load)
    out["runtime"] = backend.loaded_runtime.name if backend.loaded_runtime else runtime

    # 1. Prompt reading alone: a fresh ~2k-token prompt, one token out.
    _, took = _timed(lambda: backend.generate(cleaning_prompt(nonce="a")))
    usage = backend.last_usage or {}
    out["prompt_only"] = {
        "s": round(took, 2),
        **usage,
        "prompt_tok_per_s": round(usage["prompt_tokens"] / took, 1),
    }

    # 2. The full call: another fresh ~2k-token prompt, up to max_tokens out.
    backend.max_tokens = max_tokens
    _, took = _timed(lambda: backend.generate(cleaning_prompt(nonce="b")))
    usage = dict(backend.last_usage or {})
    gen_s = took - usage["prompt_tokens"] / out["prompt_only"]["prompt_tok_per_s"]
    out["full_call"] = {
        "s": round(took, 2),
        **usage,
        "generation_tok_per_s_est": round(usage["completion_tokens"] / gen_s, 1),
        "timings": backend.last_timings,
    }

    # 3. Same long prefix, a different ending: how much comes from the prompt cache.
    tail = "Also strip a trailing 'x123' extension from phone numbers.\n"
    _, took = _timed(lambda: backend.generate(cleaning_prompt(nonce="b") + tail))
    out["same_prefix_call"] = {
        "s": round(took, 2),
        **(backend.last_usage or {}),
        "timings": backend.last_timings,
    }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m recursive_cleaner.backends.measure", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--model", default="1.5b", help="1.5b, 0.5b or a GGUF path")
    parser.add_argument("--runtime", default="auto")
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=300)
    args = parser.parse_args(argv)
    json.dump(measure(args.model, args.runtime, args.n_ctx, args.max_tokens), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
