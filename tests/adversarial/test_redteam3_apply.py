"""Issue 43's third red-team pass, apply's side: records are never lost quietly.

One test per attack, asserting what happens now: a row that cannot be read goes to the reject file
with its file and line and counts against ``--max-failures`` (every format, locally and on Dask); an
input with no record is an error; blanks of the spec's number and date fields are nulls and
Parquet / DataFrame columns get their real types; a column first seen after the first batch is
kept; a nested key written twice fails the record instead of keeping one of its two values. The
ordinary-use losses run through a fitted ``Cleaner`` on the fake backend where a run is involved.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
from pathlib import Path

import pytest

from recursive_cleaner import Cleaner
from recursive_cleaner.apply import ApplyError, apply_file, apply_records
from recursive_cleaner.apply.check import validate
from recursive_cleaner.apply.writers import output_writer
from recursive_cleaner.errors import InputError
from recursive_cleaner.read.parsers import iter_records
from tests.cli_helpers import invoke, one_error_line
from tests.fakes import CLEAN_REPLY, FakeBackend
from tests.optional_deps import optional

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the sandbox is POSIX only")

AMOUNTS = '''
def clean_data(record):
    """The amount as a number when there is one; blanks left as they are."""
    record = dict(record)
    value = record.get("amount")
    if isinstance(value, str) and value.strip():
        record["amount"] = float(value)
    return record
'''
SPEC = {
    "version": 1,
    "scope": "mentioned",
    "fields": {
        "id": {"kind": "integer", "mentioned": True},
        "amount": {"kind": "number", "mentioned": True},
        "day": {"kind": "date", "mentioned": True},
    },
}


def ragged_csv(path: Path, rows: int = 39, ragged: tuple[int, ...] = (5, 20)) -> Path:
    """``rows`` data rows, those in ``ragged`` with a fourth field; every 7th amount blank."""
    lines = ["id,name,amount"]
    for i in range(rows):
        amount = "" if i % 7 == 0 else f"{i * 1.5}"
        lines.append(f"{i},x,1,extra" if i in ragged else f"{i},n{i},{amount}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cleaning_functions.py").write_text(AMOUNTS)
    return tmp_path


def rejects(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------------------- malformed rows
def test_ragged_csv_rows_go_to_the_reject_file_and_the_exit_code(here):
    """Before: "37 of 37 records" (the input had 39), exit 0, the reject file empty."""
    ragged_csv(here / "in.csv")
    result = invoke(
        "apply", "cleaning_functions.py", "in.csv", "-o", "out.csv", "--reject-file", "rej.jsonl",
        "--progress", "off",
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    assert "37 of 39 records, 2 malformed input row(s) (in rej.jsonl; line(s) 7, 22)" in (
        result.stdout
    )
    assert "error: 2 input row(s) of in.csv could not be read (in rej.jsonl" in result.stderr
    entries = rejects(here / "rej.jsonl")
    assert [(e["path"], e["line"]) for e in entries] == [("in.csv", 7), ("in.csv", 22)]
    assert all("expected 3 fields (from the header), got 4" in e["error"] for e in entries)
    assert len(list(csv.reader((here / "out.csv").open(newline="")))) == 38  # header + 37
    # as many as --max-failures allows: exit 0, with a warning naming them
    allowed = invoke(
        "apply", "cleaning_functions.py", "in.csv", "-o", "out2.csv", "--max-failures", "2",
        "--progress", "off",
    )  # fmt: skip
    assert allowed.exit_code == 0 and "warning: 2 input row(s) of in.csv could not be read" in (
        allowed.stderr
    )


def test_apply_file_counts_unread_rows_against_max_failures(here):
    ragged_csv(here / "in.csv")
    args = ("cleaning_functions.py", "in.csv", "out.csv")
    result = apply_file(*args, workers=1, reject_path="r.jsonl")
    assert (result.rows_in, result.records_in, result.skipped_input) == (39, 37, 2)
    assert (result.rejected, result.cleaned, result.failed) == (2, 37, 0)
    with pytest.raises(ApplyError, match=r"2 input row\(s\) of in.csv could not be read") as err:
        apply_file(*args, workers=1, max_failures=1)
    assert err.value.result.skipped_input == 2


def _excel(path: Path) -> None:
    openpyxl = optional("openpyxl")
    book = openpyxl.Workbook()
    for row in (["id", "amount"], [1, "2"], [2, "3", "stray"], [3, "4"]):
        book.active.append(row)
    book.save(path)


FORMATS = {
    # name: (file name, writer of the file, the line of its one unreadable row)
    "jsonl": ("in.jsonl", lambda p: p.write_text('{"id": 1}\n[1, 2]\n{"id": 3}\n'), 2),
    "jsonl-not-json": ("in.jsonl", lambda p: p.write_text('{"id": 1}\n{oops\n{"id": 3}\n'), 2),
    "json": ("in.json", lambda p: p.write_text('[{"id": 1},\n 7,\n {"id": 3}]'), 2),
    "csv.gz": ("in.csv.gz", lambda p: p.write_bytes(gzip.compress(b"id\n1\n2,3\n4\n")), 3),
    "tsv": ("in.tsv", lambda p: p.write_text("id\tamount\n1\t2\n2\n3\t4\n"), 3),
    "xlsx": ("in.xlsx", _excel, 3),
}


@pytest.mark.parametrize("name", FORMATS)
def test_every_formats_unreadable_row_reaches_the_reject_file(here, name):
    """Before: counted in ``skipped_input`` only: the reject file stayed empty, exit 0."""
    filename, make, line = FORMATS[name]
    make(here / filename)
    result = apply_file("cleaning_functions.py", filename, "out.jsonl", reject_path="r.jsonl")
    (entry,) = rejects(here / "r.jsonl")
    assert (entry["path"], entry["line"]) == (filename, line) and entry["error"]
    assert result.skipped_input == result.rejected == 1 and result.records_out == 2
    if name.startswith("jsonl"):  # apply holds the raw line: it is kept
        assert entry["text"] in ("[1, 2]", "{oops")


def test_rows_unread_after_the_last_record_and_between_failures_keep_file_order(here):
    """The last rows of a file are read after the last batch: they still reach the reject file,
    in line order with the failures of each batch."""
    code = AMOUNTS.replace('    return record', '    if record["id"] == "3":\n'
                           '        raise ValueError("three")\n    return record')  # fmt: skip
    (here / "cleaning_functions.py").write_text(code)
    # records at lines 2, 4 (fails), 5, 6: two full batches; lines 7 and 8 come after the last
    rows = ["id,amount", "1,1", "2,2,x", "3,3", "4,4", "5,5", "6,6,x", "7,7,x"]
    (here / "in.csv").write_text("\n".join(rows) + "\n")
    result = apply_file(
        "cleaning_functions.py", "in.csv", "out.csv", reject_path="r.jsonl", batch_size=2
    )
    entries = rejects(here / "r.jsonl")
    assert [e.get("line", e.get("index")) for e in entries] == [3, 1, 7, 8]
    assert entries[1]["record"] == {"id": "3", "amount": "3"}
    assert (result.skipped_input, result.failed, result.records_out) == (3, 1, 3)


def test_unread_rows_on_dask_reach_the_same_reject_file(here):
    """The Dask path (threaded scheduler): the same reject lines and counts as apply_file."""
    optional("dask.bag")
    from recursive_cleaner.apply.on_dask import apply_dask

    ragged_csv(here / "in.csv", rows=30, ragged=(2, 11, 29))
    local = apply_file("cleaning_functions.py", "in.csv", "a.csv", reject_path="ra.jsonl",
                       batch_size=4)  # fmt: skip
    dask = apply_dask(
        "cleaning_functions.py", "in.csv", "b.csv", reject_path="rb.jsonl", batch_size=4,
        partition_size=8,
    )  # fmt: skip
    mine, ref = rejects(here / "rb.jsonl"), rejects(here / "ra.jsonl")
    assert [dict(e, path="in.csv") for e in mine] == ref  # Dask names the file by its full path
    assert [e["line"] for e in mine] == [4, 13, 31] and mine[0]["path"] == str(here / "in.csv")
    assert (here / "a.csv").read_bytes() == (here / "b.csv").read_bytes()
    assert (dask.skipped_input, dask.rejected) == (local.skipped_input, local.rejected) == (3, 3)


# ---------------------------------------------------------------------------- empty input
@pytest.mark.parametrize(
    "content,detail",
    [
        ("", r"\(an empty file\)"),
        ("id,name\n", r"\(no record read\)"),
        ("id,name\n1,2,3\n4\n", r"\(all 2 rows skipped; line 2: expected 2 fields"),
    ],
)
def test_an_input_with_no_record_is_an_error_and_nothing_is_written(here, content, detail):
    """Before: exit 0 and an empty output (the README says no records is an error)."""
    (here / "in.csv").write_text(content)
    (here / "out.csv").write_text("yesterday's output\n")
    with pytest.raises(InputError, match=rf"in.csv has no records {detail}"):
        apply_file("cleaning_functions.py", "in.csv", "out.csv", workers=1)
    assert (here / "out.csv").read_text() == "yesterday's output\n"
    line = one_error_line(
        invoke("apply", "cleaning_functions.py", "in.csv", "-o", "new.csv", "--progress", "off")
    )
    assert "in.csv has no records" in line and "nothing to clean" in line
    assert not (here / "new.csv").exists()


def test_an_empty_input_on_dask_is_the_same_error(here):
    optional("dask.bag")
    from recursive_cleaner.apply.on_dask import apply_dask

    (here / "in.jsonl").write_text("\n\n")
    with pytest.raises(InputError, match=r"in.jsonl has no records"):
        apply_dask("cleaning_functions.py", str(here / "in.jsonl"), "out.jsonl")
    assert not (here / "out.jsonl").exists()


# ---------------------------------------------------------------------------- typed output
def test_csv_blanks_are_nulls_and_parquet_numbers_are_numbers(here):
    """Before: the number column was text in Parquet and ``validate`` failed every value."""
    pa = optional("pyarrow")
    import pyarrow.parquet as pq

    ragged_csv(here / "in.csv", ragged=())
    (here / "cleaning_spec.json").write_text(json.dumps(SPEC))  # beside the functions
    apply_file("cleaning_functions.py", "in.csv", "out.parquet", workers=1, batch_size=8)
    table = pq.read_table(here / "out.parquet")
    assert table.schema.field("amount").type == pa.float64()
    assert table.schema.field("id").type == pa.int64()  # "12" text: whole numbers
    assert table.column("amount").null_count == 6  # rows 0, 7, 14, ... were blank
    check = validate(str(here / "out.parquet"), str(here / "cleaning_spec.json"))
    assert check.ok and check.checked["amount"] == 33 and check.blank["amount"] == 6
    # JSONL: the blank is null; CSV: still an empty cell
    apply_file("cleaning_functions.py", "in.csv", "out.jsonl", workers=1)
    assert [r["amount"] for r in iter_records(str(here / "out.jsonl"))][:2] == [None, 1.5]
    apply_file("cleaning_functions.py", "in.csv", "out.csv", workers=1)
    assert (here / "out.csv").read_text().splitlines()[1] == "0,n0,"


def test_a_value_that_does_not_conform_keeps_its_column_as_it_was(here):
    """The spec types a column only when every value converts: "n/a" keeps the column text, and
    no value is lost."""
    optional("pyarrow")
    import pyarrow.parquet as pq

    (here / "in.jsonl").write_text(
        "".join(json.dumps({"id": i, "day": d}) + "\n" for i, d in enumerate(
            ["2024-01-05", "", "2024-02-30x", "2024-03-01"]))
    )  # fmt: skip
    (here / "cleaning_spec.json").write_text(json.dumps(SPEC))
    apply_file("cleaning_functions.py", "in.jsonl", "out.parquet", workers=1, batch_size=2)
    table = pq.read_table(here / "out.parquet")
    assert str(table.schema.field("day").type) == "string"
    assert table.column("day").to_pylist() == ["2024-01-05", None, "2024-02-30x", "2024-03-01"]
    assert str(table.schema.field("id").type) == "int64"


def test_spec_types_dates_and_timestamps_in_parquet(here):
    optional("pyarrow")
    import datetime as dt

    import pyarrow.parquet as pq

    spec = {"version": 1, "scope": "mentioned", "fields": {
        "day": {"kind": "date", "mentioned": True}, "at": {"kind": "datetime", "mentioned": True},
        "n": {"kind": "integer", "mentioned": True}}}  # fmt: skip
    (here / "cleaning_spec.json").write_text(json.dumps(spec))
    rows = [{"day": "2024-01-05", "at": "2024-01-05T10:30:00", "n": 3.0},
            {"day": " ", "at": "", "n": None}]  # fmt: skip
    (here / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    apply_file("cleaning_functions.py", "in.jsonl", "out.parquet", workers=1)
    table = pq.read_table(here / "out.parquet")
    types = {f.name: str(f.type) for f in table.schema}
    assert types == {"day": "date32[day]", "at": "timestamp[us]", "n": "int64"}
    assert table.to_pylist() == [
        {"day": dt.date(2024, 1, 5), "at": dt.datetime(2024, 1, 5, 10, 30), "n": 3},
        {"day": None, "at": None, "n": None},
    ]


def test_a_dataframe_whole_number_column_is_int64_after_a_fit(tmp_path, monkeypatch):
    """Before: the goals asked for whole numbers and the column stayed float64 (NaN for the blank
    one); a date column stayed text with "" for a blank."""
    pd = optional("pandas")
    monkeypatch.chdir(tmp_path)
    df = pd.DataFrame(
        {"name": ["a", "b", "c", "d"], "qty": [1.0, None, 3.0, 4.0],
         "when": ["2024-01-05", "", "2024-02-01", "2024-03-01"]}
    )  # fmt: skip
    goals = "qty must be a whole number (an integer). when is a date (YYYY-MM-DD)."
    cleaner = Cleaner(goals, FakeBackend(default=CLEAN_REPLY), chunk_size=4, holdout_ratio=0)
    out = cleaner.fit_transform(df, workers=1)
    assert str(out["qty"].dtype) == "Int64" and out["qty"].tolist()[::2] == [1, 3]
    assert out["qty"].isna().tolist() == [False, True, False, False]
    assert str(out["when"].dtype).startswith("datetime64") and out["when"].isna().sum() == 1


# ---------------------------------------------------------------------------- late columns
LATE = '''
def clean_data(record):
    """A field that only later records have."""
    record = dict(record)
    if int(record["id"]) >= 5:
        record["late"] = 'a "quoted",\\r\\nvalue' if int(record["id"]) % 2 else ""
    return record
'''


def test_cleaner_transform_to_csv_keeps_a_column_first_seen_late(tmp_path, monkeypatch):
    """Before: ``Cleaner.transform(path, "out.csv")`` dropped a column that only records after the
    first batch have (here a sparse "note" of the input), without a word."""
    from tests.ui.test_entry import GOALS, ROWS, scripted

    monkeypatch.chdir(tmp_path)
    cleaner = Cleaner(GOALS, FakeBackend(scripted), chunk_size=4, holdout_ratio=0).fit(ROWS)
    rows = [dict(ROWS[i % 4], id=i) for i in range(10)]
    rows[7]["note"] = 'call "after" 5pm,\r\nnot before'
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    cleaner.transform("in.jsonl", "out.csv", workers=1, batch_size=3)
    out = list(csv.reader((tmp_path / "out.csv").open(newline="")))
    assert out[0] == ["id", "phone", "note"] and {len(r) for r in out} == {3}
    assert [r[2] for r in out[1:]] == [""] * 7 + ['call "after" 5pm,\r\nnot before', "", ""]
    assert out[1][1] == "+15551234567"  # the fitted functions ran


@pytest.mark.parametrize("target", ["out.csv", "out.tsv", "out.csv.gz", "out.xlsx", "out.parquet"])
def test_every_tabular_output_keeps_a_late_column(here, target):
    if target.endswith("xlsx"):
        optional("openpyxl")
    if target.endswith("parquet"):
        optional("pyarrow")
    (here / "cleaning_functions.py").write_text(LATE)
    (here / "in.jsonl").write_text("".join(json.dumps({"id": i}) + "\n" for i in range(9)))
    result = apply_file("cleaning_functions.py", "in.jsonl", target, workers=2, batch_size=2)
    back = list(iter_records(target))
    assert result.dropped_keys == [] and len(back) == 9
    late = [r.get("late") for r in back]
    assert late[5] == 'a "quoted",\r\nvalue' and late[7] == late[5] and not any(late[:5])


def test_the_widened_csv_is_what_one_batch_would_have_written(here):
    """The rewrite pads each earlier row exactly: the bytes equal a run whose first batch held
    every key (cells with quotes, commas, CR/LF and a one-cell empty row included)."""
    (here / "cleaning_functions.py").write_text(LATE)
    rows = [{"id": i, "t": ['"', "a,b", "x\r\ny", "", "\n"][i % 5]} for i in range(12)]
    (here / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    apply_file("cleaning_functions.py", "in.jsonl", "small.csv", workers=1, batch_size=2)
    apply_file("cleaning_functions.py", "in.jsonl", "one.csv", workers=1, batch_size=100)
    assert (here / "small.csv").read_bytes() == (here / "one.csv").read_bytes()


class _Stream(io.BytesIO):
    """An output that cannot be read back (a pipe, a socket)."""

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False


def test_a_csv_written_to_a_stream_still_names_what_it_cannot_add():
    """An output that cannot be read back keeps the first header and lists the later key."""
    stream = _Stream()
    writer = output_writer("csv", stream, "x.csv")
    writer.write(b'{"a": 1}', 1)
    writer.write(b'{"a": 2, "b": 3}', 1)
    writer.finish()
    assert writer.dropped == {"b"} and stream.getvalue() == b"a\r\n1\r\n2\r\n"


# ---------------------------------------------------------------------------- keys written twice
NESTED_TWICE = '''
def clean_data(record):
    """A nested dict with keys 1 and "1": JSON writes both as "1"."""
    record = dict(record)
    if record["id"] == 2:
        record["nested"] = {1: "int one", "1": "str one"}
    else:
        record["nested"] = {"k": {"x": 1}}
    return record
'''


@pytest.mark.parametrize("audit", [False, True])
def test_a_nested_key_written_twice_fails_the_record(here, audit):
    """Before: the output held ``{"1": "int one", "1": "str one"}`` (a reader keeps one), and the
    audit copy folded them: one value lost without a word."""
    (here / "cleaning_functions.py").write_text(NESTED_TWICE)
    (here / "in.jsonl").write_text("".join(json.dumps({"id": i}) + "\n" for i in range(4)))
    result = apply_file(
        "cleaning_functions.py", "in.jsonl", "out.jsonl", reject_path="r.jsonl",
        audit_path="a.jsonl" if audit else None, workers=1,
    )  # fmt: skip
    (entry,) = rejects(here / "r.jsonl")
    assert entry["index"] == 2 and entry["record"] == {"id": 2}
    assert "two fields named '1'" in entry["error"] and result.failed == 1
    assert b'"1"' not in (here / "out.jsonl").read_bytes() and result.records_out == 3
    out = list(apply_records(NESTED_TWICE, [{"id": i} for i in range(4)], workers=1))
    assert out[2] == {"id": 2}  # failed: unchanged, as every failed record


def test_blanks_become_null_only_in_the_typed_field_whatever_its_neighbours_hold():
    """The JSONL path finds the typed field's value by its key: a key's look-alike inside another
    string, a longer key ending with the name, nested records and non-ASCII spaces are read
    right (the result equals parsing every record)."""
    from recursive_cleaner.read.formats.output import null_blanks

    values = ["", " ", "\u00a0", "\\t", 1.5, 'a"b', "日本", "\t", None, "\u3000x"]
    records = [
        {
            "name": 'x", "amount": ""' if i % 3 else "n",
            "x amount": "",
            "amount": values[i % len(values)],
            **({"nested": {"amount": ""}} if i % 50 == 7 else {}),
        }
        for i in range(400)
    ]
    expected = [json.loads(json.dumps(r)) for r in records]
    null_blanks(expected, ["amount"])
    out = io.BytesIO()
    writer = output_writer("jsonl", out, "x.jsonl", {"amount": object()})
    for start in range(0, 400, 40):  # batches with and without a nested record
        batch = records[start : start + 40]
        writer.write(b"\n".join(json.dumps(r, ensure_ascii=False).encode() for r in batch), 40)
    writer.finish()
    assert [json.loads(line) for line in out.getvalue().splitlines()] == expected
    assert expected[0]["amount"] is None and expected[7]["nested"] == {"amount": ""}


def test_unread_rows_with_cross_row_steps_on_dask_match_apply_file(here):
    """The Dask path with CROSS_ROW_STEPS (spooled parts, ``dask_fit``): the same reject lines."""
    optional("dask.bag")
    from recursive_cleaner.apply.on_dask import apply_dask

    steps = "\n\nCROSS_ROW_STEPS = [{'kind': 'dedup', 'key': ['name'], 'asked': True}]\n"
    (here / "cleaning_functions.py").write_text(AMOUNTS + steps)
    ragged_csv(here / "in.csv", rows=30, ragged=(2, 11, 29))
    options = dict(batch_size=4, max_drop=1.0)
    local = apply_file(
        "cleaning_functions.py", "in.csv", "a.csv", reject_path="ra.jsonl", **options
    )
    dask = apply_dask(
        "cleaning_functions.py", "in.csv", "b.csv", reject_path="rb.jsonl", partition_size=8,
        **options,
    )  # fmt: skip
    mine, ref = rejects(here / "rb.jsonl"), rejects(here / "ra.jsonl")
    assert [dict(e, path="in.csv") for e in mine] == ref and [e["line"] for e in ref] == [4, 13, 31]
    assert (here / "a.csv").read_bytes() == (here / "b.csv").read_bytes()
    assert dask.skipped_input == local.skipped_input == 3 and local.cross_row_steps


def test_generate_then_apply_to_parquet_as_a_new_user_does(work, use):
    """The new user's path (the fake backend): ``generate`` skips the two ragged rows with their
    lines; ``apply`` used to say "37 of 37 records", exit 0 with an empty reject file, and write
    the amounts as text, which the project's own ``validate`` then failed, value by value."""
    optional("pyarrow")
    use(FakeBackend(default=CLEAN_REPLY))
    ragged_csv(work / "in.csv")
    made = invoke("generate", "in.csv", "-i", "amount is a number. id is an integer.",
                  "--progress", "off")  # fmt: skip
    assert made.exit_code == 0 and "skipped input lines 2" in made.stdout
    applied = invoke("apply", "cleaning_functions.py", "in.csv", "-o", "out.parquet",
                     "--reject-file", "r.jsonl", "--progress", "off")  # fmt: skip
    assert applied.exit_code == 1 and "37 of 39 records, 2 malformed input row(s)" in (
        applied.stdout
    )
    assert [e["line"] for e in rejects(work / "r.jsonl")] == [7, 22]
    checked = invoke("validate", "out.parquet", "--spec", "cleaning_functions.spec.json")
    assert checked.exit_code == 0 and "amount: 0 of 31 value(s) break" in checked.stdout
