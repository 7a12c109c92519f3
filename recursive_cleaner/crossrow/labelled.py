"""The user's corrected rows and a named authority in the cross-row plan (issue 44).

``with_labels`` is what a run does to the steps it kept: each source-weighted vote on the
authority's source gets the ``authority`` (that source wins where it reports), and a ``labels``
step goes last (the labelled rows keep their corrected values; its rows are the known truth of
the votes fitted after it). ``label_passes`` counts, per step, the labelled cells it writes right
(the report); ``label_breaks`` says why a step turns a labelled cell that was right wrong
(``validate.validate_steps`` refuses it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Sequence

from ..profiling.example_checks import maps_example
from .steps import CrossRowStep, fit, kind_of

__all__ = ["with_labels", "authority_rule", "label_passes", "label_breaks", "LabelledRow"]

LabelledRow = tuple[dict, dict]  # (the row as the functions leave it, its corrected values)


def authority_rule(authority: Any) -> tuple[str, tuple[str, ...]] | None:
    """(source field, step rule) of a spec's ``authority`` (``profiling.spec_file.Authority``)."""
    if authority is None:
        return None
    rule = ("equals", authority.name) if authority.rule == "equals" else (authority.rule,)
    return authority.source, rule


def with_labels(
    steps: Iterable[CrossRowStep],
    rows: Sequence[dict] = (),
    key: str | None = None,
    authority: Any = None,
) -> list[CrossRowStep]:
    """The steps with the authority on every vote by its source, and the labels step last.

    ``rows``: the corrected rows (the key column included), matched by ``key``; ``authority``: the
    spec's entry. A majority step that weighs no source gets the authority's source as its
    ``weight_by`` when neither its key nor its fields hold that source.
    """
    out = []
    named = authority_rule(authority)
    for step in steps:
        kind = kind_of(step)
        if named and kind.weighs and not step.authority:
            source, rule = named
            if step.weight_by == (source,):
                step = replace(step, authority=rule)
            elif not step.weight_by and source not in (*step.key, *step.fields):
                step = replace(step, weight_by=(source,), authority=rule)
        out.append(step)
    if rows and key:
        fields = tuple(dict.fromkeys(f for r in rows for f in r if f != key))
        out.append(
            CrossRowStep("labels", key=(key,), fields=fields, rows=tuple(dict(r) for r in rows))
        )
    return out


def _label_cells(step: CrossRowStep, corrected: dict) -> list[str]:
    return [f for f in step.fields if f in corrected]


def _fitted(
    steps: Sequence[CrossRowStep], records: list, labelled: Sequence[LabelledRow], key: str
) -> Any:
    """``steps`` fitted on ``records`` and the labelled rows, the corrected rows their anchors (a
    labels step fitted with them, never applied here)."""
    anchors = [s for s in steps if kind_of(s).anchors] or [
        CrossRowStep("labels", key=(key,), rows=tuple(dict(c) for _, c in labelled))
    ]
    rows = [r for r in records if isinstance(r, dict)] + [dict(r) for r, _ in labelled]
    return fit([*steps, *anchors], rows)


def label_passes(
    steps: Sequence[CrossRowStep], records: list, labelled: Sequence[LabelledRow], key: str
) -> list[tuple[int, int]]:
    """Per step, (labelled cells it leaves right, labelled cells of the fields it writes), over the
    labelled rows run through the steps in order (fitted on ``records`` and those rows, matched by
    ``key``); a step that writes no field of a label (dedup, labels) counts (0, 0)."""
    if not labelled:
        return [(0, 0)] * len(steps)
    fitted = _fitted(steps, records, labelled, key)
    counts = [[0, 0] for _ in steps]
    for row, corrected in labelled:
        out = dict(row)
        for i, step in enumerate(steps):
            if not fitted.apply_step(i, out):
                break
            if not kind_of(step).writes or kind_of(step).anchors:
                continue
            for fld in _label_cells(step, corrected):
                counts[i][1] += 1
                counts[i][0] += _right(out.get(fld), corrected[fld])
    return [(a, b) for a, b in counts]


def label_breaks(
    steps: Sequence[CrossRowStep], records: list, labelled: Sequence[LabelledRow], key: str
) -> str | None:
    """Why the last of ``steps`` turns a labelled cell that was right wrong, or drops a labelled
    row, on the labelled rows (fitted on ``records`` and those rows, the corrected ones their
    anchors); None when it does not."""
    if not labelled or not steps:
        return None
    fitted = _fitted(steps, records, labelled, key)
    last = len(steps) - 1
    for row, corrected in labelled:
        out = dict(row)
        for i in range(last):
            if not fitted.apply_step(i, out):
                break
        else:
            before = dict(out)
            if not fitted.apply_step(last, out):
                return "it drops a row the user corrected"
            for fld in _label_cells(steps[last], corrected):
                was, now = before.get(fld), out.get(fld)
                if was != now and _right(was, corrected[fld]) and not _right(now, corrected[fld]):
                    return (
                        f"it turns {fld} {was!r} into {now!r} on a row the user corrected "
                        f"(the label says {corrected[fld]!r})"
                    )
    return None


def _right(value: Any, label: Any) -> bool:
    """Does ``value`` write the label's value (a number by its value, null as "")?"""
    if value == label:
        return True
    return maps_example(value, "" if label is None else str(label))
