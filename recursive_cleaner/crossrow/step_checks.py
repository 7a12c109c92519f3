"""The checks of a ``CrossRowStep``'s parameters (a hand-edited functions file is untrusted: a raw
TypeError came from deep in apply): types, a labels step's rows, an authority's rule."""

from __future__ import annotations

from typing import Any

__all__ = [
    "NAMES",
    "AUTHORITY_RULES",
    "check_types",
    "as_row",
    "check_rows",
    "check_authority",
]

NAMES = ("key", "fields", "weight_by", "protected")
AUTHORITY_RULES = {"equals": 1, "key_first_part": 0}  # rule -> the names it takes
SCALARS = (str, int, float, bool, type(None))
NUMBERS = ("min_share", "ratio", "min_count", "max_distance")
FLAGS = ("asked", "variants_only")


def check_types(step: Any) -> None:
    """ValueError naming the first entry of a step whose type is not the one its kind reads (a
    hand-edited functions file is untrusted: a raw TypeError came from deep in apply)."""
    for name in NAMES:
        if not all(isinstance(f, str) for f in getattr(step, name)):
            raise ValueError(f"{name} must hold field names (strings)")
    for name in NUMBERS:
        value = getattr(step, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number, got {type(value).__name__}")
    for name in FLAGS:
        if not isinstance(getattr(step, name), bool):
            raise ValueError(
                f"{name} must be true or false, got {type(getattr(step, name)).__name__}"
            )
    if not isinstance(step.normalize, str):
        raise ValueError(f"normalize must be text, got {type(step.normalize).__name__}")


def as_row(row: Any) -> Any:
    """A labels row as (field, value) pairs: given as a dict or as a list of pairs."""
    if isinstance(row, dict):
        return tuple(row.items())
    if isinstance(row, (list, tuple)):
        return tuple(tuple(p) if isinstance(p, list) else p for p in row)
    return row


def check_rows(step: Any) -> None:
    """ValueError for a labels step's rows that are not (field, plain value) pairs."""
    for row in step.rows:
        if not isinstance(row, tuple) or not all(
            isinstance(p, tuple)
            and len(p) == 2
            and isinstance(p[0], str)
            and isinstance(p[1], SCALARS)
            for p in row
        ):
            raise ValueError("rows must hold records of field names and plain values")


def check_authority(step: Any) -> None:
    """ValueError for an ``authority`` that is no known rule, or on a step that weighs no source."""
    if not step.authority:
        return
    rule, names = step.authority[0], step.authority[1:]
    if not isinstance(rule, str) or rule not in AUTHORITY_RULES:
        raise ValueError(f"authority must start with one of {', '.join(AUTHORITY_RULES)}")
    if len(names) != AUTHORITY_RULES[rule] or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"the authority rule {rule} takes {AUTHORITY_RULES[rule]} name(s)")
    if len(step.weight_by) != 1:
        raise ValueError("an authority needs one weight_by field: the source it names")
