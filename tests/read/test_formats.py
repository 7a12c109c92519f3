"""The format registry (read/formats): one door, detection by extension, what apply and the CLI read
from it."""

from __future__ import annotations

import json
from typing import BinaryIO, Iterator

import pytest

from recursive_cleaner import _extras
from recursive_cleaner.apply.fields import OUTPUT_EXTENSIONS, output_format
from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.read import formats
from recursive_cleaner.read.formats import Format, Part, register, unregister
from recursive_cleaner.read.parsers import (
    FORMATS,
    count_records,
    detect_format,
    iter_chunks,
    iter_records,
)


def test_the_built_ins_are_registered_in_order_and_the_old_constant_stays():
    assert formats.names()[:6] == FORMATS == ("jsonl", "csv", "json", "text", "parquet", "excel")
    assert {"jsonl.gz", "csv.gz"} <= set(formats.names())
    assert formats.get("csv") is formats.REGISTRY["csv"] and formats.find("xml") is None
    with pytest.raises(ValueError, match="unknown format 'xml'; expected one of jsonl, csv"):
        formats.get("xml")


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("a.jsonl", "jsonl"),
        ("a.NDJSON", "jsonl"),
        ("a.csv", "csv"),
        ("a.TSV", "csv"),
        ("a.json", "json"),
        ("a.pq", "parquet"),
        ("old.xls", "excel"),
        ("a.txt", "text"),
        ("noext", "text"),
        (".jsonl", "text"),
        ("dir.v2/a.log", "text"),
        ("a.jsonl.gz", "jsonl.gz"),
        ("A.NDJSON.GZ", "jsonl.gz"),
        ("a.csv.gz", "csv.gz"),
        ("a.tsv.gz", "csv.gz"),
        ("a.json.gz", "text"),
        ("a.tar.gz", "text"),
        ("data.v2.csv", "csv"),
    ],
)
def test_detection_by_extension_two_suffixes_first(name, fmt):
    assert formats.detect(name).name == detect_format(name) == fmt


def test_output_extensions_come_from_the_formats():
    assert OUTPUT_EXTENSIONS[".tsv"] == "csv" and OUTPUT_EXTENSIONS[".csv.gz"] == "csv.gz"
    assert ".xls" not in OUTPUT_EXTENSIONS and len(OUTPUT_EXTENSIONS) == len(
        dict(OUTPUT_EXTENSIONS)
    )
    assert output_format("x/OUT.TSV.GZ") == "csv.gz" and output_format("x.xlsm") == "excel"
    for bad in ("old.xls", "x.txt", "x.json.gz", "x.gz"):
        with pytest.raises(ValueError, match=r"cannot tell the output format .* \.csv\.gz"):
            output_format(bad)


def test_the_extras_hint_of_the_optional_formats():
    for name in ("parquet", "excel"):
        fmt = formats.get(name)
        assert _extras.EXTRAS[fmt.module] == fmt.extra  # the same extra _extras.require names
        assert fmt.install_hint == f"pip install 'recursive-data-cleaner[{fmt.extra}]'"
    assert formats.get("jsonl").install_hint == "" and formats.get("csv.gz").install_hint == ""


def test_register_refuses_a_taken_name_or_extension():
    class Again(Format):
        name = "csv"

    class Steals(Format):
        name = "steals"
        extensions = (".tsv",)

    class Odd(Format):
        name = "odd"
        extensions = ("CSV",)

    for fmt, match in (
        (Again(), "new name"),
        (Steals(), "already names the csv format"),
        (Odd(), "lower case"),
    ):
        with pytest.raises(ValueError, match=match):
            register(fmt)
    assert "steals" not in formats.names() and formats.detect("a.tsv").name == "csv"


class PipeFormat(Format):
    """A plug-in: '|'-separated key=value pairs, one record a line, written back the same way."""

    name = "pipes"
    extensions = writes = (".pipes",)

    def records(self, path: str, on_skip, block_size: int) -> Iterator[dict]:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield dict(pair.split("=", 1) for pair in line.rstrip("\n").split("|"))

    def plan(self, path: str, batch_size: int, per_batches: int) -> list[Part]:
        return [Part(path, self.name)]

    def writer(self, out: BinaryIO, path: str):
        return _PipeWriter(out)


class _PipeWriter:
    def __init__(self, out: BinaryIO) -> None:
        self.out = out

    def write(self, payload: bytes, count: int) -> None:
        for text in payload.split(b"\n") if count else ():
            record = json.loads(text)
            self.out.write("|".join(f"{k}={v}" for k, v in record.items()).encode() + b"\n")

    def finish(self) -> None:
        pass


@pytest.fixture
def pipes():
    fmt = register(PipeFormat())
    yield fmt
    unregister(fmt.name)
    assert formats.find("pipes") is None and formats.detect("a.pipes").name == "text"


def test_a_plug_in_format_is_read_applied_and_written_through_the_registry(tmp_path, pipes):
    source = tmp_path / "in.pipes"
    source.write_text("a=1|b= x \n\na=2|b=y\n", encoding="utf-8")
    assert detect_format(source) == "pipes" and count_records(str(source)) == 2
    assert list(iter_records(str(source))) == [{"a": "1", "b": " x "}, {"a": "2", "b": "y"}]
    assert list(iter_chunks(str(source), 1)) == [[{"a": "1", "b": " x "}], [{"a": "2", "b": "y"}]]
    functions = tmp_path / "cf.py"
    functions.write_text(
        "def clean_data(record):\n    record = dict(record)\n"
        "    record['b'] = record['b'].strip()\n    return record\n"
    )
    result = apply_file(str(functions), str(source), str(tmp_path / "out.pipes"), workers=1)
    assert result.records_out == 2 and (tmp_path / "out.pipes").read_text() == "a=1|b=x\na=2|b=y\n"
    apply_file(str(functions), str(source), str(tmp_path / "out.jsonl"), workers=1)
    assert (tmp_path / "out.jsonl").read_text().splitlines() == [
        '{"a": "1", "b": "x"}',
        '{"a": "2", "b": "y"}',
    ]


def test_apply_names_what_it_reads_from_the_registry(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("Just prose.")
    functions = tmp_path / "cf.py"
    functions.write_text("def clean_data(record):\n    return record\n")
    with pytest.raises(
        ValueError,
        match=r"reads jsonl, csv, json, parquet, excel, jsonl\.gz, csv\.gz files, "
        r"not 'text'",
    ):
        apply_file(str(functions), str(text), str(tmp_path / "out.jsonl"))
