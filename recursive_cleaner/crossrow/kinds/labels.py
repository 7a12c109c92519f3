"""``labels``: the user's corrected rows (issue 44): the row each one corrects keeps its values.

Not planned by the model: the library adds it, last, when a run is given labels (``labels=``,
``--labels``). Its ``rows`` are the corrected copies, each matched to the row whose ``key`` holds
the same text (``read.labels.match_text``: ``17`` and ``"17"`` alike); the second pass writes
their values over whatever the functions and the steps before it wrote, so the user's word wins in
the output. Its fit gives the rows to the steps fitted after it (``anchors``): a source-weighted
majority holds the truth of every cell they label. Memory: the rows, at most
``read.labels.MAX_LABELS``.
"""

from __future__ import annotations

from typing import Any

from ...read.labels import match_text
from ._base import StepKind

__all__ = ["Labels"]


class Labels(StepKind):
    """The rows the user corrected keep their corrected values."""

    name, needs_key, planned, anchors = "labels", True, False, True

    def check(self, step: Any) -> None:
        if len(step.key) != 1:
            raise ValueError("a labels step matches its rows by one key field")

    def describe(self, step: Any) -> str:
        n = len(step.rows)
        return (
            f"the {n} row{'s' * (n != 1)} the user corrected (matched by {step.key[0]}) keep "
            "their corrected values; their cells are the known truth of the steps that vote"
        )

    def fit(self, summary: Any, i: int, fitted: Any) -> dict:
        """Each row's key text -> its corrected values; the rows given to the later steps."""
        key, out = summary.steps[i].key[0], {}
        for pairs in summary.steps[i].rows:
            row = dict(pairs)
            text = match_text(row.get(key))
            if text is not None:
                out[text] = row
                fitted.anchors.append(row)
        return out

    def transform(self, fitted: Any, i: int, out: dict) -> bool:
        step, state = fitted.steps[i], fitted.fits.get(i) or {}
        row = state.get(match_text(out.get(step.key[0])))
        for fld, value in (row or {}).items():
            old = out.get(fld)
            if fld not in out or old == value or _same_text(old, value):
                continue
            out[fld] = value
            fitted.changed[(i, fld)] += 1
        return True


def _same_text(old: Any, new: Any) -> bool:
    """A number the data holds and a label's text of it (CSV labels on JSON data): left as it is."""
    return (
        isinstance(old, (int, float))
        and not isinstance(old, bool)
        and isinstance(new, str)
        and match_text(old) == match_text(new)
    )
