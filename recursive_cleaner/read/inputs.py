"""Data that is not a file yet: a pandas DataFrame or a list of dicts, written once as JSONL for the
cleaner.

pandas is imported only when a DataFrame is given. ``materialize_input(data)`` returns a path
unchanged; otherwise it writes a content-named JSONL file. Values are made JSON-ready:
NaN/None/NA/NaT → null, numpy scalars → Python, timestamps → ISO strings (a datetime column whose
values are all at midnight → "YYYY-MM-DD"), Decimal → float. The index is not part of the records
(``df.reset_index()`` first to clean it). Column labels become strings. The way back (a DataFrame
out) is ``recursive_cleaner.ui.frames``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import OutputError
from .json_stream import dump_json
from .tables import plain_value

__all__ = [
    "materialize_input",
    "frame_records",
    "column_labels",
    "inputs_folder",
    "given_as",
    "INPUT_DIR",
]


INPUT_DIR = "recursive_cleaner_inputs"
"""The start of the folder's name under the system temp dir where ``materialize_input`` writes when
no workdir is given (``recursive_cleaner_inputs-UID``: one per user, ``inputs_folder``)."""


def inputs_folder(workdir: str | os.PathLike | None = None) -> Path:
    """Where inputs are written: ``workdir`` as given (made if missing), else this user's private
    folder under the temp dir (0o700, owned, not a link: ``backends.private_dir``); OutputError
    naming it when another user's folder or a link stands there."""
    # imported here: the backends package is not loaded by ``import recursive_cleaner`` (0.4 s)
    from ..backends.private_dir import private_folder, user_suffix

    if workdir is not None:
        folder = Path(workdir)
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    folder = Path(tempfile.gettempdir()) / (INPUT_DIR + user_suffix())
    try:
        return private_folder(folder, parents=False)
    except PermissionError as exc:
        raise OutputError(f"inputs folder: {exc}") from None


_SLICE = 10_000  # DataFrame rows converted at a time
_GIVEN: dict[str, str] = {}  # a written file -> what the user gave ("a DataFrame of 3 rows")
_GIVEN_KEPT = 64  # entries remembered at most (the oldest forgotten first)


def given_as(path: str | os.PathLike) -> str:
    """What the user gave for a file ``materialize_input`` wrote in this process ("a DataFrame of
    1,200 rows", "a list of 3 records"); "" for any other path."""
    return _GIVEN.get(os.fspath(path), "")


def _is_frame(data: Any) -> bool:
    pandas = sys.modules.get("pandas")  # a DataFrame cannot exist unless pandas was imported
    return pandas is not None and isinstance(data, pandas.DataFrame)


def column_labels(df: Any) -> dict[str, Any]:
    """String key -> original column label; ValueError if two labels give the same key."""
    labels: dict[str, Any] = {}
    for label in df.columns:
        key = str(label)
        if key in labels:
            raise ValueError(
                f"the DataFrame has two columns named {key!r}; rename one (records need unique "
                "keys)"
            )
        labels[key] = label
    return labels


def _column_values(series: Any) -> list:
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(series):
        present = series.dropna()
        dates_only = series.dt.tz is None and bool((present == present.dt.normalize()).all())
        return [
            None if pd.isna(v) else (v.date().isoformat() if dates_only else v.isoformat())
            for v in series
        ]
    return [plain_value(v) for v in series.tolist()]


def frame_records(df: Any) -> Iterator[dict]:
    """The rows of a DataFrame as JSON-ready dicts (string keys), converted a slice at a time."""
    keys = list(column_labels(df))
    for start in range(0, len(df), _SLICE):
        part = df.iloc[start : start + _SLICE]
        columns = [_column_values(part.iloc[:, i]) for i in range(len(keys))]
        for row in zip(*columns):
            yield dict(zip(keys, row))
    if keys == [] and len(df):
        yield from ({} for _ in range(len(df)))


def _records(data: Any) -> Iterator[dict]:
    if _is_frame(data):
        yield from frame_records(data)
        return
    if isinstance(data, (str, bytes, dict)) or not isinstance(data, Iterable):
        raise TypeError(
            "expected a file path, a pandas DataFrame or a list of dicts, got "
            f"{type(data).__name__}"
        )
    for i, record in enumerate(data):
        if not isinstance(record, dict):
            raise TypeError(
                f"item {i} is a {type(record).__name__}, not a dict: every record must be a dict"
            )
        yield {str(k): plain_value(v) for k, v in record.items()}


def materialize_input(data: Any, workdir: str | os.PathLike | None = None) -> str:
    """A path the cleaner can read: a str/PathLike as it is; a DataFrame or list of dicts written as
    JSONL.

    The file is named by its content (``input-<sha256 prefix>.jsonl`` in ``workdir``, default
    ``<tempdir>/recursive_cleaner_inputs-UID``, this user's only), so the same data gives the same
    path again and a state file written for it can be resumed. The file is not deleted afterwards.
    """
    if isinstance(data, (str, os.PathLike)):
        return os.fspath(data)
    folder = inputs_folder(workdir)
    digest, rows = hashlib.sha256(), 0
    fd, tmp = tempfile.mkstemp(prefix=".input-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            for record in _records(data):
                line = dump_json(record) + b"\n"
                digest.update(line)
                out.write(line)
                rows += 1
        final = folder / f"input-{digest.hexdigest()[:16]}.jsonl"
        os.replace(tmp, final)
        what = f"a DataFrame of {rows:,} rows" if _is_frame(data) else f"a list of {rows:,} records"
        _GIVEN.pop(str(final), None)
        _GIVEN[str(final)] = what
        while len(_GIVEN) > _GIVEN_KEPT:
            del _GIVEN[next(iter(_GIVEN))]
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return str(final)
