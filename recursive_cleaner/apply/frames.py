"""DataFrames through apply: the cross-row pass over cleaned rows, the output frame, and
``apply_dask_frame``.

``apply_dask_frame(functions_path, ddf)`` is apply_file's pipeline on a ``dask.dataframe``: per
partition, ``clean_data`` in a sandboxed worker started inside the Dask worker (``apply_records``),
the rows counted into a ``Summary``; the summaries merged in partition order by a tree of tasks;
the winners picked once (``Summary.fitted``) and sent to every worker; a dedup step's duplicate
keys found as in ``dask_fit``; then each partition transformed into a pandas frame with its own
index (rows a dedup step drops are left out). The result is a Dask DataFrame held in the
cluster's memory (persisted), with the same rows, values and index as ``ui.frames.apply_frame``
on the whole frame. Columns: the input's, then new ones in order of first appearance; a column
no function or step changed in any partition keeps its input dtype, the others take the dtype
pandas infers for the whole column, as ``apply_frame`` gives (int64, float64, str, bool; else
``object``): each partition reports the kinds of value its rows hold per column, and every
partition's column is cast to the dtype of their union.
"""

from __future__ import annotations

import os
from typing import Any

from .._extras import require
from .cross_row import loss_message, step_label
from .functions_plan import read_plan
from .dask_parts import started
from .dask_fit import SPLIT_EVERY
from .dask_keys import dedup_keys, merge_keys, owners_of, with_owners
from .dask_spool import merge_summaries
from .local import MAX_DROP, ApplyError, apply_records, read_functions
from ..crossrow.steps import CrossRowStep, Fitted, Summary, kind_of, summarize
from ..errors import DataLossError
from ..read.inputs import column_labels, frame_records

__all__ = ["kept_rows", "rows_frame", "apply_dask_frame"]

_ABSENT = object()


def kept_rows(fitted: Fitted, rows: list) -> tuple[list[int], list]:
    """The second pass over cleaned rows: (positions kept, their transformed rows); a dedup step
    drops the others."""
    kept, out = [], []
    for position, row in enumerate(rows):
        done = fitted.transform(row)
        if done is not None:
            kept.append(position)
            out.append(done)
    return kept, out


def rows_frame(
    df: Any,
    originals: list,
    kept: list[int] | None,
    rows: list,
    order: list[str] | None = None,
    changed: set | None = None,
) -> Any:
    """``rows`` as a frame with ``df``'s index (of the ``kept`` positions); unchanged columns are
    ``df``'s own.

    ``order`` fixes the columns (default: the input's present ones, then new ones as first seen);
    ``changed`` (default: worked out here) names the columns that come back as ``object``.
    """
    import pandas as pd

    labels = column_labels(df)
    positions = list(range(len(rows))) if kept is None else kept
    if order is None:
        seen = dict.fromkeys(key for row in rows for key in row)
        order = [k for k in labels if k in seen] + [k for k in seen if k not in labels]
    if changed is None:
        changed = {
            k
            for k in order
            if k not in labels
            or any(row.get(k, _ABSENT) != originals[p].get(k) for p, row in zip(positions, rows))
        }
    result = pd.DataFrame(rows, columns=order)
    result.columns = [labels.get(k, k) for k in order]
    result.index = df.index[positions] if kept is not None else df.index
    for position, key in enumerate(order):
        if key in changed:
            continue
        column = df[labels[key]]
        result.isetitem(position, column.array if kept is None else column.iloc[positions].array)
    return result


# ---------------------------------------------------------------------------- on Dask
def _clean(
    pdf: Any, code: str, filename: str, steps: list[CrossRowStep], options: dict
) -> tuple[list, Summary]:
    """One partition (a Dask task): clean_data on its rows in a sandboxed worker; the rows and their
    Summary."""
    rows = list(
        started(apply_records(code, frame_records(pdf), workers=1, cross_row=False, **options))
    )
    return rows, summarize(steps, rows)


def _transform(pdf: Any, cleaned: list, fitted: Fitted, owners: dict, k: int) -> tuple:
    """Partition ``k``'s rows through the fitted steps: (kept positions, rows, keys in order,
    changed keys, rows in)."""
    kept, rows = kept_rows(with_owners(fitted, owners, k), cleaned)
    originals = list(frame_records(pdf))
    labels = column_labels(pdf)
    keys = list(dict.fromkeys(key for row in rows for key in row))
    changed = {
        key
        for key in keys
        if key not in labels
        or any(row.get(key, _ABSENT) != originals[p].get(key) for p, row in zip(kept, rows))
    }
    kinds = {key: {_kind(row.get(key)) for row in rows} for key in keys}
    return kept, rows, keys, changed, len(cleaned), (kinds, len(rows))


# one value of each kind: pandas infers a column's dtype from the kinds of value it holds
_SAMPLES: dict[str, Any] = {"int": 1, "float": 0.5, "bool": True, "str": "a", "null": None}
_INT64 = range(-(2**63), 2**63)


