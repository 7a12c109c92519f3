"""apply_file / apply_records with CROSS_ROW_STEPS (two passes) and the audit log of every changed
cell."""

from __future__ import annotations

import copy
import csv
import importlib.util
import json
import os
from pathlib import Path

import pytest

from recursive_cleaner.apply import cross_row as _apply_cross_row
from recursive_cleaner.apply import pool as pool_module
from recursive_cleaner.apply.local import ApplyError, apply_file, apply_records
from recursive_cleaner.crossrow.steps import CrossRowStep, Fitted, apply_steps
from recursive_cleaner.write.module import render_module
from recursive_cleaner.read.parsers import iter_records
from recursive_cleaner.write.report import ReportData, render_report
from tests.optional_deps import write_table_file

FUNCS = [
    {
        "name": "strip_name",
        "code": "def strip_name(record):\n"
        "    record['name'] = str(record.get('name') or '').strip()\n"
        "    return record\n",
    },
    {
        "name": "lower_email",
        "code": "def lower_email(record):\n"
        "    if record.get('email'):\n"
        "        record['email'] = record['email'].strip().lower()\n"
        "    return record\n",
    },
    {
        "name": "tidy_city",
        "code": "def tidy_city(record):\n"
        "    if record.get('bad'):\n"
        "        raise ValueError('bad record')\n"
        "    record['city'] = ' '.join(str(record.get('city') or '').split()).title()\n"
        "    return record\n",
    },
    {
        "name": "drop_junk",
        "code": "def drop_junk(record):\n"
        "    record.pop('junk', None)\n"
        "    record['checked'] = True\n"
        "    return record\n",
    },
]
STEPS = [
    {"kind": "majority", "key": ["provider_number"], "fields": ["city"]},
    {"kind": "dedup", "key": ["email"], "asked": True},
]
MAJORITY, DEDUP = "cross_row[0]:majority(provider_number)", "cross_row[1]:dedup(email)"
CITIES = [
    "Springfield",
    "Shelbyville",
    "Ogdenville",
    "North Haverbrook",
    "Capital City",
    "Brockway",
]


def make_records(n: int = 120, *, bad: bool = True) -> list[dict]:
    """Providers 0-5 with one city each (every 7th row a wrong one), emails repeating after 90
    rows."""
    rows = []
    for i in range(n):
        p = i % 6
        city = CITIES[(p + 1) % 6] if i % 7 == 3 else CITIES[p]
        rows.append(
            {
                "id": i,
                "name": f"  Name {i} ",
                "email": f" User{i % 90}@Example.COM",
                "provider_number": str(p),
                "city": f" {city.lower()} " if i % 4 == 0 else city,
                "junk": f"x{i}",
            }
        )
    if bad:
        rows[50]["bad"] = True  # clean_data raises: written unchanged (or rejected)
    return rows


def functions_file(tmp_path: Path, steps: list | None = STEPS, funcs: list | None = None) -> str:
    path = tmp_path / "cleaning_functions.py"
    path.write_text(render_module(funcs or FUNCS, cross_row=steps))
    return str(path)


def load(path: str):
    spec = importlib.util.spec_from_file_location("cf_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def per_record(module, records: list) -> list:
    """clean_data on each record as apply does it: a failed record is kept unchanged."""
    out = []
    for record in records:
        try:
            out.append(module.clean_data(copy.deepcopy(record)))
        except ValueError:
            out.append(record)
    return out


def reference(path: str, records: list) -> list:
    module = load(path)
    return apply_steps(
        [CrossRowStep.from_dict(s) for s in module.CROSS_ROW_STEPS], per_record(module, records)
    )


def write_jsonl(path: Path, records: list, extra: str = "") -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + extra, encoding="utf-8")
    return str(path)


