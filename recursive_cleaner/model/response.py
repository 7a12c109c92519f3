"""Model reply → structured result. All tolerance for model noise lives here.

The reply format is XML with a fenced Python block inside ``<code>``. Models add
prose around it, forget the fence, leave the closing root tag off, put ``&`` and
``<`` in code, or copy placeholders. Fields are extracted tag by tag with regular
expressions (never a strict XML parser, which code breaks), and every failure
raises ParseError with a sentence the model can act on in its next attempt.

Bounded work on any reply: only the first ``MAX_REPLY_CHARS`` characters are read, and every
pattern is linear (a tag is found by one search for its opening and one for its closing after
it; no lazy ``(.*?)`` body followed by a closing tag, which is quadratic on ``"<code>" * N``).
A tag's attributes hold no ``<``. Code that is too deeply nested to parse is a ParseError.
"""

from __future__ import annotations

import ast
import functools
import html
import re
import textwrap
from dataclasses import dataclass, field

from ..errors import ParseError, clip_text

__all__ = [
    "Issue",
    "ParsedResponse",
    "parse_response",
    "parse_issues",
    "extract_python_block",
    "check_module_shape",
    "tag_text",
    "MAX_REPLY_CHARS",
]

MAX_REPLY_CHARS = 128 << 10
"""How much of a reply is read: a reply with one function is a few thousand characters."""

STATUS_CLEAN = "clean"
STATUS_NEEDS_WORK = "needs_more_work"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# One way to read the spaces after the fence (two ``[ \t]*`` in a row would try every split of
# them).
_FENCE = re.compile(
    r"```[ \t]*(?:(?:python|py|Python|python3)[ \t]*)?\r?\n(.*?)(?:```|\Z)", re.DOTALL
)
_ATTR = re.compile(r'(\w+)\s*=\s*["\']([^"\']*)["\']')
_ATTR_CHARS = 1000  # the attributes of an <issue> tag that are read
_ISSUE_CHARS = 1000  # an issue's description as kept
# syntax-tree levels: a real function has a few dozen; ast.unparse recurses ~3 frames per level
_MAX_CODE_DEPTH = 200


@dataclass
class Issue:
    """One data-quality issue the model listed."""

    id: str
    description: str
    solved: bool


@dataclass
class ParsedResponse:
    """What a reply says: issues, and at most one function to add."""

    issues: list[Issue] = field(default_factory=list)
    name: str = ""
    docstring: str = ""
    code: str = ""
    status: str = STATUS_NEEDS_WORK
    # the library's own toolkit call (``run.asking.hint_for``), not a model's function: it may leave
    # a goals' example as it came (the example is then said as not done)
    hint: bool = False

    @property
    def has_function(self) -> bool:
        return bool(self.code)

    def __getitem__(self, key: str):  # dict-style access, as in the reference design
        return getattr(self, key)


@functools.lru_cache(maxsize=64)
def _tag_patterns(name: str) -> tuple[re.Pattern, re.Pattern]:
    """(opening, closing) of a tag: ``<name ...>`` with no ``<`` inside, and ``</name >``."""
    word = re.escape(name)
    return re.compile(rf"<{word}\b[^<>]*>", re.IGNORECASE), re.compile(
        rf"</{word}\s*>", re.IGNORECASE
    )


def _find_tag(text: str, name: str, pos: int = 0) -> tuple[re.Match, re.Match | None] | None:
    """(opening, closing) of the first <name> at or after pos (closing None when unclosed); None
    when absent.

    The closing tag is the first one after the opening: two searches, each linear, the second
    starting where the first ended, so one pass over the text.
    """
    opening, closing = _tag_patterns(name)
    found = opening.search(text, pos)
    return None if found is None else (found, closing.search(text, found.end()))


def tag_text(text: str, name: str) -> str | None:
    """Inner text of the first <name>…</name>; an unclosed last tag runs to the end; None when
    absent."""
    text = text[:MAX_REPLY_CHARS]
    tag = _find_tag(text, name)
    if tag is None:
        return None
    found, close = tag
    return text[found.end() : close.start()] if close is not None else text[found.end() :]


def _strip_cdata(text: str) -> str:
    m = re.fullmatch(r"\s*<!\[CDATA\[(.*?)\]\]>\s*", text, re.DOTALL)
    return m.group(1) if m else text


def extract_python_block(text: str) -> str:
    """Code from a ```python fence (an unclosed fence runs to the end); unfenced text as is."""
    m = _FENCE.search(text)
    code = m.group(1) if m else text
    code = re.sub(r"</?code\s*>", "", code)
    return textwrap.dedent(code).strip("\n").rstrip()


def _normalise_status(raw: str | None) -> str:
    """Only an unambiguous "clean" counts as clean; anything else needs more work."""
    if raw is None:
        return STATUS_NEEDS_WORK
    word = re.sub(r"[^a-z_ ]", "", raw.strip().lower()).strip()
    return STATUS_CLEAN if word == STATUS_CLEAN else STATUS_NEEDS_WORK


def parse_issues(text: str) -> list[Issue]:
    """The <issue> entries of a reply (none if it has no well-formed ones); never raises."""
    if not isinstance(text, str):
        return []
    text, issues, pos = text[:MAX_REPLY_CHARS], [], 0
    # an unclosed one is none
    while (tag := _find_tag(text, "issue", pos)) is not None and tag[1] is not None:
        found, close = tag
        pos = close.end()
        attrs = dict(
            (k.lower(), v)
            for k, v in _ATTR.findall(found.group()[len("<issue") : -1][:_ATTR_CHARS])
        )
        solved = attrs.get("solved", "false").strip().lower() in ("true", "yes", "1")
        description = clip_text(" ".join(text[found.end() : close.start()].split()), _ISSUE_CHARS)
        issues.append(
            Issue(
                id=clip_text(attrs.get("id", str(len(issues) + 1)), 40),
                description=description,
                solved=solved,
            )
        )
    return issues


