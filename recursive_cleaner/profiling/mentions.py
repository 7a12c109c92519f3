"""Where the goals name a field: by its name, its words, the words its name abbreviates, a word
several fields share, or a synonym ("phone", "e-mail", "dates", "times"), grouped as they stand
together.

A field's name and the words it abbreviates (``abbreviation_links``) are read in ``field_names``
(re-exported here)."""

from __future__ import annotations

import re

from .._toolkit_units import UNITS
from .field_names import (
    MAX_WORD,
    STOP_WORDS,
    WORD_GAP,
    WORD_PARTS,
    abbreviation_links,
    field_tokens,
    is_date_name,
    name_parts,
    singulars,
)
from .labels import label

__all__ = [
    "FieldMentions",
    "field_tokens",
    "name_parts",
    "abbreviation_links",
    "is_date_name",
    "singulars",
]

# a name's last word that only says the unit its values are in ("<stem>_kg", "<stem>_kwh",
# "<stem>_usd"): the words before it name the field too
_UNIT_WORDS = frozenset(UNITS) | {
    "kwh", "wh", "mwh", "kw", "usd", "eur", "gbp", "chf", "cad", "aud", "jpy", "pct", "percent",
    "cents", "pence", "secs", "sec", "mins", "min", "hrs", "hours", "days", "ms",
}
_ALL_OF = re.compile(r"\b(?:all|every|each)\b(?:\s+\w+)?\s*$", re.I)
_CONNECT = re.compile(
    r"(?:[\s,/&]|\band\b|\bor\b|\bthe\b|\bcolumns?\b|\bfields?\b|\bas well as\b|\bplus\b)*", re.I
)

_SYNONYMS = (  # regex, test on the field's tokens
    (
        r"(?:tele)?phones?(?:[\s-]*numbers?)?|mobiles?(?:[\s-]*numbers?)?|cell[\s-]?phones?",
        lambda t: bool({"phone", "telephone", "mobile", "cell", "cellphone", "tel"} & set(t)),
    ),
    (r"e-?mails?(?:[\s-]*address(?:es)?)?", lambda t: "email" in t or "mail" in t),
    (r"dates?|dobs?|dates? of birth|birth[\s-]?dates?|birthdays?", lambda t: is_date_name(t)),
    (r"times", lambda t: "time" in t and not is_date_name(t)),
    # "standardise names": fname, l_name (a word for several)
    (r"names", lambda t: t[-1].endswith("name")),
    (
        r"timestamps?|date[\s-]?times?",
        lambda t: "time" in t or "timestamp" in t or t[-1:] == ["at"],
    ),
    (
        r"(?:all|every|each)\s+(?:the\s+)?(?:other\s+)?(?:fields?|columns?|values?|cells?)",
        lambda t: True,
    ),
)

_WORD = r"[A-Za-z][A-Za-z0-9-]*"
_NAMES = re.compile(r"names?", re.I)
_SHARED_HEAD = re.compile(
    rf"(?<![\w/-])((?:{_WORD}\s*(?:,|/|&|\band\b|\bor\b)\s*){{1,6}})({_WORD})\s+({_WORD})", re.I
)

_QUOTED_VALUE = re.compile(r"\"([^\"\n]{1,60})\"|“([^”\n]{1,60})”|(?<!\w)'([^'\n]{1,60})'(?!\w)")
_EXAMPLE_VALUE = re.compile(
    r"\b(?:like|e\.g\.,?|such as|for example,?|for instance,?|say)\s+([^\s,;:()\"“”']{2,60}?)"
    r"(?=[,;:)]|\.?\s|\.?$)|([^\s,;:()\"“”']{2,60})\s*(?:->|→|=>)",
    re.I,
)


