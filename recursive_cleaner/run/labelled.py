"""The user's corrected rows at the end of a run (issue 44): the rows as the functions leave them,
the plan's labels step and authority, and the report's counts of the labelled cells each function
and step passes."""

from __future__ import annotations

from typing import Any

from ..crossrow.labelled import LabelledRow, label_passes, with_labels
from ..crossrow.steps import CrossRowStep
from ..errors import LabelError, clip_text
from ..judge.label_check import label_inputs
from ..judge.policy_rules import DUNDER_IN_TEXT
from ..read.labels import Labels
from .state import RunContext

__all__ = ["labelled_rows", "plan_with_labels", "label_lines", "writable_labels"]


def writable_labels(labels: Labels) -> Labels:
    """``labels`` themselves; LabelError naming the row for a name or a value the functions file
    cannot hold: text naming a double-underscore attribute is refused by the safety policy there
    (the labels step carries the rows)."""
    for label in labels.rows:
        for name, value in label.corrected.items():
            for text in (name, value):
                found = DUNDER_IN_TEXT.search(text) if isinstance(text, str) else None
                if found:
                    raise LabelError(
                        f"labels {labels.where} row {label.row}: {clip_text(name, 60)!r} holds "
                        f"{found.group()!r}, text naming a double-underscore attribute, which the "
                        "functions file may not hold",
                        labels.where,
                        label.row,
                    )
    return labels


def labelled_rows(ctx: RunContext) -> list[LabelledRow]:
    """(the labelled row as the accepted functions leave it, its corrected values) per label."""
    labels = ctx.focus.labels
    if labels is None:
        return []
    rows = ctx.gate.apply(ctx.state.functions, label_inputs(labels))
    return [
        (row if isinstance(row, dict) else dict(label.given), dict(label.corrected))
        for row, label in zip(rows, labels.rows)
    ]


def plan_with_labels(ctx: RunContext, kept: list[CrossRowStep]) -> list[CrossRowStep]:
    """The kept steps with the spec's authority and, last, the labels step (``with_labels``)."""
    labels, spec = ctx.focus.labels, ctx.state.spec
    return with_labels(
        kept,
        labels.step_rows() if labels is not None else (),
        labels.key if labels is not None else None,
        spec.authority if spec is not None else None,
    )


def _right(value: Any, label: Any) -> bool:
    return value == label or (
        value is not None and label is not None and str(value).strip() == str(label).strip()
    )


def label_lines(ctx: RunContext, sample: list, steps: list[CrossRowStep]) -> list[str]:
    """The report's lines: the labels, then per function and per cross-row step the labelled
    cells of the fields it writes that are right after it."""
    labels = ctx.focus.labels
    if labels is None:
        return []
    lines = [labels.describe()]
    inputs = label_inputs(labels)
    functions = ctx.state.functions
    for i, f in enumerate(functions):
        field = f.get("field")
        cells = [(k, v) for k, fld, _, v in labels.cases() if fld == field]
        if not cells:
            continue
        outputs = ctx.gate.apply(functions[: i + 1], inputs)
        right = sum(
            isinstance(outputs[k], dict) and _right(outputs[k].get(field), v) for k, v in cells
        )
        lines.append(
            f"function {clip_text(f['name'], 80)}: {right} of {len(cells)} labelled cells of "
            f"{clip_text(field, 80)} right after it"
        )
    planned = [s for s in steps if s.kind != "labels"]
    counts = label_passes(planned, sample, labelled_rows(ctx), labels.key)
    for step, (right, total) in zip(planned, counts):
        if total:
            lines.append(
                f"step {clip_text(step.describe(), 120)}: {right} of {total} labelled cells it "
                "writes right after it"
            )
    return lines
