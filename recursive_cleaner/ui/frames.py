"""Notebook helpers: DataFrames and lists of dicts in (``read.inputs``), DataFrames, tables and
charts out.

pandas and matplotlib are imported only when a function needs them (``pip install
'recursive-data-cleaner[pandas]'``, ``pip install matplotlib``); a missing one raises
ModuleNotFoundError with the pip command.

* ``materialize_input(data)``: a DataFrame or a list of dicts as a JSONL file the cleaner
  reads (a path is returned unchanged). Values are made JSON-ready: NaN/None/NA/NaT → null,
  numpy scalars → Python, timestamps → ISO strings (a datetime column whose values are all
  at midnight → "YYYY-MM-DD"), Decimal → float. The index is not part of the records
  (``df.reset_index()`` first to clean it). Column labels become strings.
* ``apply_frame(functions_path, df)``: ``cleaning_functions.py`` applied to every row (the
  sandboxed workers of ``apply_records``), a new DataFrame with the same index; columns in
  the input's order, then new ones in order of first appearance; a column no function changed
  is the input's own (same dtype).
* ``improvement_frame(report)`` / ``plot_improvement(report)``: an ``ImprovementReport`` as
  a per-field DataFrame / a bar chart of conformity before and after.
* ``CleaningReport(path_or_text)``: ``cleaning_report.md`` shown inline in a notebook.

``ImprovementReport`` itself renders inline (``_repr_html_``, ``_repr_markdown_``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._extras import require
from ..apply.cross_row import loss_message, step_label
from ..apply.functions_plan import read_plan
from ..apply.frames import kept_rows, rows_frame
from ..apply.local import MAX_DROP, apply_records, read_functions
from ..apply.out_types import column_types, output_spec, typed_frame
from ..crossrow.steps import fit, unasked_drops
from ..errors import DataLossError
from ..read.inputs import INPUT_DIR, column_labels, frame_records, materialize_input
from ..write.metrics import ImprovementReport


__all__ = [
    "materialize_input",
    "frame_records",
    "apply_frame",
    "improvement_frame",
    "plot_improvement",
    "CleaningReport",
    "INPUT_DIR",
]


def apply_frame(
    functions_path: str | os.PathLike,
    df: Any,
    *,
    code: str | None = None,
    spec: Any = None,
    **apply_options: Any,
) -> Any:
    """``clean_data`` over every row of ``df`` (``apply_records`` options): a new DataFrame, same
    index.

    Failed rows stay unchanged (``reject_path`` is refused: every row must come back). The file's
    cross-row steps run with ``cross_row=True`` (default False): the index of the rows kept is kept,
    a row a dedup step drops is left out (``max_drop`` as for apply_file). The counts of the run are
    in ``result.attrs["apply"]`` (records_in, records_out, failed). ``code``: the module's source,
    used instead of reading ``functions_path`` (a ``CleanResult``'s own). A column no function
    changed is the input's own (its dtype and values); changed columns come back as JSON types:
    dates as ISO strings. ``spec``: the field spec (a ``CleaningSpec``, its dict or a path; None:
    the ``cleaning_spec.json`` beside ``functions_path`` unless ``code`` is given; False: none):
    a column it names a number, a whole number, a date or a timestamp has its blanks missing and,
    when every value conforms, its real dtype (``Int64``, ``float64``, ``datetime64``:
    ``apply.out_types``).
    """
    require("pandas", "apply_frame")
    if apply_options.get("reject_path") is not None:
        raise TypeError(
            "apply_frame keeps every row, so it takes no reject_path; use apply_records for that"
        )
    cross_row = apply_options.pop("cross_row", False)
    if cross_row and apply_options.get("audit_path") is not None:
        raise TypeError(
            "apply_frame's audit_path logs clean_data's changes only; with cross_row=True use "
            "apply_records (or apply_file) for a log that has the steps' too"
        )
    max_drop = apply_options.pop("max_drop", MAX_DROP)
    types = column_types(output_spec(spec, functions_path, code))
    if not len(df):
        return df.copy()
    code = read_functions(functions_path) if code is None else code
    counts: dict = {}
    user_progress = apply_options.pop("on_progress", None)

    def progress(event: dict) -> None:
        if event.get("type") == "apply_progress":
            counts.update({k: event[k] for k in ("records_in", "records_out", "failed")})
        if user_progress is not None:
            user_progress(event)

    steps = read_plan(code, str(functions_path), steps=cross_row).steps
    originals = list(frame_records(df))
    rows = list(
        apply_records(code, originals, on_progress=progress, cross_row=False, **apply_options)
    )
    if len(rows) != len(df):  # pragma: no cover - apply_records keeps failed records
        raise RuntimeError(f"apply_frame: {len(df)} rows in, {len(rows)} out")
    kept = None
    if steps:  # the second pass, here: the steps are data run by the library's own code
        fitted = fit(steps, rows)
        kept, rows = kept_rows(fitted, rows)
        if unasked_drops(fitted) > max_drop * len(originals):
            labels = [step_label(i, s) for i, s in enumerate(steps)]
            raise DataLossError(
                loss_message(fitted.dropped_by, steps, labels, len(originals), max_drop),
                unasked_drops(fitted),
                len(originals),
            )
        counts["records_out"] = len(rows)
    result = rows_frame(df, originals, kept, rows)
    if types:
        typed_frame(result, types, column_labels(df))
    result.attrs["apply"] = counts
    return result


def improvement_frame(report: ImprovementReport) -> Any:
    """One row per field (index "field"): conformity, type consistency, distinct and nulls
    before/after, ...

    Shares are fractions (0–1); a side where the field does not exist is NaN. Accuracy
    columns appear only when the report has ground truth.
    """
    pd = require("pandas", "improvement_frame")
    truth = report.accuracy_before is not None or report.accuracy_after is not None
    rows = []
    for name, f in report.fields.items():
        row: dict[str, Any] = {"field": name}
        for side, quality in (("before", f.before), ("after", f.after)):
            for attr in ("conformity", "type_consistency", "distinct", "nulls"):
                row[f"{attr}_{side}"] = getattr(quality, attr) if quality else None
        row["cells_changed"], row["spelling_collapse"] = f.cells_changed, f.spelling_collapse
        row["open_issue_before"] = f.before.open_issue if f.before else None
        row["open_issue_after"] = f.after.open_issue if f.after else None
        if truth:
            row["accuracy_before"], row["accuracy_after"] = f.accuracy_before, f.accuracy_after
        rows.append(row)
    columns = [
        "field",
        *(
            f"{a}_{s}"
            for s in ("before", "after")
            for a in ("conformity", "type_consistency", "distinct", "nulls")
        ),
        "cells_changed",
        "spelling_collapse",
        "open_issue_before",
        "open_issue_after",
    ]
    columns += ["accuracy_before", "accuracy_after"] if truth else []
    return pd.DataFrame(rows, columns=columns).set_index("field")


def plot_improvement(report: ImprovementReport, ax: Any = None) -> Any:
    """A bar chart of each field's conformity before and after (percent); returns the matplotlib
    Axes."""
    plt = require("matplotlib.pyplot", "plot_improvement")
    names = list(report.fields)
    before = [100 * f.before.conformity if f.before else 0.0 for f in report.fields.values()]
    after = [100 * f.after.conformity if f.after else 0.0 for f in report.fields.values()]
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(names) + 2), 3.5))
    positions = range(len(names))
    ax.bar([p - 0.2 for p in positions], before, 0.4, label="before")
    ax.bar([p + 0.2 for p in positions], after, 0.4, label="after")
    ax.set_xticks(list(positions))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylim(0, 105)
    ax.set_ylabel("conformity (%)")
    ax.set_title(f"{report.records} records, {report.rows_changed} rows changed")
    ax.legend()
    return ax


class CleaningReport:
    """A markdown cleaning report for notebooks: a path to ``cleaning_report.md`` or the markdown
    itself.

    A ``PathLike``, or a one-line string naming an existing file, is read; any other string is
    the text. Shown inline through ``_repr_markdown_``; ``str()`` is the markdown.
    """

    def __init__(self, source: str | os.PathLike) -> None:
        self.path: str | None = None
        if isinstance(source, os.PathLike) or ("\n" not in source and os.path.isfile(source)):
            self.path = os.fspath(source)
            self.text = Path(self.path).read_text(encoding="utf-8")
        else:
            self.text = str(source)

    @classmethod
    def of_text(cls, text: str) -> "CleaningReport":
        """The report holding ``text`` itself, never read as a path (a ``CleanResult``'s)."""
        report = cls.__new__(cls)
        report.path, report.text = None, str(text)
        return report

    def _repr_markdown_(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        where = self.path or f"{len(self.text)} characters"
        return f"CleaningReport({where!r})"
