"""Parquet and Excel (optional extras): detection, streaming reads, apply round trips, writer rules,
install hints."""

from __future__ import annotations

import datetime
import decimal
import json
import sys
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.read.formats import table_writers as _tabular
from recursive_cleaner._extras import require
from recursive_cleaner.apply.local import ApplyError, apply_file
from recursive_cleaner.errors import InputError
from recursive_cleaner.read.parsers import (
    FORMATS,
    count_chunks,
    count_records,
    detect_format,
    iter_chunks,
    iter_records,
)
from tests.fakes import CLEAN_REPLY, FakeBackend
from tests.optional_deps import optional

pa = optional("pyarrow")
pq = optional("pyarrow.parquet")
openpyxl = optional("openpyxl")

ADD_TWICE = """
def clean_data(record):
    record = dict(record)
    record["twice"] = record["i"] * 2
    if isinstance(record.get("name"), str):
        record["name"] = record["name"].strip().title()
    return record
"""


def functions(tmp_path: Path, code: str = ADD_TWICE) -> str:
    path = tmp_path / "cleaning_functions.py"
    path.write_text(code)
    return str(path)


def cleaned(records: list[dict]) -> list[dict]:
    """What ADD_TWICE makes of records (the expected output)."""
    out = []
    for record in records:
        record = dict(record, twice=record["i"] * 2)
        if isinstance(record.get("name"), str):
            record["name"] = record["name"].strip().title()
        out.append(record)
    return out


@pytest.mark.parametrize(
    "name,fmt",
    [
        ("a.parquet", "parquet"),
        ("A.PQ", "parquet"),
        ("a.xlsx", "excel"),
        ("a.XLSM", "excel"),
        ("old.xls", "excel"),
        ("a.parquet.gz", "text"),
    ],
)
def test_detect_format_by_extension(name, fmt):
    assert detect_format(name) == fmt
    assert fmt in FORMATS


# ---------------------------------------------------------------------------- Parquet
def messy_parquet(path: Path, n: int = 23) -> Path:
    table = pa.table(
        {
            "i": pa.array(range(n), pa.int32()),
            "name": [f"  user {i} " if i % 3 else None for i in range(n)],
            "score": [i / 2 if i % 4 else float("nan") for i in range(n)],
            "ok": [i % 2 == 0 for i in range(n)],
            "tags": [["a", str(i)] for i in range(n)],
            "address": [{"city": f"c{i}", "zip": i} for i in range(n)],
            "joined": pa.array([datetime.date(2024, 1, 1 + i % 28) for i in range(n)], pa.date32()),
            "seen": pa.array(
                [datetime.datetime(2024, 1, 1, i % 24, 30) for i in range(n)], pa.timestamp("us")
            ),
            "price": pa.array([decimal.Decimal(f"{i}.50") for i in range(n)], pa.decimal128(6, 2)),
        }
    )
    pq.write_table(table, path, row_group_size=5)
    return path


def test_parquet_reads_as_json_ready_records_streamed_by_batches(tmp_path):
    path = messy_parquet(tmp_path / "in.parquet")
    records = list(iter_records(str(path)))
    assert len(records) == count_records(str(path)) == 23
    assert records[1] == {
        "i": 1,
        "name": "  user 1 ",
        "score": 0.5,
        "ok": False,
        "tags": ["a", "1"],
        "address": {"city": "c1", "zip": 1},
        "joined": "2024-01-02",
        "seen": "2024-01-01T01:30:00",
        "price": 1.5,
    }
    # NaN and null both become None
    assert records[0]["score"] is None and records[0]["name"] is None
    json.dumps(records)  # JSON-ready throughout
    assert [len(c) for c in iter_chunks(str(path), 10)] == [10, 10, 3]
    assert count_chunks(str(path), 10) == 3


def test_parquet_round_trip_read_apply_write_read_back(tmp_path, monkeypatch):
    monkeypatch.setattr(_tabular, "ROW_GROUP_ROWS", 7)  # several row groups on the way out
    source = messy_parquet(tmp_path / "in.parquet")
    result = apply_file(
        functions(tmp_path), str(source), str(tmp_path / "out.parquet"), workers=2, batch_size=4
    )
    back = list(iter_records(str(tmp_path / "out.parquet")))
    assert back == cleaned(list(iter_records(str(source))))
    assert (result.records_in, result.records_out, result.dropped_keys) == (23, 23, [])
    written = pq.ParquetFile(tmp_path / "out.parquet")
    assert written.metadata.num_row_groups == 3  # 8 + 8 + 7 rows: batches of 4 gathered up to >= 7
    types = {f.name: str(f.type) for f in written.schema_arrow}
    assert types["i"] == "int64" and types["twice"] == "int64" and types["ok"] == "bool"
    assert types["address"].startswith("struct") and types["tags"].startswith("list")


