"""``words``: a rare misspelling of one word inside a field's values becomes the word the field
spells that way many times, in the same place.

"619 paxienxs" where the field's other values say "N patients" a thousand times: the values differ
(the counts are data), but their words repeat, and a word seen a few times, one or two letters
from a word seen at least ``RATIO`` times as often, where its neighbours say that word belongs, is
that word. The first pass counts each word of the field's strings with its neighbours (a number is
``#``, the value's ends ``^`` / ``$``); ``fit`` finds the fixes; ``transform`` rewrites the word
in place (the rest of the value is kept character for character). Guards, all from the data:

- the field's words repeat heavily: ``REPEATED`` of its word occurrences are of words seen at least
  ``MIN_COUNT`` times (a field of names or free text is left alone);
- the rare word has ``MIN_LETTERS`` letters or more; the fix has the same length, differs in at
  most one letter in four (``max_distance`` at most) and not by case alone, and is seen at least
  ``MIN_COUNT`` and ``RATIO`` times as often;
- no other word the field spells often (``MIN_COUNT``) is as close: ambiguous, left alone;
- in place: next to each neighbour the field knows (an end, a number or a frequent word), the fix
  is the word of that length that neighbour has most (``DOMINANT`` of them) and at least
  ``RATIO`` times as often as the rare word; a rare neighbour (another typo) says nothing, but
  one side must speak.

Memory: per field, the distinct (left, word, right) triples, at most ``MAX_TRIPLES``; a field past
it is left alone whole (counted in ``Fitted.left_alone``), so summaries merged part by part (Dask)
fit as the whole file does.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ...model.grammar import seq
from ..near import MAX_CHARS, MAX_WORK, Budget, NearIndex, look
from ._base import StepKind

__all__ = [
    "Words",
    "WordCounts",
    "WordFixes",
    "word_fixes",
    "rewrite",
    "MIN_COUNT",
    "RATIO",
    "REPEATED",
    "DOMINANT",
    "MIN_LETTERS",
    "MAX_TRIPLES",
]

MIN_COUNT = 10  # a word the field "spells many times"
RATIO = 10.0  # the fix is seen this many times as often as the rare word (overall and in place)
REPEATED = 0.9  # share of the field's word occurrences that are of words seen MIN_COUNT+ times
DOMINANT = 0.75  # the fix's share of the words as long next to a neighbour the field knows
MIN_LETTERS = 4  # shorter words are never rewritten
MAX_TRIPLES = 20_000  # distinct (left, word, right) per field; past it the field is left alone
_TOKEN = re.compile(r"[^\W\d_]+|\d+")
_START, _END, _NUMBER = "^", "$", "#"


@dataclass
class WordCounts:
    """One field's first pass: (left, word, right) -> count; ``over``: past ``MAX_TRIPLES``."""

    triples: Counter = field(default_factory=Counter)
    over: bool = False

    def add(self, triple: tuple[str, str, str], n: int = 1) -> None:
        if self.over:
            return
        if triple in self.triples or len(self.triples) < MAX_TRIPLES:
            self.triples[triple] += n
        else:
            self.over, self.triples = True, Counter()


@dataclass
class WordFixes:
    """A words step's fitted state: field -> {(left, word, right): the word it becomes}."""

    by_triple: dict[str, dict[tuple[str, str, str], str]] = field(default_factory=dict)


def _tokens(text: str) -> list[re.Match]:
    return list(_TOKEN.finditer(text)) if len(text) <= MAX_CHARS else []


def _form(tokens: list[re.Match], k: int) -> str:
    """How token ``k`` is seen as a neighbour: the word itself, ``#`` for a number, or an end."""
    if k < 0:
        return _START
    if k >= len(tokens):
        return _END
    text = tokens[k].group()
    return _NUMBER if text[0].isdigit() else text


def _triples(text: str) -> list[tuple[int, tuple[str, str, str]]]:
    """(token index, (left, word, right)) for each word of ``text``."""
    tokens = _tokens(text)
    return [
        (k, (_form(tokens, k - 1), m.group(), _form(tokens, k + 1)))
        for k, m in enumerate(tokens)
        if not m.group()[0].isdigit()
    ]


def _letters_apart(a: str, b: str, limit: int) -> bool:
    """Same length, 1..``limit`` letters differ, and none by case alone."""
    if len(a) != len(b) or a == b:
        return False
    differ = 0
    for x, y in zip(a, b):
        if x != y:
            differ += 1
            if differ > limit or x.casefold() == y.casefold():
                return False
    return True


