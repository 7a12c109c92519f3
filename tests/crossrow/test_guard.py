"""No cross-row step may destroy data the goals say to keep: each unsafe step is refused with a
reason."""

from __future__ import annotations

import json
import random

import pytest

from recursive_cleaner import DataCleaner, DataLossError, apply_file, apply_records
from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps
from recursive_cleaner.crossrow.guard import asks_dedup, dedup_key_problem, harm
from recursive_cleaner.crossrow.plan import validate_steps
from recursive_cleaner.write.module import render_module
from tests.fakes import CLEAN_REPLY, FakeBackend

STATUSES = ("active", "pending", "churned")
COUNTRIES = ("US", "CA", "GB")
CRM_GOALS = (
    "status: exactly one of active, pending or churned.\n\n"
    "Keep every record, including duplicates (removing duplicates is a separate step)."
)


def crm_rows(n: int = 120, duplicates: int = 6) -> list[dict]:
    """Customers with a few handful-valued fields and a few true duplicates (same id and email) at
    the end."""
    rng = random.Random(7)
    rows = [
        {
            "customer_id": 1000 + i,
            "name": f"Person {i % 97}",
            "email": f"p{i}@example.com",
            "status": rng.choice(STATUSES),
            "country": rng.choice(COUNTRIES),
        }
        for i in range(n - duplicates)
    ]
    return rows + [dict(rows[i]) for i in range(duplicates)]


@pytest.mark.parametrize(
    "goals",
    [
        "Remove duplicates by email.",
        "Deduplicate the customers on customer_id.",
        "Drop duplicate rows, keeping the first one.",
        "- dedup by email",
    ],
)
def test_goals_that_ask_to_remove_duplicates(goals):
    assert asks_dedup(goals)


@pytest.mark.parametrize(
    "goals",
    [
        CRM_GOALS,
        "Do not remove duplicates.",
        "Don't drop duplicate rows; that happens later.",
        "Duplicates are fine.",
        "There are duplicate customers in the export.",
        "Keep duplicates as they are.",
        "phones to E.164",
        "",
        "Removing duplicates is out of scope here.",
    ],
)
def test_goals_that_do_not_ask_to_remove_duplicates(goals):
    assert not asks_dedup(goals)


@pytest.mark.parametrize("key", ["status", "country"])
def test_a_dedup_key_with_a_handful_of_values_is_refused_even_when_asked(key):
    rows = crm_rows()
    assert "names a group" in dedup_key_problem(CrossRowStep("dedup", key=(key,)), rows)
    kept, refused = validate_steps([CrossRowStep("dedup", key=(key,))], rows, allow_dedup=True)
    assert kept == [] and "names a group, not a record" in refused[0][1]


def test_a_dedup_key_that_makes_many_rows_duplicates_is_refused():
    rows = crm_rows()
    for r in rows:  # 40 names over 120 rows: 80 would be duplicates
        r["name"] = f"Person {r['customer_id'] % 40}"
    kept, refused = validate_steps([CrossRowStep("dedup", key=("name",))], rows, allow_dedup=True)
    assert kept == [] and "does not identify records" in refused[0][1]


def test_a_dedup_key_blank_in_most_rows_is_refused():
    rows = crm_rows()
    for r in rows[:80]:
        r["email"] = None
    kept, refused = validate_steps([CrossRowStep("dedup", key=("email",))], rows, allow_dedup=True)
    assert kept == [] and "is blank in 80 of 120" in refused[0][1]


def test_an_identifying_dedup_key_the_goals_ask_for_is_kept_and_marked_asked():
    rows = crm_rows()
    kept, refused = validate_steps(
        [CrossRowStep("dedup", key=("customer_id",))], rows, allow_dedup=True
    )
    assert refused == [] and kept == [CrossRowStep("dedup", key=("customer_id",), asked=True)]
    assert len(apply_steps(kept, rows)) == 114


def test_a_dedup_step_the_goals_do_not_ask_for_is_refused():
    kept, refused = validate_steps(
        [CrossRowStep("dedup", key=("customer_id",))], crm_rows(), allow_dedup=False
    )
    assert kept == [] and refused[0][1] == "the goals do not ask to remove duplicates"


def test_a_step_that_drops_many_records_is_refused_unless_asked():
    rows = crm_rows(duplicates=20)
    step = CrossRowStep("dedup", key=("customer_id",))
    after = apply_steps([step], rows)
    assert "drops 20 of 120 sample records" in harm(step, rows, after, asked=False)
    assert harm(step, rows, after, asked=True) is None


def test_a_majority_step_that_rewrites_much_of_a_field_is_refused_unless_its_key_is_stated():
    rows = crm_rows()
    for i, r in enumerate(rows):
        # 70% active in every country
        r["status"] = STATUSES[0] if i % 10 < 7 else STATUSES[1 + i % 2]
    # a bogus rule: status by country
    step = CrossRowStep("majority", key=("country",), fields=("status",))
    # unstated: 'pending' is no variant of 'active', nothing changes
    kept, refused = validate_steps([step], rows)
    assert kept == [] and "changes nothing" in refused[0][1]
    kept, _ = validate_steps([step], rows, stated=["country"])
    assert kept == [step]
    # variants of the majority, but too many of them for a rule nobody stated
    for i, r in enumerate(rows):
        r["status"] = STATUSES[0] if i % 10 < 7 else STATUSES[0].upper()
    kept, refused = validate_steps([step], rows)
    assert kept == [] and "values of status on the sample (more than 20%)" in refused[0][1]


