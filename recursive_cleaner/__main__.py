"""``python -m recursive_cleaner generate FILE``: the main job from a shell (a fuller CLI comes later)."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from .cleaner import DataCleaner
from .errors import CleanerError


def _instructions(value: str) -> str:
    """Inline text, or ``@path`` to read it from a file."""
    return Path(value[1:]).read_text(encoding="utf-8") if value.startswith("@") else value


class _Progress:
    """Plain progress lines on stderr, driven by the library's events."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def __call__(self, e: dict) -> None:
        t = f"[{time.monotonic() - self.start:6.0f}s]"
        kind = e["type"]
        if kind == "chunk_start":
            print(f"{t} chunk {e['chunk_index'] + 1}/{e['total_chunks']} ({e['records']} records)", file=sys.stderr)
        elif kind == "llm_call":
            toks = f", {e['prompt_tokens']}+{e['completion_tokens']} tokens" if e.get("prompt_tokens") else ""
            print(f"{t}   model replied in {e['latency_ms'] / 1000:.1f}s{toks}", file=sys.stderr)
        elif kind == "function_generated":
            print(f"{t}   + accepted {e['function_name']}", file=sys.stderr)
        elif kind == "validation_failed":
            print(f"{t}   - rejected {e['function_name']}: {e['error'][:120]}", file=sys.stderr)
        elif kind == "parse_error":
            print(f"{t}   - unusable reply: {e['error'][:120]}", file=sys.stderr)
        elif kind == "chunk_done":
            print(f"{t}   chunk {e['chunk_index'] + 1} {e['status']}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recursive_cleaner", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write cleaning_functions.py for FILE")
    gen.add_argument("file")
    gen.add_argument("-i", "--instructions", default="", help="cleaning goals, or @file to read them")
    gen.add_argument("-b", "--backend", default="local", help="backend string: local, openai:MODEL@URL, ollama:MODEL")
    gen.add_argument("--chunk-size", type=int, default=50)
    gen.add_argument("--max-iterations", type=int, default=5)
    gen.add_argument("-o", "--output", default="cleaning_functions.py")
    gen.add_argument("--state", default=None, help="state file to save progress to and resume from")
    gen.add_argument("--report", default="cleaning_report.md", help="markdown report path ('' for none)")
    gen.add_argument("--no-early-termination", dest="early_termination", action="store_false",
                     help="ask the model about every chunk, even when recent chunks taught nothing new")
    gen.add_argument("--debug", action="store_true", help="show tracebacks")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    try:
        cleaner = DataCleaner(args.backend, args.file, chunk_size=args.chunk_size,
                              instructions=_instructions(args.instructions), max_iterations=args.max_iterations,
                              state_file=args.state, on_progress=_Progress(), output_path=args.output,
                              report_path=args.report or None, early_termination=args.early_termination)
        result = cleaner.run()
    except (CleanerError, OSError, ValueError, ImportError) as exc:
        if args.debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted" + (f"; resume with --state {args.state}" if args.state else ""), file=sys.stderr)
        return 130
    llm = result.llm
    print(f"wrote {result.output_path}: {len(result.functions)} function(s) {', '.join(result.functions)}")
    print(f"chunks {result.chunks_processed}/{result.chunks_total}, skipped input lines {result.skipped_records}, "
          f"LLM calls {llm['calls']}, tokens {llm['prompt_tokens']}+{llm['completion_tokens']}")
    if result.report_path:
        print(f"report {result.report_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
