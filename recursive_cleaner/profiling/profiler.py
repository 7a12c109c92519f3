"""Field profiler: which fields are still dirty, measured by the library without a model call.

A small model's own "clean" verdict cannot be trusted, so after a chunk is cleaned the library
profiles it: per field, the values that break the expected format, as evidence for the model.

With an ``Expectation`` (see ``expectations``) a field has an issue when any non-null value
does not ``conforms``. Without one the data judges itself, in this order:

1. numbers (int/float) mixed with text holding digits -> the text is offending (``to_int`` /
   ``to_number``);
2. the values look like one kind in any layout (dates, times, phones, emails, numbers) and the
   canonical form is already there (one ISO date, half plain numbers, ...) -> an expectation
   from the data (source "data") and the strict check;
3. free text (>= 80% word-like, distinct ratio >= 0.5, and >= 20 distinct or >= 2 words on
   average: names, descriptions) -> never an issue;
4. the same value spelled differently (equal after casefold/strip/punctuation/whitespace, or a
   small typo: difflib ratio >= 0.85 and edit distance <= max(2, len // 15) to a more frequent
   spelling, letters only, length >= 4) -> the rarer spellings are offending (``closest_value``);
5. shape families (plain numbers, word-like text, else ``value_shape``): fine when >= 90% share
   the dominant family; for values of a known kind (step 2 without a canonical form) any second
   family is an issue. The values outside the dominant family are offending.

Missing values (None, "") are never offending; placeholders ('N/A', 'empty') are ignored without
an expectation and offending with one (primitive ``null_if_placeholder`` when they are all).

A text longer than ``MAX_VALUE_CHARS`` (10,000) is judged by its first ``MAX_VALUE_CHARS``
characters (shape, kind, spelling, conformance): one 100 MB cell costs what a 10 kB one does. Its
identity (``value_key``, ``offending``, ``bad_keys``) stays the whole value.

``FieldProfile`` and its text in a prompt are in ``field_profile``, the spelling variants and
free text of steps 3-4 in ``variants`` (both re-exported here where used).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from . import kinds
from .expectations import (
    KIND_PRIMITIVES,
    Expectation,
    clean_whitespace,
    conforms,
    expectation_from_values,
    is_placeholder,
    loose_kind,
    value_shape,
)
from .field_profile import MAX_OFFENDING, FieldProfile, format_issue_for_prompt, short_value
from .variants import is_free_text, value_family, variant_groups

__all__ = [
    "FieldProfile",
    "MAX_VALUE_CHARS",
    "bounded",
    "value_shape",
    "conforms",
    "profile_field",
    "profile_records",
    "open_issues",
    "format_issue_for_prompt",
    "issue_counts",
    "strings_only",
]

MAX_SHAPES = 10
MAX_EXAMPLES = 3
MAX_GROUPS = 8
MAX_GROUP_SIZE = 8
DOMINANT_SHARE = 0.9
# characters of one text the profiler reads (read at call time: tests lower it)
MAX_VALUE_CHARS = 10_000

_CURRENCY = re.compile(r"[$€£¥]|\b(?:usd|eur|gbp|cad|aud|jpy|chf|cny|inr|dollars?|euros?)\b", re.I)
_UNIT_NUM = re.compile(r"\s*[-+]?[\d.,]*\d[\d.,]*\s*(?:%|[^\W\d_]+\.?)(?:\s.*)?", re.S)


def bounded(value: Any) -> Any:
    """What the profiler reads of ``value``: a text's first ``MAX_VALUE_CHARS`` characters, anything
    else as is."""
    if isinstance(value, str) and len(value) > MAX_VALUE_CHARS:
        return value[:MAX_VALUE_CHARS]
    return value


def is_missing(value: Any) -> bool:
    """None or the empty string."""
    return value is None or (isinstance(value, str) and value == "")


def value_key(value: Any) -> tuple:
    """Distinct-value identity that keeps 1, 1.0, True and "1" apart and accepts lists/dicts."""
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return (type(value).__name__, repr(value))


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _is_num(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number_primitive(values: list, default: str) -> str:
    """strip_units when most offending values are a number with a (non-currency) unit: '12.0 oz',
    '5%'."""
    texts = [v for v in values if isinstance(v, str) and not is_placeholder(v)]
    units = [t for t in texts if _UNIT_NUM.fullmatch(t) and not _CURRENCY.search(t)]
    return "strip_units" if texts and len(units) * 2 > len(texts) else default


def _primitive(kind: str | None, bad: list, *, from_data: bool = False) -> str:
    """The toolkit primitive that fits these offending values.

    For an instructed ``kind`` its primitive; for a kind the data suggested only when the offending
    values look like that kind ('1xx32' is a typo, no primitive fits); without a kind a guess.
    """
    if bad and all(is_placeholder(v) for v in bad):
        return "null_if_placeholder"
    if kind is None or from_data:
        texts = [v for v in bad if isinstance(v, str) and not is_placeholder(v)]
        looks = loose_kind(texts, share=0.5 if kind else 0.8)
        if kind is None and looks is None:
            return (
                "normalize_whitespace"
                if texts and not any(clean_whitespace(t) for t in texts)
                else ""
            )
        if kind is not None and looks != kind:
            return ""
        kind = kind or looks
    if kind in ("number", "integer"):
        return _number_primitive(bad, KIND_PRIMITIVES[kind])
    return KIND_PRIMITIVES.get(kind, "")


def _judge(counts: Counter, first: dict, variants: list[list[str]], csv_strings: bool):
    """Without an expectation: (expectation from data | None, offending keys, reason, primitive)."""
    keys = list(counts)
    strs = [k for k in keys if isinstance(first[k], str)]
    nums = [k for k in keys if _is_num(first[k])]
    expanded = [first[k] for k in strs for _ in range(counts[k])]
    if nums and strs:
        digity = sum(counts[k] for k in strs if any(c.isdigit() for c in first[k]))
        if digity * 2 >= len(expanded):
            ints = all(isinstance(first[k], int) for k in nums)
            return (
                None,
                set(strs),
                "mixed",
                _number_primitive([first[k] for k in strs], "to_int" if ints else "to_number"),
            )
    texts = [k for k in strs if not is_placeholder(first[k])]
    if not texts:
        return None, set(), "", ""
    exp = expectation_from_values(expanded, csv_strings=csv_strings)
    if exp:
        bad = {k for k in texts if not conforms(first[k], exp, csv_strings=csv_strings)}
        return (
            exp,
            bad,
            "expectation",
            _primitive(exp.kind, [first[k] for k in bad], from_data=True),
        )
    kind = loose_kind(expanded)
    str_counts = {first[k]: counts[k] for k in texts}
    if kind is None and is_free_text(str_counts):
        return None, set(), "", ""
    if kind is None and variants:
        rarer = {s for group in variants for s in group[1:]}
        return None, {k for k in texts if first[k] in rarer}, "variants", "closest_value"
    families = Counter()
    family_of = {}
    for k in texts:
        family_of[k] = value_family(first[k])
        families[family_of[k]] += counts[k]
    top, n_top = families.most_common(1)[0]
    convention = n_top >= DOMINANT_SHARE * sum(families.values())
    if len(families) > 1 and (kind is not None or not convention):
        bad = {k for k in texts if family_of[k] != top}
        bad_values = [first[k] for k in bad]
        # a >= 90% convention that is not the canonical form ('7:10 a.m.'): no primitive converts to
        # it
        primitive = _primitive(None if convention else kind, bad_values, from_data=True)
        if convention and primitive != "null_if_placeholder":
            primitive = ""
        return None, bad, ("formats", len(families), top, kind), primitive
    return None, set(), "", ""


def profile_field(
    field: str, values: list, expectation: Expectation | None = None, *, csv_strings: bool = False
) -> FieldProfile:
    """Profile one field's values against ``expectation`` (or, without one, against the data's own
    shape).

    Long texts are judged by their ``bounded`` prefix; counts and offending values are the whole
    values.
    """
    values = list(values)
    present = [v for v in values if not is_missing(v)]
    counts: Counter = Counter()
    first: dict[tuple, Any] = {}
    for value in present:
        key = value_key(value)
        counts[key] += 1
        first.setdefault(key, value)
    seen = {k: bounded(v) for k, v in first.items()}  # what the checks read
    str_counts: Counter = Counter()
    shapes: Counter = Counter()
    for k, n in counts.items():
        shapes[value_shape(seen[k])] += n
        if isinstance(seen[k], str):
            str_counts[seen[k]] += n
    if expectation is not None:
        exp, reason = expectation, "expectation"
        bad = {k for k in counts if not conforms(seen[k], exp, csv_strings=csv_strings)}
        # shown with an issue only; costly
        variants = variant_groups(dict(str_counts)) if bad else []
        primitive = _primitive(exp.kind, [seen[k] for k in bad], from_data=exp.source == "data")
        if exp.allowed == ("whole_as_int",) and primitive in ("to_number", "strip_units"):
            primitive = "to_number(value, whole_as_int=True)"
        if exp.kind == "shape" and primitive == "to_shape" and exp.allowed:
            # the form of the goals' first example
            primitive = f"to_shape(value, {exp.allowed[0]!r})"
    else:
        variants = variant_groups(dict(str_counts))
        exp, bad, reason, primitive = _judge(counts, seen, variants, csv_strings)
    n_bad = sum(counts[k] for k in bad)
    ranked_bad = [first[k] for k, _ in counts.most_common() if k in bad]
    good = [
        first[k] for k, _ in counts.most_common() if k not in bad and not is_placeholder(seen[k])
    ]
    profile = FieldProfile(
        field=field,
        total=len(values),
        nulls=len(values) - len(present),
        types=dict(Counter(_type_name(v) for v in values).most_common()),
        shapes=dict(shapes.most_common(MAX_SHAPES)),
        expectation=exp,
        conforming=len(present) - n_bad,
        offending=ranked_bad[:MAX_OFFENDING],
        examples_ok=good[:MAX_EXAMPLES],
        variants=[g[:MAX_GROUP_SIZE] for g in variants[:MAX_GROUPS]],
        issue=None,
        primitive="",
        distinct_offending=len(bad),
        csv_strings=csv_strings,
        bad_keys=frozenset(bad),
    )
    if bad:
        profile.issue = _issue_text(profile, reason)
        profile.primitive = primitive
    return profile


def _issue_text(p: FieldProfile, reason: Any) -> str:
    eg = ", ".join(short_value(v) for v in p.offending[:MAX_EXAMPLES])
    n, total = p.n_offending, p.non_null
    if reason == "expectation" and p.expectation is not None:
        need = p.expectation.describe(csv_strings=p.csv_strings)
        return f"{p.field}: {n} of {total} values are not {need}, e.g. {eg}"
    if reason == "mixed":
        return f"{p.field}: {n} of {total} values are text instead of numbers, e.g. {eg}"
    if reason == "variants":
        more = len(p.variants) - 1
        extra = f" (and {more} more group{'s' if more > 1 else ''})" if more > 0 else ""
        return f"{p.field}: same value spelled differently: {p.variants[0]!r}{extra}"
    _, k, top, kind = reason
    noun = kinds.get(kind).noun if kinds.get(kind) else "values"
    return (
        f"{p.field}: {noun} come in {k} formats; {n} of {total} differ from the most common "
        f"({top!r}), e.g. {eg}"
    )


def profile_records(
    records: list[dict],
    expectations: dict[str, Expectation] | None = None,
    *,
    csv_strings: bool | None = None,
) -> dict[str, FieldProfile]:
    """Profile every field of ``records`` (first-seen order; a missing key counts as null).

    ``csv_strings=None``: True when every non-null value of every field is a string (CSV data).
    """
    dicts = [r for r in records if isinstance(r, dict)]
    fields: dict[str, None] = {}
    for record in dicts:
        for key in record:
            fields.setdefault(key, None)
    if csv_strings is None:
        csv_strings = strings_only(dicts)
    expectations = expectations or {}
    return {
        str(f): profile_field(
            str(f), [r.get(f) for r in dicts], expectations.get(str(f)), csv_strings=csv_strings
        )
        for f in fields
    }


def strings_only(records: list) -> bool:
    """Whether every non-null value of every record is a string (CSV data): numbers written as text
    conform."""
    return all(
        isinstance(v, str)
        for r in records
        if isinstance(r, dict)
        for v in r.values()
        if v is not None
    )


def open_issues(profiles: dict[str, FieldProfile]) -> list[FieldProfile]:
    """Fields with an issue, worst first (lowest score, then most offending values)."""
    return sorted(
        (p for p in profiles.values() if p.issue), key=lambda p: (p.score, -p.n_offending)
    )


def issue_counts(profiles: dict[str, FieldProfile]) -> dict[str, int]:
    """field -> number of non-null values that do not conform (0 for fields without an issue)."""
    return {name: p.n_offending for name, p in profiles.items()}
