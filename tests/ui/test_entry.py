"""clean(data, goals, backend=...): the one-call entry point, its result, displays and apply."""

from __future__ import annotations

import json
import re

import pytest

import recursive_cleaner
from recursive_cleaner import CleanResult, clean
from recursive_cleaner.ui import entry
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

PHONE = '''\
from recursive_cleaner.toolkit import to_e164


def fix_phone(record):
    """Phone numbers to E.164."""
    record = dict(record)
    record["phone"] = to_e164(record.get("phone"))
    return record
'''


def scripted(prompt: str) -> str:
    task = re.search(r"named (\w+)\(record\) that fixes the field '([^']+)'", prompt)
    if task and task.group(2) == "phone":
        return make_reply(task.group(1), PHONE.replace("fix_phone", task.group(1)))
    return CLEAN_REPLY


ROWS = [
    {"id": i, "phone": p}
    for i, p in enumerate(["(555) 123-4567", "555.987.6543", "555 000 1111", "5552223333"])
]
GOALS = "phone: E.164 (+15551234567)"


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def run(data, **options) -> CleanResult:
    return clean(
        str(data),
        GOALS,
        backend=FakeBackend(scripted),
        chunk_size=4,
        holdout_ratio=0,
        progress=False,
        **options,
    )


def test_clean_on_a_path_writes_functions_and_returns_a_result_that_applies_itself(data, tmp_path):
    result = run(data)
    assert (
        result.functions
        and "def " in result.code
        and result.functions_path.endswith("cleaning_functions.py")
    )
    assert isinstance(result.spec, dict) and isinstance(result.cross_row_steps, list)
    assert "# Cleaning report" in str(result.report)
    cleaned = result.apply([dict(r) for r in ROWS])
    assert [r["phone"] for r in cleaned] == [
        "+15551234567",
        "+15559876543",
        "+15550001111",
        "+15552223333",
    ]
    out = result.apply(str(data), tmp_path / "clean.csv", workers=1)
    assert (
        out.records_out == 4
        and (tmp_path / "clean.csv").read_text().splitlines()[1] == "0,+15551234567"
    )
    with pytest.raises(TypeError, match="name the output file"):
        result.apply(str(data))


def test_repr_is_short_and_html_escapes_what_the_model_wrote(data):
    result = run(data)
    text = repr(result)
    assert (
        len(text) < 300
        and text.startswith("<CleanResult: 1 function (fix_phone), 0 cross-row steps, 1/1 chunks, ")
        and "\n" not in text
    )
    result.run.functions.append("<script>x</script>")
    page = result._repr_html_()
    assert (
        'class="recursive-cleaner-result"' in page
        and "&lt;script&gt;" in page
        and "<script>" not in page
    )
    assert "cleaning_functions.py" in page


def test_a_dataframe_comes_back_with_its_index_and_untouched_dtypes(data):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(
        {
            "phone": [r["phone"] for r in ROWS],
            "joined": pd.to_datetime(
                ["2023-01-02 10:00", "2023-02-03 00:00", None, "2023-04-05 08:30"]
            ),
            "n": pd.array([1, None, 3, 4], dtype="Int64"),
        },
        index=pd.Index([10, 11, 12, 13], name="customer"),
    )
    result = clean(
        df, GOALS, backend=FakeBackend(scripted), chunk_size=4, holdout_ratio=0, progress=False
    )
    back = result.apply(df, workers=1)
    assert back.index.equals(df.index) and list(back.columns) == list(df.columns)
    assert back["phone"].tolist() == [
        "+15551234567",
        "+15559876543",
        "+15550001111",
        "+15552223333",
    ]
    assert back["joined"].dtype == df["joined"].dtype and back["n"].dtype == df["n"].dtype
    assert back["joined"].equals(df["joined"]) and back["n"].equals(df["n"])


def test_the_default_backend_comes_from_the_environment(data, monkeypatch):
    seen = []

    def fake_get_backend(spec, **options):
        seen.append(spec)
        return FakeBackend(scripted)

    monkeypatch.setattr("recursive_cleaner.backends.get_backend", fake_get_backend)
    monkeypatch.setenv(entry.BACKEND_ENV, "ollama:tiny")
    run_result = clean(str(data), GOALS, chunk_size=4, holdout_ratio=0, progress=False)
    assert seen == ["ollama:tiny"] and run_result.functions
    monkeypatch.delenv(entry.BACKEND_ENV)
    assert entry.default_backend() == "local"


