"""apply_dask with CROSS_ROW_STEPS and the audit log, on a LocalCluster: the same output and audit
as apply_file."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.apply.on_dask import apply_dask
from recursive_cleaner.crossrow.kinds import vocabulary as steps_module
from recursive_cleaner.crossrow.steps import CrossRowStep, Summary, fit, summarize
from recursive_cleaner.errors import DataLossError
from recursive_cleaner.write.module import render_module
from tests.optional_deps import optional

optional("dask.bag")
distributed = optional("distributed")

FUNCS = [
    {
        "name": "strip_name",
        "code": "def strip_name(record):\n"
        "    record['name'] = str(record.get('name') or '').strip()\n"
        "    return record\n",
    },
    {
        "name": "check_row",
        "code": "def check_row(record):\n"
        "    if record.get('bad'):\n"
        "        raise ValueError('bad record')\n"
        "    record.pop('junk', None)\n"
        "    return record\n",
    },
]
# Every kind of step: a vocabulary, a majority whose key has typos, a pair key, a source-weighted
# vote, a dedup.
STEPS = [
    {"kind": "vocabulary", "fields": ["state", "code"]},
    {"kind": "majority", "key": ["provider"], "fields": ["city", "phone"]},
    {"kind": "majority", "key": ["state", "code"], "fields": ["avg"]},
    {"kind": "majority", "key": ["flight"], "fields": ["dep"], "weight_by": ["src"]},
    {"kind": "dedup", "key": ["email"], "asked": True},
]
CITIES = [
    "springfield",
    "shelbyville",
    "ogdenville",
    "north haverbrook",
    "capital city",
    "brockway",
    "cypress creek",
]
STATES = ["alabama", "alaska", "arizona", "arkansas"]


def make_records(n: int = 400, seed: int = 7) -> list[dict]:
    """Providers with one city and phone each (some wrong, some provider numbers mistyped), sources
    of varying care."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        p = rng.randrange(40)
        city, phone = CITIES[p % 7], f"555-{p:04d}"
        if rng.random() < 0.12:
            city = CITIES[(p + 3) % 7]
        provider = f"prov-{p:03d}"
        if rng.random() < 0.03:
            provider += "x"  # a mistyped key: joins its group by what its row says
        # rare misspellings
        state = STATES[p % 4] if rng.random() > 0.04 else STATES[p % 4][:-1] + "q"
        code = f"mc-{p % 5}"
        src = f"site{rng.randrange(5)}"
        flight = f"fl{p % 9}"
        dep = f"{p % 9 + 6}:00" if src != "site4" or rng.random() < 0.3 else f"{p % 9 + 7}:30"
        rows.append(
            {
                "id": i,
                "name": f"  Name {i} ",
                "provider": provider,
                "city": city,
                "phone": phone,
                "state": state,
                "code": code,
                "avg": f"{(p % 4) * 10 + p % 5 + (rng.random() < 0.1)}%",
                "flight": flight,
                "src": src,
                "dep": dep,
                "email": f"user{i % 330}@example.com",
                "junk": i,
            }
        )
    for bad in (57, 211):
        if bad < n:
            rows[bad]["bad"] = True
    return rows


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dask-fit")
    records = make_records()
    (root / "people.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    keys = list(records[0]) + ["bad"]
    lines = [",".join(keys)] + [",".join(str(r.get(k, "")) for k in keys) for r in records]
    (root / "people.csv").write_text("\n".join(lines) + "\n")
    (root / "cleaning_functions.py").write_text(render_module(FUNCS, cross_row=STEPS))
    return root


def _both(
    data: Path, name: str, audit: str | None = None, reject: bool = False, client=None
) -> tuple:
    """(apply_file's result, apply_dask's), their outputs (and audits, rejects) in ref/ and
    dask/."""
    functions = str(data / "cleaning_functions.py")
    out = {}
    for where in ("ref", "dask"):
        folder = data / f"{where}-{name}-{audit}"
        folder.mkdir()
        kwargs = (
            dict(audit_path=str(folder / audit))
            if audit and where == "ref"
            else dict(audit=str(folder / audit))
            if audit
            else {}
        )
        if reject:
            kwargs.update(reject_path=str(folder / "rejects")) if where == "ref" else kwargs.update(
                reject_dir=str(folder / "rejected")
            )
        if where == "ref":
            out[where] = apply_file(
                functions, str(data / name), str(folder / name), workers=1, batch_size=7, **kwargs
            )
        else:
            out[where] = apply_dask(
                functions,
                str(data / name),
                str(folder / name),
                batch_size=7,
                partition_size=30,
                client=client,
                **kwargs,
            )
    return out["ref"], out["dask"]


@pytest.mark.parametrize(
    "name,audit", [("people.jsonl", "audit.jsonl"), ("people.csv", "audit.csv")]
)
def test_every_kind_of_step_gives_apply_files_output_and_audit(data, client, name, audit):
    ref, mine = _both(data, name, audit, reject=True, client=client)
    assert mine.partitions >= 10
    ref_dir, dask_dir = data / f"ref-{name}-{audit}", data / f"dask-{name}-{audit}"
    assert (dask_dir / name).read_bytes() == (ref_dir / name).read_bytes()
    assert (dask_dir / audit).read_bytes() == (ref_dir / audit).read_bytes()
    assert (dask_dir / "rejected" / f"{name}.rejects.jsonl").read_bytes() == (
        ref_dir / "rejects"
    ).read_bytes()
    for attr in (
        "records_in",
        "records_out",
        "failed",
        "skipped_input",
        "dropped_duplicates",
        "cross_row_steps",
        "cross_row_changed",
        "changes_by_step",
        "audit_rows",
    ):
        assert getattr(mine, attr) == getattr(ref, attr), attr
    # emails repeat after 330 rows; row 57 was rejected
    assert mine.dropped_duplicates == 70 - 1 and mine.failed == 2
    changed = ref.cross_row_changed
    # mistyped keys joined their group
    assert changed["cross_row[1]:majority(provider)"]["provider"] > 0
    assert set(changed) == {
        "cross_row[0]:vocabulary(state+code)",
        "cross_row[1]:majority(provider)",
        "cross_row[2]:majority(state+code)",
        "cross_row[3]:majority(flight)",
    }
    kinds = (
        {json.loads(line)["kind"] for line in (ref_dir / audit).read_text().splitlines()}
        if name.endswith("jsonl") and audit.endswith("jsonl")
        else None
    )
    assert kinds in (None, {"changed", "removed", "dropped", "rejected"})


def test_threaded_scheduler_and_a_vocabulary_past_its_cap_are_recounted(data, monkeypatch):
    # 4 states and their misspellings: over the cap in every part
    monkeypatch.setattr(steps_module, "_MAX_VOCAB", 3)
    ref, mine = _both(data, "people.jsonl", None)
    folder = "{}-people.jsonl-None"
    assert (data / folder.format("dask") / "people.jsonl").read_bytes() == (
        data / folder.format("ref") / "people.jsonl"
    ).read_bytes()
    assert mine.cross_row_changed == ref.cross_row_changed


def test_summaries_of_consecutive_parts_merge_into_the_whole_files(monkeypatch):
    steps = [CrossRowStep.from_dict(s) for s in STEPS]
    records = make_records(300, seed=3)
    whole = fit(steps, records)
    parts = [summarize(steps, records[i : i + 37]) for i in range(0, len(records), 37)]
    merged = Summary(steps)
    for part in parts:
        merged.merge(part)
    fitted = merged.fitted()
    assert fitted.groups == whole.groups and not merged.capped
    assert {cell: voc.fixes for cell, voc in fitted.vocab.items()} == {
        cell: voc.fixes for cell, voc in whole.vocab.items()
    }
    assert [fitted.transform(r) for r in records] == [whole.transform(r) for r in records]


def test_unasked_drops_past_max_drop_write_nothing(data, client):
    functions = data / "dedup_functions.py"
    functions.write_text(render_module(FUNCS, cross_row=[{"kind": "dedup", "key": ["provider"]}]))
    target = data / "dropped" / "out.jsonl"
    with pytest.raises(DataLossError, match=r"cross_row\[0\]:dedup\(provider\)") as info:
        apply_dask(
            str(functions),
            str(data / "people.jsonl"),
            str(target),
            client=client,
            batch_size=7,
            partition_size=30,
        )
    assert info.value.records == 400 and info.value.dropped > 300
    # no spool left behind
    assert not target.exists() and not [p for p in (data / "dropped").iterdir()]
    result = apply_dask(
        str(functions),
        str(data / "people.jsonl"),
        str(target),
        client=client,
        batch_size=7,
        partition_size=30,
        max_drop=1.0,
    )
    ref = apply_file(
        str(functions),
        str(data / "people.jsonl"),
        str(data / "dropped.ref.jsonl"),
        max_drop=1.0,
        batch_size=7,
        workers=1,
    )
    assert target.read_bytes() == (data / "dropped.ref.jsonl").read_bytes()
    assert result.dropped_duplicates == ref.dropped_duplicates


def test_each_file_of_a_glob_is_fitted_on_its_own_with_its_own_audit(data, client, tmp_path):
    optional("pyarrow")
    from tests.optional_deps import write_table_file

    folder = tmp_path / "in"
    folder.mkdir()
    records = make_records(200, seed=11)
    (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:120]))
    write_table_file(
        folder / "b.parquet",
        [{k: r.get(k) for k in list(records[0]) + ["bad"]} for r in records[120:]],
    )
    functions = str(data / "cleaning_functions.py")
    result = apply_dask(
        functions,
        str(folder / "*"),
        str(tmp_path / "out"),
        client=client,
        batch_size=7,
        partition_size=14,
        audit=str(tmp_path / "audits"),
    )
    for name in ("a.jsonl", "b.parquet"):
        ref = apply_file(
            functions,
            str(folder / name),
            str(tmp_path / f"ref.{name}"),
            workers=1,
            batch_size=7,
            audit_path=str(tmp_path / f"ref.{name}.audit.jsonl"),
        )
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / f"ref.{name}").read_bytes(), (
            name
        )
        assert (tmp_path / "audits" / f"{name}.audit.jsonl").read_bytes() == (
            tmp_path / f"ref.{name}.audit.jsonl"
        ).read_bytes(), name
        mine = result.files[str(folder / name)]
        assert (mine.records_out, mine.cross_row_changed, mine.audit_rows) == (
            ref.records_out,
            ref.cross_row_changed,
            ref.audit_rows,
        )
    assert result.audit_rows == sum(done.audit_rows for done in result.files.values())
    # no spool left
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.jsonl", "b.parquet"]
