"""--encoding (read/formats/encoding.py): every text format reads another encoding through one
transcoding opener, and a byte that does not decode is the same one-line error in every format."""

from __future__ import annotations

import codecs

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.errors import InputEncodingError
from recursive_cleaner.read import formats
from recursive_cleaner.read.formats.encoding import check_encoding, encoding_hint
from recursive_cleaner.read.parsers import count_chunks, count_records, iter_chunks
from tests.encoded_files import FORMATS, bad_byte_file, text_of, write
from tests.fakes import CLEAN_REPLY, FakeBackend

SIZE = 3  # records per chunk (characters for text: a small size cuts the text in many chunks)


def read(path, encoding: str = "utf-8") -> tuple[list, int, int]:
    """(the chunks, count_records, count_chunks) of ``path`` read in ``encoding``."""
    size = 40 if path.name.endswith(".txt") else SIZE
    return (
        list(iter_chunks(str(path), size, encoding=encoding)),
        count_records(str(path), encoding=encoding),
        count_chunks(str(path), size, encoding=encoding),
    )


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "utf-16", "utf-16-le", "UTF8"])
def test_a_file_in_another_encoding_reads_as_its_utf8_twin(tmp_path, fmt, encoding):
    expected = read(write(tmp_path, fmt))
    assert "Renée" in repr(expected[0]) and expected[1] > 0
    assert read(write(tmp_path, fmt, encoding), encoding) == expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_utf8_bom_is_accepted_in_every_format(tmp_path, fmt):
    bom = write(tmp_path, fmt, "bom", codecs.BOM_UTF8 + text_of(fmt).encode())
    assert read(bom) == read(write(tmp_path, fmt)) == read(bom, "utf-8-sig")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("encoding", "bad"), [("utf-8", b"\xe9"), ("cp1252", b"\x81")])
def test_a_byte_that_does_not_decode_is_one_error_in_every_format(tmp_path, fmt, encoding, bad):
    path, line, offset = bad_byte_file(tmp_path, fmt, encoding, bad)
    with pytest.raises(InputEncodingError) as info:
        read(path, encoding)
    err = info.value
    assert (err.path, err.line, err.byte_offset) == (str(path), line, offset)
    name = "UTF-8" if encoding == "utf-8" else encoding
    start = (
        f"{path}: line {line}: byte 0x{bad[0]:02x} at byte offset {offset} is not valid {name}; "
    )
    assert str(err).startswith(start) and "\n" not in str(err)
    hint = "--encoding latin-1" if encoding == "utf-8" else "name its encoding with --encoding"
    assert hint in str(err) and "iconv" in str(err)


def test_the_hint_names_the_encoding_the_bytes_look_like(tmp_path):
    curly = write(tmp_path, "csv", "q", "id,note\n1,it\u2019s \u201cfine\u201d\n".encode("cp1252"))
    with pytest.raises(InputEncodingError, match=r"line 2: .*--encoding cp1252 \(Python: enc"):
        read(curly)
    assert read(curly, "cp1252")[0] == [[{"id": "1", "note": "it\u2019s \u201cfine\u201d"}]]
    utf16 = write(tmp_path, "jsonl", "utf-16")
    with pytest.raises(InputEncodingError, match=r"line 1: byte 0xff at byte offset 0 .*utf-16"):
        read(utf16)
    assert "iconv -f ISO-8859-1 -t UTF-8" in encoding_hint(b"caf\xe9")


def test_a_utf16_error_names_the_line_of_the_bad_code_unit(tmp_path):
    data = text_of("csv").encode("utf-16-le")
    cut = data.index("Renée 5".encode("utf-16-le"))
    path = write(tmp_path, "csv", "lone", data[:cut] + b"\x00\xdc" + data[cut:])  # a lone surrogate
    with pytest.raises(InputEncodingError, match="is not valid utf-16-le") as info:
        read(path, "utf-16-le")
    assert (info.value.line, info.value.byte_offset) == (7, cut)


def test_an_unknown_or_binary_codec_is_a_one_line_value_error(tmp_path):
    path = write(tmp_path, "jsonl")
    for name in ("nope", "base64", "", None):
        with pytest.raises(ValueError, match="encoding"):
            read(path, name)
    assert check_encoding("Latin1") == "Latin1"


def test_parquet_and_excel_take_no_encoding_but_the_default(tmp_path):
    for name in ("parquet", "excel"):
        kind = formats.get(name)
        assert kind.encoded("utf-8") is kind and kind.encoded("UTF-8") is kind
        with pytest.raises(ValueError, match=f"does not apply to {name} files"):
            kind.encoded("latin-1")
    with pytest.raises(ValueError, match="does not apply to parquet files"):
        DataCleaner(FakeBackend(), str(tmp_path / "t.parquet"), encoding="cp1252")
    with pytest.raises(ValueError, match="does not apply to .*visit.html"):
        DataCleaner(FakeBackend(), str(tmp_path / "visit.html"), encoding="cp1252")
    with pytest.raises(ValueError, match="not a text encoding Python knows"):
        DataCleaner(FakeBackend(), str(tmp_path / "t.csv"), encoding="klingon")


def test_data_the_library_writes_itself_is_read_as_utf8(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [{"name": "Renée"}, {"name": "Zoë"}]
    cleaner = DataCleaner(
        FakeBackend(default=CLEAN_REPLY), rows, encoding="utf-16", report_path=None
    )
    assert cleaner.settings.encoding == "utf-8"
    assert cleaner.run().chunks_processed == 1


@pytest.mark.parametrize(("fmt", "encoding"), [("jsonl", "utf-16"), ("csv", "cp1252")])
def test_a_transcoded_file_is_one_dask_part_read_as_utf8(tmp_path, fmt, encoding):
    kind = formats.detect(str(write(tmp_path, fmt))).encoded(encoding)
    path = str(write(tmp_path, fmt, encoding))
    assert len(kind.plan(str(write(tmp_path, fmt)), 2, 1)) == 1  # what it plans: one part
    (part,) = kind.plan(path, 2, 1)
    assert (part.start, part.end, part.encoding) == (0, -1, encoding)
    again = formats.get(part.fmt).encoded(part.encoding)  # as a Dask worker rebuilds it
    batches = list(again.part_batches(part, 2, None))
    if fmt == "jsonl":  # raw lines for the workers, in UTF-8
        assert b"".join(b.data for b in batches) == text_of(fmt).encode()
    else:
        expected = [r for chunk in read(write(tmp_path, fmt))[0] for r in chunk]
        assert [r for batch in batches for r in batch] == expected
    utf8 = formats.detect(path).plan(str(write(tmp_path, fmt)), 2, 1)
    assert len(utf8) > 1 and {p.encoding for p in utf8} == {"utf-8"}
