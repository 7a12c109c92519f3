"""apply_file / apply_records and the persistent SandboxWorker: order, formats, failures, hostile
code, atomicity."""

from __future__ import annotations

import csv
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from recursive_cleaner.apply import pool as pool_module
from recursive_cleaner.apply.local import ApplyError, apply_file, apply_records
from recursive_cleaner.errors import CleanerError, InputError
from recursive_cleaner.read.parsers import iter_records
from recursive_cleaner.judge.sandbox import SandboxWorker
from tests.encoded_files import CODE as ENCODED_CODE
from tests.encoded_files import RECORD_FORMATS, bad_byte_file
from tests.encoded_files import write as write_encoded

BENCH_FUNCTIONS = Path(__file__).resolve().parents[2] / "bench" / "crm_functions.py"

DOUBLE = '''
def clean_data(record):
    """Add twice i; raise on records marked bad."""
    record = dict(record)
    if record.get("bad"):
        raise ValueError("bad record " + str(record.get("i")))
    record["twice"] = record["i"] * 2
    return record
'''


def functions(tmp_path: Path, code: str = DOUBLE) -> str:
    path = tmp_path / "cleaning_functions.py"
    path.write_text(code)
    return str(path)


def write_jsonl(path: Path, records: list) -> str:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return str(path)


def read_jsonl(path: str) -> list:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def shared_dir():
    """A world-writable directory holding a world-writable victim, so only the sandbox stands in the
    way."""
    path = Path(tempfile.mkdtemp(prefix="rc-apply-test-"))
    path.chmod(0o777)
    victim = path / "victim.txt"
    victim.write_text("precious")
    victim.chmod(0o666)
    yield path
    shutil.rmtree(path, ignore_errors=True)


# --- order, workers, formats ----------------------------------------------------------


def test_order_is_kept_with_several_workers_and_small_batches(tmp_path):
    records = [{"i": i, "pad": "x" * (i % 97)} for i in range(3000)]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    events = []
    result = apply_file(
        functions(tmp_path),
        source,
        str(tmp_path / "out.jsonl"),
        workers=3,
        batch_size=7,
        on_progress=events.append,
    )
    out = read_jsonl(str(tmp_path / "out.jsonl"))
    assert [r["i"] for r in out] == list(range(3000))
    assert all(r["twice"] == 2 * r["i"] and r["pad"] == "x" * (r["i"] % 97) for r in out)
    assert (result.records_in, result.records_out, result.failed, result.skipped_input) == (
        3000,
        3000,
        0,
        0,
    )
    assert result.workers == 3 and not result.trusted and result.seconds > 0
    progress = [e for e in events if e["type"] == "apply_progress"]
    assert progress[-1]["records_out"] == 3000 and len(progress) == -(-3000 // 7)


def test_one_and_two_workers_give_byte_identical_output(tmp_path):
    records = [{"i": i, "name": "Zoë ✓", "bad": i % 500 == 3} for i in range(2500)]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    outputs = []
    for workers in (1, 2):
        target = tmp_path / f"out{workers}.jsonl"
        apply_file(functions(tmp_path), source, str(target), workers=workers, batch_size=100)
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1]
    assert "Zoë ✓".encode() in outputs[0]  # ensure_ascii=False


def test_trusted_workers_give_the_same_output_as_the_sandbox(tmp_path):
    source = str(Path(__file__).resolve().parents[2] / "test_cases" / "crm_customers.jsonl")
    sandboxed, trusted = tmp_path / "sandboxed.jsonl", tmp_path / "trusted.jsonl"
    first = apply_file(str(BENCH_FUNCTIONS), source, str(sandboxed), workers=2, batch_size=16)
    second = apply_file(
        str(BENCH_FUNCTIONS), source, str(trusted), workers=2, batch_size=16, trusted=True
    )
    assert sandboxed.read_bytes() == trusted.read_bytes()
    assert second.trusted and (first.records_out, first.failed) == (
        second.records_out,
        second.failed,
    )
    assert first.records_out == len(list(iter_records(source))) and first.failed == 0
    cleaned = read_jsonl(str(sandboxed))
    assert {r["status"] for r in cleaned} <= {"active", "pending", "churned"}
    assert all(isinstance(r["customer_id"], int) for r in cleaned)