def _kind(value: Any) -> str:
    """The kind of a JSON value, as pandas' dtype inference tells them apart."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else "bool"
    if isinstance(value, int):
        return "int" if value in _INT64 else "other"
    return {float: "float", str: "str"}.get(type(value), "other")


def _dtypes(shapes: list, changed: set) -> dict:
    """The dtype of each changed column: the one pandas infers for the kinds all partitions hold
    (a partition with rows that lack a column holds nulls there)."""
    import pandas as pd

    union: dict[str, set] = {key: set() for key in changed}
    for _, _, _, (kinds, kept) in shapes:
        for key in changed:
            union[key] |= kinds.get(key, {"null"} if kept else set())
    return {
        key: pd.Series([_SAMPLES.get(k, object()) for k in sorted(kinds)] or [None]).dtype
        for key, kinds in union.items()
    }


def _frame(pdf: Any, done: tuple, order: list[str], dtypes: dict) -> Any:
    kept, rows = done[0], done[1]
    out = rows_frame(pdf, list(frame_records(pdf)), kept, rows, order, set(dtypes))
    for position, key in enumerate(order):
        if key in dtypes:
            out.isetitem(position, out.iloc[:, position].astype(object).astype(dtypes[key]))
    return out


def _meta(pdf: Any, labels: dict, order: list[str], dtypes: dict) -> Any:
    import pandas as pd

    columns = {}
    for key in order:
        label = labels.get(key, key)
        columns[label] = (
            pdf[label] if key not in dtypes and label in pdf else pd.Series([], dtype=dtypes[key])
        )
    return pd.DataFrame(columns, index=pdf.index[:0])


def apply_dask_frame(
    functions_path: str | os.PathLike,
    frame: Any,
    *,
    client: Any = None,
    batch_size: int = 2000,
    trusted: bool = False,
    timeout_per_batch: float = 60.0,
    cross_row: bool = True,
    max_drop: float = MAX_DROP,
) -> Any:
    """clean_data, then the file's CROSS_ROW_STEPS, over a ``dask.dataframe``: a persisted Dask
    DataFrame, index kept.

    ``client``: a ``distributed.Client`` (None: the default client, else dask's threaded scheduler).
    Failed rows stay unchanged; steps the goals did not ask for may drop at most ``max_drop``
    (DataLossError).
    """
    dask = require("dask", "apply_dask_frame")
    require("dask.dataframe", "apply_dask_frame")
    import dask.dataframe as dd

    code = read_functions(functions_path)
    filename = os.path.abspath(functions_path)
    try:
        steps = read_plan(code, filename, steps=cross_row).steps
    except ValueError as exc:
        raise ApplyError(str(exc)) from None
    labels = column_labels(frame._meta)
    options = dict(batch_size=batch_size, trusted=trusted, timeout_per_batch=timeout_per_batch)
    parts = frame.to_delayed()
    cleaned = [dask.delayed(_clean, nout=2)(p, code, filename, steps, options) for p in parts]
    if client is not None:
        cleaned = client.persist(cleaned)
    level = [s for _, s in cleaned]
    while len(level) > 1:
        level = [
            dask.delayed(merge_summaries)(steps, *level[i : i + SPLIT_EVERY])
            for i in range(0, len(level), SPLIT_EVERY)
        ]
    compute = (
        (lambda *d: tuple(client.gather(client.compute(list(d)))))
        if client is not None
        else (lambda *d: dask.compute(*d, scheduler="threads"))
    )
    share = (
        (lambda v: client.scatter([v], broadcast=True, hash=False)[0])
        if client is not None
        else (lambda v: dask.delayed(v, traverse=False))
    )
    fitted = compute(level[0])[0].fitted() if steps else Summary([]).fitted()
    fitted_d = share(fitted)
    owners: dict[int, dict] = {}
    drops: dict[int, int] = {}
    rows = [c for c, _ in cleaned]
    for j in (i for i, s in enumerate(steps) if kind_of(s).keeps_first):
        known = share(owners)
        level = [dask.delayed(dedup_keys)(c, fitted_d, known, j, k) for k, c in enumerate(rows)]
        while len(level) > 1:
            level = [
                dask.delayed(merge_keys)(*level[i : i + SPLIT_EVERY])
                for i in range(0, len(level), SPLIT_EVERY)
            ]
        owners[j], drops[j] = compute(dask.delayed(owners_of)(dask.delayed(merge_keys)(level[0])))[
            0
        ]
    known = share(owners)
    done = [
        dask.delayed(_transform)(p, c, fitted_d, known, k)
        for k, (p, c) in enumerate(zip(parts, rows))
    ]
    if client is not None:
        done = client.persist(done)
    shapes = compute(*[dask.delayed(lambda d: (d[2], d[3], d[4], d[5]))(d) for d in done])
    total = sum(n for _, _, n, _ in shapes)
    unasked = sum(n for j, n in drops.items() if not steps[j].asked)
    if unasked > max_drop * total:
        raise DataLossError(
            loss_message(
                drops, steps, [step_label(i, s) for i, s in enumerate(steps)], total, max_drop
            ),
            unasked,
            total,
        )
    seen = dict.fromkeys(key for keys, _, _, _ in shapes for key in keys)
    order = [k for k in labels if k in seen] + [k for k in seen if k not in labels]
    changed = set().union(*(c for _, c, _, _ in shapes)) if shapes else set()
    dtypes = _dtypes(shapes, changed)
    frames = [dask.delayed(_frame)(p, d, order, dtypes) for p, d in zip(parts, done)]
    # JSON values stay Python values, not text
    with dask.config.set({"dataframe.convert-string": False}):
        out = dd.from_delayed(
            frames, meta=_meta(frame._meta, labels, order, dtypes), verify_meta=False
        )
        return client.persist(out) if client is not None else out.persist(scheduler="threads")
