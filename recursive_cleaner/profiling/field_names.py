"""What a field's name says: its tokens and parts, singular forms, whether it names a date, and
the goals' words it abbreviates.

Abbreviations (``abbreviation_links``) follow general rules, no list per table: a field's name is
cut into parts (snake, camel, digits) and each part into pieces, one per consecutive word of the
goals. A piece links to a word that it is (or the word's plural), a prefix of (``dept``: department,
not ``name``: named or ``state``: statement, which are other words of the same stem), a skeleton of
(a prefix, then consonants in order, ending on the word's last consonant: ``qty``: quantity,
``amt``: amount, ``dept``: department, ``dt``: date; two letters shorter at least, so ``county`` is
not "country"), or the initial of (``dob``: date of birth, ``fname``: first name: initials open a
part, and stand for words of three letters or more or for glue such as "of", never "a" or "the"). A
one- or two-letter piece links only beside a stronger one (a word itself, or a prefix, skeleton or
three initials), so ``id`` never links "idea", nor ``st`` "state" alone."""

from __future__ import annotations

import os
import re
from functools import lru_cache

__all__ = [
    "field_tokens",
    "name_parts",
    "abbreviation_links",
    "is_date_name",
    "singulars",
    "STOP_WORDS",
    "WORD_GAP",
    "WORD_PARTS",
    "MAX_WORD",
]


def singulars(word: str) -> list[str]:
    """The word and the singulars it may be: breweries -> brewery, beers -> beer, boxes -> box."""
    w = word.lower()
    out = [w]
    if w.endswith("ies"):
        out.append(w[:-3] + "y")
    if w.endswith("es"):
        out.append(w[:-2])
    if w.endswith("s"):
        out.append(w[:-1])
    return out


def field_tokens(field: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", field)
    return [t.lower() for t in re.split(r"[\s_\-./]+", spaced) if t]


def name_parts(field: str) -> list[str]:
    """A field name's parts: its words (snake, kebab, camel case) with digits apart ("address1":
    address, 1)."""
    return list(_name_parts(field))


@lru_cache(maxsize=1 << 12)  # asked at every word of the goals that may abbreviate a field
def _name_parts(field: str) -> tuple[str, ...]:
    return tuple(p for t in field_tokens(field) for p in re.findall(r"[a-z]+|\d+", t))


STOP_WORDS = frozenset("a an and at by for from in of on or per the to with".split())
# a stop word an initial may stand for (date of birth), never an article
_GLUE = STOP_WORDS - {"a", "an", "the"}
# same stem
_FORMS = frozenset("s es d ed ing ings er ers ly ment ments ship ness less ful wide able".split())
WORD_GAP = re.compile(r"[\s_\-]{1,2}")
WORD_PARTS = re.compile(r"[A-Za-z]+|\d+")
# longer words are never abbreviated (and a hostile one-word text is read in linear time)
MAX_WORD = 30


def _last_consonant(word: str) -> str:
    return next((c for c in reversed(word) if c.isalpha() and c not in "aeiou"), "")


_STEM_ENDS = _FORMS | frozenset("ion ions ation ations e".split())

# a part of a column name that ordinary words name: emp_id "employee number", collected_at "time"
_NAMED_BY = {
    "id": frozenset("id ids number numbers no code codes identifier identifiers".split()),
    "no": frozenset("number numbers no".split()),
    "nr": frozenset("number numbers".split()),
    "num": frozenset("number numbers".split()),
    "at": frozenset("time times date dates timestamp timestamps".split()),
}


@lru_cache(maxsize=1 << 16)  # pure; a long goals text asks the same pieces of the same words
def _piece(piece: str, word: str) -> str:
    """How ``piece`` spells ``word``: "word", "prefix", "skeleton", "initial" or ""."""
    forms = singulars(word)
    if word in _NAMED_BY.get(piece, ()):
        return "word"
    stem = len(os.path.commonprefix([piece, word]))
    if stem >= 5 and piece[stem:] in _STEM_ENDS and word[stem:] in _STEM_ENDS:
        return "word"  # one stem: "collected" and "collection", "booking" and "booked"
    if piece in forms and (
        piece == word
        or not word.endswith("es")
        or word[:-2] != piece
        or piece.endswith(("s", "x", "z", "ch", "sh"))
    ):
        return "word"  # "boxes" is box, "sales" is not sal
    if piece[0] != word[0] or not piece.isalpha():
        return ""
    if len(piece) == 1:
        return "initial"
    for form in forms:
        if form.startswith(piece):
            if (
                len(form) - len(piece) >= 2
                and form[len(piece) :] not in _FORMS
                and word[len(piece) :] not in _FORMS
            ):
                return "prefix"
        elif (
            len(form) - len(piece) >= 2
            and piece[-1] == _last_consonant(form)
            and _skeleton(piece, form)
        ):
            return "skeleton"
    return ""


def _skeleton(piece: str, word: str) -> bool:
    """A prefix of ``word``, then consonants found in order in the rest of it: dept, qty, amt, mgr,
    acct."""
    for k in range(len(piece), 0, -1):
        if word.startswith(piece[:k]):
            rest, it = piece[k:], iter(word[k:])
            return not set(rest) & set("aeiou") and all(c in it for c in rest)
    return False


def abbreviation_links(
    field: str, words: list[str], start: int = 0, stop: int | None = None
) -> int:
    """The number of words from ``words[start]`` that spell ``field``, or 0.

    ``words[start:stop]`` are lower-case words known to stand side by side. Each part of the name
    is spelled by one or more pieces, one per word (a stop word only by its initial, "date of
    birth"); the field links when some piece is strong: a word itself, a prefix or skeleton of three
    letters or more, or three initials of one part.
    """
    parts = _name_parts(field)
    if not parts or sum(map(len, parts)) < 2:
        return 0
    stop = len(words) if stop is None else stop
    best = 0
    # a state: (part, offset in it, word index, strong?, initials so far in this part, -1 after
    # another piece)
    todo = [(0, 0, start, False, 0)]
    seen = set()
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        p, o, j, strong, initials = state
        if p == len(parts):
            if strong and words[j - 1] not in STOP_WORDS:
                best = max(best, j - start)
            continue
        if j >= stop or len(words[j]) > MAX_WORD:
            continue
        part, word = parts[p], words[j]
        for e in range(len(part), o, -1):
            how = _piece(part[o:e], word)
            if (
                not how
                or (word in STOP_WORDS and how != "initial" and how != "word")
                or (j == start and word in STOP_WORDS)
            ):
                continue
            if how == "initial" and (
                initials < 0
                or (word in STOP_WORDS and word not in _GLUE)
                or (word not in STOP_WORDS and len(word) < 3)
            ):
                # initials come first in a part (f|name, not emai|l), and stand for words or glue
                continue
            run = initials + 1 if how == "initial" else -1
            is_strong = how == "word" or (how in ("prefix", "skeleton") and e - o >= 3) or run >= 3
            done = e == len(part)
            todo.append(
                (
                    p + 1 if done else p,
                    0 if done else e,
                    j + 1,
                    strong or is_strong,
                    0 if done else run,
                )
            )
    return best


def is_date_name(tokens: list[str]) -> bool:
    return bool({"date", "dob", "birthday", "birthdate", "dt"} & set(tokens)) or tokens[-1:] in (
        ["at"],
        ["on"],
    )
