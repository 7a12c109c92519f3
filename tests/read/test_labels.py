"""The user's corrected rows (read/labels.py): CSV, JSONL, a DataFrame or a list of records, matched
to their input rows by a key column; a label matching no row or two is one LabelError line naming
the labels and the row."""

from __future__ import annotations

import json

import pytest

from recursive_cleaner.errors import InputError, LabelError
from recursive_cleaner.read import labels as labels_module
from recursive_cleaner.read.labels import match_text, read_labels
from tests.optional_deps import optional

DATA = "tuple_id,src,flight,time\n1,aa,AA-1,7:10 a.m.\n2,ua,AA-1,7:15 a.m.\n3,aa,UA-2,\n"


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "dirty.csv"
    path.write_text(DATA)
    return str(path)


def test_a_csv_of_corrected_rows_is_matched_by_the_id_column_the_data_holds(tmp_path, data):
    given = tmp_path / "labels.csv"
    given.write_text("tuple_id,src,flight,time\n2,ua,AA-1,7:10 a.m.\n3,aa,UA-2,9:00 p.m.\n")
    labels = read_labels(str(given), data)
    assert labels.key == "tuple_id" and len(labels) == 2
    first = labels.rows[0]
    assert (first.row, first.record, first.given["time"], first.corrected["time"]) == (
        1,
        2,
        "7:15 a.m.",
        "7:10 a.m.",
    )
    assert ("time", "7:15 a.m.", "7:10 a.m.") in labels.cells()
    assert ("time", "", "9:00 p.m.") in labels.cells(["time"])
    assert labels.step_rows()[1] == {
        "tuple_id": "3",
        "src": "aa",
        "flight": "UA-2",
        "time": "9:00 p.m.",
    }


def test_jsonl_labels_with_numbers_match_csv_text_and_a_named_key(tmp_path, data):
    given = tmp_path / "labels.jsonl"
    given.write_text(json.dumps({"tuple_id": 1.0, "time": "7:11 a.m."}) + "\n")
    labels = read_labels(str(given), data, key="tuple_id")
    assert labels.rows[0].given["src"] == "aa" and labels.rows[0].corrected == {
        "tuple_id": 1.0,
        "time": "7:11 a.m.",
    }
    assert labels.fields() == ["time"]
    assert match_text(17) == match_text("17 ") == match_text(17.0) == "17"
    assert match_text("") is None and match_text(None) is None


def test_a_list_of_records_and_a_dataframe(data):
    labels = read_labels([{"tuple_id": "3", "time": "9:00 p.m."}], data)
    assert labels.rows[0].record == 3 and "a list of 1 records" in labels.describe()
    pd = optional("pandas")
    frame = pd.DataFrame({"tuple_id": [1, 2], "time": ["7:10 a.m.", "7:10 a.m."]})
    labels = read_labels(frame, data)
    assert [r.record for r in labels.rows] == [1, 2] and labels.where == "a DataFrame of 2 rows"


def _error(tmp_path, data, text: str, **kw) -> LabelError:
    given = tmp_path / "labels.csv"
    given.write_text(text)
    with pytest.raises(LabelError) as info:
        read_labels(str(given), data, **kw)
    assert isinstance(info.value, InputError) and "\n" not in str(info.value)
    assert str(given) in str(info.value)
    return info.value


def test_a_label_that_matches_no_row_names_the_file_and_the_row(tmp_path, data):
    err = _error(tmp_path, data, "tuple_id,time\n1,7:10 a.m.\n9,8:00 a.m.\n")
    assert "row 2: tuple_id '9' matches no row of" in str(err) and err.line == 2


def test_a_label_that_matches_two_rows_names_both_and_asks_for_a_unique_key(tmp_path, data):
    err = _error(tmp_path, data, "flight,time\nAA-1,7:10 a.m.\n", key="flight")
    assert "row 1: flight 'AA-1' matches rows 1 and 2" in str(err)
    assert "--labels-key" in str(err)


def test_other_labels_that_cannot_be_used_are_one_line_each(tmp_path, data):
    assert "rows 1 and 2 both label tuple_id '1'" in str(
        _error(tmp_path, data, "tuple_id,time\n1,a\n1,b\n")
    )
    assert "column 'gate' is not in the data's header" in str(
        _error(tmp_path, data, "tuple_id,gate\n1,B7\n")
    )
    assert "no column named like an identifier" in str(_error(tmp_path, data, "src,time\naa,x\n"))
    assert "the key 'nope' is not a column of the labels" in str(
        _error(tmp_path, data, "tuple_id,time\n1,x\n", key="nope")
    )
    assert "row 1: no tuple_id" in str(_error(tmp_path, data, "tuple_id,time\n,x\n"))
    assert "no rows" in str(_error(tmp_path, data, "tuple_id,time\n"))
    with pytest.raises(LabelError, match="no such file"):
        read_labels(str(tmp_path / "missing.csv"), data)


def test_a_label_holding_an_object_and_too_many_labels_are_refused(tmp_path, data, monkeypatch):
    given = tmp_path / "labels.jsonl"
    given.write_text(json.dumps({"tuple_id": 1, "time": {"at": "7"}}) + "\n")
    with pytest.raises(LabelError, match="'time' holds a list or an object"):
        read_labels(str(given), data)
    with pytest.raises(LabelError, match="more than 2 rows"):
        read_labels([{"tuple_id": i} for i in (1, 2, 3)], data, max_labels=2)
    assert labels_module.MAX_LABELS >= 1000
