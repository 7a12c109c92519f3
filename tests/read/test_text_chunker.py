"""Tests for recursive_cleaner.read.text_chunker: sentence boundaries, long sentences, overlap,
streaming."""

from __future__ import annotations

import itertools
import os
import tracemalloc
import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from recursive_cleaner.read import parsers
from recursive_cleaner.read.text_chunker import (
    DEFAULT_OVERLAP,
    DEFAULT_SIZE,
    TextChunk,
    chunk_text,
    iter_overlapped_chunks,
    iter_text_chunks,
    split_sentences,
)

CASES = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "test_cases"
)
NOTES = os.path.join(CASES, "notes.txt")


def notes() -> str:
    with open(NOTES, encoding="utf-8", newline="") as f:
        return f.read()


def rebuild(chunks: list[TextChunk]) -> str:
    return "".join(c.new for c in chunks)


# ---------------------------------------------------------------------------- sentences
@pytest.mark.parametrize(
    "text,expected",
    [
        pytest.param(
            "Mr. Smith met Dr. Jones at St. Mary's. They talked, e.g. about the U.S. economy, i.e. "
            "money. "
            "Then they left etc. and came back. We bought eggs, milk, etc. Then we went home.",
            [
                "Mr. Smith met Dr. Jones at St. Mary's. ",
                "They talked, e.g. about the U.S. economy, i.e. money. ",
                "Then they left etc. and came back. ",
                "We bought eggs, milk, etc. ",
                "Then we went home.",
            ],
            id="abbreviations",
        ),
        pytest.param(
            "J. Smith and J.R.R. Tolkien wrote books. Prof. A. B. Cee agreed (see Fig. 3). dr. "
            "okafor came.",
            [
                "J. Smith and J.R.R. Tolkien wrote books. ",
                "Prof. A. B. Cee agreed (see Fig. 3). ",
                "dr. okafor came.",
            ],
            id="initials",
        ),
        pytest.param(
            "Pi is 3.14 and e is 2.718. Version 2.0.1 is out. It costs $12.50 now. We won 2. Then "
            "we lost.",
            [
                "Pi is 3.14 and e is 2.718. ",
                "Version 2.0.1 is out. ",
                "It costs $12.50 now. ",
                "We won 2. ",
                "Then we lost.",
            ],
            id="decimals",
        ),
        pytest.param(
            "See https://example.com/a.b/c?d=1.5&e=f.g#x!y for details. Write to "
            "john.doe@mail.example.co.uk. "
            "Or visit www.example.org.",
            [
                "See https://example.com/a.b/c?d=1.5&e=f.g#x!y for details. ",
                "Write to john.doe@mail.example.co.uk. ",
                "Or visit www.example.org.",
            ],
            id="urls-emails",
        ),
        pytest.param(
            'She said "Stop!" Then she left. "Really?" he asked. (It was late.) \u201cCurly.\u201d '
            "Next.",
            [
                'She said "Stop!" ',
                "Then she left. ",
                '"Really?" he asked. ',
                "(It was late.) ",
                "\u201cCurly.\u201d ",
                "Next.",
            ],
            id="quotes-brackets",
        ),
        pytest.param(
            "Wait... What? Well\u2026 maybe... I think so! Really?! Yes!!! ok.",
            [
                "Wait... ",
                "What? ",
                "Well\u2026 maybe... ",
                "I think so! ",
                "Really?! ",
                "Yes!!! ",
                "ok.",
            ],
            id="ellipsis-and-runs",
        ),
        pytest.param(
            "今天天气很好。我们去公园吧！你来吗？「好的。」他说。 English here. 次の文。",
            [
                "今天天气很好。",
                "我们去公园吧！",
                "你来吗？",
                "「好的。」",
                "他说。 ",
                "English here. ",
                "次の文。",
            ],
            id="cjk",
        ),
        pytest.param(
            "Heading without stop\n\nFirst para line one\nline two. Second sentence\n "
            "\nLast\r\n\r\nCRLF para",
            [
                "Heading without stop\n\n",
                "First para line one\nline two. ",
                "Second sentence\n \n",
                "Last\r\n\r\n",
                "CRLF para",
            ],
            id="paragraphs",
        ),
        pytest.param(
            "Items:\n- one\n- two\n  * three\n1. four\n2) five\n(a) six\nwrapped\nline",
            [
                "Items:\n",
                "- one\n",
                "- two\n  ",
                "* three\n",
                "1. four\n",
                "2) five\n",
                "(a) six\nwrapped\nline",
            ],
            id="lists",
        ),
        pytest.param(
            "  \n\nLeading whitespace. Trailing whitespace.  \n\n",
            ["  \n\nLeading whitespace. ", "Trailing whitespace.  \n\n"],
            id="leading-trailing-whitespace",
        ),
        pytest.param("No terminator at all", ["No terminator at all"], id="one"),
        pytest.param(" \n\t ", [" \n\t "], id="whitespace-only"),
        pytest.param("", [], id="empty"),
    ],
)
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected
    assert "".join(expected) == text


