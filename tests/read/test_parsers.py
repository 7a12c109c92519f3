"""Tests for recursive_cleaner.read.parsers: nasty files, exact line numbers and offsets,
properties."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recursive_cleaner.errors import InputEncodingError, InputError
from recursive_cleaner.read.parsers import (
    FORMATS,
    SkippedRecord,
    count_chunks,
    count_records,
    detect_format,
    iter_chunks,
    iter_records,
)

CASES = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "test_cases"
)


def write(tmp_path, name: str, data: bytes | str) -> str:
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return str(path)


def read_all(path: str, fmt: str | None = None, **kw) -> tuple[list, list[SkippedRecord]]:
    skipped: list[SkippedRecord] = []
    return list(iter_records(path, fmt, on_skip=skipped.append, **kw)), skipped


# ---------------------------------------------------------------------------- general
@pytest.mark.parametrize(
    "name,fmt",
    [
        ("a.jsonl", "jsonl"),
        ("a.NDJSON", "jsonl"),
        ("a.csv", "csv"),
        ("a.TSV", "csv"),
        ("a.json", "json"),
        ("a.txt", "text"),
        ("a.md", "text"),
        ("noext", "text"),
        ("dir.v2/a.log", "text"),
        ("a.json.gz", "text"),
    ],
)
def test_detect_format(name, fmt):
    assert detect_format(name) == fmt


def test_formats_constant():
    assert FORMATS == ("jsonl", "csv", "json", "text", "parquet", "excel")


def test_unknown_format_and_bad_chunk_size(tmp_path):
    path = write(tmp_path, "a.jsonl", '{"a": 1}\n')
    with pytest.raises(ValueError, match="unknown format"):
        iter_records(path, "xml")
    with pytest.raises(ValueError):
        iter_chunks(path, 0)
    with pytest.raises(ValueError):
        count_records(path, "yaml")
    with pytest.raises(ValueError, match="text"):
        iter_records(path, "text")


@pytest.mark.parametrize("name", ["missing.jsonl", "missing.csv", "missing.json", "missing.txt"])
def test_missing_file_raises_at_call_time(tmp_path, name):
    path = str(tmp_path / name)
    with pytest.raises(FileNotFoundError, match="missing"):
        iter_chunks(path, 10)
    with pytest.raises(FileNotFoundError):
        count_records(path)


@pytest.mark.parametrize("name", ["e.jsonl", "e.csv", "e.tsv", "e.json", "e.txt"])
def test_empty_file(tmp_path, name):
    path = write(tmp_path, name, b"")
    assert list(iter_chunks(path, 5)) == []
    assert count_records(path) == 0


@pytest.mark.parametrize(
    "name,data",
    [
        ("b.jsonl", b"\xef\xbb\xbf"),
        ("b.json", b"\xef\xbb\xbf \n"),
        ("b.csv", b"\xef\xbb\xbf"),
        ("b.txt", b"\xef\xbb\xbf\n\n  "),
    ],
)
def test_bom_or_whitespace_only_file_has_no_chunks(tmp_path, name, data):
    assert list(iter_chunks(write(tmp_path, name, data), 5)) == []


# ---------------------------------------------------------------------------- JSONL
def test_jsonl_bom_crlf_blank_lines(tmp_path):
    path = write(
        tmp_path,
        "a.jsonl",
        b'\xef\xbb\xbf{"a": 1}\r\n\r\n   \n{"a": 2}  \r\n  {"a": 3}\n\t\n{"a": 4}',
    )
    records, skipped = read_all(path)
    assert records == [{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}]
    assert skipped == []
    assert count_records(path) == 4 == count_records(path, exact=True)


def test_jsonl_broken_lines_reported_with_line_numbers():
    path = os.path.join(CASES, "broken_lines.jsonl")
    records, skipped = read_all(path)
    assert [r["id"] for r in records] == list(range(1, 21))
    assert [s.line for s in skipped] == [5, 13, 19]
    assert all(s.path == path and s.reason.startswith("invalid JSON: ") for s in skipped)
    assert skipped[0].reason == "invalid JSON: Expecting ',' delimiter (column 66)"
    assert "column 2" in skipped[1].reason and "column 41" in skipped[2].reason


def test_jsonl_non_object_lines_and_silent_skips(tmp_path):
    path = write(tmp_path, "a.jsonl", '{"a": 1}\n[1, 2]\n"text"\n42\nnull\ntrue\n{"a": 2}\n')
    records, skipped = read_all(path)
    assert records == [{"a": 1}, {"a": 2}]
    assert [(s.line, s.reason) for s in skipped] == [
        (2, "valid JSON but not an object (got array)"),
        (3, "valid JSON but not an object (got string)"),
        (4, "valid JSON but not an object (got number)"),
        (5, "valid JSON but not an object (got null)"),
        (6, "valid JSON but not an object (got boolean)"),
    ]
    assert list(iter_records(path)) == records  # on_skip=None: silent, same records


def test_jsonl_invalid_utf8_stops_the_reading_naming_line_offset_and_byte(tmp_path):
    data = b'\xef\xbb\xbf{"a": 1}\r\n{"b": "ok"}\n{"c": "\xc3\x28"}\n{"a": "caf\xe9"}\n'
    path = write(tmp_path, "a.jsonl", data)
    with pytest.raises(InputEncodingError) as info:
        read_all(path)
    assert (info.value.line, info.value.byte_offset) == (3, data.index(b"\xc3\x28"))
    assert "byte 0xc3" in str(info.value) and "--encoding latin-1" in str(info.value)


def test_jsonl_odd_but_handled_lines(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    path = write(
        tmp_path,
        "a.jsonl",
        '{"a": 1} x\n{"n": '
        + "9" * 5000
        + "}\n"
        + deep
        + "\n\ufeff{}\n"
        + '{"s": "\\ud800"}\n{"x": NaN}\n{}',
    )
    records, skipped = read_all(path)
    assert [s.line for s in skipped] == [1, 2, 3, 4]
    assert "Extra data" in skipped[0].reason
    assert records[0] == {"s": "\ud800"} and math.isnan(records[1]["x"]) and records[2] == {}


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_jsonl_chunk_sizes(tmp_path, size):
    recs = [{"i": i, "s": "x" * i} for i in range(20)]
    path = write(tmp_path, "a.jsonl", "".join(json.dumps(r) + "\n" for r in recs))
    chunks = list(iter_chunks(path, size))
    assert len(chunks) == math.ceil(20 / size)
    assert all(0 < len(c) <= size for c in chunks)
    assert [r for c in chunks for r in c] == recs


def test_jsonl_skips_are_reported_while_building_their_chunk(tmp_path):
    path = write(tmp_path, "a.jsonl", '{"i": 0}\n{"i": 1}\nbad\n{"i": 2}\n')
    events: list = []
    for chunk in iter_chunks(path, 2, on_skip=lambda s: events.append(("skip", s.line))):
        events.append(("chunk", [r["i"] for r in chunk]))
    assert events == [("chunk", [0, 1]), ("skip", 3), ("chunk", [2])]


def test_count_records_jsonl_fast_scan(tmp_path):
    body = '{"a": 1}\n\n  {"a": 2}\r\n[1]\n"x"\n{"broken": \n\t{"a": 3}'
    path = write(tmp_path, "a.jsonl", "\ufeff" + body)
    assert count_records(path) == 4  # lines starting with "{" (the broken one included)
    assert count_records(path, exact=True) == 3
    for block in (1, 2, 3, 5):  # line starts that straddle block boundaries
        assert count_records(path, block_size=block) == 4
    path = write(tmp_path, "b.jsonl", "\n" + " " * 10 + "{}\n" + " " * 7 + "\n{}")
    assert [count_records(path, block_size=b) for b in (1, 3, 4, 1 << 20)] == [2, 2, 2, 2]


# ---------------------------------------------------------------------------- CSV
def test_csv_bom_crlf_quoted_newline_and_bad_rows(tmp_path):
    data = (
        '\ufeffid,name,note\r\n1,Ann,"multi\r\nline, with comma"\r\n\r\n2,Bob\r\n3,"Cy ""Q""",x\r\n'
        '4,Di,"a\nb\nc"\r\n5,Ed,x,extra\r\n6,Fay,\r\n'
    )
    path = write(tmp_path, "a.csv", data)
    records, skipped = read_all(path)
    assert records == [
        {"id": "1", "name": "Ann", "note": "multi\r\nline, with comma"},
        {"id": "3", "name": 'Cy "Q"', "note": "x"},
        {"id": "4", "name": "Di", "note": "a\nb\nc"},
        {"id": "6", "name": "Fay", "note": ""},
    ]
    assert [(s.line, s.reason) for s in skipped] == [
        (5, "expected 3 fields (from the header), got 2"),
        (10, "expected 3 fields (from the header), got 4"),
    ]
    assert count_records(path) == 4


