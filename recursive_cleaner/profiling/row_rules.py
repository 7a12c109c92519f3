"""What the goals say about rules across rows: keys whose rows agree, and whether to remove
duplicates."""

from __future__ import annotations

import re

from .mentions import FieldMentions

__all__ = ["stated_keys", "stated_fields", "asks_dedup", "mended_fields", "MEND_WORDS"]

MEND_WORDS = re.compile(
    r"\btypos?\b|\bmisspel\w*|\bspell(?:ing|ings|ed|t)?\b|\bvariants?\b|\binconsisten\w*"
    r"|\bconsisten\w*|\bcanonical\b|\bmost (?:of the )?(?:rows|lines|records)\b",
    re.I,
)
"""Words that ask a rule across rows to mend a field's values (the spelling most rows have): typos,
misspellings, variants, consistency. A field a clause with them names may be written by a rule
across rows (vocabulary, majority variants) though no format binds it."""

_AGREE_WORDS = re.compile(r"\b(?:same|identical|agree|consistent|match)", re.I)
_SENTENCES = re.compile(r"(?<=[.;!?])\s+|\n\s*\n")
_ROWS_OF = re.compile(
    r"(?:\b(?:rows?|records?|entries|lines)\s+(?:of|for|with|sharing)\s+(?:that|the\s+same|a|one|"
    r"each|"
    r"every|a\s+given)|\b(?:for|within|per)\s+(?:each|every|a\s+given|one|the\s+same))\s+$",
    re.I,
)
# "the same X always has the same Y", "(same X)
_SAME = re.compile(r"\b(?:same|a|an|each|every|one)\s+$", re.I)
_HAS_SAME = re.compile(
    r"[\s)]*(?:\w+\s+){0,2}(?:has|have|gets?|shares?|goes\s+with|comes\s+with|maps\s+to)\s+the\s+"
    # should always have the same", "a measure code always goes with the same"
    # "..., and rows with the same X ..."
    r"same\b",
    re.I,
)
_APART = re.compile(r"[,;]\s*(?:and|but|so|while|whereas)\b|;", re.I)


def _stated_in(sentence: str, reader: FieldMentions) -> tuple[list[tuple[str, int]], list]:
    """([(key, where)] a sentence states rows agree on, its groups of field mentions) — by
    ``FieldMentions``, so a key or field is found by its words, its abbreviation or a synonym as
    anywhere else in the goals."""
    groups = reader.groups(sentence)
    if not _AGREE_WORDS.search(sentence):
        return [], groups
    keys = []
    for start, end, fields in groups:
        before = sentence[max(0, start - 60) : start]
        if len(fields) == 1 and (
            _ROWS_OF.search(before) or (_SAME.search(before) and _HAS_SAME.match(sentence, end))
        ):
            keys.append((next(iter(fields)), start))
    return keys, groups


def stated_keys(instructions: str, fields: list[str]) -> list[str]:
    """Fields the goals name as a key whose rows agree, e.g. "the same X always has", "every row of
    that X"."""
    reader, found = FieldMentions([str(f) for f in fields]), []
    for sentence in _SENTENCES.split(instructions or ""):
        found += [k for k, _ in _stated_in(sentence, reader)[0] if k not in found]
    return found


def stated_fields(instructions: str, fields: list[str]) -> dict[str, list[str]]:
    """For each stated key, the other fields named with it ("... agree on the condition and the
    measure name"): in the sentence that states it, from the key to the next key the sentence states
    (the fields before the first key go to it, unless ", and" or ";" stands between); an empty list
    when they name no other field. A field the same sentence leaves alone ("..., but leave the names
    as they are") is not stated with the key."""
    # the clause reader, for the leave-alone words
    from .instructions import read_goals  # noqa: PLC0415

    fields = [str(f) for f in fields]
    reader, out = FieldMentions(fields), {}
    sentences = [(s, *_stated_in(s, reader)) for s in _SENTENCES.split(instructions or "")]
    keys = {k for _, found, _ in sentences for k, _ in found}
    for sentence, found, groups in sentences:
        if not found:
            continue
        left = {
            f
            for f, r in read_goals(sentence, fields).items()
            if r.expectation is not None
            and r.expectation.kind == "as_is"
            and r.expectation.source == "instructions"
        }
        for key, _ in found:
            out.setdefault(key, [])
        for start, end, named in groups:
            after = [k for k, at in found if at <= start]
            if not after and _APART.search(sentence, end, found[0][1]):
                # "a hospital has one name ..., and rows with the same measure code agree": not the
                # code's
                continue
            key = (after or [found[0][0]])[-1]
            out[key] += [
                f
                for f in fields
                if f in named and f not in keys and f not in left and f not in out[key]
            ]
    return out


_DUPLICATES = re.compile(r"\bduplicat\w*|\bde-?dup\w*", re.I)
_REMOVE = re.compile(
    r"\b(?:remov\w*|drop\w*|delet\w*|eliminat\w*|get\s+rid|de-?dup\w*|merg\w*|collaps\w*|"
    r"discard\w*|"
    r"filter\w*\s+out|only\s+(?:one|once|the\s+first))",
    re.I,
)
_KEEP = re.compile(
    r"\b(?:keep\w*|kept|retain\w*|preserv\w*|leav\w*|left)\s+(?:\w+\s+){0,3}?"
    r"(?:records?|rows?|entries|duplicat\w*|everything|all|every|them|as\s+(?:is|they\s+are))",
    re.I,
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|nor|without|don'?t|doesn'?t|mustn'?t|shouldn'?t|separate(?:ly)?|later|"
    r"out\s+of\s+scope|elsewhere|fine|allowed|ok(?:ay)?)\b|n't\b",
    re.I,
)


def asks_dedup(instructions: str | None) -> bool:
    """The goals ask to remove duplicate records (a negated or "keep them" mention is no
    request)."""
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", instructions or ""):
        if not _DUPLICATES.search(sentence):
            continue
        if _KEEP.search(sentence) or _NEGATION.search(sentence):
            continue
        if _REMOVE.search(sentence) or re.search(r"\bde-?dup", sentence, re.I):
            return True
    return False


_EVERY = re.compile(
    r"\b(?:everywhere|every (?:field|column)|all (?:the )?(?:fields|columns|text|values|data))\b",
    re.I,
)


def mended_fields(said: dict[str, tuple[str, ...]], keeps) -> set[str]:
    """The fields a clause with ``MEND_WORDS`` is about (``said``: each field's clauses, as the
    reader attributed them), not one that leaves fields alone (``keeps(clause)``); every field when
    such a clause is about every field ("fix the typos everywhere"): what a rule across rows may
    mend though no format binds it."""
    parts = {  # each clause's sentences that ask the mending: "status: fix the typos. Leave ..."
        c: [p for p in _SENTENCES.split(c) if MEND_WORDS.search(p) and not keeps(p)]
        for clauses in said.values()
        for c in clauses
    }
    mending = {c for c, found in parts.items() if found}
    if any(_EVERY.search(p) for c in mending for p in parts[c]):
        return set(said)
    return {name for name, clauses in said.items() if mending.intersection(clauses)}
