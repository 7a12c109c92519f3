"""Documents (PDF, Word, HTML) converted to text and cleaned in text mode."""

from __future__ import annotations

import sys

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.read import documents
from recursive_cleaner.read.documents import is_document, materialize_document, to_text
from recursive_cleaner.errors import InputError
from tests.fakes import CLEAN_REPLY, FakeBackend
from tests.optional_deps import optional

HTML = """<!doctype html><html><head><title>Not body text</title><style>p {color: \
red}</style></head>
<body><h1>Patient notes</h1><script>var secret = 1;</script>
<p>Seen on 03/04/2021 &amp; again   on 2021-05-06.</p><ul><li>first item</li><li>second \
item</li></ul>
<table><tr><td>a</td><td>b</td></tr></table></body></html>"""


def pdf_bytes(lines: list[str]) -> bytes:
    """A minimal one-page PDF (Helvetica text), written by hand so the test needs no PDF writer."""
    text = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> "
        ">> "
        "/Contents 4 0 R >>",
        f"<< /Length {len(text)} >>\nstream\n{text}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def test_html_text_keeps_visible_text_and_line_structure(tmp_path):
    page = tmp_path / "notes.html"
    page.write_text(HTML, encoding="utf-8")
    text = to_text(page)
    assert "Patient notes" in text and "Seen on 03/04/2021 & again on 2021-05-06." in text
    assert "first item\n" in text and "second item" in text and "a\tb" in text
    assert "secret" not in text and "color" not in text and "Not body text" not in text


def test_html_in_cp1252_is_read_with_the_browser_fallback(tmp_path):
    page = tmp_path / "old.htm"
    page.write_bytes("<p>Caf\xe9 cr\xe8me</p>".encode("cp1252"))
    assert to_text(page) == "Café crème"


def test_pdf_text_is_extracted(tmp_path):
    optional("pypdf")
    doc = tmp_path / "report.pdf"
    doc.write_bytes(pdf_bytes(["Invoice 42 dated 2021-03-04", "Total due 12.50 USD"]))
    text = to_text(doc)
    assert "Invoice 42 dated 2021-03-04" in text and "Total due 12.50 USD" in text


def test_docx_text_includes_paragraphs_and_tables(tmp_path):
    docx = optional("docx")
    document = docx.Document()
    document.add_paragraph("Meeting on 4 March 2021")
    document.add_paragraph("Attendees: ALICE, bob")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "name", "phone"
    path = tmp_path / "minutes.docx"
    document.save(str(path))
    assert to_text(path) == "Meeting on 4 March 2021\nAttendees: ALICE, bob\nname\tphone"


def test_a_corrupt_document_names_the_file(tmp_path):
    optional("pypdf")
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"this is not a pdf at all")
    with pytest.raises(InputError) as info:
        to_text(bad)
    assert str(bad) in str(info.value) and "cannot read as PDF" in str(info.value)
    assert info.value.path == str(bad)


def test_a_missing_extra_gives_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pypdf", None)  # import pypdf now raises ModuleNotFoundError
    doc = tmp_path / "a.pdf"
    doc.write_bytes(pdf_bytes(["x"]))
    with pytest.raises(ModuleNotFoundError) as info:
        to_text(doc)
    assert "pip install 'recursive-data-cleaner[documents]'" in str(info.value)


def test_materialized_text_is_named_by_content_and_reused(tmp_path):
    one, two = tmp_path / "one.html", tmp_path / "two.html"
    one.write_text("<p>Same text</p>")
    two.write_text("<p>Same text</p>")
    first = materialize_document(one, workdir=tmp_path / "inputs")
    assert first == materialize_document(two, workdir=tmp_path / "inputs")
    assert first.endswith(".txt") and open(first, encoding="utf-8").read() == "Same text\n"
    empty = tmp_path / "empty.html"
    empty.write_text("<script>only code</script>")
    with pytest.raises(InputError, match="no text found"):
        materialize_document(empty, workdir=tmp_path / "inputs")


def test_is_document_by_suffix():
    assert is_document("a.PDF") and is_document("b.docx") and is_document("c.htm")
    assert (
        not is_document("d.txt")
        and not is_document("e.csv")
        and not is_document(["not", "a", "path"])
    )
    assert set(documents.DOCUMENT_SUFFIXES) == {".pdf", ".docx", ".html", ".htm"}


def test_the_cleaner_reads_a_document_as_text(tmp_path, monkeypatch):
    monkeypatch.setattr(documents.tempfile, "gettempdir", lambda: str(tmp_path))
    page = tmp_path / "notes.html"
    page.write_text(HTML, encoding="utf-8")
    backend = FakeBackend(default=CLEAN_REPLY)
    cleaner = DataCleaner(
        backend,
        str(page),
        instructions="Dates as YYYY-MM-DD.",
        output_path=str(tmp_path / "cleaning_functions.py"),
    )
    assert cleaner.mode == "text" and cleaner.file_path == str(page)  # its .txt file: by run()
    result = cleaner.run()
    assert cleaner.file_path.endswith(".txt")
    assert result.chunks_processed == 1 and backend.calls >= 1
    assert "Seen on 03/04/2021 & again on 2021-05-06." in backend.history[0]
    assert "<script>" not in backend.history[0] and "secret" not in backend.history[0]
