"""Judge a generated cleaning function: the AST policy (``policy``) first, then a sandboxed run on
sample records.

The error messages produced here go verbatim into the next prompt, so each one says
what is wrong, where (line or record index) and what to do instead.
"""

from __future__ import annotations

import ast
import json
import time
from dataclasses import dataclass, field

from .policy import ALLOWED_IMPORTS, check_code_safety
from .sandbox import SandboxResult, run_in_sandbox

__all__ = [
    "ALLOWED_IMPORTS",
    "ValidationReport",
    "check_code_safety",
    "validate_function",
    "validate_function_detailed",
]


@dataclass
class ValidationReport:
    """The verdict on one candidate function, with the sandbox outputs for inspection."""

    ok: bool
    error: str | None
    outputs: list = field(default_factory=list)
    changed: int = 0
    duration_s: float = 0.0
    errors: list = field(default_factory=list)
    violations: list = field(default_factory=list)


def _signature_problem(code: str, function_name: str) -> str | None:
    """Check that `function_name` is a module-level def taking exactly one positional argument."""
    tree = ast.parse(code)
    defs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    if function_name not in defs:
        found = ", ".join(sorted(defs)) or "none"
        return (
            f"The code must define `def {function_name}(record):` at module level "
            f"(functions defined: {found})."
        )
    args = defs[function_name].args
    positional = [*args.posonlyargs, *args.args]
    required = len(positional) - len(args.defaults)
    if required > 1 or (not positional and args.vararg is None):
        return (
            f"`{function_name}` must take exactly one argument (the record), like `def "
            f"{function_name}(record):`."
        )
    return None


def validate_function(
    code: str,
    sample_data: list,
    function_name: str,
    *,
    expect: type = dict,
    timeout: float = 10.0,
    memory_mb: int = 512,
) -> tuple[bool, str | None]:
    """Return (True, None) if the function is safe and works on every sample record, else (False,
    message)."""
    report = validate_function_detailed(
        code, sample_data, function_name, expect=expect, timeout=timeout, memory_mb=memory_mb
    )
    return report.ok, report.error


def validate_function_detailed(
    code: str,
    sample_data: list,
    function_name: str,
    *,
    expect: type = dict,
    timeout: float = 10.0,
    memory_mb: int = 512,
) -> ValidationReport:
    """Apply the AST policy, run the function on `sample_data` in the sandbox and judge every
    output."""
    started = time.monotonic()
    problems = check_code_safety(code)
    if problems:
        shown = " ".join(problems[:5]) + (
            f" (and {len(problems) - 5} more problems)" if len(problems) > 5 else ""
        )
        error = f"The code breaks the safety policy: {shown}"
        return ValidationReport(False, error, duration_s=time.monotonic() - started)
    problem = _signature_problem(code, function_name)
    if problem:
        return ValidationReport(False, problem, duration_s=time.monotonic() - started)
    result = run_in_sandbox(code, function_name, sample_data, timeout=timeout, memory_mb=memory_mb)
    error = _run_problem(result, timeout) or _record_problem(result, sample_data, expect)
    changed = sum(
        1
        for rec, out, err in zip(sample_data, result.outputs, result.errors)
        if err is None and out != _json_roundtrip(rec)
    )
    return ValidationReport(
        ok=error is None,
        error=error,
        outputs=result.outputs,
        changed=changed,
        duration_s=time.monotonic() - started,
        errors=result.errors,
        violations=result.violations,
    )


def _run_problem(result: SandboxResult, timeout: float) -> str | None:
    if result.violations:
        listed = "; ".join(dict.fromkeys(result.violations[:3]))
        return (
            f"The function attempted a forbidden operation: {listed}. Cleaning functions must be "
            "pure: "
            "no files, network, processes, imports outside the allowed list, or introspection."
        )
    if result.error is None:
        return None
    if result.error.startswith("timed out"):
        return (
            f"Running the function on the sample records took longer than {timeout}s; "
            "remove unbounded loops and slow algorithms."
        )
    if result.error.startswith("memory limit"):
        return (
            f"The function used too much memory ({result.error}); avoid building huge strings or "
            "lists."
        )
    if result.error.startswith(("killed by", "CPU time")):
        return f"The function was stopped: {result.error}."
    return f"The code failed to load: {result.error}"


def _record_problem(result: SandboxResult, sample_data: list, expect: type) -> str | None:
    failures = []
    for index, (record, output, err) in enumerate(zip(sample_data, result.outputs, result.errors)):
        if err is not None:
            failures.append(f"Record {index} failed with {err}. Input: {_short(record)}")
        elif not isinstance(output, expect):
            failures.append(
                f"Record {index}: {_wrong_type(output, expect)} Input: {_short(record)}"
            )
    if not failures:
        return None
    more = f" ({len(failures)} of {len(sample_data)} records failed.)" if len(failures) > 1 else ""
    return " ".join(failures[:2]) + more


def _wrong_type(output: object, expect: type) -> str:
    what = "the cleaned record as a dict" if expect is dict else f"the cleaned {expect.__name__}"
    if output is None:
        return f"the function returned None (a missing return statement?); it must return {what}."
    return f"the function returned a {type(output).__name__}; it must return {what}."


def _short(value: object, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_roundtrip(value: object) -> object:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return value
