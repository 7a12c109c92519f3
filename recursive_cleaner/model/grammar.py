"""Grammars for the replies: constrained decoding keeps a small model's reply in the tag format.

A grammar here is a small tree of pieces (literal, character class, sequence, choice, repetition)
rendered two ways from the same tree: as llama.cpp GBNF (``gbnf()``, sent with the call to the
embedded model or a llama.cpp server) and as a Python regular expression (``regex()``) that the
tests match against replies the parser must accept. The reply forms are those of ``prompt``: the
field function (``field_reply``: the name the prompt asks for, no issue list) and the open-ended
pass (``open_reply``: the issues, then one function or ``clean``). The code inside ``<code>`` is
shaped, not parsed: import lines, then ``def NAME(param):`` and indented lines, no backtick; whether
it is valid Python is still the parser's question. The cross-row plan's form is built from these
pieces by its kinds (``crossrow.xml_form.plan_reply``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

__all__ = [
    "Grammar",
    "field_reply",
    "open_reply",
    "detect_reply",
    "MAX_ISSUES",
    "lit",
    "cls",
    "seq",
    "alt",
    "rep",
]

MAX_ISSUES = 8  # issues listed in an open-ended reply at most: a small model can loop on them


@dataclass(frozen=True)
class _Node:
    kind: str  # lit, cls, seq, alt, rep
    parts: tuple = ()
    text: str = ""
    low: int = 0
    high: int | None = None  # None: no upper bound


def lit(text: str) -> _Node:
    return _Node("lit", text=text)


def cls(chars: str, *, negate: bool = False) -> _Node:
    """One character from ``chars`` (or, with ``negate``, any character not in it)."""
    return _Node("cls", text=chars, low=int(negate))


def seq(*parts: _Node | str) -> _Node:
    return _Node("seq", tuple(lit(p) if isinstance(p, str) else p for p in parts))


def alt(*parts: _Node | str) -> _Node:
    return _Node("alt", tuple(lit(p) if isinstance(p, str) else p for p in parts))


def rep(part: _Node | str, low: int = 0, high: int | None = None) -> _Node:
    return _Node("rep", (lit(part) if isinstance(part, str) else part,), low=low, high=high)


_GBNF_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}
_CLASS_ESCAPES = {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "]": "\\]",
    "\\": "\\\\",
    "^": "\\^",
    "-": "\\-",
    "[": "\\[",
}


def _char(c: str, escapes: dict[str, str]) -> str:
    """One character of a GBNF literal or class: a control character as ``\\xHH`` (raw, a NUL
    ends llama.cpp's reading of the grammar: "failed to parse grammar")."""
    if c in escapes:
        return escapes[c]
    return f"\\x{ord(c):02x}" if ord(c) < 0x20 or ord(c) == 0x7F else c


def _gbnf(node: _Node) -> str:
    if node.kind == "lit":
        return '"' + "".join(_char(c, _GBNF_ESCAPES) for c in node.text) + '"'
    if node.kind == "cls":
        return (
            "["
            + ("^" if node.low else "")
            + "".join(_char(c, _CLASS_ESCAPES) for c in node.text)
            + "]"
        )
    if node.kind == "seq":
        return "(" + " ".join(_gbnf(p) for p in node.parts) + ")"
    if node.kind == "alt":
        return "(" + " | ".join(_gbnf(p) for p in node.parts) + ")"
    inner = _gbnf(node.parts[0])
    if (node.low, node.high) == (0, None):
        return inner + "*"
    if (node.low, node.high) == (1, None):
        return inner + "+"
    if (node.low, node.high) == (0, 1):
        return inner + "?"
    return inner + "{" + str(node.low) + "," + ("" if node.high is None else str(node.high)) + "}"


def _regex(node: _Node) -> str:
    if node.kind == "lit":
        return re.escape(node.text)
    if node.kind == "cls":
        return (
            "["
            + ("^" if node.low else "")
            + "".join(_CLASS_ESCAPES.get(c, re.escape(c)) for c in node.text)
            + "]"
        )
    if node.kind == "seq":
        return "(?:" + "".join(_regex(p) for p in node.parts) + ")"
    if node.kind == "alt":
        return "(?:" + "|".join(_regex(p) for p in node.parts) + ")"
    return (
        "(?:"
        + _regex(node.parts[0])
        + "){"
        + str(node.low)
        + ","
        + ("" if node.high is None else str(node.high))
        + "}"
    )


@dataclass(frozen=True)
class Grammar:
    """One reply form: ``gbnf()`` for llama.cpp, ``regex()`` (the same language) for checks."""

    root: _Node

    def gbnf(self) -> str:
        return "root ::= " + _gbnf(self.root) + "\n"

    def regex(self) -> re.Pattern:
        return re.compile(_regex(self.root), re.DOTALL)

    def accepts(self, reply: str) -> bool:
        return self.regex().fullmatch(reply) is not None


_IDENT = seq(
    cls("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"),
    rep(cls("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")),
)
_TEXT = rep(cls("<\n`", negate=True), 1)  # one line of prose, no tag inside
_DOC = rep(cls("<`", negate=True), 1)  # the docstring may span lines (a ``Tags:`` line at the end)
_NEWLINE = "\n"


def _code(name: _Node | str, param: str) -> _Node:
    """Import lines, ``def NAME(param):``, indented lines (or blank ones); no backtick anywhere."""
    line_rest = rep(cls("\n`", negate=True))
    header = alt(seq(alt("import ", "from "), line_rest, _NEWLINE), _NEWLINE)
    body_line = alt(seq(alt("    ", "\t"), line_rest, _NEWLINE), _NEWLINE)
    return seq(rep(header, 0, 12), "def ", name, f"({param}):\n", rep(body_line, 1))


def _function(name: _Node | str, param: str) -> _Node:
    return seq(
        "  <function_to_generate>\n    <name>",
        name,
        "</name>\n    <docstring>",
        _DOC,
        "</docstring>\n    <code>\n```python\n",
        _code(name, param),
        "```\n    </code>\n  </function_to_generate>\n",
    )


def _issue(solved: str | None = None, leads: tuple[str, ...] = ()) -> _Node:
    """One ``<issue>``; with ``leads``, its text starts with one of them (``title: ...``)."""
    flag = alt("true", "false") if solved is None else lit(solved)
    text = seq(alt(*(f"{lead}: " for lead in leads)), _TEXT) if leads else _TEXT
    return seq(
        '    <issue id="',
        rep(cls("0123456789"), 1, 2),
        '" solved="',
        flag,
        '">',
        text,
        "</issue>\n",
    )


def _issues(low: int) -> _Node:
    return seq("  <issues_detected>\n", rep(_issue(), low, MAX_ISSUES), "  </issues_detected>\n")


def field_reply(name: str, param: str = "record") -> Grammar:
    """The reply to a field prompt: exactly one function, named as the prompt asks."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not a Python identifier: {name!r}")
    return Grammar(
        seq(
            "<cleaning_analysis>\n",
            _function(name, param),
            "  <chunk_status>needs_more_work</chunk_status>\n</cleaning_analysis>",
        )
    )


def open_reply(
    param: str = "record", fields: Sequence[str] | None = None, names: Sequence[str] = ()
) -> Grammar:
    """The reply to the open-ended pass: the issues, then ONE function (needs_more_work) or clean.

    The function comes only after an issue marked ``solved="false"``, and ``clean`` only when
    every issue is solved: a small model otherwise lists everything as solved and then writes
    a function anyway (often the prompt's own example), a call spent on a certain refusal.
    ``fields``, when given, are the only fields the function may be for: the first unsolved issue
    names one of them first (``title: ...``) and the function has one of ``names``, so a field the
    goals leave alone is never offered (no fields: ``clean`` only); None: any issue, any name.
    """
    solved, head = _issue("true"), "  <issues_detected>\n"
    all_solved = seq(
        head,
        rep(solved, 1, MAX_ISSUES),
        "  </issues_detected>\n",
        "  <chunk_status>clean</chunk_status>\n",
    )
    if fields is not None and not (fields and names):
        return Grammar(seq("<cleaning_analysis>\n", all_solved, "</cleaning_analysis>"))
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
    if bad:
        raise ValueError(f"not a Python identifier: {bad[0]!r}")
    leads = tuple(f for f in dict.fromkeys(fields) if _plain(f)) if fields else ()
    unsolved = seq(
        head,
        rep(solved, 0, MAX_ISSUES - 1),
        _issue("false", leads),
        rep(_issue(), 0, MAX_ISSUES - 1),
        "  </issues_detected>\n",
        _function(alt(*dict.fromkeys(names)) if fields else _IDENT, param),
        "  <chunk_status>needs_more_work</chunk_status>\n",
    )
    return Grammar(seq("<cleaning_analysis>\n", alt(all_solved, unsolved), "</cleaning_analysis>"))


def _plain(field: str) -> bool:
    """A field name an issue's text can start with (one line, no tag or backtick, not too long)."""
    return 0 < len(field) <= 80 and not re.search(r"[<`\x00-\x1f\x7f]", field)


def detect_reply() -> Grammar:
    """The dry run's reply: the issues and a status, no function."""
    status = alt("needs_more_work", "clean")
    return Grammar(
        seq(
            "<cleaning_analysis>\n",
            _issues(0),
            "  <chunk_status>",
            status,
            "</chunk_status>\n</cleaning_analysis>",
        )
    )
