"""apply's batches (JSON texts joined by newlines) and the header every tabular writer shares."""

from __future__ import annotations

import json
from typing import Iterable

__all__ = ["load_batch", "Header", "TableWriter"]


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


class TableWriter:
    """A tabular writer: columns from the first batch (``Header``); ``start`` writes the header,
    ``rows`` the records.

    Subclasses set ``self.header = Header()`` and define ``start(records)`` and ``rows(records)``.
    """

    header: Header

    @property
    def dropped(self) -> set[str]:
        """Keys first seen after the first batch: they have no column."""
        return self.header.dropped

    def write(self, payload: bytes, count: int) -> None:
        """Write ``count`` records given as JSON texts joined by b"\\n"."""
        if not count:
            return
        records = load_batch(payload)
        if self.header.start(records):
            self.start(records)
        self.rows(records)
        self.header.note(records)

    def start(self, records: list[dict]) -> None:
        raise NotImplementedError

    def rows(self, records: list[dict]) -> None:
        raise NotImplementedError
