"""docs/options.md's table of every option, rendered from the declaration (``options.OPTIONS``):
flat keyword, group, default, command-line flags, saved or not, help."""

from __future__ import annotations

from .option_spec import BOTH, OptionSpec
from .options import GROUPS, OPTIONS

__all__ = ["options_table"]


def _default_text(spec: OptionSpec) -> str:
    if callable(spec.default):
        return f"`{spec.default.__module__}.{spec.default.__name__}`"
    return f"`{spec.default!r}`"


def _cli_text(spec: OptionSpec) -> str:
    if not spec.flags:
        return "—"
    text = " / ".join(f"`{f}`" for f in spec.flags)
    negatable = spec.negatable if spec.negatable is not None else spec.default is True
    if isinstance(spec.default, bool) and negatable:
        text = f"`{spec.flags[-1]}` / `--no-{spec.flags[-1][2:]}`"
    if spec.choices:
        text += " {" + ",".join(spec.choices) + "}"
    return text + (" (" + ", ".join(spec.commands) + ")" if spec.commands != BOTH else "")


def options_table() -> str:
    """The markdown table of every option (docs/options.md holds it; tests compare the two)."""
    rows = [
        "| Flat keyword | In its group | Default | Command line | Saved | What it does |",
        "|---|---|---|---|---|---|",
    ]
    for s in OPTIONS:
        where = (
            "parameter"
            if s.group is None
            else f"`{s.group}={GROUPS[s.group].__name__}({s.attr}=…)`"
        )
        rows.append(
            f"| `{s.name}` | {where} | {_default_text(s)} | {_cli_text(s)} | "
            f"{'yes' if s.saved else 'no'} | {s.help.replace('|', '/')} |"
        )
    return "\n".join(rows) + "\n"
