"""The one-liner a field's toolkit hint writes, without a model call.

When the profile names the toolkit primitive that fits a field's offending values (``to_e164``
for phones, ``closest_value`` with the allowed values of a list ...), the first attempt at that
field is this one-liner, the function a model asked for the field nearly always writes. It is
judged like any reply (the sandbox, the held-out records, fields it must not touch); the model
is asked when it is refused or leaves values to fix, with the refusal as feedback.
"""

from __future__ import annotations

import re

from .expectations import KIND_PRIMITIVES
from .profiler import FieldProfile

__all__ = ["hint_function", "HINT_NOTE"]

HINT_NOTE = "written from the profile's toolkit hint, without a model call"
_PLAIN = {p for p in KIND_PRIMITIVES.values() if p and p != "to_shape"} | {
    "strip_units",
    "null_if_placeholder",
    "normalize_whitespace",
}
_CALL = re.compile(r"(\w+)(?:\(value, (whole_as_int=True)\))?")


def hint_function(profile: FieldProfile, name: str) -> tuple[str, str] | None:
    """(docstring, code) of ``name`` calling the profile's primitive on its field, or None when no
    plain call fits."""
    m = _CALL.fullmatch(profile.primitive or "")
    exp = profile.expectation
    if exp is None or m is None or m.group(1) not in _PLAIN or not name.isidentifier():
        # no format from the goals or the spec (a guess from the data's shapes): the model decides
        return None
    primitive, args = m.group(1), f", {m.group(2)}" if m.group(2) else ""
    if primitive == "closest_value":
        if exp.kind != "enum" or not exp.allowed:
            return None  # spellings of one value, not a list the goals give: the model decides
        args = f", {list(exp.allowed)!r}"
    field = profile.field
    need = exp.describe(csv_strings=profile.csv_strings)
    docstring = f"{field}: {need}, by the toolkit's {primitive} ({HINT_NOTE})."
    code = (
        f"from recursive_cleaner.toolkit import {primitive}\n\n\n"
        f"def {name}(record):\n"
        f"    record = dict(record)\n"
        f"    if {field!r} in record:  # a record without the field stays without it\n"
        f"        record[{field!r}] = {primitive}(record.get({field!r}){args})\n"
        f"    return record\n"
    )
    return docstring, code
