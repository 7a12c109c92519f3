"""The data decides: a reading of one field checked against its sample values (``spec.read_spec``).

Where the rules and the model's draft differ (``settle_reading``), the reading the data clearly
supports better wins; a kind no value fits and its primitive cannot convert is dropped
(``checked_reading``); the data's one form that the goals write themselves refutes a reading
(``against_convention``); a model's guess of a clause's field stands only where the data fits it
(``tied_reading``). The form a field with no format takes is in ``spec_forms``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import Any

from ..errors import clip_text
from .convention import refuted, written_values
from .expectations import (
    KIND_PRIMITIVES,
    Expectation,
    conforms,
    form_template,
    value_shape,
)
from .spec_file import FieldSpec
from .spec_forms import MIN_CHECKED, present_values, timestamp_form

__all__ = [
    "fit_score",
    "one_shape",
    "settle_reading",
    "checked_reading",
    "tied_reading",
    "asked_reading",
    "against_convention",
]

_CASE_WORDS = re.compile(r"upper|lower|capital|caps", re.I)


# ---------------------------------------------------------------- the data decides
def _convert(exp: Expectation, value: Any) -> Any:
    """The toolkit primitive of ``exp`` applied to one value (library code, run here), or the
    value."""
    from .. import toolkit  # noqa: PLC0415 - the base toolkit, stdlib only

    fn = getattr(toolkit, exp.primitive, None) if exp.primitive else None
    if fn is None:
        return value
    try:
        if exp.kind == "enum":
            return fn(value, list(exp.allowed))
        if exp.kind == "shape":
            return fn(value, exp.allowed[0])
        if exp.kind == "number":
            return fn(toolkit.strip_units(value), whole_as_int="whole_as_int" in exp.allowed)
        return fn(value)
    except Exception:  # noqa: BLE001 - a primitive that cannot take this value converts nothing
        return value


def fit_score(
    exp: Expectation, samples: list | None, *, csv_strings: bool = False
) -> tuple[int, int, int]:
    """(values that fit, values its primitive makes fit, values) for a reading of one field."""
    values = present_values(samples)
    fit = sum(conforms(v, exp, csv_strings=csv_strings) for v in values)
    convertible = sum(
        1
        for v in values
        if not conforms(v, exp, csv_strings=csv_strings)
        and conforms(_convert(exp, v), exp, csv_strings=csv_strings)
    )
    return fit, convertible, len(values)


def one_shape(samples: list | None, share: float = 0.9) -> bool:
    """Do the sample values already share one shape (digits as 9, letters as a)?"""
    values = present_values(samples)
    if len(values) < 3:
        return False
    return Counter(value_shape(str(v).strip()) for v in values).most_common(1)[0][1] >= share * len(
        values
    )


def _said(value: str, goals: str) -> bool:
    return (
        re.search(rf"(?<!\w){re.escape(str(value).strip())}(?!\w)", goals or "", re.I) is not None
    )


def settle_reading(
    name: str,
    rules: FieldSpec,
    model: FieldSpec,
    goals: str,
    samples: list | None,
    csv_strings: bool,
) -> FieldSpec:
    """The reading of one field where the rules and the model's draft differ."""
    if rules.kind == "as_is" and rules.source == "instructions":
        return rules  # the goals say to leave it: no fit to the data argues with that
    if model.kind == "enum" and not all(_said(v, goals) for v in model.allowed):
        seen = {str(v).strip().lower() for v in present_values(samples)}
        fit, conv, n = fit_score(model.expectation(), samples, csv_strings=csv_strings)
        # a few of the data's values, not the field's vocabulary
        if (
            n < MIN_CHECKED
            or fit + conv < 0.9 * n
            or any(
                not _said(v, goals) and str(v).strip().lower() not in seen for v in model.allowed
            )
        ):
            return rules  # (or values neither the goals nor the data have)
    # (an enum passed its own check above)
    if not rules.kind and model.kind not in ("enum", "as_is"):
        fit, _, n = fit_score(model.expectation(), samples, csv_strings=csv_strings)
        if n >= MIN_CHECKED and fit < 0.5 * n:
            # the goals ask no format, and this one would rewrite most values that have one
            return rules
        return model
    return _decide(name, rules, model, samples, csv_strings)


