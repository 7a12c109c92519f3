"""Issue 44's corrected rows (``labels=``, ``--labels``) under attack: labels that match no row or
two, too many, hostile values, a function or a step that breaks a labelled cell, a planted or
hand-edited labels step, a state file resumed with other labels. Each asserts what happens now."""

from __future__ import annotations

import csv
import json

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply import apply_file
from recursive_cleaner.apply.result import ApplyError
from recursive_cleaner.crossrow.steps import CrossRowStep
from recursive_cleaner.crossrow.validate import validate_steps
from recursive_cleaner.errors import LabelError, StateFileError
from recursive_cleaner.read.labels import read_labels
from tests.cli_helpers import invoke, one_error_line
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply
from tests.optional_deps import optional

ROWS = [
    ("1", "12", "Paris"),
    ("2", "N/A", "Lyon"),
    ("3", "3,50", "Nice"),
    ("4", "7", "Paris"),
    ("5", "0,25", "Lyon"),
    ("6", "9", "Nice"),
    ("7", "4,5", "Paris"),
    ("8", "N/A", "Lyon"),
]
GOALS = "amount: a plain number with a decimal comma."
# null_if_placeholder writes None where the user's label says "N/A" is 0
BREAKS = """from recursive_cleaner.toolkit import null_if_placeholder, to_number


def fix_amount(record):
    record = dict(record)
    record["amount"] = to_number(null_if_placeholder(record.get("amount")), decimal=",")
    return record"""
PASSES = """from recursive_cleaner.toolkit import to_number


def fix_amount(record):
    record = dict(record)
    value = record.get("amount")
    record["amount"] = 0 if value == "N/A" else to_number(value, decimal=",")
    return record"""


def _csv(path, rows, header=("id", "amount", "city")) -> str:
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


def _cleaner(tmp_path, backend, labels, **options) -> DataCleaner:
    return DataCleaner(
        backend,
        _csv(tmp_path / "data.csv", ROWS),
        chunk_size=8,
        instructions=GOALS,
        holdout_ratio=0,
        output_path=str(tmp_path / "cf.py"),
        report_path=str(tmp_path / "report.md"),
        sleep=lambda s: None,
        labels=labels,
        **options,
    )


def test_a_label_matching_no_row_stops_the_run_before_any_call_and_writes_nothing(tmp_path):
    labels = _csv(tmp_path / "labels.csv", [("2", "0", "Lyon"), ("99", "1", "Nice")])
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(LabelError) as info:
        _cleaner(tmp_path, backend, labels).run()
    assert str(info.value) == (
        f"labels {labels} row 2: id '99' matches no row of {tmp_path / 'data.csv'}"
    )
    assert backend.calls == 0 and not (tmp_path / "cf.py").exists()


def test_the_cli_says_a_two_row_match_in_one_line(work, use):
    use(FakeBackend(default=CLEAN_REPLY))
    (work / "labels.csv").write_text("status,email\nactive,a@x.com\n")
    result = invoke(
        "generate",
        "crm.jsonl",
        "-i",
        "email: lower case",
        "--labels",
        "labels.csv",
        "--labels-key",
        "status",
    )
    line = one_error_line(result)
    assert "labels labels.csv row 1: status 'active' matches rows 1 and 2 of" in line
    assert not (work / "cleaning_functions.py").exists()
    missing = invoke("generate", "crm.jsonl", "-i", "x", "--labels", "nope.csv")
    assert "labels file not found: nope.csv" in one_error_line(missing)


def test_labels_past_the_bound_are_refused_in_one_line(tmp_path):
    data = _csv(tmp_path / "data.csv", ROWS)
    many = [{"id": str(i), "amount": "1"} for i in range(6)]
    with pytest.raises(LabelError, match=r"more than 5 rows$"):
        read_labels(many, data, max_labels=5)