def test_csv_duplicate_and_empty_headers(tmp_path):
    path = write(tmp_path, "a.csv", "col,col,,col, ,col_2\n1,2,3,4,5,6\n")
    (record,), _ = read_all(path)
    assert list(record) == ["col", "col_3", "column_3", "col_4", "column_5", "col_2"]
    assert list(record.values()) == ["1", "2", "3", "4", "5", "6"]
    path = write(tmp_path, "b.csv", "a,a,a\nx,y,z\n")
    assert list(next(iter_records(path))) == ["a", "a_2", "a_3"]


def test_tsv_uses_tab(tmp_path):
    path = write(tmp_path, "a.tsv", "name\tcity, state\r\nAnn\tBoston, MA\r\n")
    assert list(iter_records(path)) == [{"name": "Ann", "city, state": "Boston, MA"}]


def test_csv_values_stay_strings_and_header_only(tmp_path):
    path = write(tmp_path, "a.csv", "n,f,b\n1,2.5,true\n")
    assert list(iter_records(path)) == [{"n": "1", "f": "2.5", "b": "true"}]
    assert list(iter_chunks(write(tmp_path, "h.csv", "a,b\r\n"), 3)) == []


def test_csv_invalid_utf8_raises_with_line_and_offset(tmp_path):
    data = 'id,name\n1,"two\nlines"\n2,Zoë\n'.encode() + b"3,Ren\xe9e\n"
    path = write(tmp_path, "a.csv", b"\xef\xbb\xbf" + data)
    with pytest.raises(InputEncodingError) as info:
        list(iter_records(path))
    err = info.value
    assert err.line == 5 and err.byte_offset == 3 + data.index(b"\xe9") and err.path == path
    assert "0xe9" in str(err) and "cp1252" in str(err) and "UTF-8" in str(err)
    assert isinstance(err, InputError)


