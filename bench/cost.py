"""Cost of the CRM run: LLM calls per 1000 records and tokens per accepted function.

calls_per_1k = LLM calls / records the generator walked through * 1000;
tokens_per_function = (prompt + completion tokens) / max(1, accepted functions).
By default it runs the same pipeline as bench/real_model.py (same options); with
``--from-summary [PATH]`` it reads the summary.json a real_model.py run wrote instead
(default bench/out/real_model/summary.json), so one slow run serves both. The last line:

    cost calls_per_1k=X tokens_per_function=X
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import real_model  # noqa: E402


def main(argv: Sequence[str] | None = None, backend: Any = None) -> int:
    """Run (or read) the CRM pipeline and print the cost figures; ``backend`` overrides --backend,
    for tests."""
    p = real_model.parser(__doc__.split("\n\n")[0])
    p.add_argument(
        "--from-summary",
        nargs="?",
        const=os.path.join(real_model.DEFAULT_OUT, "summary.json"),
        metavar="PATH",
        help="read a real_model.py summary.json instead of running the model",
    )
    args = p.parse_args(argv)
    if args.from_summary:
        with open(args.from_summary, encoding="utf-8") as f:
            s = json.load(f)
        print(f"summary          {args.from_summary}")
    else:
        s = real_model.run(args, backend)
    tokens = s["prompt_tokens"] + s["completion_tokens"]
    figures = real_model.cost_figures(
        s["calls"], tokens, s["generation_records"], len(s["functions"])
    )
    print(f"records          {s['generation_records']} processed by the generator")
    print(f"llm calls        {s['calls']}")
    print(
        f"tokens           {tokens} ({s['prompt_tokens']} prompt + {s['completion_tokens']} "
        "completion)"
    )
    print(f"functions        {len(s['functions'])} accepted")
    print(
        f"cost calls_per_1k={figures['calls_per_1k']:.1f} "
        f"tokens_per_function={figures['tokens_per_function']:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
