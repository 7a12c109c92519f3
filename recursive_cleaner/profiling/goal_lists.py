"""The lists of allowed values the goals write: after "one of" / "must be" / "valid:" / "=" ...
(``enum_values``), in parentheses, with pipes or slashes (``paren_enum``).

A hostile goals text is read in linear time: only a clause's first ``MAX_TRIGGERS`` list words
are read (each reads on to the end of its list: "one of" 1,000 times was quadratic, 8 KB in
8.6 s), no pattern splits a run of spaces two ways, and a slash list's items are words of at most
``MAX_SLASH_ITEM`` characters (a hyphenated word of 16,000 characters took 15 s).
"""

from __future__ import annotations

import re

__all__ = ["enum_values", "paren_enum", "ENUM_TRIGGER", "NOT_ITEM", "MAX_TRIGGERS"]

MAX_TRIGGERS = 16  # list words of one clause read for a list ("one of", "must be", "=")
MAX_SLASH_ITEM = 40  # characters of one item of a slash list ("active/pending/churned")
MAX_SLASH_ITEMS = 12  # items of a slash list after its first

_COLON = re.compile(r"^[^:]{1,60}:\s*")  # "priority: 'low', 'medium' or 'high'" (quoted lists only)
_LEAD_QUOTE = re.compile(r"(?:^|(?<=[.:;]))\s*(?=[\"“])")  # a quote opening the text or a sentence

ENUM_TRIGGER = re.compile(
    r"(?:\b(?:one of|either|valid(?: values)?(?: are)?\s*:|allowed(?: values)?(?: are)?\s*:|"
    r"possible values(?: are)?\s*:?|(?P<be>(?:must|should|can|may|has to|have to|"
    r"needs? to) (?:only )?be|is always|"
    r"(?:is|are) only))|(?P<eq>(?<![=<>!])=(?![=>])))\s*"
    r"(?:the following\s*)?:?\s*",
    re.I,
)

# (never after a space: a match there starts one space earlier; "\s*(?:,\s*)?", never "\s*,?\s*":
# either would read a run of spaces once from each of its places)
_NOTHING_ELSE = re.compile(
    r"(?<!\s)\s*(?:,\s*)?(?:and\s+)?(?:nothing else|no other (?:values?|options?)|none other|"
    r"only)\s*$",
    re.I,
)

_CONVERTED = re.compile(
    r"\s*(?:->|→|=>|(?:becomes?|become|turns?|stays?|remains?|(?:is|are|should|"
    r"must)\s+be(?:come)?)\b)",
    # '"MARIA" or "  maria" becomes "Maria"': example inputs, not a list of
    # values
    re.I,
)

_QUOTED = re.compile(r"\s*(?:\"([^\"]*)\"|“([^”]*)”|'([^']*)')\s*")
_ITEM_SEP = re.compile(r"\s*(?:,\s*(?:or|and)?|/|\bor\b|\band\b)\s*", re.I)
# the same to split a list: its spaces read from where their run starts (see _NOTHING_ELSE)
_ITEM_SPLIT = re.compile(r"(?:(?<!\s)\s+)?(?:,\s*(?:or|and)?|/|\bor\b|\band\b)\s*", re.I)
_LIST_END = re.compile(r"[().;:]|\s[-–—]\s")

NOT_ITEM = re.compile(
    r"^(?:a|an|the)\b|\b(?:case|numbers?|numeric|integers?|dates?|codes?|format|digits?|text|"
    r"letters?|null|empty|blank|missing|strings?|spaces?)\b",
    re.I,
)


_LEAD = re.compile(r"^(?:only|just|always)\s+", re.I)


def _list_words(rest: str) -> str:
    """The words of a list: up to the first ``(``, ``)``, ``.``, ``;``, ``:`` or dash."""
    end = _LIST_END.search(rest)
    return (rest[: end.start()] if end else rest).strip()


def _triggers(clause: str):
    """(a label's colon?, match): the colon of a label, then the clause's first ``MAX_TRIGGERS``
    list words."""
    colon = _COLON.match(clause)
    if colon:
        yield True, colon
    lead = _LEAD_QUOTE.search(clause)
    if lead:  # a clause that opens with a quoted list: a list only where the data holds it
        yield None, lead
    for k, trig in enumerate(ENUM_TRIGGER.finditer(clause)):
        if k == MAX_TRIGGERS:
            return
        yield False, trig


