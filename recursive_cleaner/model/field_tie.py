"""One short constrained call for a clause of the goals that the rules tie to no field: which field
is it about?

``tie_prompt(clause, samples)`` shows the clause and the fields with a few values;
``tie_reply(fields)`` is the reply's grammar: one of the header's names, or ``none`` — nothing else
can be decoded. ``parse_tie`` reads the answer back (None for ``none`` or anything not a field). The
answer is a guess the data checks (``profiling.spec.read_spec(tie=...)``): the field's values must
fit, or be turned by the kind's toolkit primitive into values that fit, what the clause asks.
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import clip_text
from .capabilities import GRAMMAR, capabilities_of
from .grammar import Grammar, alt, lit

__all__ = ["tie_prompt", "tie_reply", "parse_tie", "make_tie", "TIE_NONE", "MAX_TIE_FIELDS"]

TIE_NONE = "none"
# a wider header is not asked about: the prompt and the grammar would grow with it
MAX_TIE_FIELDS = 200
_PROMPT = """A user wrote this about cleaning a table:
\"\"\"
{clause}
\"\"\"

The table's fields, with a few of their values:
{fields}

Which one field is that sentence about? Reply with the field's name exactly as written above, or
{none} if it is about no single field.
"""


def _names(fields: list[str]) -> list[str]:
    return [
        f for f in dict.fromkeys(str(f) for f in fields) if f and f != TIE_NONE and "\n" not in f
    ]


def tie_prompt(clause: str, samples: dict[str, list]) -> str:
    """The question for one clause: the clause, each field with up to three of its values."""
    lines = []
    for name in _names(list(samples)):
        shown = ", ".join(
            clip_text(repr(v), 40) for v in [v for v in samples[name] if v not in (None, "")][:3]
        )
        lines.append(f"- {clip_text(name, 80)}: {shown or '(empty)'}")
    return _PROMPT.format(
        clause=clip_text(clause.strip(), 400), fields="\n".join(lines), none=TIE_NONE
    )


def tie_reply(fields: list[str]) -> Grammar:
    """One of the fields' names, or ``none``."""
    return Grammar(alt(*[lit(f) for f in _names(fields)], lit(TIE_NONE)))


def parse_tie(reply: str, fields: list[str]) -> str | None:
    """The field the reply names (exactly, or with quotes or a full stop around it), or None."""
    text = (reply or "").strip().strip("`'\".").strip()
    return text if text in _names(fields) else None


def make_tie(
    backend: Any,
    fields: list[str],
    samples: dict[str, list],
    call: Callable[[str, str], str],
    known: dict[str, str | None],
    *,
    constrained: bool = True,
) -> Callable[[str], str | None] | None:
    """``tie(clause) -> field | None`` for ``read_spec``, asking ``call(prompt, gbnf)`` once per
    clause (answers kept in ``known``, so a resumed run does not ask again); None where the reply
    cannot be held to the grammar (no capability ``grammar``, ``constrained=False``) or the header
    is wider than ``MAX_TIE_FIELDS``."""
    if (
        not constrained
        or GRAMMAR not in capabilities_of(backend)
        or not 0 < len(fields) <= MAX_TIE_FIELDS
    ):
        return None
    grammar = tie_reply(fields).gbnf()

    def tie(clause: str) -> str | None:
        if clause not in known:
            known[clause] = parse_tie(call(tie_prompt(clause, samples), grammar), fields)
        return known[clause]

    return tie
