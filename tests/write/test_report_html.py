"""write/report_html: the HTML cleaning report — what it shows, where it goes, every value
escaped."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.profiling.spec import load_spec
from recursive_cleaner.write.metrics import compare_quality
from recursive_cleaner.write.report_html import (
    counts_from_checks,
    field_counts,
    html_fragment,
    html_report_path,
    left_alone_fields,
    render_html,
)
from recursive_cleaner.write.report_data import ReportData
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

HOSTILE_NAME = '<script>alert("x")</script>&"\'</td>'
LONG = "A" * 20_000
CONTROL = "\x1b]52;c;cHduZWQ=\x07red\x1b[31m\x00\x08end"
PWN = "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">"


def hostile_data() -> ReportData:
    """A report whose every untrusted text is an attack or an oddity."""
    record = {HOSTILE_NAME: PWN, "long": LONG, "ctl": CONTROL, "num": float("nan")}
    cleaned = {
        HOSTILE_NAME: "&amp; 'q' \"dq\"",
        "long": LONG + "B",
        "ctl": "ok",
        "num": float("inf"),
    }
    return ReportData(
        title="Report </title><script>alert(1)</script>",
        source='/data/"quoted"&<b>.jsonl',
        functions=[
            {
                "name": "fix",
                "field": HOSTILE_NAME,
                "issues_before": {HOSTILE_NAME: 3},
                "issues_after": {HOSTILE_NAME: 0},
                "examples": [{"input": record, "output": cleaned}],
            }
        ],
        unfixable={"<b>given</b>": "up <i>on</i> \x1b[2J it"},
        left_alone=[(PWN, 'protected — "leave <u>it</u>" & more')],
        cross_row=["majority of <script>x</script> by `id`"],
        cross_row_rows=[float("nan")],
        cross_row_sample=10,
        whole_file={
            "records": float("inf"),
            "fields": {HOSTILE_NAME: [float("nan"), -1], "long": [5, float("inf")]},
        },
    )


class Tags(HTMLParser):
    """Every start tag and attribute of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parsed(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    return tags


SAFE_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "div",
    "h1",
    "h2",
    "p",
    "span",
    "section",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "code",
    "ul",
    "li",
    "svg",
    "rect",
}


def test_every_hostile_value_is_escaped_and_the_page_fetches_nothing():
    page = render_html(hostile_data())
    tags = parsed(page)
    assert {t for t, _ in tags.tags} <= SAFE_TAGS
    assert not [a for _, attrs in tags.tags for a in attrs if a.startswith("on") or a == "src"]
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert "&lt;script&gt;" in page and "&lt;img src=x onerror=" in page
    # nothing to fetch: no script, link, url() or @import; the one URL is the SVG namespace
    assert re.findall(r"https?://[^\"' ]+", page) == ["http://www.w3.org/2000/svg"] * page.count(
        "<svg"
    )
    assert "url(" not in page and "@import" not in page and "<link" not in page
    # controls removed (tab/newline aside), long values cut, non-finite counts shown as a dash
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", page)
    assert LONG not in page and re.search("A…A{20,}B</code>", page)
    assert "\\x1b]52;c;" in page  # a control character shows as its escape, never acts
    row = next(attrs for tag, attrs in tags.tags if tag == "tr" and attrs.get("data-field"))
    assert row["data-field"] == HOSTILE_NAME
    assert "inf" not in re.sub(r"<code>[^<]*</code>", "", page).lower().replace("info", "")
    assert 'width="nan"' not in page.lower() and 'width="inf"' not in page.lower()
    assert "'nan'" not in page and "<code>nan</code>" in page and "<code>inf</code>" in page


def test_a_field_row_has_counts_a_chart_and_real_examples():
    before = [{"phone": "(555) 123-4567", "id": "1"}, {"phone": "555.987.6543", "id": "2"}]
    after = [{"phone": "+15551234567", "id": "1"}, {"phone": "+15559876543", "id": "2"}]
    imp = compare_quality(before, after, expectations=load_spec(SPEC).expectations())
    data = ReportData(
        improvement=imp,
        functions=[
            {"name": "fix_phone", "field": "phone", "examples": [{"input": b, "output": a}]}
            for b, a in zip(before, after)
        ],
    )
    counts, basis = field_counts(data)
    assert counts["phone"] == (2, 0) and basis.startswith("measured on 2 sampled records")
    page = render_html(data)
    assert "measured on 2 sampled records, not the whole file" in page
    row = page[page.index('data-field="phone"') :].split("</tr>")[0]
    assert "<svg" in row and row.count("<li>") == 2
    assert "<code>(555) 123-4567</code> → <code>+15551234567</code>" in row


def test_counts_say_what_they_were_counted_on():
    fn = {"field": "a", "issues_before": {"a": 4}, "issues_after": {"a": 1}}
    assert field_counts(ReportData(functions=[fn])) == (
        {"a": (4, 1)},
        "counted on the chunk each function was accepted on, not the whole file",
    )
    whole = ReportData(
        functions=[fn], whole_file={"records": 1200, "fields": {"a": [40, 2], "b": (1, 0)}}
    )
    assert field_counts(whole) == (
        {"a": (40, 2), "b": (1, 0)},
        "counted on the whole file (1,200 records) by apply",
    )


SPEC = {
    "scope": "mentioned",
    "fields": {
        "phone": {"kind": "phone_e164", "mentioned": True},
        "notes": {"kind": None, "mentioned": False},
        "sku": {"kind": "as_is", "mentioned": True, "words": "leave the SKU alone"},
    },
}


