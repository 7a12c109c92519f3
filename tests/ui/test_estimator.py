"""Cleaner(goals, backend, **options): fit / transform / save / load, scikit-learn's protocol."""

from __future__ import annotations

import json
import os

import pytest

from recursive_cleaner import ApplyError, Cleaner, SpecCheck
from recursive_cleaner.options import Judging
from recursive_cleaner.errors import InputEncodingError
from recursive_cleaner.read.parsers import iter_records
from tests.encoded_files import write as write_encoded
from tests.fakes import CLEAN_REPLY, FakeBackend
from tests.ui.test_entry import GOALS, ROWS, scripted

PHONES = ["+15551234567", "+15559876543", "+15550001111", "+15552223333"]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def make(**options) -> Cleaner:
    return Cleaner(GOALS, FakeBackend(scripted), chunk_size=4, holdout_ratio=0, **options)


def test_init_only_stores_and_the_params_are_its_arguments():
    backend = FakeBackend(scripted)
    judging = Judging(toolkit=False)
    cleaner = Cleaner("goals", backend, chunk_size=4, judging=judging)
    params = cleaner.get_params()
    assert params == {
        "goals": "goals",
        "backend": backend,
        "progress": False,
        "chunk_size": 4,
        "judging": judging,
    }
    twin = type(cleaner)(**cleaner.get_params(deep=False))  # what sklearn.base.clone does
    assert all(twin.get_params()[k] is v for k, v in params.items())
    assert not cleaner.__sklearn_is_fitted__() and not hasattr(cleaner, "result_")
    assert cleaner.set_params(chunk_size=8, goals="other") is cleaner
    assert cleaner.get_params()["chunk_size"] == 8 and cleaner.goals == "other"
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        cleaner.set_params(nope=1)
    with pytest.raises(ValueError, match="not fitted yet"):
        cleaner.transform(ROWS)
    with pytest.raises(TypeError, match="unexpected option 'bogus'"):
        Cleaner("g", backend, bogus=1).fit(ROWS)


def test_fit_on_records_then_transform_records_and_a_path(here):
    cleaner = make()
    assert cleaner.fit([dict(r) for r in ROWS]) is cleaner and cleaner.__sklearn_is_fitted__()
    assert cleaner.functions_ and "def " in cleaner.code_ and cleaner.spec_["fields"]["phone"]
    assert isinstance(cleaner.cross_row_steps_, list)
    assert [r["phone"] for r in cleaner.transform([dict(r) for r in ROWS], workers=1)] == PHONES
    source = here / "new.csv"
    source.write_text("id,phone\n7,(555) 444-5555\n")
    out = cleaner.transform(str(source), workers=1)
    assert out == str(here / "new.clean.csv")
    assert (here / "new.clean.csv").read_text().splitlines() == ["id,phone", "7,+15554445555"]
    assert cleaner.transform(source, output=here / "o.jsonl", workers=1) == str(here / "o.jsonl")
    check = cleaner.validate([{"phone": "+15554445555"}, {"phone": "555"}])
    assert isinstance(check, SpecCheck) and check.broken == {"phone": 1}


def test_fit_transform_on_a_dataframe_keeps_the_index(here):
    pd = pytest.importorskip("pandas", reason="pip install 'recursive-data-cleaner[pandas]'")
    df = pd.DataFrame(ROWS).set_index(pd.Index([10, 11, 12, 13]))
    out = make().fit_transform(df, workers=1)
    assert list(out.index) == [10, 11, 12, 13] and out["phone"].tolist() == PHONES


