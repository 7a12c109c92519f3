"""Corrected rows the user gives (``labels=``, ``--labels FILE``): each a corrected copy of an input
row, matched to it by a key column (issue 44).

A labels file is CSV, JSONL or JSON (any structured format the registry reads), a DataFrame or a
list of dicts, with the data's header (a column the data lacks is refused; one it leaves out is a
cell not labelled). Each label is matched to exactly one input row by ``key`` (``--labels-key``),
else by a column the data holds that is named like an identifier (``id``, ``tuple_id``,
``row_no``) and unique there. Keys are compared as text (``17``, ``"17"`` and ``17.0`` are one key;
spaces around trimmed). A label matching no row, or two, a key given twice, a row with no key: one
``LabelError`` line naming the labels file and the label's row. The data is read once, streaming;
at most ``MAX_LABELS`` labels are held.

``Labels`` is what a run learns from them: per label, the input row it corrects (``given``) and the
corrected values (``corrected``); ``cells()`` gives each labelled cell as (field, input, corrected),
the examples every function and step is held to (``profiling.example_checks``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from ..errors import LabelError, clip_text
from .formats.encoding import DEFAULT_ENCODING
from .inputs import frame_records
from .parsers import iter_records
from .tables import plain_value

__all__ = ["Label", "Labels", "read_labels", "match_text", "MAX_LABELS", "ID_COLUMN"]

MAX_LABELS = 5_000  # corrected rows held at most (each is a whole row, kept in memory)
ID_COLUMN = re.compile(r"(?:^|[_\s-])id$|^id$|(?:^|_)(?:key|no|num|number|index)$", re.I)
"""A column named like an identifier: a key labels may be matched by when none is named."""
_SHOWN = 60  # characters of a key value quoted in an error


def match_text(value: Any) -> str | None:
    """The text a key value is matched by (None for a blank): ``17``, ``"17"``, ``17.0`` alike."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


@dataclass(frozen=True)
class Label:
    """One corrected row: its place in the labels (``row``, 1-based), its key's text, the input row
    it corrects (``given``, as read, and its place ``record``) and the corrected values."""

    row: int
    key: str
    given: dict
    corrected: dict
    record: int


@dataclass(frozen=True)
class Labels:
    """The corrected rows of a run, matched to their input rows by the column ``key``."""

    key: str
    where: str  # the labels file, or what was given ("a DataFrame of 20 rows")
    rows: tuple[Label, ...] = ()

    def __len__(self) -> int:
        return len(self.rows)

    def fields(self) -> list[str]:
        """The labelled fields (the key aside), in the labels' column order."""
        seen = dict.fromkeys(f for r in self.rows for f in r.corrected if f != self.key)
        return list(seen)

    def cells(self, fields: Iterable[str] | None = None) -> list[tuple[str, Any, Any]]:
        """(field, input value, corrected value) of every labelled cell (of ``fields``)."""
        wanted = None if fields is None else set(fields)
        return [
            (f, r.given.get(f), v)
            for r in self.rows
            for f, v in r.corrected.items()
            if f != self.key and (wanted is None or f in wanted)
        ]

    def cases(self) -> list[tuple[int, str, Any, Any]]:
        """(label index, field, input value, corrected value) of every labelled cell (the key's
        aside): the examples a function is held to on the row each labels."""
        return [
            (k, f, r.given.get(f), v)
            for k, r in enumerate(self.rows)
            for f, v in r.corrected.items()
            if f != self.key
        ]

    def step_rows(self) -> list[dict]:
        """The corrected rows as the ``labels`` cross-row step keeps them (key included)."""
        return [dict(r.corrected, **{self.key: r.given.get(self.key)}) for r in self.rows]

    def digest(self) -> str:
        """sha256 of the key and the corrected rows: the state file's fingerprint of the labels."""
        text = json.dumps(
            [self.key, [r.corrected for r in self.rows]], sort_keys=True, default=str
        ).encode()
        return hashlib.sha256(text).hexdigest()

    def describe(self) -> str:
        """One line for the report and the terminal."""
        return (
            f"{len(self.rows)} corrected row{'s' * (len(self.rows) != 1)} ({self.where}), "
            f"matched by {self.key}"
        )


