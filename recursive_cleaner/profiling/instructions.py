"""Reading the user's instructions (by rules, no model) into the format each field should have.

``infer_expectations(instructions, fields, samples)`` returns ``{field: Expectation}``:

1. The instructions are cut into blocks (a bullet with its indented continuation lines, or a
   paragraph) and blocks into clauses (sentences and ``;`` parts).
2. A block whose first line starts with a heading naming fields (``- status: ...``) is about
   those fields only. Elsewhere a format keyword is about the nearest group of field mentions
   before it ("city, county and name are lower case"), else the one after it ("use E.164 for
   phone"), else the subject of the previous clause ("... ; write them as HH:MM").
3. A field is mentioned by its name, its name with ``_``/``-`` as spaces, a plural, the words its
   name abbreviates ("first name" for ``fname``, "quantity" for ``qty``), or a synonym
   (phone/telephone/mobile, email/e-mail, date/dob for date fields, times for time fields, "all
   fields"); a synonym naming several fields counts only in a clause that names no field
   (``mentions.FieldMentions``). A clause that names no field is tied to the one field whose
   ``data`` holds the values it quotes or gives as examples. A clause naming several fields is cut
   where a format word stands between two of them, so each field gets only its own part's reading.
4. Format keywords (E.164, ISO 8601, HH:MM, one of "a", "b", alpha-2, state code, integer,
   number, Title Case, lower case, ...) give a kind; when a field collects several kinds the
   most specific wins (order of ``KINDS``), except that a field named inside the words that leave
   it alone ("leave the postcodes alone: they are text, not numbers") is ``as_is`` whatever else
   the goals say of it.
5. Only fields the instructions give no kind get a fallback: from the name (email, phone,
   date/dob/_at) unless the instructions or the samples contradict it (source "field name"),
   then from the samples' own canonical format (source "data"). Other fields get no entry.
6. ``read_goals`` also says whether the goals mention each field (by name, a synonym, or words
   about every field: "everything", "all columns") and in which words. What the goals say about
   rules across rows (stated keys, duplicates) is read by ``row_rules``.

The goals' text (blocks, clauses, the format words a clause names) is cut and read in
``goal_text``; this module ties what it finds to fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .expectations import (
    KIND_PRIMITIVES,
    KIND_PRIORITY,
    Expectation,
)
from .fallback import fallback_expectation
from .keep_words import asks_change, changed_fields, holds_keep, leaves_rest
from .mentions import FieldMentions, field_tokens, is_date_name
from .scans import LeadThen
from .segments import read_segment
from .document import kept_bullets, run_on_parts
from .goal_text import (
    clause_segments,
    detect_kinds,
    enum_values,
    goal_blocks,
    goal_clauses,
    goal_sentences,
    paren_enum,
)

__all__ = ["infer_expectations", "read_goals", "GoalReading", "goal_sentences", "resolve_kind"]

_VALUE_WORDS = re.compile(r"\b(?:values?|cells?)\b", re.I)
_EVERY_FIELD = re.compile(
    r"\b(?:everything|everywhere|every (?:field|column|value|cell)|all (?:the )?(?:fields|columns|"
    r"values|cells|data|text)|the whole (?:table|file|data(?:set)?))\b",
    re.I,
)
# "leave everything else as it is": not a request about every field (``scans.LeadThen``: as one
# pattern, "leave[^.;]*else", every "leave" read to the end of its part)
_LEAVE_REST = (
    LeadThen(r"\b(?:leave|keep|don'?t|do not|never|no need)\b", r"\b(?:else|other|rest)\b", re.I),
    LeadThen(
        r"\b(?:else|other|rest)\b",
        r"\b(?:as[\s-]is|alone|unchanged|as (?:it|they) (?:is|are))",
        re.I,
    ),
)
_EVERY_FIELD_KINDS = ("lower", "upper", "text")  # what a sentence about every field can ask of each
_TYPOS = re.compile(r"\btypos?\b|\bmisspel\w*|\bspelling (?:mistakes|errors)\b", re.I)


def _about_rest(text: str) -> bool:  # "leave everything else as it is", "the rest as is"
    return any(words.search(text) is not None for words in _LEAVE_REST)


def _by_list(reader: FieldMentions, clause: str) -> tuple[int, int, frozenset] | None:
    """The one field whose data holds most of the values ``clause`` lists, or None."""
    enum = enum_values(clause, reader.holds) or paren_enum(clause, reader.holds)
    return reader.holding(enum[0], enum[1], enum[1] + 1) if enum else None


def resolve_kind(
    field: str, kinds: list[tuple[str, tuple[str, ...]]]
) -> tuple[str, tuple[str, ...]] | None:
    """The kind and allowed values ``kinds`` give this field, most specific first; None for none."""
    return _resolve(field, kinds)


def _held(allowed: tuple[str, ...], values: list | None) -> int:
    """How many of the field's values a list of allowed values holds (case aside)."""
    listed = {str(v).strip().casefold() for v in allowed}
    return sum(str(v).strip().casefold() in listed for v in values or ())


