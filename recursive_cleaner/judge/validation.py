"""Judge a generated cleaning function: a static AST policy first, then a sandboxed run on sample records.

The error messages produced here go verbatim into the next prompt, so each one says
what is wrong, where (line or record index) and what to do instead.
"""

from __future__ import annotations

import ast
import json
import re
import time
from dataclasses import dataclass, field

from ._child import ALLOWED_MODULES, TOOLKIT
from .sandbox import SandboxResult, run_in_sandbox
from ..toolkit import PRIMITIVES

__all__ = [
    "ALLOWED_IMPORTS",
    "ValidationReport",
    "check_code_safety",
    "validate_function",
    "validate_function_detailed",
]

ALLOWED_IMPORTS: frozenset[str] = ALLOWED_MODULES
"""Modules generated code may import (``import a.b`` needs ``a.b`` itself in the set).

The toolkit is imported as ``from recursive_cleaner.toolkit import ...`` or
``import recursive_cleaner.toolkit as tk``; the bare package ``recursive_cleaner`` is refused.
"""
_TOOLKIT_HINT = f"write `from {TOOLKIT} import <names>` or `import {TOOLKIT} as tk`"

FORBIDDEN_NAMES = frozenset(
    {
        "eval", "exec", "compile", "open", "__import__", "globals", "locals", "vars", "getattr",
        "setattr", "delattr", "breakpoint", "input", "exit", "quit", "help", "memoryview",
    }
)
RESTRICTED_ATTRS = frozenset(
    {
        "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "f_trace", "f_lasti", "f_lineno",
        "co_code", "co_consts", "co_names", "co_varnames", "co_filename", "co_freevars", "co_cellvars",
        "co_lines", "co_positions", "co_lnotab", "co_linetable", "gi_frame", "gi_code", "gi_yieldfrom",
        "cr_frame", "cr_code", "cr_await", "ag_frame", "ag_code", "ag_await", "tb_frame", "tb_next",
        "cell_contents", "mro",
    }
)
_DUNDER = re.compile(r"^__\w+__$")
_DUNDER_IN_TEXT = re.compile(r"__[A-Za-z]\w*__")
_UPPER = re.compile(r"^[A-Z][A-Z0-9_]*$")
_CALLS_AT_DEF_TIME = (ast.Call, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                      ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)
_MODULE_LEVEL_HINT = ("the module level may only hold imports, function definitions, a docstring "
                      "and UPPER_CASE constants set to literal values")


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


