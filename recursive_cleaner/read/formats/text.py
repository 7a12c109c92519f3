"""Plain text: decoded in blocks (UTF-8 or transcoded to it, BOM dropped, bad bytes an
InputEncodingError: ``encoding``), chunked.

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

from typing import Iterator

from ..text_chunker import DEFAULT_OVERLAP, TextChunk, iter_overlapped_chunks
from ._base import BLOCK_SIZE, Format, Opener, SkipCallback
from .encoding import DEFAULT_ENCODING, decoded_blocks

__all__ = ["TextFormat", "text_blocks", "text_chunks"]


def text_blocks(path: str, block_size: int, opener: Opener = open) -> Iterator[str]:
    """Decode a file as UTF-8 (BOM dropped) block by block; bad bytes raise InputEncodingError."""
    with opener(path, "rb") as f:
        yield from decoded_blocks(f, path, DEFAULT_ENCODING, block_size)


def _text_overlap(size: int, overlap: int | None) -> int:
    if overlap is None:
        return min(DEFAULT_OVERLAP, size // 4)
    if not isinstance(overlap, int) or isinstance(overlap, bool) or not 0 <= overlap < size:
        raise ValueError(
            f"overlap must be an integer from 0 to chunk_size - 1 ({size - 1}), got {overlap!r}"
        )
    return overlap


def text_chunks(
    path: str, size: int, overlap: int | None, block_size: int, opener: Opener = open
) -> Iterator[TextChunk]:
    """The chunker's chunks; one that adds only whitespace joins a neighbour when that stays within
    2 * size.

    Such chunks hold pieces of a cut whitespace run, so they repeat nothing of the chunk before.
    Checks ``overlap`` at call time; reads the file only when iterated.
    """
    chunks = iter_overlapped_chunks(
        text_blocks(path, block_size, opener), size, _text_overlap(size, overlap)
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
    label = "plain text"
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
        chunks = text_chunks(path, size, overlap, block_size, self.opener)
        return ([chunk.text] for chunk in chunks)

    def count(self, path: str, exact: bool, block_size: int) -> int:
        """The number of characters."""
        return sum(len(block) for block in text_blocks(path, block_size, self.opener))

    def count_chunks(self, path: str, size: int, overlap: int | None, block_size: int) -> int:
        return sum(1 for _ in text_chunks(path, size, overlap, block_size, self.opener))