def _resolve(
    field: str, kinds: list[tuple[str, tuple[str, ...]]], values: list | None = None
) -> tuple[str, tuple[str, ...]] | None:
    # two lists for one field ("only Actual or Smart; the letters A/S are the same"): the one its
    # data holds most is the target, the other its variants
    lists = [(k, a) for k, a in kinds if k == "enum" and a]
    if len(lists) > 1 and values:
        best = max(lists, key=lambda ka: _held(ka[1], values))
        kinds = [ka for ka in kinds if ka not in lists or ka == best]
    toks = field_tokens(field) or [field.lower()]
    names = {k for k, _ in kinds}
    resolved = []
    for kind, allowed in kinds:
        if kind == "whole":
            kind = "number"
        if kind == "nolead":
            kind = "integer"
        if kind == "integer" and "whole" in names:
            # "whole numbers without a trailing .0": 7.0 -> 7, and 5.3 stays a number
            kind = "number"
        if kind == "code2":
            kind = "country_alpha2" if "country" in toks else "us_state" if "state" in toks else ""
        if kind in ("lower", "text") and ("email" in toks or "mail" in toks):
            kind = "email"
        if kind == "datetime" and "time" in toks and not is_date_name(toks):
            kind = "time"
        if kind:
            resolved.append((kind, allowed))
    if not resolved:
        return None
    kind, allowed = min(resolved, key=lambda ka: KIND_PRIORITY.index(ka[0]))
    if kind in ("us_state", "country_alpha2"):
        allowed = ("lower",) if "lower" in names and "upper" not in names else ()
    if kind == "number" and "nolead" in names:
        kind = "integer"  # "a plain number without leading zeros": 1907, never 1907.0
    if kind in ("number", "integer"):
        allowed = (("whole_as_int",) if "whole" in names and kind == "number" else ()) + (
            ("no_leading_zeros",) if "nolead" in names else ()
        )
    return kind, allowed


@dataclass(frozen=True)
class GoalReading:
    """What the goals say of one field: its format (or a fallback), whether they mention it, in
    which words."""

    expectation: Expectation | None
    mentioned: bool  # by name, a synonym, or words about every field ("all fields", "everything")
    by_name: bool  # by its own name or a synonym naming it alone
    words: str
    # the clauses ``tie`` named it for (their kinds are in ``expectation``): the data must agree
    tied: str = ""
    asked: bool = False  # the goals ask a change of it: a format, or a verb of cleaning naming it
    # the goals' clauses that leave every field they do not ask for as it is (the same for each)
    rest: str = ""
    said: tuple[str, ...] = ()  # the clauses that mention it, one by one (``words`` joins them)
    # typos asked in a clause naming no field ("Typos: some letters were swapped"): every field's
    typos: bool = False




