"""The fallback reading of a field the goals give no kind (``instructions``): from its name (email,
phone, date/dob, ``_at``) unless the goals' words or the samples contradict it (source "field
name"), then the samples' own canonical format (source "data")."""

from __future__ import annotations

import re

from .expectations import (
    KIND_PRIMITIVES,
    LOOSE_KINDS,
    Expectation,
    expectation_from_values,
    is_placeholder,
    loose_kind,
)
from .field_names import field_tokens, is_date_name
from .goal_text import AS_IS_WORDS

__all__ = ["fallback_expectation"]

_CONTRADICT = {
    "phone_e164": re.compile(
        rf"digits|\d{{3}}[\s.-]\d{{3}}|\(\d{{3}}\)|local|national|dashes|hyphens|{AS_IS_WORDS}",
        re.I,
    ),
    "date": re.compile(
        rf"mm/dd|dd/mm|m/d/y|d/m/y|dd\.mm|month name|us format|european|{AS_IS_WORDS}", re.I
    ),
    "email": re.compile(rf"upper|{AS_IS_WORDS}", re.I),
}


def fallback_expectation(field: str, said: str, samples: list | None) -> Expectation | None:
    toks = field_tokens(field) or [field.lower()]
    kind = (
        "email"
        if ("email" in toks or "mail" in toks)
        else "phone_e164"
        if {"phone", "telephone", "mobile", "cellphone"} & set(toks)
        else "datetime"
        if toks[-1:] == ["at"]
        else "date"
        if is_date_name(toks)
        else None
    )
    check = "date" if kind == "datetime" else kind
    if kind and not (said and _CONTRADICT[check].search(said)):
        texts = [
            s.strip() if isinstance(s, str) else s
            for s in samples or []
            if s is not None and s != "" and not is_placeholder(s)
        ]
        if texts:
            strings = [s for s in texts if isinstance(s, str)]
            looks = dict(LOOSE_KINDS)[check]
            if sum(looks(s) for s in strings) < 0.3 * len(texts):
                kind = None  # the samples contradict the name (epoch numbers in created_at, ...)
            elif kind == "datetime" and loose_kind(strings) == "date":
                kind = "date"
        if kind:
            return Expectation(kind, source="field name", primitive=KIND_PRIMITIVES[kind])
    if samples:
        strings_only = all(isinstance(v, str) for v in samples if v is not None)
        return expectation_from_values(list(samples), csv_strings=strings_only)
    return None
