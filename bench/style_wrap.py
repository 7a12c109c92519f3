"""Bring Python files to the house line length (100): ``ruff format``, then the wraps a tool can do.

    python bench/style_wrap.py PATH...            # format + wrap in place, list what is left
    python bench/style_wrap.py --check PATH...    # change nothing: list the lines over the limit
    python bench/style_wrap.py --no-format PATH   # wrap only (no ruff format)

After ``ruff format --line-length 100`` the lines still too long are rewritten where that is
mechanical and cannot change what the code does:

1. a string literal (not triple-quoted) that ends its line's expression — alone inside brackets
   (``"..." ,`` / ``"...")``) or after ``=``, ``(``, ``,``, ``return`` ... — becomes an implicit
   concatenation cut after spaces (parenthesized when it was not alone on its line). f-strings
   are cut only outside ``{...}``; each piece keeps the prefix (``f`` dropped from a piece with no
   brace); no cut inside an escape (``\\N{...}`` included);
2. a ``#`` comment line is wrapped into several at its indent (not ``noqa`` / ``type:`` /
   ``pragma`` / ``fmt:`` comments);
3. an inline comment that makes its line too long moves to its own line(s) above the code;
4. a docstring paragraph of plain prose (lines at the docstring's indent, or a ``-`` / ``*`` /
   ``1.`` list item with its hanging indent; no ``>>>``, tables or indented blocks) is re-filled,
   and so is a string statement after an assignment (an attribute's docstring). Never the
   docstrings the program may read: a module's that names ``__doc__``, and a function's under a
   ``command`` / ``group`` / ``callback`` decorator (click's help).

Every rewrite is checked: the file's AST must be the same before and after (docstrings compared
with their whitespace collapsed), else the file is left as formatted and named. Running it again
changes nothing. What it cannot wrap is listed as ``path:line: reason`` for a hand (exit code 1
when any is left; 0 when every line fits); a line that ends in ``# noqa: E501``, or a
triple-quoted string followed by it (a table, a generated file's template), is not listed: ruff
does not flag it either.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

LIMIT = 100
PRAGMA = re.compile(r"#\s*(noqa|type:|pragma|fmt:|pyright:|mypy:|isort:|ruff:)|^#[!:]|coding[:=]")
OPEN, CLOSE = "([{", ")]}"
BEFORE_STRING_KEYWORDS = {
    "return",
    "yield",
    "else",
    "in",
    "and",
    "or",
    "not",
    "if",
    "is",
    "elif",
    "while",
    "await",
    "assert",
}
RUNTIME_DECORATOR = re.compile(r"command|group|callback")
STRING_PREFIX = re.compile(r"^([A-Za-z]*)('''|\"\"\"|'|\")")


# ---------------------------------------------------------------- tokens and strings


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(text).readline))


def _string_units(tokens: list[tokenize.TokenInfo]) -> list[tuple[int, int]]:
    """Indices (first, last) of each string literal: a STRING, or FSTRING_START..FSTRING_END
    (3.12+)."""
    units, depth, first = [], 0, 0
    for i, tok in enumerate(tokens):
        name = tokenize.tok_name[tok.type]
        if name in ("FSTRING_START", "TSTRING_START"):
            if depth == 0:
                first = i
            depth += 1
        elif name in ("FSTRING_END", "TSTRING_END"):
            depth -= 1
            if depth == 0:
                units.append((first, i))
        elif tok.type == tokenize.STRING and depth == 0:
            units.append((i, i))
    return units


def _cut_points(body: str, raw: bool, fmt: bool) -> tuple[list[int], list[int]]:
    """Offsets in ``body`` where a cut keeps the value (no escape, no {...} split): after a space,
    and (for text with no space to cut at) after ``|`` ``,`` ``;`` ``/`` ``)``."""
    cuts, marks, i, depth = [], [], 0, 0
    while i < len(body):
        c = body[i]
        if depth:
            if c in "'\"":
                end = body.find(c, i + 1)
                if end < 0:
                    return [], []
                i = end + 1
                continue
            depth += {"{": 1, "}": -1}.get(c, 0)
            i += 1
            continue
        if c == "\\" and not raw:
            if body.startswith("\\N{", i):
                end = body.find("}", i)
                i = len(body) if end < 0 else end + 1
            else:
                i += 2
            continue
        if c == "\\" and raw:
            i += 2
            continue
        if fmt and body.startswith(("{{", "}}"), i):
            i += 2
            continue
        if fmt and c == "{":
            depth = 1
            i += 1
            continue
        if c == " " and i + 1 < len(body) and body[i + 1] != " ":
            cuts.append(i + 1)  # sorted: the loop only moves forward
        elif c in "|,;/)" and i + 1 < len(body) and body[i + 1] != " ":
            marks.append(i + 1)
        i += 1
    return cuts, marks


def _split_string(
    src: str, width: int, last_extra: int = 0, first: int | None = None
) -> list[str] | None:
    """``src`` (one literal) as pieces of at most ``width`` (the first ``first``, the last
    ``last_extra`` less); None if it cannot."""
    m = STRING_PREFIX.match(src)
    if not m or len(m[2]) == 3 or not src.endswith(m[2]):
        return None
    prefix, quote = m[1], m[2]
    body = src[len(prefix) + 1 : -1]
    low = prefix.lower()
    raw, fmt = "r" in low, "f" in low or "t" in low
    if "b" in low and not body.isascii():
        return None
    cuts, marks = _cut_points(body, raw, fmt)
    overhead = len(prefix) + 2
    pieces, start, room = [], 0, width if first is None else first
    while overhead + len(body) - start > min(room, width - last_extra):
        fits = [c for c in cuts + marks if start < c and overhead + c - start <= room]
        pipes = [
            c for c in fits if raw and body[c - 1] == "|" and overhead + c - start >= room // 2
        ]
        spaces = [c for c in fits if c in cuts]
        fitting = pipes or spaces or fits  # a regex after an alternative, else after a space
        if not fitting:
            return None
        pieces.append(body[start : max(fitting)])
        start, room = max(fitting), width
    pieces.append(body[start:])
    out = []
    for piece in pieces:
        p = prefix
        if fmt and "{" not in piece and "}" not in piece:
            p = re.sub("[fFtT]", "", prefix)
        out.append(f"{p}{quote}{piece}{quote}")
    return out


# ---------------------------------------------------------------- the four rewrites


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _wrap_comment(indent: str, comment: str, limit: int) -> list[str] | None:
    text, lead = comment.lstrip("#").strip(), "# "
    lines = textwrap.wrap(
        text, limit - len(indent) - len(lead), break_long_words=False, break_on_hyphens=False
    )
    if not lines or any(len(indent) + len(lead) + len(line) > limit for line in lines):
        return None
    return [f"{indent}{lead}{line}" for line in lines]


Edits = dict  # {first row: (last row, new lines)}


def _apply(text: str, edits: Edits) -> str:
    lines = text.splitlines(keepends=True)
    out, row = [], 1
    while row <= len(lines):
        if row in edits:
            end, new = edits[row]
            out.extend(new)
            row = end + 1
        else:
            out.append(lines[row - 1])
            row += 1
    return "".join(out)


def _line_edits(text: str, limit: int, inline_only: bool = False) -> Edits:
    """Rewrites 1-3 on every too-long line (``inline_only``: 3 only, before ruff format, which would
    otherwise wrap the code in parentheses to keep the comment on its line)."""
    lines = text.splitlines(keepends=True)
    long_rows = {i + 1 for i, line in enumerate(lines) if len(line.rstrip("\r\n")) > limit}
    if not long_rows:
        return {}
    tokens = _tokens(text)
    units = _string_units(tokens)
    unit_at = {tokens[a].start: (a, b) for a, b in units}
    depth_before, depth = [], 0
    for tok in tokens:
        depth_before.append(depth)
        if tok.type == tokenize.OP and tok.string in OPEN:
            depth += 1
        elif tok.type == tokenize.OP and tok.string in CLOSE:
            depth -= 1
    by_row: dict[int, list[int]] = {}
    for i, tok in enumerate(tokens):
        if tok.type not in (
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        ):
            by_row.setdefault(tok.start[0], []).append(i)
    inline = {}  # row -> (code, comment) of a code line ending in a comment
    for row, idx in by_row.items():
        tok = tokens[idx[-1]]
        if (
            tok.type == tokenize.COMMENT
            and len(idx) > 1
            and all(tokens[i].start[0] == tokens[i].end[0] for i in idx)
        ):
            inline[row] = (lines[row - 1][: tok.start[1]].rstrip(), tok.string)
    replace: dict[int, list[str]] = {}
    for row in sorted(long_rows):
        idx = by_row.get(row, [])
        if not idx or any(tokens[i].start[0] != tokens[i].end[0] for i in idx):
            continue  # a line inside or around a multi-line token (triple-quoted string)
        line = lines[row - 1]
        ending = line[len(line.rstrip("\r\n")) :]
        body = line.rstrip("\r\n")
        indent = _indent(body)
        last = tokens[idx[-1]]
        if tokens[idx[0]].start[1] != len(indent):
            continue  # the line starts inside a token that began on an earlier line
        if inline_only and not (last.type == tokenize.COMMENT and len(idx) > 1):
            continue
        # 2. a comment line
        if len(idx) == 1 and last.type == tokenize.COMMENT:
            if PRAGMA.search(last.string):
                continue
            wrapped = _wrap_comment(indent, last.string, limit)
            if wrapped:
                replace[row] = (row, [w + ending for w in wrapped])
            continue
        # 3. an inline comment (with the next lines' when it goes on there: an open bracket or
        # quote)
        if last.type == tokenize.COMMENT:
            group = [row]
            while _is_open(inline.get(group[0] - 1, ("", ""))[1]):
                group.insert(0, group[0] - 1)
            while _is_open(inline[group[-1]][1]) and group[-1] + 1 in inline:
                group.append(group[-1] + 1)
            first_line = lines[group[0] - 1].rstrip("\r\n")
            prev = lines[group[0] - 2].rstrip("\r\n") if group[0] > 1 else ""
            texts = [inline[r][1] for r in group]
            if (
                any(PRAGMA.search(c) for c in texts)
                or prev.endswith("\\")
                or any(r in replace for r in group)
            ):
                continue
            joined = "# " + " ".join(c.lstrip("#").strip() for c in texts)
            wrapped = _wrap_comment(_indent(first_line), joined, limit)
            if wrapped:
                for r in group:
                    code = inline[r][0] + lines[r - 1][len(lines[r - 1].rstrip("\r\n")) :]
                    replace[r] = (
                        r,
                        ([w + ending for w in wrapped] if r == group[0] else []) + [code],
                    )
            continue
        # 1. a string literal that ends the line's expression
        new = _rewrite_string_line(tokens, idx, unit_at, depth_before, body, indent, limit)
        if new:
            replace[row] = (row, [n + ending for n in new])
    return replace


def _is_open(comment: str) -> bool:
    """A comment that goes on in the next line's: more ``(`` than ``)``, or an odd count of
    ``"``."""
    return comment.count("(") > comment.count(")") or comment.count('"') % 2 == 1


