"""Which cross-row steps are kept: each step, found or proposed, checked on the sample.

A step is kept only if, on the sample, it changes something, leaves no field with more values
in the wrong format (the field profiler's count), keeps the goals' examples and passes the
``guard``; a majority step on a stated key is kept even if the model's reply drops it
(``plan.with_stated``), but it must still pass this check.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping, Sequence

from .steps import CrossRowStep, apply_steps, fit, kind_of
from .xml_form import format_steps
from ..profiling.example_checks import maps_example
from .guard import dedup_key_problem, harm
from .labelled import LabelledRow, label_breaks
from ..profiling.harm import HarmCheck, changes
from ..profiling.improvement import judge_holdout

__all__ = ["validate_steps", "writable_fields", "MAX_STEPS"]

# steps checked at most: each is fitted with those before it on the sample (the rest are refused)
MAX_STEPS = 32


def _changed(before: list[dict], after: list[dict]) -> set[str]:
    return {
        k
        for old, new in zip(before, after)
        for k in old.keys() | new.keys()
        if old.get(k) != new.get(k)
    }


def writable_fields(
    fields: Iterable[str],
    stated: Mapping[str, Iterable[str]],
    protected: Iterable[str],
    frozen: Iterable[str],
) -> list[str]:
    """The fields some step could be allowed to write by ``validate_steps``' rules (what the plan's
    grammar offers): a ``protected`` one only when a ``stated`` key names it, a ``frozen`` one only
    when a key is stated."""
    mended = {f for named in stated.values() for f in named}
    protected, frozen = set(protected), set(frozen)
    return [
        f
        for f in fields
        if (f not in protected or f in mended) and (bool(stated) or f not in frozen)
    ]


def _guarded(
    step: CrossRowStep,
    stated: set[str],
    protected: set[str],
    kept: Mapping[str, Iterable[str]],
    named: Mapping[str, Iterable[str]],
    frozen: set[str] = frozenset(),
) -> tuple[CrossRowStep | None, str | None]:
    """The step without the fields the goals leave as they are, with its guards set; why fields were
    taken out.

    Its protected key parts are never repaired, the shapes kept by examples never replaced, and a
    majority on a key the goals do not state replaces only variants of the winner. A protected field
    the goals name with a stated key of a majority step (``named``) is written by it: the stated
    repair.
    """
    kind = kind_of(step)
    if not kind.writes:
        return step, None
    mend = {f for k in step.key if k in stated and kind.stated_repair for f in named.get(k, ())}
    written = tuple(f for f in step.fields if f not in protected or f in mend)
    removed = [f for f in step.fields if f not in written]
    why = (
        f"it would write {', '.join(removed)}, which the goals leave as "
        f"{'it is' if len(removed) == 1 else 'they are'}"
        if removed
        else None
    )
    # a field the goals do not ask for: written only where a stated key's clause names it
    keys_fixed = kind.fixes_keys and set(step.fields) <= stated
    named_by_key = {f for k in step.key if k in stated for f in [k, *named.get(k, ())]}
    unasked = [f for f in written if f in frozen and f not in named_by_key and not keys_fixed]
    if unasked:
        written = tuple(f for f in written if f not in unasked)
        more = (
            f"it would write {', '.join(unasked)}, which the goals do not ask to change (no key "
            "they state names it)"
        )
        why = f"{why}; {more}" if why else more
    if not written:
        return None, why
    touches = set(step.key) | set(written)
    return replace(
        step,
        fields=written,
        protected=tuple(f for f in step.key if f in protected),
        keep=tuple(sorted((f, shape) for f in touches for shape in kept.get(f, ()))),
        variants_only=kind.stated_repair and not (stated & set(step.key)),
    ), why


def _content_harm(
    step: CrossRowStep,
    current: list[dict],
    after: list[dict],
    content: HarmCheck | None,
    keyed: set[str],
) -> str | None:
    """Why the step's changes on the sample harm a value by the judge that needs no reading
    (``profiling.harm``), or None. A field a stated key's clause names is the rule's to write (only
    a minus sign may not appear or go)."""
    harmed = _harmed_field(step, current, after, content, keyed)
    return harmed[1] if harmed else None


def _harmed_field(
    step: CrossRowStep,
    current: list[dict],
    after: list[dict],
    content: HarmCheck | None,
    keyed: set[str],
) -> tuple[str, str] | None:
    """(the first field whose change harms a value, why), or None (``_content_harm``)."""
    if content is None or len(after) != len(current):
        return None
    for fld in step.fields:
        for old, new in zip(current, after):
            if fld not in old or old.get(fld) == new.get(fld):
                continue
            was, now = old.get(fld), new.get(fld)
            why = (
                ("it writes a minus sign" if "sign" in changes(was, now) else None)
                if fld in keyed
                else content.check(fld, was, now)
            )
            if why:
                return fld, f"on the sample it turns {fld} {was!r} into {now!r}: {why}"
    return None


def _breaks_examples(
    step: CrossRowStep,
    current: list[dict],
    after: list[dict],
    examples: Mapping[str, Iterable[tuple[str, str]]],
) -> str | None:
    """Why the step breaks a goals' example of a field it writes, or None.

    On the sample it may not turn an example's input into anything but its output, nor write an
    input the examples turn into something else; a vocabulary step must also leave each output
    as it is and map each input to its output or leave it (checked on one record of the sample).
    """
    for fld in step.fields:
        pairs = [(str(a), str(b)) for a, b in examples.get(fld, ())]
        wrong = {a: b for a, b in pairs if a != b}
        if not pairs:
            continue
        for old, new in zip(current, after) if len(after) == len(current) else ():
            was, now = old.get(fld), new.get(fld)
            if was == now:
                continue
            if isinstance(was, str) and was in wrong and not maps_example(now, wrong[was]):
                return (
                    f"it turns the goals' example {was!r} of {fld} into {now!r}, not {wrong[was]!r}"
                )
            if isinstance(now, str) and now in wrong:
                return (
                    f"it writes {now!r} into {fld}, which the goals' examples turn into "
                    f"{wrong[now]!r}"
                )
        if kind_of(step).value_map and current:
            fitted = fit([step], current)
            for a, b in pairs:
                out_b = (fitted.transform({**current[0], fld: b}) or {}).get(fld)
                out_a = (fitted.transform({**current[0], fld: a}) or {}).get(fld)
                if not maps_example(out_b, b) or not (out_a == a or maps_example(out_a, b)):
                    return f"it would rewrite the goals' example {a!r} -> {b!r} of {fld}"
    return None


def validate_steps(
    steps: list[CrossRowStep],
    sample: list,
    expectations: dict | None = None,
    *,
    allow_dedup: bool = True,
    stated: Iterable[str] | Mapping[str, Iterable[str]] = (),
    frozen: Iterable[str] = (),
    csv_strings: bool | None = None,
    protected: Iterable[str] = (),
    kept: Mapping[str, Iterable[str]] | None = None,
    examples: Mapping[str, Iterable[tuple[str, str]]] | None = None,
    content: HarmCheck | None = None,
    labels: Sequence[LabelledRow] = (),
    labels_key: str = "",
) -> tuple[list[CrossRowStep], list[tuple[str, str]]]:
    """Keep each step that changes the sample, makes no field worse and is safe; (kept, [(step,
    reason)]).

    ``allow_dedup`` is whether the goals ask to remove duplicates: without it a dedup step is
    refused (dropping records is never done on the model's initiative alone); with it a kept
    dedup step is marked ``asked``. A dedup key must identify records, and a step that drops or
    rewrites more than a small share of the sample is refused unless the goals ask for it
    (``guard``; a majority step on a ``stated`` key is asked for). A step may change a ``frozen``
    field (one the goals do not ask about) only when its key is stated; a ``protected`` field (one
    the goals leave as it is) never, unless ``stated`` is ``{key: fields}`` and names it with the
    step's key; nor a value of a shape an example keeps (``kept``: field -> shapes). A majority step
    on a key the goals do not state replaces only values that look like variants of the winner
    (``CrossRowStep.variants_only``). A step that writes a field with ``examples`` (field ->
    (input, output) pairs) must keep them (``_breaks_examples``). ``content``: the judge that needs
    no reading (``profiling.harm``): no change on the sample may lose or invent content its field's
    evidence does not ask, but in a field a stated key's clause names. ``labels``: the user's
    corrected rows, (the row as the functions leave it, its corrected values), matched by
    ``labels_key``: a step may not turn a labelled cell that was right wrong, nor drop the row
    (``labelled.label_breaks``; fitted on the sample and those rows, their cells known).
    """
    accepted: list[CrossRowStep] = []
    refused: list[tuple[str, str]] = []
    named = {k: list(v) for k, v in stated.items()} if isinstance(stated, Mapping) else {}
    stated, frozen, protected = set(stated), set(frozen) | set(protected), set(protected)
    current = [r for r in sample if isinstance(r, dict)]
    for at, given in enumerate(steps):
        if at >= MAX_STEPS:
            refused.append((format_steps([given]), f"more than {MAX_STEPS} steps: not checked"))
            continue
        step, why = _guarded(given, stated, protected, kept or {}, named, frozen - protected)
        if why:
            refused.append((format_steps([given]), why))
        if step is None:
            continue
        kind = kind_of(step)
        if kind.drops:
            if not allow_dedup:
                refused.append((format_steps([step]), "the goals do not ask to remove duplicates"))
                continue
            problem = dedup_key_problem(step, current)
            if problem:
                refused.append((format_steps([step]), problem))
                continue
            step = replace(step, asked=True)
        after = apply_steps(accepted + [step], [r for r in sample if isinstance(r, dict)])
        if after == current:
            refused.append((format_steps([step]), "it changes nothing on the sample"))
            continue
        # a field the goals do not ask for: only a stated key's rule whose clause names it writes
        # it ("the same clinic id has the same clinic name": the name, never a yes/no beside it)
        named_by_key = {f for k in step.key if k in stated for f in [k, *named.get(k, ())]}
        keys_fixed = kind.fixes_keys and set(step.fields) <= stated
        if keys_fixed:  # the keys the goals state: theirs to mend
            named_by_key |= set(step.fields)
        harmed = _harmed_field(step, current, after, content, named_by_key)
        while harmed and len(step.fields) > 1 and not kind.drops:
            # one field's harm is that field's: the rule stays for the others
            refused.append((format_steps([step]), f"{harmed[1]}; kept without {harmed[0]}"))
            step = replace(step, fields=tuple(f for f in step.fields if f != harmed[0]))
            after = apply_steps(accepted + [step], [r for r in sample if isinstance(r, dict)])
            harmed = _harmed_field(step, current, after, content, named_by_key)
        if after == current:
            refused.append((format_steps([step]), "it changes nothing on the sample"))
            continue
        asked = step.asked or (kind.stated_repair and bool(stated & set(step.key)))
        touched = sorted(frozen & _changed(current, after)) if len(after) == len(current) else []
        unnamed = [f for f in touched if f not in named_by_key and not keys_fixed]
        if unnamed:
            refused.append(
                (
                    format_steps([step]),
                    f"it changes {', '.join(unnamed)}, which the goals do not ask "
                    "to change (no key they state names it)",
                )
            )
            continue
        too_much = (
            harm(step, current, after, asked=asked)
            or _breaks_examples(step, current, after, examples or {})
            or _content_harm(step, current, after, content, named_by_key)
            or label_breaks([*accepted, step], sample, labels, labels_key)
        )
        if too_much:
            refused.append((format_steps([step]), too_much))
            continue
        if not kind.drops:
            worse = judge_holdout(current, after, expectations or {}, csv_strings=csv_strings)
            if worse:
                refused.append(
                    (
                        format_steps([step]),
                        worse.replace(
                            "On records you were not shown it made", "On the sample it made"
                        ),
                    )
                )
                continue
        accepted.append(step)
        current = after
    return accepted, refused
