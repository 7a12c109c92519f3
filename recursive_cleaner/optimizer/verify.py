"""May a merged function replace its originals: safe code, no name clash, the same output."""

from __future__ import annotations

import ast
import json
from typing import Iterable

from ..errors import SandboxError
from ..write.module import render_module
from ..write.names import name_problems
from ..judge.sandbox import run_in_sandbox
from ..judge.validation import check_code_safety

__all__ = ["verify_merge", "compare_pipelines", "defined_names"]


def defined_names(function: dict) -> set[str]:
    """Top-level names a function's code defines (its own name when the code does not parse)."""
    try:
        tree = ast.parse(function.get("code") or "")
    except (SyntaxError, ValueError):
        return {function.get("name", "")}
    names = {function.get("name", "")}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names - {""}


def _short(value: object, limit: int = 160) -> str:
    text = (
        json.dumps(value, ensure_ascii=False, default=str)
        if not isinstance(value, str)
        else repr(value)
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _outcome(res, i: int) -> tuple:
    return (res.outputs[i], res.errors[i] is None)


def compare_pipelines(
    before: list[dict],
    after: list[dict],
    records: list | None,
    *,
    timeout: float = 10.0,
    mode: str = "structured",
) -> str | None:
    """None when ``after`` cleans every record as ``before`` does (both run in the sandbox), else
    why not."""
    if not records:
        return "there are no sample records to check it against"
    try:
        ref = run_in_sandbox(
            render_module(before, mode=mode), "clean_data", records, timeout=timeout
        )
        if not ref.ok:
            return (
                "the original functions cannot run on the sample records "
                f"({ref.error or '; '.join(ref.violations)})"
            )
        new = run_in_sandbox(
            render_module(after, mode=mode), "clean_data", records, timeout=timeout
        )
    except (SandboxError, SyntaxError, TypeError) as exc:
        return f"the sandbox could not compare them: {exc}"
    if not new.ok:
        return f"it fails in the sandbox: {new.error or '; '.join(new.violations)}"
    diffs = [i for i in range(len(records)) if _outcome(ref, i) != _outcome(new, i)]
    if not diffs:
        return None
    i = diffs[0]
    expected = ref.outputs[i] if ref.errors[i] is None else f"error {ref.errors[i]}"
    got = new.outputs[i] if new.errors[i] is None else f"error {new.errors[i]}"
    return (
        f"its output differs on {len(diffs)} of {len(records)} sample records "
        f"(record {i}: expected {_short(expected)}, got {_short(got)})"
    )


def verify_merge(
    merged: dict,
    originals: list[dict],
    records: list | None,
    *,
    reserved_names: Iterable[str] = (),
    timeout: float = 10.0,
    mode: str = "structured",
) -> str | None:
    """None when ``merged`` may replace ``originals``: safe code, no name clash, same outputs on
    ``records``."""
    problems = check_code_safety(merged.get("code") or "") or name_problems(
        merged.get("code") or ""
    )
    if problems:
        return "its code breaks the safety policy: " + " ".join(problems[:3])
    clash = sorted(defined_names(merged) & set(reserved_names))
    if clash:
        return f"it defines {', '.join(clash)}, which another function already defines"
    return compare_pipelines(originals, [merged], records, timeout=timeout, mode=mode)
