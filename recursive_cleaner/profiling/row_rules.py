"""What the goals say about rules across rows: keys whose rows agree, and whether to remove duplicates."""

from __future__ import annotations

import re

__all__ = ["stated_keys", "stated_fields", "asks_dedup"]

_AGREE_WORDS = re.compile(r"\b(?:same|identical|agree|consistent|match)", re.I)


def stated_keys(instructions: str, fields: list[str]) -> list[str]:
    """Fields the goals name as a key whose rows agree, e.g. "the same X always has", "every row of that X"."""
    found = []
    for sentence in re.split(r"(?<=[.;!?])\s+|\n\s*\n", instructions or ""):
        if not _AGREE_WORDS.search(sentence):
            continue
        for fld in fields:
            name = "[ _]".join(re.escape(part) for part in re.split(r"[ _]+", fld.strip()))
            if not name:
                continue
            key_phrases = (
                rf"\bsame\s+{name}\s+(?:\w+\s+)?(?:has|have|gets?|shares?)\s+the\s+same\b",
                rf"\b(?:rows?|records?|entries|lines)\s+(?:of|for|with|sharing)\s+"
                rf"(?:that|the\s+same|a|one|each|every|a\s+given)\s+{name}\b",
                rf"\b(?:for|within|per)\s+(?:each|every|a\s+given|one|the\s+same)\s+{name}\b",
            )
            if fld not in found and any(re.search(p, sentence, re.I) for p in key_phrases):
                found.append(fld)
    return found


def stated_fields(instructions: str, fields: list[str]) -> dict[str, list[str]]:
    """For each stated key, the other fields named in the sentences that state it ("... agree on the condition
    and the measure name"); an empty list when those sentences name no other field."""
    out: dict[str, list[str]] = {}
    keys = stated_keys(instructions, fields)
    for sentence in re.split(r"(?<=[.;!?])\s+|\n\s*\n", instructions or ""):
        for key in stated_keys(sentence, fields):
            named = [f for f in fields if f != key and f not in keys and _names(sentence, f)]
            out.setdefault(key, [])
            out[key] += [f for f in named if f not in out[key]]
    return out


def _names(sentence: str, field: str) -> bool:
    words = [w for w in re.split(r"[ _\-]+", field.strip().lower()) if w]
    if not words:
        return False
    pattern = r"[\s_\-]+".join(re.escape(w) for w in words)
    return bool(re.search(rf"(?<![\w]){pattern}(?:e?s)?(?![\w])", sentence, re.I))


_DUPLICATES = re.compile(r"\bduplicat\w*|\bde-?dup\w*", re.I)
_REMOVE = re.compile(r"\b(?:remov\w*|drop\w*|delet\w*|eliminat\w*|get\s+rid|de-?dup\w*|merg\w*|collaps\w*|discard\w*|"
                     r"filter\w*\s+out|only\s+(?:one|once|the\s+first))", re.I)
_KEEP = re.compile(r"\b(?:keep\w*|kept|retain\w*|preserv\w*|leav\w*|left)\s+(?:\w+\s+){0,3}?"
                   r"(?:records?|rows?|entries|duplicat\w*|everything|all|every|them|as\s+(?:is|they\s+are))", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|nor|without|don'?t|doesn'?t|mustn'?t|shouldn'?t|separate(?:ly)?|later|"
                       r"out\s+of\s+scope|elsewhere|fine|allowed|ok(?:ay)?)\b|n't\b", re.I)


def asks_dedup(instructions: str | None) -> bool:
    """The goals ask to remove duplicate records (a negated or "keep them" mention is no request)."""
    for sentence in re.split(r"(?<=[.;!?])\s+|\n", instructions or ""):
        if not _DUPLICATES.search(sentence):
            continue
        if _KEEP.search(sentence) or _NEGATION.search(sentence):
            continue
        if _REMOVE.search(sentence) or re.search(r"\bde-?dup", sentence, re.I):
            return True
    return False
