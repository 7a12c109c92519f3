"""The goals' words that keep fields as they are beyond one field's own reading, and the words that
ask for a change (which such words never override).

- ``leaves_rest(clause)``: the clause leaves every field the goals do not ask for as it is. A scope
  word for the other fields ("everything else", "nothing else", "anything else", "all other
  columns", "every other field", "the remaining fields", "the rest", "the others") whose nearest
  verb keeps ("alone", "unchanged", "as it is", "stays", "untouched", "are fine", "leave", "keep",
  or a negated change: "don't touch", "nothing else ... is ours to change", "no changes to"), not
  one that changes ("fix everything else", "lower-case the rest").
- ``asks_change(text)``: a verb of cleaning, a target or a format ("fix", "convert", "trim",
  "should be", "one of", "set ... to", "->", "13 digits", "no hyphens", "YYYY", "ISO", "city
  without the state") that no negation stands before in its part of the sentence;
  ``changed_fields``: the fields of a clause it asks a change of (not those inside keep words).
- ``listed(clause, groups, k)``: ``groups[k]`` with the list of field mentions it ends ("the titles,
  author headings, publisher names, pagination and notes": items joined by commas / and / or, each
  of a few words), for a keep clause pointing back to it ("keep every one of them as it is", "those
  stay").
"""

from __future__ import annotations

import bisect
import re

from .goal_text import detect_kinds
from .negation import Negations
from .scans import LeadThen

__all__ = ["leaves_rest", "asks_change", "changed_fields", "listed", "BACK_REFERENCE"]

_REST = re.compile(
    r"\b(?:(?:every|any|no)thing|all|none)\s+else\b"
    r"|\b(?:all|every|each|any|the|no)\s+(?:of\s+the\s+)?(?:other|remaining)\s+"
    r"(?:fields?|columns?|ones|attributes)\b"
    r"|\b(?:all|the)\s+others\b|\b(?:other|remaining)\s+(?:fields|columns)\b"
    # "the rest", "the rest of the file", never "the rest of the number"
    r"|\bthe\s+rest\b(?:\s+of\s+(?:the|this|my|our)\s+(?:file|table|data(?:set)?|columns|fields|"
    r"sheet|export|records?)\b|(?!\s+of\b))",
    re.I,
)
_KEEP = re.compile(
    r"\b(?:as[\s-]is|as (?:it|they) (?:is|are|stands?|was|were|came)|unchanged|untouched|intact|"
    r"alone|stays?|remains?|(?:is|are|looks?|seems?) (?:fine|ok|okay|good|correct|right)|leave|"
    # the words the reader also takes as a field's own "leave it" (goal_text's as_is)
    r"keep|read[\s-]only|out of scope|hands[\s-]off)\b",
    re.I,
)
# a verb of cleaning or a target: what asks a change of the fields it names
_CHANGE = re.compile(
    r"\b(?:chang|touch|modif|edit|alter|rewrit|reformat|format|fix|clean|correct|tid[yi]|"
    r"normali[sz]|standardi[sz]|canonicali[sz]|convert|map|updat|replac|trim|strip|remov|round|"
    r"capitali[sz]|repair|mend|unif|spell|pad)\w*"
    r"|\b(?:take|strip|cut) out\b|\b(?:lower|upper|title)[\s-]?case\b"
    r"|\b(?:make|turn)\b(?!\s+sure\b)|\bone of\b"
    r"|\b(?:should|must|needs? to|has to|have to)\s+(?:be|become|read|look)\b(?!\s+(?:left|kept)\b)"
    r"|->|→|=>"
    # a format the values should have: "13 digits", "four-digit", "no hyphens", "YYYY"
    r"|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen)[\s-]"
    r"(?:digits?|letters?|characters?|decimals?|decimal places?)\b"
    r"|\b(?:no|without)\s+(?:any\s+)?(?:\w+\s+)?(?:dashes|hyphens|spaces|prefix(?:es)?|"
    r"suffix(?:es)?|zeros|commas|dots|periods|slashes|brackets|parentheses|quotes|labels?|"
    r"symbols?|punctuation)\b|(?-i:\b(?:YYYY|YY|MM|DD|HH|ISO)\b)|\binternational\b"
    # "city without the state", never "without changing it"
    r"|\bwithout\b(?!\s+(?:any\s+)?(?:chang|touch|modif|edit|alter))",
    re.I,
)
# "set ... to" (as "\bset\b(?=[^.;]*\bto\b)" in _CHANGE, every "set" read to the end of its part)
_SET_TO = LeadThen(r"\bset\b", r"\bto\b", re.I)
# a keep clause that points back ("keep every one of them", "leave them", "those stay")
BACK_REFERENCE = re.compile(
    r"\b(?:them|they|those|these|each|both|every one|all of them|either)\b", re.I
)
_LIST_SEPARATOR = re.compile(r",|/|&|\b(?:and|or|as well as|plus)\b", re.I)
_ITEM_WORDS = 3  # words of a list item that is no field mention ("pagination", "author headings")


