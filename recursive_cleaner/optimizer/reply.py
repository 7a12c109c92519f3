"""The consolidation prompt and the tolerant parsing of its reply (tag by tag, like ``response``).

Every unusable reply raises :class:`~recursive_cleaner.errors.ParseError` with a sentence the
model can act on; the agency loop feeds it back once.
"""

from __future__ import annotations

import ast
import html
import re
import textwrap
from dataclasses import dataclass
from typing import Literal

from ..errors import ParseError
from ..model.response import check_module_shape, extract_python_block, tag_text
from ..judge.validation import ALLOWED_IMPORTS

__all__ = [
    "AgentAssessment",
    "ProposedMerge",
    "build_consolidation_prompt",
    "parse_consolidation",
    "parse_bool",
    "ROOT_TAG",
]

ROOT_TAG = "consolidation_result"
# [^<>]*, not [^>]*: an opening tag ends at the next "<", so "<function a" * N is not quadratic
_FUNCTION = re.compile(
    r"<function(?:\s[^<>]*)?>(.*?)(?=</function\s*>|<function(?:\s[^<>]*)?>|</merged_functions|\Z)",
    re.DOTALL | re.IGNORECASE,
)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CONTRACT = {
    "structured": "takes ONE record (a dict) and returns the cleaned record (a dict); copy it "
    "first "
    "(`record = dict(record)`), never return None, never read or write files, never print",
    "text": "takes ONE piece of text (a str) and returns the cleaned text (a str); never return "
    "None, "
    "never read or write files, never print",
}


@dataclass
class AgentAssessment:
    """The model's own verdict on a consolidation round."""

    complete: bool
    remaining_issues: str
    confidence: Literal["high", "medium", "low"]


@dataclass
class ProposedMerge:
    """One merged function as the model proposed it (not yet checked)."""

    name: str
    original_names: list[str]
    docstring: str
    code: str


_PROMPT = """You are reviewing cleaning functions for consolidation.

=== FUNCTIONS TO REVIEW ===
{functions}

=== TASK ===
1. Identify functions that handle the SAME type of issue.
2. Merge redundant functions into fewer, more general ones.
3. Keep functions that are unique.

A merged function replaces the functions listed in its <original_names> (two or more). For every \
record it must return EXACTLY what those functions return when applied one after the other; a \
merge \
that changes any output is refused. Each function {contract}. Allowed imports: {imports}. \
End each merged docstring with a line `Tags: tag1, tag2`.
{notes}
=== OUTPUT FORMAT ===
<consolidation_result>
  <merged_functions>
    <function>
      <name>merged_function_name</name>
      <original_names>func1, func2</original_names>
      <docstring>
      Combined description.
      Tags: tag1, tag2
      </docstring>
      <code>
```python
def merged_function_name({param}):
    ...
```
      </code>
    </function>
  </merged_functions>
  <kept_unchanged>
    <function_name>unique_func1</function_name>
  </kept_unchanged>
  <self_assessment>
    <complete>true|false</complete>
    <remaining_issues>Description of any remaining redundancy, or "none"</remaining_issues>
    <confidence>high|medium|low</confidence>
  </self_assessment>
</consolidation_result>

Leave <merged_functions> empty when nothing should be merged. Write complete=true when no \
redundancy is left.{feedback}
Now write your <consolidation_result> reply."""


def build_consolidation_prompt(
    functions: list[dict], *, notes: list[str] = (), feedback: str = "", mode: str = "structured"
) -> str:
    """The prompt for one round: every function in full, notes on earlier rounds, parse feedback."""
    mode = "text" if mode == "text" else "structured"
    shown = []
    for n, f in enumerate(functions, 1):
        doc = textwrap.indent((f.get("docstring") or "").strip() or "(none)", "    ")
        shown.append(
            f"--- {n}. {f['name']} "
            f"---\nDocstring:\n{doc}\n```python\n{(f.get('code') or '').strip()}\n```"
        )
    notes_text = (
        "\n=== EARLIER ROUNDS ===\n" + "\n".join(f"- {n}" for n in notes) + "\n" if notes else ""
    )
    feedback_text = (
        f"\n\n=== YOUR PREVIOUS REPLY COULD NOT BE USED ===\n- {feedback}\nFix this in your next "
        "reply."
        if feedback
        else ""
    )
    imports = (
        ", ".join(sorted(m for m in ALLOWED_IMPORTS if not m.startswith("recursive_cleaner")))
        + ", recursive_cleaner.toolkit"
    )
    return _PROMPT.format(
        functions="\n\n".join(shown),
        contract=_CONTRACT[mode],
        imports=imports,
        notes=notes_text,
        param="text" if mode == "text" else "record",
        feedback=feedback_text,
    )


