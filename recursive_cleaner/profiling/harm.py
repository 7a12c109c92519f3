"""The judge of harm that does not trust the reading: what a change does to a value's content, and
whether the field's evidence asks exactly that.

The kind's judge (``improvement``) asks "does the value conform now?" under the kind the goals were
read as; when the reading is wrong, the right values are the "wrong" ones and rewriting them looks
like a fix. This judge needs no kind. It compares the old and new text of each changed value and
names what the change did to its content (``changes``; ``CHANGES`` lists them):

- ``sign``: a minus sign no sign of the old value stands for (``'ORD-5000'`` -> -5000, ``'(12)'``
  -> -12);
- ``zeros``: a code's leading zeros dropped (``'01067'`` -> 1067; three digits or more);
- ``labels`` / ``words``: letter words dropped. A *label* is a word the field's own data writes
  around many other values (a unit, a currency, ``ORD``, ``ISBN``); any other word is content
  (``'1252 AD'`` -> 1252 drops ``AD``);
- ``spelling``: a word replaced by a near spelling (``typo`` when the new word is one many values
  hold and the old one is not: a typo mended, always allowed); ``added``: letters the old value
  does not hold; ``repair``: a value outside the field's usual shape put into it by replacing a few
  characters in place (``'1?0%'`` -> ``'100%'``), allowed with the changes it makes;
- ``trimmed``: digits dropped or added, the one value's digits inside the other's in order
  (``'52k'`` -> 52000, a timestamp cut to its date); ``digits``: digits changed or reordered;
  ``converted``: digits changed where the old value carries a unit or words (a conversion may do
  it). A change to the same number is none of these;
- ``filled``: a blank given a value; ``erased``: a value blanked (``unknown``: a value with no digit
  that is no placeholder, blanked);
- ``merge``: two values the data holds often each (a small vocabulary's) made one;
- ``reshape``: a value of the field's usual shape (at least half its values: the ``Portrait``) or
  of a shape the goals write as a target, given another shape (``'2025-01-06'`` ->
  ``'2025-01-06T00:00:00'``, ``'Aisha'`` -> ``'aisha'``, ``'OUT'`` -> ``'out'``).

A change is harm unless the field's ``Licence`` — made from the spec's evidence, never from a guess
— allows each of its changes: the kind a clause binds it to (each kind declares what its writing
does, ``Kind.changes``), an example pair making the same changes, an allowed-values list the new
value is on and the old one is not, a conversion or a stated key whose clause names the field, or a
near spelling of a value many rows hold. A usual shape is rewritten only where an example's input
has it, the goals write a target shape other than it, their list says the value is wrong, or a
conversion or a key writes the field; a coded field's zeros only where an example drops them. A
wrong reading may cost recall, never a right value.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..toolkit import unit_dimension
from .kinds import get as kind_of
from .spec_file import EVIDENCE_SOURCES
from .kinds._values import PLAIN_NUMBER, is_placeholder, value_shape

__all__ = [
    "CHANGES",
    "Portrait",
    "Licence",
    "HarmCheck",
    "portrait",
    "changes",
    "harm",
    "written_shapes",
    "harm_check",
]

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
        "reshape",
    }
)
"""Every change this judge names (what ``Kind.changes`` and a ``Licence`` may allow)."""

_WORD = re.compile(r"[^\W\d_]+")
_DIGIT_RUN = re.compile(r"\d+")
_ZERO_CODE = re.compile(r"(?<![\d.,])0\d{2,}")
_UNIT_MARK = re.compile(r"[^\W\d_]|[°%‰′″µ$€£¥₹]")
# a minus that is the value's sign: first, after brackets, a currency code or sign at most, before
# its number; never a hyphen after a letter or a digit ("ORD-5000", "2024-05-06", "555 - 1234")
_LEADING_SIGN = re.compile(r"[\s(\[]*(?:[A-Za-z]{3}\s)?[$€£¥₹]?\s?[-−‒–]\s?[$€£¥₹]?\s?\.?\d")
_MIN_SAMPLE = 8  # fewer values than this: no usual shape, no established value, no label
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


def _text(value: Any) -> str:
    """A value's text as a file would hold it."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))  # 12.0 is written "12" by a CSV of whole numbers
    return str(value)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _words(text: str) -> list[str]:
    return _WORD.findall(_fold(text))