def _changes(text: str) -> list[tuple[int, int]]:
    """Where a verb of cleaning or a target stands: ``_CHANGE`` and "set ... to", in order (a "set"
    inside another one, "no set prefixes", is negated and never nearer than it)."""
    return sorted(
        [m.span() for m in _CHANGE.finditer(text)] + [m.span() for m in _SET_TO.leads(text)]
    )


def _negated(text: str, at: int) -> bool:
    """Does a negation stand before ``at`` in its part of the sentence?"""
    return Negations(text).before(at)


def asks_change(text: str) -> bool:
    """A verb of cleaning or a target in ``text`` with no negation before it in its part."""
    negations = Negations(text)
    return any(not negations.before(start) for start, _ in _changes(text))


def leaves_rest(clause: str) -> bool:
    """Does the clause leave every field the goals do not ask for as it is (module docstring)?"""
    rests = list(_REST.finditer(clause))
    if not rests:
        return False
    # the verb nearest the scope words decides: a keep word or a negated change keeps, a change
    # changes ("leave the dates alone, fix everything else")
    words = [(m.start(), m.end(), True) for m in _KEEP.finditer(clause)]
    kept = [(a, b) for a, b, _ in words]
    kept_starts = [a for a, _ in kept]
    negations = Negations(clause)
    for start, end in _changes(clause):
        k = bisect.bisect_right(kept_starts, start) - 1  # keep words never overlap
        if not (k >= 0 and start < kept[k][1]):
            words.append((start, end, negations.before(start)))
    if not words:
        return False
    nearest = _Nearest(words)
    return any(nearest.keeps(rest.start(), rest.end()) for rest in rests)


class _Nearest:
    """The word nearest a stretch of text: the first of ``words`` (start, end, keeps) with the
    least distance (before it: from the word's end to its start; else from its end to the word's
    start), found by bisection."""

    def __init__(self, words: list[tuple[int, int, bool]]) -> None:
        self.words = words
        order = sorted(range(len(words)), key=lambda i: (words[i][1], i))
        self.ends = [words[i][1] for i in order]
        # ending at or before a place: the one ending last (the first listed of those)
        self.last: list[int] = []
        for n, i in enumerate(order):
            same = n and self.ends[n - 1] == words[i][1]
            self.last.append(self.last[-1] if same else i)
        # ending after it: the one starting first (the first listed of those)
        self.first: list[int] = [0] * len(order)
        for n in range(len(order) - 1, -1, -1):
            i = order[n]
            later = self.first[n + 1] if n + 1 < len(order) else None
            self.first[n] = (
                i if later is None or (words[i][0], i) < (words[later][0], later) else later
            )

    def keeps(self, start: int, end: int) -> bool:
        n = bisect.bisect_right(self.ends, start)
        found = []
        if n:
            i = self.last[n - 1]
            found.append((start - self.words[i][1], i))
        if n < len(self.ends):
            i = self.first[n]
            found.append((self.words[i][0] - end, i))
        return self.words[min(found)[1]][2]


def _list_gap(gap: str) -> bool:
    """Is ``gap`` (between two field mentions) the join of a list: separators, items of a few
    words?"""
    if not _LIST_SEPARATOR.search(gap) or re.search(r"[.;:!?()]", gap):
        return False
    return all(len(piece.split()) <= _ITEM_WORDS for piece in _LIST_SEPARATOR.split(gap))


def _list_start(clause: str, groups: list, k: int) -> int:
    """The index of the first group of the list of mentions that ends with ``groups[k]``."""
    j = k
    while j > 0 and _list_gap(clause[groups[j - 1][1] : groups[j][0]]):
        j -= 1
    return j


def changed_fields(text: str, groups: list, holds=None) -> frozenset:
    """The fields of ``groups`` that a change in ``text`` is asked of: a verb of cleaning or a
    target outside the words that leave fields as they are, a group not inside those words."""
    # the keep words never overlap: blanked in one pass, each group looked up by bisection
    spans = sorted((s, e) for kind, _, s, e in detect_kinds(text, holds) if kind == "as_is")
    pieces, at = [], 0
    for s, e in spans:
        pieces += [text[at:s], " " * (e - s)]
        at = e
    if not asks_change("".join(pieces) + text[at:]):
        return frozenset()
    starts = [s for s, _ in spans]

    def inside(g: tuple) -> bool:
        k = bisect.bisect_right(starts, g[0]) - 1
        return k >= 0 and g[1] <= spans[k][1]

    return frozenset().union(*(g[2] for g in groups if not inside(g)))


def listed(clause: str, groups: list, k: int) -> tuple:
    """``groups[k]`` with the list of mentions it ends ("the titles, author headings and notes"),
    unless a change is asked before the list ("fix the dates, the titles and notes ...")."""
    j = _list_start(clause, groups, k)
    if j == k or asks_change(clause[: groups[j][0]]):
        return groups[k]
    return groups[j][0], groups[k][1], frozenset().union(*(g[2] for g in groups[j : k + 1]))