def read_jsonl(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def rebuild(dirty: list, log: list) -> list:
    """Apply the logged changes in order to the dirty records; drop the dropped and rejected
    rows."""
    records, gone = [dict(r) for r in dirty], set()
    for entry in log:
        row = entry["row"]
        if entry["kind"] in ("dropped", "rejected"):
            gone.add(row)
        elif entry["kind"] == "removed":
            del records[row][entry["field"]]
        else:
            assert entry["kind"] in ("changed", "added")
            records[row][entry["field"]] = entry["new"]
    return [r for i, r in enumerate(records) if i not in gone]


# --- two passes ------------------------------------------------------------------------


def test_two_passes_give_apply_steps_of_clean_data_in_input_order(tmp_path):
    records = make_records()
    path = functions_file(tmp_path)
    source = write_jsonl(tmp_path / "in.jsonl", records)
    events = []
    result = apply_file(
        path,
        source,
        str(tmp_path / "out.jsonl"),
        workers=2,
        batch_size=7,
        on_progress=events.append,
    )
    out = read_jsonl(tmp_path / "out.jsonl")
    expected = reference(path, records)
    assert out == expected
    assert [r["id"] for r in out] == sorted(r["id"] for r in out)  # order kept
    assert result.records_in == 120 and result.failed == 1
    assert result.dropped_duplicates == 30 and result.records_out == 90 == len(out)
    assert result.cross_row_steps == [MAJORITY, DEDUP]
    assert result.cross_row_changed[MAJORITY]["city"] > 0 and DEDUP not in result.cross_row_changed
    assert result.changes_by_step == {} and result.audit_rows == 0  # no audit asked for
    done = [e for e in events if e["type"] == "apply_complete"]
    assert len(done) == 1 and done[0]["dropped_duplicates"] == 30 and done[0]["records_out"] == 90
    # temp file removed
    assert sorted(os.listdir(tmp_path)) == ["cleaning_functions.py", "in.jsonl", "out.jsonl"]


def test_cross_row_false_runs_clean_data_only(tmp_path):
    records = make_records(bad=False)
    path = functions_file(tmp_path)
    source = write_jsonl(tmp_path / "in.jsonl", records)
    result = apply_file(path, source, str(tmp_path / "out.jsonl"), workers=1, cross_row=False)
    assert read_jsonl(tmp_path / "out.jsonl") == per_record(load(path), records)
    assert (
        result.cross_row_steps == []
        and result.dropped_duplicates == 0
        and result.records_out == 120
    )
    out = list(apply_records(Path(path).read_text(), records, workers=1, cross_row=False))
    assert out == per_record(load(path), records)


def test_apply_records_runs_the_steps_too(tmp_path):
    records = make_records()
    path = functions_file(tmp_path)
    events = []
    out = list(
        apply_records(
            Path(path).read_text(), records, workers=2, batch_size=16, on_progress=events.append
        )
    )
    assert out == reference(path, records)
    assert events[-1]["type"] == "apply_complete" and events[-1]["dropped_duplicates"] == 30


def test_the_fit_streams_and_keeps_statistics_not_records(tmp_path, monkeypatch):
    n, pulled, seen = 3000, [0], {}
    path = functions_file(tmp_path)

    def source():
        for i, record in enumerate(make_records(n, bad=False)):
            pulled[0] = i + 1
            yield record

    real_fit = _apply_cross_row.fit

    def spy(steps, records):
        assert iter(records) is records  # a stream, not a list

        def watch():
            for k, record in enumerate(records):
                if k == 0:
                    seen["pulled_at_first"] = pulled[0]
                yield record
            seen["count"] = k + 1

        fitted = real_fit(steps, watch())
        seen["fitted"] = fitted
        return fitted

    monkeypatch.setattr(_apply_cross_row, "fit", spy)
    out = list(apply_records(Path(path).read_text(), source(), workers=1, batch_size=100))
    assert seen["pulled_at_first"] < n  # fitting began while the input was still being read
    assert seen["count"] == n
    fitted: Fitted = seen["fitted"]
    # one majority group per provider: memory per key, not per row
    assert len(fitted.groups[0]) == 6
    assert len(out) == 90 and fitted.dropped == n - 90


@pytest.mark.parametrize("suffix", ["csv", "json"])
def test_csv_and_json_keep_their_format(tmp_path, suffix):
    records = make_records(bad=False)
    path = functions_file(tmp_path)
    source = tmp_path / f"in.{suffix}"
    if suffix == "csv":
        with open(source, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(records[0]))
            writer.writeheader()
            writer.writerows(records)
    else:
        source.write_text(json.dumps(records), encoding="utf-8")
    target = tmp_path / f"out.{suffix}"
    result = apply_file(path, str(source), str(target), workers=2, batch_size=9)
    expected = reference(path, list(iter_records(str(source))))
    if suffix == "csv":  # cells as apply writes CSV: True -> "true"
        expected = [
            {k: v if isinstance(v, str) else json.dumps(v) for k, v in r.items()} for r in expected
        ]
    assert list(iter_records(str(target))) == expected and result.dropped_duplicates == 30
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["cleaning_functions.py", source.name, target.name]
    )


