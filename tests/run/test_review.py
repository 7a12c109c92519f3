"""Evidence before every write (issue 42), end to end with the fake backend: the reading reviewed
before any call (``plan``), no write without a target, a rule across rows writing only what its
clause names, and what was not done said (unmet goals)."""

from __future__ import annotations

import csv
import json
import textwrap

from click.testing import CliRunner

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.ui.cli import cli
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

POSTCODES = ["01067", "1252 AD", "10115", "80331", "01099", "3011 AB", "75001", "20095"]


def _csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def shop(n: int = 40) -> list[dict]:
    return [
        {
            "order_id": f"ORD-{5000 + i}",
            "postcode": POSTCODES[i % len(POSTCODES)],
            "order_date": "2025-01-%02d" % (1 + i % 28) if i % 5 else "%02d/01/2025" % (1 + i % 28),
        }
        for i in range(n)
    ]


STRIP = textwrap.dedent("""\
    from recursive_cleaner.toolkit import strip_units

    def fix_postcode(record):
        record = dict(record)
        record["postcode"] = strip_units(record.get("postcode"))
        return record""")


def test_plan_prints_the_reading_with_its_evidence_and_calls_no_model(tmp_path):
    data = _csv(tmp_path / "orders.csv", shop())
    backend = FakeBackend(default=CLEAN_REPLY)
    goals = "Order dates as YYYY-MM-DD please. The courier reads the postcodes off our labels."
    plan = DataCleaner(
        backend, str(data), instructions=goals, output_path=str(tmp_path / "cf.py")
    ).plan()
    assert backend.calls == 0
    text = str(plan)
    assert "order_date: ISO dates (YYYY-MM-DD)" in text and "evidence:" in text
    assert "postcode: mentioned, with no change asked of it" in text
    saved = json.loads((tmp_path / "cf.plan.spec.json").read_text())
    assert saved["fields"]["order_date"]["kind"] == "date"
    result = CliRunner().invoke(
        cli, ["plan", str(data), "-i", goals, "-o", str(tmp_path / "out" / "cf.py")]
    )
    assert result.exit_code == 0, result.output
    assert 'evidence: "Order dates as YYYY-MM-DD please."' in result.output
    assert "spec written to" in result.output


def test_a_field_in_keep_words_the_reader_has_no_phrase_for_is_left_as_it_is(tmp_path):
    """Postcodes protected in words the reader does not know: no target binds them, so neither the
    toolkit's one-liner nor the model's function may write them."""
    data = _csv(tmp_path / "orders.csv", shop())
    goals = (
        "Order dates as YYYY-MM-DD please. The postcodes go to the courier verbatim, character "
        "for character, the way the customer typed them."
    )
    backend = FakeBackend(
        lambda p: make_reply("fix_postcode", STRIP) if "postcode" in p else CLEAN_REPLY
    )
    output = tmp_path / "cf.py"
    result = DataCleaner(
        backend, str(data), instructions=goals, output_path=str(output), sleep=lambda s: None
    ).run()
    assert "fix_postcode" not in result.functions
    out = tmp_path / "out.csv"
    apply_file(str(output), str(data), str(out), workers=1)
    assert [r["postcode"] for r in _read(out)] == [r["postcode"] for r in shop()]
    assert [r["order_id"] for r in _read(out)] == [r["order_id"] for r in shop()]


def clinic(n: int = 60) -> list[dict]:
    names = {"C1": "Lakeside Clinic", "C2": "Hill Street Practice", "C3": "Riverside Health"}
    rows = []
    for i in range(n):
        cid = ("C1", "C2", "C3")[i % 3]
        name = names[cid]
        if i in (4, 17, 29):
            name = name.replace("i", "y", 1)  # a misspelling
        rows.append({"clinic_id": cid, "clinic_name": name, "insured": ("yes", "no")[i % 2]})
    return rows


