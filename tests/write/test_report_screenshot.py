"""The HTML report's profile in a real headless browser (issue 45): the README job and a held-out
table, each a screenshot that is not blank and a DOM with the profile's sections; hostile values in
a cell, a column name and the goals that stay text (no script ran, no element was made); the page
embedded in a notebook's styles keeps its cells left-aligned and its examples on one line.

The pages are the ones ``apply --report`` writes (``apply.report.write_apply_report``), built on
the library-only path: the goals read by ``DataCleaner.plan()`` (no model call), the input and an
"applied" output (the README job's bundled cleaned file, the held-out table's clean.csv) profiled
whole. Browser discovery and the skip (or, in CI that installs one, the failure) are
``test_report_browser``'s.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import struct
import zlib
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.report import write_apply_report
from recursive_cleaner.apply.result import ApplyResult
from recursive_cleaner.write.report_html import html_fragment
from tests.write.test_report_browser import HEIGHT, WIDTH, browser, headless

__all__ = ["browser"]  # the fixture, found by pytest in this module's names

ROOT = Path(__file__).resolve().parents[2]
CODE = "def clean_data(record):\n    return record\n"
SCRIPT_COLUMN = "<script>document.body.setAttribute('data-pwned','col')</script>"
IMG_VALUE = "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"
SCRIPT_VALUE = "<script>document.body.setAttribute('data-pwned','cell')</script>"
SECTIONS = ("profile", "fields", "goals")


def _no_model(prompt: str) -> str:
    raise AssertionError("the library-only path calls no model")


def _page(tmp: Path, data: Path, output: Path, goals: str, rows: int) -> Path:
    """The page apply --report writes for ``data`` → ``output``, the goals read with no model."""
    plan = DataCleaner(
        _no_model,
        str(data),
        instructions=goals,
        output_path=str(tmp / "cleaning_functions.py"),
        report_path=None,
    ).plan()
    page = tmp / "cleaning_report.html"
    result = ApplyResult(records_in=rows, records_out=rows)
    functions = tmp / "cleaning_functions.py"
    write_apply_report(functions, data, output, result, page, spec=plan.spec, code=CODE)
    return page


@pytest.fixture(scope="module")
def readme_page(tmp_path_factory) -> Path:
    """The README job: test_cases/crm_customers.jsonl with its goals, and its cleaned file."""
    tmp = tmp_path_factory.mktemp("readme")
    goals = (ROOT / "test_cases" / "crm_instructions.txt").read_text(encoding="utf-8")
    cases = ROOT / "test_cases"
    return _page(
        tmp, cases / "crm_customers.jsonl", cases / "crm_customers.clean.jsonl", goals, 300
    )


def _make_tables():
    spec = importlib.util.spec_from_file_location(
        "make_tables", ROOT / "bench" / "heldout" / "make_tables.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _hostile_csv(path: Path) -> list[str]:
    """Add a column with a hostile name and hostile values; one more in a checked cell."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    header = [*rows[0], SCRIPT_COLUMN]
    for i, row in enumerate(rows):
        row[SCRIPT_COLUMN] = SCRIPT_VALUE if i % 2 else IMG_VALUE
    rows[3]["quantity"] = IMG_VALUE
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, header)
        writer.writeheader()
        writer.writerows(rows)
    return header


@pytest.fixture(scope="module")
def heldout_page(tmp_path_factory) -> tuple[Path, list[str]]:
    """The held-out warehouse table (200 rows), hostile values added to dirty and clean files."""
    tmp = tmp_path_factory.mktemp("warehouse")
    folder = _make_tables().write_table("warehouse", tmp / "tables", rows=200)
    header = _hostile_csv(folder / "dirty.csv")
    _hostile_csv(folder / "clean.csv")
    goals = (ROOT / "bench" / "heldout" / "goals" / "warehouse_terse.txt").read_text()
    goals += f"\nLeave {SCRIPT_COLUMN} and {IMG_VALUE} alone."
    return _page(tmp, folder / "dirty.csv", folder / "clean.csv", goals, 200), header


def _render(browser: str, page: Path, tmp_path: Path) -> tuple[bytes, str]:
    """One browser run: the screenshot's bytes and the rendered DOM."""
    shot = tmp_path / f"{page.stem}.png"
    dom = headless(browser, page, tmp_path, f"--screenshot={shot}", "--dump-dom").stdout
    return shot.read_bytes(), dom


def _columns(dom: str, when: str) -> list[str]:
    found = re.findall(r'<tr class="rc-col" data-column="([^"]*)" data-when="([^"]*)"', dom)
    return [name for name, side in found if side == when]


