"""Examples are tests, end to end with the fake backend: the library's own choice fixes fields with
no model call, and a model reply that breaks an example is refused with the example as feedback."""

from __future__ import annotations

import csv
import json

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply import apply_file
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

PRICES = ["14,90", "7,50", "1,234", "12", "3,5", "0,99", "2,00", "19,95"]
SKUS = ["AB-1234", "cd 5678", "EF_9012", "GH-3456", "ij7890", "KL-1111", "MN-2222", "OP-3333"]
WEIGHTS = ["500 g", "1.2 kg", "2 lb", "750 g", "0.5", "3 lb", "1 kg", "250 g"]


def _table(tmp_path, **columns) -> str:
    path = tmp_path / "data.csv"
    names = ["id", *columns]
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(names)
        for i in range(len(next(iter(columns.values())))):
            writer.writerow([i, *(values[i] for values in columns.values())])
    return str(path)


def _run(tmp_path, backend, goals, events, **columns):
    cleaner = DataCleaner(
        backend,
        _table(tmp_path, **columns),
        chunk_size=8,
        instructions=goals,
        holdout_ratio=0,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        on_progress=events.append,
        sleep=lambda s: None,
    )
    return cleaner, cleaner.run()


def test_fields_fixed_by_the_librarys_choice_with_zero_model_calls(tmp_path):
    goals = (
        "price: a plain number; the prices use a decimal comma, so 1,234 -> 1.234. "
        'The sku codes: "ab 1234" becomes AB-1234. weight: a number in kg, "2 lb" -> 0.91.'
    )
    backend, events = FakeBackend(default=CLEAN_REPLY), []
    cleaner, result = _run(tmp_path, backend, goals, events, price=PRICES, sku=SKUS, weight=WEIGHTS)
    chosen = {e["field"]: e["call"] for e in events if e["type"] == "function_from_hint"}
    assert chosen == {
        "price": "to_number(value, decimal=',')",
        "sku": "to_shape(value, 'AB-1234')",
        "weight": "to_unit(value, 'kg', digits=2)",
    }
    assert sorted(result.functions) == ["fix_price", "fix_sku", "fix_weight"]
    # no model call for a field, nor an open pass: nothing is left unexplained (issue 45)
    assert backend.calls == 0
    assert cleaner.state.spec.fields["sku"].examples == (("ab 1234", "AB-1234"),)
    out = tmp_path / "out.jsonl"
    apply_file(
        str(tmp_path / "cf.py"), _table(tmp_path, price=PRICES, sku=SKUS, weight=WEIGHTS), str(out)
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["price"] for r in rows][:3] == [14.9, 7.5, 1.234]
    assert {r["sku"] for r in rows} == {
        "AB-1234",
        "CD-5678",
        "EF-9012",
        "GH-3456",
        "IJ-7890",
        "KL-1111",
        "MN-2222",
        "OP-3333",
    }
    assert [r["weight"] for r in rows][:3] == [0.5, 1.2, 0.91]


BREAKS = """from recursive_cleaner.toolkit import to_number


def fix_amount(record):
    record = dict(record)
    record["amount"] = to_number(record.get("amount"))
    return record"""
PASSES = """from recursive_cleaner.toolkit import to_number


def fix_amount(record):
    record = dict(record)
    value = record.get("amount")
    if isinstance(value, str) and value.strip().lower().endswith("tsd"):
        number = to_number(value.strip()[:-3])
        record["amount"] = number * 1000 if isinstance(number, float) else value
    else:
        record["amount"] = to_number(value)
    return record"""
# "tsd": a multiplier no toolkit call reads
AMOUNTS = ["1,5 tsd", "12", "3,50", "2 tsd", "7", "0,25", "4,5 tsd", "9"]


def test_a_model_reply_that_breaks_an_example_is_refused_with_the_example_as_feedback(tmp_path):
    goals = 'amount: a plain number; "tsd" means thousands, so "1,5 tsd" -> 1500.'
    backend = FakeBackend(
        [make_reply("fix_amount", BREAKS), make_reply("fix_amount", PASSES)], default=CLEAN_REPLY
    )
    events: list = []
    _, result = _run(tmp_path, backend, goals, events, amount=AMOUNTS)
    # no toolkit call passes the example
    assert [e for e in events if e["type"] == "function_from_hint"] == []
    first, second = backend.history[0], backend.history[1]
    assert "FIELD TO FIX" in first and "'1,5 tsd' -> '1500'" in first and "tests" in first
    assert (
        "does not pass the goals' examples" in second
        and "'1,5 tsd' should become '1500', it gives 1.5" in second
    )
    refused = [e for e in events if e["type"] == "validation_failed"]
    assert refused and "goals' examples" in refused[0]["error"]
    assert result.functions == ["fix_amount"] and "* 1000" in (tmp_path / "cf.py").read_text()