def test_csv_in_csv_out_with_every_key_as_a_column(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("i,name\n" + "".join(f"{i},n{i}\n" for i in range(10)), encoding="utf-8")
    code = """
def clean_data(record):
    record = dict(record)
    i = int(record["i"])
    record["i"] = i
    if i == 1:
        record["first_batch_extra"] = [1, "a"]
    if i == 2:
        record["flag"] = True
        record["none"] = None
    if i == 8:
        record["late"] = "kept, padded before"
    return record
"""
    result = apply_file(
        functions(tmp_path, code), str(source), str(tmp_path / "out.csv"), workers=2, batch_size=4
    )
    rows = list(csv.reader((tmp_path / "out.csv").open(encoding="utf-8", newline="")))
    # a key first seen after the first batch has its column (it used to be dropped: issue 43)
    assert rows[0] == ["i", "name", "first_batch_extra", "flag", "none", "late"]
    assert rows[2] == ["1", "n1", '[1, "a"]', "", "", ""]
    assert rows[3] == ["2", "n2", "", "true", "", ""]
    assert rows[9] == ["8", "n8", "", "", "", "kept, padded before"]
    assert [r[0] for r in rows[1:]] == [str(i) for i in range(10)]
    assert {len(r) for r in rows} == {6}
    assert result.dropped_keys == [] and result.records_out == 10


def test_json_in_json_out(tmp_path):
    source = tmp_path / "in.json"
    source.write_text(
        json.dumps({"data": [{"i": i} for i in range(25)] + [3], "count": 26}), encoding="utf-8"
    )
    result = apply_file(
        functions(tmp_path), str(source), str(tmp_path / "out.json"), workers=2, batch_size=4
    )
    out = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert out == [{"i": i, "twice": 2 * i} for i in range(25)]
    assert (result.records_in, result.skipped_input, result.rejected) == (25, 1, 1)
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    # no record is an error (as generate's), nothing written (issue 43)
    with pytest.raises(InputError, match=r"empty.json has no records \(no record read\)"):
        apply_file(functions(tmp_path), str(empty), str(tmp_path / "empty_out.json"), workers=1)
    assert not (tmp_path / "empty_out.json").exists()


def test_apply_records_in_memory():
    records = ({"i": i, "bad": i == 5} for i in range(40))
    out = list(apply_records(DOUBLE, records, workers=2, batch_size=3))
    assert [r["i"] for r in out] == list(range(40))
    assert out[5] == {"i": 5, "bad": True}  # failed: unchanged
    assert out[6]["twice"] == 12


# --- failures and bad input ---------------------------------------------------------


def test_a_failing_record_is_kept_unchanged_and_counted(tmp_path):
    records = [{"i": i, "bad": i in (4, 11)} for i in range(20)]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    result = apply_file(
        functions(tmp_path), source, str(tmp_path / "out.jsonl"), workers=2, batch_size=5
    )
    out = read_jsonl(str(tmp_path / "out.jsonl"))
    assert (result.records_in, result.records_out, result.failed) == (20, 20, 2)
    assert out[4] == {"i": 4, "bad": True} and out[11] == {"i": 11, "bad": True}
    assert out[5] == {"i": 5, "bad": False, "twice": 10}


def test_failing_records_go_to_the_reject_file_with_their_error(tmp_path):
    code = DOUBLE + "\ndef other(r):\n    return r\n"
    code = code.replace(
        'record["twice"] = record["i"] * 2',
        'record["twice"] = record["i"] * 2\n    if record["i"] == 7:\n        return [1]',
    )
    source = write_jsonl(tmp_path / "in.jsonl", [{"i": i, "bad": i == 3} for i in range(10)])
    rejects = tmp_path / "rejects.jsonl"
    result = apply_file(
        functions(tmp_path, code),
        source,
        str(tmp_path / "out.jsonl"),
        workers=2,
        batch_size=4,
        reject_path=str(rejects),
    )
    assert [r["i"] for r in read_jsonl(str(tmp_path / "out.jsonl"))] == [0, 1, 2, 4, 5, 6, 8, 9]
    assert (result.records_in, result.records_out, result.failed) == (10, 8, 2)
    entries = read_jsonl(str(rejects))
    assert [e["index"] for e in entries] == [3, 7]
    assert entries[0]["record"] == {"i": 3, "bad": True}
    assert entries[0]["error"].startswith("ValueError: bad record 3 (line")
    assert entries[1]["error"] == "TypeError: returned list, expected a dict"


def test_malformed_lines_are_skipped_and_reported_like_parsers_does(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_bytes(
        b'\xef\xbb\xbf{"i": 0}\n{"i": 1\n\n[1, 2]\n{"i": 4, "s": 1\n   \n{"i": 6}\r\n{"i": 7}'
    )
    events = []
    result = apply_file(
        functions(tmp_path),
        str(source),
        str(tmp_path / "out.jsonl"),
        workers=2,
        batch_size=3,
        on_progress=events.append,
    )
    assert [r["i"] for r in read_jsonl(str(tmp_path / "out.jsonl"))] == [0, 6, 7]
    expected: list = []
    list(iter_records(str(source), on_skip=expected.append))
    assert result.skipped == expected and result.skipped_input == 3
    assert [s.line for s in expected] == [2, 4, 5]
    assert [e["line"] for e in events if e["type"] == "record_skipped"] == [2, 4, 5]


def test_bad_arguments():
    with pytest.raises(ValueError, match="batch_size"):
        list(apply_records(DOUBLE, [{"i": 1}], batch_size=0))
    with pytest.raises(ValueError, match="workers"):
        list(apply_records(DOUBLE, [{"i": 1}], workers=0))
    with pytest.raises(ValueError, match="timeout_per_batch"):
        list(apply_records(DOUBLE, [{"i": 1}], timeout_per_batch=0))


# --- hostile code, failures of the whole run, atomic output ---------------------------


@pytest.mark.parametrize(
    "body",
    [
        "    open({victim!r}, 'w').write('gone')",
        "    import os\n    os.remove({victim!r})",
    ],
)
def test_hostile_code_is_refused_by_the_policy_and_by_the_worker(
    tmp_path, shared_dir, body, monkeypatch
):
    victim = str(shared_dir / "victim.txt")
    code = "def clean_data(record):\n" + body.format(victim=victim) + "\n    return record\n"
    source = write_jsonl(tmp_path / "in.jsonl", [{"i": i} for i in range(10)])
    target = tmp_path / "out.jsonl"
    with pytest.raises(ApplyError, match="safety policy"):
        apply_file(functions(tmp_path, code), source, str(target), workers=2)
    # the runtime layer on its own
    monkeypatch.setattr(pool_module, "check_code_safety", lambda code: [])
    with pytest.raises(ApplyError, match=r"lines 1-\d+: refused operation: (open|import os)"):
        apply_file(functions(tmp_path, code), source, str(target), workers=2, batch_size=3)
    assert (shared_dir / "victim.txt").read_text() == "precious"
    # no target, no temp file
    assert sorted(os.listdir(tmp_path)) == ["cleaning_functions.py", "in.jsonl"]


def test_a_failed_run_leaves_the_existing_target_untouched(tmp_path, monkeypatch):
    monkeypatch.setattr(pool_module, "check_code_safety", lambda code: [])
    code = (
        "def clean_data(record):\n    if record['i'] == 250:\n        open('/etc/passwd')\n    "
        "return record\n"
    )
    source = write_jsonl(tmp_path / "in.jsonl", [{"i": i} for i in range(300)])
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    with pytest.raises(ApplyError, match="refused operation: open"):
        apply_file(functions(tmp_path, code), source, str(target), workers=2, batch_size=10)
    assert target.read_text() == "old\n"
    assert sorted(os.listdir(tmp_path)) == ["cleaning_functions.py", "in.jsonl", "out.jsonl"]


def test_load_errors_fail_the_run_clearly(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [{"i": 1}])
    with pytest.raises(ApplyError, match="cannot load .*SyntaxError"):
        apply_file(
            functions(tmp_path, "def clean_data(r)\n    return r\n"),
            source,
            str(tmp_path / "o.jsonl"),
        )
    with pytest.raises(ApplyError, match="does not define a function named 'clean_data'"):
        apply_file(
            functions(tmp_path, "def other(r):\n    return r\n"), source, str(tmp_path / "o.jsonl")
        )
    with pytest.raises(ApplyError, match="does not define a function named 'clean_data'"):
        apply_file(
            functions(tmp_path, "def other(r):\n    return r\n"),
            source,
            str(tmp_path / "o.jsonl"),
            trusted=True,
        )
    assert issubclass(ApplyError, CleanerError) and not (tmp_path / "o.jsonl").exists()


def test_a_batch_over_the_timeout_fails_the_run(tmp_path):
    code = "def clean_data(record):\n    while record['i'] == 2:\n        pass\n    return record\n"
    source = write_jsonl(tmp_path / "in.jsonl", [{"i": i} for i in range(6)])
    with pytest.raises(ApplyError, match="lines 3-4: timed out after 1.0s"):
        apply_file(
            functions(tmp_path, code),
            source,
            str(tmp_path / "out.jsonl"),
            workers=1,
            batch_size=2,
            timeout_per_batch=1.0,
        )
    assert not (tmp_path / "out.jsonl").exists()


def test_output_permissions_follow_the_umask(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [{"i": 1}])
    apply_file(functions(tmp_path), source, str(tmp_path / "out.jsonl"), workers=1)
    mode = stat.S_IMODE((tmp_path / "out.jsonl").stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


# --- the persistent worker itself ---------------------------------------------------------


def test_worker_puts_state_back_between_records_and_reports_per_record_errors():
    """The code loads once; its module state is put back before every record (issue 43)."""
    code = (
        "SEEN = []\ndef clean(r):\n    SEEN.append(1)\n    return {'n': len(SEEN), 'x': 1 / "
        "r['a']}\n"
    )
    with SandboxWorker(code, "clean") as worker:
        assert worker.start().ok
        first = worker.run_batch([{"a": 1}, {"a": 0}, {"a": 4}])
        second = worker.run_batch([{"a": 2}])
    assert first.ok and first.outputs == [{"n": 1, "x": 1.0}, None, {"n": 1, "x": 0.25}]
    assert first.errors[1].startswith("ZeroDivisionError")
    assert second.ok and second.outputs == [{"n": 1, "x": 0.5}]


def test_worker_refusal_is_loud_and_caught_refusals_count(shared_dir):
    victim = str(shared_dir / "victim.txt")
    code = (
        f"def clean(r):\n    try:\n        open({victim!r}, 'w')\n    except Exception:\n        "
        "pass\n    return r"
    )
    worker = SandboxWorker(code, "clean")
    assert worker.start().ok
    result = worker.run_batch([{"a": 1}])
    assert not result.ok and "refused operation: open(" in result.error and worker.closed
    assert (shared_dir / "victim.txt").read_text() == "precious"
    assert not worker.run_batch([{"a": 1}]).ok  # a closed worker answers nothing


def test_worker_load_refusal_and_memory_limit():
    worker = SandboxWorker("import socket\ndef clean(r):\n    return r\n", "clean")
    loaded = worker.start()
    assert (
        not loaded.ok and "import socket" in loaded.error and loaded.violations == ["import socket"]
    )
    worker = SandboxWorker(
        "def clean(r):\n    return {'x': 'x' * 10**10}\n", "clean", memory_mb=256
    )
    assert worker.start().ok
    assert worker.run_batch([{"a": 1}]).error == "memory limit 256 MB exceeded"


def test_a_flood_of_refusals_is_counted_not_kept():
    code = (
        "def clean(r):\n    for _ in range(5000):\n        try:\n            open('/etc/passwd')\n"
        "        except Exception:\n            pass\n    return r"
    )
    worker = SandboxWorker(code, "clean")
    assert worker.start().ok
    result = worker.run_batch([{"a": 1}], timeout=30)
    assert not result.ok and len(result.violations) == 51
    assert result.violations[-1] == "... 4950 more refused operations"
    assert result.error.startswith("refused operation: open('/etc/passwd', 'r') (and 50 more)")


def test_tsv_stays_tsv_and_bad_rows_are_skipped(tmp_path):
    source = tmp_path / "in.tsv"
    source.write_text("i\tname\n0\ta b\n1\n2\tc\n", encoding="utf-8")
    code = "def clean_data(record):\n    return dict(record, i=int(record['i']))\n"
    result = apply_file(
        functions(tmp_path, code), str(source), str(tmp_path / "out.tsv"), workers=1
    )
    assert (tmp_path / "out.tsv").read_bytes() == b"i\tname\r\n0\ta b\r\n2\tc\r\n"
    assert (result.records_out, result.skipped_input, result.skipped[0].line) == (2, 1, 3)


def test_max_failures_raises_past_the_limit_after_writing(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [{"i": i, "bad": i in (3, 7)} for i in range(10)])
    out, rejects = str(tmp_path / "out.jsonl"), str(tmp_path / "rejects.jsonl")
    args = (functions(tmp_path), source, out)
    assert apply_file(*args, workers=1, max_failures=2).failed == 2
    with pytest.raises(ApplyError, match=r"failed on 2 record\(s\) .* max_failures=1 \(in ") as e:
        apply_file(*args, workers=1, max_failures=1, reject_path=rejects)
    assert e.value.result.failed == 2 and len(read_jsonl(rejects)) == 2
    assert len(read_jsonl(out)) == 8


@pytest.mark.parametrize(
    ("fmt", "encoding"),
    [(f, "utf-16") for f in RECORD_FORMATS] + [("jsonl", "cp1252"), ("csv", "latin-1")],
)
def test_apply_with_an_encoding_writes_what_the_utf8_file_gives(tmp_path, fmt, encoding):
    """The workers see UTF-8 (the parent transcodes); the output is UTF-8 either way."""
    code = functions(tmp_path, ENCODED_CODE)
    outputs = []
    for enc in ("utf-8", encoding):
        out = tmp_path / f"out-{enc}.{fmt}"
        source = str(write_encoded(tmp_path, fmt, enc))
        result = apply_file(code, source, str(out), workers=1, batch_size=2, encoding=enc)
        assert (result.records_in, result.records_out, result.failed) == (7, 7, 0)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and "ZÜRICH" in list(iter_records(str(out)))[1]["city"]


@pytest.mark.parametrize("fmt", RECORD_FORMATS)
def test_apply_stops_on_a_byte_that_does_not_decode_writing_nothing(tmp_path, fmt):
    source, line, offset = bad_byte_file(tmp_path, fmt, "utf-8", b"\xe9")
    out = tmp_path / "out.jsonl"
    with pytest.raises(CleanerError) as info:
        apply_file(
            functions(tmp_path, ENCODED_CODE), str(source), str(out), workers=1, batch_size=2
        )
    assert str(info.value).startswith(f"{source}: line {line}: byte 0xe9 at byte offset {offset} ")
    assert "--encoding latin-1" in str(info.value) and not out.exists()


def test_max_failures_holds_for_records_too():
    rows = [{"i": i, "bad": i in (3, 7)} for i in range(10)]
    assert len(list(apply_records(DOUBLE, rows, workers=1, max_failures=2))) == 10
    with pytest.raises(ApplyError, match=r"failed on 2 record\(s\) of the input, more than") as e:
        list(apply_records(DOUBLE, rows, workers=1, max_failures=1))
    assert e.value.result.failed == 2
    assert len(list(apply_records(DOUBLE, rows, workers=1))) == 10  # no limit by default
