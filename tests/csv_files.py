"""Small CSV helpers the end-to-end tests share: write rows with a header, read them back as
dicts."""

from __future__ import annotations

import csv


def write_csv(path, rows: list[dict]) -> None:
    """``rows`` to ``path`` with the first row's keys as the header."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def read_csv(path) -> list[dict]:
    """The rows of ``path`` as dicts of strings."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
