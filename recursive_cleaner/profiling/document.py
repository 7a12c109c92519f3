"""The goals' text as a document before any field is read: a markdown table's rows as bullets
(``plain_goals``), the bullets under a keep line (``kept_bullets``), a run-on clause read a comma
part at a time (``run_on_parts``). Structure only: no phrase of one user's wording."""

from __future__ import annotations

import re

from .goal_text import detect_kinds

__all__ = ["plain_goals", "kept_bullets", "run_on_parts"]

_HEAD_CHARS = 60  # a section heading's length at most
_END_MARKS = frozenset(".:!?;,")
# a bullet's own label naming a field (``names``: "code: keep …", "id - digits only"): the
# section's name stays off it
_LABEL = re.compile(r"[*_`]*[\w .()/*_`-]{1,40}?[*_`]*(?::\s|\s[-–—]\s)")
_KEPT_BULLET = re.compile(r"\s*(?:[-*•·–]|\d{1,2}[.)])\s+")  # a bullet under a keep line

_RUN_ON = 300  # a clause this long, naming three fields or more, is read a comma part at a time
_SUBJECT_WORDS = 8  # words at most before the field that opens a comma part
_WORD = re.compile(r"\S+")
_OWN_WORDS = 3  # words between a field and the comma after it that make a part, not a list item


def kept_bullets(text: str, reader) -> set[str]:
    """The first field of each bullet under a line ending in a colon (or a heading) that leaves
    fields alone (an ``as_is`` reading), until a line that is none (blank lines do not count)."""
    kept: set[str] = set()
    under = False
    for line in text.splitlines():
        bullet = _KEPT_BULLET.match(line)
        if bullet and under:
            groups = reader.groups(line)
            if groups and groups[0][0] <= bullet.end() + 1:
                kept.update(groups[0][2])
            continue
        stripped = line.strip()
        if stripped:
            head = stripped.endswith(":") or stripped.startswith("#")
            section = not bullet and len(stripped) <= _HEAD_CHARS and stripped[-1] not in _END_MARKS
            under = (head or section) and any(
                k == "as_is" for k, *_ in detect_kinds(stripped, reader.holds)
            )
    return kept


def _outside(text: str) -> bool:
    """No bracket or quote ``text`` opens is still open at its end."""
    return (
        text.count("(") <= text.count(")")
        and text.count('"') % 2 == 0
        and (text.count("“") <= text.count("”"))
    )


def run_on_parts(clauses: list[str], groups, says) -> list[str]:
    """Each clause, a run-on one (a dictated paragraph of commas) cut before each comma part that
    opens with a field (``groups(clause)``: the field mentions, in order) once the words since the
    last cut ask something (``says(text)``: a format, a change or a keep), never inside a list of
    fields ("the a, the b and the c") nor before the first field."""
    out = []
    for clause in clauses:
        found = groups(clause) if len(clause) >= _RUN_ON else []
        if len({f for *_, g in found for f in g}) < 3:
            out.append(clause)
            continue
        cuts, last_end = [], None
        for a, b, _ in found:
            comma = clause.rfind(",", 0, a)
            if (
                last_end is not None
                and comma > last_end
                # words of its own before the comma: never a list of fields
                and len(_WORD.findall(clause, last_end, comma)) >= _OWN_WORDS
                and len(_WORD.findall(clause, comma + 1, a)) <= _SUBJECT_WORDS
                and _outside(clause[cuts[-1] + 1 if cuts else 0 : comma])
                and says(clause[cuts[-1] + 1 if cuts else 0 : comma])
            ):
                cuts.append(comma)
            last_end = b
        for start, end in zip([-1, *cuts], [*cuts, len(clause)]):
            if clause[start + 1 : end].strip():
                out.append(clause[start + 1 : end].strip())
    return out


_TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_RULE_SIGNS = frozenset("|-: \t")


def _table_rule(line: str) -> bool:
    """A markdown table's rule line ("|---|:--|"): only pipes, dashes, colons and blanks."""
    return "|" in line and "-" in line and set(line) <= _RULE_SIGNS