def _digits(text: str) -> str:
    return "".join(_DIGIT_RUN.findall(unicodedata.normalize("NFKC", text)))


def _inside(short: str, long: str) -> bool:
    """``short``'s characters appear in ``long`` in order."""
    it = iter(long)
    return all(ch in it for ch in short)


def _number(value: Any) -> float | None:
    """The finite number a number or a plain numeric text writes, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = _text(value).strip()
        if len(text) > 40 or not PLAIN_NUMBER.fullmatch(text):
            return None
        number = float(text)
    return number if number - number == 0 else None  # not inf or nan


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


@dataclass(frozen=True)
class Portrait:
    """What one field's own values say, read by no rule: the shape most have, the values many rows
    hold, the words that label values, whether it holds codes with leading zeros."""

    count: int = 0
    usual: str | None = None  # the shape most values (more than half) have
    uniform: bool = False  # nearly every value (97%) has the usual shape
    shapes: frozenset[str] = frozenset()  # every shape the values have
    established: frozenset[str] = frozenset()  # values (stripped text) many rows hold
    labels: frozenset[str] = frozenset()  # casefolded words written around many other values
    coded: bool = False  # some values are codes with leading zeros ("01067")
    common: frozenset[str] = frozenset()  # casefolded words many values hold (labels among them)

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "usual": self.usual,
            "uniform": self.uniform,
            "established": sorted(self.established)[:50],
            "labels": sorted(self.labels)[:50],
            "coded": self.coded,
        }


def portrait(values: Iterable[Any]) -> Portrait:
    """The ``Portrait`` of a field from its values (a sample of them will do)."""
    texts = [_text(v).strip() for v in values if not _blank(v)]
    n = len(texts)
    if n < _MIN_SAMPLE:
        return Portrait(count=n)
    shapes = Counter(value_shape(t) for t in texts)
    shape, top = shapes.most_common(1)[0]
    floor = max(3.0, 0.02 * n)
    established = frozenset(v for v, c in Counter(texts).items() if c >= floor)
    seen: Counter = Counter()
    rests: dict[str, set[str]] = {}
    for t in texts:
        folded = _fold(t)
        for w in set(_words(t)):
            seen[w] += 1
            rest = rests.setdefault(w, set())
            if len(rest) < 3:
                rest.add(folded.replace(w, "", 1))
    common = frozenset(w for w, c in seen.items() if c >= max(3.0, 0.01 * n))
    labels = frozenset(w for w in common if len(rests[w]) >= 3)
    zero_led = sum(1 for t in texts if _ZERO_CODE.search(t))
    return Portrait(
        count=n,
        usual=shape if top * 2 > n else None,
        uniform=top >= 0.97 * n,
        shapes=frozenset(shapes),
        established=established,
        labels=labels,
        coded=zero_led >= 2 and zero_led >= 0.02 * n,
        common=common,
    )


def changes(old: Any, new: Any, shape_of: Portrait | None = None) -> frozenset[str]:
    """What the change from ``old`` to ``new`` does to the value's content (module docstring); the
    portrait tells labels from content words, and the established values (``merge``)."""
    p = shape_of or Portrait()
    if _blank(old):
        return frozenset() if _blank(new) else frozenset({"filled"})
    a, b = _text(old).strip(), _text(new).strip()
    if _blank(new):
        if is_placeholder(a):
            return frozenset()
        return frozenset({"erased" if _digits(a) else "unknown"})
    if a == b:
        return frozenset()
    found: set[str] = set()
    num_a, num_b = _number(a), _number(b)
    same_number = num_a is not None and num_a == num_b
    if _negative(b, num_b) != _negative(a, num_a):
        found.add("sign")  # a minus invented, or one lost
    zeros = {m.group() for m in _ZERO_CODE.finditer(a)}
    if zeros and not all(z in b for z in zeros):
        found.add("zeros")
    da, db = _digits(a), _digits(b)
    if da != db and not same_number:
        if sorted(da) != sorted(db) and (_inside(da, db) or _inside(db, da)):
            found.add("trimmed")
        else:
            found.add("converted" if _UNIT_MARK.search(a) else "digits")
    wa, wb = Counter(_words(a)), Counter(_words(b))
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
    if a in p.established and b in p.established and _fold(a).split() != _fold(b).split():
        found.add("merge")
    if not same_number and value_shape(a) != value_shape(b):
        found.add("reshape")
        if _repaired(a, b, p):
            found.add("repair")
    return frozenset(found)


def _repaired(a: str, b: str, p: Portrait) -> bool:
    """A value outside the field's usual shape put into it by replacing a few of its characters in
    place (``'1?0%'`` -> ``'100%'``, ``'3x233'`` -> ``'35233'``): nothing dropped or added."""
    if (
        p.usual is None
        or value_shape(b) != p.usual
        or value_shape(a) == p.usual
        or len(a) != len(b)
    ):
        return False
    return sum(x != y for x, y in zip(a, b)) <= max(1, len(a) // 4)


# a date or time template: runs of one repeated letter (YYYY, MM, dd, hh, mm, ss) joined by
# separators; or digit placeholders (NNN-NNN-NNNN, ###-####)
_GROUP = r"(?:Y+|y+|M+|D+|d+|H+|h+|m+|S+|s+)"
_TEMPLATE = re.compile(
    r"(?<![\w])" + _GROUP + r"(?:(?:[-/.:]|\s|T)" + _GROUP + r"){1,5}(?![\w])"
    r"|(?<![\w#])(?:N{2,}|n{2,}|#{2,}|X{2,})(?:[-/. ](?:N+|n+|#+|X+)){1,4}(?![\w#])"
)


def written_shapes(words: str) -> frozenset[str]:
    """The shapes of the date, time and code templates the goals write ("YYYY-MM-DD", "HH:MM",
    "dd/mm/yyyy", "NNN-NNN-NNNN"), each as the shape its values have ("9-9-9", "9:9")."""
    out = set()
    for m in _TEMPLATE.finditer(words or ""):
        token = m.group()
        if token[0] in "Nn#X":
            out.add(value_shape(re.sub(r"[Nn#X]", "0", token)))
            continue
        groups = re.findall(_GROUP, token)
        letters = {g[0].lower() for g in groups}
        if not letters & {"y", "d", "h"}:  # "mm ss" alone is no date or time
            continue
        if not re.search(r"[-/.:]", token) and min(map(len, groups)) < 2:
            continue  # "d s", "y m": letters in prose, not a template
        out.add(value_shape(re.sub(_GROUP, "0", token)))
    return frozenset(out)


@dataclass(frozen=True)
class Licence:
    """What the field's evidence asks a change to do: the changes its bound kind and its examples
    make, its allowed values, the shapes it writes as targets (its examples' outputs and the
    templates of its clauses: literal forms, never a kind's) and the shapes its examples name as
    wrong; ``everything``: a conversion or a stated key's repair writes the field."""

    allows: frozenset[str] = frozenset()
    allowed: frozenset[str] = frozenset()
    targets: frozenset[str] = frozenset()
    reshapes: frozenset[str] = frozenset()
    examples_drop_zeros: bool = False
    everything: bool = False

    @classmethod
    def of(
        cls,
        kind: str | None = None,
        *,
        allowed: Iterable[str] = (),
        examples: Iterable[tuple[Any, Any]] = (),
        words: str = "",
        everything: bool = False,
        shape_of: Portrait | None = None,
    ) -> "Licence":
        """The licence of a field from its evidence (``kind``: the kind a clause or the user bound
        it to, never a guess; ``words``: the clauses that bind it, for the templates they write)."""
        k = kind_of(kind)
        allows = set(getattr(k, "changes", frozenset()) if k is not None else ())
        listed = {str(a) for a in allowed}
        if k is not None and kind not in ("enum", "shape"):
            listed |= {str(v) for v in (k.values(tuple(listed)) or ())}
        reshapes, zeros, targets = set(), False, set()
        for a, b in examples:
            a, b = _text(a).strip(), _text(b).strip()
            targets.add(value_shape(b))
            if a != b:
                made = changes(a, b, shape_of)
                allows |= made
                zeros = zeros or "zeros" in made
                reshapes.add(value_shape(a))
        targets |= written_shapes(words)
        return cls(
            frozenset(allows),
            frozenset(listed),
            frozenset(targets),
            frozenset(reshapes),
            zeros,
            everything,
        )


def _on_list(value: str, allowed: frozenset[str]) -> bool:
    folded = _fold(value)
    return any(_fold(str(a).strip()) == folded for a in allowed)


def harm(old: Any, new: Any, shape_of: Portrait | None, licence: Licence | None) -> str | None:
    """Why the change from ``old`` to ``new`` harms the value (a change nothing in the field's
    evidence asks), or None."""
    p, lic = shape_of or Portrait(), licence or Licence()
    found = changes(old, new, p)
    if not found:
        return None
    a, b = _text(old).strip(), _text(new).strip()
    allowed = set(lic.allows)
    if lic.everything:
        allowed |= CHANGES - {"sign"}
    corrected = bool(lic.allowed) and _on_list(b, lic.allowed) and not _on_list(a, lic.allowed)
    if corrected:  # the goals' list says the old value is wrong and the new one right
        allowed |= CHANGES - {"sign", "zeros"}
    if "spelling" in found and b in p.established and a not in p.established:
        allowed.add("spelling")  # a rare spelling of a value many rows hold
    allowed.add("typo")  # a rare spelling of a word many values hold
    if "repair" in found:  # a few characters put right, into the usual shape: their content
        allowed |= {"repair", "trimmed", "digits", "words", "added", "spelling"}
    if "reshape" in found:
        shape, new_shape = value_shape(a), value_shape(b)
        # the goals write the new value's form (a template, an example's output) and not the old
        written = new_shape in lic.targets and shape not in lic.targets
        # every value in one form, none in the new one: a whole column the goals convert (never a
        # listed value's case: the data's spelling of the goals' list stays)
        converts = p.uniform and new_shape not in p.shapes and not _on_list(a, lic.allowed)
        if shape == p.usual and not (
            shape in lic.reshapes or written or corrected or converts or lic.everything
        ):
            allowed.discard("reshape")
        else:
            allowed.add("reshape")
    if "zeros" in found and p.coded and not (lic.examples_drop_zeros or lic.everything):
        allowed.discard("zeros")
    left = sorted(found - allowed, key=_ORDER.index)
    return _WHY[left[0]] if left else None


_ORDER = [
    "typo",
    "repair",
    "sign",
    "zeros",
    "words",
    "digits",
    "merge",
    "reshape",
    "converted",
    "trimmed",
    "labels",
    "added",
    "spelling",
    "erased",
    "unknown",
    "filled",
]
_WHY = {
    "sign": "it writes a minus sign the value does not have",
    "zeros": "it drops a code's leading zeros",
    "labels": "it drops a word written around the values",
    "words": "it drops letters that are part of the value",
    "spelling": "it respells a word",
    "typo": "it mends a typo",
    "repair": "it mends a few characters",
    "added": "it adds letters the value does not have",
    "trimmed": "it drops or adds digits",
    "digits": "it changes the value's digits",
    "converted": "it converts the value",
    "filled": "it fills a blank",
    "erased": "it blanks a value",
    "unknown": "it blanks a value",
    "merge": "it turns one value many rows hold into another",
    "reshape": "it rewrites a value of the field's usual form into another form",
}


@dataclass
class HarmCheck:
    """A run's per-field portraits and licences: ``check(field, old, new)`` says why a change harms
    the value, or None."""

    portraits: Mapping[str, Portrait] = field(default_factory=dict)
    licences: Mapping[str, Licence] = field(default_factory=dict)

    def check(self, name: str, old: Any, new: Any) -> str | None:
        return harm(old, new, self.portraits.get(name), self.licences.get(name))


def harm_check(spec: Any, values: Mapping[str, Iterable[Any]]) -> HarmCheck:
    """The ``HarmCheck`` of a run: each field's portrait from its ``values`` (a sample of the file)
    and its licence from the spec's evidence (``profiling.spec.CleaningSpec``)."""
    portraits = {name: portrait(vals) for name, vals in values.items()}
    converted = {f for c in getattr(spec, "conversions", ()) for f in (c.value, c.unit)}
    # scope "all" (goals that name no field, or the user's option): every field's reading is the
    # run's own, guesses included
    trusted = EVIDENCE_SOURCES | ({"data", "field name"} if spec.scope == "all" else set())
    licences = {}
    for name, fs in spec.fields.items():
        bound = fs.kind if fs.source in trusted and fs.kind != "as_is" else None
        licences[name] = Licence.of(
            bound,
            allowed=fs.allowed if fs.source in trusted else (),
            examples=fs.examples,
            words=fs.words,
            everything=name in converted,
            shape_of=portraits.get(name),
        )
    return HarmCheck(portraits, licences)