class FieldMentions:
    """Finds the fields a text names: ``groups(text)`` of adjacent mentions, ``heading(body)`` of a
    bullet, ``by_data(text)``: the one field whose sample ``data`` holds the values the text quotes
    or gives as examples."""

    def __init__(self, fields: list[str], data: dict[str, list] | None = None):
        # a sample value (case-folded) -> the fields that hold it
        self.values: dict[str, set[str]] = {}
        for field, values in (data or {}).items():
            for v in values or ():
                text = (
                    str(v).strip().casefold()
                    if v is not None and not isinstance(v, (dict, list))
                    else ""
                )
                if 2 <= len(text) <= 60:
                    self.values.setdefault(text, set()).add(field)
        self.mentions: list[tuple[re.Pattern, frozenset, bool]] = []
        for field in fields:
            toks = field_tokens(field) or [field.lower()]
            phrase = r"[\s_\-]{0,2}".join(re.escape(t) for t in toks)
            # countries
            ies = phrase[:-1] + "ies|" if toks[-1].endswith("y") and len(toks[-1]) > 2 else ""
            # boxes, not sal-es
            plural = "(?:es)?" if toks[-1].endswith(("s", "x", "z", "ch", "sh")) else "s?"
            rx = rf"(?<![\w])(?:{ies}{phrase}|{re.escape(field)}){plural}(?![\w])"
            self.mentions.append((re.compile(rx, re.I), frozenset([field]), False))
        for field in fields:
            toks = field_tokens(field)
            stem = toks[:-1]
            if (
                len(toks) >= 2
                and toks[-1] in _UNIT_WORDS
                and not any(t in stem for f in fields if f != field for t in field_tokens(f))
            ):
                phrase = r"[\s_\-]{0,2}".join(re.escape(t) for t in stem)
                rx = rf"(?<![\w]){phrase}s?(?![\w])"
                self.mentions.append((re.compile(rx, re.I), frozenset([field]), False))
        # a numbered series ("address_1", "address_2", "address_3"): its stem names every one
        series: dict[tuple[str, ...], list[str]] = {}
        for field in fields:
            toks = field_tokens(field)
            if len(toks) >= 2 and toks[-1].isdigit():
                series.setdefault(tuple(toks[:-1]), []).append(field)
        for stem, members in series.items():
            if len(members) >= 2 and not any(field_tokens(f) == list(stem) for f in fields):
                phrase = r"[\s_\-]{0,2}".join(re.escape(t) for t in stem)
                rx = rf"(?<![\w]){phrase}(?:es|s)?(?![\w])(?!\s?[_-]?\d)"
                self.mentions.append((re.compile(rx, re.I), frozenset(members), True))
        for rx, test in _SYNONYMS:
            hit = frozenset(f for f in fields if test(field_tokens(f) or [f.lower()]))
            if hit:
                self.mentions.append(
                    (re.compile(rf"(?<![\w]){rx}(?![\w])", re.I), hit, len(hit) > 1)
                )
        self.tokens = {field: field_tokens(field) or [field.lower()] for field in fields}
        self._spells: dict[tuple[str, str], frozenset] = {}
        # last word -> [(other words, field)]
        self.heads: dict[str, list[tuple[list[str], str]]] = {}
        for field, toks in self.tokens.items():
            if len(toks) >= 2:
                self.heads.setdefault(toks[-1], []).append((toks[:-1], field))
        # first letter -> fields whose name may be abbreviated from it
        self.by_letter: dict[str, list[str]] = {}
        for field in fields:
            parts = name_parts(field)
            if parts and parts[0][0].isalpha():
                self.by_letter.setdefault(parts[0][0], []).append(field)
        names = {f.lower() for f in fields}
        self.short = {
            head: owners[0][1]
            for head, owners in self.heads.items()
            if len(owners) == 1 and head not in names and head.isalpha() and len(head) >= 2
        }

    def _owners(self, word: str, head: str) -> frozenset:
        """Fields ending in ``head`` with ``word`` as another of their words, or written out (dep:
        departure)."""
        forms = singulars(word)
        return frozenset(
            field
            for others, field in self.heads[head]
            for t in others
            if t in forms or (len(t) >= 3 and t.isalpha() and forms[0].startswith(t))
        )

    def _spelled(self, word: str, head: str) -> frozenset:
        """The fields ``word`` and ``head`` spell ("first" "name": fname), asked once a pair."""
        key = (word, head)
        if key not in self._spells:
            self._spells[key] = frozenset(
                f for f in self.tokens if abbreviation_links(f, [word, head]) == 2
            )
        return self._spells[key]

    def _distributed(self, text: str) -> list[tuple[int, int, frozenset, bool]]:
        """Words before a field's last word: "the beer, style and brewery names", "names of beers or
        breweries", "every departure and arrival time" (a word shared by several fields names them
        all)."""
        hits = []
        for head in self.heads:
            heads = rf"{re.escape(head)}(?:e?s)?"
            # (", and": "\s*(?:,\s*)?", never "\s*,?\s*", which splits a run of spaces every way)
            for rx in (
                rf"(?<![\w-])((?:{_WORD}\s*,\s*){{0,8}}{_WORD}(?:\s*(?:,\s*)?(?:and|or|"
                rf"&)\s+{_WORD})?)\s+{heads}\b",
                rf"\b{heads}\s+of\s+(?:the\s+)?((?:{_WORD}\s*,\s*){{0,8}}{_WORD}(?:\s*(?:,\s*)?"
                rf"(?:and|or|&)\s+{_WORD})?)",
            ):
                for m in re.finditer(rx, text, re.I):
                    for item in re.finditer(_WORD, m.group(1)):
                        owners = self._owners(item.group(), head)
                        if owners:
                            hits.append(
                                (
                                    m.start(1) + item.start(),
                                    m.start(1) + item.end(),
                                    owners,
                                    len(owners) > 1,
                                )
                            )
        # "first and last names", "first/last name": fname and l_name
        for m in _SHARED_HEAD.finditer(text):
            items = [
                (m.start(1) + i.start(), m.start(1) + i.end(), i.group())
                for i in re.finditer(_WORD, m.group(1))
            ]
            items.append((m.start(2), m.end(2), m.group(2)))
            head = singulars(m.group(3))[-1]
            spelled = [
                (a, b, self._spelled(w.lower(), head))
                for a, b, w in items
                if w.lower() not in STOP_WORDS
            ]
            # the last item and the word after it name a field: a shared word
            if spelled and spelled[-1][2]:
                hits += [(a, b, fields, False) for a, b, fields in spelled if len(fields) == 1]
        # "ids should be integers", "the year column": the one field ending in "id" / "year"
        for word, field in self.short.items():
            for m in re.finditer(
                rf"\b{re.escape(word)}s?(?=\s+(?:should|must|need|needs|is|are|=|:|->)\b"
                r"|\s+(?:column|field)s?\b)|"
                # or opening
                rf"^[\s*•-]*(?P<w>(?:the\s+)?\b{re.escape(word)}s?\b)",
                text,
                re.I,
            ):
                hits.append(
                    (
                        m.start("w") if m.group("w") else m.start(),
                        m.end(),
                        frozenset([field]),
                        False,
                    )
                )
        return hits

    def _abbreviated(self, text: str) -> list[tuple[int, int, frozenset, bool]]:
        """Words a field's name abbreviates: "first name" for fname, "quantity" for qty
        (``abbreviation_links``)."""
        spans = [(m.start(), m.end(), m.group().lower()) for m in WORD_PARTS.finditer(text)]
        hits = []
        # after each word, the first word not side by side with it (only spaces, _ or -)
        bounds = [0] * len(spans)
        k = len(spans)
        for i in range(len(spans) - 1, -1, -1):
            if i + 1 < len(spans) and not WORD_GAP.fullmatch(text[spans[i][1] : spans[i + 1][0]]):
                k = i + 1
            bounds[i] = k
        words = [w for _, _, w in spans]
        for i, (start, _, word) in enumerate(spans):
            if len(word) > MAX_WORD or (
                start and (text[start - 1].isalnum() or text[start - 1] == "_")
            ):
                continue  # not a word inside another field's name ("id" of "tuple_id")
            for field in self.by_letter.get(word[0], ()):
                n = abbreviation_links(field, words, i, bounds[i])
                end = spans[i + n - 1][1] if n else 0
                if n and not (text[end : end + 1].isalnum() or text[end : end + 1] == "_"):
                    hits.append((start, end, frozenset([field]), False))
        return hits

    def last(self, text: str) -> frozenset:
        """The fields of the last mention in ``text`` ("units" of "analyte names, units, flags")."""
        taken = self._taken(text)
        return taken[-1][2] if taken else frozenset()

    def groups(self, text: str) -> list[tuple[int, int, frozenset]]:
        """Groups of adjacent field mentions: [(start, end, fields)]."""
        out: list[list] = []
        generic = False
        for start, stop, fields, several in self._taken(text):
            gap = text[out[-1][1] : start] if out else ""
            if out and _CONNECT.fullmatch(gap) and (not (several or generic) or not gap.isspace()):
                # ("the state Names stay": no list, a new subject)
                out[-1][1], out[-1][2] = stop, out[-1][2] | fields
            else:
                out.append([start, stop, fields])
            generic = several
        return [tuple(g) for g in out]

    def _taken(self, text: str) -> list[tuple[int, int, frozenset, bool]]:
        """Each field mention, in order: (start, end, fields, a word for several fields)."""
        found = sorted(
            (
                (m.start(), m.end(), fields, generic)
                for rx, fields, generic in self.mentions
                for m in rx.finditer(text)
            ),
            key=lambda t: (t[0], t[0] - t[1]),
        )
        found = sorted(
            found + self._distributed(text) + self._abbreviated(text),
            key=lambda t: (t[0], t[0] - t[1]),
        )
        taken, end = [], -1
        for hit in found:
            if hit[0] >= end:
                taken.append(hit)
                end = hit[1]
        # "City names", "brewery names": the names are
        taken = [
            t
            for t, prev in zip(taken, [None] + taken[:-1])
            # that field's values
            if not (
                t[3]
                and prev is not None
                and not prev[3]
                and text[prev[1] : t[0]] == " "
                and _NAMES.fullmatch(text[t[0] : t[1]])
            )
        ]
        # "flight times": a noun before the times fields
        taken = [
            t
            for t, nxt in zip(taken, taken[1:] + [None])
            if t[3] or nxt is None or not nxt[3] or text[t[1] : nxt[0]] != " "
        ]
        specific = frozenset().union(*(t[2] for t in taken if not t[3]))
        # a specific field beats a word for several; the word keeps the fields named no other way
        if specific:
            taken = [
                t
                if not t[3] or _ALL_OF.search(text[max(0, t[0] - 20) : t[0]])
                else (t[0], t[1], t[2] - specific, True)
                # ("Birth date and hire date": the dates but hire_dt; "all X": all of them)
                for t in taken
            ]
            taken = [t for t in taken if t[2]]
        return taken

    def by_data(self, text: str) -> tuple[int, int, frozenset] | None:
        """A group for the one field whose data holds the values ``text`` quotes or gives as
        examples, or None.

        Every such value found in some field's data must be found in that field's alone (values
        several fields hold, or values of several fields, are examples of a rule about many: "typos
        like ...").
        """
        found, where = set(), None
        for m in list(_QUOTED_VALUE.finditer(text)) + list(_EXAMPLE_VALUE.finditer(text)):
            value = next(g for g in m.groups() if g is not None).strip()
            holders = self.values.get(value.casefold(), set())
            if holders:
                found |= holders
                where = where or (m.start(), m.end())
        if len(found) != 1 or where is None:
            return None
        return where[0], where[1], frozenset(found)

    def holding(self, values, start: int, end: int) -> tuple[int, int, frozenset] | None:
        """A group for the one field whose data holds most of ``values`` (a list the goals give), or
        None."""
        counts: dict[str, int] = {}
        for value in dict.fromkeys(str(v).strip().casefold() for v in values):
            for field in self.values.get(value, ()):
                counts[field] = counts.get(field, 0) + 1
        most = [f for f, n in counts.items() if n * 2 > len(values)]
        return (start, end, frozenset(most)) if len(most) == 1 else None

    def holds(self, values) -> bool:
        """Most of ``values`` are values of one field's data."""
        return self.holding(values, 0, 0) is not None

    def heading(self, body: str) -> frozenset:
        # "status: ...", "id -> integer" (a label, never a sentence: "ISBNs are 13 digits. pub_year:
        # ..." is no heading)
        head = label(body)
        if head is None or len(head.split()) > 8:
            return frozenset()
        named = frozenset().union(*(g[2] for g in self.groups(head)))
        word = head.strip().lower()
        # "- id -> integer": the one field with that word
        if not named and re.fullmatch(r"[a-z][a-z0-9]*", word):
            owners = [f for f, toks in self.tokens.items() if word in toks]
            named = frozenset(owners) if len(owners) == 1 else named
        return named