def test_left_alone_comes_from_the_spec():
    assert left_alone_fields(load_spec(SPEC)) == [
        ("notes", "out of scope — the goals do not mention it"),
        ("sku", "protected — the goals say to leave it as it is: “leave the SKU alone”"),
    ]
    assert left_alone_fields(None) == []


def test_cross_row_steps_show_records_changed_and_on_what():
    data = ReportData(
        cross_row=["majority of city by zip"], cross_row_rows=[7], cross_row_sample=50
    )
    page = render_html(data)
    assert "the planning sample of 50 records" in page and '<td class="rc-n">7</td>' in page
    applied = dict(records_in=900, changes_by_step={"clean_data": 3, "cross_row[0]:majority": 12})
    page = render_html(ReportData(cross_row=["majority of city by zip"], applied=applied))
    assert "the whole file (900 records) by apply" in page and '<td class="rc-n">12</td>' in page


@pytest.mark.parametrize(
    "given, expected",
    [
        (None, None),
        ("", None),
        ("cleaning_report.md", "cleaning_report.html"),
        ("out/report.markdown", "out/report.html"),
        ("report", "report.html"),
        ("report.html", "report.html.html"),
        (".md", ".md.html"),
    ],
)
def test_the_html_path_follows_the_report_path(given, expected):
    assert html_report_path(given) == expected


def test_the_fragment_is_the_body_and_nothing_of_another_text():
    page = render_html(ReportData())
    assert html_fragment(page).startswith('<div class="rc-report">')
    assert html_fragment(page).endswith("</div>") and html_fragment("# a markdown report") == ""


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


def phone_run(tmp_path, **options) -> DataCleaner:
    rows = [{"id": i, "phone": p} for i, p in enumerate(["(555) 123-4567", "555.987.6543"] * 3)]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cleaner = DataCleaner(
        FakeBackend(scripted),
        str(data),
        chunk_size=6,
        instructions="phone: E.164 (+15551234567)",
        output_path=str(tmp_path / "cleaning_functions.py"),
        holdout_ratio=0,
        hint_functions=False,
        **options,
    )
    cleaner.run()
    return cleaner


def test_a_run_writes_the_html_beside_the_markdown_report(tmp_path):
    phone_run(tmp_path, track_metrics=True)
    page = (tmp_path / "cleaning_report.html").read_text(encoding="utf-8")
    assert (tmp_path / "cleaning_report.md").is_file()
    assert "measured on 6 sampled records" in page and 'data-field="phone"' in page
    assert "<code>(555) 123-4567</code> → <code>+15551234567</code>" in page


def test_no_report_no_html(tmp_path):
    phone_run(tmp_path, report_path=None)
    assert not list(tmp_path.glob("*.html")) and not list(tmp_path.glob("*.md"))


def test_whole_file_counts_from_two_spec_checks():
    from recursive_cleaner.apply.check import validate

    spec = load_spec(SPEC)
    dirty = [{"phone": "(555) 123-4567"}, {"phone": "+15551234567"}, {"phone": "555.987.6543"}]
    clean = [{"phone": "+15551234567"}, {"phone": "+15551234567"}, {"phone": "555.987.6543"}]
    whole = counts_from_checks(validate(dirty, spec), validate(clean, spec))
    assert whole == {"records": 3, "fields": {"phone": [2, 1]}}
    page = render_html(ReportData(whole_file=whole))
    assert "counted on the whole file (3 records) by apply" in page


def test_a_dry_run_shows_the_issues_it_found():
    issues = [{"field": "phone", "issue": "not E.164", "count": 5}, {"issue": "whole", "count": 1}]
    counts, basis = field_counts(ReportData(dry_run=True, issues=issues))
    assert counts == {"phone": (5, None)} and basis.startswith("found in the chunks read")


def test_the_html_report_may_not_overwrite_an_input(tmp_path):
    from recursive_cleaner.errors import PathConflictError

    rows = tmp_path / "data.jsonl"
    rows.write_text('{"a": 1}\n')
    truth = tmp_path / "truth.html"
    truth.write_text("kept")
    cleaner = DataCleaner(
        FakeBackend(scripted),
        str(rows),
        instructions="a: a number",
        output_path=str(tmp_path / "cleaning_functions.py"),
        report_path=str(tmp_path / "truth.md"),
        ground_truth=str(truth),
    )
    with pytest.raises(PathConflictError, match="the HTML report .*truth.html is the same file"):
        cleaner.run()
    assert truth.read_text() == "kept"


def test_the_html_report_may_not_overwrite_the_document_it_reads(tmp_path):
    from recursive_cleaner.errors import PathConflictError

    page = tmp_path / "notes.html"
    page.write_text("<p>a note</p>")
    cleaner = DataCleaner(
        FakeBackend(scripted),
        str(page),
        instructions="fix the notes",
        output_path=str(tmp_path / "cleaning_functions.py"),
        report_path="notes.md",
    )
    with pytest.raises(PathConflictError, match="the HTML report .* the document .*notes.html"):
        cleaner.run()
    assert page.read_text() == "<p>a note</p>" and not (tmp_path / "notes.md").exists()


def test_a_steps_notes_show_under_it_escaped():
    page = render_html(
        ReportData(
            cross_row=["majority of price by item"],
            cross_row_notes=[["estimated accuracy of each site: <b>x</b> 0.95 (40)"]],
            cross_row_rows=[3],
            cross_row_sample=50,
        )
    )
    assert '<ul class="rc-notes"><li>estimated accuracy of each site: &lt;b&gt;x' in page
    assert "<b>x</b>" not in page