def test_a_key_sentence_naming_one_field_writes_only_that_field(tmp_path):
    data = _csv(tmp_path / "visits.csv", clinic())
    goals = "Mend misspelled clinic names: rows with the same clinic_id have the same clinic_name."
    plan = (
        '<cross_row_plan><cross_row_step kind="majority" key="clinic_id" '
        'fields="clinic_name, insured"/></cross_row_plan>'
    )
    backend = FakeBackend(lambda p: plan if "RULES ACROSS ROWS" in p else CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(data),
        instructions=goals,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    written = {f for s in result.cross_row for f in s["fields"]}
    assert written == {"clinic_name"}
    out = tmp_path / "out.csv"
    apply_file(str(tmp_path / "cf.py"), str(data), str(out), workers=1)
    cleaned = _read(out)
    assert [r["insured"] for r in cleaned] == [r["insured"] for r in clinic()]
    assert {r["clinic_name"] for r in cleaned} == {
        "Lakeside Clinic",
        "Hill Street Practice",
        "Riverside Health",
    }


def test_an_unmet_goal_is_said_in_the_result_the_report_and_the_cli(tmp_path, monkeypatch):
    data = _csv(tmp_path / "orders.csv", shop())
    goals = "Order dates as YYYY-MM-DD please. Tidy the order ids up a bit."
    result = DataCleaner(
        FakeBackend(default=CLEAN_REPLY),
        str(data),
        instructions=goals,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert "order_id" in result.unmet and "Tidy the order ids" in result.unmet["order_id"]
    assert "## Unmet goals" in (tmp_path / "cleaning_report.md").read_text()
    from recursive_cleaner.ui import cli as cli_module

    monkeypatch.setattr(cli_module, "make_backend", lambda spec: FakeBackend(default=CLEAN_REPLY))
    monkeypatch.chdir(tmp_path)
    shown = CliRunner().invoke(cli, ["generate", "orders.csv", "-i", goals, "--progress", "off"])
    assert shown.exit_code == 0, shown.output
    assert "unmet goals (1)" in shown.output and "order_id: asked" in shown.output


def test_a_cleaner_plans_before_it_fits(tmp_path):
    from recursive_cleaner import Cleaner

    cleaner = Cleaner(
        "Order dates as YYYY-MM-DD please.",
        backend=FakeBackend(default=CLEAN_REPLY),
        output_path=str(tmp_path / "cf.py"),
    )
    reading = cleaner.plan(shop())  # a list of dicts, as fit takes it
    assert "order_date: ISO dates (YYYY-MM-DD)" in str(reading)
    assert cleaner.backend.calls == 0


def test_an_example_the_librarys_own_call_leaves_as_it_came_is_said_as_unmet(tmp_path):
    weights = ["1.5", "2 lb", "3.25 lb", "2 lb 12 oz", "4", "5 lb", "0.75", "6 lb"]
    data = _csv(tmp_path / "w.csv", [{"id": str(i), "weight": weights[i % 8]} for i in range(40)])
    goals = 'weight: only the number in pounds (for example "2 lb 12 oz" = 2.75)'
    fake = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        fake,
        str(data),
        instructions=goals,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert result.functions == ["fix_weight"], result.unmet
    assert "'2 lb 12 oz' -> '2.75' was not done" in result.unmet["weight"]
    out = apply_file(str(tmp_path / "cf.py"), str(data), str(tmp_path / "out.csv"))
    cleaned = {r["weight"] for r in _read(tmp_path / "out.csv")}
    assert "2 lb 12 oz" in cleaned and "3.25" in cleaned and "3.25 lb" not in cleaned
    assert out is not None


def test_a_field_given_up_on_the_first_chunk_gets_the_librarys_call_where_a_later_one_mends(
    tmp_path,
):
    # the first chunk's wrong values are ones no call maps ('Incorrect item'); later chunks hold
    # case and typo variants the list mends: the library's own call, with no model call
    later = ["DEFECTIVE", "wrong item", "Defectve", "Wrong item", "Defective"]
    rows = [{"id": str(i), "reason": "Incorrect item" if i % 2 else "Defective"} for i in range(20)]
    rows += [{"id": str(20 + i), "reason": later[i % 5]} for i in range(40)]
    data = _csv(tmp_path / "r.csv", rows)
    fake = FakeBackend(default=CLEAN_REPLY)
    result = DataCleaner(
        fake,
        str(data),
        instructions='reason: one of "Defective", "Wrong item"',
        output_path=str(tmp_path / "cf.py"),
        chunk_size=20,
        sleep=lambda s: None,
    ).run()
    assert result.functions == ["fix_reason"]
    apply_file(str(tmp_path / "cf.py"), str(data), str(tmp_path / "out.csv"))
    cleaned = [r["reason"] for r in _read(tmp_path / "out.csv")]
    assert set(cleaned[20:]) == {"Defective", "Wrong item"}
    assert cleaned[1] == "Incorrect item"  # no value of the list spells it: left as it came
    assert "reason" in result.unmet
