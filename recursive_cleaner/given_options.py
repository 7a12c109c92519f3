"""The options a caller gave, by flat name: each group's explicitly given fields and the flat
keywords, read together (``DataCleaner(...)``, ``DataCleaner.resume``)."""

from __future__ import annotations

from typing import Any

from .options import BY_NAME, GROUPS, OPTIONS

__all__ = ["option_values", "flat_options"]

_FLAT_NAME = {(s.group, s.attr): s.name for s in OPTIONS}


def option_values(
    groups: dict[str, Any], flat: dict[str, Any], owner: str = "DataCleaner.__init__"
) -> dict[str, Any]:
    """The options given, by flat name: each group's explicitly given fields and the flat keywords.

    TypeError for an unknown keyword (worded as Python words it), a group of the wrong type, or
    an option given twice (flat and in its group).
    """
    values: dict[str, Any] = {}
    said: dict[str, str] = {}
    for key, value in flat.items():
        spec = BY_NAME.get(key)
        if spec is None or spec.group is None:
            raise TypeError(f"{owner}() got an unexpected keyword argument {key!r}")
        values[key], said[key] = value, f"{key}={value!r}"
    for keyword, value in groups.items():
        if value is None:
            continue
        group = GROUPS[keyword].coerce(value)
        for attr, given in group.given().items():
            name = _FLAT_NAME[keyword, attr]
            here = f"{keyword}={type(group).__name__}({attr}={given!r})"
            if name in values:
                raise TypeError(
                    f"{owner}() got the option {name!r} twice: {said[name]} and "
                    f"{here}; give it once"
                )
            values[name], said[name] = given, here
    return values


def flat_options(options: dict[str, Any], owner: str = "DataCleaner.resume") -> dict[str, Any]:
    """``options`` with each group keyword replaced by the options its group gives, by flat name;
    other keys as they are (``resume`` lays these over the saved options)."""
    groups = {k: v for k, v in options.items() if k in GROUPS}
    rest = {k: v for k, v in options.items() if k not in GROUPS}
    expanded = option_values(groups, {}, owner)
    twice = sorted(expanded.keys() & rest.keys())
    if twice:
        raise TypeError(
            f"{owner}() got the option {twice[0]!r} twice: flat and in its group; give it once"
        )
    return {**rest, **expanded}
