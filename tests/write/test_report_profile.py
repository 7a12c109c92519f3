"""write/report/profile and the page's profile (issue 45): per column what a data team looks at,
counted in one bounded streaming pass over the whole file; the source named as the user gave it;
the goals, their reading, the code and the model's calls on the page; bars on one scale."""

from __future__ import annotations

import json
import re

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.check import validate
from recursive_cleaner.profiling.spec import load_spec
from recursive_cleaner.read.inputs import given_as, materialize_input
from recursive_cleaner.write.report import profile as prof
from recursive_cleaner.write.report.html_changes import BAR_WIDTH, bars
from recursive_cleaner.write.report.profile import (
    DISTINCT_CAP,
    MAX_COLUMNS,
    SAMPLE,
    TOP_SLOTS,
    FileProfile,
    add_profile,
    profile_file,
    profile_records,
    wrong_counts,
)
from recursive_cleaner.write.report_data import ReportData
from recursive_cleaner.write.report_html import render_html
from recursive_cleaner.write.report_json import report_from_dict, report_to_dict
from tests.fakes import FakeBackend
from tests.optional_deps import optional
from tests.write.test_report_html import HOSTILE_NAME, PWN, SAFE_TAGS, parsed, phone_run

SPEC = {
    "fields": {
        "status": {"kind": "enum", "allowed": ["active", "churned"], "source": "instructions"},
        "joined": {"kind": "date", "source": "instructions", "evidence": "joined: YYYY-MM-DD"},
    }
}


def column(profile: dict, name: str) -> dict:
    return next(c for c in profile["columns"] if c["name"] == name)