def test_split_sentences_on_messy_notes():
    text = notes()
    sentences = split_sentences(text)
    assert "".join(sentences) == text
    assert (
        "Notes from dr. Okafor (health-care pilot) :\n the pilot clinic records are a mess. "
        in sentences
    )
    # list
    assert (
        "- maria --> rewrite welcome email,, send draft to  Maria.Garcia@Example.COM\n   "
        in sentences
    )
    assert (
        'Revenue:  $12,340.50 in jan, 13.2k in feb,, and "about 15,000 USD" in march.  '
        in sentences
    )
    assert "misc.\n" in sentences and "- the wifi password changed. " in sentences
    assert not any(s.rstrip().endswith(("dr.", "g.,", "U.S.,", "$12,340.")) for s in sentences)


# ---------------------------------------------------------------------------- long sentences
@pytest.mark.parametrize(
    "text,size,expected",
    [
        ("aaa bbb ccc ddd", 8, ["aaa bbb ", "ccc ddd"]),  # last whitespace before the limit
        ("abcdefghij", 4, ["abcd", "efgh", "ij"]),  # no whitespace: hard at the limit
        ("e\u0301" * 4, 3, ["e\u0301"] * 4),  # a combining mark stays with its letter
        ("ab\r\ncd", 3, ["ab", "\r\n", "cd"]),  # a CRLF pair is never split
        # nor around a ZWJ
        ("x\U0001f468\u200d\U0001f469y", 3, ["x", "\U0001f468\u200d\U0001f469", "y"]),
        ("a\r\n\U0001f3fbb", 2, ["a", "\r\n", "\U0001f3fbb"]),  # a line break takes no marks
        # a cluster over the limit is cut
        ("e" + "\u0301" * 5, 3, ["e\u0301\u0301", "\u0301\u0301\u0301"]),
        (
            "Short. " + "word " * 6 + "end. Tail.",
            12,
            ["Short. ", "word word ", "word word ", "word word ", "end. Tail."],
        ),
    ],
)
def test_long_sentence_fallback(text, size, expected):
    assert chunk_text(text, size, 0) == expected


@given(
    word=st.text(
        st.characters(blacklist_categories=("Cs", "Mn", "Mc", "Me")), min_size=1, max_size=5
    ),
    n=st.integers(1, 60),
    size=st.integers(2, 30),
)
@example(word="\U0001f3fb", n=2, size=2)  # a skin-tone modifier right after CRLF (found by CI)
def test_pieces_never_start_with_a_mark_or_split_crlf(word, n, size):
    text = (word + "e\u0301\r\n") * n
    pieces = chunk_text(text, size, 0)
    assert "".join(pieces) == text and all(0 < len(p) <= size for p in pieces)
    for before, after in zip(pieces, pieces[1:]):
        assert not (before.endswith("\r") and after.startswith("\n"))
        assert unicodedata.category(after[0])[0] != "M"


# ---------------------------------------------------------------------------- overlap
def test_overlap_whole_sentences_within_the_limit():
    text = "One. Two two. Three three three. Four. Five five."
    assert chunk_text(text, 30, 10) == [
        "One. Two two. ",
        "Two two. Three three three. ",
        "Four. Five five.",
    ]
    chunks = list(iter_overlapped_chunks([text], 30, 10))
    assert [c.overlap for c in chunks] == [0, 9, 0]  # "Three three three. " alone is longer than 10
    assert rebuild(chunks) == text
    assert chunk_text(text, 30, 0) == ["One. Two two. ", "Three three three. Four. ", "Five five."]


def test_overlap_gives_way_to_the_next_sentence():
    # the next sentence only fits with less overlap: the oldest repeated sentence is dropped
    text = "Aa. Bb. " + "C" * 24 + ". Dd."
    chunks = list(iter_overlapped_chunks([text], 30, 8))
    assert chunks[1] == TextChunk("Bb. " + "C" * 24 + ". ", 4)
    assert rebuild(chunks) == text


def test_no_overlap_after_a_cut_sentence():
    text = "word " * 20 + "end. Next one."
    chunks = list(iter_overlapped_chunks([text], 20, 10))
    assert all(c.overlap == 0 for c in chunks)  # pieces of a cut sentence are not repeated
    assert rebuild(chunks) == text


