"""The form a field with no format takes (``spec.read_spec``): its goals' examples' shape
(``with_examples``), or the one value or template its words write that most of its values have
exactly, a written timestamp as a ``datetime`` with that form (``with_written_form``)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from ..toolkit import to_number, to_shape
from .convention import written_values
from .examples import fitting_examples
from .expectations import is_placeholder, value_shape
from .spec_file import FieldSpec

__all__ = ["with_examples", "with_written_form", "timestamp_form", "present_values", "MIN_CHECKED"]

MIN_CHECKED = 5  # sample values needed before the data may drop a reading


def present_values(samples: list | None) -> list:
    return [v for v in samples or [] if v is not None and v != "" and not is_placeholder(v)]


def _exact(value: str) -> str:
    return value_shape(value, runs=False)  # "617-555-0143" -> "999-999-9999"


def with_written_form(spec: FieldSpec, samples: list | None) -> FieldSpec:
    """A field the goals name with no format read (or only one guessed from its name or data),
    whose words write one value (or template) with digits in the exact form most of its values have
    ("phone as 617-555-0143", "NNN-NNN-NNNN", "dates like 1985-03-16"): that form is its kind
    (``shape``, or a date or timestamp), the clause its evidence."""
    if (
        (spec.kind not in (None, "free") and spec.source not in ("field name", "data"))
        or not spec.mentioned
        or any(a != b for a, b in spec.examples)
    ):
        return spec
    values = [str(v).strip() for v in present_values(samples)]
    if len(values) < MIN_CHECKED:
        return spec
    shapes = Counter(_exact(v) for v in values)
    inputs = {a for a, _ in spec.examples}
    written = {
        _exact(v): v
        for v in written_values(spec.words)
        if v not in inputs and any(c.isdigit() for c in v)
    }
    forms = {s: v for s, v in written.items() if shapes[s] * 2 >= len(values)}
    held = {s: v for s, v in written.items() if shapes[s]}  # forms some values have
    if not forms and len(held) > 1 and sum(shapes[s] for s in held) * 2 >= len(values):
        # several forms of one code that half the values have between them ("AB-1234-12",
        # "AB-1234-X": a last part of two characters or one)
        return _with_forms(spec, tuple(held.values()), values)
    if len(forms) != 1:
        return spec
    shape, form = forms.popitem()
    stamp = timestamp_form([form])
    # a timestamp or a date: parsed and written, never regrouped slot by slot
    if stamp or _ISO_DAY.fullmatch(form):
        kind, allowed = ("datetime", (stamp,)) if stamp else ("date", ())
        return replace(
            spec,
            kind=kind,
            allowed=allowed,
            source="instructions",
            note=(spec.note + "; " if spec.note else "") + f"the form the goals write ({form!r})",
        )
    if not any(_exact(str(to_shape(v, form))) == shape for v in values if _exact(v) != shape):
        # nothing the form would mend: a description of the values ("e.g. AA-3859-IAH-ORD")
        return spec
    return replace(
        spec,
        kind="shape",
        allowed=(form,),
        source="instructions",
        note=(spec.note + "; " if spec.note else "")
        + (
            f"the form the goals write ({form!r}): {shapes[shape]} of {len(values)} sample values "
            "have it"
        ),
    )


def _with_forms(spec: FieldSpec, forms: tuple[str, ...], values: list[str]) -> FieldSpec:
    """The field as ``shape`` with the several forms its words write, where the forms mend some
    value (never dates or timestamps: those are parsed, not regrouped)."""
    if any(timestamp_form([f]) or _ISO_DAY.fullmatch(f) for f in forms):
        return spec
    shapes = {_exact(f) for f in forms}
    if not any(
        _exact(str(to_shape(v, list(forms)))) in shapes for v in values if _exact(v) not in shapes
    ):
        return spec
    have = sum(_exact(v) in shapes for v in values)
    return replace(
        spec,
        kind="shape",
        allowed=forms,
        source="instructions",
        note=(spec.note + "; " if spec.note else "")
        + f"the forms the goals write ({', '.join(map(repr, forms))}): {have} of {len(values)} "
        "sample values have one",
    )


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}([ T])\d{2}:\d{2}(:\d{2})?")


def timestamp_form(values: list[str]) -> str | None:
    """The ISO form ("%Y-%m-%d %H:%M") of the one kind of timestamp ``values`` write, or None."""
    forms = {
        "%Y-%m-%d" + m.group(1) + "%H:%M" + ("" if m.group(2) is None else ":%S")
        for m in (_TIMESTAMP.fullmatch(v.strip()) for v in values)
        if m
    }
    return forms.pop() if len(forms) == 1 else None


def _unsigned(a: str, b: str) -> bool:
    """The example writes a negative amount as the same amount without its sign."""
    was, now = to_number(a, accounting=True), to_number(b)
    numbers = all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in (was, now))
    return numbers and was < 0 and now == -was


def with_examples(
    spec: FieldSpec, pairs: tuple[tuple[str, str], ...], samples: list | None
) -> FieldSpec:
    """The field with the examples whose outputs are right values of it; a field with no format
    takes theirs.

    Where the goals read no format (or ``free``, or only the data's own guess: the examples are
    the user's word, the data's kind a reading of the values) and the examples convert values into
    outputs of one form the inputs do not have (``ab 1234 -> AB-1234``, ``c1998 -> 1998``), that
    form is the field's kind ``shape`` when at least half its sample values already have it: the
    data's own convention.
    """
    pairs = fitting_examples(pairs, spec.expectation(), samples)
    if not pairs:
        return spec
    changes = [(a, b) for a, b in pairs if a != b]
    # named by its values
    spec = replace(spec, examples=pairs, mentioned=spec.mentioned or bool(changes))
    if spec.kind in ("number", "integer") and "positive" not in spec.allowed:
        if any(_unsigned(a, b) for a, b in changes):  # "-$12.50" -> 12.50: amounts without sign
            spec = replace(spec, allowed=tuple(spec.allowed) + ("positive",))
    outputs = tuple(dict.fromkeys(b for _, b in changes))
    shapes = {value_shape(b) for b in outputs}
    values = [str(v).strip() for v in present_values(samples)]
    # the examples ask for more
    weak = spec.kind == "text" and any(" ".join(a.split()) != b for a, b in changes)
    guessed = spec.source == "data"  # a kind only the values suggested yields to the examples
    if (
        spec.kind not in (None, "free")
        and not weak
        and not guessed
        or not changes
        or any(value_shape(a) in shapes for a, _ in changes)
        or len(values) < MIN_CHECKED
        or sum(value_shape(v) in shapes for v in values) * 2 < len(values)
    ):
        return spec
    return replace(
        spec,
        kind="shape",
        allowed=outputs,
        source="examples",
        note=f"the form of the goals' examples: {sum(value_shape(v) in shapes for v in values)} of "
        f"{len(values)} sample values have it",
    )