def test_parquet_writer_types_from_every_batch_late_keys_kept_and_empty_input(tmp_path):
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"i": list(range(6))}), source)
    code = """
def clean_data(record):
    record = dict(record)
    i = record["i"]
    record["late_type"] = None if i < 3 else i          # all null in the first batch: ints later
    record["mixed"] = [1, "a", True][i % 3]             # no single type: JSON text
    if i == 5:
        record["late_key"] = "x"                        # first seen after the first batch: kept
    return record
"""
    result = apply_file(
        functions(tmp_path, code),
        str(source),
        str(tmp_path / "out.parquet"),
        workers=1,
        batch_size=3,
    )
    table = pq.read_table(tmp_path / "out.parquet")
    back = table.to_pylist()
    # the types are decided on every batch (issue 43: the first batch's made the ints text)
    assert str(table.schema.field("late_type").type) == "int64"
    assert [r["late_type"] for r in back] == [None, None, None, 3, 4, 5]
    assert [r["mixed"] for r in back] == ["1", "a", "true", "1", "a", "true"]
    assert result.dropped_keys == [] and [r["late_key"] for r in back] == [None] * 5 + ["x"]
    empty = tmp_path / "empty.parquet"
    pq.write_table(pa.table({"i": pa.array([], pa.int64())}), empty)
    with pytest.raises(InputError, match="empty.parquet has no records"):  # as generate's
        apply_file(functions(tmp_path), str(empty), str(tmp_path / "empty_out.parquet"), workers=1)
    assert not (tmp_path / "empty_out.parquet").exists()


LATE_FLOAT = """
def clean_data(record):
    record = dict(record)
    record["n"] = 1.5 if record["i"] >= 3 else 1
    return record
"""
LATE_STRUCT_KEY = """
def clean_data(record):
    record = dict(record)
    record["s"] = {"city": "x", "new": 1} if record["i"] >= 3 else {"city": "c"}
    return record
"""


@pytest.mark.parametrize(
    "code,column,kind,values",
    [
        (LATE_FLOAT, "n", "double", [1.0, 1.0, 1.0, 1.5, 1.5, 1.5]),
        (
            LATE_STRUCT_KEY,
            "s",
            "string",
            ['{"city": "c"}'] * 3 + ['{"city": "x", "new": 1}'] * 3,
        ),
    ],
)
def test_parquet_value_of_another_type_in_a_later_batch_is_kept(
    tmp_path, code, column, kind, values
):
    """A later batch's 1.5 in a column of ints, or a struct with a new key: the column's type is
    decided on every value (it used to be the first batch's, and the run failed)."""
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"i": list(range(6))}), source)
    target = tmp_path / "out.parquet"
    apply_file(functions(tmp_path, code), str(source), str(target), workers=1, batch_size=3)
    table = pq.read_table(target)
    assert str(table.schema.field(column).type) == kind
    assert table.column(column).to_pylist() == values


def test_a_file_that_is_not_parquet_is_an_input_error(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet at all")
    with pytest.raises(InputError, match="bad.parquet: not a readable Parquet file"):
        list(iter_records(str(bad)))


def test_data_cleaner_runs_on_a_parquet_file(tmp_path):
    source = messy_parquet(tmp_path / "in.parquet")
    backend = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(source),
        chunk_size=10,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
        call_every_chunk=True,  # the model shown each chunk (issue 45: else no call is needed)
    ).run()
    assert result.chunks_total == 3 and result.chunks_processed == 3
    # dates reach the model as ISO text
    assert any("2024-01-0" in prompt for prompt in backend.history)


# ---------------------------------------------------------------------------- Excel
def messy_workbook(path: Path) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["i", "name", None, "signup", "score"])
    sheet.append([0, "  ann lee ", None, datetime.datetime(2024, 1, 5), 1.5])
    sheet.append([])  # blank row: ignored
    sheet.append([1, "bo chen", "x", datetime.datetime(2024, 1, 5, 10, 30), None])
    # beyond the header: skipped
    sheet.append([2, "cy", None, "5 Jan 2024", 3, None, "stray"])
    sheet.append([3, "di eze", None, None, True])
    book.create_sheet("ignored").append(["only the first sheet is read"])
    book.save(path)
    return path


def test_excel_reads_the_first_sheet_under_its_header_row(tmp_path):
    path = messy_workbook(tmp_path / "in.xlsx")
    skipped = []
    records = list(iter_records(str(path), on_skip=skipped.append))
    assert records == [
        {"i": 0, "name": "  ann lee ", "column_3": None, "signup": "2024-01-05", "score": 1.5},
        {
            "i": 1,
            "name": "bo chen",
            "column_3": "x",
            "signup": "2024-01-05T10:30:00",
            "score": None,
        },
        {"i": 3, "name": "di eze", "column_3": None, "signup": None, "score": True},
    ]
    assert [(s.line, s.reason) for s in skipped] == [
        (5, "a value in column 7, beyond the header's 5 columns")
    ]
    assert count_records(str(path)) == 3 and count_chunks(str(path), 2) == 2


