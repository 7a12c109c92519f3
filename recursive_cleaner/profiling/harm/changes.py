"""What a change does to a value's content (``changes``): the names ``CHANGES`` lists, read from
the old and the new text and the field's ``Portrait``, no kind involved."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ...toolkit import unit_dimension
from ..kinds._values import is_placeholder, value_shape
from .portrait import (
    ZERO_CODE,
    Portrait,
    blank,
    case_of,
    digits_of,
    folded,
    inside,
    plain_number,
    value_text,
    words_of,
)

__all__ = ["CHANGES", "changes"]

CHANGES = frozenset(
    {
        "sign",
        "zeros",
        "labels",
        "words",
        "spelling",
        "typo",
        "repair",
        "added",
        "trimmed",
        "digits",
        "converted",
        "filled",
        "erased",
        "unknown",
        "merge",
        "recase",
        "reshape",
        "spacing",
    }
)
"""Every change this judge names (what ``Kind.changes`` and a ``Licence`` may allow)."""

_UNIT_MARK = re.compile(r"[^\W\d_]|[°%‰′″µ$€£¥₹]")
# a minus that is the value's sign: first, after brackets, a currency code or sign at most, before
# its number; never a hyphen after a letter or a digit ("ORD-5000", "2024-05-06", "555 - 1234")
_LEADING_SIGN = re.compile(r"[\s(\[]*(?:[A-Za-z]{3}\s)?[$€£¥₹]?\s?[-−‒–]\s?[$€£¥₹]?\s?\.?\d")
# ISO 4217 currency codes: written around an amount, a label like a unit
_CURRENCIES = frozenset(
    (
        "aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd btn "
        "bwp byn bzd cad cdf chf clp cny cop crc cuc cup cve czk djf dkk dop dzd egp ern etb eur "
        "fjd fkp gbp gel ghs gip gmd gnf gtq gyd hkd hnl hrk htg huf idr ils inr iqd irr isk jmd "
        "jod jpy kes kgs khr kmf kpw krw kwd kyd kzt lak lbp lkr lrd lsl lyd mad mdl mga mkd mmk "
        "mnt mop mru mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd omr pab pen pgk php pkr pln "
        "pyg qar ron rsd rub rwf sar sbd scr sdg sek sgd shp sll sos srd ssp stn svc syp szl thb "
        "tjs tmt tnd top try ttd twd tzs uah ugx usd uyu uzs ves vnd vuv wst xaf xcd xof xpf yer "
        "zar zmw zwl"
    ).split()
)


_SEPARATORS = re.compile(r"(?<=\d)[.,](?=\d)")


def _negative(text: str, number: float | None) -> bool:
    """Does the value write a negative number: a minus sign before its first digits (after a
    currency at most), never a hyphen inside a code or a date?"""
    return number < 0 if number is not None else bool(_LEADING_SIGN.match(text))


def _near(a: str, b: str) -> bool:
    """A near spelling: at most one edit in four characters (at least one); two letters swapped
    are one edit ("Germnay")."""
    limit = max(1, min(len(a), len(b)) // 4)
    if abs(len(a) - len(b)) > limit or len(a) > 60 or len(b) > 60:
        return False
    before, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if before is not None and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], before[j - 2] + 1)  # a transposition
        if min(cur) > limit:
            return False
        before, prev = prev, cur
    return prev[-1] <= limit


def changes(old: Any, new: Any, shape_of: Portrait | None = None) -> frozenset[str]:
    """What the change from ``old`` to ``new`` does to the value's content (module docstring); the
    portrait tells labels from content words, and the established values (``merge``)."""
    p = shape_of or Portrait()
    if blank(old):
        return frozenset() if blank(new) else frozenset({"filled"})
    raw_a, raw_b = value_text(old), value_text(new)
    a, b = raw_a.strip(), raw_b.strip()
    if blank(new):
        if is_placeholder(a):
            return frozenset()
        return frozenset({"erased" if digits_of(a) else "unknown"})
    if a.split() == b.split():  # the same words: only the whitespace around or between them
        return frozenset({"spacing"}) if raw_a != raw_b else frozenset()
    found: set[str] = set()
    num_a, num_b = plain_number(a), plain_number(b)
    same_number = num_a is not None and num_a == num_b
    if _negative(b, num_b) != _negative(a, num_a):
        found.add("sign")  # a minus invented, or one lost
    zeros = {m.group() for m in ZERO_CODE.finditer(a)}
    if zeros and not all(z in b for z in zeros):
        found.add("zeros")
    da, db = digits_of(a), digits_of(b)
    if da == db and num_a is not None and num_b is not None and not same_number:
        if len(_SEPARATORS.findall(b)) > len(_SEPARATORS.findall(a)):
            found.add("digits")  # a decimal point invented among the same digits: 225 -> 2.25
    elif da != db and not same_number:
        if sorted(da) != sorted(db) and (inside(da, db) or inside(db, da)):
            found.add("trimmed")
        else:
            found.add("converted" if _UNIT_MARK.search(a) else "digits")
    wa, wb = Counter(words_of(a)), Counter(words_of(b))
    dropped, added = list((wa - wb).elements()), list((wb - wa).elements())
    for w in list(dropped):
        near = next((x for x in added if _near(w, x)), None)
        if near is not None:
            dropped.remove(w)
            added.remove(near)
            # a rare spelling of a word many values hold is a typo mended
            found.add("typo" if near in p.common and w not in p.common else "spelling")
    if dropped:
        label = all(
            w in p.labels or w in _CURRENCIES or unit_dimension(w) is not None for w in dropped
        )
        found.add("labels" if label else "words")
    if added:
        found.add("added")
    if a in p.established and b in p.established and folded(a).split() != folded(b).split():
        found.add("merge")
    if p.case and case_of(a) == p.case != case_of(b) and folded(a).split() == folded(b).split():
        found.add("recase")  # the case most values write made one few write
    if not same_number and value_shape(a) != value_shape(b):
        found.add("reshape")
        if _repaired(a, b, p):
            found.add("repair")
    return frozenset(found)


def _repaired(a: str, b: str, p: Portrait) -> bool:
    """A value put right by replacing a few of its characters in place, nothing dropped or added:
    out of the field's usual shape into it (``'1?0%'`` -> ``'100%'``, ``'3x233'`` -> ``'35233'``),
    or a value few rows hold into one many rows hold (``'12x main sxreet'`` -> ``'12 main
    street'``: the data's own word for it)."""
    if len(a) != len(b):
        return False
    usual = p.usual is not None and value_shape(b) == p.usual and value_shape(a) != p.usual
    held = b in p.established and a not in p.established
    # a value many rows hold is the data's own word: two characters of a short one may be put right
    limit = max(2 if held else 1, len(a) // 4)
    return (usual or held) and sum(x != y for x, y in zip(a, b)) <= limit


# a date or time template: runs of one repeated letter (YYYY, MM, dd, hh, mm, ss) joined by