def _parse_code(code: str, reply: str) -> tuple[ast.Module, str]:
    """The syntax tree and the source it came from (XML entities undone if that was needed), nested
    at most ``_MAX_CODE_DEPTH`` deep: later stages walk the tree recursively (ast.unparse, compile,
    literal_eval)."""
    tree, source = _parse_tree(code, reply)
    if _nesting(tree) > _MAX_CODE_DEPTH:
        raise ParseError(
            f"The code in <code> nests expressions or blocks more than {_MAX_CODE_DEPTH} levels "
            "deep; "
            "write shorter expressions (a loop instead of a long chain).",
            reply,
        )
    return tree, source


def _nesting(tree: ast.AST) -> int:
    """How deep the syntax tree goes, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _parse_tree(code: str, reply: str) -> tuple[ast.Module, str]:
    try:
        return ast.parse(code), code
    # nested too deep for the parser; a null byte
    except (RecursionError, MemoryError, ValueError) as exc:
        why = (
            "it holds a null byte"
            if isinstance(exc, ValueError)
            else "it is nested too deeply to parse"
        )
        raise ParseError(
            f"The code in <code> cannot be used: {why}. Send a plain function inside a ```python "
            "fenced block.",
            reply,
        ) from None
    except SyntaxError as first:
        unescaped = html.unescape(code)
        if unescaped != code:
            try:
                return ast.parse(unescaped), unescaped
            except (SyntaxError, RecursionError, MemoryError, ValueError):
                pass
        raise ParseError(
            f"The code in <code> is not valid Python: {first.msg} (line {first.lineno}). "
            "Send the complete function inside a ```python fenced block.",
            reply,
        ) from None


def check_module_shape(tree: ast.Module, name: str) -> list[str]:
    """Problems with what the code does at module level (empty list when fine).

    Allowed at top level: a docstring, imports, function definitions and constant
    assignments. Anything that runs when the module is imported is refused.
    """
    problems = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # docstring or stray string
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and _is_literal(node.value):
            continue
        if isinstance(node, ast.If) and "__main__" in _source(node.test):
            problems.append(
                'Remove the `if __name__ == "__main__":` block; send only the function.'
            )
            continue
        problems.append(
            f"Module-level statement `{(_source(node).splitlines() or [''])[0][:60]}` (line "
            f"{node.lineno}) would run "
            "on import; only imports, functions and constants are allowed outside the function."
        )
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    if name not in names:
        found = ", ".join(names) or "none"
        problems.append(
            f"The code must define a function named `{name}` (as in <name>); functions found: "
            f"{found}."
        )
    return problems


def _source(node: ast.AST) -> str:
    """ast.unparse(node), or the node's kind when it is nested too deeply to unparse."""
    try:
        return ast.unparse(node)
    except (RecursionError, MemoryError):
        return f"<a deeply nested {type(node).__name__.lower()}>"


def _is_literal(node: ast.AST | None) -> bool:
    if node is None:
        return True
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def parse_response(text: str) -> ParsedResponse:
    """Parse a model reply; raise ParseError with feedback for the model when it cannot be used."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError(
            "The reply was empty. Answer in the <cleaning_analysis> format.",
            clip_text(text or "", 200),
        )
    text = text[:MAX_REPLY_CHARS]  # all that is read; a longer reply is cut here
    root = tag_text(text, "cleaning_analysis")
    body = root if root is not None else text
    result = ParsedResponse(
        issues=parse_issues(body), status=_normalise_status(tag_text(body, "chunk_status"))
    )

    func = tag_text(body, "function_to_generate")
    scope = func if func is not None else body
    code_raw = tag_text(scope, "code")
    if code_raw is None and _FENCE.search(scope):
        code_raw = scope[_FENCE.search(scope).start() :]  # a fenced block without <code> tags
    name = " ".join((tag_text(scope, "name") or "").split())
    code = extract_python_block(_strip_cdata(code_raw)) if code_raw is not None else ""

    if root is None and not result.issues and not code and tag_text(body, "chunk_status") is None:
        raise ParseError(
            "No <cleaning_analysis> block found. Reply with <cleaning_analysis> containing "
            "<issues_detected>, optionally one <function_to_generate>, and <chunk_status>.",
            text,
        )
    if not code or code.strip() in ("pass", "..."):
        if result.status == STATUS_CLEAN:
            return result
        raise ParseError(
            "chunk_status is not clean but no function was given. Either write ONE function for "
            "the "
            "first unsolved issue inside <function_to_generate>, or reply "
            "<chunk_status>clean</chunk_status>.",
            text,
        )

    tree, code = _parse_code(code, text)
    if not name:
        defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        if len(defs) != 1:
            raise ParseError("Give the function's name in <name></name>.", text)
        name = defs[0]
    if not _IDENT.match(name):
        raise ParseError(f"<name> must be a Python identifier, got {clip_text(name, 80)!r}.", text)
    problems = check_module_shape(tree, name)
    if problems:
        raise ParseError(" ".join(problems), text)

    result.name = name
    result.code = code
    result.docstring = _docstring(tag_text(scope, "docstring"), tree, name)
    result.status = STATUS_NEEDS_WORK  # a function was written, so the chunk was not clean yet
    return result


def _docstring(tagged: str | None, tree: ast.Module, name: str) -> str:
    if tagged and tagged.strip():
        return textwrap.dedent(tagged).strip()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return (ast.get_docstring(node) or "").strip()
    return ""