def _rewrite_string_line(
    tokens, idx, unit_at, depth_before, body, indent, limit
) -> list[str] | None:
    """Rewrite 1: the line's last literal (before closing brackets and commas) cut into pieces."""
    k = len(idx) - 1
    while k >= 0 and tokens[idx[k]].type == tokenize.OP and tokens[idx[k]].string in ",)]}":
        k -= 1
    if k < 0:
        return None
    unit = next(((a, b) for a, b in unit_at.values() if b == idx[k]), None)
    if unit is None:
        return None
    a, _ = unit
    start_col, end_col = tokens[a].start[1], tokens[idx[k]].end[1]
    src, head, tail = body[start_col:end_col], body[:start_col], body[end_col:]
    alone = not head.strip()
    if alone:
        if depth_before[a] == 0:
            return None  # a statement that is a string: a docstring or dead text
        pieces = _split_string(src, limit - len(indent), len(tail))
        if not pieces or len(pieces) < 2:
            return None
        return [indent + p for p in pieces[:-1]] + [indent + pieces[-1] + tail]
    after = next(
        (t for t in tokens[idx[k] + 1 :] if t.type not in (tokenize.NL, tokenize.COMMENT)), None
    )
    before = tokens[a - 1]
    if after is not None and (
        after.type == tokenize.STRING or tokenize.tok_name[after.type].endswith("STRING_START")
    ):
        # the literal goes on in an implicit concatenation: no parentheses around a part, the
        # pieces go on the following lines (inside brackets only)
        if depth_before[a] == 0 or before.type == tokenize.STRING or tail:
            return None
        cont = _indent(after.line) if after.start[0] == tokens[a].start[0] + 1 else indent + "    "
        pieces = _split_string(src, limit - len(cont), 0, limit - len(head))
        if not pieces or len(pieces) < 2:
            return None
        return [head + pieces[0], *(cont + p for p in pieces[1:])]
    ok = (before.type == tokenize.OP and before.string not in ")]}." and before.string != "@") or (
        before.type == tokenize.NAME and before.string in BEFORE_STRING_KEYWORDS
    )
    if not ok:
        return None
    inner = indent + "    "
    pieces = _split_string(src, limit - len(inner))
    if not pieces:
        return None
    return [head + "(", *(inner + p for p in pieces), indent + ")" + tail]