def test_csv_invalid_utf8_in_header_and_quoted_field(tmp_path):
    path = write(tmp_path, "a.csv", b"\xff\xfei\x00d\x00\n")
    with pytest.raises(InputEncodingError, match="UTF-16") as info:
        list(iter_records(path))
    assert info.value.byte_offset == 0 and info.value.line == 1
    data = b'a,b\n1,"x\ny\x92z"\n'
    with pytest.raises(InputEncodingError) as info:
        list(iter_records(write(tmp_path, "b.csv", data)))
    assert (info.value.line, info.value.byte_offset) == (3, data.index(b"\x92"))


def test_csv_ecommerce_case():
    records, skipped = read_all(os.path.join(CASES, "ecommerce_products.csv"))
    assert len(records) == 197
    assert [s.line for s in skipped] == [80, 123, 154]
    assert "Great for travel,\nfits in any bag" in {r["description"] for r in records}
    assert all(isinstance(v, str) for r in records for v in r.values())


# ---------------------------------------------------------------------------- JSON
HEALTH = os.path.join(CASES, "healthcare_patients.json")


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 20])
def test_json_array_streams_across_block_boundaries(block):
    with open(HEALTH, encoding="utf-8") as f:
        expected = json.load(f)
    records, skipped = read_all(HEALTH, block_size=block)
    assert records == expected and skipped == []
    assert len(records) == 150


