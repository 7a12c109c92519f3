"""Notebook helpers: DataFrames in (materialize_input, frame_records), DataFrames out (apply_frame,
improvement_frame), inline rendering (ImprovementReport reprs, CleaningReport), plot_improvement,
install hints."""

from __future__ import annotations

import decimal
import json
import math
import sys
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.ui.frames import (
    CleaningReport,
    apply_frame,
    improvement_frame,
    plot_improvement,
)
from recursive_cleaner.backends.private_dir import user_suffix
from recursive_cleaner.read.inputs import frame_records, materialize_input
from recursive_cleaner.write.metrics import compare_quality
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply
from tests.optional_deps import optional

pd = optional("pandas")
np = optional("numpy")

UPPER = """
def clean_data(record):
    record = dict(record)
    if record.get("name") == "boom":
        raise ValueError("boom")
    record["name"] = str(record.get("name")).upper()
    record["length"] = len(record["name"])
    record.pop("drop_me", None)
    return record
"""


def messy_frame():
    return pd.DataFrame(
        {
            "name": ["ann", None, "cy"],
            "score": [1.5, np.nan, 3.0],
            "count": pd.array([1, None, 3], dtype="Int64"),
            "day": pd.to_datetime(["2024-01-05", None, "2024-02-01"]),
            "moment": pd.to_datetime(["2024-01-05 10:30", None, "2024-02-01 00:00"]),
            "zoned": pd.to_datetime(["2024-01-05", "2024-01-06", None]).tz_localize("UTC"),
            "kind": pd.Categorical(["a", "b", None]),
            "odd": [np.int64(7), decimal.Decimal("2.50"), np.array([np.float32(1.5), np.nan])],
            7: [True, False, None],
        },
        index=pd.Index(["r1", "r2", "r3"], name="row"),
    )


def test_frame_records_are_json_ready():
    records = list(frame_records(messy_frame()))
    assert records[0] == {
        "name": "ann",
        "score": 1.5,
        "count": 1,
        "day": "2024-01-05",
        "moment": "2024-01-05T10:30:00",
        "zoned": "2024-01-05T00:00:00+00:00",
        "kind": "a",
        "odd": 7,
        "7": True,
    }
    assert records[1] == {
        "name": None,
        "score": None,
        "count": None,
        "day": None,
        "moment": None,
        "zoned": "2024-01-06T00:00:00+00:00",
        "kind": "b",
        "odd": 2.5,
        "7": False,
    }
    # not all at midnight: the column keeps its times
    assert records[2]["moment"] == "2024-02-01T00:00:00"
    assert records[2]["odd"] == [1.5, None] and records[2]["kind"] is None
    assert all(
        type(v) in (str, int, float, bool, list, type(None)) for r in records for v in r.values()
    )
    json.dumps(records, allow_nan=False)