def test_a_column_shows_types_blanks_distinct_top_values_and_a_distribution(tmp_path):
    rows = [
        {"id": 1, "status": "active", "joined": "2024-01-02", "score": 1.5},
        {"id": 2, "status": "Active", "joined": "02/01/2024", "score": 3},
        {"id": 3, "status": "active", "joined": None, "score": "n/a"},
        {"id": "4", "status": "", "joined": "2024-01-05"},
        {"id": 5, "status": "N/A", "joined": "2024-01-06", "score": 10},
    ]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{broken\n")
    out = profile_file(path, spec=load_spec(SPEC))
    assert out["records"] == 5 and out["skipped"] == 1 and out["label"] == str(path)
    ids = column(out, "id")
    assert ids["types"] == {"integer": 4, "text": 1} and ids["distinct"] == 5
    assert ids["nulls"] == 0 and ids["numbers"]["min"] == 1 and ids["numbers"]["max"] == 5
    status = column(out, "status")  # "" and "N/A" are blanks, as validate counts them
    assert status["nulls"] == 2 and status["distinct"] == 2 and status["top_exact"] is True
    assert status["top"] == [["active", 2], ["Active", 1]]
    assert status["lengths"] == [0, 0, 3, 0, 0, 0, 0, 0]  # three values of 5-9 characters
    # wrong by the goals: the same count validate gives, and the clause that binds the field
    check = validate(str(path), load_spec(SPEC), shown=0)
    assert status["wrong"] == check.broken["status"] == 1 and status["checked"] == 3
    joined = column(out, "joined")
    assert joined["wrong"] == check.broken["joined"] == 1 and joined["nulls"] == 1
    assert joined["evidence"] == "joined: YYYY-MM-DD"
    score = column(out, "score")  # absent in one record, a placeholder in another
    assert score["nulls"] == 2 and score["numbers"]["mean"] == pytest.approx(14.5 / 3)


def test_a_csvs_numbers_are_numbers_and_a_text_file_has_no_columns(tmp_path):
    csv_path = tmp_path / "d.csv"
    csv_path.write_text("qty,code\n12,007\n3.5,A1\n,B2\n")
    out = profile_file(csv_path)
    assert column(out, "qty")["types"] == {"integer": 1, "number": 1}
    assert column(out, "qty")["nulls"] == 1 and column(out, "code")["types"]["text"] == 2
    # mostly numbers: its distribution is of the values, not of their lengths
    row = re.search(r'data-column="qty".*?</tr>', render_html(ReportData(profile={"before": out})))
    assert "3.5 … 12, mean" in row.group(0)
    text = tmp_path / "notes.txt"
    text.write_text("some prose\n")
    assert profile_file(text)["columns"] == [] and "no columns" in profile_file(text)["note"]


def test_memory_is_bounded_whatever_the_file_holds():
    """20,000 distinct values in a column and 300 columns: every structure stays at its cap."""
    spec = load_spec({"fields": {"c299": {"kind": "integer", "source": "instructions"}}})
    profile = prof._start(spec, False)
    for i in range(20_000):
        record = {"v": f"value-{i}", "n": i}
        if i < 50:
            record.update({f"c{j}": j for j in range(300)})
        profile.add(record)
    v, n = profile.columns["v"], profile.columns["n"]
    assert v.distinct_capped and v.digests == set() and len(v.top) <= TOP_SLOTS
    assert len(n.sample) == SAMPLE and n.numbers == 20_000 and n.high == 19_999
    # the columns past the cap are counted, not described, except the one the spec checks
    assert len(profile.columns) == MAX_COLUMNS + 1 and "c299" in profile.columns
    assert len(profile.more_columns) == 302 - MAX_COLUMNS - 1
    shown = profile.to_dict("x")
    assert column(shown, "v")["distinct"] == DISTINCT_CAP and column(shown, "v")["distinct_capped"]


def steps_for(n: int) -> int:
    profile = FileProfile()
    for i in range(n):
        profile.add({"a": f"x{i}", "b": i % 7})
    return profile.steps


def test_the_work_grows_linearly_with_the_records():
    """Counted steps (hashes, counter updates, Misra-Gries decrements), not time."""
    small, large = steps_for(2_000), steps_for(8_000)
    assert large <= 4.2 * small
    assert large <= 8 * 8_000  # a few steps per value, the decrements amortized


def test_misra_gries_finds_a_value_more_frequent_than_one_in_the_slots():
    profile = FileProfile()
    for i in range(6_000):
        profile.add({"k": "hot" if i % 3 == 0 else f"cold{i}"})
    top = column(profile.to_dict("x"), "k")["top"]
    assert top[0][0] == "hot" and 0 < top[0][1] <= 2_000
    assert column(profile.to_dict("x"), "k")["top_exact"] is False


def test_the_profile_survives_saving_and_a_wrong_type_names_its_key(tmp_path):
    data = ReportData(profile={"before": profile_records([{"a": 1}, {"a": None}], label="in")})
    back = report_from_dict(json.loads(json.dumps(report_to_dict(data))), "r.json")
    assert back.profile == data.profile and render_html(back) == render_html(data)
    saved = report_to_dict(data)
    saved["profile"]["before"]["columns"][0]["nulls"] = "many"
    with pytest.raises(ValueError, match=r"profile\.before\.columns\[0\]\.nulls"):
        report_from_dict(saved, "r.json")


def test_a_frame_or_records_given_in_memory_are_named_as_given():
    path = materialize_input([{"a": 1}, {"a": 2}, {"a": 3}])
    assert given_as(path) == "a list of 3 records"
    data = add_profile(ReportData(source=path), path)
    assert data.source_label == "a list of 3 records"
    assert data.profile["before"]["label"] == "a list of 3 records"
    pd = optional("pandas")
    frame_path = materialize_input(pd.DataFrame({"a": [1, 2], "b": ["x", None]}))
    assert add_profile(ReportData(), frame_path).source_label == "a DataFrame of 2 rows"


def test_a_run_on_records_names_them_and_not_the_temp_file(tmp_path):
    rows = [{"id": i, "phone": "(555) 123-4567"} for i in range(6)]
    cleaner = DataCleaner(
        FakeBackend(lambda p: "nothing"),
        rows,
        instructions="phone: E.164 (+15551234567)",
        output_path=str(tmp_path / "cleaning_functions.py"),
        holdout_ratio=0,
        chunk_size=6,
    )
    cleaner.run()
    page = (tmp_path / "cleaning_report.html").read_text(encoding="utf-8")
    markdown = (tmp_path / "cleaning_report.md").read_text(encoding="utf-8")
    assert "Source: a list of 6 records" in page and "a list of 6 records" in markdown
    assert "recursive_cleaner_inputs" not in page and "recursive_cleaner_inputs" not in markdown


def test_a_runs_page_holds_the_profile_the_goals_reading_the_code_and_the_calls(tmp_path):
    phone_run(tmp_path, track_metrics=True)
    page = (tmp_path / "cleaning_report.html").read_text(encoding="utf-8")
    for section in ("profile", "fields", "goals", "code", "model"):
        assert f'<section id="{section}">' in page
    found = re.findall(r'<tr class="rc-col" data-column="([^"]*)" data-when="([^"]*)"', page)
    assert found == [
        ("id", "before"),
        ("id", "after (sample)"),
        ("phone", "before"),
        ("phone", "after (sample)"),
    ]
    assert "phone: E.164 phone numbers" in page and "evidence: &quot;phone: E.164" in page
    # the code of each function, tied to its field
    fn = re.search(r'<tr class="rc-fn" data-function="(\w+)">(.*?)</tr>', page, re.S)
    assert fn and "<code>phone</code>" in fn.group(2)
    assert f"<summary><code>{fn.group(1)}</code> — field phone</summary>" in page
    assert "to_e164(record.get(&quot;phone&quot;))" in page
    assert re.search(r"<th[^>]*>Calls</th><td[^>]*>\d+", page)


def test_apply_counts_whole_files_as_validate_does(tmp_path):
    from recursive_cleaner.apply.report import write_apply_report
    from recursive_cleaner.apply.result import ApplyResult

    source, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text('{"status": "Active"}\n{"status": "active"}\n{"status": "x"}\n')
    output.write_text('{"status": "active"}\n{"status": "active"}\n{"status": "x"}\n')
    page = tmp_path / "r.html"
    result = ApplyResult(records_in=3, records_out=3)
    code = "def clean_data(record):\n    return record\n"
    write_apply_report("f.py", source, output, result, page, spec=SPEC, code=code)
    html = page.read_text(encoding="utf-8")
    row = re.search(r'data-field="status">(.*?)</tr>', html, re.S).group(1)
    spec = load_spec(SPEC)
    before, after = validate(str(source), spec, shown=0), validate(str(output), spec, shown=0)
    assert re.findall(r'<td class="rc-n">([^<]*)</td>', row) == [
        str(before.broken["status"]),
        str(after.broken["status"]),
    ]
    assert 'data-column="status" data-when="after"' in html
    data = ReportData(profile={"before": profile_file(source, spec=spec)})
    data.profile["after"] = profile_file(output, spec=spec)
    assert wrong_counts(data.profile) == {"records": 3, "fields": {"status": [2, 1]}}


def test_bars_are_drawn_on_one_scale():
    widths = [re.findall(r'width="(\d+)" height="12"', bars("f", n, 0, 39))[0] for n in (39, 26)]
    assert widths == [str(BAR_WIDTH), str(round(BAR_WIDTH * 26 / 39))]


HOSTILE_CODE = "</code></pre><script>alert(1)</script>\ndef f(record):\n    return record\n"


def test_every_new_section_escapes_what_it_shows():
    records = [{HOSTILE_NAME: PWN, "n": 1}, {HOSTILE_NAME: PWN, "n": 2}]
    data = ReportData(
        source_label=PWN,
        instructions=f"Leave {HOSTILE_NAME} alone. {PWN}",
        plan=[f"  {HOSTILE_NAME}: {PWN}"],
        profile={"before": profile_records(records, label=PWN)},
        functions=[{"name": "f", "field": HOSTILE_NAME, "issue": PWN, "code": HOSTILE_CODE}],
        llm={"calls": 2, "prompt_tokens": 10, "completion_tokens": 5},
        seconds=3.0,
    )
    page = render_html(data)
    tags = parsed(page)
    assert {t for t, _ in tags.tags} <= SAFE_TAGS | {"pre", "details", "summary", "br"}
    assert not [a for _, attrs in tags.tags for a in attrs if a.startswith("on") or a == "src"]
    assert "<script" not in page.lower() and "<img" not in page.lower()
    text = "".join(tags.text)
    assert PWN in text and "<script>alert(1)</script>" in text and HOSTILE_NAME[:20] in text
