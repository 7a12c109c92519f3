"""The one place untrusted text (field names, goals, model text, data values) is escaped for where
it is shown.

* ``terminal_text``: ESC sequences (CSI, OSC such as OSC 52 "set the clipboard", DCS, ...), their
  8-bit C1 forms, every other C0/C1 control character but tab and newline, and the bidirectional
  overrides removed; printable Unicode kept. For every line the CLI prints.
* ``md_text``: markdown prose: one line, ``\\ ` [ ] |`` backslash-escaped and ``& < >`` as HTML
  entities, so no code span, link, table cell or raw HTML (``<img onerror=...>``) can be opened by
  the text (``*`` and ``_`` stay as typed: emphasis is harmless, and field names keep their look);
  for ``cleaning_report.md`` and what notebooks render from it.
* ``md_lines``: the same, line by line, for a quoted block (goals, docstrings).
* ``md_code``: an inline code span that holds any text: fenced by one backtick more than the
  longest run inside (code spans show ``<`` and ``&`` as they are, so only ``|`` is escaped, in a
  table cell).
* ``html_text``: HTML text or attribute value (``& < > " '`` as entities), controls removed.
* ``code_comment``: the text of one ``#`` comment line in generated Python (cleaning_functions.py):
  one line, no control or line-break character of any kind, so it cannot end its comment and
  write code. Values and names that are *data* in generated code are written with ``repr`` (a
  literal) instead; a name that becomes a Python name is checked with ``str.isidentifier``.

Each first removes the terminal controls (a report is also read with ``cat``).
"""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["terminal_text", "md_text", "md_lines", "md_code", "html_text", "code_comment"]

# ESC sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL|ST", DCS/APC/PM/SOS "... ST", two-byte
# "ESC x"), the 8-bit C1 forms of CSI/OSC/DCS, other control characters but tab and newline,
# and the bidirectional overrides (text that reads differently from how it is stored).
# Each alternative stops at the next ESC or at the end: one pass over the text, never quadratic.
_TERMINAL_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|[\x1b][\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|[\x9b][0-?]*[ -/]*[@-~]?"
    r"|[\x9d\x90\x98\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
)
_MD_BACKSLASHED = re.compile(r"([\\`\[\]|])")
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_ENTITY = re.compile(r"[&<>]")
_BACKTICKS = re.compile(r"`+")


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - an object whose str() fails is described by its type
        return f"<unprintable {type(value).__name__}>"


def _cut(text: str, limit: int | None) -> str:
    if limit is not None and len(text) > limit:
        return text[: max(0, limit - 1)].rstrip() + "\u2026"
    return text


def terminal_text(text: Any, newlines: bool = True) -> str:
    """``text`` without terminal escape sequences or control characters (tab and newline kept, or
    spaces)."""
    out = _TERMINAL_CONTROL.sub("", _text(text))
    return out if newlines else out.replace("\n", " ").replace("\t", " ")


def _one_line(text: Any) -> str:
    """Controls removed, every run of white space (newlines, U+2028, ...) one space."""
    return " ".join(terminal_text(text).split())


def md_text(text: Any, limit: int | None = None) -> str:
    """Markdown prose that shows ``text`` as it is, on one line, at most ``limit`` characters before
    escaping."""
    flat = _cut(_one_line(text), limit)
    return _MD_ENTITY.sub(lambda m: _MD_ENTITIES[m.group()], _MD_BACKSLASHED.sub(r"\\\1", flat))


def md_lines(text: Any) -> list[str]:
    """Markdown prose line by line (a quoted block): each line as ``md_text`` shows it."""
    return [md_text(line) for line in terminal_text(text).splitlines()]


def md_code(text: Any, limit: int | None = None, cell: bool = False) -> str:
    """An inline code span showing ``text`` on one line; ``cell``: inside a table (``|``
    escaped)."""
    flat = _cut(_one_line(text), limit)
    if cell:
        flat = flat.replace("|", "\\|")
    if not flat:
        return "``"
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(flat)), default=0) + 1)
    pad = " " if flat[0] == "`" or flat[-1] == "`" or "`" in flat else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def html_text(text: Any) -> str:
    """HTML text (or a quoted attribute value) showing ``text`` as it is."""
    return html.escape(terminal_text(text), quote=True)


# Python ends a line at \n, \r\n or \r only; every other break (U+2028, \x85, \f, ...) is also
# folded, so the comment reads as one line in every editor too.
_CODE_BREAKS = re.compile(r"[\r\n]")


def code_comment(text: Any, limit: int | None = 200) -> str:
    """``text`` as the body of one ``#`` comment line of generated Python: it cannot leave it."""
    flat = _cut(_one_line(text), limit)
    if _CODE_BREAKS.search(flat):  # cannot happen after _one_line; never write one
        flat = _CODE_BREAKS.sub(" ", flat)
    return flat