def test_the_cleaner_writes_no_unsafe_step_whatever_the_model_proposes(tmp_path):
    """The README's job at 61b931a: the model proposed dedup on id, name, status and country; 298 of
    300 lost."""
    rows = crm_rows()
    for r in rows:  # a rule across rows for discovery to find, so that the plan call is made
        r["region"] = "EU" if r["country"] == "GB" else "NA"
    path = tmp_path / "crm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    plan = (
        "<cross_row_plan>"
        + "".join(
            f'<cross_row_step kind="dedup" key="{k}" normalize="casefold"/>'
            for k in ("customer_id", "name", "status", "country")
        )
        + "</cross_row_plan>"
    )
    backend = FakeBackend(lambda p: plan if "RULES ACROSS ROWS" in p else CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=60,
        instructions=CRM_GOALS + " Remove nothing else.",
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert result.cross_row == [] and result.cross_row_dropped == 0
    reasons = [r for n, r in result.rejected if n.startswith("<cross_row_step")]
    assert len(reasons) == 4 and all(
        r == "the goals do not ask to remove duplicates" for r in reasons
    )
    report = (tmp_path / "cleaning_report.md").read_text()
    assert "## Cross-row steps" in report and "the goals do not ask to remove duplicates" in report
    assert "CROSS_ROW_STEPS" not in (tmp_path / "cf.py").read_text()
    prompt = [p for p in backend.history if "RULES ACROSS ROWS" in p][0]
    assert 'kind="dedup"' not in prompt  # the goals keep duplicates: dedup is not even offered


def test_asked_for_dedup_keeps_only_the_identifying_key_and_reports_the_drop(tmp_path):
    rows = crm_rows()
    path = tmp_path / "crm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    plan = (
        "<cross_row_plan>"
        + "".join(
            f'<cross_row_step kind="dedup" key="{k}" normalize="casefold"/>'
            for k in ("status", "country", "customer_id")
        )
        + "</cross_row_plan>"
    )
    backend = FakeBackend(lambda p: plan if "RULES ACROSS ROWS" in p else CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=60,
        instructions="Remove duplicate customers.",
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert [(s["key"], s.get("asked")) for s in result.cross_row] == [(["customer_id"], True)]
    assert (result.cross_row_dropped, result.cross_row_sample) == (6, 120)
    report = (tmp_path / "cleaning_report.md").read_text()
    assert (
        "keep 114 of 120 records (6 dropped)" in report and "names a group, not a record" in report
    )


def _functions(tmp_path, steps: list[dict]):
    path = tmp_path / "cleaning_functions.py"
    fn = {"name": "keep", "code": "def keep(record):\n    return record", "docstring": ""}
    path.write_text(render_module([fn], cross_row=steps))
    return path


def test_apply_refuses_a_drop_the_goals_did_not_ask_for_and_writes_nothing(tmp_path):
    rows = crm_rows()
    data = tmp_path / "crm.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    functions = _functions(tmp_path, [CrossRowStep("dedup", key=("status",)).to_dict()])
    with pytest.raises(DataLossError, match=r"would drop at least \d+ of 120 records") as info:
        apply_file(str(functions), str(data), str(out), workers=1, trusted=True)
    assert info.value.records == 120 and info.value.dropped > 6 and not out.exists()
    # no partial file left
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.jsonl")]
    result = apply_file(str(functions), str(data), str(out), workers=1, trusted=True, max_drop=1.0)
    assert (result.records_in, result.records_out) == (120, 3)  # the user asked for it explicitly
    with pytest.raises(DataLossError):
        list(apply_records(functions.read_text(), rows, workers=1, trusted=True))


def test_apply_lets_an_asked_for_dedup_and_a_small_drop_through(tmp_path):
    rows = crm_rows()
    data = tmp_path / "crm.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # 6 of 120 = 5%
    small = _functions(tmp_path, [CrossRowStep("dedup", key=("customer_id",)).to_dict()])
    assert (
        apply_file(
            str(small), str(data), str(tmp_path / "a.jsonl"), workers=1, trusted=True
        ).records_out
        == 114
    )
    many = crm_rows(duplicates=30)
    data.write_text("".join(json.dumps(r) + "\n" for r in many))
    asked = _functions(
        tmp_path, [CrossRowStep("dedup", key=("customer_id",), asked=True).to_dict()]
    )
    assert (
        apply_file(
            str(asked), str(data), str(tmp_path / "b.jsonl"), workers=1, trusted=True
        ).records_out
        == 90
    )


def test_asked_round_trips_and_old_files_stay_the_same():
    step = CrossRowStep("dedup", key=("email",), asked=True)
    assert CrossRowStep.from_dict(step.to_dict()) == step
    assert "asked" not in CrossRowStep("dedup", key=("email",)).to_dict()
    with pytest.raises(ValueError, match="only a dedup step"):
        CrossRowStep("majority", key=("a",), fields=("b",), asked=True)
