"""The user's corrected rows as tests in the gate (issue 44): a candidate is run on the labelled
rows as the accepted functions leave them, and refused when it breaks a labelled cell
(``profiling.example_checks.label_failures``)."""

from __future__ import annotations

from typing import Any

from ..profiling.example_checks import label_failures, labels_refusal
from .sandbox import run_in_sandbox

__all__ = ["labels_problem", "label_inputs"]


def label_inputs(labels: Any) -> list[dict]:
    """The labelled rows as they came in (the input rows the labels correct)."""
    return [dict(r.given) for r in labels.rows] if labels is not None else []


def labels_problem(
    labels: Any,
    code: str,
    name: str,
    inputs: list[dict],
    *,
    strict: set,
    timeout: float,
    expectations: Any = None,
) -> str | None:
    """Why ``name`` of ``code``, run on ``inputs`` (the labelled rows as the functions before it
    leave them), breaks a labelled cell; None when it breaks none (or there are no labels)."""
    if labels is None or not len(labels):
        return None
    res = run_in_sandbox(code, name, inputs, timeout=timeout)
    if not res.ok:
        return f"On the rows the user corrected it failed: {res.error or 'it did not run'}"
    return labels_refusal(
        label_failures(
            labels.cases(),
            res.outputs,
            inputs,
            strict=strict,
            errors=res.errors,
            expectations=expectations,
        )
    )
