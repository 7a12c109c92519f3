"""gzip-compressed JSON Lines and CSV/TSV (``.jsonl.gz``, ``.ndjson.gz``, ``.csv.gz``, ``.tsv.gz``).

Read as their plain formats are, through ``gzip.open`` (the same skips and errors, the same
``encoding``; a byte offset in a message counts the decompressed bytes); a damaged or cut-off
stream is an InputError naming the file. A gzip stream can only be read from its start, so Dask
gets each such file as one part. Written as the plain format into a gzip stream with no name and
no time in its header: the same records give the same bytes, locally and on Dask. Needs nothing
beyond the standard library.

A small gzip file can hold a great deal (deflate reaches 1,000 to 1): the stream is read through
``open_gzip``, which stops with an InputError naming the file once it has expanded past the bounds
of ``rows`` (``GZIP_RATIO`` times the file and ``GZIP_MB``; a line past ``GZIP_LINE_MB`` and the
file's size), before the line is held whole: a 199 KB file whose first line is 200 MB is refused
after 16 MB.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import shutil
import zlib
from typing import IO, Any, BinaryIO, Callable, Iterator

from ...errors import InputError
from .. import rows
from ._base import Part, SkipCallback
from .delimited import CsvFormat, CsvWriter
from .jsonl import JsonlFormat, JsonlWriter
from .output import spool_file

__all__ = ["GzipWriter", "GzipJsonlFormat", "GzipCsvFormat", "BoundedGzip", "open_gzip"]

_DAMAGED = (gzip.BadGzipFile, EOFError, zlib.error)


def _damaged(path: str, exc: BaseException) -> InputError:
    return InputError(f"{path}: not a readable gzip file: {exc}", path)


def _checked(path: str, items: Iterator[Any]) -> Iterator[Any]:
    """``items``, a damaged gzip stream turned into an InputError naming the file."""
    try:
        yield from items
    except _DAMAGED as exc:
        raise _damaged(path, exc) from None


class BoundedGzip(io.RawIOBase):
    """The decompressed bytes of a gzip file, forward only; an InputError once they pass the bounds.

    ``limit``: the bytes it may expand to (``GZIP_RATIO`` times the file, at least ``GZIP_MB``);
    ``line_limit``: the bytes of one line (``GZIP_LINE_MB``, or the file's size if larger).
    """

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.file = open(path, "rb")  # noqa: SIM115 - closed by close()
        self.stream = gzip.GzipFile(fileobj=self.file, mode="rb")
        size = os.fstat(self.file.fileno()).st_size
        self.limit = max(rows.GZIP_MB << 20, rows.GZIP_RATIO * size)
        self.line_limit = max(rows.GZIP_LINE_MB << 20, size)
        self.size, self.out, self.line_start, self.line = size, 0, 0, 1

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        """The decompressed bytes read so far (what ``BufferedReader.tell`` builds on)."""
        return self.out

    def readinto(self, buffer: Any) -> int:
        data = self.stream.read1(len(buffer))
        if data:
            last = data.rfind(b"\n")
            if last >= 0:
                self.line += data.count(b"\n")
                self.line_start = self.out + last + 1
            self.out += len(data)
            self._check()
            memoryview(buffer)[: len(data)] = data
        return len(data)

    def _check(self) -> None:
        if self.out - self.line_start > self.line_limit:
            raise InputError(
                f"{self.path}: line {self.line} is longer than {self.line_limit >> 20} MB once "
                f"decompressed, from a {rows.size_text(self.size)} file (a gzip bomb?); it is not "
                "read (bound: rows.GZIP_LINE_MB)",
                self.path,
                self.line,
            )
        if self.out > self.limit:
            raise InputError(
                f"{self.path}: expands to more than {self.limit >> 20} MB, over "
                f"{rows.GZIP_RATIO} times its {rows.size_text(self.size)} (a gzip bomb?); it is "
                "not read (bound: rows.GZIP_RATIO)",
                self.path,
                self.line,
            )

    def close(self) -> None:
        if not self.closed:
            with contextlib.suppress(Exception):
                self.stream.close()
            self.file.close()
        super().close()


def open_gzip(path: str | os.PathLike, mode: str = "rb", **text: Any) -> IO[Any]:
    """Like ``gzip.open`` for reading (``"rb"``, else text with ``text``'s keywords), within the
    bounds."""
    stream = io.BufferedReader(BoundedGzip(os.fspath(path)), buffer_size=1 << 16)
    return stream if "b" in mode else io.TextIOWrapper(stream, **text)


class GzipWriter:
    """A plain format's writer over a gzip stream into ``out``; ``finish`` ends the stream only.

    ``spooled``: the plain writer writes a spool file beside ``out`` (a CSV that may widen its
    header rewrites what it wrote), compressed into the stream at ``finish``.
    """

    def __init__(
        self, out: BinaryIO, make: Callable[[BinaryIO], Any], spooled: bool = False
    ) -> None:
        self.stream = gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=6, mtime=0)
        self.plain = spool_file(out) if spooled else None
        self.inner = make(self.stream if self.plain is None else self.plain)

    @property
    def dropped(self) -> set[str]:
        """Keys the plain writer left out (CSV: first seen after the first batch)."""
        return set(getattr(self.inner, "dropped", ()))

    def write(self, payload: bytes, count: int) -> None:
        self.inner.write(payload, count)

    def finish(self) -> None:
        self.inner.finish()
        if self.plain is not None:
            self.plain.seek(0)
            shutil.copyfileobj(self.plain, self.stream, 1 << 20)
            self.plain.close()
        self.stream.close()

    def abort(self) -> None:
        """The run failed: end the stream quietly (the half-written file is removed)."""
        getattr(self.inner, "abort", lambda: None)()
        with contextlib.suppress(Exception):
            self.stream.close()
        if self.plain is not None:
            self.plain.close()


class _Gzipped:
    """Mixed in before a plain format: gzip.open, one Dask part per file, damage an InputError."""

    name: str
    opener = staticmethod(open_gzip)

    def records(self, path: str, on_skip: SkipCallback | None, block_size: int) -> Iterator[dict]:
        return _checked(path, super().records(path, on_skip, block_size))  # type: ignore[misc]

    def chunks(
        self,
        path: str,
        size: int,
        overlap: int | None,
        on_skip: SkipCallback | None,
        block_size: int,
    ) -> Iterator[list]:
        chunks = super().chunks(path, size, overlap, on_skip, block_size)  # type: ignore[misc]
        return _checked(path, chunks)

    def count(self, path: str, exact: bool, block_size: int) -> int:
        try:
            return super().count(path, exact, block_size)  # type: ignore[misc]
        except _DAMAGED as exc:
            raise _damaged(path, exc) from None

    def batches(self, path: str, size: int, on_skip: SkipCallback | None) -> Iterator[Any]:
        return _checked(path, super().batches(path, size, on_skip))  # type: ignore[misc]

    def plan(self, path: str, batch_size: int, per_batches: int) -> list[Part]:
        return [Part(path, self.name, encoding=self.encoding)]

    def part_batches(self, part: Part, size: int, on_skip: SkipCallback | None) -> Iterator[Any]:
        return _checked(part.path, super().part_batches(part, size, on_skip))  # type: ignore[misc]


class GzipJsonlFormat(_Gzipped, JsonlFormat):
    """JSON Lines in a gzip stream."""

    name = "jsonl.gz"
    label = "gzipped JSONL"
    extensions = writes = (".jsonl.gz", ".ndjson.gz")

    def writer(self, out: BinaryIO, path: str) -> GzipWriter:
        return GzipWriter(out, JsonlWriter)


class GzipCsvFormat(_Gzipped, CsvFormat):
    """CSV (TSV for ``.tsv.gz``) in a gzip stream."""

    name = "csv.gz"
    label = "gzipped CSV/TSV"
    extensions = writes = (".csv.gz", ".tsv.gz")
    tab_suffix = ".tsv.gz"

    def writer(self, out: BinaryIO, path: str) -> GzipWriter:
        delimiter = self.delimiter(path)
        return GzipWriter(out, lambda plain: CsvWriter(plain, delimiter), spooled=True)
