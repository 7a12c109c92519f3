"""Where the goals name a field: by its name, its words, its short words written out, a word several
fields share, or a synonym ("phone", "e-mail", "dates", "times"), grouped as they stand together."""

from __future__ import annotations

import re

__all__ = ["FieldMentions", "field_tokens", "is_date_name", "singulars"]

_ALL_OF = re.compile(r"\b(?:all|every|each)\b(?:\s+\w+)?\s*$", re.I)
_HEAD = re.compile(r"^[\s*_`#]*([^:\n]{1,60}?)[*_`]*\s*(?::|->|=>|→)(?:\s|$)")  # "status: ...", "id -> integer"
_CONNECT = re.compile(r"(?:[\s,/&]|\band\b|\bor\b|\bthe\b|\bcolumns?\b|\bfields?\b|\bas well as\b|\bplus\b)*", re.I)

_SYNONYMS = (  # regex, test on the field's tokens
    (r"(?:tele)?phones?(?:[\s-]*numbers?)?|mobiles?(?:[\s-]*numbers?)?|cell[\s-]?phones?",
     lambda t: bool({"phone", "telephone", "mobile", "cell", "cellphone", "tel"} & set(t))),
    (r"e-?mails?(?:[\s-]*address(?:es)?)?", lambda t: "email" in t or "mail" in t),
    (r"dates?|dobs?|dates? of birth|birth[\s-]?dates?|birthdays?", lambda t: is_date_name(t)),
    (r"times", lambda t: "time" in t and not is_date_name(t)),
    (r"(?:all|every|each)\s+(?:the\s+)?(?:other\s+)?(?:fields?|columns?|values?|cells?)", lambda t: True),
)


_WORD = r"[A-Za-z][A-Za-z0-9-]*"


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


def is_date_name(tokens: list[str]) -> bool:
    return bool({"date", "dob", "birthday", "birthdate", "dt"} & set(tokens)) or tokens[-1:] in (["at"], ["on"])



class FieldMentions:
    """Finds the fields a text names: ``groups(text)`` of adjacent mentions, ``heading(body)`` of a bullet."""

    def __init__(self, fields: list[str]):
        self.mentions: list[tuple[re.Pattern, frozenset, bool]] = []
        for field in fields:
            toks = field_tokens(field) or [field.lower()]
            phrase = r"[\s_\-]{0,2}".join(re.escape(t) for t in toks)
            ies = phrase[:-1] + "ies|" if toks[-1].endswith("y") and len(toks[-1]) > 2 else ""  # countries
            if len(toks) > 2:  # "scheduled departure time" for sched_dep_time: each short word may be written out
                phrase += "|" + r"[\s_\-]{1,2}".join(re.escape(t) + (r"[a-z]*" if t.isalpha() else "")
                                                     for t in toks[:-1]) + r"[\s_\-]{1,2}" + re.escape(toks[-1])
            rx = rf"(?<![\w])(?:{ies}{phrase}|{re.escape(field)})(?:e?s)?(?![\w])"
            self.mentions.append((re.compile(rx, re.I), frozenset([field]), False))
        for rx, test in _SYNONYMS:
            hit = frozenset(f for f in fields if test(field_tokens(f) or [f.lower()]))
            if hit:
                self.mentions.append((re.compile(rf"(?<![\w]){rx}(?![\w])", re.I), hit, len(hit) > 1))
        self.tokens = {field: field_tokens(field) or [field.lower()] for field in fields}
        self.heads: dict[str, list[tuple[list[str], str]]] = {}  # last word -> [(other words, field)]
        for field, toks in self.tokens.items():
            if len(toks) >= 2:
                self.heads.setdefault(toks[-1], []).append((toks[:-1], field))
        names = {f.lower() for f in fields}
        self.short = {head: owners[0][1] for head, owners in self.heads.items()
                      if len(owners) == 1 and head not in names and head.isalpha() and len(head) >= 2}

    def _owners(self, word: str, head: str) -> frozenset:
        """Fields ending in ``head`` with ``word`` as another of their words, or written out (dep: departure)."""
        forms = singulars(word)
        return frozenset(field for others, field in self.heads[head] for t in others
                         if t in forms or (len(t) >= 3 and t.isalpha() and forms[0].startswith(t)))

    def _distributed(self, text: str) -> list[tuple[int, int, frozenset, bool]]:
        """Words before a field's last word: "the beer, style and brewery names", "names of beers or breweries",
        "every departure and arrival time" (a word shared by several fields names them all)."""
        hits = []
        for head in self.heads:
            heads = rf"{re.escape(head)}(?:e?s)?"
            for rx in (rf"((?:{_WORD}\s*,\s*)*{_WORD}(?:\s*,?\s*(?:and|or|&)\s+{_WORD})?)\s+{heads}\b",
                       rf"\b{heads}\s+of\s+(?:the\s+)?((?:{_WORD}\s*,\s*)*{_WORD}(?:\s*,?\s*(?:and|or|&)\s+{_WORD})?)"):
                for m in re.finditer(rx, text, re.I):
                    for item in re.finditer(_WORD, m.group(1)):
                        owners = self._owners(item.group(), head)
                        if owners:
                            hits.append((m.start(1) + item.start(), m.start(1) + item.end(), owners, len(owners) > 1))
        for word, field in self.short.items():  # "ids should be integers": the one field ending in "id"
            for m in re.finditer(rf"\b{re.escape(word)}s?(?=\s+(?:should|must|need|needs|is|are|=|:|->)\b)", text, re.I):
                hits.append((m.start(), m.end(), frozenset([field]), False))
        return hits

    def groups(self, text: str) -> list[tuple[int, int, frozenset]]:
        """Groups of adjacent field mentions: [(start, end, fields)]."""
        found = sorted(((m.start(), m.end(), fields, generic) for rx, fields, generic in self.mentions
                        for m in rx.finditer(text)), key=lambda t: (t[0], t[0] - t[1]))
        found = sorted(found + self._distributed(text), key=lambda t: (t[0], t[0] - t[1]))
        taken, end = [], -1
        for hit in found:
            if hit[0] >= end:
                taken.append(hit)
                end = hit[1]
        taken = [t for t, nxt in zip(taken, taken[1:] + [None])  # "flight times": a noun before the times fields
                 if t[3] or nxt is None or not nxt[3] or text[t[1]:nxt[0]] != " "]
        if any(not generic for *_, generic in taken):  # a specific field beats a word for several ...
            taken = [t for t in taken if not t[3] or _ALL_OF.search(text[max(0, t[0] - 20):t[0]])]  # ... but "all X"
        out: list[list] = []
        for start, stop, fields, _ in taken:
            if out and _CONNECT.fullmatch(text[out[-1][1]:start]):
                out[-1][1], out[-1][2] = stop, out[-1][2] | fields
            else:
                out.append([start, stop, fields])
        return [tuple(g) for g in out]

    def heading(self, body: str) -> frozenset:
        m = _HEAD.match(body)
        if not m or len(m.group(1).split()) > 8:
            return frozenset()
        named = frozenset().union(*(g[2] for g in self.groups(m.group(1))))
        word = m.group(1).strip().lower()
        if not named and re.fullmatch(r"[a-z][a-z0-9]*", word):  # "- id -> integer": the one field with that word
            owners = [f for f, toks in self.tokens.items() if word in toks]
            named = frozenset(owners) if len(owners) == 1 else named
        return named
