"""A small sentence-aware chunker for plain text (stdlib only, streaming).

Sentences keep their trailing whitespace, so joining them gives back the text exactly. A
sentence ends after ``.``, ``!``, ``?`` or ``…`` (runs such as ``?!`` and ``...`` included),
optionally followed by closing quotes or brackets, then whitespace; after the CJK full stops
``。！？`` (whitespace optional); at a blank line (paragraph break); and at a line break
followed by a list item (``-``, ``*``, ``•``, ``1.``, ``2)``, ``(a)``, ``#`` ...). Not after
titles and Latin abbreviations (``Mr.``, ``Dr.``, ``St.``, ``e.g.``, ``i.e.``, ``vs.``), single
initials (``J. Smith``), dotted initialisms (``U.S.``, ``Ph.D.``), nor after ``etc.``,
``a.m.``, ``No.``, ``Inc.`` ... or an ellipsis when the text goes on in lower case (or, for
the abbreviations, with a digit); quoted speech followed by a lower-case word (``"Stop!" he
said``) goes on too. Decimals, URLs and e-mail addresses never end a sentence because their
dots are not followed by whitespace. Leading whitespace belongs to the first sentence.

Chunks hold whole sentences, at most ``size`` characters. A sentence longer than ``size`` is
cut at the last whitespace before the limit, else hard at the limit, never between a base
character and its combining marks (or a zero-width joiner) nor inside a CRLF pair. Each chunk
after the first starts with whole sentences repeated from the end of the previous chunk, at
most ``overlap`` characters in all (none if the last sentence alone is longer, or is a piece of
a cut sentence). Dropping those repeated characters and joining the chunks gives back the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from typing import Iterable, Iterator, NamedTuple

__all__ = [
    "DEFAULT_SIZE",
    "DEFAULT_OVERLAP",
    "TextChunk",
    "split_sentences",
    "chunk_text",
    "iter_text_chunks",
    "iter_overlapped_chunks",
]

DEFAULT_SIZE = 4000
DEFAULT_OVERLAP = 200

_TERMS = ".!?…"
_CJK_TERMS = "。！？"
_CLOSERS = "\"'”’»›)]}」』）】〕》〉"
_OPENERS = "\"'“‘«‹([{¿¡"
_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_BEHIND = 64  # characters kept before the current sentence for the abbreviation check
_AHEAD = 8  # characters needed after a whitespace run to decide it (list markers)


def _cls(chars: str) -> str:
    return "[" + "".join(re.escape(c) for c in chars) + "]"


# Where a sentence may end: after CJK full stops; a whitespace run after a terminator or a
# closer; a whitespace run holding a line break. Each match covers a whole whitespace run and
# starts where the run starts (linear time on long runs).
_CANDIDATE = re.compile(
    f"{_cls(_CJK_TERMS)}+{_cls(_CLOSERS)}*\\s*|(?<={_cls(_TERMS + _CLOSERS)})\\s+|(?<!\\s)"
    f"\\s*{_cls(_BREAKS)}\\s*"
)
_LINE_BREAK = re.compile(f"\r\n|{_cls(_BREAKS)}")
_LIST_ITEM = re.compile(r"(?:[-*+•‣◦▪▸–]|#{1,6}|\d{1,3}[.)]|\(?[A-Za-z0-9]{1,3}\))\s")
# U.S, e.g, Ph.D (the last dot is the terminator)
_DOTTED = re.compile(r"(?:[^\W\d_]{1,2}\.)+[^\W\d_]{1,2}")
_UP_TO_LAST_SPACE = re.compile(r"(?s).*\s")

# Never the end of a sentence: titles, Latin abbreviations, "Fig. 3" style references.
_ALWAYS_GO_ON = frozenset(
    "mr mrs ms mx dr prof st rev hon gen col capt lt sgt mt ft e.g i.e cf vs viz approx ca fig "
    "figs eq eqs "
    "vol pp ch sec dept".split()
)
# The end of a sentence unless the text goes on in lower case or with a digit ("etc. and", "No. 5").
_GO_ON_IF_CONTINUED = frozenset(
    "etc jr sr inc ltd co corp llc no nos a.m p.m al est min max "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


class TextChunk(NamedTuple):
    """A chunk and how many of its leading characters repeat the end of the previous chunk."""

    text: str
    overlap: int

    @property
    def new(self) -> str:
        """The characters this chunk adds to the text."""
        return self.text[self.overlap :]


def _check(size: int, overlap: int) -> None:
    for name, value in (("size", size), ("overlap", overlap)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(
            f"overlap must be at least 0 and smaller than size ({size}), got {overlap}"
        )


# ---------------------------------------------------------------------------- sentences
def _ends_sentence(buf: str, start: int, end: int) -> bool:
    """Whether the whitespace run buf[start:end] (non-empty text before it) ends a sentence."""
    breaks = len(_LINE_BREAK.findall(buf, start, end))
    if breaks >= 2:  # paragraph break
        return True
    if breaks and _LIST_ITEM.match(buf, end, end + _AHEAD):
        return True
    low = max(0, start - _BEHIND)  # look back no further, so that blocks never change the answer
    stop = start
    while stop > low and buf[stop - 1] in _CLOSERS:
        stop -= 1
    first = stop
    while first > low and buf[first - 1] in _TERMS:
        first -= 1
    if first == stop:
        return False
    marks = buf[first:stop]
    follow = buf[end] if end < len(buf) else ""
    if stop < start and follow.islower():  # '"Stop!" he said'
        return False
    if "!" in marks or "?" in marks:
        return True
    if marks != ".":  # ellipsis: a pause when the text goes on in lower case
        return not follow.islower()
    word = first
    while word > low and not buf[word - 1].isspace():
        word -= 1
    token = buf[word:first].lstrip(_OPENERS)
    key = token.lower()
    if key in _ALWAYS_GO_ON or (len(token) == 1 and token.isalpha()):
        return False
    if token.isdigit() and len(token) <= 3 and _line_start(buf, low, word, start < _BEHIND):
        return False  # "1. " numbering a list item
    if key in _GO_ON_IF_CONTINUED:
        return not (follow.islower() or follow.isdigit())
    return not _DOTTED.fullmatch(token)


def _line_start(buf: str, low: int, at: int, low_is_start: bool) -> bool:
    """Whether only spaces stand between buf[at] and a line break (or the start of the text) after
    low."""
    before = buf[low:at].rstrip(" \t")
    return before[-1] in _BREAKS if before else low_is_start


def _find_end(
    buf: str, pos: int, scan: int, final: bool, size: int | None = None
) -> tuple[int | None, int, int]:
    """(end, _, _) of the sentence starting at ``pos``, or (None, lower bound of its end, where to
    rescan).

    Candidates before ``scan`` are known not to end the sentence. Without ``final``, a candidate
    is decided only once the text after it is in ``buf``, so the answer never depends on how the
    text was split into blocks. With ``size``, only ``buf[scan:pos + size + 1]`` is scanned: an
    end past ``pos + size`` cuts the sentence wherever it is, so looking further is wasted (and
    rescanning the rest of the text after every cut made text with no sentence end quadratic).
    """
    n = len(buf)
    limit = n if size is None else min(n, pos + size + 1)
    # a candidate found in the window is the one a scan of the whole text finds (its runs stop
    # before the window's edge), unless it reaches the edge: then it ends after pos + size
    for match in _CANDIDATE.finditer(buf, scan, limit):
        start, end = match.span()
        if end == limit < n:
            return None, limit, start  # the sentence is longer than size
        if end == n:  # the run (or the terminator run) may go on in the next block
            return (n, n, n) if final else (None, n, start)
        cjk = not buf[start].isspace()
        if start == pos and not cjk:
            continue  # whitespace before any text belongs to the sentence
        if cjk:
            return end, end, end
        if not final and end + _AHEAD > n:
            return None, end, start
        if _ends_sentence(buf, start, end):
            return end, end, end
    if limit < n:
        return None, limit, limit  # no end within pos + size: the sentence is longer than size
    if final:
        return n, n, n
    # a trailing whitespace run may still become a candidate (a line break may follow): rescan from
    # its start
    return None, n, max(scan, len(buf.rstrip()))


def _is_mark(ch: str) -> bool:
    return (
        unicodedata.category(ch)[0] == "M" or ch == "\u200d" or "\U0001f3fb" <= ch <= "\U0001f3ff"
    )


def _splits(buf: str, cut: int) -> bool:
    """Whether cutting before buf[cut] separates a CRLF pair or a character from its marks.

    As in Unicode's grapheme rules, a line break never takes marks: a mark after it starts a new
    cluster.
    """
    before, at = buf[cut - 1], buf[cut]
    if before in "\r\n":
        return before == "\r" and at == "\n"
    return _is_mark(at) or before == "\u200d"


def _cut(buf: str, pos: int, size: int) -> int:
    """Where to cut a sentence longer than ``size`` (buf holds more than ``size`` chars after
    pos)."""
    # the last whitespace before the limit that splits nothing, looked for backwards once (a
    # ".*\s" match per try was quadratic in size before a run of whitespace + combining mark)
    match = _UP_TO_LAST_SPACE.match(buf, pos, pos + size)
    at = match.end() if match else pos
    while at > pos:
        if buf[at - 1].isspace() and not _splits(buf, at):
            return at
        at -= 1
    cut = pos + size
    while cut > pos + 1 and _splits(buf, cut):
        cut -= 1
    # one cluster longer than size: cut inside it, but never inside a CRLF pair
    if _splits(buf, cut):
        cut = pos + size
        if buf[cut - 1] == "\r" and buf[cut] == "\n" and cut - 1 > pos:
            cut -= 1
    return cut


def _sentence_units(blocks: Iterable[str], size: int | None) -> Iterator[tuple[str, bool]]:
    """(text, whole) per sentence; sentences longer than ``size`` come in pieces (whole=False)."""
    buf, pos, scan, in_cut = "", 0, 0, False
    for block in _with_end(blocks):
        final = block is None
        if block:
            drop = pos - _BEHIND
            if drop > 0:
                buf, pos, scan = buf[drop:], pos - drop, scan - drop
            buf += block
        elif not final:
            continue
        while pos < len(buf):
            end, lower, resume = _find_end(buf, pos, scan, final, size)
            if end is not None and (size is None or end - pos <= size):
                yield buf[pos:end], not in_cut
                pos = scan = end
                in_cut = False
                continue
            scan = resume
            if size is None or lower <= pos + size:
                break  # more text needed
            cut = _cut(buf, pos, size)
            yield buf[pos:cut], False
            pos = scan = cut
            in_cut = True


def _with_end(blocks: Iterable[str]) -> Iterator[str | None]:
    yield from blocks
    yield None


def split_sentences(text: str) -> list[str]:
    """Sentences with their trailing whitespace; joining them gives back text exactly."""
    return [sentence for sentence, _ in _sentence_units([text], None)]


# ---------------------------------------------------------------------------- chunks
def _pack(units: Iterator[tuple[str, bool]], size: int, overlap: int) -> Iterator[TextChunk]:
    head: list[str] = []  # the chunk but for ...
    # ... its last whole sentences, within ``overlap`` chars: the next overlap
    tail: deque[str] = deque()
    head_len = tail_len = shared = 0  # shared: characters repeated from the previous chunk
    for text, whole in units:
        if head_len + tail_len > shared and head_len + tail_len + len(text) > size:
            yield TextChunk("".join(head) + "".join(tail), shared)
            head, head_len, shared = [], 0, tail_len
        # only repeated sentences left: give up the oldest
        while tail_len + len(text) > size - head_len:
            tail_len -= len(tail.popleft())
            shared = tail_len
        tail.append(text)
        tail_len += len(text)
        # a piece of a cut sentence is never repeated, nor anything before it
        limit = overlap if whole else -1
        while tail and tail_len > limit:
            first = tail.popleft()
            tail_len -= len(first)
            head_len += len(first)
            head.append(first)
            if len(head) > 32:  # a few strings, not one per sentence
                head = ["".join(head)]
    if head_len + tail_len > shared:
        yield TextChunk("".join(head) + "".join(tail), shared)


def iter_overlapped_chunks(
    blocks: Iterable[str], size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP
) -> Iterator[TextChunk]:
    """Like iter_text_chunks, with each chunk's count of characters repeated from the previous
    one."""
    _check(size, overlap)
    return _pack(_sentence_units(blocks, size), size, overlap)


def iter_text_chunks(
    blocks: Iterable[str], size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP
) -> Iterator[str]:
    """The same over a stream of text blocks, with memory bounded by a few times `size`."""
    return (chunk.text for chunk in iter_overlapped_chunks(blocks, size, overlap))


def chunk_text(text: str, size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP) -> list[str]:
    """Pieces of at most `size` chars cut at sentence boundaries.

    Each piece after the first starts with up to `overlap` chars of whole sentences from the end
    of the previous piece.
    """
    return list(iter_text_chunks([text], size, overlap))
