"""Untrusted text is shown as it is, never as markup or terminal control (issue 28, point 4).

Before: a backtick in a field name closed the report's code span, ``<img onerror=...>`` in a field
name, the goals or the model's text passed into ``cleaning_report.md`` (and the notebook's
markdown display) as raw HTML, and ``recursive-cleaner report`` echoed OSC 52 (set the clipboard)
and clear-screen sequences from field names. Now every such text goes through
``recursive_cleaner.escape``: markdown prose, code spans, HTML, terminal lines.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from recursive_cleaner import DataCleaner
from recursive_cleaner.escape import html_text, md_code, md_lines, md_text, terminal_text
from recursive_cleaner.ui import cli as cli_module
from recursive_cleaner.ui.frames import CleaningReport
from recursive_cleaner.write.metrics import compare_quality
from recursive_cleaner.write.report import ReportData, render_report
from tests.fakes import CLEAN_REPLY, FakeBackend

OSC52 = "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"  # "set the clipboard" to a command
CLEAR = "\x1b[2J\x1b[H"
IMG = '<img src=x onerror="alert(1)">'
FIELD = f"na`me{IMG}{OSC52}"
PRINTABLE = "café 日本 ✓ – naïve"


def _no_raw_html(text: str) -> None:
    """No tag markdown would pass through as HTML: outside code spans (shown literally), no ``<``
    opens one."""
    prose = re.sub(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", "", text.replace("\\`", ""))
    assert not re.search(r"<[A-Za-z/!?]", prose), prose


def _no_terminal_control(text: str) -> None:
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), repr(text)


@pytest.mark.parametrize(
    "text", [FIELD, "``", "a ` b `` c", "`", "x|y", "line\nbreak\u2028sep", ""]
)
def test_a_code_span_holds_any_text(text):
    span = md_code(text, cell=True)
    fence = re.match(r"`+", span).group()
    inner = span[len(fence) : len(span) - len(fence)]
    assert span.endswith(fence) and fence not in inner  # nothing inside can close it
    assert "\n" not in span and "\x1b" not in span and "|" not in inner.replace("\\|", "")


def test_markdown_prose_opens_nothing():
    text = md_text(
        f"{IMG} [click](javascript:alert(1)) `code` *em* | cell\nnext <script>x</script> &amp;"
    )
    _no_raw_html(text)
    assert (
        "[" not in text.replace("\\[", "")
        and "`" not in text.replace("\\`", "")
        and "\n" not in text
    )
    assert "&amp;amp;" in text  # an entity in the text is shown as typed, not decoded
    assert md_lines("a <b>\nc`d") == ["a &lt;b&gt;", "c\\`d"]


def test_terminal_text_strips_controls_and_keeps_printable_unicode():
    shown = terminal_text(f"{CLEAR}{FIELD}\x9b31m\u202eevil\t{PRINTABLE}\r\n")
    _no_terminal_control(shown.replace("\t", "").replace("\n", ""))
    assert PRINTABLE in shown and "\x1b" not in shown and "\u202e" not in shown
    assert html_text(f"{IMG}{OSC52}") == "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"


def test_the_report_shows_hostile_field_names_goals_and_model_text_as_text():
    data = ReportData(
        title=f"Report {IMG}",
        source=f"data`{IMG}.jsonl",
        instructions=f"Clean {FIELD}.\n<script>alert(2)</script>",
        functions=[
            {
                "name": "fix_name",
                "docstring": f"Fixes {IMG}\n`{FIELD}`",
                "field": FIELD,
                "issue": f"values like {IMG}",
                "issues_before": {FIELD: 3},
                "issues_after": {FIELD: 0},
            }
        ],
        rejected=[("bad", f"reason {IMG} `x`")],
        unfixable={FIELD: f"given up {IMG}"},
        issues=[
            {
                "field": FIELD,
                "issue": f"issue {IMG} | pipe",
                "offending": [IMG, "a`b", "x|y"],
                "count": 2,
            }
        ],
        cross_row=[f"for each {FIELD}, set it"],
        spec=[f"{FIELD}: text {IMG}"],
        suggestions=[f"{IMG} seen"],
        applied={
            "records_in": 1,
            "records_out": 1,
            "changes_by_step": {f"cross_row[0]:majority({FIELD})": 1},
        },
        spec_path=f"spec`{IMG}.json",
        order_note=f"note {IMG}",
    )
    for dry_run in (False, True):
        data.dry_run = dry_run
        text = render_report(data)
        _no_raw_html(text)
        _no_terminal_control(text.replace("\n", ""))
        for line in text.splitlines():
            # table rows keep their columns: every | inside a cell is escaped
            if line.startswith("|"):
                assert len(re.findall(r"(?<!\\)\|", line)) in (3, 5), line


def test_the_quality_table_and_the_notebook_views_escape_field_names():
    before, after = [{FIELD: "a"}, {FIELD: "b"}], [{FIELD: "a"}, {FIELD: "a"}]
    report = compare_quality(before, after)
    _no_raw_html(report.to_markdown())
    html = report._repr_html_()
    assert "<img" not in html and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    _no_raw_html(report._repr_markdown_())


@pytest.fixture
def hostile_run(tmp_path, monkeypatch):
    """A run of the library on data whose field name carries HTML and terminal escape sequences."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.jsonl").write_text(
        "".join(json.dumps({FIELD: v, "id": i}) + "\n" for i, v in enumerate(["a", "b", "a"]))
    )
    cleaner = DataCleaner(
        FakeBackend([CLEAN_REPLY], default=CLEAN_REPLY),
        "data.jsonl",
        instructions=f"Make {FIELD} lower case. {IMG}{CLEAR}",
        sleep=lambda s: None,
        state_file="state.json",
    )
    result = cleaner.run()
    return tmp_path, result


def test_a_run_writes_a_report_with_no_raw_html_or_escape_sequences(hostile_run):
    folder, result = hostile_run
    text = (folder / "cleaning_report.md").read_text()
    _no_raw_html(text)
    assert "\x1b" not in text
    _no_raw_html(CleaningReport(folder / "cleaning_report.md")._repr_markdown_())


def test_the_report_command_prints_no_terminal_control(hostile_run, tmp_path):
    folder, _ = hostile_run
    (folder / "planted.md").write_text(f"# Report\n\nfield {FIELD}{CLEAR}\x9b2J end\n")
    runner = CliRunner()
    for path in ("planted.md", "cleaning_report.md", "state.json"):
        out = runner.invoke(cli_module.cli, ["report", path])
        assert out.exit_code == 0, out.output
        _no_terminal_control(out.output.replace("\n", "").replace("\t", ""))
    # the text itself stays
    assert "field na`me" in runner.invoke(cli_module.cli, ["report", "planted.md"]).output
