"""The HTML report in a real headless browser: a screenshot that is not blank, the DOM's field
rows, and hostile values that stay text.

Needs Chromium or Chrome on PATH (``chromium``, ``chromium-browser``, ``google-chrome``,
``google-chrome-stable``): a system package, not something ``pip install -e '.[dev]'`` brings. The
README's test command starts with ``.ci/browser``, which installs Debian's chromium where apt-get
runs as root; so in CI (``CI=true``) on such a machine a missing browser fails the tests, and
elsewhere they skip with the install hint. ``$RECURSIVE_CLEANER_BROWSER`` names a browser that must
be found, anywhere.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from recursive_cleaner.write.report_data import ReportData
from recursive_cleaner.write.report_html import write_html_report
from tests.write.test_report_html import HOSTILE_NAME, PWN, hostile_data, phone_run

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_HINT = (
    "no headless browser on PATH (chromium, chromium-browser, google-chrome): "
    "apt-get install chromium (Debian/Ubuntu) to run the screenshot test"
)
WIDTH, HEIGHT = 1200, 1600
BROWSER_ENV = "RECURSIVE_CLEANER_BROWSER"  # a CI that installs a browser: it must be found


def find_browser() -> str | None:
    """The browser to drive: the one ``$RECURSIVE_CLEANER_BROWSER`` names, else the first of
    BROWSERS on PATH."""
    given = os.environ.get(BROWSER_ENV)
    if given:
        return shutil.which(given)
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def _as_root() -> bool:
    """Root, or a sudo that asks no password (what ``.ci/browser`` installs with)."""
    if getattr(os, "geteuid", lambda: -1)() == 0:
        return True
    sudo = shutil.which("sudo")
    return bool(sudo) and subprocess.run([sudo, "-n", "true"], capture_output=True).returncode == 0


def ci_installs_one() -> bool:
    """In CI where ``.ci/browser`` could install chromium (root or a password-less sudo,
    apt-get): a browser must be there."""
    in_ci = os.environ.get("CI", "").lower() == "true"
    return in_ci and bool(shutil.which("apt-get")) and _as_root()


@pytest.fixture(scope="module")
def browser() -> str:
    found = find_browser()
    if found is None and os.environ.get(BROWSER_ENV):
        pytest.fail(f"${BROWSER_ENV} names {os.environ[BROWSER_ENV]!r}, not found on PATH")
    if found is None and ci_installs_one():
        pytest.fail(
            f"CI=true as root with apt-get, and .ci/browser left no browser: {INSTALL_HINT}"
        )
    if found is None:
        pytest.skip(INSTALL_HINT)
    return found


def headless(browser: str, page: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the browser headless on ``page`` (its own profile folder; no sandbox: tests may run as
    root in a container)."""
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--window-size={WIDTH},{HEIGHT}",
        *args,
        page.as_uri(),
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG, with the stdlib
    alone."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, chunks, idat = 8, {}, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        idat += body if kind == b"IDAT" else b""
        chunks.setdefault(kind, body)
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert depth == 8 and color in (2, 6), f"unexpected PNG form: depth {depth}, colour {color}"
    step = 3 if color == 2 else 4
    raw, stride, rows, prior = zlib.decompress(idat), width * step, [], bytearray(width * step)
    for y in range(height):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for x in range(stride):
            a = line[x - step] if x >= step else 0
            b, c = prior[x], prior[x - step] if x >= step else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prior = line
    if step == 4:  # drop the alpha byte of each pixel
        rows = [bytes(b for i, b in enumerate(r) if i % 4 != 3) for r in rows]
    return width, height, rows


def test_the_report_renders_with_its_field_rows_and_charts(browser, tmp_path):
    phone_run(tmp_path, track_metrics=True)
    page = tmp_path / "cleaning_report.html"
    shot = tmp_path / "report.png"
    headless(browser, page, tmp_path, f"--screenshot={shot}")
    data = shot.read_bytes()
    assert len(data) > 10_000  # a blank page is a few hundred bytes
    width, height, rows = png_pixels(data)
    assert (width, height) == (WIDTH, HEIGHT)
    colours = {row[i : i + 3] for row in rows[::4] for i in range(0, len(row), 12)}
    assert len(colours) > 20, "the screenshot is (nearly) one colour"
    # the before bar (#d9534f) is drawn
    assert any(r > 190 and g < 110 and b < 110 for r, g, b in colours)
    dom = headless(browser, page, tmp_path, "--dump-dom").stdout
    fields = re.findall(r'<tr class="rc-field" data-field="([^"]*)"', dom)
    assert fields == ["phone"] and dom.count("<svg") >= 1
    assert "(555) 123-4567</code> → <code>+15551234567" in dom


def test_hostile_values_stay_text_in_the_browser(browser, tmp_path):
    page = tmp_path / "hostile.html"
    write_html_report(page, hostile_data())
    dom = headless(browser, page, tmp_path, "--dump-dom").stdout
    # nothing ran: no handler set the attribute, no element but the page's own was made
    assert 'data-pwned="1"' not in dom and "<img" not in dom and "<script" not in dom
    assert "&lt;img src=x onerror=" in dom and "&lt;script&gt;" in dom
    assert dom.count('<tr class="rc-field"') == 4
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title and "&lt;/title&gt;&lt;script&gt;" in title.group(1)
    assert HOSTILE_NAME.replace("<", "&lt;")[:10] in dom and PWN not in dom


def test_an_empty_report_still_renders(browser, tmp_path):
    page = tmp_path / "empty.html"
    write_html_report(page, ReportData())
    dom = headless(browser, page, tmp_path, "--dump-dom").stdout
    assert "<h1>Cleaning report</h1>" in dom and 'class="rc-field"' not in dom
