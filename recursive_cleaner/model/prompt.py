"""Prompt templates and the functions that fill them.

Order matters for local servers: the parts that never change within a run (role,
rules, function contract, toolkit, reply format, goals, schema) come first so a server
can reuse its prompt cache; the functions written so far come next (they change only
when one is accepted); the task — one field's offending values, or the whole chunk —
and any feedback come last. Both tasks share the same static prefix.
"""

from __future__ import annotations

import json
from typing import Any

from ..profiling.profiler import value_shape

__all__ = [
    "build_prompt",
    "build_field_prompt",
    "build_detect_prompt",
    "static_prefix",
    "format_chunk",
    "varied_records",
    "CHUNK_VIEWS",
    "format_feedback",
    "ROOT_TAG",
    "STOP_SEQUENCES",
]

ROOT_TAG = "cleaning_analysis"
STOP_SEQUENCES = (f"</{ROOT_TAG}>",)

_CONTRACTS = {
    "structured": (
        "Each function takes ONE record (a dict mapping field name to value) and returns the "
        "cleaned "
        "record (a dict). Copy the record before changing it (`record = dict(record)`). Never drop "
        "a "
        "record, never return None, never read or write files, never print."
    ),
    "text": (
        "Each function takes ONE piece of text (a str) and returns the cleaned text (a str). "
        "Never return None, never read or write files, never print."
    ),
}
_PARAM = {"structured": "record", "text": "text"}
_EXAMPLE_BODY = {
    "structured": (
        '    record = dict(record)\n    record["phone"] = to_e164(record.get("phone"))\n    return '
        "record"
    ),
    "text": "    return text",
}

_STATIC = """You are a data cleaning engineer. You write small Python functions that fix data \
quality \
problems, one function at a time.

=== FUNCTION CONTRACT ===
{contract}
Allowed imports: {imports}.
Functions must be idempotent: running one twice gives the same result as running it once.
Handle missing fields and unexpected values without raising.
{toolkit}
=== REPLY FORMAT ===
Reply with exactly one <cleaning_analysis> block and nothing else. Example:

<cleaning_analysis>
  <issues_detected>
    <issue id="1" solved="true">Emails have mixed case; fixed by normalize_emails</issue>
    <issue id="2" solved="false">Phone numbers use different formats</issue>
  </issues_detected>
  <function_to_generate>
    <name>fix_phone</name>
    <docstring>Rewrite phone as E.164; values that cannot be parsed stay as they are.</docstring>
    <code>
```python
{example_import}
def fix_phone({param}):
{example_body}
```
    </code>
  </function_to_generate>
  <chunk_status>needs_more_work</chunk_status>
</cleaning_analysis>

Rules:
1. Write ONE complete function (no placeholders). Prefer the tested helpers above to writing your \
own parsing.
2. Never rewrite a function listed under EXISTING FUNCTIONS; give a new function a new name.
3. When there is nothing left to fix, leave out <function_to_generate> and write \
<chunk_status>clean</chunk_status>.
{extra_rules}
=== USER'S CLEANING GOALS ===
{instructions}
{schema}"""

_CONTEXT = """
=== EXISTING FUNCTIONS (already written and applied; do not recreate) ===
{context}
"""

_CHUNK_TASK = """
=== DATA ({what}) ===
{chunk}

=== TASK ===
List EVERY data quality issue you still see in the data above (field and problem). Mark an issue \
solved="true" only if a function under EXISTING FUNCTIONS already fixes it. Write ONE function for \
the \
FIRST issue marked solved="false", or reply clean when every issue is solved.
{feedback}
Now write your <cleaning_analysis> reply."""

_FIELD_TASK = """
=== FIELD TO FIX ===
{issue}{examples}

=== TASK ===
Write ONE function named {name}({param}) that fixes the field '{field}' so that its values have \
the \
required format. Change only '{field}'; return every other field exactly as it was. Values that \
cannot \
be fixed stay as they are.
{feedback}
Now write your <cleaning_analysis> reply."""


_DETECT_TASK = """
=== DATA ({what}) ===
{chunk}

=== TASK ===
This is an analysis only: do NOT write any function. List EVERY data quality issue you see in the \
data \
above, one <issue> per problem, naming the field and giving an example value. Then reply with \
<chunk_status>needs_more_work</chunk_status> if there is any issue, else clean.
Now write your <cleaning_analysis> reply."""


CHUNK_VIEWS = ("varied", "all")
MIN_VARIED = 5  # records shown at least, so the model sees what an ordinary record looks like


def _form(value: Any) -> str:
    """A value's form: the shapes of its words, each once ("16.0 oz. Alumi-Tek" -> "9.9 Aa-Aa
    a.")."""
    if isinstance(value, str) and value.strip():
        return " ".join(sorted({value_shape(word) for word in value.split()}))
    return value_shape(value)


