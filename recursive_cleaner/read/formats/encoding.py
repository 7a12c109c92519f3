"""Text encodings: every text format reads UTF-8; a file in another encoding is transcoded first.

A format's reader works on UTF-8 bytes (``Format.opener``). ``Format.encoded(name)`` gives the
same format over ``transcoding(opener, name)``: the file decoded block by block in its encoding
and handed on as UTF-8 bytes, so JSONL, CSV/TSV, JSON, text and their gzip variants read it as
they read UTF-8, and apply's workers see UTF-8. Bytes that do not decode, in any format and any
encoding, stop the reading with one ``InputEncodingError`` naming the file, the line, the byte
and its offset, and a hint (``--encoding cp1252``, ``--encoding utf-16``, or iconv). A UTF-8 BOM
is dropped; a UTF-16 BOM is read by its codec. A file that is not text at all (the magic number of
a common binary format, zero bytes not in UTF-16's pattern, control bytes) is named a binary file
instead (``binary_kind``): no encoding reads it.
"""

from __future__ import annotations

import codecs
import io
import os
from typing import IO, Any, BinaryIO, Callable, Iterator

from ...errors import InputEncodingError

__all__ = [
    "DEFAULT_ENCODING",
    "check_encoding",
    "is_utf8",
    "encoding_hint",
    "binary_kind",
    "encoding_error",
    "utf8_error",
    "decoded_blocks",
    "Transcoded",
    "transcoding",
]

DEFAULT_ENCODING = "utf-8"
_BOM = codecs.BOM_UTF8
_UTF8 = ("utf-8", "utf-8-sig")  # codec names the formats' own UTF-8 reading covers
_CP1252_UNDEFINED = frozenset(b"\x81\x8d\x8f\x90\x9d")
_ICONV = {"latin-1": "ISO-8859-1", "cp1252": "CP1252", "utf-16": "UTF-16"}
_BLOCK = 1 << 16  # bytes decoded at a time by a transcoding stream


def check_encoding(encoding: Any) -> str:
    """``encoding`` when Python has a text codec of that name; ValueError (one line) otherwise."""
    if not isinstance(encoding, str) or not encoding.strip():
        raise ValueError(f"encoding must be a codec name such as 'latin-1', got {encoding!r}")
    try:
        "".encode(encoding)  # LookupError for a codec that is not a text encoding (base64...)
        codecs.getincrementaldecoder(encoding)
    except LookupError:
        raise ValueError(
            f"encoding {encoding!r} is not a text encoding Python knows (e.g. utf-8, latin-1, "
            "cp1252, utf-16)"
        ) from None
    return encoding


def is_utf8(encoding: str) -> bool:
    """Whether ``encoding`` names UTF-8 (any spelling; ``utf-8-sig`` too)."""
    return codecs.lookup(encoding).name in _UTF8


_HEAD = 4096  # bytes of a sample judged
# the first bytes of common binary formats (a text file that is not UTF-8 never starts so)
_MAGIC = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"PK\x03\x04", "a zip archive (.zip, .xlsx, .docx...)"),
    (b"\x1f\x8b", "gzip data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"(\xb5/\xfd", "zstd data"),
    (b"7z\xbc\xaf", "a 7-Zip archive"),
    (b"Rar!\x1a", "a RAR archive"),
    (b"%PDF-", "a PDF document"),
    (b"PAR1", "a Parquet file"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls, .doc)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "an executable"),
    (b"\xcf\xfa\xed\xfe", "an executable"),
)
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r\x0b\x0c\x1b")


def _looks_utf16(sample: bytes) -> bool:
    """A UTF-16 BOM, or zero bytes nearly all on one side of the byte pairs (Latin text in
    UTF-16)."""
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    head = sample[:_HEAD]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    return max(even, odd) > 8 and 8 * min(even, odd) <= max(even, odd)


def binary_kind(sample: bytes) -> str | None:
    """What a sample that is not text looks like ("a PNG image", "binary data"), or None for
    text."""
    for magic, kind in _MAGIC:
        if sample.startswith(magic):
            return kind
    head = sample[:_HEAD]
    if _looks_utf16(head):
        return None
    controls = len(head) - len(head.translate(None, _CONTROL))
    return "binary data" if b"\x00" in head or 10 * controls > len(head) else None


def _single_byte_guess(sample: bytes) -> str:
    """cp1252 when the sample has its printable 0x80-0x9f bytes (curly quotes...), else latin-1."""
    high = {b for b in sample if 0x80 <= b < 0xA0}
    return "cp1252" if high and not high & _CP1252_UNDEFINED else "latin-1"


