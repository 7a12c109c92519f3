"""Issue 43's third red-team pass, the readers: what a small file may become, the chunker's time,
binary files, and the data fingerprint.

One test (at least) per attack, asserting what happens now. The bounds are ``read.rows``'s named
constants; a test lowers one (``monkeypatch``) where the real size would cost the suite seconds,
the same rule at a size a test can afford. Work is counted, never timed.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner, clean
from recursive_cleaner.errors import InputEncodingError, InputError, StateFileError
from recursive_cleaner.read import rows, tables, text_chunker
from recursive_cleaner.read.formats import gzipped
from recursive_cleaner.read.parquet_plan import ParquetPlan
from recursive_cleaner.read.parsers import iter_chunks, iter_records
from recursive_cleaner.write.state import load_state, save_state
from tests.cli_helpers import invoke, one_error_line
from tests.fakes import CLEAN_REPLY, FakeBackend
from tests.optional_deps import optional


def read_all(path) -> list[dict]:
    return [r for chunk in iter_chunks(str(path), 2000) for r in chunk]


# ---------------------------------------------------------------------------- xlsx: A and XFD
def _sheet(path: Path, rows_: int, columns: tuple[int, ...]) -> Path:
    openpyxl = optional("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for r in range(1, rows_ + 1):
        for c in columns:
            sheet.cell(r, c, f"v{r}-{c}")
    book.save(path)
    return path


def test_a_workbook_with_cells_in_columns_a_and_xfd_is_refused_naming_the_bound(
    tmp_path, monkeypatch
):
    """Before: a 26 KB workbook read as 2,000 records of 16,384 keys (851 MB a batch, 2.2 GB in
    apply's parent). Now: refused once its records hold more than SHEET_CELLS cells and more than
    SHEET_RATIO cells per value (here 20,000 cells: row 2)."""
    monkeypatch.setattr(rows, "SHEET_CELLS", 20_000)
    path = _sheet(tmp_path / "wide.xlsx", 200, (1, 16384))
    got: list[dict] = []
    with pytest.raises(InputError, match=r"wide\.xlsx: by sheet row 2 .* rows\.SHEET_RATIO") as e:
        got.extend(iter_records(str(path)))
    assert "16,384 columns a row" in str(e.value) and got == []
    assert e.value.path == str(path) and e.value.line == 2


def test_a_sparse_sheet_within_the_ratio_reads_as_before(tmp_path, monkeypatch):
    """Ten columns, two holding a value a row: 5 cells per value, under SHEET_RATIO."""
    monkeypatch.setattr(rows, "SHEET_CELLS", 100)
    path = _sheet(tmp_path / "sparse.xlsx", 300, (1, 10))
    records = read_all(path)
    assert len(records) == 299 and len(records[0]) == 10
    assert records[0]["v1-1"] == "v2-1" and records[0]["column_5"] is None


def test_apply_on_the_wide_workbook_is_one_error_line(tmp_path, monkeypatch, work):
    monkeypatch.setattr(rows, "SHEET_CELLS", 20_000)
    path = _sheet(tmp_path / "wide.xlsx", 200, (1, 16384))
    (tmp_path / "fns.py").write_text("def clean_data(record):\n    return record\n")
    result = invoke("apply", str(tmp_path / "fns.py"), str(path), "-o", str(tmp_path / "o.jsonl"))
    line = one_error_line(result)
    assert "wide.xlsx" in line and "rows.SHEET_RATIO" in line
    assert not (tmp_path / "o.jsonl").exists()


# ---------------------------------------------------------------------------- Parquet
def _parquet(path: Path, table, **options) -> Path:
    optional("pyarrow.parquet").write_table(table, path, compression="zstd", **options)
    return path


def _repeated(pa, rows_: int, length: int):
    return pa.table({"v": pa.array(["a" * length] * rows_)})


def test_a_dictionary_parquet_is_measured_and_refused_before_a_value_is_decoded(
    tmp_path, monkeypatch
):
    """Before: a 433-byte file (one 120 KB value in a dictionary, 2,000 rows) read as 240 MB of
    values (676 MB peak). Its metadata declares only the dictionary, whose values could fill more
    than a batch: the batch is read as a dictionary and measured, and refused before any value
    reaches Python."""
    pa, pq = optional("pyarrow"), optional("pyarrow.parquet")
    monkeypatch.setattr(rows, "PARQUET_MB", 1)
    monkeypatch.setattr(rows, "PARQUET_BATCH_MB", 1)  # 200 values of the 20 KB dictionary: 4 MB
    path = _parquet(tmp_path / "dict.parquet", _repeated(pa, 200, 20_000))
    assert path.stat().st_size < 2_000
    assert ParquetPlan(pq.ParquetFile(path).metadata, str(path)).dictionaries == [0]
    converted: list = []
    monkeypatch.setattr(tables, "_arrow_values", lambda column: converted.append(1) or [])
    with pytest.raises(
        InputError,
        match=r"dict\.parquet: its values come to more than 1 MB as "
        r"read, over 100 times its \d+ bytes .*rows\.PARQUET_RATIO",
    ):
        list(iter_records(str(path)))
    assert converted == []


def test_a_plain_parquet_is_refused_by_its_metadata_before_it_is_read(tmp_path, monkeypatch):
    pa = optional("pyarrow")
    monkeypatch.setattr(rows, "PARQUET_MB", 1)
    path = _parquet(tmp_path / "plain.parquet", _repeated(pa, 200, 20_000), use_dictionary=False)
    read: list = []
    monkeypatch.setattr(tables, "_batches", lambda *a: read.append(1) or iter(()))
    with pytest.raises(InputError, match="as its metadata declares them"):
        list(iter_records(str(path)))
    assert read == []


def test_one_int_repeated_is_declared_by_its_width_not_its_encoded_size(tmp_path, monkeypatch):
    """A dictionary (or run) of one value makes any number of rows from a few bytes."""
    pa = optional("pyarrow")
    monkeypatch.setattr(rows, "PARQUET_MB", 1)
    path = _parquet(tmp_path / "ints.parquet", pa.table({"i": pa.array([7] * 200_000)}))
    assert path.stat().st_size < 5_000
    with pytest.raises(InputError, match="as its metadata declares them"):
        list(iter_records(str(path)))


def test_a_prefix_encoded_column_is_read_in_batches_a_value_of_its_chunk_cannot_overfill(
    tmp_path, monkeypatch
):
    """DELTA_BYTE_ARRAY stores a value as a prefix of the last one and a suffix: each value is at
    most the chunk's size, so a batch holds at most PARQUET_BATCH_MB / chunk rows."""
    pa, pq = optional("pyarrow"), optional("pyarrow.parquet")
    monkeypatch.setattr(rows, "PARQUET_MB", 1)
    path = _parquet(
        tmp_path / "delta.parquet",
        _repeated(pa, 200, 20_000),
        use_dictionary=False,
        column_encoding={"v": "DELTA_BYTE_ARRAY"},
    )
    metadata = pq.ParquetFile(path).metadata
    chunk = metadata.row_group(0).column(0).total_uncompressed_size
    plan = ParquetPlan(metadata, str(path))
    assert plan.batch_rows == [(rows.PARQUET_BATCH_MB << 20) // chunk] and plan.dictionaries == []
    with pytest.raises(InputError, match="as read"):
        list(iter_records(str(path)))


def test_a_nested_dictionary_is_measured_before_it_is_decoded(tmp_path, monkeypatch):
    pa, pq = optional("pyarrow"), optional("pyarrow.parquet")
    monkeypatch.setattr(rows, "PARQUET_MB", 1)
    monkeypatch.setattr(rows, "PARQUET_BATCH_MB", 1)
    table = pa.table({"tags": pa.array([["t" * 10_000] * 20] * 50)})
    path = _parquet(tmp_path / "tags.parquet", table)
    assert ParquetPlan(pq.ParquetFile(path).metadata, str(path)).dictionaries == [0]
    converted: list = []
    monkeypatch.setattr(tables, "_arrow_values", lambda column: converted.append(1) or [])
    with pytest.raises(InputError, match="as read"):
        list(iter_records(str(path)))
    assert converted == []


def test_small_dictionaries_are_read_decoded_and_row_groups_share_an_iterator(tmp_path):
    """No value of a row group's dictionaries can overfill a batch: read as they are, and the row
    groups by one iterator (one per group cost ~1 ms: 5,000 groups read 3 times slower)."""
    pa, pq = optional("pyarrow"), optional("pyarrow.parquet")
    table = pa.table({"s": [f"v{i % 3}" for i in range(1000)], "i": list(range(1000))})
    path = _parquet(tmp_path / "groups.parquet", table, row_group_size=10)
    plan = ParquetPlan(pq.ParquetFile(path).metadata, str(path))
    assert plan.dictionaries == [] and plan.reads == [(list(range(100)), 8192)]
    assert list(iter_records(str(path))) == table.to_pylist()


def test_parquet_within_the_bounds_reads_the_same_values(tmp_path):
    pa = optional("pyarrow")
    records = [
        {"s": f"v{i % 3}", "tags": [f"t{i % 2}"], "m": {"k": f"x{i % 4}"}, "n": i}
        for i in range(50)
    ]
    path = _parquet(tmp_path / "ok.parquet", pa.Table.from_pylist(records))
    assert list(iter_records(str(path))) == records


# ---------------------------------------------------------------------------- gzip
class _Recorded(gzipped.BoundedGzip):
    made: list = []

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.made.append(self)


@pytest.fixture
def recorded(monkeypatch):
    _Recorded.made = []
    monkeypatch.setattr(gzipped, "BoundedGzip", _Recorded)
    return _Recorded.made


def test_a_gzip_line_past_the_bound_is_refused_before_it_is_held_whole(
    tmp_path, monkeypatch, recorded
):
    """Before: a 199 KB .jsonl.gz whose first line is a 200 MB string was read whole (620 MB, 19
    s). Now: refused once the line passes GZIP_LINE_MB (here 1 MB), having decompressed at most
    that and a buffer."""
    monkeypatch.setattr(rows, "GZIP_LINE_MB", 1)
    path = tmp_path / "big.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": "' + b"x" * (8 << 20) + b'"}\n{"a": 1}\n'))
    with pytest.raises(
        InputError,
        match=r"big\.jsonl\.gz: line 1 is longer than 1 MB .*"
        r"rows\.GZIP_LINE_MB",
    ) as e:
        read_all(path)
    assert e.value.line == 1
    assert all(stream.out <= (1 << 20) + (1 << 17) for stream in recorded)


def test_a_gzip_stream_expanding_past_the_ratio_is_refused(tmp_path, monkeypatch, recorded):
    monkeypatch.setattr(rows, "GZIP_MB", 1)
    path = tmp_path / "many.csv.gz"
    path.write_bytes(gzip.compress(b"a,b\n" + b"1,2\n" * 1_000_000, compresslevel=9))
    assert path.stat().st_size < 10_000  # 4 MB in
    with pytest.raises(
        InputError,
        match=r"many\.csv\.gz: expands to more than 1 MB, over 100 "
        r"times its \d+ KB .*rows\.GZIP_RATIO",
    ):
        read_all(path)
    assert all(stream.out <= (1 << 20) + (1 << 17) for stream in recorded)


def test_gzip_within_the_bounds_reads_as_the_plain_file(tmp_path, monkeypatch):
    monkeypatch.setattr(rows, "GZIP_MB", 1)
    text = "".join(json.dumps({"i": i, "t": "x" * 100}) + "\n" for i in range(20_000))
    (tmp_path / "ok.jsonl").write_text(text)
    (tmp_path / "ok.jsonl.gz").write_bytes(gzip.compress(text.encode()))  # 2 MB, 30 times
    assert read_all(tmp_path / "ok.jsonl.gz") == read_all(tmp_path / "ok.jsonl")


def test_the_cli_says_so_in_one_line(tmp_path, monkeypatch, work, use):
    monkeypatch.setattr(rows, "GZIP_LINE_MB", 1)
    (work / "big.jsonl.gz").write_bytes(gzip.compress(b'{"a": "' + b"x" * (4 << 20) + b'"}\n'))
    use(FakeBackend([]))
    line = one_error_line(invoke("analyze", "big.jsonl.gz", "-i", "a: lower case"))
    assert "big.jsonl.gz: line 1 is longer than 1 MB" in line


# ---------------------------------------------------------------------------- text chunker
class _CountingPattern:
    """``_CANDIDATE`` counting the characters each scan is offered."""

    def __init__(self, pattern: re.Pattern) -> None:
        self.pattern, self.chars = pattern, 0

    def finditer(self, string: str, pos: int = 0, endpos: int | None = None):
        end = len(string) if endpos is None else min(endpos, len(string))
        self.chars += end - pos
        return self.pattern.finditer(string, pos, end)


def _work(monkeypatch, text: str) -> tuple[int, int, int]:
    """(characters scanned, sentence-end decisions, cut checks) to chunk ``text``."""
    counter = _CountingPattern(text_chunker._CANDIDATE)
    calls = {"ends": 0, "splits": 0}

    def counted(name: str):
        real = getattr(text_chunker, name)

        def wrapper(*args):
            calls[name.strip("_").split("_")[0]] += 1
            return real(*args)

        return wrapper

    with monkeypatch.context() as m:
        m.setattr(text_chunker, "_CANDIDATE", counter)
        m.setattr(text_chunker, "_ends_sentence", counted("_ends_sentence"))
        m.setattr(text_chunker, "_splits", counted("_splits"))
        chunks = list(text_chunker.iter_overlapped_chunks([text], 400, 40))
    assert "".join(chunk.new for chunk in chunks) == text
    return counter.chars, calls["ends"], calls["splits"]


@pytest.mark.parametrize("unit", ["word ", "a\n", "Mr. ", "x", "。", " \u0301", "a... "])
def test_the_chunker_does_linear_work_on_text_with_no_sentence_end(monkeypatch, unit):
    """Before: every cut rescanned the rest of the text, so 400 KB with no sentence end took 11.9 s
    (25 s for 200 KB of 'a\\n'). Now each scan looks no further than the chunk size: doubling the
    text doubles the work, and each character is scanned a few times at most."""
    n = 20_000
    small = _work(monkeypatch, unit * (n // len(unit)))
    large = _work(monkeypatch, unit * (2 * n // len(unit)))
    assert large[0] <= 3 * 2 * n  # characters scanned: a few times the text
    for before, after in zip(small, large):
        assert after <= 2.2 * before + 50, (small, large)


# ---------------------------------------------------------------------------- binary input
def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data).to_bytes(4, "big")
        return len(data).to_bytes(4, "big") + kind + data + crc

    header = (8).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    pixels = zlib.compress(b"".join(b"\x00" + bytes(range(24)) for _ in range(8)))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)


@pytest.mark.parametrize("name", ["photo.jsonl", "photo.csv", "photo.txt", "photo.json"])
def test_a_binary_file_is_named_a_binary_file_not_utf16(tmp_path, name):
    """Before: 'the file looks like UTF-16: read it with --encoding utf-16'."""
    path = tmp_path / name
    path.write_bytes(_png())
    with pytest.raises(InputEncodingError) as e:
        read_all(path)
    message = str(e.value)
    assert message.startswith(f"{path} is a binary file, not text (it looks like a PNG image)")
    assert "UTF-16" not in message and "--encoding" not in message


def test_zero_bytes_out_of_utf16s_pattern_are_binary_data(tmp_path):
    path = tmp_path / "blob.jsonl"
    path.write_bytes(bytes([0x80, 0, 0, 7, 0xFF, 0, 3, 0, 0, 0x90]) * 50)
    with pytest.raises(
        InputEncodingError,
        match=r"blob\.jsonl is a binary file, not text \(it "
        r"looks like binary data\)",
    ):
        read_all(path)


def test_utf16_text_is_still_named_utf16(tmp_path):
    path = tmp_path / "u16.csv"
    path.write_bytes(("id,name\n" + "1,Zoë\n" * 20).encode("utf-16-le"))
    with pytest.raises(InputEncodingError, match="looks like UTF-16: read it with --encoding"):
        read_all(path)


# ---------------------------------------------------------------------------- fingerprint
GOALS = "email: lower case"


def _resume_file(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    rows_ = [{"id": i, "email": f"User{i}@Example.COM", "pad": "p" * 200} for i in range(600)]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows_))
    assert data.stat().st_size > 2 * 65536
    options = dict(chunk_size=50, holdout_ratio=0, progress=False, profile_fields=False)
    clean(
        str(data),
        GOALS,
        backend=FakeBackend(default=CLEAN_REPLY),
        state_file="s.json",
        cross_row=False,
        **options,
    )
    save_state("s.json", {**load_state("s.json"), "last_completed_chunk": 2})
    return data


def _edit_past_the_head(data: Path) -> None:
    raw = bytearray(data.read_bytes())
    at = raw.index(b"User500@")
    raw[at : at + 4] = b"Usex"  # same size, far past the first 64 KiB
    data.write_bytes(bytes(raw))


def test_an_edit_past_the_first_64_kib_with_the_same_size_is_another_version(tmp_path, monkeypatch):
    """Before: the fingerprint hashed size + the first 64 KiB, so the run resumed as the same
    data."""
    data = _resume_file(tmp_path, monkeypatch)
    _edit_past_the_head(data)
    with pytest.raises(
        StateFileError,
        match=r"another version of the data file \(its content "
        r"differs\)",
    ):
        DataCleaner.resume("s.json", FakeBackend(default=CLEAN_REPLY)).run()


def test_a_state_file_with_only_the_head_digest_is_compared_by_it(tmp_path, monkeypatch):
    """A state file written before ``content`` still resumes on the same data."""
    data = _resume_file(tmp_path, monkeypatch)
    saved = load_state("s.json")
    del saved["fingerprint"]["data"]["content"]
    save_state("s.json", saved)
    result = DataCleaner.resume("s.json", FakeBackend(default=CLEAN_REPLY)).run()
    assert result.resumed_from_chunk == 2
    assert load_state("s.json")["fingerprint"]["data"]["content"]  # written from now on
    assert data.exists()


def test_the_content_digest_is_the_whole_files_and_sees_a_byte_anywhere(tmp_path):
    from recursive_cleaner.run.fingerprint import data_identity

    path = tmp_path / "big.bin"
    data = bytearray(b"z" * (3 << 20))
    path.write_bytes(bytes(data))
    first = data_identity(path)
    assert first["content"] == hashlib.sha256(data).hexdigest()[:32]
    for at in (0, 70_000, (2 << 20) + 5, len(data) - 1):
        data[at] ^= 1
        path.write_bytes(bytes(data))
        assert data_identity(path)["content"] != first["content"]
        data[at] ^= 1