def enum_values(clause: str, holds=None) -> tuple[tuple[str, ...], int] | None:
    """Allowed values listed after 'one of' / 'valid:' / 'must be' ..., and where the list starts;
    after a colon, quoted, or bare when ``holds(items)``: most of them are values of one field
    ("match our list: Finance, ...")."""
    for colon, trig in _triggers(clause):
        rest, items, pos = clause[trig.end() :], [], 0
        while True:
            m = _QUOTED.match(rest, pos)
            if not m:
                break
            items.append(next(g for g in m.groups() if g is not None))
            pos = m.end()
            sep = _ITEM_SEP.match(rest, pos)
            if not sep or not sep.group().strip():
                break
            pos = sep.end()
        if colon is None:  # a quoted list opening a clause
            # quoted inputs followed by '=' or an arrow: a mapping, no list
            converted = _CONVERTED.match(rest, pos) or rest.startswith("=", pos)
            if len(items) >= 3 and not converted and holds is not None and holds(items):
                return tuple(dict.fromkeys(items)), trig.start()
            continue
        words = _LEAD.sub("", _list_words(rest))  # "status: only a, b or c"
        if not items and colon and holds is not None and not ENUM_TRIGGER.search(words):
            bare = [
                i.strip()
                for i in _ITEM_SPLIT.split(_NOTHING_ELSE.sub("", words))
                if i and i.strip()
            ]
            if (
                len(bare) >= 2
                and not any(NOT_ITEM.search(i) or len(i.split()) > 4 for i in bare)
                and holds(bare)
            ):
                items = bare
        if not items and not colon:
            # "...: fix typos" is no value
            words = _NOTHING_ELSE.sub("", _list_words(rest))
            # "active, pending or churned and nothing else"
            items = [i.strip() for i in _ITEM_SPLIT.split(words) if i and i.strip()]
            # "flag = H, L or N"
            strict = trig.group("be") is not None or trig.group("eq") is not None
            bad = [
                k
                for k, i in enumerate(items)
                if NOT_ITEM.search(i) or len(i.split()) > (1 if strict else 4)
            ]
            if (
                bad
                and bad[0] >= 2
                and re.search(
                    r",\s*(?:so|to|and then|then|which|because)\b",
                    words[len(", ".join(items[: bad[0]])) - 1 :],
                )
            ):
                items = items[: bad[0]]  # "active, pending or churned, so fix the misspellings"
            elif bad:
                items = []
        if len(items) >= 2 and not _CONVERTED.match(rest, pos):
            return tuple(dict.fromkeys(items)), trig.start()
    return None


_PAREN = re.compile(r"\(([^()]{3,240})\)")
# where a list in parentheses ends: a dash set apart, an arrow, a semicolon ("(a, b - so x -> a)")
_PAREN_END = re.compile(r"\s[-–—]\s|->|→|=>|;")
_PAREN_ITEM = re.compile(r"[A-Za-z][A-Za-z'_-]*(?: [A-Za-z][A-Za-z'_-]*)?")
# a word start only (the look-behind): from inside a long word the search would rescan its rest,
# quadratic
_PIPE_ITEM = r"[A-Za-z][\w'-]*(?: [A-Za-z][\w'-]*){0,3}"  # up to four words: "a b c"
_PIPES = re.compile(rf"(?<![\w'-]){_PIPE_ITEM}(?:\s*\|\s*{_PIPE_ITEM})+")
# items of bounded length: a search starts after every "'" or "-" of a word, and each start read
# the rest of it
_SLASH_ITEM = rf"[A-Za-z][A-Za-z'-]{{1,{MAX_SLASH_ITEM - 1}}}"
_SLASHES = re.compile(rf"(?<![\w/]){_SLASH_ITEM}(?:/{_SLASH_ITEM}){{1,{MAX_SLASH_ITEMS}}}(?![\w/])")
# true/false: a bool, held by the data or not
_NOT_SLASH_ITEM = re.compile(r"^(?:true|false)$", re.I)
# "H / L / N": one-letter codes
_LETTER_CODES = re.compile(r"(?<![\w/])[A-Z](?:\s*/\s*[A-Z]){2,}(?![\w/])")


def paren_enum(text: str, holds=None) -> tuple[tuple[str, ...], int] | None:
    """A list of words in parentheses, "(active/pending/churned)", "(low, medium or high)", "a | b |
    c", or one-letter codes with slashes ("H / L / N"); a slash list ("status
    active/pending/churned", "fuel types Diesel/Regular/Premium") only when ``holds(items)``: most
    of them are values of one field (never a date order such as MM/DD/YYYY or month/day/year, never
    "and/or")."""
    codes = _LETTER_CODES.search(text)
    if codes:
        return tuple(dict.fromkeys(c.strip() for c in codes.group().split("/"))), codes.start()
    for slashes in _SLASHES.finditer(text):  # "status should be active/pending/churned"
        items = slashes.group().split("/")
        if (
            holds is not None
            and holds(items)
            and not any(NOT_ITEM.search(i) or _NOT_SLASH_ITEM.match(i) for i in items)
        ):
            return tuple(dict.fromkeys(items)), slashes.start()
    pipes = _PIPES.search(text)
    if pipes:
        items = [i.strip() for i in pipes.group().split("|")]
        if not any(NOT_ITEM.search(i) for i in items):
            return tuple(dict.fromkeys(items)), pipes.start()
    for m in _PAREN.finditer(text):
        # "(mmol/L, umol/L or g/L)": commas and "or" first; a slash only in a list of neither
        inner = _PAREN_END.split(m.group(1), 1)[0]
        seps = r"\s*(?:,|\||\bor\b)\s*" if re.search(r",|\||\bor\b", inner) else r"\s*/\s*"
        items = [i.strip().strip("\"'“”") for i in re.split(seps, inner)]
        items = [i for i in items if i]
        if (
            len(items) >= 2
            and all(_PAREN_ITEM.fullmatch(i) and not NOT_ITEM.search(i) for i in items)
            and re.search(r"/|,|\bor\b", inner)
        ):
            return tuple(dict.fromkeys(items)), m.start()
    return None