def encoding_hint(sample: bytes, encoding: str = DEFAULT_ENCODING) -> str:
    """What to do about bytes that are not valid ``encoding``, judged from a ``sample`` of them."""
    if not is_utf8(encoding):
        return (
            f"the file is not {encoding}: name its encoding with --encoding (latin-1 reads any "
            "byte), or re-encode it to UTF-8 (iconv -f ENCODING -t UTF-8 IN > OUT)"
        )
    guess = "utf-16" if _looks_utf16(sample) else _single_byte_guess(sample)
    looks = "UTF-16" if guess == "utf-16" else "Latin-1/cp1252"
    return (
        f"the file looks like {looks}: read it with --encoding {guess} (Python: "
        f'encoding="{guess}"), or re-encode it to UTF-8 (iconv -f {_ICONV[guess]} -t UTF-8 IN > '
        "OUT)"
    )


def encoding_error(
    path: str,
    line: int,
    offset: int,
    byte: int,
    sample: bytes,
    encoding: str = DEFAULT_ENCODING,
) -> InputEncodingError:
    """The one error of every format for a byte that does not decode: file, line, byte, hint (a
    binary file is named one: no encoding reads it)."""
    name = "UTF-8" if is_utf8(encoding) else encoding
    where = f"byte 0x{byte:02x} at byte offset {offset} is not valid {name}"
    kind = binary_kind(sample)
    if kind is not None:
        message = (
            f"{path} is a binary file, not text (it looks like {kind}): line {line}: {where}; "
            "give a JSON Lines, CSV, JSON or text file, or a format its extension names "
            "(docs/formats.md)"
        )
    else:
        message = f"{path}: line {line}: {where}; {encoding_hint(sample, encoding)}"
    return InputEncodingError(message, path, line, offset)


def utf8_error(data: bytes, path: str, line: int, offset: int) -> InputEncodingError | None:
    """None when ``data`` (lines from ``line`` at byte ``offset``) is UTF-8, else its error."""
    if data.isascii():
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start
        return encoding_error(path, line + data.count(b"\n", 0, at), offset + at, data[at], data)
    return None


def decoded_blocks(f: BinaryIO, path: str, encoding: str, block_size: int) -> Iterator[str]:
    """The text of a binary file block by block (a leading UTF-8 BOM dropped when reading UTF-8);
    bytes that do not decode raise ``encoding_error`` with their line and offset."""
    decoder = codecs.getincrementaldecoder(encoding)()
    head = f.read(3) if is_utf8(encoding) else b""
    consumed = 3 if head == _BOM else 0
    raw = b"" if head == _BOM else head
    lines = 0
    while True:
        raw += f.read(block_size)
        final = not raw
        state = decoder.getstate()
        try:
            text = decoder.decode(raw, final)
        except UnicodeDecodeError as exc:
            pending = state[0]
            data = pending + raw
            decoder.setstate(state)
            try:  # the text before the bad byte, for its line number (any codec's newlines)
                before = decoder.decode(raw[: max(exc.start - len(pending), 0)])
            except UnicodeDecodeError:  # pragma: no cover - the prefix decoded a moment ago
                before = ""
            line = lines + before.count("\n") + 1
            offset = consumed - len(pending) + exc.start
            raise encoding_error(path, line, offset, data[exc.start], data, encoding) from None
        consumed += len(raw)
        raw = b""
        if text:
            lines += text.count("\n")
            yield text
        if final:
            return


class Transcoded(io.RawIOBase):
    """A binary file in ``encoding`` read as UTF-8 bytes, forward only (not seekable)."""

    def __init__(self, raw: BinaryIO, path: str, encoding: str, block_size: int = _BLOCK) -> None:
        super().__init__()
        self.raw = raw
        self.blocks = decoded_blocks(raw, path, encoding, block_size)
        self.pending, self.at = b"", 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self.at >= len(self.pending):
            text = next(self.blocks, None)
            if text is None:
                return 0
            # a strict decode gives no lone surrogate; one a codec makes is passed on, then refused
            self.pending, self.at = text.encode("utf-8", "surrogatepass"), 0
        n = min(len(buffer), len(self.pending) - self.at)
        memoryview(buffer)[:n] = self.pending[self.at : self.at + n]
        self.at += n
        return n

    def close(self) -> None:
        if not self.closed:
            self.raw.close()
        super().close()


Opener = Callable[..., IO[Any]]


def transcoding(opener: Opener, encoding: str) -> Opener:
    """An opener like ``opener`` whose files read as UTF-8: ``"rb"`` bytes, else text (its
    keywords: ``newline``, ``encoding`` of the UTF-8 text, ``errors``)."""

    def open_transcoded(path: str | os.PathLike, mode: str = "rb", **text: Any) -> IO[Any]:
        raw = Transcoded(opener(path, "rb"), os.fspath(path), encoding)
        stream = io.BufferedReader(raw)
        return stream if "b" in mode else io.TextIOWrapper(stream, **text)

    return open_transcoded
