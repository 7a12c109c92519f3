"""apply writes the format its output's extension names, refuses others, and warns about fields the
data lacks."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from recursive_cleaner.apply.fields import function_fields, missing_fields, output_format
from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.read.parsers import iter_records

UPPER = """\
def upper_name(record):
    record["name"] = record["name"].upper()
    return record


def clean_data(record):
    return upper_name(record)
"""
ROWS = [{"id": i, "name": n} for i, n in enumerate(["ann", "bob", "cy"])]


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "cleaning_functions.py").write_text(UPPER)
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return str(tmp_path / "cleaning_functions.py"), str(tmp_path / "in.jsonl")


@pytest.mark.parametrize(
    "suffix, module",
    [
        (".csv", None),
        (".tsv", None),
        (".json", None),
        (".parquet", "pyarrow"),
        (".xlsx", "openpyxl"),
    ],
)
def test_jsonl_input_is_written_in_the_format_the_output_names(files, tmp_path, suffix, module):
    if module:
        from tests.optional_deps import optional

        optional(module)
    functions, source = files
    target = tmp_path / f"out{suffix}"
    result = apply_file(functions, source, str(target), workers=1)
    assert result.records_out == 3 and result.missing_fields == []
    raw = target.read_bytes()
    assert not raw.startswith(b'{"id"')  # not JSONL under another name
    back = list(iter_records(str(target)))
    assert [r["name"] for r in back] == ["ANN", "BOB", "CY"]
    if suffix == ".tsv":
        assert raw.splitlines()[0] == b"id\tname"


@pytest.mark.parametrize("name", ["out.txt", "out", "out.xls", "out.parquet.bak"])
def test_an_output_extension_that_names_no_format_is_refused_before_anything_runs(
    files, tmp_path, name
):
    functions, source = files
    with pytest.raises(ValueError, match=r"cannot tell the output format from .*\.jsonl") as info:
        apply_file(functions, source, str(tmp_path / name), workers=1)
    assert "\n" not in str(info.value)
    assert not (tmp_path / name).exists()


def test_output_format_by_extension():
    assert [output_format(p) for p in ("a.JSONL", "b.ndjson", "c.csv", "d.pq", "e.xlsm")] == [
        "jsonl",
        "jsonl",
        "csv",
        "parquet",
        "excel",
    ]


def test_fields_the_functions_read_but_the_data_lacks_are_warned_about(files, tmp_path):
    functions, _ = files
    other = tmp_path / "products.jsonl"
    other.write_text("".join(json.dumps({"sku": i, "price": 1.5}) + "\n" for i in range(4)))
    events = []
    with pytest.warns(
        UserWarning, match=r"the data has no field 'name' that the cleaning functions read"
    ):
        result = apply_file(
            functions, str(other), str(tmp_path / "out.jsonl"), workers=1, on_progress=events.append
        )
    # record["name"] raises: written unchanged
    assert result.missing_fields == ["name"] and result.failed == 4
    assert [e["missing_fields"] for e in events if e["type"] == "apply_warning"] == [["name"]]


def test_no_warning_when_the_data_has_the_fields(files, tmp_path):
    functions, source = files
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (
            apply_file(functions, source, str(tmp_path / "out.jsonl"), workers=1).missing_fields
            == []
        )


def test_fields_a_function_only_creates_are_not_missing():
    code = (
        UPPER
        + """

def add_flag(record):
    record["flag"] = record.get("name") == "ANN"
    return record
"""
    )
    assert function_fields(code) == ({"name"}, {"flag"})
    assert missing_fields(code, [{"name": "x"}]) == []
    assert missing_fields(code, [{"other": 1}]) == ["name"]
    assert missing_fields(code, []) == []
