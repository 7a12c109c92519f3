"""DataFrames through apply with the cross-row steps: pandas (apply_frame) and dask.dataframe
(apply_dask_frame)."""

from __future__ import annotations

import pytest

from recursive_cleaner.apply.frames import apply_dask_frame
from recursive_cleaner.errors import DataLossError
from recursive_cleaner.ui.frames import apply_frame
from recursive_cleaner.write.module import render_module
from tests.optional_deps import optional

pd = optional("pandas")

FUNCS = [
    {
        "name": "tidy",
        "code": "def tidy(record):\n"
        "    record['name'] = str(record['name']).strip().title()\n"
        "    if record['n'] == 13:\n"
        "        raise ValueError('unlucky')\n"
        "    record['seen'] = True\n"
        "    return record\n",
    }
]
STEPS = [
    {"kind": "majority", "key": ["team"], "fields": ["city"]},
    {"kind": "dedup", "key": ["email"], "asked": True},
]


def make_frame(n: int = 60) -> "pd.DataFrame":
    rows = [
        {
            "n": i,
            "name": f"  person {i} ",
            "team": f"t{i % 4}",
            "city": f"c{i % 4}" if i % 9 else "typo",
            "email": f"u{i % 50}@x.org",
            "score": float(i) / 2,
        }
        for i in range(n)
    ]
    return pd.DataFrame(rows, index=pd.Index([f"r{i}" for i in range(n)], name="rid"))


@pytest.fixture
def functions(tmp_path) -> str:
    path = tmp_path / "cleaning_functions.py"
    path.write_text(render_module(FUNCS, cross_row=STEPS))
    return str(path)


def test_apply_frame_runs_the_steps_and_keeps_the_index(functions):
    df = make_frame()
    out = apply_frame(functions, df, workers=1, cross_row=True)
    # 10 duplicate emails dropped
    assert list(out.index) == [f"r{i}" for i in range(50)] and out.index.name == "rid"
    # failed: as is
    assert set(out["city"]) == {"c0", "c1", "c2", "c3"} and out.loc["r13", "name"] == "  person 13 "
    assert out["score"].dtype == df["score"].dtype and list(out.columns) == [*df.columns, "seen"]
    assert out.attrs["apply"]["records_out"] == 50
    # cross_row defaults to False: every row, steps not run
    plain = apply_frame(functions, df, workers=1)
    assert len(plain) == 60 and (plain["city"] == "typo").sum() == 7
    unasked = str(functions).replace(".py", "_unasked.py")
    open(unasked, "w").write(render_module(FUNCS, cross_row=[{"kind": "dedup", "key": ["team"]}]))
    with pytest.raises(DataLossError, match="would drop at least 56 of 60"):
        apply_frame(unasked, df, workers=1, cross_row=True)
    with pytest.raises(TypeError, match="audit_path"):
        apply_frame(functions, df, cross_row=True, audit_path=str(functions) + ".audit")


def test_a_dask_dataframe_round_trip_gives_apply_frames_rows_and_index(functions):
    dd = optional("dask.dataframe")
    distributed = optional("distributed")
    df = make_frame()
    # the rows in their order, as apply_frame sees them
    ddf = dd.from_pandas(df, npartitions=4, sort=False)
    # what Dask holds may differ in dtype from df (dask 2024.x stores text as string[pyarrow]):
    # compare like with like
    expected = apply_frame(functions, ddf.compute(), workers=1, cross_row=True)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as c,
        distributed.Client(c, set_as_default=False) as client,
    ):
        out = apply_dask_frame(functions, ddf, client=client, batch_size=7)
        assert out.npartitions == 4
        got = client.compute(out).result()
    assert list(got.index) == list(expected.index) and list(got.columns) == list(expected.columns)
    assert got.astype(object).equals(expected.astype(object))
    # no function or step changed it: the input's dtype
    assert got["score"].dtype == df["score"].dtype
    # no client
    threaded = apply_dask_frame(functions, ddf, batch_size=7).compute(scheduler="threads")
    assert threaded.astype(object).equals(expected.astype(object))


TYPED = [
    {
        "name": "typed",
        "code": "def typed(record):\n"
        "    record['twice'] = record['n'] * 2\n"
        "    record['half'] = record['n'] / 2\n"
        "    if record['n'] % 7:\n"
        "        record['sparse'] = record['n']\n"
        "    record['label'] = 'x' + str(record['n'])\n"
        "    return record\n",
    }
]


def test_apply_dask_frame_gives_apply_frames_dtypes(tmp_path):
    dd = optional("dask.dataframe")
    path = tmp_path / "typed.py"
    path.write_text(render_module(TYPED))
    ddf = dd.from_pandas(make_frame(30), npartitions=3, sort=False)
    expected = apply_frame(str(path), ddf.compute(), workers=1)
    got = apply_dask_frame(str(path), ddf, batch_size=7).compute(scheduler="threads")
    assert expected["twice"].dtype == "int64" and expected["sparse"].dtype == "float64"
    assert dict(got.dtypes) == dict(expected.dtypes)
    assert got.equals(expected)