def _label_rows(given: Any, encoding: str) -> tuple[str, Iterator[dict]]:
    """(how the labels are named in a message, their rows)."""
    if isinstance(given, (str, os.PathLike)):
        path = os.fspath(given)
        if not os.path.isfile(path):
            raise LabelError(f"labels {path}: no such file", path)

        def skipped(entry: Any) -> None:
            raise LabelError(
                f"labels {path} line {getattr(entry, 'line', '?')}: "
                f"{clip_text(getattr(entry, 'reason', 'unreadable'), 120)}",
                path,
                getattr(entry, "line", None),
            )

        return path, iter_records(path, on_skip=skipped, encoding=encoding)
    if type(given).__name__ == "DataFrame":
        return f"a DataFrame of {len(given):,} rows", frame_records(given)
    if isinstance(given, (list, tuple)):
        rows = []
        for i, row in enumerate(given, 1):
            if not isinstance(row, dict):
                raise LabelError(f"labels row {i}: a {type(row).__name__}, not a record", "", i)
            rows.append({str(k): plain_value(v) for k, v in row.items()})
        return f"a list of {len(rows):,} records", iter(rows)
    raise LabelError(
        f"labels must be a file path, a DataFrame or a list of records, got {type(given).__name__}"
    )


def _choose_key(where: str, columns: list[str], key: str | None, header: list[str]) -> str:
    """The key column: the one named, else the first column named like an identifier that both the
    labels and the data hold."""
    if key is not None:
        for what, names in (("the labels", columns), ("the data", header)):
            if key not in names:
                raise LabelError(
                    f"labels {where}: the key {clip_text(key, _SHOWN)!r} is not a column of {what}",
                    where,
                )
        return key
    found = [c for c in columns if c in header and ID_COLUMN.search(c)]
    if not found:
        raise LabelError(
            f"labels {where}: no column named like an identifier that the data holds to match "
            "them by; name one with --labels-key (labels_key=)",
            where,
        )
    return found[0]


def read_labels(
    given: Any,
    data_path: str,
    *,
    key: str | None = None,
    encoding: str = DEFAULT_ENCODING,
    data_encoding: str = DEFAULT_ENCODING,
    max_labels: int = MAX_LABELS,
) -> Labels:
    """The labels ``given`` matched to the rows of ``data_path`` (read once); LabelError naming the
    labels and the row for one that cannot be used."""
    where, rows = _label_rows(given, encoding)
    labels: list[dict] = []
    for row in rows:
        if len(labels) >= max_labels:
            raise LabelError(f"labels {where}: more than {max_labels:,} rows", where)
        labels.append(row)
    if not labels:
        raise LabelError(f"labels {where}: no rows", where)
    columns = list(dict.fromkeys(c for r in labels for c in r))
    data = iter_records(data_path, encoding=data_encoding)
    first = next(data, None)
    if first is None:
        raise LabelError(f"labels {where}: the data {data_path} has no records", where)
    header = list(first)
    extra = [c for c in columns if c not in header]
    if extra:
        raise LabelError(
            f"labels {where}: column {clip_text(extra[0], _SHOWN)!r} is not in the data's header "
            f"({clip_text(', '.join(header), 160)})",
            where,
        )
    chosen = _choose_key(where, columns, key, header)
    wanted = _wanted(where, labels, chosen)
    matched: dict[str, list[tuple[int, dict]]] = {k: [] for k in wanted}
    for n, record in enumerate(_chain(first, data), 1):
        text = match_text(record.get(chosen)) if isinstance(record, dict) else None
        if text in matched:
            matched[text].append((n, record))
    out = []
    for text, at in wanted.items():
        found = matched[text]
        shown = f"{chosen} {clip_text(text, _SHOWN)!r}"
        if not found:
            raise LabelError(
                f"labels {where} row {at}: {shown} matches no row of {data_path}", where, at
            )
        if len(found) > 1:
            raise LabelError(
                f"labels {where} row {at}: {shown} matches rows {found[0][0]} and {found[1][0]} "
                f"of {data_path}: name a key whose values are unique (--labels-key)",
                where,
                at,
            )
        record_at, record = found[0]
        corrected = {c: v for c, v in labels[at - 1].items() if c in header}
        nested = [c for c, v in corrected.items() if isinstance(v, (dict, list))]
        if nested:
            raise LabelError(
                f"labels {where} row {at}: {clip_text(nested[0], _SHOWN)!r} holds a list or an "
                "object; a label holds plain values",
                where,
                at,
            )
        out.append(Label(at, text, dict(record), corrected, record_at))
    return Labels(chosen, where, tuple(out))


def _wanted(where: str, labels: list[dict], key: str) -> dict[str, int]:
    """Each label's key text -> its row (1-based); LabelError for a blank key or one given twice."""
    wanted: dict[str, int] = {}
    for at, row in enumerate(labels, 1):
        text = match_text(row.get(key))
        if text is None:
            raise LabelError(f"labels {where} row {at}: no {clip_text(key, _SHOWN)}", where, at)
        if text in wanted:
            raise LabelError(
                f"labels {where} rows {wanted[text]} and {at} both label {key} "
                f"{clip_text(text, _SHOWN)!r}",
                where,
                at,
            )
        wanted[text] = at
    return wanted


def _chain(first: dict, rest: Iterator[dict]) -> Iterator[dict]:
    yield first
    yield from rest