@pytest.mark.parametrize("block", [1, 4, 1 << 20])
def test_json_numbers_and_strings_split_by_blocks(tmp_path, block):
    path = write(
        tmp_path,
        "a.json",
        '[{"n": 123456789, "s": "\\u00e9t\\u00e9 ' + "é" * 20 + '"}, 98765,\n'
        '-1.5e+10 , {"x": [1.25, true, null]}]',
    )
    records, skipped = read_all(path, block_size=block)
    assert records == [{"n": 123456789, "s": "été " + "é" * 20}, {"x": [1.25, True, None]}]
    assert [(s.line, s.reason) for s in skipped] == [
        (1, "array element is not an object (got number)"),
        (2, "array element is not an object (got number)"),
    ]


@pytest.mark.parametrize("block", [1, 5, 1 << 20])
def test_json_wrapper_object(tmp_path, block):
    text = (
        '{"meta": {"n": 2}, "tags": ["x", "y"], "empty": [],\n "data": [{"a": 1}, "junk", {"a": '
        "2}],"
        ' "errors": [], "total": 2}'
    )
    records, skipped = read_all(write(tmp_path, "w.json", text), block_size=block)
    assert records == [{"a": 1}, {"a": 2}]
    assert [s.line for s in skipped] == [2]
    assert read_all(write(tmp_path, "e.json", '{"data": []}'))[0] == []


def test_json_wrapper_errors(tmp_path):
    with pytest.raises(InputError, match="more than one list of objects"):
        list(iter_records(write(tmp_path, "a.json", '{"a": [{"x": 1}], "b": [{"y": 2}]}')))
    with pytest.raises(InputError, match="no list of records"):
        list(iter_records(write(tmp_path, "b.json", '{"name": "Ann", "age": 3}')))
    with pytest.raises(InputError, match="JSON Lines"):
        list(iter_records(write(tmp_path, "c.json", '{"data": [{"a": 1}]}\n{"data": []}\n')))


@pytest.mark.parametrize("block", [1, 3, 1 << 20])
def test_json_syntax_error_names_line_and_column(tmp_path, block):
    text = '[\n  {"a": 1},\n  {"a": 2,\n   "b": tru},\n  {"a": 3}\n]'
    path = write(tmp_path, "a.json", text)
    got = []
    with pytest.raises(InputError) as info:
        for rec in iter_records(path, block_size=block):
            got.append(rec)
    assert got == [{"a": 1}]
    assert (
        info.value.line == 4
        and "line 4 column 9" in str(info.value)
        and "Expecting value" in str(info.value)
    )
    assert info.value.path == path