def varied_records(records: list, *, least: int = MIN_VARIED) -> list:
    """The records that each show a (field, value form) no earlier one showed, topped up to
    ``least``, in order.

    Fifty records of the same forms teach the model no more than one: an open-ended pass is
    shown one record per new form, so a chunk that is clean costs a short prompt.
    """
    seen: set = set()
    keep: list[int] = []
    for i, record in enumerate(records):
        forms = (
            {(k, _form(v)) for k, v in record.items()}
            if isinstance(record, dict)
            else {("", _form(record))}
        )
        if forms - seen:
            keep.append(i)
            seen |= forms
    if len(keep) < least:
        chosen = set(keep)
        keep = sorted(
            keep + [i for i in range(len(records)) if i not in chosen][: least - len(keep)]
        )
    return [records[i] for i in keep]


def format_chunk(
    records: list, mode: str = "structured", *, max_chars: int | None = None, view: str = "all"
) -> str:
    """The chunk as the model sees it: one JSON object per line, or the raw text.

    ``view="varied"`` shows records as ``varied_records`` picks them and counts the rest
    (structured mode). With ``max_chars``, records are shown while they fit (at least one)
    and the rest are counted, so a wide table never overflows a small model's context window.
    """
    picked = varied_records(records) if view == "varied" and mode != "text" else records
    lines = [
        str(r) if mode == "text" else json.dumps(r, ensure_ascii=False, default=str) for r in picked
    ]
    alike = len(records) - len(picked)
    note = f"\n... ({alike} more records whose values all have forms shown above)" if alike else ""
    if max_chars is None:
        return "\n".join(lines) + note
    shown, used = [], 0
    for line in lines:
        if shown and used + len(line) + 1 > max_chars:
            break
        shown.append(line[:max_chars])
        used += len(line) + 1
    rest = len(lines) - len(shown)
    return (
        "\n".join(shown)
        + (f"\n... ({rest} more records like these not shown)" if rest else "")
        + note
    )


def format_feedback(errors: list[str]) -> str:
    """The problems with earlier attempts on this task, newest last."""
    if not errors:
        return ""
    lines = "\n".join(f"- {e}" for e in errors[-3:])
    return f"\n=== YOUR PREVIOUS ATTEMPT WAS REJECTED ===\n{lines}\nFix this in your next reply.\n"


def static_prefix(
    instructions: str,
    *,
    schema: str = "",
    mode: str = "structured",
    allowed_imports: str = (
        "re, datetime, math, string, unicodedata, decimal, json, collections, itertools, functools"
    ),
    toolkit: str = "",
    extra_rules: str = "",
) -> str:
    """The part of every prompt that stays the same for a whole run (``extra_rules``: more numbered
    rules)."""
    mode = "text" if mode == "text" else "structured"
    use_toolkit = bool(toolkit.strip()) and mode == "structured"
    return _STATIC.format(
        contract=_CONTRACTS[mode],
        imports=allowed_imports,
        toolkit=f"\n=== TOOLKIT ===\n{toolkit.strip()}\n" if use_toolkit else "",
        example_import="from recursive_cleaner.toolkit import to_e164\n"
        if use_toolkit
        else "import re\n",
        example_body=_EXAMPLE_BODY[mode]
        if use_toolkit or mode == "text"
        else '    record = dict(record)\n    record["phone"] = re.sub(r"[^0-9+]", "", '
        'str(record.get("phone") or ""))'
        "\n    return record",
        param=_PARAM[mode],
        instructions=instructions.strip() or "(none given: fix obvious quality problems)",
        schema=f"\n=== DATA SCHEMA ===\n{schema.strip()}\n" if schema.strip() else "",
        extra_rules=f"4. {extra_rules.strip()}\n" if extra_rules.strip() else "",
    )


def build_prompt(
    instructions: str,
    context: str,
    chunk: str,
    *,
    schema: str = "",
    mode: str = "structured",
    feedback: str = "",
    allowed_imports: str = (
        "re, datetime, math, string, unicodedata, decimal, json, collections, itertools, functools"
    ),
    records: int | None = None,
    toolkit: str = "",
    prefix: str | None = None,
) -> str:
    """The open-ended prompt: show the chunk, ask for all issues and one function."""
    if prefix is None:
        prefix = static_prefix(
            instructions, schema=schema, mode=mode, allowed_imports=allowed_imports, toolkit=toolkit
        )
    what = (
        "text"
        if mode == "text"
        else (f"{records} records, one JSON object per line" if records else "records")
    )
    return (
        prefix
        + _CONTEXT.format(context=context)
        + _CHUNK_TASK.format(what=what, chunk=chunk, feedback=feedback)
    )


def build_detect_prompt(
    prefix: str, chunk: str, *, mode: str = "structured", records: int | None = None
) -> str:
    """The dry-run prompt: show the chunk and ask for the issues only, no code."""
    what = (
        "text"
        if mode == "text"
        else (f"{records} records, one JSON object per line" if records else "records")
    )
    return prefix + _DETECT_TASK.format(what=what, chunk=chunk)


def build_field_prompt(
    prefix: str,
    context: str,
    *,
    field: str,
    issue: str,
    name: str,
    feedback: str = "",
    examples: str = "",
) -> str:
    """The focused prompt: one field, its offending values, the goals' examples as tests, the
    function name to write."""
    examples = "\n" + examples.strip() if examples.strip() else ""
    return (
        prefix
        + _CONTEXT.format(context=context)
        + _FIELD_TASK.format(
            issue=issue.strip(),
            examples=examples,
            name=name,
            param="record",
            field=field,
            feedback=feedback,
        )
    )
