"""One clause's format words tied to the fields it names (``read_segment``, for
``instructions.read_goals``): the fields after the word ("use E.164 for phone"), else the nearest
group before it, else the first one after it; a keep word pointing back to a list ("..., keep
every one of them"); "X stays" with X its subject; a format in parentheses after a list of fields.

Linear time in the clause: every question about the groups (inside a word, after it, before it, the
first one after it that no keep word stands before) is a bisection, the clause's parentheses and
"except" words are found once, and only its first ``MAX_FORMATS`` format words are read (each word
looked at every group, and the groups at every word: cubic in "status lower case" repeated).
"""

from __future__ import annotations

import bisect
import re

from .goal_text import detect_kinds
from .keep_words import BACK_REFERENCE, leaves_rest, listed

__all__ = ["read_segment", "MAX_FORMATS"]

MAX_FORMATS = 64  # format words of one clause (or its part about one field) read

_EXCEPT = re.compile(
    r"\b(?:otherwise|else|apart from|aside from|besides|other than|except|but)\b", re.I
)
# "use E.164 for phone", "HH:MM in the time column": the words between a format and its field
_FOR_NEXT = re.compile(r"\s*(?:for|in|of|on)\s+", re.I)
_THE = re.compile(r"the\s+", re.I)
# between a subject and its verb: closed-class words only ("the currency column - whatever is in
# it stays"); "city without the state. Names stay": no
_SUBJECT_GAP = re.compile(
    r"(?:[\s,\-–—]|\b(?:it|its|they|them|their|what|whatever|which|that|is|are|in|of|the|a|an|"
    r"column|columns|"
    r"field|fields|values?|entries|entry|must|should|shall|will|has|have|to|always|all|exactly|"
    r"just|also|too|"
    r"as|well|both)\b){0,30}",
    re.I,
)
_MAX_SUBJECT_GAP = 30 * len("whatever")  # its 30 words or signs, the longest word 8 letters
_KEPT_SUBJECT = re.compile(r"(?:stays?|remains?|(?:is|are|be) kept)\b", re.I)


class _Clause:
    """What ``read_segment`` asks of one clause and its groups (in order, never overlapping)."""

    def __init__(self, clause: str, groups: list, found: list) -> None:
        self.clause, self.groups = clause, groups
        self.starts = [g[0] for g in groups]
        self.ends = [g[1] for g in groups]
        self.keeps = sorted(s for k, _, s, _ in found if k == "as_is")
        self.opens = [m.start() for m in re.finditer(r"\(", clause)]
        self.closes = [m.start() for m in re.finditer(r"\)", clause)]
        self._except: bool | None = None
        self._last: dict[int, frozenset] = {}

    def inside(self, start: int, end: int) -> list:
        """The groups within ``[start, end]``."""
        k = bisect.bisect_left(self.starts, start)
        out = []
        while k < len(self.groups) and self.ends[k] <= end:
            out.append(self.groups[k])
            k += 1
        return out

    def after(self, end: int) -> list:
        """The groups right after ``end`` but for "for", "in", "of", "on" (and "the")."""
        m = _FOR_NEXT.match(self.clause, end)
        if not m:
            return []
        at = [m.end()]
        the = _THE.match(self.clause, m.end())
        if the:
            at.append(the.end())
        return [
            self.groups[k]
            for k in (bisect.bisect_left(self.starts, a) for a in at)
            if k < len(self.groups) and self.starts[k] in at
        ]

    def later(self, start: int, end: int) -> list:
        """The first group from ``start`` on, if no keep word starts between ``end`` and it."""
        k = bisect.bisect_left(self.starts, start)
        if k == len(self.groups):
            return []
        keep = bisect.bisect_left(self.keeps, end)
        if keep < len(self.keeps) and self.keeps[keep] < self.starts[k]:
            return []
        return [self.groups[k]]

    def paren_before(self, start: int) -> int:
        """The last "(" at or before ``start`` that no ")" closes before it, else -1."""
        k = bisect.bisect_right(self.opens, start) - 1
        if k < 0:
            return -1
        close = bisect.bisect_left(self.closes, self.opens[k])
        return -1 if close < len(self.closes) and self.closes[close] < start else self.opens[k]

    def blank(self, start: int, end: int) -> bool:
        """Nothing but spaces from ``start`` to ``end``."""
        return start >= end or not self.clause[start:end].strip()

    def excepted(self) -> bool:
        if self._except is None:
            self._except = _EXCEPT.search(self.clause) is not None
        return self._except

    def last(self, k: int, last) -> frozenset:
        """``last`` of group ``k``'s words, once per group."""
        if k not in self._last:
            self._last[k] = last(self.clause[self.starts[k] : self.ends[k]])
        return self._last[k]