@pytest.mark.parametrize(
    "text,message",
    [
        ('"just a string"', "expected a JSON array"),
        ("[{}, {}", "unexpected end of file"),
        ('[{"a": 1} {"a": 2}]', "expected ','"),
        ('[{"a": 1},]', "Expecting value"),
        ('[{"a": "unterminated}]', "Unterminated string"),
        ("[] []", "extra data"),
        ("[" * 50_000, "nested too deeply"),
    ],
)
def test_json_malformed_documents(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        list(iter_records(write(tmp_path, "a.json", text), block_size=16))


def test_json_long_line_column_and_bad_utf8(tmp_path):
    text = "[" + ", ".join(['{"k": "' + "v" * 50 + '"}'] * 40) + ", {oops}]"
    with pytest.raises(InputError) as info:
        list(iter_records(write(tmp_path, "a.json", text), block_size=8))
    assert f"line 1 column {text.index('oops') + 1}" in str(info.value)
    data = b'[{"a": "ok"},\n {"b": "\xe9"}]'
    with pytest.raises(InputEncodingError) as info:
        list(iter_records(write(tmp_path, "b.json", b"\xef\xbb\xbf" + data), block_size=4))
    assert (info.value.line, info.value.byte_offset) == (2, 3 + data.index(b"\xe9"))


def test_json_count_and_chunks():
    assert count_records(HEALTH) == 150
    chunks = list(iter_chunks(HEALTH, 40, block_size=100))
    assert [len(c) for c in chunks] == [40, 40, 40, 30]


# ---------------------------------------------------------------------------- text
NOTES = os.path.join(CASES, "notes.txt")


@pytest.mark.parametrize("size,block", [(1, 1), (7, 3), (50, 16), (200, 1 << 20), (100_000, 64)])
def test_text_chunks_rebuild_the_text(size, block):
    with open(NOTES, encoding="utf-8", newline="") as f:
        text = f.read()
    # no overlap: the chunks join up
    chunks = list(iter_chunks(NOTES, size, block_size=block, overlap=0))
    assert all(len(c) == 1 and isinstance(c[0], str) and c[0] for c in chunks)
    assert "".join(c[0] for c in chunks) == text
    assert all(len(c[0]) <= 2 * size for c in chunks)
    assert count_records(NOTES) == len(text)
    # default overlap: min(200, size // 4)
    overlapped = list(iter_chunks(NOTES, size, block_size=block))
    assert all(len(c) == 1 and c[0] and len(c[0]) <= 2 * size for c in overlapped)
    assert count_chunks(NOTES, size, block_size=block) == len(overlapped)


def test_text_breaks_at_newline_then_space(tmp_path):
    path = write(tmp_path, "a.txt", "alpha beta gamma\ndelta epsilon zeta eta theta\r\niota kappa")
    pieces = [c[0] for c in iter_chunks(path, 20)]
    assert pieces[0] == "alpha beta gamma\n"
    assert pieces[1] == "delta epsilon zeta "
    assert "".join(pieces).endswith("theta\r\niota kappa")
    assert not any(p.startswith("\n") for p in pieces)  # CRLF never split


def test_text_bom_multibyte_and_no_whitespace(tmp_path):
    text = "é" * 30 + "🙂" * 30 + "e\u0301" * 10
    path = write(tmp_path, "a.txt", b"\xef\xbb\xbf" + text.encode())
    pieces = [c[0] for c in iter_chunks(path, 9, block_size=5)]
    assert "".join(pieces) == text and max(map(len, pieces)) <= 9
    assert not any(p.startswith("\u0301") for p in pieces)  # combining mark stays with its letter
    assert count_records(path) == len(text)


def test_text_whitespace_tail_joins_last_chunk(tmp_path):
    path = write(tmp_path, "a.txt", "word " * 8 + "\n\n\n")
    pieces = [c[0] for c in iter_chunks(path, 10)]
    assert all(p.strip() for p in pieces) and "".join(pieces) == "word " * 8 + "\n\n\n"


def test_text_invalid_utf8(tmp_path):
    data = "line one\nline twø\n".encode() + b"bad \x80 here\n"
    path = write(tmp_path, "a.txt", data)
    with pytest.raises(InputEncodingError) as info:
        list(iter_chunks(path, 4, block_size=3))
    assert (info.value.line, info.value.byte_offset) == (3, data.index(b"\x80"))
    with pytest.raises(InputEncodingError) as info:
        count_records(write(tmp_path, "b.txt", b"ok\n\xc3"))  # truncated sequence at EOF
    assert info.value.byte_offset == 3


# ---------------------------------------------------------------------------- count_chunks
def _chunk_cases(tmp_path) -> list[str]:
    return [
        # 3 records
        write(tmp_path, "a.jsonl", '{"a": 1}\n{"a": 2\n[3]\n\n{"a": 4}\n{"a": 5} x\n{"a": 6}\n'),
        write(tmp_path, "a.csv", "h1,h2\n1,2\n3\n4,5\n\n6,7\n8,9\n"),  # 4 records
        write(tmp_path, "a.tsv", "h1\th2\n1\t2\n3\t4\n"),
        write(tmp_path, "a.json", '[{"a": 1}, 2, {"a": 3}, {"a": 4}, {"a": 5}]'),
        write(tmp_path, "w.json", '{"n": 2, "data": [{"a": 1}, {"a": 2}]}'),
        write(
            tmp_path,
            "a.txt",
            "alpha beta gamma\ndelta epsilon zeta eta theta\r\niota kappa lambda mu nu xi\n\n\n",
        ),
        write(tmp_path, "b.txt", "é" * 30 + "🙂" * 30 + "e\u0301" * 10),
        write(tmp_path, "c.txt", "  \n\t  word " * 40),
    ]


@pytest.mark.parametrize("size", [1, 2, 3, 4, 7, 20, 1000])
@pytest.mark.parametrize("block", [1, 5, 1 << 20])
def test_count_chunks_matches_iter_chunks(tmp_path, size, block):
    for path in _chunk_cases(tmp_path):
        expected = len(list(iter_chunks(path, size, block_size=block)))
        assert count_chunks(path, size, block_size=block) == expected, (path, size, block)
        assert count_chunks(path, size) == expected, (path, size)
    assert count_chunks(HEALTH, 40) == 4 == len(list(iter_chunks(HEALTH, 40)))


def test_count_chunks_text_breaks_early(tmp_path):
    text = "abcdefghijklmn " * 9 + "alpha beta gamma\ndelta epsilon zeta eta theta\r\niota kappa"
    path = write(tmp_path, "a.txt", text)
    chunks = list(iter_chunks(path, 20))
    assert all(len(c[0]) < 20 for c in chunks)  # every chunk ends early at a space or line break
    assert len(chunks) == 13 > math.ceil(len(text) / 20) == 10  # so characters / size undercounts
    assert count_chunks(path, 20) == len(chunks)
    assert count_chunks(path, 20, "text") == len(chunks)
    assert count_chunks(NOTES, 50) == len(list(iter_chunks(NOTES, 50)))


def test_count_chunks_jsonl_is_exact_where_the_fast_count_is_not(tmp_path):
    path = write(tmp_path, "a.jsonl", '{"a": 1}\n{"a": 2\n{"a": 3}\n')
    assert count_records(path) == 3  # the fast scan counts the broken line
    assert count_chunks(path, 1) == 2 == len(list(iter_chunks(path, 1)))
    assert count_chunks(path, 2) == 1 == len(list(iter_chunks(path, 2)))


def test_count_chunks_empty_forced_format_and_errors(tmp_path):
    for name, data in (("e.jsonl", ""), ("e.csv", "a,b\n"), ("e.json", "[]"), ("e.txt", " \n\t\n")):
        assert count_chunks(write(tmp_path, name, data), 3) == 0
    path = write(tmp_path, "records.log", '{"a": 1}\n{"a": 2}\n{"a": 3}\n')
    assert count_chunks(path, 2, "jsonl") == 2 == len(list(iter_chunks(path, 2, "jsonl")))
    assert count_chunks(path, 2) == len(list(iter_chunks(path, 2)))  # read as text
    for bad in (0, -1, 2.5, None):
        with pytest.raises(ValueError, match="chunk_size"):
            count_chunks(path, bad)
    with pytest.raises(ValueError, match="unknown format"):
        count_chunks(path, 2, "xml")
    with pytest.raises(FileNotFoundError):
        count_chunks(str(tmp_path / "missing.jsonl"), 2)
    with pytest.raises(InputEncodingError):
        count_chunks(write(tmp_path, "bad.txt", b"ok \x80\n"), 2)


# ---------------------------------------------------------------------------- properties
def _tmp_file(suffix: str, data: bytes) -> str:
    fd, path = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSONISH = st.one_of(
    st.binary(max_size=300),
    st.lists(
        st.sampled_from(
            [
                b"{",
                b"}",
                b"[",
                b"]",
                b'"',
                b",",
                b":",
                b"1",
                b"\n",
                b"\r",
                b" ",
                b"\\",
                b"a",
                b"\xef\xbb\xbf",
                b"\xc3",
                b"\xa9",
                b"\x00",
                b"true",
                b'"k"',
                b"\xff",
            ]
        ),
        max_size=80,
    ).map(b"".join),
)


@FUZZ
@given(
    data=JSONISH,
    suffix=st.sampled_from([".jsonl", ".csv", ".tsv", ".json", ".txt"]),
    size=st.integers(1, 5),
    block=st.integers(1, 9),
)
def test_arbitrary_bytes_raise_only_input_errors(data, suffix, size, block):
    path = _tmp_file(suffix, data)
    try:
        chunks = 0
        for chunk in iter_chunks(path, size, on_skip=lambda s: None, block_size=block):
            assert chunk and len(chunk) <= (2 * size if suffix == ".txt" else size)
            chunks += 1
        assert count_chunks(path, size, block_size=block) == chunks
        count_records(path, block_size=block)
    except InputError:
        pass
    finally:
        os.unlink(path)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
RECORDS = st.lists(st.dictionaries(st.text(max_size=8), VALUES, max_size=5), max_size=25)


@FUZZ
@given(
    records=RECORDS,
    size=st.integers(1, 30),
    block=st.integers(1, 64),
    pretty=st.booleans(),
    wrap=st.booleans(),
)
def test_round_trip_json_and_jsonl(records, size, block, pretty, wrap):
    jsonl = "".join(
        json.dumps(r, ensure_ascii=pretty) + ("\r\n" if pretty else "\n") for r in records
    )
    doc = {"items": records, "n": len(records)} if wrap else records
    json_text = json.dumps(doc, indent=2 if pretty else None, ensure_ascii=False)
    for suffix, text in ((".jsonl", jsonl), (".json", json_text)):
        path = _tmp_file(suffix, text.encode("utf-8", "surrogatepass"))
        try:
            chunks = list(iter_chunks(path, size, block_size=block))
            assert len(chunks) == math.ceil(len(records) / size)
            assert all(0 < len(c) <= size for c in chunks)
            assert [r for c in chunks for r in c] == records
            assert count_records(path) == len(records)
            assert count_chunks(path, size, block_size=block) == len(chunks)
        finally:
            os.unlink(path)


CSV_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=10
)


