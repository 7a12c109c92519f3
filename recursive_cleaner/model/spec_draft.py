"""The model's draft of the field spec: one short call that fills the form from the library's menu
of kinds.

``build_spec_prompt(goals, samples)`` asks for one line per field (``field: kind``, or ``field:
enum: a | b | c``); ``parse_spec_draft(reply, fields)`` reads it back, ignoring any line that names
an unknown field or kind. A backend that can hold its reply to a JSON schema
(``StructuredBackend.generate_json``: a llama.cpp grammar, ``response_format``) gets
``build_spec_prompt(..., structured=True)`` and ``spec_schema(fields)``: then it can only answer
with a known kind for every field, in order; the parser reads that JSON too. The draft is a second
opinion beside the rule reader: ``profiling.spec.read_spec(draft=...)`` lets the data decide where
the two disagree.

A reply is read in bounded work: at most ``MAX_REPLY_CHARS`` of lines, a JSON answer of at most
``MAX_JSON_CHARS`` nested at most ``MAX_JSON_DEPTH`` deep (json's decoder recurses: 5,000 levels
were a RecursionError); a reply past a bound is refused like any unusable reply, no draft, with one
warning line naming the bound.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from ..profiling.kinds import REGISTRY
from ..profiling.spec import SPEC_KINDS
from .response import MAX_REPLY_CHARS

__all__ = [
    "build_spec_prompt",
    "parse_spec_draft",
    "spec_schema",
    "MENU",
    "MAX_JSON_CHARS",
    "MAX_JSON_DEPTH",
]

log = logging.getLogger("recursive_cleaner")

MAX_JSON_CHARS = 200_000  # a JSON answer longer than this is not read
MAX_JSON_DEPTH = 16  # the schema's answer is 3 deep (object, field, values)

MENU = ", ".join(
    [kind.menu for kind in REGISTRY.values() if kind.menu]
    + ["free (the goals say something no kind captures)", "none (the goals do not mention it)"]
)
_PROMPT = """You read a user's goals for cleaning a table and fill in, for every field, what its \
values
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
_JSON_ANSWER = """Reply with one JSON object: for every field, in this order ({names}), an object
{{"kind": KIND}}, or for an enum {{"kind": "enum", "values": [VALUE, VALUE, ...]}}.
"""
# the bullet's marks taken whole (a look-ahead and its copy: never given back one by one, which
# tried every field start with every mark prefix, quadratic in a line of "- - - ...")
_LINE = re.compile(
    r"^(?=(?P<mark>(?:[\s*>#-]|\d+[.)])*))(?P=mark)[`*\"']*(?P<field>[^:`*\"']+?)[`*\"']*\s*"
    r"(?::|=|->|—|-)\s*[`*\"']*(?P<kind>[A-Za-z_0-9]+)[`*\"']*\s*(?::\s*(?P<values>.+))?$"
)
_SHOWN = 4
# a spec line ("field: enum: A | B | C") is short; _LINE is quadratic in a line's spaces
_LINE_CHARS = 1000


def spec_schema(fields: list[str]) -> dict:
    """The JSON schema of a draft: every field, in order, with a kind from the menu (and values for
    an enum)."""
    # a shape comes from the goals' examples
    kinds = [k for k in SPEC_KINDS if k != "shape"] + ["none"]
    one = {
        "type": "object",
        "properties": {
            "kind": {"enum": kinds},
            "values": {"type": "array", "items": {"type": "string"}, "maxItems": 12},
        },
        "required": ["kind"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {f: one for f in fields},
        "required": list(fields),
        "additionalProperties": False,
    }


def build_spec_prompt(goals: str, samples: dict[str, list], *, structured: bool = False) -> str:
    """The drafting prompt: the menu first (the same in every run), then the goals and the
    fields."""
    lines = []
    for name, values in samples.items():
        shown = [repr(v) for v in values if v not in (None, "")][:_SHOWN]
        lines.append(f"- {name}: {', '.join(shown) if shown else '(empty)'}")
    # a small model copies a placeholder; give the names
    template = "\n".join(f"{name}:" for name in samples)
    prompt = _PROMPT.format(
        menu=MENU, goals=(goals or "").strip()[:4000], fields="\n".join(lines), template=template
    )
    if structured:  # the schema holds the reply; ask for the same form in JSON
        prompt = prompt[: prompt.index("Reply with exactly")] + _JSON_ANSWER.format(
            names=", ".join(samples)
        )
    return prompt


def parse_spec_draft(
    reply: str, fields: list[str]
) -> dict[str, tuple[str | None, tuple[str, ...]]]:
    """``{field: (kind, allowed)}`` from the reply; ``none`` gives (None, ()); unknown fields and
    kinds are skipped."""
    known = {f.lower(): f for f in fields}
    out: dict[str, tuple[str | None, tuple[str, ...]]] = {}
    answer = _json_answer(reply)
    if answer is not None:
        for name, item in answer.items():
            field = known.get(str(name).strip().lower())
            kind = str(item.get("kind", "") if isinstance(item, dict) else item).strip().lower()
            values = item.get("values") if isinstance(item, dict) else None
            read = _reading(kind, " | ".join(map(str, values)) if isinstance(values, list) else "")
            if field is not None and field not in out and read is not False:
                out[field] = read
        return out
    for line in (reply or "")[:MAX_REPLY_CHARS].splitlines():
        # _LINE backtracks per line: a long line is cut first
        m = _LINE.match(line.strip()[:_LINE_CHARS])
        if not m:
            continue
        name = known.get(m.group("field").strip().lower())
        read = _reading(m.group("kind").lower(), m.group("values") or "")
        if name is not None and name not in out and read is not False:
            out[name] = read
    return out


def _json_answer(reply: str) -> dict | None:
    """The reply as a JSON object (a constrained answer, maybe in a code fence), or None (also for
    one past a bound: warned once)."""
    text = (reply or "").strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    if len(text) > MAX_JSON_CHARS:
        log.warning("spec draft reply refused: longer than %d characters", MAX_JSON_CHARS)
        return None
    if _depth(text[start : end + 1]) > MAX_JSON_DEPTH:
        log.warning("spec draft reply refused: JSON nested more than %d deep", MAX_JSON_DEPTH)
        return None
    try:
        data = json.loads(text[start : end + 1])
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _depth(text: str) -> int:
    """How deep the brackets of ``text`` nest, strings aside (one pass)."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_JSON_STRING.sub('""', text)):
        depth = depth + 1 if m.group() in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    return deepest


# "a | b, c": the spaces before a separator read from where their run starts ("\s*[|,/]" read a
# run of spaces once from each of its places)
_VALUE_SEP = re.compile(r"(?:(?<!\s)\s+)?[|,/]\s*")


def _reading(kind: str, values: str) -> tuple[str | None, tuple[str, ...]] | bool:
    """(kind, allowed) of one answer; False for an unknown kind or an enum without two values."""
    if kind == "none":
        return None, ()
    if kind not in SPEC_KINDS or kind == "shape":
        return False
    allowed: tuple[Any, ...] = ()
    if kind == "enum":
        allowed = tuple(
            dict.fromkeys(v.strip().strip("\"'`") for v in _VALUE_SEP.split(values) if v.strip())
        )
        if len(allowed) < 2:
            return False
    return kind, allowed