@pytest.mark.parametrize("suffix, module", [("parquet", "pyarrow.parquet"), ("xlsx", "openpyxl")])
def test_parquet_and_excel_go_through_the_same_writers(tmp_path, suffix, module):
    pytest.importorskip(module)
    records = make_records(bad=False)
    source = tmp_path / f"in.{suffix}"
    write_table_file(source, records)
    path = functions_file(tmp_path)
    target = tmp_path / f"out.{suffix}"
    result = apply_file(path, str(source), str(target), workers=1, batch_size=25)
    assert list(iter_records(str(target))) == reference(path, list(iter_records(str(source))))
    assert result.records_out == 90


# --- failures --------------------------------------------------------------------------


def test_the_temp_file_is_removed_when_pass_one_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(pool_module, "check_code_safety", lambda code: [])
    hostile = {
        "name": "peek",
        "code": "def peek(record):\n    if record['id'] == 100:\n"
        "        open('/etc/passwd')\n    return record\n",
    }
    path = functions_file(tmp_path, funcs=FUNCS + [hostile])
    source = write_jsonl(tmp_path / "in.jsonl", make_records())
    with pytest.raises(ApplyError, match="refused operation: open"):
        apply_file(
            path,
            source,
            str(tmp_path / "out.jsonl"),
            workers=2,
            batch_size=10,
            audit_path=str(tmp_path / "audit.jsonl"),
        )
    assert sorted(os.listdir(tmp_path)) == ["cleaning_functions.py", "in.jsonl"]


def test_the_temp_file_is_removed_when_pass_two_fails(tmp_path, monkeypatch):
    calls = [0]
    real = Fitted.apply_step

    def failing(self, i, out):
        calls[0] += 1
        if calls[0] > 50:
            raise RuntimeError("pass two broke")
        return real(self, i, out)

    monkeypatch.setattr(Fitted, "apply_step", failing)
    path = functions_file(tmp_path)
    source = write_jsonl(tmp_path / "in.jsonl", make_records())
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError, match="pass two broke"):
        apply_file(path, source, str(target), workers=1, batch_size=10)
    assert target.read_text() == "old\n"
    assert sorted(os.listdir(tmp_path)) == ["cleaning_functions.py", "in.jsonl", "out.jsonl"]


def test_unreadable_cross_row_steps_fail_the_run_clearly(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [{"a": 1}])
    base = "def clean_data(record):\n    return record\n\n"
    cases = [
        (
            "CROSS_ROW_STEPS = [dict(kind='dedup')]\n",
            r"CROSS_ROW_STEPS \(line 4\) must be a literal",
        ),
        ("CROSS_ROW_STEPS = ['dedup']\n", "must be a list of step dicts"),
        ("CROSS_ROW_STEPS = [{'kind': 'dedup'}]\n", "step 0: a dedup step needs a key field"),
        (
            "CROSS_ROW_STEPS = [{'kind': 'sort', 'key': ['a']}]\n",
            "step 0: cross-row step kind must be",
        ),
    ]
    for text, message in cases:
        path = tmp_path / "cf.py"
        path.write_text(base + text)
        with pytest.raises(ApplyError, match=message):
            apply_file(str(path), source, str(tmp_path / "out.jsonl"))
        # ignored when off
        apply_file(str(path), source, str(tmp_path / "out.jsonl"), cross_row=False, trusted=True)
    assert sorted(os.listdir(tmp_path)) == ["cf.py", "in.jsonl", "out.jsonl"]


def test_only_the_librarys_own_clean_dataset_is_left_out_of_the_workers(tmp_path):
    path = functions_file(tmp_path)
    source = write_jsonl(tmp_path / "in.jsonl", make_records(12, bad=False))
    # sandboxed: the import would be refused
    apply_file(path, source, str(tmp_path / "out.jsonl"), workers=1)
    edited = Path(path).read_text().replace("for r in records])", "for r in records][:1])")
    Path(path).write_text(edited)
    with pytest.raises(ApplyError, match="safety policy.*recursive_cleaner.crossrow"):
        apply_file(path, source, str(tmp_path / "out.jsonl"), workers=1)


# --- the audit log ---------------------------------------------------------------------