def test_a_function_breaking_a_labelled_cell_is_refused_with_the_label_as_feedback(tmp_path):
    labels = _csv(tmp_path / "labels.csv", [("2", "0", "Lyon"), ("5", "0.25", "Lyon")])
    backend = FakeBackend(
        [make_reply("fix_amount", BREAKS), make_reply("fix_amount", PASSES)], default=CLEAN_REPLY
    )
    events: list = []
    cleaner = _cleaner(tmp_path, backend, labels, hint_functions=False, on_progress=events.append)
    result = cleaner.run()
    first, second = backend.history[0], backend.history[1]
    assert "Rows the user corrected by hand" in first and "'N/A' -> '0'" in first
    assert "does not pass the rows the user corrected by hand" in second
    assert "'amount' of labelled row 1: 'N/A' is '0', it gives None" in second
    refused = [e for e in events if e["type"] == "validation_failed"]
    assert refused and "rows the user corrected" in refused[0]["error"]
    assert result.functions == ["fix_amount"] and '== "N/A"' in (tmp_path / "cf.py").read_text()
    report = (tmp_path / "report.md").read_text()
    assert "## Corrected rows (labels)" in report
    assert "function fix_amount: 2 of 2 labelled cells of amount right after it" in report
    page = (tmp_path / "report.html").read_text()
    assert '<section id="labels">' in page and "2 of 2 labelled cells of amount" in page


def test_the_labelled_rows_keep_the_users_values_in_the_applied_output(tmp_path):
    # the user says row 7's amount is 45 (not 4,5) and row 3's city is Nice-Ville
    labels = _csv(tmp_path / "labels.csv", [("7", "45", "Paris"), ("3", "3.5", "Nice-Ville")])
    backend = FakeBackend(default=CLEAN_REPLY)
    _cleaner(tmp_path, backend, labels).run()
    out = tmp_path / "out.jsonl"
    apply_file(str(tmp_path / "cf.py"), str(tmp_path / "data.csv"), str(out))
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["7"]["amount"] == "45" and rows["3"]["city"] == "Nice-Ville"
    assert rows["3"]["amount"] == 3.5  # the function's number, the label's value as text
    assert rows["4"]["amount"] == 7.0 and rows["1"]["city"] == "Paris"


def test_an_identity_label_the_goals_would_change_keeps_its_value(tmp_path):
    # the user says "3,50" stays as it is: no decimal-comma function may pass, the value is kept
    labels = _csv(tmp_path / "labels.csv", [("3", "3,50", "Nice")])
    result = _cleaner(tmp_path, FakeBackend(default=CLEAN_REPLY), labels).run()
    assert result.functions == []
    out = tmp_path / "out.jsonl"
    apply_file(str(tmp_path / "cf.py"), str(tmp_path / "data.csv"), str(out))
    assert json.loads(out.read_text().splitlines()[2])["amount"] == "3,50"


def test_a_label_naming_a_dunder_is_refused_before_any_call(tmp_path):
    """Before: the labels step carried it into CROSS_ROW_STEPS and the safety policy refused the
    whole functions file at apply. Now: one LabelError naming the row, no call made."""
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "4", "city": "x __import__('os')"}) + "\n")
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(LabelError, match=r"row 1: 'city' holds '__import__'"):
        _cleaner(tmp_path, backend, str(labels)).run()
    assert backend.calls == 0


def test_hostile_label_values_stay_data_in_the_code_and_the_report(tmp_path):
    hostile = 'x`\n## Injected <script>alert(1)</script>""" + exec(\'1\')'
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "4", "city": hostile}) + "\n")
    _cleaner(tmp_path, FakeBackend(default=CLEAN_REPLY), str(labels)).run()
    code = (tmp_path / "cf.py").read_text()
    assert "\n## Injected" not in code and "kind': 'labels'" in code
    out = tmp_path / "out.jsonl"
    apply_file(str(tmp_path / "cf.py"), str(tmp_path / "data.csv"), str(out))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[3]["city"] == hostile  # written as the value it is, never run
    report = (tmp_path / "report.md").read_text()
    assert "\n## Injected" not in report and "<script>" not in report


def test_a_step_that_breaks_a_labelled_cell_is_refused():
    towns = [{"id": i, "town": "Paris"} for i in range(10)] + [{"id": 10, "town": "Pariss"}]
    step = CrossRowStep("vocabulary", fields=("town",))
    kept, refused = validate_steps(
        [step], towns, stated=["town"], labels=[(towns[10], dict(towns[10]))], labels_key="id"
    )
    assert kept == [] and "on a row the user corrected" in refused[0][1]
    kept, _ = validate_steps([step], towns, stated=["town"])
    assert kept  # without the label the same step is kept