# ---------------------------------------------------------------- docstrings


def _docstring_nodes(tree: ast.Module, text: str) -> list[ast.Constant]:
    found = []
    skip_module = "__doc__" in text
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.Module) and skip_module:
            continue
        decorators = getattr(node, "decorator_list", [])
        if any(RUNTIME_DECORATOR.search(ast.unparse(d)) for d in decorators):
            continue
        body = node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            found.append(body[0].value)
    for node in ast.walk(tree):  # a string statement after the first (an attribute's docstring)
        for block in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")):
            if isinstance(block, list):
                found += [
                    s.value
                    for s in block[1:]
                    if isinstance(s, ast.Expr)
                    and isinstance(s.value, ast.Constant)
                    and isinstance(s.value.value, str)
                ]
    return found


_NOT_PROSE = re.compile(r"^\s*(>>>|\.\.\.|\.\. |[|+=]|:\w+:|\d+\) |#|```|--|~~|\*\*)")
_ITEM = re.compile(r"^([-*] |\d{1,2}\. )")


def _refill(block: list[str], indent: str, lead_pad: int, limit: int, last_extra: int) -> list[str]:
    """One paragraph or list item re-filled at ``indent``; the first line's text starts ``lead_pad``
    further (after the opening quotes), the last leaves ``last_extra`` for the closing ones."""
    m = _ITEM.match(block[0][len(indent) :])
    marker = m[1] if m else ""
    text = " ".join(line.strip() for line in block)[len(marker) :] + "\0" * last_extra
    lines = textwrap.wrap(
        text,
        width=limit - len(indent),
        initial_indent=" " * lead_pad + marker,
        subsequent_indent=" " * len(marker),
        break_long_words=False,
        break_on_hyphens=False,
    )
    lines[0] = lines[0][lead_pad:]
    if last_extra:
        lines[-1] = lines[-1][:-last_extra]
    return [indent + line for line in lines]


