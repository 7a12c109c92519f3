"""What every reader shares: the record of a skipped input line, how header names are made unique,
and the bounds on what a small file may become (declared here once; docs/formats.md lists them).

A compressed file may hold far more than its size: a 26 KB workbook read as 2,000 records of
16,384 keys, a 4 KB Parquet file holding 240 MB of values, a 199 KB ``.jsonl.gz`` whose first
line is 200 MB. Each reader checks its bound and stops with one ``InputError`` naming the file
and the bound; a file within the bounds reads as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError, clip_text

__all__ = [
    "SkippedRecord",
    "unique_header",
    "check_zip_expansion",
    "ZIP_RATIO",
    "ZIP_MEMBER_MB",
    "GZIP_RATIO",
    "GZIP_MB",
    "GZIP_LINE_MB",
    "SHEET_RATIO",
    "SHEET_CELLS",
    "SHEET_TEXT_RATIO",
    "SHEET_TEXT_MB",
    "PARQUET_RATIO",
    "PARQUET_MB",
    "PARQUET_BATCH_MB",
    "size_text",
]


@dataclass(frozen=True)
class SkippedRecord:
    """A record left out of the stream: file, 1-based line, and what was wrong with it."""

    path: str
    line: int
    reason: str


def unique_header(names: list[str]) -> list[str]:
    """Empty names become column_N (1-based position); repeats get _2, _3, ... (each name's next
    suffix kept: n repeats of one name are n tries, not n * n)."""
    taken = {n for n in names if n.strip()}
    seen: set[str] = set()
    tried: dict[str, int] = {}  # name -> the suffix to try next (every one before it is used)
    result = []
    for i, name in enumerate(names, 1):
        if not name.strip():
            name = f"column_{i}"
        if name in seen:
            k = tried.get(name, 2)
            while f"{name}_{k}" in seen or f"{name}_{k}" in taken:
                k += 1
            tried[name] = k + 1
            name = f"{name}_{k}"
        seen.add(name)
        result.append(name)
    return result


ZIP_RATIO, ZIP_MEMBER_MB = 100, 64
"""A member of a .docx/.xlsx (a zip) that expands more than ZIP_RATIO times to over ZIP_MEMBER_MB is
refused."""
GZIP_RATIO, GZIP_MB, GZIP_LINE_MB = 100, 64, 16
"""A gzip stream is refused once it has expanded to more than GZIP_RATIO times the file's size and
more than GZIP_MB, or once one line is longer than GZIP_LINE_MB and the file (text compresses 3 to
30 times; a line cannot be longer than an uncompressed file)."""
SHEET_RATIO, SHEET_CELLS = 100, 1_000_000
"""A worksheet is refused once its records hold more than SHEET_CELLS cells (keys, blanks included)
and more than SHEET_RATIO times the cells holding a value: every record has every column up to the
header's last one, so two cells in columns A and XFD make 16,384 keys a row."""
SHEET_TEXT_RATIO, SHEET_TEXT_MB = 100, 64
"""A worksheet is refused once its values come to more than SHEET_TEXT_RATIO times the file's size
and more than SHEET_TEXT_MB of text: a shared string is stored once and any number of cells may name
it (a 62 KB workbook of 200,000 cells naming one 32,000-character string holds 6.4 GB of values)."""
PARQUET_RATIO, PARQUET_MB, PARQUET_BATCH_MB = 100, 64, 16
"""A Parquet file is refused when its values (as its metadata declares them, then as read) come to
more than PARQUET_RATIO times its size and more than PARQUET_MB; it is read in batches of about
PARQUET_BATCH_MB of values."""


def size_text(nbytes: int) -> str:
    """A file's size for a message: "433 bytes", "21 KB", "3 MB"."""
    if nbytes < 1 << 10:
        return f"{nbytes} bytes"
    return f"{nbytes >> 10} KB" if nbytes < 1 << 20 else f"{nbytes >> 20} MB"


def check_zip_expansion(path: str) -> None:
    """InputError naming ``path`` when a member would expand like a zip bomb (the XML parsers hold
    it whole).

    Text and XML compress 5 to 30 times; a 130 KB .docx that expands to 100 MB of one paragraph took
    the parent to 520 MB of memory. A file that is not a zip is left to the reader's own error.
    """
    import zipfile  # noqa: PLC0415 - only documents and workbooks need it

    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    for m in members:
        if m.file_size > ZIP_MEMBER_MB << 20 and m.file_size > ZIP_RATIO * max(m.compress_size, 1):
            raise InputError(
                f"{path}: {clip_text(m.filename, 80)} would expand from {m.compress_size >> 10} KB "
                "to "
                f"{m.file_size >> 20} MB, more than {ZIP_RATIO} times (a zip bomb?); it is not "
                "read",
                path=path,
            )
