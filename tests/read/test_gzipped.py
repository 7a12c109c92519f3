"""gzip-compressed JSONL and CSV (read/formats/gzipped.py): generate, apply, the CLI and Dask, as
the plain formats."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.errors import InputError
from recursive_cleaner.read.parsers import count_chunks, count_records, iter_chunks, iter_records
from tests.fakes import CLEAN_REPLY, FakeBackend

ROWS = [{"id": i, "name": f"  user {i} ", "email": f"User{i}@Example.COM"} for i in range(11)]
CODE = """
def clean_data(record):
    record = dict(record)
    record["name"] = str(record["name"]).strip().title()
    record["email"] = str(record["email"]).lower()
    if str(record["id"]) == "7":
        record["late"] = True
    return record
"""


def jsonl_text(rows=ROWS) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def csv_text(rows=ROWS, delimiter=",") -> str:
    keys = list(rows[0])
    return "".join(
        delimiter.join(str(r[k]) for k in keys) + "\r\n" for r in [dict(zip(keys, keys))] + rows
    )


def gz(path: Path, text: str) -> Path:
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    return path


@pytest.fixture
def work(tmp_path: Path) -> Path:
    gz(tmp_path / "people.jsonl.gz", jsonl_text())
    gz(tmp_path / "people.csv.gz", csv_text())
    (tmp_path / "people.jsonl").write_text(jsonl_text())
    (tmp_path / "people.csv").write_text(csv_text(), newline="")
    (tmp_path / "cf.py").write_text(CODE)
    return tmp_path


def test_reading_is_the_plain_formats_reading(work):
    for plain in ("people.jsonl", "people.csv"):
        packed = str(work / f"{plain}.gz")
        assert list(iter_records(packed)) == list(iter_records(str(work / plain)))
        assert list(iter_chunks(packed, 4)) == list(iter_chunks(str(work / plain), 4))
        assert count_records(packed) == 11 and count_chunks(packed, 4) == 3


def test_skips_and_encoding_errors_name_the_file_and_line(tmp_path):
    source = gz(tmp_path / "bad.ndjson.gz", '{"a": 1}\n[1]\n{oops\n\n{"a": 2}\n')
    skipped: list = []
    assert list(iter_records(str(source), on_skip=skipped.append)) == [{"a": 1}, {"a": 2}]
    assert [(s.line, s.reason.split(":")[0]) for s in skipped] == [
        (2, "valid JSON but not an object (got array)"),
        (3, "invalid JSON"),
    ]
    tsv = gz(tmp_path / "t.tsv.gz", "a\tb\n1\t2\n3\n")
    skipped = []
    assert list(iter_records(str(tsv), on_skip=skipped.append)) == [{"a": "1", "b": "2"}]
    assert skipped[0].line == 3 and "expected 2 fields" in skipped[0].reason
    latin = tmp_path / "latin.csv.gz"
    latin.write_bytes(gzip.compress(b"a,b\n1,caf\xe9\n"))
    with pytest.raises(InputError, match=r"latin\.csv\.gz: line 2: byte 0xe9 at byte offset 9"):
        list(iter_records(str(latin)))


def test_a_damaged_or_cut_stream_is_an_input_error(tmp_path):
    whole = gzip.compress(jsonl_text().encode())
    (tmp_path / "cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "plain.csv.gz").write_text("a,b\n1,2\n")  # not compressed at all
    for name in ("cut.jsonl.gz", "plain.csv.gz"):
        with pytest.raises(InputError, match=f"{name}: not a readable gzip file"):
            list(iter_records(str(tmp_path / name)))
        with pytest.raises(InputError, match="not a readable gzip file"):
            count_records(str(tmp_path / name))


def test_generate_reads_a_jsonl_gz_file(work):
    backend = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(work / "people.jsonl.gz"),
        chunk_size=4,
        output_path=str(work / "out.py"),
        report_path=None,
        sleep=lambda s: None,
        call_every_chunk=True,  # the model shown each chunk (issue 45: else no call is needed)
    ).run()
    assert result.chunks_total == 3 and result.chunks_processed == 3
    assert any("User3@Example.COM" in prompt for prompt in backend.history)


def test_apply_file_csv_gz_round_trip_matches_the_plain_csv(work):
    result = apply_file(
        str(work / "cf.py"),
        str(work / "people.csv.gz"),
        str(work / "out.csv.gz"),
        workers=2,
        batch_size=3,
    )
    plain = apply_file(
        str(work / "cf.py"),
        str(work / "people.csv"),
        str(work / "out.csv"),
        workers=1,
        batch_size=3,
    )
    packed = (work / "out.csv.gz").read_bytes()
    assert packed[:2] == b"\x1f\x8b" and gzip.decompress(packed) == (work / "out.csv").read_bytes()
    assert (
        (result.records_in, result.records_out, result.dropped_keys)
        == (11, 11, [])  # "late", first seen after the first batch, has its column (issue 43)
        == (plain.records_in, plain.records_out, plain.dropped_keys)
    )
    back = list(iter_records(str(work / "out.csv.gz")))
    assert [r["name"] for r in back] == [f"User {i}" for i in range(11)]
    again = apply_file(
        str(work / "cf.py"),
        str(work / "people.csv.gz"),
        str(work / "again.csv.gz"),
        workers=1,
        batch_size=3,
    )
    # no name, no time inside
    assert (work / "again.csv.gz").read_bytes() == packed and again.records_out == 11


def test_apply_file_between_plain_and_gzip_jsonl_and_tsv(work):
    apply_file(
        str(work / "cf.py"), str(work / "people.jsonl.gz"), str(work / "out.tsv.gz"), workers=1
    )
    lines = gzip.decompress((work / "out.tsv.gz").read_bytes()).decode().splitlines()
    assert lines[0] == "id\tname\temail\tlate" and lines[1] == "0\tUser 0\tuser0@example.com\t"
    apply_file(
        str(work / "cf.py"), str(work / "people.jsonl"), str(work / "out.ndjson.gz"), workers=1
    )
    apply_file(str(work / "cf.py"), str(work / "people.jsonl"), str(work / "out.jsonl"), workers=1)
    assert (
        gzip.decompress((work / "out.ndjson.gz").read_bytes()) == (work / "out.jsonl").read_bytes()
    )


def test_a_failed_apply_leaves_no_gzip_output(work, monkeypatch):
    from recursive_cleaner.apply import pool
    from recursive_cleaner.apply.local import ApplyError

    # the sandbox refuses it at record 9
    monkeypatch.setattr(pool, "check_code_safety", lambda code: [])

    (work / "bad.py").write_text(
        "def clean_data(record):\n    if record['id'] == 9:\n"
        "        open('/etc/passwd')\n    return record\n"
    )
    target = work / "out.csv.gz"
    with pytest.raises(ApplyError, match="refused operation"):  # after two batches were written
        apply_file(
            str(work / "bad.py"),
            str(work / "people.jsonl.gz"),
            str(target),
            workers=1,
            batch_size=3,
        )
    with pytest.raises(ValueError, match="cannot tell the output format"):
        apply_file(str(work / "cf.py"), str(work / "people.jsonl.gz"), str(work / "out.parquet.gz"))
    assert not target.exists() and not (work / "out.parquet.gz").exists()
    assert not [p.name for p in work.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_cli_apply_writes_a_gz_output(work, monkeypatch):
    from click.testing import CliRunner

    from recursive_cleaner.ui.cli import cli

    monkeypatch.chdir(work)
    try:
        runner = CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(
        cli, ["apply", "cf.py", "people.csv.gz", "-o", "clean.jsonl.gz", "--workers", "1"]
    )
    assert result.exit_code == 0, result.stderr
    assert "wrote clean.jsonl.gz: 11 of 11 records" in result.stdout
    back = [
        json.loads(line)
        for line in gzip.decompress((work / "clean.jsonl.gz").read_bytes()).splitlines()
    ]
    assert [r["email"] for r in back] == [f"user{i}@example.com" for i in range(11)]
    # -o's help lists the registry's
    assert ".jsonl.gz" in runner.invoke(cli, ["apply", "--help"]).output
    result = runner.invoke(
        cli, ["apply", "cf.py", "people.csv.gz", "-o", "clean.json.gz", "--workers", "1"]
    )
    assert result.exit_code == 1 and "cannot tell the output format" in result.stderr
    (work / "cut.csv.gz").write_bytes(gzip.compress(csv_text().encode())[:40])
    result = runner.invoke(
        cli, ["apply", "cf.py", "cut.csv.gz", "-o", "clean.csv", "--workers", "1"]
    )
    assert result.exit_code == 1 and "cut.csv.gz: not a readable gzip file" in result.stderr
    assert "Traceback" not in result.stderr


def test_dask_apply_is_byte_identical_to_apply_file(work):
    from tests.optional_deps import optional

    optional("dask.bag")
    from recursive_cleaner.apply.on_dask import apply_dask
    from recursive_cleaner.write.module import _cross_row_block

    for name in ("people.jsonl.gz", "people.csv.gz"):
        apply_file(
            str(work / "cf.py"),
            str(work / name),
            str(work / f"ref.{name}"),
            workers=1,
            batch_size=3,
        )
        result = apply_dask(
            str(work / "cf.py"),
            str(work / name),
            str(work / f"dask.{name}"),
            batch_size=3,
            partition_size=3,
        )
        assert result.partitions == 1  # a gzip stream is read from its start: one part
        assert (work / f"dask.{name}").read_bytes() == (work / f"ref.{name}").read_bytes(), name
        assert result.records_out == 11
    steps = work / "steps.py"  # cross-row steps: dask_fit's per-part passes and writer
    steps.write_text(
        CODE + "\n\n" + _cross_row_block([{"kind": "dedup", "key": ["late"], "asked": True}]) + "\n"
    )
    apply_file(
        str(steps),
        str(work / "people.csv.gz"),
        str(work / "ref.steps.csv.gz"),
        workers=1,
        batch_size=3,
    )
    result = apply_dask(
        str(steps), str(work / "people.csv.gz"), str(work / "dask.steps.csv.gz"), batch_size=3
    )
    assert (work / "dask.steps.csv.gz").read_bytes() == (work / "ref.steps.csv.gz").read_bytes()
    assert result.cross_row_steps == ["cross_row[0]:dedup(late)"]