def _docstring_edits(text: str, limit: int) -> Edits:
    """Rewrite 4: prose paragraphs of docstrings with a line over the limit, re-filled."""
    lines = text.splitlines(keepends=True)
    if not any(len(line.rstrip("\r\n")) > limit for line in lines):
        return {}
    tree = ast.parse(text)
    replace: dict[int, tuple[int, list[str]]] = {}
    for node in _docstring_nodes(tree, text):
        first, last = node.lineno, node.end_lineno
        if not any(len(lines[r - 1].rstrip("\r\n")) > limit for r in range(first, last + 1)):
            continue
        opening = lines[first - 1]
        m = re.match(r"(\s*)([rRuU]?)(\"\"\"|''')", opening)
        if not m or not lines[last - 1].rstrip("\r\n").endswith(m[3]):
            continue
        indent, quote_len = m[1], len(m[2]) + 3
        doc_lines = [line.rstrip("\r\n") for line in lines[first - 1 : last]]
        doc_lines[0] = doc_lines[0][len(indent) + quote_len :]
        if re.match(r" \S", doc_lines[0]):  # ruff's space between the quotes and a leading quote
            doc_lines[0], quote_len = doc_lines[0][1:], quote_len + 1
        doc_lines[0] = indent + doc_lines[0]  # as if the text started at the indent
        closes_last = doc_lines[-1].strip() != m[3]
        if closes_last:
            doc_lines[-1] = doc_lines[-1][:-3]
        else:
            doc_lines.pop()
        new_doc = _refill_doc(doc_lines, indent, quote_len, limit, closes_last)
        if new_doc is None:
            continue
        new_doc[0] = (
            indent + opening[len(indent) : len(indent) + quote_len] + new_doc[0][len(indent) :]
        )
        if closes_last:
            new_doc[-1] += m[3]
        else:
            new_doc.append(lines[last - 1].rstrip("\r\n"))
        ending = opening[len(opening.rstrip("\r\n")) :] or "\n"
        replace[first] = (last, [line + ending for line in new_doc])
    return replace


