"""apply's output side: files replaced atomically, and the writer each format's registry entry
makes.

The writers themselves live with their formats (``read.formats``: JSONL, JSON, CSV, and
``table_writers`` for Parquet and Excel, whose libraries are optional extras).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

from ..read.formats import REGISTRY, get
from ..read.formats.delimited import csv_cell
from ..read.formats.output import TableWriter, load_batch, null_blanks
from ..read.json_stream import dump_json
from ..write.state import make_parent, new_file_mode

__all__ = ["AtomicFile", "WRITERS", "csv_cell", "output_writer", "BlankNulls"]

# a JSON string that may be blank once decoded: nothing but whitespace, escapes or non-ASCII bytes
# (str.strip's whitespace); a batch without one is written as it came
_BLANKISH = rb'"(?:\s|\\[tnrfb]|\\u[0-9a-fA-F]{4}|[\x80-\xff])*"'
_MAYBE_BLANK = re.compile(_BLANKISH)


class AtomicFile:
    """A binary file written beside ``path`` and renamed over it on success; removed on failure.

    Open for reading too, and named after the temporary file (``file.name``).

    The mode is the existing target's, else 0o666 minus the umask (``mkstemp`` alone gives 0o600).
    ``path`` must be absent or a regular file, under a folder (``write.state.check_output_path``):
    a symlink is never written through. The temporary file is removed on any failure, also when
    closing it fails again (a full disk fails the flush of the buffer as well).
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def __enter__(self) -> BinaryIO:
        make_parent(self.path)
        fd, self.tmp = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        os.chmod(fd, new_file_mode(self.path))
        # readable too: a CSV whose later records bring new columns is rewritten in place; its name
        # places a writer's spool file beside it
        self.file = os.fdopen(fd, "w+b", buffering=1 << 20)
        self.file.raw.name = self.tmp
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


def output_writer(
    fmt: str, out: BinaryIO, path: str | os.PathLike, column_types: Mapping[str, Any] | None = None
) -> Any:
    """The writer of format ``fmt`` (a registered name) into ``out`` for the file ``path`` (.tsv:
    tabs).

    ``write(payload, count)`` per batch (``count`` JSON texts joined by b"\\n"), then ``finish()``;
    ``abort()`` when it has one and the run fails. A record the format cannot hold is a ValueError,
    which apply turns into ApplyError. ``column_types`` (``apply.out_types.column_types``): blanks
    of those fields are written as nulls, and a tabular writer may type their columns.
    """
    writer = get(fmt).writer(out, os.fspath(path))
    if not column_types:
        return writer
    if isinstance(writer, TableWriter):
        writer.column_types = dict(column_types)
        return writer
    return BlankNulls(writer, list(column_types))


class BlankNulls:
    """A writer of JSON texts (JSONL, JSON) whose batches have the blanks of ``fields`` made null.

    A batch is read only when it may hold a blank string. One with no nested object (each ``{``
    starts a record: no other can be outside a string) has each field's value found by its key,
    as the workers write it, when it may be blank, and a blank one replaced by ``null``; another
    is parsed and written again.
    """

    def __init__(self, writer: Any, fields: list[str]) -> None:
        self.writer, self.fields = writer, fields
        self.values = [
            re.compile(re.escape(dump_json(name)) + rb": (" + _BLANKISH + rb")") for name in fields
        ]

    def write(self, payload: bytes, count: int) -> None:
        if count and _MAYBE_BLANK.search(payload):
            if payload.count(b"{") == count:  # flat records: the fields' values by their keys
                for value in self.values:
                    payload = _nulled(value, payload)
            else:
                records = load_batch(payload)
                if null_blanks(records, self.fields):
                    payload = b"\n".join(dump_json(record) for record in records)
        self.writer.write(payload, count)

    def __getattr__(self, name: str) -> Any:  # finish, abort, dropped: the writer's own
        return getattr(self.writer, name)


def _nulled(value: re.Pattern, payload: bytes) -> bytes:
    """``payload`` with each blank string ``value`` finds made ``null``: a key's, after ``{`` or
    ``, `` (a quote inside a string is escaped, so no string holds that)."""
    pieces, last = [], 0
    for match in value.finditer(payload):
        start = match.start()
        if start and payload[start - 1] in b"{ ":
            text = match.group(1)
            if len(text) == 2 or not json.loads(text).strip():
                pieces += (payload[last : match.start(1)], b"null")
                last = match.end(1)
    return b"".join(pieces) + payload[last:] if pieces else payload


class _Writers(Mapping):
    """The writer factories of 0.x, ``WRITERS[fmt](binary_file, delimiter)``, read from the
    registry."""

    def __getitem__(self, name: str) -> Callable[[BinaryIO, str], Any]:
        fmt = get(name)
        return lambda out, delimiter=",": fmt.writer(
            out, "output.tsv" if delimiter == "\t" else "output"
        )

    def __iter__(self) -> Iterator[str]:
        return (name for name, fmt in REGISTRY.items() if fmt.writes)

    def __len__(self) -> int:
        return sum(1 for _ in self)


WRITERS: Mapping[str, Callable[[BinaryIO, str], Any]] = _Writers()
"""Writer factory per format name: ``WRITERS[fmt](binary_file, delimiter)``; ``output_writer`` names
the path."""