def test_a_hand_edited_labels_step_is_one_apply_error(tmp_path):
    labels = _csv(tmp_path / "labels.csv", [("2", "0", "Lyon")])
    _cleaner(tmp_path, FakeBackend(default=CLEAN_REPLY), labels).run()
    path = tmp_path / "cf.py"
    path.write_text(path.read_text().replace("'amount': '0'", "'amount': {'x': 1}"))
    with pytest.raises(ApplyError) as info:
        apply_file(str(path), str(tmp_path / "data.csv"), str(tmp_path / "o.jsonl"))
    assert "plain values" in str(info.value) and "\n" not in str(info.value)


def test_a_state_file_resumed_with_other_labels_is_refused(tmp_path):
    first = _csv(tmp_path / "a.csv", [("2", "0", "Lyon")])
    state = str(tmp_path / "state.json")
    backend = FakeBackend(default=CLEAN_REPLY)
    _cleaner(tmp_path, backend, first, state_file=state).run()
    other = _csv(tmp_path / "b.csv", [("2", "1", "Lyon")])
    with pytest.raises(StateFileError, match="other corrected rows"):
        _cleaner(tmp_path, backend, other, state_file=state).run()


def test_on_dask_the_labels_and_an_authority_give_apply_files_output(tmp_path):
    """The labels step counts nothing and is fitted before the votes: Dask's merged parts give the
    same anchors, the same truths and the same output as apply_file."""
    optional("dask.bag")
    distributed = optional("distributed")
    from recursive_cleaner.apply.on_dask import apply_dask
    from recursive_cleaner.write.module import render_module

    rows = [
        {"id": n, "src": src, "flight": f"UA-{i}", "dep": f"{i}:{'05' if bad else '00'}"}
        for n, (i, src, bad) in enumerate(
            (i, src, src != "ua" and i % 3 == 0)
            for i in range(30)
            for src in ("ua", "echo1", "echo2", "site")
        )
    ]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    steps = [
        {"kind": "majority", "key": ["flight"], "fields": ["dep"], "weight_by": ["src"]},
        {
            "kind": "labels",
            "key": ["id"],
            "fields": ["src", "flight", "dep"],
            "rows": [{"id": 1, "src": "echo1", "flight": "UA-0", "dep": "9:59"}],
        },
    ]
    for variant in ([], ["key_first_part"]):
        steps[0]["authority"] = variant
        functions = tmp_path / "cf.py"
        functions.write_text(render_module([], cross_row=[s for s in steps]))
        apply_file(str(functions), str(tmp_path / "in.jsonl"), str(tmp_path / "ref.jsonl"))
        with (
            distributed.LocalCluster(
                n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster, set_as_default=False) as client,
        ):
            apply_dask(
                str(functions),
                str(tmp_path / "in.jsonl"),
                str(tmp_path / "dask.jsonl"),
                partition_size=20,
                client=client,
            )
        ref = (tmp_path / "ref.jsonl").read_text()
        assert (tmp_path / "dask.jsonl").read_text() == ref
        out = [json.loads(line) for line in ref.splitlines()]
        assert out[1]["dep"] == "9:59"  # the labelled row: the user's value
        assert all(o["dep"] == "9:59" for o in out if o["flight"] == "UA-0")  # its truth
        right = [o["dep"] == f"{o['flight'][3:]}:00" for o in out if o["flight"] != "UA-0"]
        # the bloc wins the unlabelled flights by its numbers; the airline's own site by its word
        assert all(right) if variant else not all(right)


def test_the_estimator_takes_a_dataframe_of_labels(tmp_path):
    pd = optional("pandas")
    from recursive_cleaner import Cleaner

    frame = pd.DataFrame({"id": [1, 2, 3, 4], "amount": ["12", "N/A", "3,50", "7"]})
    labels = pd.DataFrame({"id": [2], "amount": ["0"]})
    cleaner = Cleaner(
        GOALS,
        FakeBackend(default=CLEAN_REPLY),
        labels=labels,
        holdout_ratio=0,
        sleep=lambda s: None,
        output_path=str(tmp_path / "cf.py"),
    )
    assert cleaner.get_params()["labels"] is labels
    out = cleaner.fit(frame).transform(frame)
    assert list(out["amount"]) == [12.0, 0.0, 3.5, 7.0]
