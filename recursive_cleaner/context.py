"""What the model sees of prior work, within a character budget."""

from __future__ import annotations

__all__ = ["build_context", "NO_FUNCTIONS"]

NO_FUNCTIONS = "(No functions generated yet)"


def build_context(functions: list[dict], max_chars: int = 8000) -> str:
    """The most recent functions' names and docstrings that fit in ``max_chars``, oldest first."""
    entries: list[str] = []
    used = 0
    for f in reversed(functions):
        entry = f"## {f['name']}\n{(f.get('docstring') or '').strip()}\n"
        if used + len(entry) > max_chars:
            break
        entries.append(entry)
        used += len(entry)
    if not entries:
        return NO_FUNCTIONS
    return "\n".join(reversed(entries)).rstrip()
