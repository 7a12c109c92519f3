"""Schema inference from the first records of a file, and its compact prompt text.

A schema is a plain dict::

    {"fields": ["name", "age"],                       # first-seen order
     "types": {"name": "str", "age": "int"},           # str|int|float|bool|list|dict|null|mixed
     "samples": {"name": ["Alice", "bob"], "age": [30, None]},   # up to 3 distinct values
     "nullable": {"name": False, "age": True},         # missing from a record, or null
     "hints": {"zip": "numeric-looking"}}              # optional, strings only

Types are the JSON types of the sampled values, ignoring nulls; ints mixed with floats
count as "float", anything else mixed is "mixed", and a field that is only ever null is
"null". CSV values are always strings, so CSV fields are "str"; a string field whose
non-empty samples all look like plain numbers (``42``, ``-3.5``, ``1,234.50``) gets the
hint "numeric-looking", shown in the prompt as ``(str, numeric-looking)``. Empty strings
are values, not nulls. Text files have no schema (every list empty).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any, Iterable

from ..read import parsers

__all__ = ["infer_schema", "infer_schema_from_records", "format_schema_for_prompt", "empty_schema"]

MAX_SAMPLES = 3
SAMPLE_CHARS = 40
MAX_PROMPT_FIELDS = 60

_TYPE_NAMES = {
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    list: "list",
    dict: "dict",
    type(None): "null",
}
_NUMERIC = re.compile(r"\s*[-+]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?\s*|\s*[-+]?\.\d+\s*")


def empty_schema() -> dict:
    """The schema of a file with no records (or a text file)."""
    return {"fields": [], "types": {}, "samples": {}, "nullable": {}, "hints": {}}


def infer_schema(
    file_path: str, sample_size: int = 10, fmt: str | None = None, encoding: str = "utf-8"
) -> dict:
    """Infer the schema of a file from its first ``sample_size`` records (text files: empty
    schema)."""
    if sample_size < 0:
        raise ValueError(f"sample_size must be >= 0, got {sample_size}")
    fmt = fmt or parsers.detect_format(file_path)
    if fmt == "text" or sample_size == 0:
        return empty_schema()
    records = parsers.iter_records(file_path, fmt, encoding=encoding)
    records = list(itertools.islice(records, sample_size))
    return infer_schema_from_records(records)


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), "str")


def _key(value: Any) -> str:
    """A hashable identity for a sample value (lists and dicts included)."""
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # e.g. mixed-type keys, circular data
        return repr(value)


def _combine(types: set[str]) -> str:
    if not types:
        return "null"
    if len(types) == 1:
        return next(iter(types))
    if types == {"int", "float"}:
        return "float"
    return "mixed"


def infer_schema_from_records(records: list[dict]) -> dict:
    """Infer a schema from records already in memory (non-dict items are ignored)."""
    schema = empty_schema()
    dicts = [r for r in records if isinstance(r, dict)]
    seen_types: dict[str, set[str]] = {}
    seen_samples: dict[str, dict[str, Any]] = {}
    strings: dict[str, list[str]] = {}
    present: dict[str, int] = {}  # records holding a non-null value
    for record in dicts:
        for raw_field, value in record.items():
            field = str(raw_field)
            if field not in seen_types:
                schema["fields"].append(field)
                seen_types[field], seen_samples[field], strings[field] = set(), {}, []
                present[field] = 0
            kind = _type_name(value)
            if kind != "null":
                seen_types[field].add(kind)
                present[field] += 1
            if isinstance(value, str):
                strings[field].append(value)
            samples = seen_samples[field]
            if len(samples) < MAX_SAMPLES:
                samples.setdefault(_key(value), value)
    for field in schema["fields"]:
        kind = _combine(seen_types[field])
        schema["types"][field] = kind
        schema["samples"][field] = list(seen_samples[field].values())
        schema["nullable"][field] = present[field] < len(dicts)
        texts = [s for s in strings[field] if s.strip()]
        if kind == "str" and texts and all(_NUMERIC.fullmatch(s) for s in texts):
            schema["hints"][field] = "numeric-looking"
    return schema


def _render(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SAMPLE_CHARS else text[: SAMPLE_CHARS - 1] + "…"


def format_schema_for_prompt(schema: dict, *, left_alone: Iterable[str] = ()) -> str:
    """One line per field: ``- name (type[, nullable][, hint]): sample, sample``; "" if no fields.

    The ``left_alone`` fields (the goals do not ask to change them) are named on one line of their
    own, without samples: no function may write them, so they are not offered as work.
    """
    alone = set(left_alone)
    fields = [f for f in schema.get("fields") or [] if f not in alone]
    named = [f for f in schema.get("fields") or [] if f in alone]
    if not fields and not named:
        return ""
    types, samples = schema.get("types", {}), schema.get("samples", {})
    nullable, hints = schema.get("nullable", {}), schema.get("hints", {})
    lines = ["Fields detected:"]
    for field in fields[:MAX_PROMPT_FIELDS]:
        tags = [types.get(field, "mixed")]
        if nullable.get(field):
            tags.append("nullable")
        if hints.get(field):
            tags.append(hints[field])
        values = samples.get(field) or []
        shown = ", ".join(_render(v) for v in values) if values else "(no values)"
        lines.append(f"- {field} ({', '.join(tags)}): {shown}")
    if len(fields) > MAX_PROMPT_FIELDS:
        lines.append(f"- ... and {len(fields) - MAX_PROMPT_FIELDS} more fields")
    if named:
        lines.append(
            "Left as they are (the goals do not ask to change them; write no function for them): "
            + ", ".join(named[:MAX_PROMPT_FIELDS])
            + (" ..." if len(named) > MAX_PROMPT_FIELDS else "")
        )
    return "\n".join(lines)