def test_the_audit_log_rebuilds_the_cleaned_file_from_the_dirty_one(tmp_path):
    records = make_records()
    path = functions_file(tmp_path)
    # a skipped line is not a row
    source = write_jsonl(tmp_path / "in.jsonl", records, extra="not json\n")
    audit = tmp_path / "audit.jsonl"
    result = apply_file(
        path, source, str(tmp_path / "out.jsonl"), workers=2, batch_size=8, audit_path=str(audit)
    )
    out = read_jsonl(tmp_path / "out.jsonl")
    log = read_jsonl(audit)
    assert out == reference(path, records) and result.skipped_input == 1
    assert rebuild(records, log) == out
    assert result.audit_rows == len(log)
    assert set(log[0]) == {"row", "field", "old", "new", "step", "kind"}
    assert {e["step"] for e in log} == {
        "strip_name",
        "lower_email",
        "tidy_city",
        "drop_junk",
        MAJORITY,
        DEDUP,
    }
    first = [e for e in log if e["row"] == 0]
    assert first[0] == {
        "row": 0,
        "field": "name",
        "old": "  Name 0 ",
        "new": "Name 0",
        "step": "strip_name",
        "kind": "changed",
    }
    assert {
        "row": 0,
        "field": "junk",
        "old": "x0",
        "new": None,
        "step": "drop_junk",
        "kind": "removed",
    } in first
    assert {
        "row": 0,
        "field": "checked",
        "old": None,
        "new": True,
        "step": "drop_junk",
        "kind": "added",
    } in first
    # failed: unchanged
    assert not [e for e in log if e["row"] == 50 and not e["step"].startswith("cross_row")]
    dropped = [e for e in log if e["kind"] == "dropped"]
    assert len(dropped) == 30 and all(e["step"] == DEDUP and e["field"] is None for e in dropped)
    assert result.changes_by_step["strip_name"] == 119 and result.changes_by_step[DEDUP] == 30
    assert result.changes_by_step[MAJORITY] == len({e["row"] for e in log if e["step"] == MAJORITY})
    assert sum(result.cross_row_changed[MAJORITY].values()) == len(
        [e for e in log if e["step"] == MAJORITY]
    )


def test_audit_with_rejects_in_memory_and_trusted(tmp_path):
    records = make_records()
    code = Path(functions_file(tmp_path)).read_text()
    audit, rejects = tmp_path / "audit.jsonl", tmp_path / "rejects.jsonl"
    out = list(
        apply_records(
            code,
            records,
            workers=1,
            batch_size=13,
            trusted=True,
            audit_path=str(audit),
            reject_path=str(rejects),
        )
    )
    log = read_jsonl(audit)
    assert rebuild(records, log) == out
    assert [e for e in log if e["kind"] == "rejected"] == [
        {
            "row": 50,
            "field": None,
            "old": None,
            "new": None,
            "step": "clean_data",
            "kind": "rejected",
        }
    ]
    assert [r["index"] for r in read_jsonl(rejects)] == [50]