@FUZZ
@given(
    ncols=st.integers(1, 4),
    rows=st.lists(st.lists(CSV_TEXT, min_size=4, max_size=4), max_size=15),
    tab=st.booleans(),
)
def test_round_trip_csv(ncols, rows, tab):
    header = [f"h{i}" for i in range(ncols)]
    # a lone empty field is a blank line
    rows = [r[:ncols] for r in rows if ncols > 1 or r[0] != ""]
    out = io.StringIO(newline="")
    csv.writer(out, delimiter="\t" if tab else ",", lineterminator="\r\n").writerows(
        [header] + rows
    )
    path = _tmp_file(".tsv" if tab else ".csv", out.getvalue().encode())
    try:
        assert list(iter_records(path)) == [dict(zip(header, r)) for r in rows]
    finally:
        os.unlink(path)


@FUZZ
@given(
    text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=300),
    size=st.integers(1, 40),
    block=st.integers(1, 50),
)
def test_round_trip_text(text, size, block):
    path = _tmp_file(".txt", text.encode())
    try:
        pieces = [c[0] for c in iter_chunks(path, size, block_size=block, overlap=0)]
        assert "".join(pieces) == (text if text.strip() else "")
        assert all(p and len(p) <= 2 * size for p in pieces)
        assert count_chunks(path, size, block_size=block, overlap=0) == len(pieces)
        assert count_chunks(path, size, overlap=0) == len(pieces)
        overlapped = [c[0] for c in iter_chunks(path, size, block_size=block)]
        assert all(p and len(p) <= 2 * size for p in overlapped)
        assert (
            count_chunks(path, size, block_size=block)
            == len(overlapped)
            == count_chunks(path, size)
        )
    finally:
        os.unlink(path)