def parse_bool(raw: str | None) -> bool | None:
    """true/yes → True, false/no → False, anything else (or nothing) → None."""
    word = re.sub(r"[^a-z]", " ", (raw or "").lower()).split()
    if len(word) != 1:
        return None
    return {"true": True, "yes": True, "false": False, "no": False}.get(word[0])


def parse_consolidation(text: str) -> tuple[list[ProposedMerge], AgentAssessment]:
    """The merges a reply proposes and its self-assessment; ParseError with feedback when
    unusable."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError(
            "The reply was empty. Answer with one <consolidation_result> block.", str(text or "")
        )
    body = tag_text(text, ROOT_TAG)
    body = text if body is None else body
    assessment_text = tag_text(body, "self_assessment")
    complete = parse_bool(tag_text(assessment_text or body, "complete"))
    if complete is None:
        raise ParseError(
            "End the reply with <self_assessment> containing <complete>true</complete> or "
            "<complete>false</complete> (one word, not both).",
            text,
        )
    scope = assessment_text or body
    issues = " ".join((tag_text(scope, "remaining_issues") or "").split())
    conf = (tag_text(scope, "confidence") or "").strip().lower()
    confidence = conf if conf in ("high", "medium", "low") else "low"
    merged_text = tag_text(body, "merged_functions")
    if merged_text is None:
        kept = tag_text(body, "kept_unchanged") or ""
        merged_text = body.replace(kept, "") if kept else body
    merges = [_merge(block, n, text) for n, block in enumerate(_FUNCTION.findall(merged_text), 1)]
    return merges, AgentAssessment(
        complete=complete, remaining_issues=issues, confidence=confidence
    )


def _merge(block: str, n: int, reply: str) -> ProposedMerge:
    """One <function> block of <merged_functions> as a ProposedMerge."""
    name = " ".join((tag_text(block, "name") or "").split())
    label = f"merged function {name or f'#{n}'}"
    code_raw = tag_text(block, "code")
    if code_raw is None and "```" in block:
        code_raw = block[block.index("```") :]
    code = extract_python_block(code_raw) if code_raw is not None else ""
    if not code or code.strip() in ("...", "pass"):
        raise ParseError(
            f"The {label} has no code: put the whole function in <code> as a ```python block.",
            reply,
        )
    tree, code = _parse_code(code, label, reply)
    if not name:
        defs = [d.name for d in tree.body if isinstance(d, ast.FunctionDef)]
        if len(defs) != 1:
            raise ParseError(f"Give the {label} its name in <name></name>.", reply)
        name = defs[0]
    if not _IDENT.match(name):
        raise ParseError(f"<name> must be a Python identifier, got {name!r}.", reply)
    problems = check_module_shape(tree, name)
    if problems:
        raise ParseError(f"In the {label}: " + " ".join(problems), reply)
    originals = [o for o in re.split(r"[\s,;]+", tag_text(block, "original_names") or "") if o]
    if not originals:
        raise ParseError(
            f"List the functions the {label} replaces in <original_names>, separated by commas.",
            reply,
        )
    doc = tag_text(block, "docstring")
    if doc is None or not doc.strip():
        defs = [d for d in tree.body if isinstance(d, ast.FunctionDef) and d.name == name]
        doc = ast.get_docstring(defs[0]) or "" if defs else ""
    return ProposedMerge(
        name=name,
        original_names=list(dict.fromkeys(originals)),
        docstring=textwrap.dedent(doc).strip(),
        code=code,
    )


def _parse_code(code: str, label: str, reply: str) -> tuple[ast.Module, str]:
    """The syntax tree and source (XML entities undone when that was needed)."""
    for candidate in dict.fromkeys((code, html.unescape(code))):
        try:
            return ast.parse(candidate), candidate
        except SyntaxError as exc:
            error = exc
        except ValueError as exc:
            raise ParseError(f"The code of the {label} cannot be parsed: {exc}.", reply) from None
    raise ParseError(
        f"The code of the {label} is not valid Python: {error.msg} (line {error.lineno}). "
        "Send the complete function inside a ```python fenced block.",
        reply,
    )
