"""The data's own convention against a reading of the goals: a reading the goals' own values refute.

A reading (``integer``, ``upper``, ``datetime``, an enumeration ...) under which most of a field's
sample values are wrong, and nearly all of those wrong values share one form, is doubtful: either
the file really is written another way throughout (the goals ask to convert it), or the reading is
wrong and the data is right. The goals tell the two apart by what they write themselves: when the
values they show for the field (an example's output, a quoted value, a value such as ``AB-1234``
or ``2024-02-03 14:05``, a template such as ``YYYY-MM-DD HH:MM``) have that same form, the form is
what the user wants, and the reading that calls it wrong is dropped. "SKUs as AB-1234" read as an
integer, "should read like 2024-02-03 14:05" read as ISO ``T`` timestamps, '"MARIA" becomes
"Maria"' read as upper case: each would have rewritten nine values in ten that were right.

Nothing here looks for phrases: only the values the goals write, their shapes and the data.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable

from .expectations import Expectation, conforms, is_placeholder, value_shape

__all__ = ["refuted", "written_values", "form_owner", "MOST_WRONG", "ONE_FORM"]

MOST_WRONG = 0.5  # more than this share of the sample values wrong under the reading ...
ONE_FORM = 0.75  # ... and at least this share of them of one form
_MIN_VALUES = 5
_QUOTED = re.compile(r"\"([^\"\n]{1,60})\"|“([^”\n]{1,60})”|(?<!\w)'([^'\n]{1,60})'(?!\w)")
# (parts bounded: a search starts after every separator of a chain, and each start read the rest
# of it: "MM-MM-MM-..." or "###..." quadratic in the goals, read whole for a guess from a name)
_TEMPLATE = re.compile(
    r"(?<!\w)(?:YYYY|YY|MM|DD|HH|hh|mm|SS|ss)(?:[-/.: T](?:YYYY|YY|MM|DD|HH|hh|mm|SS|ss)){1,7}"
    r"(?!\w)"
)
_TEMPLATE_CHARS = str.maketrans("N9#XA", "000AA")
# NNN-NNN-NNNN
_LETTERS_TEMPLATE = re.compile(
    r"(?<![\w/])(?=[NXA9#]{2})[NXA9#]{1,16}(?:[-/.][NXA9#]{1,16}){1,7}(?![\w/])"
)
_VALUE = re.compile(
    r"(?<![\w.])(?:[A-Za-z]{1,6}[-_]?)?\d[\w\-/.:]*(?: \d[\d\-/.:]*)?|(?<!\w)[A-Z]{1,4}(?!\w)"
)


def written_values(words: str, outputs: Iterable[str] = ()) -> list[str]:
    """The values the goals write for a field: examples' outputs, quoted values, value-like tokens,
    templates."""
    text = words or ""
    found = [str(o) for o in outputs]
    found += [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(text)]
    bare = _QUOTED.sub(" ", text)
    found += [
        re.sub(r"[YMDHhmSs]+", lambda t: "0" * len(t.group()), m.group(0))
        for m in _TEMPLATE.finditer(bare)
    ]
    bare = _TEMPLATE.sub(" ", bare)
    found += [m.group(0).translate(_TEMPLATE_CHARS) for m in _LETTERS_TEMPLATE.finditer(bare)]
    bare = _LETTERS_TEMPLATE.sub(" ", bare)
    found += [m.group(0).strip().rstrip(".:/-") for m in _VALUE.finditer(bare)]
    return [v for v in found if v.strip()]


def refuted(
    exp: Expectation,
    samples: list | None,
    words: str,
    *,
    inputs: Iterable[str] = (),
    outputs: Iterable[str] = (),
    csv_strings: bool = False,
    guessed: bool = False,
) -> str | None:
    """Why the data and the goals' own values refute ``exp`` for this field, or None.

    ``inputs`` / ``outputs`` are the field's examples' two sides: a form that the goals show only as
    an input (``"03/02/2024 14:05" -> ...``) is a form to change, never evidence for the data. A
    ``guessed`` reading (from the field's name: ``phone`` as E.164) needs no value in the goals: the
    data's one form refutes it alone.
    """
    values = [v for v in samples or [] if v is not None and v != "" and not is_placeholder(v)]
    if exp.kind in ("as_is", "free") or len(values) < _MIN_VALUES:
        return None
    wrong = [v for v in values if not conforms(v, exp, csv_strings=csv_strings)]
    if len(wrong) <= MOST_WRONG * len(values):
        return None
    form, count = Counter(value_shape(str(v).strip()) for v in wrong).most_common(1)[0]
    if count < ONE_FORM * len(wrong):
        return None
    only_in = {value_shape(str(a).strip()) for a in inputs} - {
        value_shape(str(b).strip()) for b in outputs
    }
    shown = [
        v
        for v in written_values(words, outputs)
        if value_shape(v.strip()) == form and form not in only_in
    ]
    if guessed and form not in only_in:
        return (
            f"not {exp.describe(csv_strings=csv_strings)}, a guess from the field's name: "
            f"{len(wrong)} of "
            f"{len(values)} sample values would be wrong, {count} of them of one form: the data's "
            "own convention"
        )
    if not shown:
        return None
    return (
        f"not {exp.describe(csv_strings=csv_strings)}: {len(wrong)} of {len(values)} sample values "
        "would be "
        f"wrong, {count} of them of the form the goals write themselves ({_quote(shown[0])}): the "
        "data's "
        "own convention"
    )


def form_owner(words: str, own: list | None, others: dict[str, list]) -> str | None:
    """The one field of ``others`` whose data has the exact form of a code the ``words`` write
    (letters and digits: ``KL-0042``) that the named field's own values (``own``) never have: "item
    codes: two capitals, a dash, four digits (like KL-0042)" names ``item`` by its words, and the
    data says the codes are ``sku``."""
    codes = {
        value_shape(v, runs=False)
        for v in written_values(words)
        if any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
    }
    mine = [value_shape(str(v).strip(), runs=False) for v in own or [] if v not in (None, "")]
    owners = set()
    for form in codes:
        if mine and sum(f == form for f in mine) * 10 >= len(mine):
            return None  # the named field has values of that form: it is about the named field
        for name, values in others.items():
            shapes = [
                value_shape(str(v).strip(), runs=False) for v in values if v not in (None, "")
            ]
            if len(shapes) >= _MIN_VALUES and sum(f == form for f in shapes) * 2 >= len(shapes):
                owners.add(name)
    return owners.pop() if len(owners) == 1 else None


def _quote(value: Any) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:39] + "…")
