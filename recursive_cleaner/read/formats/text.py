"""Plain text: decoded in blocks (UTF-8, BOM dropped, bad bytes an InputEncodingError), chunked.

Decoded in blocks (newlines untouched) and cut by ``text_chunker`` into chunks of at most
``chunk_size`` characters at sentence boundaries (an over-long sentence at its last whitespace
before the limit, else at the limit); each chunk after the first repeats up to ``overlap``
characters of whole sentences from the end of the previous one (default: 200, at most a quarter
of ``chunk_size``). A chunk that adds only whitespace joins the previous chunk (leading
whitespace: the first chunk) when the result stays within ``2 * chunk_size``. With ``overlap=0``
joining the chunks gives back the text exactly; a file with no non-whitespace character gives no
chunks. Text has no records: apply does not read it.
"""

from __future__ import annotations

import codecs
from typing import Iterator

from ...errors import InputEncodingError
from ..text_chunker import DEFAULT_OVERLAP, TextChunk, iter_overlapped_chunks
from ._base import BLOCK_SIZE, Format, SkipCallback

__all__ = ["TextFormat", "text_blocks", "text_chunks", "encoding_error"]

_BOM = codecs.BOM_UTF8


def _encoding_hint(data: bytes) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or data[:64].count(0) > 8:
        return (
            "the file looks like UTF-16; re-encode it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 IN > "
            "OUT)"
        )
    return (
        "the file looks like Latin-1/cp1252; re-encode it to UTF-8 (e.g. iconv -f CP1252 -t UTF-8 "
        "IN > OUT)"
    )


def encoding_error(
    path: str, line: int, offset: int, byte: int, sample: bytes
) -> InputEncodingError:
    message = (
        f"{path}: line {line}: byte 0x{byte:02x} at byte offset {offset} is not valid UTF-8; "
        f"{_encoding_hint(sample)}"
    )
    return InputEncodingError(message, path, line, offset)


def text_blocks(path: str, block_size: int) -> Iterator[str]:
    """Decode a file as UTF-8 (BOM dropped) block by block; bad bytes raise InputEncodingError."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(path, "rb") as f:
        head = f.read(3)
        consumed = 3 if head == _BOM else 0
        raw = b"" if head == _BOM else head
        lines = 0
        while True:
            raw += f.read(block_size)
            final = not raw
            pending = decoder.getstate()[0]
            try:
                text = decoder.decode(raw, final)
            except UnicodeDecodeError as exc:
                data = pending + raw
                line = lines + data.count(b"\n", 0, exc.start) + 1
                raise encoding_error(
                    path, line, consumed - len(pending) + exc.start, data[exc.start], data
                ) from None
            consumed += len(raw)
            raw = b""
            if text:
                lines += text.count("\n")
                yield text
            if final:
                return


def _text_overlap(size: int, overlap: int | None) -> int:
    if overlap is None:
        return min(DEFAULT_OVERLAP, size // 4)
    if not isinstance(overlap, int) or isinstance(overlap, bool) or not 0 <= overlap < size:
        raise ValueError(
            f"overlap must be an integer from 0 to chunk_size - 1 ({size - 1}), got {overlap!r}"
        )
    return overlap


def text_chunks(path: str, size: int, overlap: int | None, block_size: int) -> Iterator[TextChunk]:
    """The chunker's chunks; one that adds only whitespace joins a neighbour when that stays within
    2 * size.

    Such chunks hold pieces of a cut whitespace run, so they repeat nothing of the chunk before.
    Checks ``overlap`` at call time; reads the file only when iterated.
    """
    chunks = iter_overlapped_chunks(
        text_blocks(path, block_size), size, _text_overlap(size, overlap)
    )
    return _join_blank_chunks(chunks, size)


def _join_blank_chunks(chunks: Iterator[TextChunk], size: int) -> Iterator[TextChunk]:
    pending: TextChunk | None = None  # the last chunk, held back so trailing whitespace can join it
    lead: list[str] = []  # whitespace before the first content; dropped if the file has none
    held = 0
    for chunk in chunks:
        new = chunk.new
        if new.strip():
            if lead:
                joined = "".join(lead) + new
                if len(joined) <= 2 * size:
                    chunk = TextChunk(joined, 0)
                else:
                    yield from (TextChunk(p, 0) for p in lead)
                lead, held = [], 0
        elif pending is None:
            lead.append(new)
            held += len(new)
            if held > BLOCK_SIZE:  # absurdly long leading whitespace: stop holding it
                yield from (TextChunk(p, 0) for p in lead)
                lead, held = [], 0
            continue
        elif len(pending.text) + len(new) <= 2 * size:
            pending = TextChunk(pending.text + new, pending.overlap)
            continue
        else:
            chunk = TextChunk(new, 0)
        if pending is not None:
            yield pending
        pending = chunk
    if pending is not None:
        yield pending


class TextFormat(Format):
    """A file no other format's extension names: one-string chunks of at most ``size``
    characters."""

    name = "text"
    structured = False
    applies = False

    def records(self, path: str, on_skip: SkipCallback | None, block_size: int) -> Iterator[dict]:
        raise ValueError("text files have no records; use iter_chunks(path, size, 'text')")

    def chunks(
        self,
        path: str,
        size: int,
        overlap: int | None,
        on_skip: SkipCallback | None,
        block_size: int,
    ) -> Iterator[list]:
        return ([chunk.text] for chunk in text_chunks(path, size, overlap, block_size))

    def count(self, path: str, exact: bool, block_size: int) -> int:
        """The number of characters."""
        return sum(len(block) for block in text_blocks(path, block_size))

    def count_chunks(self, path: str, size: int, overlap: int | None, block_size: int) -> int:
        return sum(1 for _ in text_chunks(path, size, overlap, block_size))
