"""Each function must give, in the assembled cleaning_functions.py, the outputs it was accepted
with.

A function is validated alone, in its own sandbox; in the written file it shares one namespace
(and one process) with every other function. When accepted, a few of its (input, output) pairs
are kept with it (``pick_examples``, in the function's dict under ``"examples"`` and in the state
file). ``example_mismatches`` calls every function by name inside the assembled file, in the
sandbox, on its examples (all of them twice, in one call: the sandbox puts module state back
between calls, so within that call state one function leaves behind reaches the others' second
round, as it would within one record) and says which functions now give other outputs.
``write.module.write_output`` uses it to leave out a function that changes what the others
return.
"""

from __future__ import annotations

import json

from ..errors import clip_text
from .sandbox import run_in_sandbox

__all__ = ["EXAMPLES_KEY", "pick_examples", "example_mismatches", "fill_examples"]

EXAMPLES_KEY = "examples"
_MAX_EXAMPLES = 6
_BUDGET_CHARS = 16_000  # per function, in the state file
_CHECK = "_rc_assembly_check"
_DISPATCH = """


# ---- appended by recursive_cleaner.judge.assembly to check the assembled file (not written) ----
_RC_ASSEMBLY_FUNCTIONS = {{{table}}}


def _rc_assembly_check(batch):
    answers = []
    for item in batch["items"]:
        try:
            answers.append({{"output": _RC_ASSEMBLY_FUNCTIONS[item["name"]](item["input"])}})
        except Exception as exc:
            answers.append({{"error": (type(exc).__name__ + ": " + str(exc))[:300]}})
    return {{"answers": answers}}
"""


def _text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def pick_examples(
    inputs: list,
    outputs: list,
    errors: list | None = None,
    *,
    limit: int = _MAX_EXAMPLES,
    budget: int = _BUDGET_CHARS,
) -> list[dict]:
    """Up to ``limit`` {"input", "output"} pairs, records the function changed first, within
    ``budget`` characters."""
    errors = errors if errors is not None else [None] * len(inputs)
    pairs = [(i, o) for i, o, e in zip(inputs, outputs, errors) if e is None]
    ordered = [p for p in pairs if _text(p[0]) != _text(p[1])] + [
        p for p in pairs if _text(p[0]) == _text(p[1])
    ]
    chosen, used = [], 0
    for inp, out in ordered:
        size = len(_text(inp)) + len(_text(out))
        if size > budget - used:
            continue
        chosen.append({"input": inp, "output": out})
        used += size
        if len(chosen) >= limit:
            break
    return chosen


def example_mismatches(
    source: str, functions: list[dict], *, timeout: float = 10.0, rounds: int = 2
) -> dict[str, str]:
    """{function name: how its outputs in ``source`` differ from its examples}; "" names a failure
    of the whole run."""
    # a name is written into the dispatch table as code: only a Python name
    checked = [f for f in functions if f.get(EXAMPLES_KEY) and str(f["name"]).isidentifier()]
    items, expected = [], []
    for _ in range(rounds):
        for f in checked:
            for example in f[EXAMPLES_KEY]:
                items.append({"name": f["name"], "input": example["input"]})
                expected.append(example["output"])
    if not items:
        return {}
    table = ", ".join(f"{f['name']!r}: {f['name']}" for f in checked)
    code = source.rstrip("\n") + _DISPATCH.format(table=table)
    # each function ran on its examples (and more) within ``timeout`` when accepted; here all run,
    # twice
    # one call for all of them: the sandbox puts module state back before each call (record), so
    # this is where state one function leaves behind reaches the others, as within a record
    res = run_in_sandbox(
        code, _CHECK, [{"items": items}], timeout=min(timeout * rounds * len(checked), 600.0)
    )
    answers = res.outputs[0].get("answers") if res.ok and isinstance(res.outputs[0], dict) else None
    if not isinstance(answers, list) or len(answers) != len(items):
        return {
            "": res.error
            or "; ".join(res.violations[:3])
            or (res.errors[0] if res.errors else None)
            or "the assembled file failed in the sandbox"
        }
    found: dict[str, str] = {}
    for item, want, got in zip(items, expected, answers):
        name = item["name"]
        if name in found:
            continue
        err = got.get("error") if isinstance(got, dict) else None
        if err is not None:
            found[name] = f"it now fails with {clip_text(str(err), 300)} on {_short(item['input'])}"
        elif not isinstance(got, dict) or _text(got.get("output")) != _text(want):
            now = got.get("output") if isinstance(got, dict) else got
            found[name] = (
                f"on {_short(item['input'])} it returned {_short(want)} when accepted, now "
                f"{_short(now)}"
            )
    return found


def fill_examples(functions: list[dict], records: list, *, timeout: float = 10.0) -> list[dict]:
    """``functions`` with examples for those that have none (merged or restored ones): each run
    alone on ``records``."""
    out = []
    for f in functions:
        if f.get(EXAMPLES_KEY) or not records:
            out.append(f)
            continue
        res = run_in_sandbox(f["code"], f["name"], records, timeout=timeout)
        examples = pick_examples(records, res.outputs, res.errors) if res.ok else []
        out.append({**f, EXAMPLES_KEY: examples} if examples else f)
    return out


def _short(value: object, limit: int = 120) -> str:
    text = _text(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