def test_csv_audit_log(tmp_path):
    records = make_records(30, bad=False)
    # no cross-row steps: one pass, the log still streams
    path = functions_file(tmp_path, steps=None)
    source = write_jsonl(tmp_path / "in.jsonl", records)
    audit = tmp_path / "audit.csv"
    result = apply_file(
        path, source, str(tmp_path / "out.jsonl"), workers=2, batch_size=4, audit_path=str(audit)
    )
    with open(audit, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["row", "field", "old", "new", "step", "kind"]
    assert rows[0] == {
        "row": "0",
        "field": "name",
        "old": "  Name 0 ",
        "new": "Name 0",
        "step": "strip_name",
        "kind": "changed",
    }
    added = [r for r in rows if r["kind"] == "added"]
    assert len(added) == 30 and added[0]["old"] == "" and added[0]["new"] == "true"
    assert len(rows) == result.audit_rows and result.cross_row_steps == []
    # tidy_city changes the lower-case cities only (i % 4 == 0)
    assert result.changes_by_step == {
        "strip_name": 30,
        "lower_email": 30,
        "tidy_city": 8,
        "drop_junk": 30,
    }


def test_a_clean_data_that_is_not_a_chain_is_one_step(tmp_path):
    code = (
        "def clean_data(record):\n    record = dict(record)\n    if record.get('n'):\n"
        "        record['n'] = record['n'] * 2\n    return record\n\n"
        "CROSS_ROW_STEPS = [{'kind': 'dedup', 'key': ['n'], 'asked': True}]\n"
    )
    audit = tmp_path / "audit.jsonl"
    out = list(
        apply_records(
            code, [{"n": 1}, {"n": 0}, {"n": 1}, {"n": 2}], workers=1, audit_path=str(audit)
        )
    )
    assert out == [{"n": 2}, {"n": 0}, {"n": 4}]
    assert read_jsonl(audit) == [
        {"row": 0, "field": "n", "old": 1, "new": 2, "step": "clean_data", "kind": "changed"},
        {"row": 2, "field": "n", "old": 1, "new": 2, "step": "clean_data", "kind": "changed"},
        {"row": 3, "field": "n", "old": 2, "new": 4, "step": "clean_data", "kind": "changed"},
        {
            "row": 2,
            "field": None,
            "old": None,
            "new": None,
            "step": "cross_row[0]:dedup(n)",
            "kind": "dropped",
        },
    ]


def test_audited_workers_keep_clean_datas_failures_and_values(tmp_path):
    code = (
        "def one(record):\n    record['v'] = [1, 2]\n    return record\n\n"
        "def two(record):\n    record['v'].append(3)\n    if record.get('x') == 'str':\n        "
        "return 'oops'\n"
        "    return record\n\n"
        "def clean_data(record):\n    record = one(record)\n    record = two(record)\n    return "
        "record\n"
    )
    rejects, audit = tmp_path / "rejects.jsonl", tmp_path / "audit.jsonl"
    out = list(
        apply_records(
            code,
            [{"x": 1}, {"x": "str"}],
            workers=1,
            audit_path=str(audit),
            reject_path=str(rejects),
        )
    )
    assert out == [{"x": 1, "v": [1, 2, 3]}]
    assert read_jsonl(rejects)[0]["error"].startswith("TypeError: returned str, expected a dict")
    assert [(e["step"], e["old"], e["new"]) for e in read_jsonl(audit) if e["row"] == 0] == [
        # one's value as it left one, not as two left it
        ("one", None, [1, 2]),
        ("two", [1, 2], [1, 2, 3]),
    ]


# --- report and CLI --------------------------------------------------------------------


def test_the_report_shows_an_apply_runs_changes():
    text = render_report(
        ReportData(
            applied={
                "records_in": 120,
                "records_out": 90,
                "dropped_duplicates": 30,
                "changes_by_step": {"strip_name": 119, DEDUP: 30},
            }
        )
    )
    assert (
        "## Applied to the data" in text and "120 records in, 90 out, 30 duplicates dropped" in text
    )
    assert "| `strip_name` | 119 |" in text and f"| `{DEDUP}` | 30 |" in text


def test_cli_apply_with_audit_and_without_cross_row(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from recursive_cleaner.ui.cli import cli

    monkeypatch.chdir(tmp_path)
    functions_file(tmp_path)
    write_jsonl(tmp_path / "in.jsonl", make_records(bad=False))
    runner = CliRunner()
    result = runner.invoke(
        cli,
        [
            "apply",
            "cleaning_functions.py",
            "in.jsonl",
            "-o",
            "out.jsonl",
            "--workers",
            "1",
            "--audit",
            "audit.jsonl",
            "--progress",
            "off",
        ],
    )
    assert result.exit_code == 0, result.output
    assert (
        "wrote out.jsonl: 90 of 120 records" in result.output
        and "30 duplicates dropped" in result.output
    )
    assert "audit audit.jsonl:" in result.output and "strip_name 120" in result.output
    result = runner.invoke(
        cli,
        [
            "apply",
            "cleaning_functions.py",
            "in.jsonl",
            "-o",
            "out.jsonl",
            "--workers",
            "1",
            "--no-cross-row",
            "--progress",
            "off",
        ],
    )
    assert (
        result.exit_code == 0
        and "120 of 120 records" in result.output
        and "cross-row" not in result.output
    )


def test_apply_frame_runs_the_cross_row_steps_only_when_asked(tmp_path):
    pd = pytest.importorskip("pandas")
    from recursive_cleaner.ui.frames import apply_frame

    path = functions_file(tmp_path)
    records = make_records(120, bad=False)
    df = pd.DataFrame(records)
    out = apply_frame(path, df, workers=1)  # cross_row=False by default: every row, clean_data only
    assert len(out) == 120 and list(out["email"]) == [
        r["email"] for r in per_record(load(path), records)
    ]
    # as apply_records, with the index of the rows kept
    steps = apply_frame(path, df, workers=1, cross_row=True)
    expected = list(apply_records(Path(path).read_text(), records, workers=1))
    assert list(steps.index) == list(range(90)) and steps.to_dict("records") == expected


def test_a_file_written_by_0_2_0_still_applies_in_the_sandbox(tmp_path):
    """0.2.0 wrote clean_dataset with `from recursive_cleaner.cross_row import …`: still the
    library's own helper."""
    path = functions_file(tmp_path)
    old = (
        Path(path)
        .read_text()
        .replace(
            "from recursive_cleaner.crossrow import", "from recursive_cleaner.cross_row import"
        )
    )
    assert "recursive_cleaner.cross_row import" in old
    Path(path).write_text(old)
    source = write_jsonl(tmp_path / "in.jsonl", make_records(12, bad=False))
    result = apply_file(path, source, str(tmp_path / "out.jsonl"), workers=1)
    assert result.records_out == result.records_in == 12
