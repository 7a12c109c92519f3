"""Prompt templates and the functions that fill them.

Order matters for local servers: the parts that never change within a run (role,
rules, function contract, reply format, goals, schema) come first so a server can
reuse its prompt cache; the functions written so far come next (they change only
when one is accepted); the chunk and any feedback come last.
"""

from __future__ import annotations

import json

__all__ = ["build_prompt", "format_chunk", "format_feedback", "ROOT_TAG", "STOP_SEQUENCES"]

ROOT_TAG = "cleaning_analysis"
STOP_SEQUENCES = (f"</{ROOT_TAG}>",)

_CONTRACTS = {
    "structured": (
        "Each function takes ONE record (a dict mapping field name to value) and returns the cleaned "
        "record (a dict). Copy the record before changing it (`record = dict(record)`). Never drop a "
        "record, never return None, never read or write files, never print."
    ),
    "text": (
        "Each function takes ONE piece of text (a str) and returns the cleaned text (a str). "
        "Never return None, never read or write files, never print."
    ),
}
_PARAM = {"structured": "record", "text": "text"}

_STATIC = """You are a data cleaning engineer. You read a sample of a dataset, list its data quality \
problems, and write Python functions that fix them, one function at a time.

=== FUNCTION CONTRACT ===
{contract}
Allowed imports: {imports}. Put imports at the top of the code block.
Functions must be idempotent: running one twice gives the same result as running it once.
Handle missing fields and unexpected values without raising.

=== REPLY FORMAT ===
Reply with exactly one <cleaning_analysis> block and nothing else. Example:

<cleaning_analysis>
  <issues_detected>
    <issue id="1" solved="true">Emails have mixed case; fixed by normalize_emails</issue>
    <issue id="2" solved="false">Phone numbers use different formats</issue>
  </issues_detected>
  <function_to_generate>
    <name>normalize_phones</name>
    <docstring>Rewrite the phone field as +1 followed by 10 digits; leave unparseable values unchanged.</docstring>
    <code>
```python
import re

def normalize_phones({param}):
    ...
```
    </code>
  </function_to_generate>
  <chunk_status>needs_more_work</chunk_status>
</cleaning_analysis>

Rules:
1. List EVERY data quality issue you see in the data below, as specific as you can (field and problem).
2. Mark an issue solved="true" only if a function under EXISTING FUNCTIONS already fixes it.
3. Write ONE complete function (no placeholders) for the FIRST issue marked solved="false".
4. When every issue is solved, leave out <function_to_generate> and write <chunk_status>clean</chunk_status>.
5. Never rewrite a function listed under EXISTING FUNCTIONS; give a new function a new name.

=== USER'S CLEANING GOALS ===
{instructions}
{schema}"""

_DYNAMIC = """
=== EXISTING FUNCTIONS (already written and applied; do not recreate) ===
{context}

=== DATA ({what}) ===
{chunk}
{feedback}
Now write your <cleaning_analysis> reply."""


def format_chunk(records: list, mode: str = "structured") -> str:
    """The chunk as the model sees it: one JSON object per line, or the raw text."""
    if mode == "text":
        return "\n".join(str(r) for r in records)
    return "\n".join(json.dumps(r, ensure_ascii=False, default=str) for r in records)


def format_feedback(errors: list[str]) -> str:
    """The problems with earlier attempts on this chunk, newest last."""
    if not errors:
        return ""
    lines = "\n".join(f"- {e}" for e in errors[-3:])
    return (
        "\n=== YOUR PREVIOUS ATTEMPT WAS REJECTED ===\n"
        f"{lines}\nFix this in your next reply.\n"
    )


def build_prompt(
    instructions: str,
    context: str,
    chunk: str,
    *,
    schema: str = "",
    mode: str = "structured",
    feedback: str = "",
    allowed_imports: str = "re, datetime, math, string, unicodedata, decimal, json, collections, itertools, functools",
    records: int | None = None,
) -> str:
    """Fill the generation prompt: static prefix first, chunk and feedback last."""
    mode = "text" if mode == "text" else "structured"
    schema_part = f"\n=== DATA SCHEMA ===\n{schema.strip()}\n" if schema.strip() else ""
    static = _STATIC.format(
        contract=_CONTRACTS[mode],
        imports=allowed_imports,
        param=_PARAM[mode],
        instructions=instructions.strip() or "(none given: fix obvious quality problems)",
        schema=schema_part,
    )
    what = "text" if mode == "text" else (f"{records} records, one JSON object per line" if records else "records")
    return static + _DYNAMIC.format(context=context, what=what, chunk=chunk, feedback=feedback)
