"""apply's output side: files replaced atomically, and the JSONL / JSON / CSV writers (see apply's docstring).

The Parquet and Excel writers live in ``table_writers`` (their libraries are optional extras);
all three tabular writers fix their columns with ``batches.Header``.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any, BinaryIO

from .batches import Header, TableWriter
from ..write.state import make_parent, new_file_mode

__all__ = ["AtomicFile", "WRITERS", "csv_cell"]



class AtomicFile:
    """A binary file written beside ``path`` and renamed over it on success; removed on failure.

    The mode is the existing target's, else 0o666 minus the umask (``mkstemp`` alone gives 0o600).
    ``path`` must be absent or a regular file, under a folder (``write.state.check_output_path``):
    a symlink is never written through. The temporary file is removed on any failure, also when
    closing it fails again (a full disk fails the flush of the buffer as well).
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def __enter__(self) -> BinaryIO:
        make_parent(self.path)
        fd, self.tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.chmod(fd, new_file_mode(self.path))
        self.file = os.fdopen(fd, "wb", buffering=1 << 20)
        return self.file

    def __exit__(self, kind: type | None, *exc: object) -> None:
        done = False
        try:
            if kind is None:
                self.file.flush()
                os.fsync(self.file.fileno())
                self.file.close()
                os.replace(self.tmp, self.path)
                done = True
        finally:
            if not done:
                with contextlib.suppress(OSError):
                    self.file.close()
                with contextlib.suppress(OSError):
                    os.unlink(self.tmp)


class _JsonlWriter:
    """One JSON text per line."""

    def __init__(self, out: BinaryIO, delimiter: str) -> None:
        self.out = out

    def write(self, payload: bytes, count: int) -> None:
        """Write ``count`` records given as JSON texts joined by b"\\n"."""
        if count:
            self.out.write(payload)
            self.out.write(b"\n")

    def finish(self) -> None:
        pass


class _JsonWriter(_JsonlWriter):
    """A streamed JSON array, one record per line."""

    wrote = False

    def write(self, payload: bytes, count: int) -> None:
        if count:
            self.out.write(b",\n" if self.wrote else b"[\n")
            self.out.write(payload.replace(b"\n", b",\n"))
            self.wrote = True

    def finish(self) -> None:
        self.out.write(b"\n]\n" if self.wrote else b"[]\n")


class _CsvWriter(TableWriter):
    """CSV rows under a header fixed by the first batch; keys first seen later are dropped and listed."""

    def __init__(self, out: BinaryIO, delimiter: str) -> None:
        self.text = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
        self.csv = csv.writer(self.text, delimiter=delimiter)
        self.header = Header()

    def start(self, records: list[dict]) -> None:
        self.csv.writerow(self.header.keys)

    def rows(self, records: list[dict]) -> None:
        for record in records:
            self.csv.writerow([csv_cell(record.get(key)) for key in self.header.keys])

    def finish(self) -> None:
        self.text.flush()
        self.text.detach()


def csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _parquet_writer(out: BinaryIO, delimiter: str) -> Any:
    from .table_writers import ParquetWriter  # pyarrow is imported only when Parquet is written

    return ParquetWriter(out, delimiter)


def _excel_writer(out: BinaryIO, delimiter: str) -> Any:
    from .table_writers import ExcelWriter  # openpyxl is imported only when Excel is written

    return ExcelWriter(out, delimiter)


WRITERS = {"jsonl": _JsonlWriter, "json": _JsonWriter, "csv": _CsvWriter, "parquet": _parquet_writer,
           "excel": _excel_writer}
"""Writer factory per format: ``cls(binary_file, delimiter)``, then ``write(payload, count)``…, ``finish()``.

A writer raises ValueError for records its format cannot hold; apply_file turns it into ApplyError.
"""
