"""apply_dask on a real dask.distributed LocalCluster (2 worker processes): byte-identical to
apply_file, sandboxed."""

from __future__ import annotations

import codecs
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from recursive_cleaner.apply import pool as pool_module
from recursive_cleaner.apply.local import ApplyError, apply_file
from recursive_cleaner.apply.on_dask import apply_dask
from recursive_cleaner.write.module import _cross_row_block
from tests.encoded_files import CODE as ENCODED_CODE
from tests.encoded_files import write as write_encoded
from tests.optional_deps import optional

optional("dask.bag")
distributed = optional("distributed")

# Pure, raises on one record, and adds keys: "nick" in the first batch (kept in the CSV header),
# "late" only from record 20 on (its CSV column added when first seen: the file rewritten once).
CODE = '''
def clean_data(record):
    """Trim and title-case the name; raise on the record named boom."""
    record = dict(record)
    if str(record.get("name", "")).strip() == "boom":
        raise ValueError("boom at " + str(record.get("id")))
    record["name"] = str(record.get("name", "")).strip().title()
    if str(record.get("id")) == "1":
        record["nick"] = "first"
    if int(record.get("id", 0)) >= 20:
        record["late"] = True
    return record
'''

JSONL_LINES = [
    json.dumps({"id": i, "name": f"  person {i} é"}, ensure_ascii=False) for i in range(34)
]
JSONL_LINES[3] = "not json"
JSONL_LINES[7] = ""
JSONL_LINES[11] = "[1, 2]"
JSONL_LINES[15] = json.dumps({"id": 15, "name": "boom"})
JSONL_LINES[22] = json.dumps({"id": 22, "name": "ünïcode \u2028 line sep", "n": 1.5e300})


def jsonl_bytes() -> bytes:
    # BOM, a raw control character (invalid JSON), and no newline after the last line
    body = "\n".join(JSONL_LINES).encode("utf-8").replace(b"  person 30", b"  person \x0130")
    return codecs.BOM_UTF8 + body


def csv_bytes() -> bytes:
    rows = ["id,name,note"]
    for i in range(30):
        if i == 4:
            rows.append('4,"  two\nlines",x')  # a quoted newline
        elif i == 9:
            rows.append("9,too,many,fields")  # skipped and reported
        elif i == 13:
            rows.append("13,boom,")
        elif i == 17:
            rows.append("")  # a blank line
            rows.append('17,"quote ""inside""","a,b"')
        else:
            rows.append(f"{i},  name {i} ü,n{i}")
    return codecs.BOM_UTF8 + "\r\n".join(rows).encode("utf-8") + b"\r\n"


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c


@pytest.fixture
def shared_dir():
    """A world-writable directory holding a world-writable victim, so only the sandbox stands in the
    way."""
    path = Path(tempfile.mkdtemp(prefix="rc-dask-test-"))
    path.chmod(0o777)
    victim = path / "victim.txt"
    victim.write_text("precious")
    victim.chmod(0o666)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    (src / "people.jsonl").write_bytes(jsonl_bytes())
    (src / "people.csv").write_bytes(csv_bytes())
    (tmp_path / "cleaning_functions.py").write_text(CODE)
    return tmp_path


def reference(data: Path, name: str, **options) -> tuple[bytes, object]:
    """apply_file's output bytes and result for one input file."""
    target = data / "ref" / name
    result = apply_file(
        str(data / "cleaning_functions.py"),
        str(data / "in" / name),
        str(target),
        workers=1,
        batch_size=3,
        **options,
    )
    return target.read_bytes(), result