@pytest.mark.parametrize(
    "size,overlap", [(10, 10), (10, 11), (10, -1), (0, 0), (-5, 0), (10, 2.5), (True, 0)]
)
def test_bad_size_or_overlap(size, overlap):
    with pytest.raises(ValueError):
        chunk_text("Some text. More.", size, overlap)
    with pytest.raises(ValueError):
        iter_text_chunks(iter(()), size, overlap)  # at call time, before any block is read


def test_defaults():
    text = " ".join(f"Sentence number {i} is here." for i in range(400))
    chunks = list(iter_overlapped_chunks([text]))
    assert DEFAULT_SIZE == 4000 and DEFAULT_OVERLAP == 200
    assert len(chunks) > 2 and all(len(c.text) <= 4000 for c in chunks)
    assert all(150 < c.overlap <= 200 for c in chunks[1:])
    assert chunk_text(text) == [c.text for c in chunks] == list(iter_text_chunks([text]))


# ---------------------------------------------------------------------------- properties
TOKENS = st.sampled_from(
    [
        "word",
        "Word",
        "the",
        "Mr.",
        "e.g.",
        "U.S.",
        "etc.",
        "3.14",
        "J.",
        "http://x.io/a.b?c=1",
        "a@b.co",
        ".",
        "!",
        "?",
        "?!",
        "...",
        "\u2026",
        "。",
        "！",
        '"',
        "\u201d",
        ")",
        "(",
        " ",
        " ",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\r\n",
        "\r",
        "\t",
        "- ",
        "1. ",
        "# ",
        "é",
        "e\u0301",
        "\u0301",
        "🙂",
        "\U0001f468\u200d\U0001f469",
        "中文",
        "Zoë",
        "\u2029",
        "\xa0",
        "\x0c",
    ]
) | st.text(st.characters(blacklist_categories=("Cs",)), max_size=3)
TEXT = st.lists(TOKENS, max_size=80).map("".join)
SIZES = st.integers(1, 60).flatmap(lambda size: st.tuples(st.just(size), st.integers(0, size - 1)))
PROPS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _boundaries(parts: list[str]) -> list[int]:
    return list(itertools.accumulate(len(p) for p in parts))


@PROPS
@given(text=TEXT)
def test_sentences_join_back(text):
    sentences = split_sentences(text)
    assert "".join(sentences) == text
    assert all(sentences)


@PROPS
@given(text=TEXT, sizes=SIZES)
def test_chunks_rebuild_the_text_and_respect_the_limits(text, sizes):
    size, overlap = sizes
    chunks = list(iter_overlapped_chunks([text], size, overlap))
    assert rebuild(chunks) == text
    assert [c.text for c in chunks] == chunk_text(text, size, overlap)
    assert all(0 < len(c.text) <= size and c.new for c in chunks)
    assert chunks[:1] == [] or chunks[0].overlap == 0
    for before, after in zip(chunks, chunks[1:]):
        assert after.overlap <= overlap
        assert after.overlap == 0 or before.text.endswith(after.text[: after.overlap])
    sentences = split_sentences(text)
    # no sentence is cut: chunks are made of whole sentences
    if sentences and max(map(len, sentences)) <= size:
        ends = set(_boundaries(sentences)) | {0}
        starts = _boundaries([c.new for c in chunks])
        assert set(starts) <= ends
        for start, chunk in zip([0] + starts, chunks):
            assert start - chunk.overlap in ends  # the overlap starts at a sentence boundary


@PROPS
@given(text=TEXT, sizes=SIZES, data=st.data())
def test_streaming_over_tiny_blocks_equals_the_whole_string(text, sizes, data):
    size, overlap = sizes
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=12)))
    blocks = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    assert list(iter_overlapped_chunks(iter(blocks), size, overlap)) == list(
        iter_overlapped_chunks([text], size, overlap)
    )
    # 1-char blocks
    assert list(iter_text_chunks(iter(text), size, overlap)) == chunk_text(text, size, overlap)


@pytest.mark.parametrize("size,overlap", [(1, 0), (9, 2), (40, 10), (300, 75), (4000, 200)])
def test_streaming_notes_one_char_at_a_time(size, overlap):
    text = notes()
    assert list(iter_text_chunks(iter(text), size, overlap)) == chunk_text(text, size, overlap)
    assert "".join(split_sentences(text)) == text