def test_materialize_input_writes_jsonl_named_by_content(tmp_path):
    df = messy_frame()
    path = materialize_input(df, tmp_path)
    assert Path(path).parent == tmp_path and path.endswith(".jsonl")
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == list(frame_records(df))
    # same data, same file: a state file can resume
    assert materialize_input(df.copy(), tmp_path) == path
    assert materialize_input(df.head(2), tmp_path) != path
    # no temp files left
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_materialize_input_takes_lists_of_dicts_and_passes_paths_through(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    path = materialize_input([{"a": np.int64(1), "b": float("nan"), 3: "x"}, {"a": 2}])
    # one folder per user, this user's only (tests/adversarial/test_redteam3_artifacts.py)
    assert Path(path).parent == tmp_path / f"recursive_cleaner_inputs{user_suffix()}"
    assert Path(path).read_text() == '{"a": 1, "b": null, "3": "x"}\n{"a": 2}\n'
    assert materialize_input("data.jsonl") == "data.jsonl"
    assert materialize_input(Path("dir") / "data.csv") == str(Path("dir") / "data.csv")


@pytest.mark.parametrize(
    "bad,error",
    [
        ([{"a": 1}, "text"], "item 1 is a str"),
        ({"a": 1}, "got dict"),
        (42, "got int"),
        (b"raw", "got bytes"),
    ],
)
def test_materialize_input_refuses_what_is_not_records(tmp_path, bad, error):
    with pytest.raises(TypeError, match=error):
        materialize_input(bad, tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.is_file()]


def test_duplicate_column_names_are_refused(tmp_path):
    df = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(ValueError, match="two columns named 'a'"):
        materialize_input(df, tmp_path)


def test_apply_frame_keeps_index_and_column_order(tmp_path):
    code = tmp_path / "cleaning_functions.py"
    code.write_text(UPPER)
    df = pd.DataFrame(
        {"id": [3, 1, 2, 4], "name": ["ann", "boom", None, "di"], "drop_me": [0, 0, 0, 0]},
        index=pd.Index([30, 10, 20, 40], name="key"),
    )
    out = apply_frame(code, df, workers=2, batch_size=1)
    # clean_data drops drop_me and adds length; the failed row comes back unchanged, so drop_me
    # stays
    assert list(out.columns) == ["id", "name", "drop_me", "length"]
    assert out.index.equals(df.index)
    assert out.loc[30, ["id", "name", "length"]].tolist() == [3, "ANN", 3] and math.isnan(
        out.loc[30, "drop_me"]
    )
    assert out.loc[20, "name"] == "NONE"
    assert (
        out.loc[10, "name"] == "boom"
        and out.loc[10, "drop_me"] == 0
        and math.isnan(out.loc[10, "length"])
    )
    assert out.attrs["apply"] == {"records_in": 4, "records_out": 4, "failed": 1}
    assert df.loc[30, "name"] == "ann" and "length" not in df  # input untouched


def test_apply_frame_edge_cases(tmp_path):
    code = tmp_path / "cleaning_functions.py"
    code.write_text(UPPER)
    with pytest.raises(TypeError, match="reject_path"):
        apply_frame(code, pd.DataFrame({"name": ["a"]}), reject_path=str(tmp_path / "r.jsonl"))
    empty = pd.DataFrame({"name": pd.Series([], dtype=object)})
    assert apply_frame(code, empty).equals(empty)
    events = []
    out = apply_frame(code, pd.DataFrame({0: ["x"]}), workers=1, on_progress=events.append)
    assert list(out.columns) == [0, "name", "length"]  # a non-string label comes back as it was
    assert [e["type"] for e in events][-2:] == ["apply_progress", "apply_complete"]


def _report(truth=None):
    before = [{"status": "Actve", "phone": "555 123"}, {"status": "active", "phone": None}]
    after = [{"status": "active", "phone": "+1555123"}, {"status": "active", "phone": None}]
    return compare_quality(before, after, expectations=None, truth=truth)


def test_improvement_frame_has_one_row_per_field():
    frame = improvement_frame(_report())
    assert list(frame.index) == ["status", "phone"] and frame.index.name == "field"
    assert (
        frame.loc["status", "distinct_before"] == 2 and frame.loc["status", "distinct_after"] == 1
    )
    assert frame.loc["phone", "cells_changed"] == 1 and frame.loc["phone", "nulls_before"] == 1
    assert "accuracy_before" not in frame
    truth = improvement_frame(_report(truth=[{"status": "active", "phone": "+1555123"}] * 2))
    assert (
        truth.loc["status", "accuracy_after"] == 1.0
        and truth.loc["status", "accuracy_before"] == 0.5
    )
    empty = improvement_frame(compare_quality([], []))
    assert empty.empty and "conformity_before" in empty


def test_improvement_report_renders_inline():
    report = _report(truth=[{"status": "active", "phone": "+1555123"}] * 2)
    html = report._repr_html_()
    assert html.startswith(
        '<table class="recursive-cleaner-improvement"><caption>2 records, 1 rows changed, '
        "accuracy 25% → 75%</caption>"
    )
    assert "<th>Accuracy</th>" in html and "<td>all cells</td>" in html and html.count("<tr>") == 4
    markdown = report._repr_markdown_()
    assert (
        markdown.startswith("**2 records, 1 rows changed, accuracy")
        and report.to_markdown() in markdown
    )
    escaped = compare_quality([{"<b>": "x"}], [{"<b>": "y"}])._repr_html_()
    assert "&lt;b&gt;" in escaped and "<b>" not in escaped


def test_cleaning_report_from_path_or_text(tmp_path):
    path = tmp_path / "cleaning_report.md"
    path.write_text("# Cleaning report\n\n- done\n", encoding="utf-8")
    for source in (path, str(path)):
        report = CleaningReport(source)
        assert report._repr_markdown_() == str(report) == "# Cleaning report\n\n- done\n"
        assert report.path == str(path)
    inline = CleaningReport("# Just text\n")
    assert inline.path is None and inline._repr_markdown_() == "# Just text\n"
    assert "characters" in repr(inline)


def test_plot_improvement_draws_two_bars_per_field():
    matplotlib = optional("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = plot_improvement(_report())
    assert len(ax.patches) == 4 and [t.get_text() for t in ax.get_xticklabels()] == [
        "status",
        "phone",
    ]
    heights = [p.get_height() for p in ax.patches]
    assert heights[2:] == [100.0, 100.0]  # after: both fields conform
    fig, own = plt.subplots()
    assert plot_improvement(_report(), ax=own) is own
    plt.close("all")


@pytest.mark.parametrize(
    "call,hint",
    [
        (
            lambda: apply_frame("x.py", None),
            "apply_frame needs pandas: pip install 'recursive-data-cleaner[pandas]'",
        ),
        (
            lambda: improvement_frame(_report()),
            "improvement_frame needs pandas: pip install 'recursive-data-cleaner[pandas]'",
        ),
        (
            lambda: plot_improvement(_report()),
            "plot_improvement needs matplotlib: pip install matplotlib",
        ),
    ],
)
def test_missing_pandas_or_matplotlib_names_the_pip_command(monkeypatch, call, hint):
    for name in ("pandas", "matplotlib", "matplotlib.pyplot"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ModuleNotFoundError) as info:
        call()
    assert str(info.value) == hint


# ---------------------------------------------------------------------------- DataCleaner(backend,
# df)
FIX_STATUS = """from recursive_cleaner.toolkit import closest_value

def fix_status(record):
    record = dict(record)
    record["status"] = closest_value(record.get("status"), ["active", "pending", "churned"])
    return record"""


def test_a_materialized_frame_runs_through_the_cleaner_and_back(tmp_path):
    df = pd.DataFrame({"status": ["active", "Actve", "PENDING ", "churned", "chruned", "pending"]})
    backend = FakeBackend([make_reply("fix_status", FIX_STATUS)], default=CLEAN_REPLY)
    cleaner = DataCleaner(
        backend,
        materialize_input(df, tmp_path),
        chunk_size=6,
        holdout_ratio=0.0,
        instructions="status is one of active, pending, churned",
        output_path=str(tmp_path / "cleaning_functions.py"),
        sleep=lambda s: None,
    )
    result = cleaner.run()
    assert result.functions == ["fix_status"]
    out = apply_frame(result.output_path, df, workers=1)
    assert out["status"].tolist() == [
        "active",
        "active",
        "pending",
        "churned",
        "churned",
        "pending",
    ]


def test_data_cleaner_takes_a_dataframe_directly(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    df = pd.DataFrame({"status": ["active", "Actve", "pending"]})
    result = DataCleaner(
        FakeBackend(default=CLEAN_REPLY),
        df,
        chunk_size=3,
        report_path=None,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert result.chunks_total == 1


def test_apply_frame_takes_max_failures(tmp_path):
    from recursive_cleaner.apply.local import ApplyError

    path = tmp_path / "cf.py"
    path.write_text(UPPER)
    df = pd.DataFrame({"name": ["ann", "boom", "cy"]})
    assert list(apply_frame(str(path), df, workers=1, max_failures=1)["name"]) == [
        "ANN",
        "boom",
        "CY",
    ]
    with pytest.raises(ApplyError, match="failed on 1 record"):
        apply_frame(str(path), df, workers=1, max_failures=0)
