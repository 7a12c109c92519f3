"""The batches the workers send back, and the column header every tabular writer (CSV, Parquet, Excel) shares."""

from __future__ import annotations

import json
from typing import Iterable

__all__ = ["load_batch", "Header"]


def load_batch(payload: bytes) -> list:
    """The records of a worker's batch: JSON texts joined by b"\\n"."""
    return [json.loads(text) for text in payload.split(b"\n")]


class Header:
    """A tabular output's columns: the first batch's keys in order of first appearance.

    Keys first seen in a later batch have no column: they are left out and listed in ``dropped``.
    """

    def __init__(self) -> None:
        self.keys: dict[str, None] | None = None
        self.dropped: set[str] = set()

    def start(self, records: Iterable[dict]) -> bool:
        """Fix the columns from the first batch; True the first time (write the header row then)."""
        if self.keys is not None:
            return False
        self.keys = {key: None for record in records for key in record}
        return True

    def note(self, records: Iterable[dict]) -> None:
        """Remember the keys of ``records`` that have no column."""
        for record in records:
            if not record.keys() <= self.keys.keys():
                self.dropped.update(record.keys() - self.keys.keys())
