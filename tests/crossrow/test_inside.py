"""Steps that repair a field's values from its own (``words``, ``shape``), proposed from the data:
per field, where the sample needs them after the rules across rows, never where the goals say no."""

from __future__ import annotations

import importlib.util
import json

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.crossrow.discover import discover_steps
from recursive_cleaner.crossrow.inside import inside_steps
from recursive_cleaner.crossrow.plan import with_stated
from recursive_cleaner.crossrow.steps import CrossRowStep
from recursive_cleaner.write.module import render_module
from tests.fakes import CLEAN_REPLY, FakeBackend
from tests.optional_deps import optional


def table(n: int = 120) -> list[dict]:
    """Providers (name, city by provider), a count of patients and a percentage per row."""
    out = []
    for k in range(n):
        p = k % 6
        out.append(
            {
                "provider": f"{20001 + p}",
                "name": f"clinic {'abcdef'[p]}",
                "city": ["oslo", "bergen", "bodo"][p % 3],
                "sample": f"{k + 3} patients",
                "score": ["100%", "97%", "98%", "100%"][k % 4],
            }
        )
    out[4]["sample"] = "7 pateents"
    out[9]["score"] = "1?0%"
    out[13]["city"] = "bergon"  # the majority by provider mends it: nothing left for words
    return out


def test_a_step_per_field_and_kind_where_it_changes_a_value():
    assert inside_steps(table()) == [
        CrossRowStep("words", fields=("city",)),
        CrossRowStep("words", fields=("sample",)),
        CrossRowStep("shape", fields=("score",)),
    ]
    assert inside_steps(table(), skip={"sample", "city"}) == [
        CrossRowStep("shape", fields=("score",))
    ]
    assert inside_steps([]) == [] and inside_steps([{"a": 1}] * 20) == []


def test_discovery_proposes_them_last_for_what_the_rules_across_rows_leave():
    steps = discover_steps(table())
    assert [s.kind for s in steps][-2:] == ["words", "shape"]
    assert steps[-2].fields == ("sample",) and steps[-1].fields == ("score",)
    assert any(s.kind == "majority" and "city" in s.fields for s in steps)


def test_discovery_proposes_none_on_a_protected_or_out_of_scope_field():
    steps = discover_steps(table(), protected={"sample"}, frozen={"score"})
    assert not [s for s in steps if s.kind in ("words", "shape")]


def test_the_cleaner_plans_them_and_writes_them_into_the_functions_file(tmp_path):
    data = table()
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in data))
    backend = FakeBackend(lambda prompt: CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(source),
        chunk_size=40,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        sleep=lambda s: None,
    ).run()
    assert {(s["kind"], tuple(s["fields"])) for s in result.cross_row} >= {
        ("words", ("sample",)),
        ("shape", ("score",)),
    }
    spec = importlib.util.spec_from_file_location("cf_inside", tmp_path / "cf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.clean_dataset(data)
    assert (out[4]["sample"], out[9]["score"], out[13]["city"]) == ("7 patients", "100%", "bergen")


def test_apply_dask_runs_them_as_apply_file_does(tmp_path):
    optional("dask.bag")
    from recursive_cleaner.apply.on_dask import apply_dask

    steps = [CrossRowStep("words", fields=("sample",)), CrossRowStep("shape", fields=("score",))]
    path = tmp_path / "cleaning_functions.py"
    path.write_text(render_module([], cross_row=[s.to_dict() for s in steps]))
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in table()))
    ref = apply_file(
        str(path),
        str(source),
        str(tmp_path / "ref.jsonl"),
        workers=1,
        batch_size=7,
        audit_path=str(tmp_path / "ref-audit.jsonl"),
    )
    mine = apply_dask(
        str(path),
        str(source),
        str(tmp_path / "dask.jsonl"),
        batch_size=7,
        partition_size=30,
        audit=str(tmp_path / "dask-audit.jsonl"),
    )
    assert mine.partitions > 1 and mine.cross_row_changed == ref.cross_row_changed
    assert ref.cross_row_changed == {
        "cross_row[0]:words(sample)": {"sample": 1},
        "cross_row[1]:shape(score)": {"score": 1},
    }
    for name in ("{}.jsonl", "{}-audit.jsonl"):
        ref_bytes = (tmp_path / name.format("ref")).read_bytes()
        assert (tmp_path / name.format("dask")).read_bytes() == ref_bytes


def test_a_plan_that_leaves_them_out_gets_them_back_once():
    words, shape = (CrossRowStep(k, fields=("sample",)) for k in ("words", "shape"))
    majority = CrossRowStep("majority", key=("provider",), fields=("city",))
    candidates = [majority, words, shape]
    assert with_stated([], candidates, []) == [words, shape]  # the data shows them
    assert with_stated([majority, words], candidates, []) == [majority, words, shape]
    wider = CrossRowStep("words", fields=("sample", "city"))
    assert with_stated([wider], candidates, []) == [wider, shape]
