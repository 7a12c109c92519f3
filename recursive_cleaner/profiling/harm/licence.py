"""Whether the field's evidence asks a change (``Licence``, ``harm``), and a run's per-field
judge (``HarmCheck``, ``harm_check``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..kinds import get as kind_of
from ..kinds._values import value_shape
from ..spec_file import EVIDENCE_SOURCES
from .changes import CHANGES, changes
from .portrait import Portrait, folded, value_text, portrait

__all__ = ["Licence", "HarmCheck", "harm", "harm_check", "written_shapes"]

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
    wrong; ``everything``: a conversion or a stated key's repair writes the field; ``spacing``: an
    example respaces a value, or a clause (never a guess or the model's reading) binds a kind that
    trims and respaces (what free text needs: its whitespace is part of the value)."""

    allows: frozenset[str] = frozenset()
    allowed: frozenset[str] = frozenset()
    targets: frozenset[str] = frozenset()
    reshapes: frozenset[str] = frozenset()
    examples_drop_zeros: bool = False
    everything: bool = False
    # a clause or the user bound the kind (not the model's guess): it may convert a whole column
    firm: bool = True
    spacing: bool = False
    # the list is a kind's standard codes (US states, countries), not one the goals' words give
    standard: bool = False

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
        firm: bool = True,
    ) -> "Licence":
        """The licence of a field from its evidence (``kind``: the kind a clause or the user bound
        it to, never a guess; ``words``: the clauses that bind it, for the templates they write)."""
        k = kind_of(kind)
        allows = set(getattr(k, "changes", frozenset()) if k is not None else ())
        listed = {str(a) for a in allowed}
        standard = False
        if k is not None and kind not in ("enum", "shape"):
            codes = {str(v) for v in (k.values(tuple(listed)) or ())}
            standard = bool(codes) and not listed
            listed |= codes
        reshapes, zeros, targets = set(), False, set()
        spacing = firm and "spacing" in allows
        for a, b in examples:
            spacing = spacing or changes(a, b, shape_of) == {"spacing"}
            a, b = value_text(a).strip(), value_text(b).strip()
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
            firm,
            spacing,
            standard,
        )


def _vocabulary(listed: Iterable[str], values: Iterable[Any]) -> bool:
    """Half the present values or more are on the list (spelled so, case aside)."""
    on = {folded(str(a).strip()) for a in listed}
    texts = [folded(value_text(v).strip()) for v in values if value_text(v).strip()]
    return bool(on) and sum(t in on for t in texts) * 2 >= len(texts)


def _on_list(value: str, allowed: frozenset[str]) -> bool:
    mine = folded(value)
    return any(folded(str(a).strip()) == mine for a in allowed)


def harm(old: Any, new: Any, shape_of: Portrait | None, licence: Licence | None) -> str | None:
    """Why the change from ``old`` to ``new`` harms the value (a change nothing in the field's
    evidence asks), or None."""
    p, lic = shape_of or Portrait(), licence or Licence()
    found = changes(old, new, p)
    if not found:
        return None
    a, b = value_text(old).strip(), value_text(new).strip()
    allowed = set(lic.allows)
    if lic.everything:
        allowed |= CHANGES - {"sign"}
    corrected = (
        bool(lic.allowed)
        and _on_list(b, lic.allowed)
        and not _on_list(a, lic.allowed)
        # a value many rows hold made one few hold: the list is the reading's, not the data's (and
        # a list few of the field's values are on licenses nothing: ``harm_check``'s vocabulary)
        and not (a in p.established and b not in p.established and not lic.standard)
    )
    if corrected:  # the goals' list says the old value is wrong and the new one right
        allowed |= CHANGES - {"sign", "zeros"}
    # whitespace is part of free text; elsewhere a value's padding or doubled spaces are no content
    allowed.discard("spacing")
    if not p.prose or lic.spacing or lic.everything or corrected:
        allowed.add("spacing")
    if "spelling" in found and b in p.established and a not in p.established:
        allowed.add("spelling")  # a rare spelling of a value many rows hold
    allowed.add("typo")  # a rare spelling of a word many values hold
    if "repair" in found:  # a few characters put right, into the usual shape: their content
        allowed |= {"repair", "trimmed", "digits", "words", "labels", "added", "spelling"}
    if "reshape" in found:
        shape, new_shape = value_shape(a), value_shape(b)
        # the goals write the new value's form (a template, an example's output) and not the old
        written = new_shape in lic.targets and shape not in lic.targets
        # every value in one form, none in the new one: a whole column the goals convert (never a
        # listed value's case: the data's spelling of the goals' list stays)
        converts = (
            lic.firm and p.uniform and new_shape not in p.shapes and not _on_list(a, lic.allowed)
        )
        if shape == p.usual and not (
            shape in lic.reshapes or written or corrected or converts or lic.everything
        ):
            allowed.discard("reshape")
        else:
            allowed.add("reshape")
    if "recase" in found and lic.firm and p.uniform:  # a whole column the goals write anew
        allowed.add("recase")
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
    "recase",
    "reshape",
    "converted",
    "trimmed",
    "labels",
    "added",
    "spelling",
    "erased",
    "unknown",
    "filled",
    "spacing",
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
    "recase": "it writes a value in a case few of the field's values have",
    "reshape": "it rewrites a value of the field's usual form into another form",
    "spacing": "it changes the spacing of free text, which is part of the value",
}


@dataclass
class HarmCheck:
    """A run's per-field portraits and licences: ``check(field, old, new)`` says why a change harms
    the value, or None."""

    portraits: Mapping[str, Portrait] = field(default_factory=dict)
    licences: Mapping[str, Licence] = field(default_factory=dict)

    def check(self, name: str, old: Any, new: Any) -> str | None:
        return harm(old, new, self.portraits.get(name), self.licences.get(name))


def harm_check(
    spec: Any,
    values: Mapping[str, Iterable[Any]],
    labelled: Mapping[str, Iterable[tuple[Any, Any]]] | None = None,
) -> HarmCheck:
    """The ``HarmCheck`` of a run: each field's portrait from its ``values`` (a sample of the file)
    and its licence from the spec's evidence (``profiling.spec.CleaningSpec``) and the user's
    corrected cells (``labelled``: field -> (input, corrected) pairs, evidence like examples)."""
    portraits = {name: portrait(vals) for name, vals in values.items()}
    converted = {f for c in getattr(spec, "conversions", ()) for f in (c.value, c.unit)}
    # scope "all" (goals that name no field, or the user's option): every field's reading is the
    # run's own, guesses included
    trusted = EVIDENCE_SOURCES | ({"data", "field name"} if spec.scope == "all" else set())
    licences = {}
    for name, fs in spec.fields.items():
        bound = fs.kind if fs.source in trusted and fs.kind != "as_is" else None
        listed = fs.allowed if fs.source in trusted else ()
        if fs.kind == "enum" and not _vocabulary(listed, values.get(name, ())):
            listed = ()  # a list few values are on is no vocabulary of this field's
        licences[name] = Licence.of(
            bound,
            allowed=listed,
            examples=(*fs.examples, *(labelled or {}).get(name, ())),
            words=fs.words,
            everything=name in converted,
            shape_of=portraits.get(name),
            firm=fs.source in ("instructions", "user"),
        )
    return HarmCheck(portraits, licences)
