"""apply's audit log: one row per changed cell, by the cleaning functions or a cross-row step.

``AuditLog`` streams one row per changed cell: ``row`` (0-based index of the input record, as
``reject_path`` counts), ``field``, ``old``, ``new``, ``step`` (the function, or a cross-row
step such as ``cross_row[1]:majority(provider_number)``) and ``kind``: ``changed``, ``added``
(old is null), ``removed`` (new is null), ``dropped`` (a dedup step removed the record; field,
old and new are null) or ``rejected`` (clean_data failed and the record went to reject_path).
JSONL, or CSV when the path ends with ``.csv`` (cells as apply writes CSV: null empty, text
as is, other values JSON).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from typing import Any, BinaryIO

from .writers import csv_cell
from ..crossrow.steps import Fitted
from ..read.json_stream import dump_json

__all__ = ["AUDIT_FIELDS", "AuditLog", "named_twice"]

AUDIT_FIELDS = ("row", "field", "old", "new", "step", "kind")


class _Twice(ValueError):
    """A JSON object with a key written twice."""


def _once(pairs: list) -> dict:
    record = dict(pairs)
    if len(record) < len(pairs):
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise _Twice(key)
            seen.add(key)
    return record


def named_twice(texts: list[bytes]) -> list[tuple[int, str]]:
    """(position, error) of each JSON text (a worker's record) with an object that names a key
    twice: keys 1 and "1" of a nested dict are written as one name, and reading it back keeps one
    value. Only texts with a nested object are parsed (the worker refuses a clash at the top)."""
    out = []
    for k, text in enumerate(texts):
        if text.count(b"{") < 2:
            continue
        try:
            json.loads(text, object_pairs_hook=_once)
        except _Twice as clash:
            out.append(
                (
                    k,
                    f"ValueError: the returned record has two fields named {str(clash)[:80]!r} "
                    "once written as JSON, which turns a key that is not a string into one; "
                    "return one, with string keys",
                )
            )
        except (ValueError, RecursionError):
            continue
    return out


def _same(old: Any, new: Any) -> bool:
    return old is new or (type(old) is type(new) and old == new)


class AuditLog:
    """The audit log, streamed to ``out`` (JSONL, or CSV with ``as_csv``); ``by_step``: records
    changed per step."""

    def __init__(self, out: BinaryIO, as_csv: bool = False, header: bool = True) -> None:
        self.out, self.rows = out, 0
        self.by_step: Counter = Counter()
        self.text = self.csv = None
        if as_csv:
            self.text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
            self.csv = csv.writer(self.text)
            if header:  # a piece of a log (apply_dask writes one per part) has none
                self.csv.writerow(AUDIT_FIELDS)

    def write_row(self, row: int, fld: Any, old: Any, new: Any, step: str, kind: str) -> None:
        """One row of the log as it is (not counted in ``by_step``)."""
        self.rows += 1
        if self.csv is not None:
            self.csv.writerow([row, csv_cell(fld), csv_cell(old), csv_cell(new), step, kind])
        else:
            entry = {"row": row, "field": fld, "old": old, "new": new, "step": step, "kind": kind}
            self.out.write(dump_json(entry) + b"\n")

    def changes(self, row: int, entries: list) -> None:
        """One record's changed cells: (step, field, kind, old, new) each, in the order they
        happened."""
        for step, fld, kind, old, new in entries:
            self.write_row(row, fld, old, new, step, kind)
        self.by_step.update({entry[0] for entry in entries})

    def event(self, row: int, step: str, kind: str) -> None:
        """A whole record: ``dropped`` by a dedup step (counted for it), or ``rejected``."""
        self.write_row(row, None, None, None, step, kind)
        if kind == "dropped":
            self.by_step[step] += 1

    @staticmethod
    def unwrap(payload: bytes, first: int, names: list[str], log: AuditLog | None) -> bytes:
        """An audited batch (texts of {"record", "trail"} from row ``first``): the records' texts;
        trails to ``log``."""
        texts = payload.split(b"\n")
        for k, text in enumerate(texts):
            if text:
                reply = json.loads(text)
                texts[k] = dump_json(reply["record"])
                if reply["trail"] and log is not None:
                    log.changes(first + k, [(names[s], *rest) for s, *rest in reply["trail"]])
        return b"\n".join(texts)

    def transform(self, fitted: Fitted, record: dict, row: int, labels: list[str]) -> dict | None:
        """``fitted.transform(record)`` step by step, logging what each step changed (or that it
        dropped the record)."""
        out, entries = dict(record), []
        for i, label in enumerate(labels):
            before = dict(out)
            keep = fitted.apply_step(i, out)
            for fld, new in out.items():
                if fld not in before:
                    entries.append((label, fld, "added", None, new))
                elif not _same(before[fld], new):
                    entries.append((label, fld, "changed", before[fld], new))
            if not keep:
                self.changes(row, entries)
                self.event(row, label, "dropped")
                return None
        self.changes(row, entries)
        return out

    def finish(self) -> None:
        if self.text is not None:
            self.text.flush()
            self.text.detach()
