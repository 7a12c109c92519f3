"""The goals' words for ``examples``: bounded tokens sentence by sentence (``token_sentences``), and
the phrases that link an example's input to its output ("becomes", "should be", "convert A to B",
"A stays A", "keep A as is"). One regex of bounded tokens, so a hostile text is read in linear
time."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

__all__ = [
    "BEFORE_LINKS",
    "CONVERT_AFTER",
    "CONVERT_BEFORE",
    "IDENTITY_AFTER",
    "KEEP_AFTER",
    "KEEP_BEFORE",
    "LIST_WORDS",
    "Token",
    "phrase_at",
    "token_sentences",
    "value_like",
]

_TOKEN = re.compile(
    r'"([^"\n]{1,60})"|“([^”\n]{1,60})”|(?<![\w\'’])\'([^\'\n]{1,60})\'(?![\w\'’])'  # quoted values
    r"|(->|→|=>)"  # arrows
    # a blank line, or a new bullet / heading: a new block
    r"|(\n[ \t\r]*(?:\n|(?=[-*•+#]|\d{1,2}[.)]\s|\*\*)))"
    # a value in square brackets with no space in it ("[1998]", "[n.d.]"): one value, brackets kept
    r"|((?<![^\s\"“”,;()\[\]])\[[^\s\"“”,;()\[\]]{1,58}\](?![^\s\"“”,;()\[\].!?:]))"
    r"|([,;()\[\]])"  # separators
    r"|((?:[^\s\"“”,;()\[\]]|,(?=[^\s\"“”,;()\[\]]))+)"
)  # a bare word ("14,90" keeps its comma)

_ABBREVIATION = re.compile(r"(?:[A-Za-z]\.){2,}")  # p.m., U.S., e.g.: not the end of a sentence
LIST_WORDS = frozenset({"and", "or", "&", "/"})


def _by_first(phrases: tuple[str, ...]) -> dict[str, list[tuple[str, ...]]]:
    """Phrases by their first word, longest first."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in sorted((tuple(p.split()) for p in phrases), key=len, reverse=True):
        out.setdefault(phrase[0], []).append(phrase)
    return out


CONVERT_AFTER = _by_first(
    (
        "all become",
        "=",  # '"a" = B'
        "becomes",
        "become",
        "should become",
        "should be",
        "must be",
        "must become",
        "is turned into",
        "are turned into",
        "turns into",
        "is converted to",
        "are converted to",
        "converts to",
        "is changed to",
        "is mapped to",
        "maps to",
        "is written as",
        "should read",
        "are all",
        "is",
        "are",
        "end up as",
        "ends up as",
        "should end up as",
        "should all end up as",
        "all end up as",
        "should all be",
        "should all become",
        "gives",
        "give",
    )
)

IDENTITY_AFTER = _by_first(
    ("stays", "stay", "remains", "remain", "is kept", "are kept", "is left", "are left", "keeps")
)

CONVERT_BEFORE = frozenset(
    {
        "convert",
        "change",
        "map",
        "turn",
        "rewrite",
        "replace",
        "correct",
        "fix",
        "normalize",
        "normalise",
        "translate",
        "write",
        "from",
    }
)

BEFORE_LINKS = frozenset({"to", "into", "with", "by", "as"})
KEEP_BEFORE = frozenset({"keep", "leave"})
KEEP_AFTER = frozenset({"as", "unchanged", "alone", "intact"})


@dataclass
class Token:
    kind: str  # "value" | "arrow" | "sep"
    text: str
    quoted: bool = False
    start: int = 0
    end: int = 0
    word: str = ""  # a bare value in lower case, to match the connecting words

    def __post_init__(self) -> None:
        if self.kind == "value" and not self.quoted:
            self.word = self.text.lower()


def token_sentences(text: str) -> Iterator[tuple[list[Token], int, int, int]]:
    """(tokens, start, end, block start) per sentence: ends at ``.!?`` + space, ``;``, a blank line
    or a bullet."""
    toks: list[Token] = []
    start = block = 0
    for m in _TOKEN.finditer(text):
        quoted = next((g for g in m.groups()[:3] if g is not None), None)
        if quoted is not None:
            toks.append(Token("value", quoted, True, m.start(), m.end()))
        elif m.group(4):
            toks.append(Token("arrow", m.group(4), start=m.start(), end=m.end()))
        elif m.group(5):
            yield toks, start, m.start(), block
            toks, start, block = [], m.end(), m.end()
        elif m.group(6):
            toks.append(Token("value", m.group(6), False, m.start(), m.end()))
        elif m.group(7):
            if m.group(7) == ";":
                yield toks, start, m.start(), block
                toks, start = [], m.end()
            else:
                toks.append(Token("sep", m.group(7), start=m.start(), end=m.end()))
        else:
            raw = m.group(8)
            word, ends = _bare(raw)
            if word:
                toks.append(Token("value", word, False, m.start(), m.end()))
            if raw.endswith(":") or not word:
                toks.append(Token("sep", ":", start=m.end(), end=m.end()))
            if ends:
                yield toks, start, m.end(), block
                toks, start = [], m.end()
    yield toks, start, len(text), block


def _bare(raw: str) -> tuple[str, bool]:
    """(the word without trailing punctuation, whether it ends a sentence)."""
    if _ABBREVIATION.fullmatch(raw):
        return raw, False
    word = raw.rstrip(".!?:")
    return word, word != raw and raw[-1] in ".!?" and not raw.endswith(":")


def value_like(text: str) -> bool:
    """A digit, a sign or a code in capitals: "14,90", "N/A", "DE"; not an ordinary word ("active",
    "This")."""
    return any(not c.isalpha() for c in text) or (len(text) >= 2 and text.isupper())


def phrase_at(toks: list[Token], i: int, phrases: dict[str, list[tuple[str, ...]]]) -> int:
    """The length of the longest of ``phrases`` whose words start at ``i``, else 0."""
    for phrase in phrases.get(toks[i].word, ()):
        if all(i + k < len(toks) and toks[i + k].word == w for k, w in enumerate(phrase)):
            return len(phrase)
    return 0
