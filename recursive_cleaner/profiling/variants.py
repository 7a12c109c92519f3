"""Spelling variants of one value, and free text, in a field's values (the profiler's steps 3-4).

``variant_groups``: the same value spelled differently — equal after casefold, strip, punctuation
and whitespace, or a small typo (difflib ratio >= ``FUZZY_RATIO`` and a small edit distance to a
more frequent spelling, letters only) — most frequent spelling first. ``is_free_text``: names and
descriptions, never an issue. ``value_family``: plain number, word-like text, else the shape.
"""

from __future__ import annotations

import difflib
import itertools
import re

from .expectations import is_placeholder, value_shape

__all__ = ["variant_groups", "is_free_text", "value_family", "FUZZY_RATIO", "FUZZY_MAX_KEYS"]

FUZZY_RATIO = 0.85
FUZZY_MAX_KEYS = 300
_PLAIN_NUM = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")


def _wordy(text: str) -> bool:
    chars = [c for c in text if not c.isspace()]
    letters = sum(c.isalpha() for c in chars)
    return letters >= 2 and letters * 2 >= len(chars)


def value_family(text: str) -> str:
    if _PLAIN_NUM.fullmatch(text):
        return "<number>"
    return "<words>" if _wordy(text) else value_shape(text)


def is_free_text(str_counts: dict[str, int]) -> bool:
    total = sum(str_counts.values())
    if not total:
        return False
    wordy = sum(n for s, n in str_counts.items() if _wordy(s))
    words = sum(len(s.split()) * n for s, n in str_counts.items()) / total
    distinct = len(str_counts)
    return wordy >= 0.8 * total and distinct >= 0.5 * total and (distinct >= 20 or words >= 2)


_SEPARATORS = re.compile(r"[\s.,_'\"/()\[\]:;!?*]+|(?<=\w)-(?=\w)")


def _norm_key(text: str) -> str:
    """Casefold, '&' -> 'and', no spaces/separators; signs stay ('A+' and 'A-' are different
    values)."""
    return _SEPARATORS.sub("", text.casefold().replace("&", "and"))


def _edit_distance(a: str, b: str, limit: int) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def _fuzzy_ok(key: str) -> bool:
    return len(key) >= 4 and not any(c.isdigit() for c in key)


def _close(sm: difflib.SequenceMatcher, key: str, root: str, words: dict[str, list[str]]) -> bool:
    """``key`` is a small typo of ``root``: high difflib ratio, few edits, not a prefix/suffix word
    ('inactive').

    Keys under 5 characters only match a plural ('book'/'books'): 'apos'/'abpos' are blood types;
    nor does a changed word of 1-2 letters ('O negative'/'A negative').
    """
    short, long_ = sorted((key, root), key=len)
    if long_ in (short + "s", short + "es"):
        return True
    if len(short) < 5:
        return False
    a, b = words[key], words[root]
    if len(a) == len(b) and any(x != y and min(len(x), len(y)) <= 2 for x, y in zip(a, b)):
        return False
    limit = max(2, len(long_) // 15)
    if len(long_) - len(short) > limit:
        return False
    if len(long_) - len(short) >= 2 and (long_.startswith(short) or long_.endswith(short)):
        return False
    sm.set_seq1(root)
    if min(sm.real_quick_ratio(), sm.quick_ratio()) < FUZZY_RATIO or sm.ratio() < FUZZY_RATIO:
        return False
    return _edit_distance(key, root, limit) <= limit


def variant_groups(str_counts: dict[str, int]) -> list[list[str]]:
    """Groups (>= 2 spellings, most frequent first) of strings that are one value spelled
    differently."""
    by_key: dict[str, list[str]] = {}
    for text, _ in sorted(str_counts.items(), key=lambda t: -t[1]):
        key = _norm_key(text)
        if key and not is_placeholder(text):
            by_key.setdefault(key, []).append(text)
    weight = {k: sum(str_counts[s] for s in spellings) for k, spellings in by_key.items()}
    words = {k: re.findall(r"[^\W_]+", spellings[0].casefold()) for k, spellings in by_key.items()}
    order = sorted(by_key, key=lambda k: -weight[k])
    root = {k: k for k in order}
    if len(order) <= FUZZY_MAX_KEYS:
        roots: list[str] = []  # by weight, most frequent first
        sm = difflib.SequenceMatcher(None, autojunk=False)
        for key in order:
            if not _fuzzy_ok(key):
                continue
            sm.set_seq2(key)
            # a typo is at most half as frequent as the spelling it is a typo of ('north' vs 'south'
            # are not)
            match = next(
                (
                    r
                    for r in itertools.takewhile(lambda r: weight[r] >= 2 * weight[key], roots)
                    if _close(sm, key, r, words)
                ),
                None,
            )
            if match:
                root[key] = match
            else:
                roots.append(key)
    groups: dict[str, list[str]] = {}
    for key in order:
        groups.setdefault(root[key], []).extend(by_key[key])
    out = [sorted(g, key=lambda s: -str_counts[s]) for g in groups.values() if len(g) >= 2]
    return sorted(out, key=lambda g: -sum(str_counts[s] for s in g))