def test_jsonl_and_csv_outputs_are_byte_identical_to_apply_file(data, client):
    result = apply_dask(
        str(data / "cleaning_functions.py"),
        str(data / "in" / "people.*"),
        str(data / "out"),
        client=client,
        batch_size=3,
        partition_size=5,
    )
    assert result.partitions >= 8 and result.workers == 2 and not result.trusted
    assert sorted(os.listdir(data / "out")) == ["people.csv", "people.jsonl"]
    totals = [0, 0, 0, 0]
    for name in ("people.jsonl", "people.csv"):
        expected, ref = reference(data, name)
        source = str(data / "in" / name)
        assert (data / "out" / name).read_bytes() == expected, name
        mine = result.files[source]
        assert result.outputs[source] == str(data / "out" / name)
        assert (mine.records_in, mine.records_out, mine.failed, mine.skipped_input) == (
            ref.records_in,
            ref.records_out,
            ref.failed,
            ref.skipped_input,
        )
        assert mine.skipped == ref.skipped and mine.dropped_keys == ref.dropped_keys
        for i, value in enumerate((ref.records_in, ref.records_out, ref.failed, ref.skipped_input)):
            totals[i] += value
    assert [result.records_in, result.records_out, result.failed, result.skipped_input] == totals
    # 3 JSONL lines (+ the blank one, silent), 1 CSV row
    assert result.failed == 2 and result.skipped_input == 4
    # a key first seen late has its CSV column, as in apply_file (issue 43: it was dropped)
    assert result.dropped_keys == []
    assert b'"late": true' in (data / "out" / "people.jsonl").read_bytes()
    assert (data / "out" / "people.csv").read_bytes().splitlines()[0].endswith(b",late")


def test_rejects_match_apply_file_with_file_wide_indices(data, client):
    events = []
    for name in ("people.jsonl", "people.csv"):
        target = data / "one" / name
        result = apply_dask(
            str(data / "cleaning_functions.py"),
            str(data / "in" / name),
            str(target),
            client=client,
            batch_size=3,
            partition_size=3,
            reject_dir=str(data / "rejects"),
            on_progress=events.append,
        )
        expected, ref = reference(data, name, reject_path=str(data / "ref" / f"{name}.rejects"))
        assert target.read_bytes() == expected
        rejects = (data / "rejects" / f"{name}.rejects.jsonl").read_bytes()
        assert rejects == (data / "ref" / f"{name}.rejects").read_bytes()
        entries = [json.loads(line) for line in rejects.splitlines()]
        # counted over the file, not over the part
        assert [e["index"] for e in entries if "index" in e][0] > 3
        # the rows that could not be read are there too, with their file's line (issue 43)
        lines = [e["line"] for e in entries if "line" in e]
        assert lines == [s.line for s in ref.skipped] and len(lines) == ref.skipped_input > 0
        assert (result.records_out, result.failed) == (ref.records_out, ref.failed)
    assert events and all(e["type"] == "apply_progress" for e in events)


def test_generated_code_runs_in_sandbox_workers_not_in_dask_workers(
    data, client, monkeypatch, shared_dir
):
    victim = shared_dir / "victim.txt"
    code = (
        f"def clean_data(record):\n    open({str(victim)!r}, 'w').write('gone')\n    return "
        "record\n"
    )
    (data / "cleaning_functions.py").write_text(code)
    args = (
        str(data / "cleaning_functions.py"),
        str(data / "in" / "people.jsonl"),
        str(data / "out.jsonl"),
    )
    with pytest.raises(ApplyError, match="safety policy"):
        apply_dask(*args, client=client)
    # without the AST policy (here and on every Dask worker), the sandbox's runtime refusals stop it
    monkeypatch.setattr(pool_module, "check_code_safety", lambda code: [])
    client.run(_set_policy, False)
    try:
        with pytest.raises(
            ApplyError, match=r"people\.jsonl: lines \d+-\d+: refused operation: open"
        ):
            apply_dask(*args, client=client, batch_size=3, partition_size=3)
    finally:
        client.run(_set_policy, True)
    assert victim.read_text() == "precious"
    assert not (data / "out.jsonl").exists() and not [
        p for p in os.listdir(data) if p.startswith(".out")
    ]


def _set_policy(on: bool) -> None:
    """On a Dask worker: turn apply's AST policy check off or back on."""
    from recursive_cleaner.apply import pool
    from recursive_cleaner.judge import validation

    pool.check_code_safety = validation.check_code_safety if on else (lambda code: [])