def test_save_and_load_is_one_json_file_and_loading_runs_nothing(here):
    cleaner = make(track_metrics=True, output_path=here / "cf.py", on_progress=print).fit(ROWS)
    path = cleaner.save(here / "cleaner.json")
    data = json.loads((here / "cleaner.json").read_text())
    assert data["format"] == "recursive_cleaner.cleaner" and data["goals"] == GOALS
    assert data["backend"] is None  # an object is never saved
    assert data["options"] == {
        "chunk_size": 4,
        "holdout_ratio": 0,
        "track_metrics": True,
        "output_path": str(here / "cf.py"),
    }
    assert data["options_left_out"] == ["on_progress"]
    assert data["result"]["code"] == cleaner.code_ and data["result"]["spec"] == cleaner.spec_
    # the file's output path is not restored: the default applies until it is given again
    with pytest.warns(UserWarning, match=r"not restored: output_path '.*cf\.py'"):
        loaded = Cleaner.load(path)
    assert loaded.__sklearn_is_fitted__() and loaded.goals == GOALS and loaded.backend is None
    assert loaded.get_params()["chunk_size"] == 4 and "output_path" not in loaded.get_params()
    assert [r["phone"] for r in loaded.transform(ROWS, workers=1)] == PHONES
    again = Cleaner.load(path, backend="ollama:x", output_path=here / "cf.py")
    assert again.backend == "ollama:x" and again.get_params()["output_path"] == here / "cf.py"

    # a hostile file: code that would write a file when imported is never run by load
    data["result"]["code"] = "open('pwned', 'w').write('x')\n" + data["result"]["code"]
    (here / "evil.json").write_text(json.dumps(data))
    with pytest.warns(UserWarning, match="not restored"):
        evil = Cleaner.load(here / "evil.json")
    assert not os.path.exists("pwned")
    with pytest.raises(ApplyError, match="refused by the safety policy"):
        evil.transform(ROWS, workers=1)
    assert not os.path.exists("pwned")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"format": "x"}, "not a saved Cleaner"),
        ({"version": 99}, "reads up to 1"),
        ({"options": {"nope": 1}}, "'nope' is not a DataCleaner option"),
        ({"backend": {"a": 1}}, "spec string"),
        ({"result": {"format": "recursive_cleaner.result", "version": 1}}, "missing 'code'"),
    ],
)
def test_a_broken_file_is_one_value_error_naming_it(here, change, message):
    cleaner = make().fit(ROWS)
    data = json.loads(open(cleaner.save("c.json")).read()) | change
    (here / "c.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=message):
        Cleaner.load("c.json")


def test_a_pipeline_step_when_scikit_learn_is_installed(here):
    pd = pytest.importorskip("pandas", reason="pip install 'recursive-data-cleaner[pandas]'")
    pytest.importorskip("sklearn", reason="scikit-learn is not installed: pip install scikit-learn")
    from sklearn.base import clone
    from sklearn.pipeline import Pipeline

    df = pd.DataFrame(ROWS)
    pipe = Pipeline([("clean", make())])
    assert pipe.fit(df) is pipe and pipe.transform(df)["phone"].tolist() == PHONES
    pipe.set_params(clean__chunk_size=2)
    assert pipe.named_steps["clean"].get_params()["chunk_size"] == 2
    twin = clone(pipe)
    assert not twin.named_steps["clean"].__sklearn_is_fitted__()
    assert pipe.fit_transform(df)["phone"].tolist() == PHONES


def test_transform_runs_the_fitted_cross_row_steps(here):
    pytest.importorskip("pandas", reason="pip install 'recursive-data-cleaner[pandas]'")
    from recursive_cleaner.write.module import render_module
    from tests.apply.test_frames import FUNCS, STEPS, make_frame

    data = json.loads(open(make().fit(ROWS).save("c.json")).read())
    data["result"] |= {"code": render_module(FUNCS, cross_row=STEPS), "cross_row_steps": STEPS}
    (here / "c.json").write_text(json.dumps(data))
    cleaner = Cleaner.load("c.json")
    assert cleaner.cross_row_steps_ == STEPS
    df = make_frame()  # 60 rows, 10 with a duplicate email
    out = cleaner.transform(df, workers=1)
    assert list(out.index) == [f"r{i}" for i in range(50)] and out.index.name == "rid"
    rows = cleaner.transform(df.to_dict("records"), workers=1)
    assert len(rows) == 50


def test_transform_reads_a_path_in_the_encoding_option(here):
    source = str(write_encoded(here, "csv", "cp1252"))
    backend = FakeBackend(default=CLEAN_REPLY)
    cleaner = Cleaner("city: upper case", backend, chunk_size=4, encoding="cp1252")
    out = cleaner.fit(source).transform(source, "out.jsonl", workers=1)
    assert [r["city"] for r in iter_records(out)][:2] == ["BOGOTÁ", "ZÜRICH"]
    with pytest.raises(InputEncodingError, match="byte 0xe9"):
        cleaner.transform(source, "again.jsonl", workers=1, encoding="utf-8")
