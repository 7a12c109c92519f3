"""The model's draft of the field spec: one short call that fills the form from the library's menu of kinds.

``build_spec_prompt(goals, samples)`` asks for one line per field (``field: kind``, or
``field: enum: a | b | c``); ``parse_spec_draft(reply, fields)`` reads it back, ignoring any line
that names an unknown field or kind. The draft is a second opinion beside the rule reader:
``profiling.spec.read_spec(draft=...)`` lets the data decide where the two disagree.
"""

from __future__ import annotations

import re
from typing import Any

from ..profiling.spec import SPEC_KINDS
from .response import MAX_REPLY_CHARS

__all__ = ["build_spec_prompt", "parse_spec_draft", "MENU"]

MENU = (
    "date (YYYY-MM-DD), datetime (YYYY-MM-DDTHH:MM:SS), time (24-hour HH:MM), time12 (7:10 a.m.), "
    "phone_e164 (+15551234567), email (lower case, no spaces), enum (one of a fixed list of values), "
    "number, integer, country_alpha2 (US, GB), us_state (CA, NY), bool, title_case, lower, upper, "
    "text (trimmed, single spaces), as_is (leave it as it is), free (the goals say something no kind "
    "captures), none (the goals do not mention it)"
)
_PROMPT = """You read a user's goals for cleaning a table and fill in, for every field, what its values
should look like. Choose the kind from this menu: {menu}.

Goals:
\"\"\"
{goals}
\"\"\"

Fields, with a few of their values:
{fields}

Reply with exactly these lines, nothing else, each field's kind after its colon (for an enum:
"enum: VALUE | VALUE | VALUE"):
{template}
"""
_LINE = re.compile(r"^(?:[\s*>#-]|\d+[.)])*[`*\"']*(?P<field>[^:`*\"']+?)[`*\"']*\s*(?::|=|->|—|-)\s*[`*\"']*"
                   r"(?P<kind>[A-Za-z_0-9]+)[`*\"']*\s*(?::\s*(?P<values>.+))?$")
_SHOWN = 4
_LINE_CHARS = 1000  # a spec line ("field: enum: A | B | C") is short; _LINE is quadratic in a line's spaces


def build_spec_prompt(goals: str, samples: dict[str, list]) -> str:
    """The drafting prompt: the menu first (the same in every run), then the goals and the fields."""
    lines = []
    for name, values in samples.items():
        shown = [repr(v) for v in values if v not in (None, "")][:_SHOWN]
        lines.append(f"- {name}: {', '.join(shown) if shown else '(empty)'}")
    template = "\n".join(f"{name}:" for name in samples)  # a small model copies a placeholder; give the names
    return _PROMPT.format(menu=MENU, goals=(goals or "").strip()[:4000], fields="\n".join(lines), template=template)


def parse_spec_draft(reply: str, fields: list[str]) -> dict[str, tuple[str | None, tuple[str, ...]]]:
    """``{field: (kind, allowed)}`` from the reply; ``none`` gives (None, ()); unknown fields and kinds are skipped."""
    known = {f.lower(): f for f in fields}
    out: dict[str, tuple[str | None, tuple[str, ...]]] = {}
    for line in (reply or "")[:MAX_REPLY_CHARS].splitlines():
        m = _LINE.match(line.strip()[:_LINE_CHARS])  # _LINE backtracks per line: a long line is cut first
        if not m:
            continue
        name = known.get(m.group("field").strip().lower())
        kind = m.group("kind").lower()
        if name is None or name in out:
            continue
        if kind == "none":
            out[name] = (None, ())
            continue
        if kind not in SPEC_KINDS:
            continue
        allowed: tuple[Any, ...] = ()
        if kind == "enum":
            allowed = tuple(dict.fromkeys(v.strip().strip("\"'`") for v in re.split(r"\s*[|,/]\s*",
                                                                                   m.group("values") or "")
                                          if v.strip()))
            if len(allowed) < 2:
                continue
        out[name] = (kind, allowed)
    return out