def test_threaded_scheduler_without_a_client_and_trusted_workers(data):
    target = data / "threads.csv"
    result = apply_dask(
        str(data / "cleaning_functions.py"),
        str(data / "in" / "people.csv"),
        str(target),
        batch_size=3,
        partition_size=7,
        trusted=True,
    )
    expected, _ = reference(data, "people.csv")
    # 29 records, 9 a part
    assert target.read_bytes() == expected and result.trusted and result.partitions == 4


def test_cross_row_steps_run_on_the_threaded_scheduler_unless_turned_off(data):
    # as output writes it: the steps, and clean_dataset (never run)
    functions = data / "cleaning_functions.py"
    functions.write_text(
        CODE + "\n\n" + _cross_row_block([{"kind": "dedup", "key": ["name"], "asked": True}]) + "\n"
    )
    args = (str(functions), str(data / "in" / "people.jsonl"), str(data / "steps.jsonl"))
    result = apply_dask(*args, batch_size=3, partition_size=6)
    expected, ref = reference(data, "people.jsonl")
    assert (data / "steps.jsonl").read_bytes() == expected and result.cross_row_steps == [
        "cross_row[0]:dedup(name)"
    ]
    assert (
        result.dropped_duplicates == ref.dropped_duplicates
        and result.records_out == ref.records_out
    )
    # clean_data only, as with apply_file
    apply_dask(*args, batch_size=3, partition_size=6, cross_row=False)
    expected, _ = reference(data, "people.jsonl", cross_row=False)
    assert (data / "steps.jsonl").read_bytes() == expected


def test_bad_arguments_fail_before_any_task(data):
    functions = str(data / "cleaning_functions.py")
    with pytest.raises(FileNotFoundError, match="no file matches"):
        apply_dask(functions, str(data / "in" / "*.parquet"), str(data / "out"))
    with pytest.raises(ValueError, match="overwrite its input"):
        apply_dask(functions, str(data / "in" / "people.csv"), str(data / "in"))
    with pytest.raises(ValueError, match="partition_size"):
        apply_dask(
            functions, str(data / "in" / "people.csv"), str(data / "o.csv"), partition_size=0
        )
    (data / "in" / "notes.txt").write_text("text")
    with pytest.raises(ValueError, match="not 'text'"):
        apply_dask(functions, [str(data / "in" / "notes.txt")], str(data / "out"))
    (data / "other").mkdir()
    (data / "other" / "people.csv").write_bytes(csv_bytes())
    with pytest.raises(ValueError, match="would both be written"):
        apply_dask(
            functions,
            [str(data / "in" / "people.csv"), str(data / "other" / "people.csv")],
            str(data / "o"),
        )
    assert not (data / "out").exists() and not (data / "o").exists()


def test_without_dask_the_error_says_what_to_install(data, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    monkeypatch.setitem(sys.modules, "dask.bag", None)
    with pytest.raises(ModuleNotFoundError) as info:
        apply_dask(
            str(data / "cleaning_functions.py"),
            str(data / "in" / "people.csv"),
            str(data / "o.csv"),
        )
    assert str(info.value) == "apply_dask needs dask: pip install 'recursive-data-cleaner[dask]'"


@pytest.mark.parametrize(("fmt", "encoding"), [("jsonl", "utf-16"), ("csv", "cp1252")])
def test_an_encoded_file_on_dask_gives_apply_files_bytes(tmp_path, fmt, encoding):
    code = tmp_path / "cf.py"
    code.write_text(ENCODED_CODE)
    source = str(write_encoded(tmp_path, fmt, encoding))
    apply_file(str(code), source, str(tmp_path / f"ref.{fmt}"), workers=1, encoding=encoding)
    result = apply_dask(
        str(code), source, str(tmp_path / f"dask.{fmt}"), batch_size=2, encoding=encoding
    )
    assert result.partitions == 1 and result.records_out == 7  # a transcoded file: one part
    assert (tmp_path / f"dask.{fmt}").read_bytes() == (tmp_path / f"ref.{fmt}").read_bytes()