def test_progress_is_shown_by_default(data, capsys):
    clean(str(data), GOALS, backend=FakeBackend(scripted), chunk_size=4, holdout_ratio=0)
    err = capsys.readouterr().err
    assert "chunk 1/1" in err and "done in" in err


def test_the_goals_and_data_are_not_given_twice(data):
    with pytest.raises(TypeError, match="data, goals and backend"):
        clean(str(data), GOALS, backend=FakeBackend(scripted), instructions="x")


def test_clean_is_exported():
    assert recursive_cleaner.clean is clean


def test_in_a_notebook_progress_is_an_html_bar_updated_in_place(monkeypatch):
    import sys
    import types

    from recursive_cleaner.ui import progress as progress_module

    shown, updates = [], []

    class Handle:
        def update(self, obj):
            updates.append(obj.data)

    class HTML:
        def __init__(self, data):
            self.data = data

    def display(obj, display_id=False):
        shown.append(obj.data)
        return Handle()

    class ZMQInteractiveShell:
        pass

    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: ZMQInteractiveShell()
    ipython_display = types.ModuleType("IPython.display")
    ipython_display.HTML, ipython_display.display = HTML, display
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", ipython_display)
    assert progress_module.in_notebook()
    bar = progress_module.LiveProgress(clock=lambda: 0.0)
    assert bar.live == "notebook"
    bar({"type": "chunk_start", "chunk_index": 0, "total_chunks": 2, "records": 5})
    bar({"type": "function_generated", "function_name": "<b>fix</b>"})
    bar({"type": "chunk_done", "chunk_index": 0, "status": "clean"})
    bar({"type": "complete"})
    assert len(shown) == 1 and 'class="recursive-cleaner-progress"' in shown[0]
    assert '<progress value="1" max="2">' in updates[-2] and "1 accepted" in updates[-1]
    assert "&lt;b&gt;fix&lt;/b&gt;" in updates[1]


def test_applying_to_a_dataframe_warns_that_cross_row_steps_are_not_run(tmp_path):
    pd = pytest.importorskip("pandas")
    from recursive_cleaner import RunResult

    path = tmp_path / "cleaning_functions.py"
    path.write_text("def clean_data(record):\n    return record\n")
    result = CleanResult(
        RunResult(
            output_path=str(path),
            functions=[],
            chunks_total=1,
            cross_row=[{"kind": "dedup", "key": ["email"]}],
        )
    )
    assert "dedup" in result._repr_html_()
    with pytest.warns(UserWarning, match=r"1 cross-row step\(s\) not run on a DataFrame"):
        back = result.apply(pd.DataFrame({"email": ["a", "a"]}), workers=1)
    assert len(back) == 2


def test_the_notebook_shows_the_html_report_and_save_keeps_it(data, tmp_path):
    result = run(data, track_metrics=True)
    assert result.report_html and result.report_html.startswith("<!DOCTYPE html>")
    page = result._repr_html_()
    assert 'class="rc-report"' in page and 'data-field="phone"' in page
    assert "<!DOCTYPE" not in page and "<body>" not in page  # the page's body only
    again = CleanResult.load(result.save(tmp_path / "result.json"))
    assert again.report_html == result.report_html and 'class="rc-report"' in again._repr_html_()


def test_a_result_applies_a_path_in_its_runs_encoding_and_keeps_it_saved(tmp_path, monkeypatch):
    from recursive_cleaner import CleanResult, clean
    from recursive_cleaner.read.parsers import iter_records
    from tests.encoded_files import write as write_encoded
    from tests.fakes import CLEAN_REPLY

    monkeypatch.chdir(tmp_path)
    source = str(write_encoded(tmp_path, "csv", "cp1252"))
    result = clean(
        source,
        "city: upper case",
        FakeBackend(default=CLEAN_REPLY),
        progress=False,
        encoding="cp1252",
        chunk_size=4,
    )
    assert result.encoding == "cp1252"
    result.apply(source, "out.jsonl", workers=1)
    assert "ZÜRICH" in [r["city"] for r in iter_records("out.jsonl")]
    again = CleanResult.load(result.save("result.json"))
    assert again.encoding == "cp1252"
    again.apply(source, "out2.jsonl", workers=1)
    assert (tmp_path / "out2.jsonl").read_bytes() == (tmp_path / "out.jsonl").read_bytes()