def _refill_doc(
    doc: list[str], indent: str, quote_len: int, limit: int, closes_last: bool
) -> list[str] | None:
    """The docstring's lines with each too-long prose block re-filled (None when nothing
    changed)."""
    out, i, changed = [], 0, False
    while i < len(doc):
        line = doc[i]
        if not line.strip() or _indent(line) != indent or _NOT_PROSE.match(line):
            out.append(line)
            i += 1
            continue
        j = i + 1
        item = _ITEM.match(line[len(indent) :])
        hang = indent + " " * len(item[1]) if item else indent
        while (
            j < len(doc)
            and doc[j].strip()
            and _indent(doc[j]) == hang
            and not _NOT_PROSE.match(doc[j])
            and not _ITEM.match(doc[j][len(hang) :])
        ):
            j += 1
        block = doc[i:j]
        last_extra = 3 if closes_last and j == len(doc) else 0
        widths = [len(b) for b in block]
        widths[0] += quote_len if i == 0 else 0
        widths[-1] += last_extra
        too_long = max(widths) > limit
        if (
            too_long
            and not any("::" in b for b in block[:-1])
            and not any("  " in b.strip() for b in block)
        ):
            new = _refill(block, indent, quote_len if i == 0 else 0, limit, last_extra)
            out.extend(new)
            changed = changed or new != block
        else:
            out.extend(block)
        i = j
    return out if changed else None


# ---------------------------------------------------------------- checks and the driver


