"""The goals' text, by rules: blocks (a bullet with its continuation lines, a heading line, a
paragraph), clauses (sentences and ``;`` parts: ``goal_sentences``), and the format words and value
lists a clause names (``detect_kinds``; the lists in ``goal_lists``: ``enum_values``,
``paren_enum``). ``instructions`` ties them to fields.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from .digit_counts import with_digits
from .goal_lists import ENUM_TRIGGER, enum_values, paren_enum
from .negation import REFUSAL, Negations
from .scans import LeadThen, Spans

__all__ = [
    "goal_sentences",
    "goal_blocks",
    "goal_clauses",
    "detect_kinds",
    "enum_values",
    "paren_enum",
    "ENUM_TRIGGER",
    "AS_IS_WORDS",
    "clause_segments",
]

_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+")
_CLAUSE_END = re.compile(r"(?<=[.!?])\s+|;\s+")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "a.m.", "p.m.", "approx.", "incl.")
# what clauses looks back at: never the whole block
_LONGEST_ABBREVIATION = max(map(len, _ABBREVIATIONS))

_KEEP_DATE = re.compile(
    r"keep only the date|date only|only the date|drop the time|without (?:the )?time", re.I
)

AS_IS_WORDS = (
    r"as[\s-]is|as (?:they|it) (?:are|is)|unchanged|don'?t (?:change|touch|reformat|alter)|(?:keep|"
    r"leave) (?:\w+ ){0,2}alone"
)

_PATTERNS = [
    (kind, rx if isinstance(rx, LeadThen) else re.compile(rx, re.I))
    for kind, rx in (
        ("datetime", r"yyyy-mm-dd[t ]hh:mm(?::ss)?|\bdate[\s-]?times?\b|\btimestamps?\b"),
        ("phone_e164", r"\be\.?\s?164\b"),
        ("date", r"iso[\s-]*8601|yyyy-mm-dd|\biso[\s-]+dates?\b"),
        ("time12", r"(?<!\w)[ap]\.m\.|\bam/pm\b|\b12[\s-]?hour"),
        ("time", r"\bhh:mm(?::ss)?\b|\b24[\s-]?hours?\b|\b24h\b|military time"),
        ("email", r"\bvalid e-?mail|\be-?mail address(?:es)?\b"),
        ("country_alpha2", r"alpha[\s-]?2|iso[\s-]*3166|(?:two|2)[\s-]letter country"),
        (
            "us_state",
            r"\bstate codes?\b|(?:two|2)[\s-]letter (?:us |u\.s\. )?state|state abbreviations?",
        ),
        (
            "code2",
            r"(?:two|2)[\s-]letter(?:\s+\w+)?\s+(?:codes?|abbreviations?)|(?:two|2)[\s-]letters\b",
        ),
        ("yesno", r"[\"'“]?\byes[\"'”]?\s*(?:/|or)\s*[\"'“]?no\b[\"'”]?"),  # yes/no, "yes" or "no"
        ("bool", r"\bboolean\b|\btrue\s*(?:/|or)\s*false\b"),
        (
            "integer",
            r"\bintegers?\b|whole numbers?|\bint\b|\b(?:digits|numbers) only\b|\bonly (?:digits|"
            r"numbers)\b",
        ),
        (
            "number",
            r"\bnumeric\b|\bdecimals?\b|\bnot (?:a )?(?:text|string)\b|\bfloat(?:ing[\s-]point)?\b|"
            r"\b(?:a|as|plain|real|be|are)\s+(?:plain\s+|real\s+|decimal\s+)?numbers?\b|"
            r"\b(?:just|only)(?: \w+){0,2} the number(?: of \w+)?\b",
        ),
        # a marker, not a kind: whole numbers written without a decimal part ("12.0" -> 12, 16.9
        # stays)
        (
            "whole",
            r"(?:no|without(?: a| the)?|drop(?: the)?|remove(?: "
            r"the)?)\s+(?:trailing\s+)?[\"'“]?\.0\b|"
            # an example: "12.0 oz." becomes 12, ... are all 12
            r"[\"“]\s*\d+\.0\b[^\"”\n]{0,24}[\"”]\s*"
            r"(?:are\s+all|all\s+become|becomes?|is|are|->|→|=>|=|"
            r"turns?\s+into)\s*[\"“]?\d+(?![.\d])|"
            # "like 12 or 16": whole
            r"\b(?:like|e\.g\.,?|such as)\s+\d+(?:\s*(?:,|or|and)\s*\d+)+\b(?![.\d])",
        ),
        # a marker: integers written without leading zeros ("01907" -> 1907)
        (
            "nolead",
            r"(?:no|without|drop(?: the)?|remove(?: the)?|"
            r"strip(?: the)?)\s+(?:any\s+)?leading\s+zeros?",
        ),
        ("title_case", r"title[\s-]?case|\bcapitali[sz]ed\b|\bproper[\s-]?case\b"),
        ("upper", r"upper[\s-]?case|\ball caps\b|capital letters"),
        ("lower", r"lower[\s-]?case"),
        (
            "text",
            r"\btrim(?:med)?\b|\bstrip(?:ped)?\b|leading (?:and |or |/ ?)?trailing|extra spaces|"
            r"single spaces?|"
            r"double spaces|whitespace",
        ),
        # a word that leaves, then the nearest word that says how, in its part of the sentence
        # ("lead[^.;]*?target" read by ``scans.LeadThen``: as a pattern, every lead read on to the
        # end of its part)
        # "Leave beer_name and style as they are"
        ("as_is", LeadThen(r"\b(?:leave|keep)\b", rf"\b(?:{AS_IS_WORDS}|alone\b)", re.I)),
        # "leave the comments exactly as the techs typed them"; "... follow house style; leave them"
        ("as_is", LeadThen(r"\bleave\b", r"\b(?:exactly|just|precisely)\s+as\b", re.I)),
        ("as_is", r"\b(?:leave|keep)\s+(?:them|those|these|it|that)\s*(?=[,.;:!)]|$)"),
        (
            "as_is",
            r"\b(?:stays?|remains?|(?:is|are|be) kept)\b(?:\s+(?:exactly|just|"
            rf"precisely))?\s*(?:{AS_IS_WORDS}|"
            # "emp_id and notes stay exactly as they
            r"unchanged\b|untouched\b|intact\b|alone\b|(?=[,.;)!]|$))",
        ),
        # are", "whatever is in it stays", "the notes column stays untouched"
        ("as_is", r"\bhands[\s-]off\b"),  # "sample ids + tech comments: hands off"
        # the words that say a value comes out identical to what came in, whatever the verb
        (
            "as_is",
            r"\b(?:(?:byte|character|char|word|letter)[\s-]for[\s-](?:byte|character|char|word|"
            r"letter)|verbatim|unmodified|unaltered|unedited|pass(?:es|ed)?[\s-]through|"
            r"pass-through)\b",
        ),
        (
            "as_is",
            r"\b(?:read[\s-]only|out of scope|(?:must|should|may|shall|can)\s*(?:not|"
            r"n'?t)\s+(?:be\s+)?(?:changed|"
            r"change|touched|touch|modified|modify|edited|edit|altered|alter|rewritten|"
            r"reformatted)|(?:is|are) fine as "
            # "emp_id and notes are read-only", "must not change: bin"
            r"(?:it|they) (?:is|are))\b(?:\s*:[^.;]*)?",
        ),
        # "Don't
        (
            "as_is",
            r"\b(?:don'?t|do not|never) (?:change|touch|modify|edit|reformat|alter|"
            r"rewrite)\b[^.;]*",
        ),
        # touch the names of beers"; its own entry: "keep it lower case, and don't reformat the
        # phone" has both
        # a negated change in any tense (a negation, up to two words, a change verb's participle)
        (
            "as_is",
            r"\b(?:not|never)\s+(?!just|only|merely|simply)(?:\w+\s+){0,2}?(?:changed|altered|touched|modified|edited|"
            r"rewritten|reformatted|normali[sz]ed|standardi[sz]ed|corrected|cleaned|fixed)\b"
            r"(?:\s*:[^.;]*)?",
        ),
    )
]

_PART_OF = re.compile(
    r"\s*(?:,\s*(?:an?|the)\s+(?:underscore|dash|hyphen|space|colon|slash|dot|comma)\b|"
    r"(?:followed by|plus|joined with|concatenated with)\b)",
    re.I,
)

_QUOTED_VALUE = re.compile(r'"[^"\n]{1,80}"|“[^”\n]{1,80}”')  # a value, short, on one line


def goal_clauses(block: str) -> list[str]:
    """Sentences and ';' parts (not after 'e.g.', 'p.m.', ..., nor inside a double-quoted value:
    '"c. 1994" -> 1994')."""
    out, start = [], 0
    quoted = [q.span() for q in _QUOTED_VALUE.finditer(block)]  # sorted, never overlapping
    starts = [a for a, _ in quoted]
    for m in _CLAUSE_END.finditer(block):
        k = bisect.bisect_left(starts, m.start()) - 1  # the last quote opened before it
        if not (k >= 0 and m.start() < quoted[k][1]) and (
            not block[max(0, m.start() - _LONGEST_ABBREVIATION) : m.start()]
            .lower()
            .endswith(_ABBREVIATIONS)
        ):
            out.append(block[start : m.start()])
            start = m.end()
    out.append(block[start:])
    return [c for c in out if c.strip()]


def goal_sentences(text: str) -> list[str]:
    """The goals' sentences (and ';' parts), bullets and paragraphs joined across their wrapped
    lines."""
    return [c for b in goal_blocks(text or "", lambda body: False) for c in goal_clauses(b)]


def goal_blocks(text: str, is_head) -> list[str]:
    """Bullets with their continuation lines, heading lines, paragraphs; a paragraph of several
    lines none of which ends a sentence with a full stop is one request a line (a chat message),
    each line a block."""
    blocks: list[list[str]] = []
    bullets: list[bool] = []
    in_bullet = False
    for line in text.splitlines():
        if not line.strip():
            blocks.append([])
            bullets.append(False)
            continue
        bullet = _BULLET.match(line)
        body = line[bullet.end() :] if bullet else line.strip()
        new = (
            bool(bullet)
            or (not line[:1].isspace() and (is_head(body) or in_bullet))
            or not blocks
            or not blocks[-1]
        )
        # (a line at the margin after a bullet is no continuation of it: a bullet's own lines are
        # indented)
        if new:
            blocks.append([body.strip()])
            bullets.append(bool(bullet))
            in_bullet = bool(bullet)
        else:
            blocks[-1].append(body.strip())
    out = []
    for lines, bullet in zip(blocks, bullets):
        if not bullet and len(lines) > 1 and not any(line.endswith(".") for line in lines):
            out.extend(lines)
        elif lines:
            out.append(" ".join(lines))
    return out


def detect_kinds(text: str, holds=None) -> list[tuple[str, tuple[str, ...], int, int]]:
    """Format keywords in ``text``: [(kind, allowed, start, end)], overlapping weaker ones dropped
    (``holds``: see ``paren_enum``)."""
    return list(_kinds_of(text, holds))


@lru_cache(maxsize=32)  # the reader asks it of one clause several times (its parts, its keep words)
def _kinds_of(text: str, holds) -> tuple[tuple[str, tuple[str, ...], int, int], ...]:
    found: list[tuple[str, tuple[str, ...], int, int]] = []
    taken = Spans()  # where ``found`` stands (each word was compared with every one before it)
    for kind, rx in _PATTERNS:
        for m in rx.finditer(text):
            if taken.overlapping(m.start(), m.end()):
                continue
            if _PART_OF.match(text, m.end()):
                # "the state code, an underscore and the measure code": only a part of the value
                continue
            taken.add(m.start(), m.end())
            if kind == "yesno":
                found.append(
                    ("enum", tuple(re.findall(r"yes|no", m.group(), re.I)), m.start(), m.end())
                )
            else:
                found.append((kind, (), m.start(), m.end()))
    found = with_digits(text, found)  # after the others: "don't touch the six-digit code"
    kinds = {k for k, *_ in found}
    # "datetime" words alone only upgrade a date statement ("ISO 8601 timestamp"), unless the date
    # is kept alone
    if "datetime" in kinds and ("date" not in kinds or _KEEP_DATE.search(text)):
        if not any(k == "datetime" and "hh" in text[s:e].lower() for k, _, s, e in found):
            found = [f for f in found if f[0] != "datetime"]
    if "datetime" in {k for k, *_ in found}:
        found = [f for f in found if f[0] != "date"]
    if found:  # a format word a negation stands before asks nothing ("no trimming", "not a number")
        negations = Negations(text)
        found = [f for f in found if f[0] == "as_is" or not _negated(text, f, negations)]
        refusal = REFUSAL.search(text)  # "the lower-case marks - do NOT normalise them": described
        if refusal:
            found = [f for f in found if f[0] == "as_is" or f[2] >= refusal.start()]
    enum = enum_values(text, holds) or paren_enum(text, holds)
    if enum:
        found.append(("enum", enum[0], enum[1], enum[1] + 1))
    return tuple(found)


_REMOVAL = re.compile(r"(?:no|without)\s+$", re.I)


def _negated(text: str, found: tuple, negations: Negations) -> bool:
    """Does a negation undo this format word? Not "no" / "without" right before things to remove
    ("no extra spaces", "without dashes": a target); yes before an action or a kind ("no
    trimming", "not a number", "don't convert to ISO")."""
    near = negations.nearest(found[2])
    if near is None:
        return False
    between = text[near[0] : found[2]]
    return not (_REMOVAL.fullmatch(between) and text[found[2] : found[3]].rstrip().endswith("s"))


_CUT = re.compile(r"[,;]|\b(?:and|but|while|whereas)\b", re.I)


def clause_segments(clause: str, groups: list, holds=None) -> list[tuple[str, list]]:
    """A clause naming several fields, cut where a format word stands between two of them: at the
    last comma / and / but after it ("dates as YYYY-MM-DD and phones in E.164", "status is one of a,
    b or c and tier is x or y": a list cut short by the next field is read there too), so each field
    gets only its own part's reading."""
    if len(groups) < 2:
        return [(clause, groups)]
    starts = sorted(
        [start for _, _, start, _ in detect_kinds(clause, holds)]
        + [m.start() for m in ENUM_TRIGGER.finditer(clause)]
    )
    cuts = []
    for before, after in zip(groups, groups[1:]):
        # the last format word between the two (by bisection: each pair looked at every word)
        k = bisect.bisect_left(starts, after[0]) - 1
        if k >= 0 and starts[k] >= before[1]:
            gap = list(_CUT.finditer(clause, starts[k], after[0]))
            if gap:
                cuts.append(gap[-1].start())
    firsts = [a for a, _, _ in groups]  # in order
    out, start = [], 0
    for cut in cuts + [len(clause)]:
        part = groups[bisect.bisect_left(firsts, start) : bisect.bisect_left(firsts, cut)]
        out.append((clause[start:cut], [(a - start, b - start, f) for a, b, f in part]))
        start = cut
    return out