def _decide(
    name: str, rules: FieldSpec, model: FieldSpec, samples: list | None, csv_strings: bool
) -> FieldSpec:
    """Rules and model disagree: the reading the data clearly supports better (by a tenth of the
    values) wins."""
    scores = []
    for spec in (rules, model):
        exp = spec.expectation()
        if exp is None:
            scores.append((0, 0, 0))
            continue
        fit, conv, n = fit_score(exp, samples, csv_strings=csv_strings)
        scores.append((fit + conv, fit, n))
    # clearly better, not a near tie
    if scores[1][0] >= scores[0][0] + max(2, max(scores[0][2], scores[1][2]) // 10):
        return replace(
            model,
            mentioned=rules.mentioned or model.mentioned,
            words=rules.words or model.words,
            note=f"the model's reading; the data fits it better than the rules' "
            f"({scores[1][0]} vs {scores[0][0]} of {max(scores[1][2], scores[0][2])} sample "
            "values)",
        )
    return rules


def against_convention(
    spec: FieldSpec,
    pairs: tuple[tuple[str, str], ...],
    samples: list | None,
    csv_strings: bool,
    words: str,
) -> FieldSpec:
    """The reading, unless the data's one form, which the goals write themselves, refutes it
    (``convention``).

    ``words`` are the field's sentences (the whole goals for a guess from the field's name). A
    refuted enumeration takes its examples' outputs as its values when most sample values are one of
    them ("high", "HIGH" and "h" are H: the values are H, L and N); any other refuted reading is
    dropped, with the reason in ``note``.
    """
    exp = spec.expectation()
    if exp is None:
        return spec
    why = refuted(
        exp,
        samples,
        words,
        inputs=[a for a, b in pairs if a != b],
        outputs=[b for _, b in pairs],
        csv_strings=csv_strings,
        guessed=spec.source == "field name",
    )
    if why is None:
        return spec
    form = (
        timestamp_form(written_values(words, [b for _, b in pairs]))
        if exp.kind in ("date", "datetime")
        else None
    )
    # the goals write their timestamps another ISO way ("2024-02-03 14:05"): that form, not none
    if form:
        return replace(
            spec,
            kind="datetime",
            allowed=(form,),
            note=f"{why}; written as {form_template(form)}, as the goals write it",
        )
    outputs = tuple(dict.fromkeys(b for a, b in pairs if a != b))
    values = [str(v).strip() for v in present_values(samples)]
    if exp.kind == "enum" and outputs and sum(v in outputs for v in values) * 2 > len(values):
        return replace(spec, allowed=outputs, note=f"{why}; the values are the examples' outputs")
    return replace(spec, kind=None, allowed=(), source="", note=why)


def tied_reading(
    spec: FieldSpec, clause: str, samples: list | None, csv_strings: bool
) -> FieldSpec:
    """A reading the model tied to this field: kept, and the field mentioned, only if the data
    agrees."""
    exp = spec.expectation()
    fit, conv, n = fit_score(exp, samples, csv_strings=csv_strings) if exp else (0, 0, 0)
    if n >= MIN_CHECKED and fit + conv >= 0.5 * n and conv:  # it fits, and it has something to do
        return replace(
            spec,
            mentioned=True,
            words=(spec.words + " " + clause).strip()[:300],
            note=f"the model tied {clip_text(clause, 80)!r} to this field; {fit + conv} of {n} "
            "sample "
            "values fit it",
        )
    return FieldSpec(
        None,
        (),
        spec.mentioned,
        spec.words,
        "",
        note=f"not {clip_text(clause, 80)!r}, which the model "
        f"tied to this field: {fit + conv} of {n} sample values fit it",
    )


def asked_reading(spec: FieldSpec, kind: str, samples: list | None, csv_strings: bool) -> FieldSpec:
    """The model's answer to which format the goals ask of a field they bind to none (issue 42
    point 6): its kind, from the model, only where the data agrees — the kind already fits some
    values and not others, its primitive turns some of those into fitting ones, and together at
    least half; else the field as it was, with a note."""
    exp = Expectation(kind, (), "model", KIND_PRIMITIVES.get(kind, ""))
    fit, conv, n = fit_score(exp, samples, csv_strings=csv_strings)
    if n >= MIN_CHECKED and fit and conv and fit + conv >= 0.5 * n and fit < n:
        return replace(
            spec,
            kind=kind,
            allowed=(),
            source="model",
            note=f"the model read the goals as {kind} for it; {fit + conv} of {n} sample values "
            "fit it",
        )
    return replace(
        spec, note=f"not {kind}, the model's reading: {fit + conv} of {n} sample values fit it"
    )


def checked_reading(
    name: str, spec: FieldSpec, by_name: bool, samples: list | None, csv_strings: bool
) -> FieldSpec:
    """The data's check of one field's reading: drop what no value fits and the primitive cannot
    convert."""
    if spec.source == "field name" and not by_name and one_shape(samples):
        return replace(
            spec,
            kind=None,
            allowed=(),
            source="",
            note=f"not {spec.kind} from the field's name: the goals do not name it and its values "
            "already share one shape",
        )
    exp = spec.expectation()
    # (an enumeration is checked too: a list that none of the field's values is, or is spelled like,
    # was read for another field)
    if exp is None or exp.kind == "as_is" or not present_values(samples):
        return spec
    if (
        exp.kind in ("us_state", "country_alpha2")
        and not exp.allowed
        and not _CASE_WORDS.search(spec.words)
    ):
        codes = [str(v).strip() for v in present_values(samples)]
        written = [c for c in codes if len(c) == 2 and c.islower()]
        lower = sum(conforms(c.upper(), exp, csv_strings=csv_strings) for c in written)
        if (
            len(codes) >= MIN_CHECKED
            and len(written) >= 0.9 * len(codes)
            and lower >= 0.8 * len(codes)
        ):
            return replace(
                spec,
                allowed=("lower",),
                note=f"in lower case: {lower} of {len(codes)} sample values "
                # keep it
                "are codes written so, and the goals name no case",
            )
    if exp.kind == "enum" and spec.allowed:
        spec = _as_the_data_spells(spec, samples)
        exp = spec.expectation()
    fit, convertible, n = fit_score(exp, samples, csv_strings=csv_strings)
    if fit == 0 and convertible == 0 and n >= MIN_CHECKED:
        return replace(
            spec,
            kind=None,
            allowed=(),
            source="",
            note=f"not {exp.describe(csv_strings=csv_strings)}: none of {n} sample values fits, "
            f"and {exp.primitive or 'no primitive'} converts none",
        )
    if exp.kind == "number" and spec.source == "instructions" and "whole_as_int" not in exp.allowed:
        as_int = replace(spec, kind="integer").expectation()
        i_fit, i_conv, _ = fit_score(as_int, samples, csv_strings=csv_strings)
        # "just the number" of "CUST-0042": to_int
        if i_fit + i_conv >= fit + convertible + max(2, n // 10):
            return replace(
                spec,
                kind="integer",
                note=f"integer, not number: {as_int.primitive} turns {i_fit + i_conv} "
                f"of {n} sample values into whole numbers, "
                f"{exp.primitive} {fit + convertible}",
            )
    return spec


def _as_the_data_spells(spec: FieldSpec, samples: list | None) -> FieldSpec:
    """A listed value that more values are written as in another case or spacing ("in stock"
    where the data mostly writes "In stock"): the data's spelling, its convention (a list written
    in prose), also for an item's last words where no value is the item; a value the goals quote,
    or no row holds, stays as the goals write it."""
    counts = Counter(str(v).strip() for v in present_values(samples))
    spelled: dict[str, str] = {}
    for value, count in counts.most_common():
        if count >= 2:
            spelled.setdefault(" ".join(value.casefold().split()), value)
    words = spec.words or ""

    def held(item: str, first: bool) -> str:
        """The data's spelling of the item, or for the first item held by no value, of its last
        words ("choose from Red": the words that lead the list, caught in its first item)."""
        parts = str(item).casefold().split()
        for k in range(len(parts), 0 if first and not counts[item] else len(parts) - 1, -1):
            top = spelled.get(" ".join(parts[-k:]))
            if top is not None:
                return top
        return item

    allowed = tuple(
        a
        if counts[top] <= counts[a] or any(f"{q}{a}{q}" in words for q in "\"'“”`")
        else top
        for i, a in enumerate(spec.allowed)
        for top in (held(a, i == 0),)
    )
    if allowed == tuple(spec.allowed):
        return spec
    moved = sum(a != b for a, b in zip(allowed, spec.allowed))
    note = f"{moved} listed value(s) as the data writes them"
    return replace(spec, allowed=allowed, note=f"{spec.note}; {note}" if spec.note else note)