def test_excel_round_trip_read_apply_write_read_back(tmp_path):
    source = messy_workbook(tmp_path / "in.xlsx")
    result = apply_file(
        functions(tmp_path), str(source), str(tmp_path / "out.xlsx"), workers=2, batch_size=2
    )
    back = list(iter_records(str(tmp_path / "out.xlsx")))
    assert back == cleaned(list(iter_records(str(source))))
    assert (result.records_in, result.skipped_input) == (3, 1)


def test_excel_writer_never_writes_formulas_and_replaces_illegal_characters(tmp_path):
    source = tmp_path / "in.xlsx"
    book = openpyxl.Workbook()
    book.active.append(["i"])
    for i in range(3):
        book.active.append([i])
    book.save(source)
    code = """
def clean_data(record):
    record = dict(record)
    record["link"] = '=HYPERLINK("http://evil.example","click")'
    record["ctrl"] = "a\\x01b"
    record["data"] = {"k": [1, 2]}
    record["nan"] = float("nan")
    if record["i"] == 2:
        record["late"] = 1
    return record
"""
    result = apply_file(
        functions(tmp_path, code), str(source), str(tmp_path / "out.xlsx"), workers=1, batch_size=2
    )
    # not data_only: a formula would show as one
    sheet = openpyxl.load_workbook(tmp_path / "out.xlsx").active
    assert (
        sheet["B2"].value == '=HYPERLINK("http://evil.example","click")'
        and sheet["B2"].data_type == "s"
    )
    assert (
        sheet["C2"].value == "a\ufffdb"
        and sheet["D2"].value == '{"k": [1, 2]}'
        and sheet["E2"].value is None
    )
    # "late", first seen after the first batch, has its column (issue 43: it was dropped)
    assert result.dropped_keys == [] and sheet["F1"].value == "late" and sheet["F4"].value == 1


def test_excel_row_limit_fails_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr(_tabular, "EXCEL_MAX_ROWS", 3)
    source = tmp_path / "in.xlsx"
    book = openpyxl.Workbook()
    for row in (["i"], *([i] for i in range(5))):
        book.active.append(row)
    book.save(source)
    with pytest.raises(ApplyError, match="out.xlsx: an Excel sheet holds at most 3 rows"):
        apply_file(functions(tmp_path), str(source), str(tmp_path / "out.xlsx"), workers=1)
    assert not (tmp_path / "out.xlsx").exists()
    with open(tmp_path / "x.xlsx", "wb") as out:
        writer = _tabular.ExcelWriter(out)
        with pytest.raises(ValueError, match="at most 3 rows"):
            writer.write(b"\n".join(json.dumps({"i": i}).encode() for i in range(5)), 5)
        writer.abort()


def test_xls_and_broken_workbooks_are_input_errors(tmp_path):
    old = tmp_path / "old.xls"
    old.write_bytes(b"\xd0\xcf\x11\xe0 old binary")
    with pytest.raises(InputError, match="save it as .xlsx"):
        iter_records(str(old))
    broken = tmp_path / "broken.xlsx"
    broken.write_text("not a zip")
    with pytest.raises(InputError, match="broken.xlsx: not a readable .xlsx workbook"):
        list(iter_records(str(broken)))


# ---------------------------------------------------------------------------- missing extras
@pytest.mark.parametrize(
    "suffix,modules,hint",
    [
        (
            ".parquet",
            ("pyarrow", "pyarrow.parquet"),
            "reading .parquet needs pyarrow: pip install 'recursive-data-cleaner[parquet]'",
        ),
        (
            ".xlsx",
            ("openpyxl",),
            "reading .xlsx needs openpyxl: pip install 'recursive-data-cleaner[excel]'",
        ),
    ],
)
def test_a_missing_extra_names_the_pip_command(tmp_path, monkeypatch, suffix, modules, hint):
    path = tmp_path / f"data{suffix}"
    path.write_bytes(b"whatever")
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)  # import now fails as if not installed
    for call in (
        lambda: iter_records(str(path)),
        lambda: count_records(str(path)),
        lambda: apply_file(functions(tmp_path), str(path), str(tmp_path / f"out{suffix}")),
    ):
        with pytest.raises(ModuleNotFoundError) as info:
            call()
        assert str(info.value) == hint
    assert not (tmp_path / f"out{suffix}").exists()


def test_require_reraises_a_broken_install_unchanged(tmp_path, monkeypatch):
    (tmp_path / "half_installed.py").write_text("import some_dependency_that_is_not_there_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as info:
        require("half_installed", "testing")
    assert info.value.name == "some_dependency_that_is_not_there_xyz"
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(
        ModuleNotFoundError, match="testing needs matplotlib: pip install matplotlib$"
    ):
        require("matplotlib.pyplot", "testing")
