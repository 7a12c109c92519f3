"""apply's HTML report: wrong values per field counted on the whole file, before and after."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.apply.report import write_apply_report
from recursive_cleaner.ui.cli import cli

STATUS = '''
def clean_data(record):
    """Status in lower case, stripped."""
    record = dict(record)
    if isinstance(record.get("status"), str):
        record["status"] = record["status"].strip().lower()
    return record
'''
SPEC = {
    "version": 1,
    "scope": "mentioned",
    "keys": [],
    "dedup": False,
    "fields": {
        "status": {"kind": "enum", "allowed": ["active", "pending"], "mentioned": True},
        "code": {"kind": "as_is", "mentioned": True, "words": "leave code alone"},
    },
}
STATUSES = ["active", "ACTIVE", " Pending", "pending", "actve", "<b>Active</b>"]


def _files(tmp_path):
    rows = [{"id": i, "status": s, "code": f"00{i}"} for i, s in enumerate(STATUSES * 5)]
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    functions = tmp_path / "cleaning_functions.py"
    functions.write_text(STATUS)
    (tmp_path / "cleaning_spec.json").write_text(json.dumps(SPEC))
    return str(functions), str(data)


def _counts(page: str, field: str) -> tuple[str, str]:
    row = re.search(rf'data-field="{field}">.*?</tr>', page, re.S).group(0)
    before, after = re.findall(r'<td class="rc-n">([^<]*)</td>', row)
    return before, after


def test_the_page_counts_the_whole_file_before_and_after(tmp_path):
    functions, data = _files(tmp_path)
    out, page = str(tmp_path / "out.jsonl"), tmp_path / "apply.html"
    result = apply_file(functions, data, out, workers=1)
    write_apply_report(functions, data, out, result, page, spec=SPEC)
    html = page.read_text()
    assert "counted on the whole file (30 records) by apply" in html
    # before: ACTIVE, " Pending", actve, <b>Active</b> (4 of 6) x 5; after: actve and the tag
    assert _counts(html, "status") == ("20", "10")
    assert "30 records in, 30 out" in html and "clean_data failed on 0" in html
    assert "<li><code>ACTIVE</code> → <code>active</code></li>" in html  # a real example
    assert "<b>Active</b>" not in html and "&lt;b&gt;Active&lt;/b&gt;" in html
    assert 'data-field="code"' in html and "protected" in html  # left alone, and why


def test_no_spec_says_nothing_was_counted(tmp_path):
    functions, data = _files(tmp_path)
    out, page = str(tmp_path / "out.jsonl"), tmp_path / "apply.html"
    result = apply_file(functions, data, out, workers=1)
    write_apply_report(functions, data, out, result, page)
    html = page.read_text()
    assert "not counted: apply had no field spec" in html
    assert _counts(html, "status") == ("—", "—")


def test_the_cli_writes_it_with_the_spec_beside_the_functions(tmp_path, monkeypatch):
    functions, data = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["apply", functions, data, "-o", "out.csv", "--workers", "1", "--report", "r.html"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert f"report r.html (wrong values counted by {tmp_path / 'cleaning_spec.json'})" in (
        result.output
    )
    assert _counts((tmp_path / "r.html").read_text(), "status") == ("20", "10")
    same = CliRunner().invoke(cli, [*args[:5], "--report", data])
    assert same.exit_code != 0 and "in.jsonl" in same.output + str(same.stderr)
