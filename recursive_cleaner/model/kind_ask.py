"""One short constrained call for the fields the goals mention but bind to no format: which format
from the kinds' menu do they ask of each?

Issue 42 point 6, the model where the rules find nothing. ``kind_prompt(fields)`` shows each field
with the goals' clauses about it and a few of its values; ``kind_reply(names)`` is the reply's
grammar: one line per field, in order, ``NAME: KIND`` with a kind of the menu that needs no
parameter (not an enumeration, a shape or "leave it") or ``none``; nothing else can be decoded.
``parse_kinds`` reads it back. ``keep`` (the goals leave the field as it is) makes it protected, as
a keep clause would: the safe direction needs no check. Each kind is a guess the data checks
(``profiling.spec_checks.asked_reading``): the kind must already fit some of the field's values and
not others, and its primitive must turn some of the others into fitting ones. Never asked about a
field the goals leave as it is; a guess never rewrites the field's usual form (``profiling.harm``:
its licence is the model's, weaker than a clause's).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..errors import clip_text
from ..profiling.kinds import REGISTRY
from .capabilities import GRAMMAR, capabilities_of
from .grammar import Grammar, alt, lit, seq

__all__ = [
    "kind_prompt",
    "kind_reply",
    "parse_kinds",
    "make_kind_ask",
    "asked_kinds",
    "KIND_NONE",
    "KIND_KEEP",
    "MAX_ASKED",
]

KIND_NONE = "none"
KIND_KEEP = "keep"  # the goals say to leave the field as it is: it becomes protected
MAX_ASKED = 40  # fields in one call at most (the prompt and the grammar grow with them)
# what a clause can ask without values the library must learn from it
_NEEDS_MORE = ("enum", "shape", "as_is")
_PROMPT = """A user wrote goals for cleaning a table. For each field below, the sentences of the \
goals that mention it and a few of its values:

{fields}

For each field, which one of these formats do the goals ask its values to have?
{menu}
Answer one line per field, in the order above, as NAME: FORMAT; write {keep} where the goals say to
leave that field exactly as it is, and {none} where they ask none of these formats for it.
"""


def asked_kinds() -> list[str]:
    """The kinds an answer may name: every registered kind on the menu that needs no parameter."""
    return [k.name for k in REGISTRY.values() if k.menu and k.name not in _NEEDS_MORE]


def _names(fields: list[str]) -> list[str]:
    return [f for f in dict.fromkeys(fields) if f and "\n" not in f and ":" not in f][:MAX_ASKED]


def kind_prompt(fields: Mapping[str, tuple[str, list]]) -> str:
    """The question: each field (``{name: (words, values)}``) with its clauses and up to five of its
    values, then the menu."""
    blocks = []
    for name in _names(list(fields)):
        words, values = fields[name]
        shown = ", ".join(
            clip_text(repr(v), 40) for v in [v for v in values if v not in (None, "")][:5]
        )
        said = clip_text(" ".join((words or "").split()), 400)
        blocks.append(f"- {clip_text(name, 80)}\n  goals: {said}\n  values: {shown or '(empty)'}")
    menu = "\n".join(f"- {k.name}: {k.menu}" for k in REGISTRY.values() if k.name in asked_kinds())
    return _PROMPT.format(fields="\n".join(blocks), menu=menu, none=KIND_NONE, keep=KIND_KEEP)


def kind_reply(names: list[str]) -> Grammar:
    """One line per field, in order: ``NAME: KIND``, ``NAME: keep`` or ``NAME: none``."""
    answer = alt(*[lit(k) for k in asked_kinds()], lit(KIND_KEEP), lit(KIND_NONE))
    return Grammar(seq(*[seq(lit(f"{name}: "), answer, lit("\n")) for name in _names(names)]))


def parse_kinds(reply: str, names: list[str]) -> dict[str, str | None]:
    """``{field: kind or None}`` from the reply's lines; a field it does not answer is None."""
    wanted = set(_names(names))
    out: dict[str, str | None] = {name: None for name in _names(names)}
    for line in (reply or "").splitlines():
        name, sep, kind = line.partition(":")
        name, kind = name.strip().strip("-* "), kind.strip().strip("`'\".")
        if sep and name in wanted and (kind in asked_kinds() or kind == KIND_KEEP):
            out[name] = kind
    return out


def make_kind_ask(
    backend: Any,
    samples: dict[str, list],
    call: Callable[[str, str], str],
    known: dict[str, str | None],
    *,
    constrained: bool = True,
) -> Callable[[dict[str, str]], dict[str, str | None]] | None:
    """``ask({field: words}) -> {field: kind or None}`` for ``read_spec``: one ``call(prompt,
    gbnf)`` for the fields not answered yet (answers kept in ``known`` by field and words, so a
    resumed run asks nothing again); None where the reply cannot be held to the grammar."""
    if not constrained or GRAMMAR not in capabilities_of(backend):
        return None

    def ask(words: dict[str, str]) -> dict[str, str | None]:
        keys = {name: f"{name}\n{said}" for name, said in words.items()}
        new = _names([name for name, key in keys.items() if key not in known])
        if new:
            prompt = kind_prompt({n: (words[n], samples.get(n) or []) for n in new})
            answers = parse_kinds(call(prompt, kind_reply(new).gbnf()), new)
            known.update({keys[n]: answers.get(n) for n in new})
        out = {}
        for name, key in keys.items():
            answer = known.get(key)  # a resumed state's answer is read like a reply
            out[name] = answer if answer in asked_kinds() or answer == KIND_KEEP else None
        return out

    return ask