def _limit(word: str, max_distance: int) -> int:
    return min(max_distance, len(word) // 4)


def _fits_in_place(
    triple: tuple[str, str, str], new: str, words: Counter, left: Counter, right: Counter
) -> bool:
    """Does every neighbour of ``triple`` the field knows say ``new`` belongs there (one must)?"""
    l_form, word, r_form = triple
    spoke = False
    for form, pairs in ((l_form, left), (r_form, right)):
        if form not in (_START, _END, _NUMBER) and words[form] < MIN_COUNT:
            continue  # a rare neighbour (maybe a typo itself) says nothing
        spoke = True
        here = pairs[(form, new)]
        if here < RATIO * pairs[(form, word)] or here < DOMINANT * pairs[(form, len(word))]:
            return False
    return spoke


def word_fixes(
    counts: WordCounts, max_distance: int
) -> tuple[dict[tuple[str, str, str], str], int]:
    """(triple -> its word's fix, words left alone) for one field's counts."""
    if counts.over:
        return {}, 1
    words: Counter = Counter()
    by_word: dict[str, list[tuple[str, str, str]]] = {}
    # (left form, word), and (left form, length): the words of that length beside it
    left: Counter = Counter()
    right: Counter = Counter()
    for (l_form, word, r_form), n in counts.triples.items():
        words[word] += n
        by_word.setdefault(word, []).append((l_form, word, r_form))
        left[(l_form, word)] += n
        left[(l_form, len(word))] += n
        right[(r_form, word)] += n
        right[(r_form, len(word))] += n
    total = sum(words.values())
    common = [w for w, n in words.most_common() if n >= MIN_COUNT]
    if not total or sum(words[w] for w in common) < REPEATED * total:
        return {}, 0
    index = NearIndex(max_distance)
    for w in common:
        if len(w) >= MIN_LETTERS:
            index.add(w, w)
    budget, fixes, left_alone = Budget(MAX_WORK), {}, 0
    top = words[common[0]]
    for word, n in words.items():
        limit = _limit(word, max_distance)
        if limit < 1 or n >= MIN_COUNT or RATIO * n > top:
            continue
        near = index.near(word, limit, budget)
        if near is None:
            left_alone += 1
            continue
        close: list[str] | None = []
        for w in near:
            if not budget.spend(look(word, w)):
                close = None
                break
            if _letters_apart(word, w, limit):
                close.append(w)
        if close is None:
            left_alone += 1
            continue
        if len(close) != 1 or words[close[0]] < RATIO * n:
            continue  # none, or two words the field spells often: ambiguous
        new = close[0]
        for triple in by_word[word]:
            if _fits_in_place(triple, new, words, left, right):
                fixes[triple] = new
    return fixes, left_alone


def rewrite(text: str, fixes: dict[tuple[str, str, str], str]) -> str:
    """``text`` with each word a fix names replaced in place (everything else kept)."""
    tokens = _tokens(text)
    out, end = [], 0
    for k, triple in _triples(text):
        new = fixes.get(triple)
        if new is not None:
            m = tokens[k]
            out += [text[end : m.start()], new]
            end = m.end()
    return "".join(out) + text[end:] if out else text


class Words(StepKind):
    """A rare misspelled word inside ``fields``' values becomes the word the field spells often."""

    name, needs_fields, value_map = "words", True, True
    prompt = (
        '<cross_row_step kind="words" fields="FIELD"/>  a rare misspelled word inside the values '
        "becomes the word the field spells that way many times"
    )

    def describe(self, step: Any) -> str:
        return (
            f"in {', '.join(step.fields)}, replace a rare word by the word one letter in four "
            f"away that the field spells at least {RATIO:g}x as often in the same place"
        )

    def names(self, step: Any) -> tuple[str, ...]:
        return tuple(step.fields)

    def grammar(self, listed: Any, written: Any = None) -> Any:
        names = listed if written is None else written
        return seq('<cross_row_step kind="words" fields="', names, '"/>\n')

    def start(self, step: Any) -> dict[str, WordCounts]:
        return {fld: WordCounts() for fld in step.fields}

    def add(self, summary: Any, i: int, record: dict) -> None:
        for fld, counts in summary.counts[i].items():
            value = record.get(fld)
            if isinstance(value, str) and not counts.over:
                for _, triple in _triples(value):
                    counts.add(triple)

    def merge(self, summary: Any, later: Any, i: int) -> None:
        for fld, counts in later.counts[i].items():
            mine = summary.counts[i][fld]
            if counts.over:
                mine.over, mine.triples = True, Counter()
            for triple, n in counts.triples.items():
                mine.add(triple, n)

    def fit(self, summary: Any, i: int, fitted: Any) -> WordFixes:
        state, step = WordFixes(), summary.steps[i]
        for fld, counts in summary.counts[i].items():
            fixes, left_alone = word_fixes(counts, step.max_distance)
            if fixes:
                state.by_triple[fld] = fixes
            if left_alone:
                fitted.left_alone[(i, fld)] += left_alone
        return state

    def transform(self, fitted: Any, i: int, out: dict) -> bool:
        step, state = fitted.steps[i], fitted.fits.get(i)
        for fld, fixes in state.by_triple.items() if state is not None else ():
            value = out.get(fld)
            if not isinstance(value, str):
                continue
            new = rewrite(value, fixes)
            if new != value and step.may_write(fld, value, new):
                out[fld] = new
                fitted.changed[(i, fld)] += 1
        return True
