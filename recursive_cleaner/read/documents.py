"""Documents (PDF, Word, HTML) as text: converted once, then cleaned in text mode.

``to_text(path)`` extracts the text of a ``.pdf`` (pypdf), ``.docx`` (python-docx) or
``.html``/``.htm`` (the standard library's HTML parser). PDF and Word need the ``documents``
extra (``pip install 'recursive-data-cleaner[documents]'``); a missing one raises
ModuleNotFoundError with that command. A file that cannot be read as what its name says
raises InputError naming the file.

``materialize_document(path)`` writes the text to ``doc-<sha256 of the file>.txt`` in the
inputs folder (the same one DataFrames are written to: this user's only, ``inputs_folder``), so
the same document gives the same text file and a state file written for it can be resumed. A
text there is reused only when it is a regular file of this user's (never through a link);
anything else under that name is replaced by the document's own text. DataCleaner does this for
any path ``is_document`` accepts, and then reads the text file in text mode.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable

from .._extras import require
from ..errors import InputError
from .inputs import inputs_folder
from .rows import check_zip_expansion

__all__ = ["DOCUMENT_SUFFIXES", "is_document", "to_text", "materialize_document"]


def _pdf_text(path: str) -> str:
    pypdf = require("pypdf", "reading .pdf")
    reader = pypdf.PdfReader(path)
    pages = [(page.extract_text() or "").strip() for page in reader.pages]
    return "\n\n".join(p for p in pages if p)


def _docx_text(path: str) -> str:
    check_zip_expansion(path)
    docx = require("docx", "reading .docx")
    document = docx.Document(path)
    lines = [p.text for p in document.paragraphs]
    # tables come after the body text, a row per line, cells tab-separated
    for table in document.tables:
        lines += ["\t".join(cell.text.strip() for cell in row.cells) for row in table.rows]
    return "\n".join(lines).strip()


class _TextOfHTML(HTMLParser):
    """Visible text; block elements end a line; script, style and the head are left out.

    The head is the document's first ``<head>`` until ``</head>``, ``<body>``, an element that
    cannot be in a head or text outside its title (as a browser reads it): a ``<head>`` after
    that is ignored, so a stray one inside the body drops nothing.
    """

    SKIP = {"script", "style", "noscript", "template"}
    # what a head may hold; any other element ends it
    HEAD_ONLY = {"title", "meta", "link", "base", "basefont", "bgsound", "style", "script"}
    HEAD_ONLY |= {"noscript", "template", "html", "head"}
    BLOCKS = {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "ul",
        "ol",
        "section",
        "article",
        "header",
        "footer",
        "blockquote",
        "pre",
        "hr",
        "dt",
        "dd",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0
        self._in_head = False
        self._title = False  # inside the head's <title>
        self._head_over = False  # the head ended, or the body started: no head after this

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "head":
            self._in_head = not self._head_over
            return
        if tag == "body" or (tag not in self.HEAD_ONLY and not self._skipping):
            self._in_head, self._head_over = False, True
        self._title = self._title or (tag == "title" and self._in_head)
        if tag in self.SKIP:
            self._skipping += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append("\t")

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self._in_head, self._head_over = False, True
        elif tag == "title":
            self._title = False
        elif tag in self.SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skipping or (self._in_head and (self._title or not data.strip())):
            return
        if data.strip():
            self._in_head, self._head_over = False, True
        self.parts.append(data)

    def text(self) -> str:
        lines = (
            re.sub(r" *\t[ \t]*", "\t", re.sub(r"[ \r\f\v]+", " ", line)).strip(" \t")
            for line in "".join(self.parts).split("\n")
        )
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _html_text(path: str) -> str:
    with open(path, "rb") as f:
        raw = f.read()
    try:
        markup = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        markup = raw.decode("cp1252", errors="replace")  # old pages: the browser's fallback
    parser = _TextOfHTML()
    parser.feed(markup)
    parser.close()
    return parser.text()


_CONVERTERS: dict[str, Callable[[str], str]] = {
    ".pdf": _pdf_text,
    ".docx": _docx_text,
    ".html": _html_text,
    ".htm": _html_text,
}
DOCUMENT_SUFFIXES = tuple(_CONVERTERS)


def is_document(path: str | os.PathLike) -> bool:
    """True for a path whose suffix is a document format this module converts."""
    return isinstance(path, (str, os.PathLike)) and Path(path).suffix.lower() in _CONVERTERS


def to_text(path: str | os.PathLike) -> str:
    """The document's text; InputError naming the file when it cannot be read as its format."""
    path = os.fspath(path)
    convert = _CONVERTERS.get(Path(path).suffix.lower())
    if convert is None:
        raise ValueError(f"{path}: not a document format ({', '.join(DOCUMENT_SUFFIXES)})")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"data file not found: {path}")
    try:
        return convert(path)
    except (ModuleNotFoundError, InputError):
        raise
    # the converter's own errors vary; name the file instead
    except Exception as exc:  # noqa: BLE001
        kind = Path(path).suffix.lower().lstrip(".").upper()
        raise InputError(
            f"{path}: cannot read as {kind}: {type(exc).__name__}: {exc}", path=path
        ) from None


def materialize_document(path: str | os.PathLike, workdir: str | os.PathLike | None = None) -> str:
    """The document's text written to a content-named ``.txt`` file (reused when it exists as a
    regular file of this user's)."""
    path = os.fspath(path)
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except FileNotFoundError:
        raise FileNotFoundError(f"data file not found: {path}") from None
    from ..backends.private_dir import owned_file  # not loaded by ``import recursive_cleaner``

    folder = inputs_folder(workdir)
    final = folder / f"doc-{digest.hexdigest()[:16]}.txt"
    if owned_file(final):  # a link, a FIFO or another user's file is never reused: replaced
        return str(final)
    text = to_text(path)
    if not text.strip():
        raise InputError(f"{path}: no text found (a scanned PDF needs OCR first)", path=path)
    fd, tmp = tempfile.mkstemp(prefix=".doc-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.replace(tmp, final)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return str(final)