def _normal_dump(text: str) -> str:
    """The AST with docstrings' whitespace collapsed and f-strings' adjacent constants merged ("" if
    no parse)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            node.value.value = " ".join(node.value.value.split())
        if isinstance(node, ast.JoinedStr):
            merged = []
            for part in node.values:
                if (
                    merged
                    and isinstance(part, ast.Constant)
                    and isinstance(merged[-1], ast.Constant)
                ):
                    merged[-1] = ast.Constant(merged[-1].value + part.value)
                else:
                    merged.append(part)
            node.values = merged
    return ast.dump(tree, include_attributes=False)


def _ruff_format(paths: list[Path], limit: int) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "format",
            "--quiet",
            "--no-cache",
            "--line-length",
            str(limit),
            *map(str, paths),
        ],
        check=True,
    )


def _python_files(paths: list[str]) -> list[Path]:
    files = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    return files


def _left(path: Path, text: str, limit: int) -> list[str]:
    """``path:line: reason`` for each line still over ``limit``."""
    lines = text.splitlines()
    rows = [n for n, line in enumerate(lines, 1) if len(line) > limit]
    if not rows:
        return []
    docs = {}
    try:
        tree = ast.parse(text)
        rewrappable = {id(n) for n in _docstring_nodes(tree, text)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                kind = (
                    "docstring" if id(node.value) in rewrappable else "docstring the program reads"
                )
                docs.update({r: kind for r in range(node.lineno, node.end_lineno + 1)})
        tokens = _tokens(text)
    except (SyntaxError, tokenize.TokenError):
        return [f"{path}:{n}: (does not parse)" for n in rows]
    noqa = re.compile(r"#\s*noqa(?!:)|#\s*noqa:[\s\w,]*E501")
    exempt = {
        tok.start[0] for tok in tokens if tok.type == tokenize.COMMENT and noqa.search(tok.string)
    }
    multi = {}
    for tok in tokens:
        # ruff reads the marker after a string's closing quotes for all its lines
        if tok.type == tokenize.STRING and tok.end[0] in exempt:
            exempt.update(range(tok.start[0], tok.end[0] + 1))
    for tok in tokens:
        if tok.start[0] != tok.end[0] and (
            tok.type == tokenize.STRING or tokenize.tok_name[tok.type] == "FSTRING_MIDDLE"
        ):
            multi.update({r: True for r in range(tok.start[0], tok.end[0] + 1)})
    out = []
    for n in rows:
        if n in exempt:
            continue
        s = lines[n - 1].strip()
        if n in docs:
            why = docs[n] + (
                " (not plain prose: a list, table, example or indented block)"
                if docs[n] == "docstring"
                else ""
            )
        elif n in multi:
            why = "triple-quoted text (a value the program uses)"
        elif s.startswith("#"):
            why = "comment (a pragma, or a word longer than the line)"
        elif re.search(r"\s#", s) and PRAGMA.search(s[s.index("#") :] if "#" in s else ""):
            why = "pragma comment"
        elif re.match(r"^[rRbBuUfF]*['\"]", s) or re.search(r"['\"][,)\]}]*$", s):
            why = "string literal (no cut point, or not the end of its expression)"
        else:
            why = "code ruff cannot split"
        out.append(f"{path}:{n}: {why}")
    return out


def _kept_edits(text: str, edits: Edits, before: str | None = None) -> Edits:
    """``edits`` if the text they make has the AST ``before`` (default: ``text``'s), else those that
    keep it, tried one by one."""
    before = _normal_dump(text) if before is None else before
    if not edits or _normal_dump(_apply(text, edits)) == before:
        return edits
    kept: Edits = {}
    for row, edit in sorted(edits.items()):
        if _normal_dump(_apply(text, {**kept, row: edit})) == before:
            kept[row] = edit
    return kept


def wrap_file(path: Path, limit: int = LIMIT, original: str | None = None) -> tuple[int, list[str]]:
    """Rewrite ``path`` in place (formatted already); (rewrites, ``path:line: reason`` left for a
    hand).

    ``original``: the text before formatting, whose AST the result must have (default: the file
    now).
    """
    text = path.read_text(encoding="utf-8")
    before = _normal_dump(original if original is not None else text)
    total = 0
    for _ in range(4):
        edits = {**_line_edits(text, limit)}
        for first, (last, lines) in _docstring_edits(text, limit).items():
            edits = {r: e for r, e in edits.items() if not first <= r <= last}
            edits[first] = (last, lines)
        edits = _kept_edits(text, edits, before)
        new = _apply(text, edits)
        if not edits:
            break
        path.write_text(new, encoding="utf-8")
        _ruff_format([path], limit)
        text = path.read_text(encoding="utf-8")
        total += len(edits)
    if _normal_dump(text) != before:
        if original is not None:
            path.write_text(original, encoding="utf-8")
        return total, [f"{path}:1: the AST changed; the file is left as it was"]
    return total, _left(path, text, limit)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument(
        "--check", action="store_true", help="change nothing, list the lines over the limit"
    )
    parser.add_argument("--no-format", action="store_true", help="do not run ruff format first")
    parser.add_argument("--limit", type=int, default=LIMIT)
    args = parser.parse_args(argv)
    files = _python_files(args.paths)
    if args.check:
        left = [line for f in files for line in _left(f, f.read_text(encoding="utf-8"), args.limit)]
        print("\n".join(left + [f"style_wrap files={len(files)} left={len(left)}"]))
        return 1 if left else 0
    originals = {f: f.read_text(encoding="utf-8") for f in files}
    if not args.no_format:
        for f in files:
            edits = _kept_edits(
                originals[f], _line_edits(originals[f], args.limit, inline_only=True)
            )
            if edits:
                f.write_text(_apply(originals[f], edits), encoding="utf-8")
        _ruff_format(files, args.limit)
    rewrites, left = 0, []
    for f in files:
        n, rest = wrap_file(f, args.limit, originals[f])
        rewrites, left = rewrites + n, left + rest
    print("\n".join(left + [f"style_wrap files={len(files)} rewrites={rewrites} left={len(left)}"]))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
