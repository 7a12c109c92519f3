"""Constrained vs unconstrained replies on the same prompts: parse rate, functions, tokens, seconds.

Reads the prompts a run logged (``bench/real_model.py`` writes OUT/calls.jsonl; any number of
files), keeps the field prompts, open passes and dry-run detections, and asks the backend each
one twice: held to the reply form's grammar (``recursive_cleaner.model.grammar``, what
``constrained=True`` sends) and plainly. Every reply goes through the library's parser
(``parse_response``) and, when it has a function, the AST policy (``check_code_safety``).
With ``--reuse`` the run's own reply stands for the mode it was made in (temperature 0, same
prompt), so only the other mode costs calls. Writes OUT/constrained.jsonl; the last line is:

    constrained prompts=N grammar_parse=X plain_parse=X grammar_functions=N plain_functions=N ...
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from typing import Any, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from recursive_cleaner.model.capabilities import USAGE, capabilities_of  # noqa: E402

_FIELD_NAME = re.compile(r"Write ONE function named ([A-Za-z_][A-Za-z0-9_]*)\((record|text)\)")


def reply_form(prompt: str) -> tuple[str, str | None]:
    """(kind, GBNF) of the reply a prompt asks for: field, open or detect; (other, None) for other
    calls."""
    from recursive_cleaner.model import grammar

    task = prompt[prompt.rfind("=== TASK ===") :]
    match = _FIELD_NAME.search(task)
    if match:
        return "field", grammar.field_reply(match.group(1), match.group(2)).gbnf()
    param = "text" if "=== DATA (text)" in prompt else "record"
    if "This is an analysis only" in task:
        return "detect", grammar.detect_reply().gbnf()
    if "List EVERY data quality issue" in task:
        return "open", grammar.open_reply(param).gbnf()
    return "other", None


def judge(reply: str, kind: str) -> dict[str, Any]:
    """What the loop would make of a reply: parsed or the parser's complaint; a function, and is it
    safe."""
    from recursive_cleaner.errors import ParseError
    from recursive_cleaner.judge.policy import check_code_safety
    from recursive_cleaner.model.response import parse_issues, parse_response

    if kind == "detect":
        return {"parsed": bool(parse_issues(reply)), "function": False, "safe": None, "error": ""}
    try:
        parsed = parse_response(reply)
    except ParseError as exc:
        return {"parsed": False, "function": False, "safe": None, "error": str(exc)[:200]}
    safe = not check_code_safety(parsed.code) if parsed.has_function else None
    return {"parsed": True, "function": parsed.has_function, "safe": safe, "error": ""}


def ask(backend: Any, prompt: str, gbnf: str | None) -> dict[str, Any]:
    started = time.perf_counter()
    text = backend.generate_grammar(prompt, gbnf) if gbnf is not None else backend.generate(prompt)
    usage = (backend.last_usage if USAGE in capabilities_of(backend) else None) or {}
    return {
        "reply": text,
        "seconds": round(time.perf_counter() - started, 2),
        "completion_tokens": usage.get("completion_tokens"),
        "prompt_tokens": usage.get("prompt_tokens"),
        "cached_tokens": usage.get("cached_tokens"),
    }


def main(argv: Sequence[str] | None = None, backend: Any = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("calls", nargs="+", help="calls.jsonl files written by bench/real_model.py")
    p.add_argument("--backend", default="local", help="backend spec (default local)")
    p.add_argument("--limit", type=int, help="at most N prompts")
    p.add_argument(
        "--reuse", action="store_true", help="the logged reply stands for the mode it was made in"
    )
    p.add_argument("--out", default=os.path.join(HERE, "out", "constrained"), help="output folder")
    args = p.parse_args(argv)
    if backend is None:
        from recursive_cleaner.run.setup import resolve_backend

        backend = resolve_backend(args.backend)
    entries = []
    for path in args.calls:
        with open(path, encoding="utf-8") as f:
            entries.extend(json.loads(line) for line in f if line.strip())
    os.makedirs(args.out, exist_ok=True)
    rows = []
    with open(os.path.join(args.out, "constrained.jsonl"), "w", encoding="utf-8") as out:
        for entry in entries:
            kind, gbnf = reply_form(entry["prompt"])
            if gbnf is None:
                continue
            if args.limit is not None and len(rows) >= args.limit:
                break
            row: dict[str, Any] = {"kind": kind}
            for mode, held in (("grammar", gbnf), ("plain", None)):
                logged = (entry.get("held") == "grammar") == (held is not None)
                answer = (
                    {
                        "reply": entry["reply"],
                        "seconds": entry.get("seconds"),
                        "reused": True,
                        "completion_tokens": entry.get("completion_tokens"),
                    }
                    if args.reuse and logged
                    else ask(backend, entry["prompt"], held)
                )
                row[mode] = {**answer, **judge(answer["reply"], kind)}
            rows.append(row)
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            print(
                f"  {len(rows):3d} {kind:<6} grammar: {_short(row['grammar'])}  plain: "
                f"{_short(row['plain'])}",
                file=sys.stderr,
                flush=True,
            )
    print(summary_line(rows))
    return 0


def _short(r: dict) -> str:
    state = "ok" if r["parsed"] else "PARSE ERROR"
    return (
        f"{state:<11} fn={'y' if r['function'] else 'n'} {r.get('completion_tokens') or '?'} tok "
        f"{r.get('seconds') or 0:.0f} s"
    )


def summary_line(rows: list[dict]) -> str:
    def rate(mode: str) -> str:
        return f"{sum(r[mode]['parsed'] for r in rows)}/{len(rows)}"

    def count(mode: str, key: str) -> int:
        return sum(1 for r in rows if r[mode][key])

    def tokens(mode: str) -> int:
        return sum(r[mode].get("completion_tokens") or 0 for r in rows)

    return (
        f"constrained prompts={len(rows)} grammar_parse={rate('grammar')} "
        f"plain_parse={rate('plain')} "
        f"grammar_functions={count('grammar', 'function')} "
        f"plain_functions={count('plain', 'function')} "
        f"grammar_safe={count('grammar', 'safe')} plain_safe={count('plain', 'safe')} "
        f"grammar_completion_tokens={tokens('grammar')} plain_completion_tokens={tokens('plain')}"
    )


if __name__ == "__main__":
    sys.exit(main())
