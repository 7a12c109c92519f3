"""What the model sees of prior work, within a character budget.

``build_context`` is the reference design's registry: names and docstrings, newest kept.
``build_rich_context`` shows prior work in full (signature and code, truncated per function)
so the model can reuse it instead of recreating it; when the budget runs out, older functions
fall back to their docstrings, then drop out.
"""

from __future__ import annotations

__all__ = ["build_context", "build_rich_context", "NO_FUNCTIONS", "REUSE_GUIDANCE"]

NO_FUNCTIONS = "(No functions generated yet)"
REUSE_GUIDANCE = (
    "Reuse, do not recreate: these functions already run before yours. To change one, send it "
    "again with the SAME name and the whole new code; it replaces the old one."
)


def build_context(functions: list[dict], max_chars: int = 8000) -> str:
    """The most recent functions' names and docstrings that fit in ``max_chars``, oldest first."""
    entries: list[str] = []
    used = 0
    for f in reversed(functions):
        entry = _brief(f)
        if used + len(entry) > max_chars:
            break
        entries.append(entry)
        used += len(entry)
    if not entries:
        return NO_FUNCTIONS
    return "\n".join(reversed(entries)).rstrip()


def build_rich_context(
    functions: list[dict], max_chars: int = 8000, *, max_code_chars: int = 700
) -> str:
    """Newest functions with their code (each cut at ``max_code_chars``), older ones as docstrings,
    in budget."""
    if not functions:
        return NO_FUNCTIONS
    entries: list[str] = []
    used = len(REUSE_GUIDANCE) + 1
    full = True
    for f in reversed(functions):
        entry = _with_code(f, max_code_chars) if full else _brief(f)
        if used + len(entry) > max_chars and full:
            full, entry = False, _brief(f)  # degrade: from here on, docstrings only
        if used + len(entry) > max_chars:
            break
        entries.append(entry)
        used += len(entry) + 1
    if not entries:
        return NO_FUNCTIONS
    return REUSE_GUIDANCE + "\n" + "\n".join(reversed(entries)).rstrip()


def _brief(f: dict) -> str:
    return f"## {f['name']}\n{(f.get('docstring') or '').strip()}\n"


def _with_code(f: dict, max_code_chars: int) -> str:
    code = (f.get("code") or "").strip()
    if len(code) > max_code_chars:
        cut = code.rfind("\n", 0, max_code_chars)
        code = code[: cut if cut > 0 else max_code_chars] + "\n    # ... (truncated)"
    return f"## {f['name']}\n```python\n{code}\n```\n"