def read_goals(
    instructions: str,
    fields: list[str],
    samples: dict[str, list] | None = None,
    *,
    data: dict[str, list] | None = None,
    tie=None,
) -> dict[str, GoalReading]:
    """The rule reader: ``{field: GoalReading}`` from plain-language goals (see the module
    docstring).

    ``data`` (each field's sample values, default ``samples``) ties a clause that names no field to
    the one field whose values it quotes or gives as examples. ``tie(clause) -> field | None`` is
    asked, once per clause, about a clause with a format word that neither ties to any field (not
    one about every field or "everything else"); the field it names gets the clause's kinds, marked
    ``tied``, only if the rules read it no kind of its own.
    """
    asked: dict[str, str | None] = {}
    tied: dict[str, list] = {}  # field -> kinds of the clauses ``tie`` named it for

    def ask(clause: str) -> frozenset:
        if clause not in asked:
            answer = tie(clause) if tie is not None else None
            asked[clause] = answer if answer in fields else None
        return frozenset([asked[clause]]) if asked[clause] else frozenset()

    fields = [str(f) for f in fields]
    reader = FieldMentions(fields, samples if data is None else data)
    says = lambda p: bool(detect_kinds(p, reader.holds)) or asks_change(p) or holds_keep(p)  # noqa: E731
    kinds: dict[str, list[tuple[str, tuple[str, ...]]]] = {f: [] for f in fields}
    said: dict[str, list[str]] = {f: [] for f in fields}
    named: set[str] = set()
    typos_anywhere = False
    # fields the goals name inside "leave ... alone" / "don't touch ...": as_is, whatever else
    firm: set[str] = set()
    # asked of every field: a flag beside a field's own kind
    every_kinds: list[tuple[str, tuple[str, ...]]] = []
    changed: set[str] = set()  # fields a verb of cleaning or a target names
    rests: list[str] = []  # "leave everything else alone"
    for block in goal_blocks(instructions or "", lambda body: bool(reader.heading(body))):
        head = reader.heading(block)
        clauses = run_on_parts(goal_clauses(block), reader.groups, says)
        mentioned = [
            reader.groups(c) or ([] if head else [g for g in [reader.by_data(c)] if g])
            for c in clauses
        ]
        named.update(head)
        for groups in mentioned:
            for group in groups:
                if len(group[2]) < len(fields) or len(fields) == 1:
                    named.update(group[2])
        for field in head:
            said[field].append(block)
        if head and all(g[2] <= head for groups in mentioned for g in groups):
            # the whole block is about the heading's fields ("leave the rest alone" is not)
            about = [c for i, c in enumerate(clauses) if not i or not leaves_rest(c)]
            about_text = block if len(about) == len(clauses) else " ".join(about)
            found = detect_kinds(about_text, reader.holds)
            for field in head:
                kinds[field].extend((k, a) for k, a, _, _ in found)
            if not any(k == "as_is" for k, *_ in found):  # "- isbn: 13 digits only"
                changed.update(head)
            continue
        subject: frozenset = head
        for whole, all_groups in zip(clauses, mentioned):
            rest = leaves_rest(whole)
            if rest:  # "leave all other fields alone": not every field, the ones not asked for
                rests.append(whole)
                all_groups = [g for g in all_groups if len(g[2]) < len(fields) or len(fields) == 1]
            if subject and len(fields) > 1:  # "every value" after a subject:
                all_groups = [  # the subject's values, not every field's
                    (a, b, subject)
                    if len(g) == len(fields) and _VALUE_WORDS.search(whole, a, b)
                    else (a, b, g)
                    for a, b, g in all_groups
                ]
            # "Test names should be one of Glucose, Sodium, ...": the one
            if not all_groups and not subject:
                # field whose data holds the list
                all_groups = [g for g in [_by_list(reader, whole)] if g]
                named.update(*(g[2] for g in all_groups))
            if (
                not all_groups
                and _EVERY_FIELD.search(whole)
                and not _about_rest(whole)
                and not rest
            ):
                every_kinds.extend(
                    (kind, allowed)
                    for kind, allowed, _, _ in detect_kinds(whole, reader.holds)
                    # "all text in this table is lower case"
                    if kind in _EVERY_FIELD_KINDS
                )
            for _, _, group in all_groups:
                for field in group:
                    said[field].append(whole)
            # typos in a clause naming no field, with no subject before it: every field's
            typos_anywhere = typos_anywhere or (
                not all_groups and not rest and not subject and bool(_TYPOS.search(whole))
            )
            # "Some come in as 03/02/2024 - those are day first": about the last subject
            if not all_groups and not rest:
                for field in subject:
                    said[field].append(whole)
            if not rest and not any(k == "as_is" for k, *_ in detect_kinds(whole, reader.holds)):
                changed.update(reader.heading(whole))  # "pub_year: YYYY (c2001 -> 2001)"
            # a clause naming no field is the heading's, unless a later field became the subject
            if (
                head
                and not rest
                and (all_groups or subject <= head)
                and all(g[2] <= head for g in all_groups)
            ):
                for field in head:
                    kinds[field].extend((k, a) for k, a, _, _ in detect_kinds(whole, reader.holds))
                changed.update(changed_fields(whole, [(-1, -1, head)], reader.holds))
                continue
            askable = (
                tie is not None
                and not rest
                and not all_groups
                and not _EVERY_FIELD.search(whole)
                and not _about_rest(whole)
                and not _TYPOS.search(whole)
            )
            # each field its own part's reading
            for clause, groups in clause_segments(whole, all_groups, reader.holds):
                # "We need them in international format": the subject
                about = groups or [(-1, -1, subject)]
                changed.update(changed_fields(clause, about, reader.holds))
                # a clause about the fields not asked for is about no subject
                subject = (
                    read_segment(
                        clause,
                        groups,
                        frozenset() if rest else subject,
                        kinds,
                        firm,
                        ask if askable else None,
                        tied,
                        reader.last,
                        reader.holds,
                    )
                    or subject
                )
    # "fix typos everywhere", or typos in a sentence that names no field: every field is in scope
    every = typos_anywhere or any(
        _EVERY_FIELD.search(c) and not _about_rest(c) for c in goal_sentences(instructions)
    )
    for field in kept_bullets(instructions or "", reader):  # a keep line over bullets
        firm.add(field)
        kinds[field].append(("as_is", ()))
    out: dict[str, GoalReading] = {}
    for field in fields:
        words = " ".join(dict.fromkeys(said[field]))
        # only where the rules read none
        guessed = not kinds[field] and field not in firm and bool(tied.get(field))
        own = tied[field] if guessed else kinds[field]
        # "fix the ALL CAPS and all-lowercase ones": the wrong
        if {"upper", "lower"} <= {k for k, _ in own}:
            # values' cases, neither one the target
            own = [(k, a) for k, a in own if k not in ("upper", "lower")]
        values = ((samples if data is None else data) or {}).get(field)
        best = (
            ("as_is", ())
            if field in firm
            else _resolve(field, own + every_kinds, values)
            if own
            else None
        )
        exp = (
            Expectation(best[0], best[1], "instructions", KIND_PRIMITIVES[best[0]])
            if best
            else fallback_expectation(field, words, (samples or {}).get(field))
        )
        # no kind of its own, none from its name or data: what every field gets
        if exp is None and every_kinds:
            kind, allowed = _resolve(field, every_kinds) or (None, ())
            exp = (
                Expectation(kind, allowed, "instructions", KIND_PRIMITIVES[kind]) if kind else None
            )
        clauses = " ".join(c for c, answer in asked.items() if answer == field) if guessed else ""
        out[field] = GoalReading(
            exp,
            bool(said[field]) or every,
            field in named,
            words,
            clauses,
            # words about every field ask a change of each only with typos or a format for all:
            # "everything else is to be left how it is" asks nothing (a mention is no ask)
            field not in firm
            and (
                typos_anywhere
                or bool(every_kinds)
                or field in changed
                or any(k != "as_is" for k, _ in own)
            ),
            " ".join(dict.fromkeys(rests)),
            tuple(dict.fromkeys(said[field])),
            typos_anywhere and field not in firm,
        )
    return out


def infer_expectations(
    instructions: str, fields: list[str], samples: dict[str, list] | None = None
) -> dict[str, Expectation]:
    """Rule-based ``{field: Expectation}`` from plain-language instructions (see the module
    docstring)."""
    return {
        f: r.expectation
        for f, r in read_goals(instructions, fields, samples).items()
        if r.expectation
    }