_WORD_RUN = re.compile(r"[^\W\d_][\w'’-]*")
_KEPT_VALUES = 2  # values of the data named before a keep word that make it a keep of values
_MAX_KEPT_WORDS = 60  # words before the keep word looked at


def _keeps_values(clause: str, start: int, holds) -> bool:
    """The words before the keep word name two of the data's values or more, written with a capital
    ("codes like AB-12, CD-34 are right already"): a keep of those values."""
    if holds is None:
        return False
    words = [m.group() for m in _WORD_RUN.finditer(clause, 0, start)][-_MAX_KEPT_WORDS:]
    found: set[str] = set()
    for i in range(len(words)):
        for n in (1, 2, 3):
            gram = " ".join(words[i : i + n])
            if i + n <= len(words) and any(c.isupper() for c in gram) and holds([gram]):
                found.add(gram.casefold())
    return len(found) >= _KEPT_VALUES


def read_segment(
    clause: str,
    groups: list,
    subject: frozenset,
    kinds: dict,
    firm: set,
    ask=None,
    tied: dict | None = None,
    last=None,
    holds=None,
) -> frozenset:
    """The kinds one clause (or its part about one field) gives the fields it names, else its
    subject, else (into ``tied``) the field ``ask(clause)`` names: the model's guess; the next
    clause's subject. A format in parentheses right after a list of fields is the last one's
    ("names, units, flags (H/L/N)": the flags)."""
    found = detect_kinds(clause, holds)
    if len(found) > MAX_FORMATS:  # the first ones in the text, read in their order
        first = sorted(range(len(found)), key=lambda i: (found[i][2], i))[:MAX_FORMATS]
        found = [found[i] for i in sorted(first)]
    if any(k == "as_is" and _keeps_values(clause, s, holds) for k, _, s, _ in found):
        # "codes like AB-12, CD-34 are correct": a keep of those values, which reads
        # neither a keep of the field nor the words that describe the values ("upper-case
        # prefixes")
        return groups[-1][2] if groups else subject
    at = _Clause(clause, groups, found)
    given: dict[str, set[str]] = {}  # each field this clause reads: the kinds it gives it
    for kind, allowed, start, end in found:
        inside = at.inside(start, end)
        # "keep the style and brewery names as they are": those fields
        if kind == "as_is" and inside:
            for field in frozenset().union(*(g[2] for g in inside)):
                kinds[field].append((kind, allowed))
                # named inside the words that leave it alone: no other
                if not at.excepted():
                    firm.add(field)  # kind overrides that ("... as they are otherwise" leaves room)
            continue
        after = at.after(end)
        n_before = bisect.bisect_left(at.starts, start)
        before = groups[n_before - 1] if n_before else None  # the last group before the word
        # "keep it lower case, and don't reformat the phone": not the phone
        later = at.later(start, end)
        target = after or ([before] if before else []) or later
        if kind == "as_is" and not after and before and BACK_REFERENCE.search(clause, start, end):
            target = [listed(clause, groups, n_before - 1)]  # "... keep every one of them"
        fields_for, into = (target[0][2] if target else subject), kinds
        paren = at.paren_before(start)
        if last is not None and paren >= 0 and before and at.blank(before[1], paren):
            fields_for = at.last(n_before - 1, last) or fields_for
        # "X stays ...": X is its subject
        if kind == "as_is" and _KEPT_SUBJECT.match(clause, start):
            gap = start - before[1] if before else 0
            if (
                not before
                or gap > _MAX_SUBJECT_GAP
                or not _SUBJECT_GAP.fullmatch(clause[before[1] : start])
            ):
                continue  # no field just before the verb: not a reading of any field
            fields_for = listed(clause, groups, n_before - 1)[2]  # "titles, ... notes stay"
            # "the currency ... whatever is in it stays, even the lower-case ones"
            firm.update(fields_for)
        if not fields_for and ask is not None and tied is not None and kind != "as_is":
            fields_for, into = ask(clause), tied
        if kind == "as_is" and (after or (later and not before)) and not at.excepted():
            # a keep word before the field: left alone, whatever the words
            # after describe
            firm.update(fields_for)
        for field in fields_for:
            into.setdefault(field, []).append((kind, allowed))
            given.setdefault(field, set()).add(kind)
    if not at.excepted() and not leaves_rest(clause):  # keep and format for one field: kept,
        firm.update(f for f, ks in given.items() if "as_is" in ks and len(ks) > 1)  # described
    return groups[-1][2] if groups else subject