@pytest.mark.parametrize(
    "unit", ["word ", "x", " ", "\n", "A sentence. ", "中文。", "e\u0301", "Mr. "]
)
def test_streaming_memory_is_bounded(unit):
    block = unit * (1000 // len(unit))
    total = 0
    tracemalloc.start()
    try:
        for chunk in iter_text_chunks((block for _ in range(300)), 4000, 200):  # ~300 kB of text
            total += len(chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert total >= 300 * len(block)
    assert peak < 100_000, peak  # a few times size, not the stream


# ---------------------------------------------------------------------------- through parsers
def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def _files(tmp_path) -> list[str]:
    return [
        NOTES,
        _write(tmp_path, "a.md", "# Title\n\nSome text. More text! " * 30 + "\n- item\n- item\n"),
        _write(tmp_path, "cjk.txt", "今天天气很好。我们去公园吧！" * 40),
        _write(tmp_path, "lead.txt", "\n" * 70 + "Hello there. " * 5 + " " * 90 + "Bye."),
        _write(tmp_path, "blank.txt", " \n\t" * 50),
        _write(tmp_path, "solid.log", "x" * 333),
    ]


@pytest.mark.parametrize(
    "size,overlap",
    [(4000, None), (300, None), (300, 0), (300, 150), (25, None), (25, 5), (3, None)],
)
@pytest.mark.parametrize("block", [1, 7, 1 << 20])
def test_parsers_count_chunks_matches_iter_chunks(tmp_path, size, overlap, block):
    for path in _files(tmp_path):
        chunks = list(parsers.iter_chunks(path, size, "text", overlap=overlap, block_size=block))
        assert all(len(c) == 1 and c[0] and len(c[0]) <= 2 * size for c in chunks), path
        assert parsers.count_chunks(path, size, "text", overlap=overlap, block_size=block) == len(
            chunks
        ), path
        assert parsers.count_chunks(path, size, overlap=overlap) == len(chunks), path
        pieces = list(parsers._text_chunks(path, size, overlap, block))  # noqa: SLF001
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
        assert rebuild(pieces) == (text if text.strip() else "")
        assert [[p.text] for p in pieces] == chunks


def test_parsers_text_chunks_are_the_chunker_chunks(tmp_path):
    text = notes()
    # min(200, 300 // 4)
    assert list(parsers.iter_chunks(NOTES, 300)) == [[c] for c in chunk_text(text, 300, 75)]
    assert list(parsers.iter_chunks(NOTES, 1000, overlap=100)) == [
        [c] for c in chunk_text(text, 1000, 100)
    ]
    big = " ".join(f"Line {i} of the report is fine." for i in range(600))
    path = _write(tmp_path, "report.txt", big)
    # the cleaner's text default
    chunks = [c[0] for c in parsers.iter_chunks(path, 4000, block_size=1000)]
    assert chunks == chunk_text(big, 4000, 200) and len(chunks) > 4
    pieces = list(parsers._text_chunks(path, 4000, None, 1000))  # noqa: SLF001
    assert [p.text for p in pieces] == chunks and rebuild(pieces) == big
    for before, after in zip(pieces, pieces[1:]):
        assert 150 < after.overlap <= 200 and before.text.endswith(after.text[: after.overlap])
        assert after.text.startswith("Line ")  # whole sentences


def test_parsers_overlap_checks(tmp_path):
    path = _write(tmp_path, "a.txt", "One. Two.")
    for bad in (10, 11, -1, 1.5):
        with pytest.raises(ValueError, match="overlap"):
            parsers.iter_chunks(path, 10, overlap=bad)
        with pytest.raises(ValueError, match="overlap"):
            parsers.count_chunks(path, 10, overlap=bad)
    records = _write(tmp_path, "a.jsonl", '{"a": 1}\n{"a": 2}\n{"a": 3}\n')
    # ignored
    assert list(parsers.iter_chunks(records, 2, overlap=999)) == [[{"a": 1}, {"a": 2}], [{"a": 3}]]
    assert parsers.count_chunks(records, 2, overlap=999) == 2


def test_parsers_whitespace_only_additions_join_a_neighbour(tmp_path):
    text = "\n" * 30 + "Hello there. How are you? " + " " * 25 + "\n\n" + "Bye."
    path = _write(tmp_path, "a.txt", text)
    pieces = list(parsers._text_chunks(path, 20, 5, 3))  # noqa: SLF001
    assert all(p.new.strip() for p in pieces) and rebuild(pieces) == text
    # leading whitespace joins the first chunk
    assert pieces[0].text.startswith("\n" * 30 + "Hello")
    assert max(len(p.text) for p in pieces) <= 40