_TICKS = re.compile(r"`([^`\n]{1,80})`")
_BEFORE = re.compile(r"\b(?:before|from|input|dirty|raw|was|old|seen|found)\b")
_AFTER = re.compile(r"\b(?:after|to|output|clean|expected|should|becomes?|new|fixed|want)\b")


def _row_text(cells: list[str], header: list[str]) -> str:
    """A table row as a bullet: ``field: "before" -> "after"`` under a before/after header, else
    ``field: cell. cell.``."""
    head, rest = cells[0].strip("`*_ "), cells[1:]
    names = [h.lower() for h in header[1:]] if len(header) == len(cells) else []
    before = [i for i, h in enumerate(names) if _BEFORE.search(h)]
    after = [i for i, h in enumerate(names) if _AFTER.search(h)]
    if before and after and rest[before[0]] and rest[after[0]]:
        return f'- {head}: "{rest[before[0]].strip("`")}" -> "{rest[after[0]].strip("`")}"'
    said = ". ".join(c.rstrip(".") for c in rest if c)
    return f"- {head}: {said}." if head else f"- {said}."


def plain_goals(text: str, names=lambda label: False) -> str:
    """The goals with a markdown table's rows as bullets led by their first cell ("| `sku` | string
    | upper case |" -> "- sku: string. upper case"; the header row above the rule line read for
    its columns, never as a row), a value in backticks quoted ("`x`" -> '"x"'), and
    a section's heading ("Dates (start, end)": short, no end mark, bullets under it) put before
    each of its bullets that no label naming a field (``names(label)``) leads."""
    lines = (text or "").splitlines()
    out: list[str] = []
    header: list[str] = []
    section = ""  # a heading line with bullets under it
    for i, line in enumerate(lines):
        row = _TABLE_ROW.match(line)
        if _table_rule(line):
            continue
        if row:
            cells = [c.strip() for c in row.group(1).split("|")]
            if i + 1 < len(lines) and _table_rule(lines[i + 1]):
                header = cells  # the header above the rule line
                continue
            line = _row_text(cells, header)
        bullet = _KEPT_BULLET.match(line)
        label = _LABEL.match(line, bullet.end()) if bullet else None
        if bullet and section and not (label and names(label.group())):
            line = f"{line[: bullet.end()]}{section}: {line[bullet.end() :]}"
        elif line.strip():
            section = line.strip() if _section_head(line, lines[i + 1 : i + 3]) else ""
        out.append(_spoken_template(_TICKS.sub(r'"\1"', line)))
    return "\n".join(out)


_PART = r"(year|month|day)s?"
_SEP = r"(\s*[-/.]\s*|\s+(?:dash|hyphen|slash|dot|stroke)\s+)"
# a date's three parts named in words, one separator between them ("year-month-day", "day slash
# month slash year"): the template the reader knows ("YYYY-MM-DD", "DD/MM/YYYY")
_SPOKEN = re.compile(rf"\b{_PART}{_SEP}{_PART}(?P<sep2>\s*[-/.]\s*|\s+\w+\s+){_PART}\b", re.I)
_LETTERS = {"year": "YYYY", "month": "MM", "day": "DD"}
_MARKS = {"dash": "-", "hyphen": "-", "slash": "/", "stroke": "/", "dot": "."}


def _spoken_template(line: str) -> str:
    """A date's parts named in words put as the template they name."""

    def template(m: re.Match) -> str:
        parts = [m.group(1).lower(), m.group(3).lower(), m.group(5).lower()]
        seps = [m.group(2).strip().lower(), m.group("sep2").strip().lower()]
        if len(set(parts)) != 3 or seps[0] != seps[1]:
            return m.group()
        mark = _MARKS.get(seps[0], seps[0])
        return mark.join(_LETTERS[p] for p in parts)

    return _SPOKEN.sub(template, line)


def _section_head(line: str, after: list[str]) -> bool:
    """A short line at the margin with no end mark, bullets under it ("Dates (start, end)")."""
    head = line.strip()
    return (
        line[:1].strip() != ""
        and len(head) <= _HEAD_CHARS
        and head[-1] not in _END_MARKS
        and any(_KEPT_BULLET.match(a) for a in after if a.strip())
    )