def _not_blank(data: bytes) -> None:
    """A PNG of the window's size whose pixels are far from one colour (a blank page's filtered
    rows are a few distinct bytes, compressed to a few hundred)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == (WIDTH, HEIGHT)
    assert len(data) > 20_000
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        idat += data[pos + 8 : pos + 8 + length] if data[pos + 4 : pos + 8] == b"IDAT" else b""
        pos += 12 + length
    assert len(set(zlib.decompress(idat))) > 64


def test_the_readme_jobs_page_profiles_every_column_before_and_after(
    browser, readme_page, tmp_path
):
    shot, dom = _render(browser, readme_page, tmp_path)
    _not_blank(shot)
    assert all(f'<section id="{s}">' in dom for s in SECTIONS)
    assert dom.count('<rect class="rc-hist"') > 30  # the distributions are drawn
    header = list(json.loads((ROOT / "test_cases/crm_customers.jsonl").open().readline()))
    assert _columns(dom, "before") == header and _columns(dom, "after") == header
    # status: the goals allow three values; the dirty file spells them 16 ways
    status = re.search(r'data-column="status" data-when="before">(.*?)</tr>', dom, re.S).group(1)
    cells = re.findall(r'<td class="rc-n">([^<]*)</td>', status)
    assert cells[1] == "16" and "200 (66.7%)" in cells[2]
    after = re.search(r'data-column="status" data-when="after">(.*?)</tr>', dom, re.S).group(1)
    assert re.findall(r'<td class="rc-n">([^<]*)</td>', after)[1:] == ["3", "0 (0.0%)"]
    # the goals, quoted, and their reading as plan prints it (the clause that binds each field)
    assert "Title Case" in dom and "evidence:" in dom
    assert "counted on the whole file (300 records) by apply" in dom


def test_the_heldout_tables_page_keeps_hostile_values_as_text(browser, heldout_page, tmp_path):
    page, header = heldout_page
    shot, dom = _render(browser, page, tmp_path)
    _not_blank(shot)
    assert all(f'<section id="{s}">' in dom for s in ("profile", "goals"))
    shown = [
        name.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        for name in _columns(dom, "before")
    ]
    assert shown == [h.replace('"', "&quot;") for h in header]
    # nothing ran and no element was made: the only scripts and images would be the attacks'
    body = dom[dom.index("<body") :]
    assert "data-pwned" not in body.split(">", 1)[0]
    assert "<script" not in body and "<img" not in body
    # the attacks show literally: the column name, its values among the most frequent, the goals
    assert body.count("&lt;script&gt;document.body.setAttribute") >= 3
    assert "&lt;img src=x onerror=" in body


NOTEBOOK_CSS = """
.jp-RenderedHTMLCommon table{table-layout:fixed;margin-left:auto;margin-right:auto;width:100%}
.jp-RenderedHTMLCommon td,.jp-RenderedHTMLCommon th,.jp-RenderedHTMLCommon tr{
text-align:right;vertical-align:middle;white-space:normal;max-width:none}
"""
PROBE = """
<script>
const out = [];
for (const cell of document.querySelectorAll('.rc-report td, .rc-report th')) {
  // a cell's lists of values (examples, frequent values) are what must read left, on one line
  const list = cell.querySelector('ul.rc-examples, ul.rc-top');
  const s = getComputedStyle(list || cell);
  out.push([cell.tagName, list ? 'list' : cell.className, s.textAlign, s.whiteSpace]);
}
const lines = [];
for (const li of document.querySelectorAll('.rc-report td.rc-ex li')) {
  const h = li.getBoundingClientRect().height;
  lines.push(h / parseFloat(getComputedStyle(li).fontSize));
}
const layouts = [...document.querySelectorAll('.rc-report table')].map(
  t => getComputedStyle(t).tableLayout);
document.getElementById('probe').textContent = JSON.stringify({out, lines, layouts});
</script>
"""


@pytest.mark.parametrize("sanitized", [False, True], ids=["trusted", "style-tags-dropped"])
def test_in_a_notebooks_styles_cells_stay_left_and_examples_on_one_line(
    browser, readme_page, tmp_path, sanitized
):
    fragment = html_fragment(readme_page.read_text(encoding="utf-8"))
    if sanitized:  # an untrusted notebook or a viewer's sanitizer drops <style> elements
        fragment = re.sub(r"<style>.*?</style>", "", fragment, flags=re.S)
    page = tmp_path / "notebook.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{NOTEBOOK_CSS}</style></head>"
        f"<body><div class='jp-RenderedHTMLCommon' style='width:900px'>{fragment}</div>"
        f"<pre id='probe'></pre>{PROBE}</body></html>",
        encoding="utf-8",
    )
    dom = headless(browser, page, tmp_path, "--dump-dom").stdout
    probe = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    found = json.loads(probe.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    cells = found["out"]
    assert cells and all(
        align == ("right" if "rc-n" in cls else "left") for _, cls, align, _ in cells
    ), {(c, a) for _, c, a, _ in cells}
    assert any(cls == "list" for _, cls, _, _ in cells)
    assert all(space == "nowrap" for _, cls, _, space in cells if cls in ("list", "rc-ex"))
    # an example never wraps: one line is about 1.5 times the font's size, two about 3
    assert found["lines"] and max(found["lines"]) < 2.2, found["lines"]
    assert set(found["layouts"]) == {"auto"}