def check_code_safety(code: str) -> list[str]:
    """Return the AST policy problems of `code`, one actionable sentence each; [] when it is acceptable."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return [f"Line {exc.lineno}: SyntaxError: {exc.msg}."]
    except ValueError as exc:  # e.g. null bytes
        return [f"The code cannot be parsed: {exc}."]
    except (RecursionError, MemoryError):  # Python's parser gives up on deeply nested code
        return ["The code is nested too deeply to parse; write plain statements."]
    problems: list[str] = []
    for stmt in tree.body:
        problem = _module_statement_problem(stmt)
        if problem:
            problems.append(f"Line {stmt.lineno}: {problem}.")
    for node in ast.walk(tree):
        problem = _node_problem(node)
        if problem:
            problems.append(f"Line {getattr(node, 'lineno', '?')}: {problem}.")
    return list(dict.fromkeys(problems))


def _module_statement_problem(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
        return None  # checked by _node_problem wherever they appear
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
        return None
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if len(names) != len(targets) or not all(_UPPER.match(n) for n in names):
            return f"module-level assignments must be to UPPER_CASE constant names; {_MODULE_LEVEL_HINT}"
        if stmt.value is None or not _is_constant_value(stmt.value):
            return (f"module-level constant {names[0]} must be a literal (str, number, tuple, list, dict, set) "
                    "or re.compile(<literal>); compute anything else inside the function")
        return None
    if isinstance(stmt, ast.If) and "__name__" in {n.id for n in ast.walk(stmt.test) if isinstance(n, ast.Name)}:
        return 'remove the `if __name__ == "__main__":` block; the code must only define functions'
    if isinstance(stmt, ast.Expr):
        return f"top-level expressions and calls are not allowed; {_MODULE_LEVEL_HINT}"
    return f"a top-level `{type(stmt).__name__.lower()}` statement is not allowed; {_MODULE_LEVEL_HINT}"


def _node_problem(node: ast.AST) -> str | None:
    if isinstance(node, ast.Import):
        bad = [a.name for a in node.names if a.name not in ALLOWED_IMPORTS]
        if any(a.name == TOOLKIT and a.asname is None for a in node.names):
            return f"`import {TOOLKIT}` without `as` binds the whole library; {_TOOLKIT_HINT}"
        return _import_problem(bad[0]) if bad else None
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return "relative imports are not allowed"
        if node.module not in ALLOWED_IMPORTS:
            return _import_problem(node.module or "")
        if any(a.name == "*" for a in node.names):
            return f"`from {node.module} import *` is not allowed; import the names you use explicitly"
        unknown = [a.name for a in node.names if node.module == TOOLKIT and a.name not in PRIMITIVES]
        if unknown:
            return f"`{TOOLKIT}` has no `{unknown[0]}`; its helpers are: {', '.join(PRIMITIVES)}"
        return None
    if isinstance(node, ast.ClassDef):
        return f"class definitions (`class {node.name}`) are not allowed; use plain functions, dicts and tuples"
    if isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)):
        return "async code is not allowed; write a plain synchronous function"
    if isinstance(node, ast.FunctionDef) and node.decorator_list:
        return f"decorators are not allowed (on `{node.name}`); call helpers explicitly instead"
    if isinstance(node, (ast.FunctionDef, ast.Lambda)):
        args = node.args
        evaluated = [*args.defaults, *[d for d in args.kw_defaults if d is not None]]
        if isinstance(node, ast.FunctionDef):
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            evaluated += [a.annotation for a in every if a is not None and a.annotation is not None]
            evaluated += [node.returns] if node.returns is not None else []
        for expr in evaluated:
            if any(isinstance(sub, _CALLS_AT_DEF_TIME) for sub in ast.walk(expr)):
                return "default argument values and annotations must not call anything; use literals or None"
        return None
    if isinstance(node, ast.Name):
        if node.id in FORBIDDEN_NAMES:
            return f"`{node.id}` is not allowed in cleaning code; work on the record directly"
        if _DUNDER.match(node.id):
            return f"the name `{node.id}` is not allowed (no double-underscore names)"
        return None
    if isinstance(node, ast.Attribute):
        if _DUNDER.match(node.attr):
            return f"access to the double-underscore attribute `.{node.attr}` is not allowed"
        if node.attr in RESTRICTED_ATTRS:
            return f"access to interpreter internals (`.{node.attr}`) is not allowed"
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        found = _DUNDER_IN_TEXT.search(node.value)
        if found:
            return (f"string literals naming double-underscore attributes ({found.group()!r}) are not allowed; "
                    "pick a sentinel or key without double underscores")
    return None


def _import_problem(module: str) -> str:
    package = TOOLKIT.partition(".")[0]
    if module == package or module.startswith(package + "."):
        return f"import of '{module}' is not allowed; only the toolkit may be imported from it: {_TOOLKIT_HINT}"
    allowed = ", ".join(sorted(ALLOWED_IMPORTS))
    return f"import of '{module}' is not allowed; only these modules may be imported: {allowed}"


def _is_constant_value(node: ast.expr) -> bool:
    """A literal, frozenset/set/tuple of a literal, or re.compile(<literal>[, re.FLAGS])."""
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple"):
        return not node.keywords and len(node.args) <= 1 and all(_is_constant_value(a) for a in node.args)
    if _is_re_compile(node.func):
        flags = node.args[1:] + [k.value for k in node.keywords]
        return (
            1 <= len(node.args) <= 2
            and all(k.arg == "flags" for k in node.keywords)
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, (str, bytes))
            and all(_is_re_flags(f) for f in flags)
        )
    return False


def _is_re_compile(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "compile"
            and isinstance(func.value, ast.Name) and func.value.id == "re")


def _is_re_flags(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_re_flags(node.left) and _is_re_flags(node.right)
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "re" and node.attr.isupper())


def _signature_problem(code: str, function_name: str) -> str | None:
    """Check that `function_name` is a module-level def taking exactly one positional argument."""
    tree = ast.parse(code)
    defs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    if function_name not in defs:
        found = ", ".join(sorted(defs)) or "none"
        return (f"The code must define `def {function_name}(record):` at module level "
                f"(functions defined: {found}).")
    args = defs[function_name].args
    positional = [*args.posonlyargs, *args.args]
    required = len(positional) - len(args.defaults)
    if required > 1 or (not positional and args.vararg is None):
        return f"`{function_name}` must take exactly one argument (the record), like `def {function_name}(record):`."
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
    """Return (True, None) if the function is safe and works on every sample record, else (False, message)."""
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
    """Apply the AST policy, run the function on `sample_data` in the sandbox and judge every output."""
    started = time.monotonic()
    problems = check_code_safety(code)
    if problems:
        shown = " ".join(problems[:5]) + (f" (and {len(problems) - 5} more problems)" if len(problems) > 5 else "")
        error = f"The code breaks the safety policy: {shown}"
        return ValidationReport(False, error, duration_s=time.monotonic() - started)
    problem = _signature_problem(code, function_name)
    if problem:
        return ValidationReport(False, problem, duration_s=time.monotonic() - started)
    result = run_in_sandbox(code, function_name, sample_data, timeout=timeout, memory_mb=memory_mb)
    error = _run_problem(result, timeout) or _record_problem(result, sample_data, expect)
    changed = sum(
        1 for rec, out, err in zip(sample_data, result.outputs, result.errors)
        if err is None and out != _json_roundtrip(rec)
    )
    return ValidationReport(
        ok=error is None, error=error, outputs=result.outputs, changed=changed,
        duration_s=time.monotonic() - started, errors=result.errors, violations=result.violations,
    )


def _run_problem(result: SandboxResult, timeout: float) -> str | None:
    if result.violations:
        listed = "; ".join(dict.fromkeys(result.violations[:3]))
        return (f"The function attempted a forbidden operation: {listed}. Cleaning functions must be pure: "
                "no files, network, processes, imports outside the allowed list, or introspection.")
    if result.error is None:
        return None
    if result.error.startswith("timed out"):
        return (f"Running the function on the sample records took longer than {timeout}s; "
                "remove unbounded loops and slow algorithms.")
    if result.error.startswith("memory limit"):
        return f"The function used too much memory ({result.error}); avoid building huge strings or lists."
    if result.error.startswith(("killed by", "CPU time")):
        return f"The function was stopped: {result.error}."
    return f"The code failed to load: {result.error}"


def _record_problem(result: SandboxResult, sample_data: list, expect: type) -> str | None:
    failures = []
    for index, (record, output, err) in enumerate(zip(sample_data, result.outputs, result.errors)):
        if err is not None:
            failures.append(f"Record {index} failed with {err}. Input: {_short(record)}")
        elif not isinstance(output, expect):
            failures.append(f"Record {index}: {_wrong_type(output, expect)} Input: {_short(record)}")
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
