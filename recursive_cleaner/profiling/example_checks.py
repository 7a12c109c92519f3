"""The goals' examples as tests: does a function's output write an example's output, and what breaks
them.

Every function for a field must turn each example's input into exactly its output
(``maps_example``: a number by its value, ``14.9`` writes ``"14.90"``; null writes ``""``); a
function for another field may leave the value as it came to it, never write anything else there
(``example_failures``). The gate and the library's own choice (``choose``) hold candidates to them;
the focused prompt shows them (``format_examples``).

The user's corrected rows (``labels=``, issue 44) are examples too, each labelled cell one, run on
the row it labels (``label_failures``): in the field the function is written for a cell must
become its corrected value, or stay as it came, or — where the label changes the value's form
too — take the corrected value's form (its value may be one only a rule across rows can settle:
"12/2/11 6:35 a.m." labelled "6:55 a.m." may become "6:35 a.m."); a cell the label leaves as it
is must stay. In another field the function may leave the value as it came or write the label's.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import clip_text
from .expectations import Expectation, value_shape
from .improvement import same_number

__all__ = [
    "maps_example",
    "example_failures",
    "examples_refusal",
    "example_cases",
    "format_examples",
    "label_failures",
    "labels_refusal",
    "format_labels",
    "LABELS_SHOWN",
]

LABELS_SHOWN = 8  # labelled cells a prompt shows, at most


def maps_example(out: Any, b: str, exp: Expectation | None = None) -> bool:
    """Does a function's output ``out`` write the example's output ``b`` (a number by its value;
    null as "")?"""
    if isinstance(out, str):
        if out == b:
            return True
    elif out is None:
        return b == ""
    elif isinstance(out, bool):
        return str(out).lower() == b.strip().lower()
    elif isinstance(out, (int, float)):
        return same_number(b, out) or str(out) == b
    if exp is not None and exp.kind in ("number", "integer"):
        return same_number(b, out)
    return False


def example_failures(
    cases: list[tuple[str, str, str]],
    outputs: list,
    *,
    errors: list | None = None,
    expectations: Mapping[str, Expectation] | None = None,
    strict: frozenset | set = frozenset(),
    inputs: list | None = None,
) -> list[str]:
    """What breaks the goals' examples: ``cases`` (field, input, output) and a function's
    ``outputs`` on them.

    A field in ``strict`` (the one the function is written for) must map each example exactly;
    in another field the function may leave the value as it came to it (``inputs``, the records it
    ran on; else the example's input), but what it writes there must be the example's output.
    """
    broke = []
    for k, (name, a, b) in enumerate(cases):
        error = errors[k] if errors and k < len(errors) else None
        out = outputs[k] if k < len(outputs) else None
        came = inputs[k] if inputs and k < len(inputs) else None
        got = out.get(name) if isinstance(out, dict) else out
        before = came.get(name, a) if isinstance(came, dict) else a
        shown = f"'{clip_text(name, 60)}': {_shown(a)} should become {_shown(b)}"
        if error is not None:
            if name in strict:
                broke.append(f"{shown}, but it raised {clip_text(str(error), 120)}")
            continue
        if maps_example(got, b, (expectations or {}).get(name)) or (
            name not in strict and got == before
        ):
            continue
        broke.append(f"{shown}, it gives {_shown(got)}")
    return broke


def examples_refusal(broke: list[str]) -> str | None:
    """The feedback for a function that breaks the goals' examples (None when it breaks none)."""
    if not broke:
        return None
    more = f"; and {len(broke) - 4} more" if len(broke) > 4 else ""
    return (
        "It does not pass the goals' examples, the tests every function for the field must pass: "
        + "; ".join(broke[:4])
        + more
        + ". Turn each example's input into exactly its output."
    )


def example_cases(
    examples: Mapping[str, tuple[tuple[str, str], ...]],
) -> list[tuple[str, str, str]]:
    """(field, input, output) for every example of every field."""
    return [(name, a, b) for name, pairs in examples.items() for a, b in pairs]


def format_examples(pairs: tuple[tuple[str, str], ...] | list) -> str:
    """The lines that show a field's examples in a prompt: the tests its function must pass."""
    if not pairs:
        return ""
    lines = [
        f"  {_shown(a)} -> {_shown(b)}" + ("  (stays exactly as it is)" if a == b else "")
        for a, b in pairs
    ]
    return (
        "Examples from the goals (tests: your function must turn each input into exactly this "
        "output):\n" + "\n".join(lines)
    )


def _shown(value: Any) -> str:
    return clip_text(repr(value), 80)


def _text(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)


def label_failures(
    cases: list[tuple[int, str, Any, Any]],
    outputs: list,
    inputs: list,
    *,
    strict: frozenset | set = frozenset(),
    errors: list | None = None,
    expectations: Mapping[str, Expectation] | None = None,
) -> list[str]:
    """What breaks the user's corrected rows: ``cases`` (row, field, input value, corrected value)
    and a function's ``outputs`` on the labelled rows (``inputs``: as they came to it)."""
    broke = []
    for k, name, given, label in cases:
        out = outputs[k] if k < len(outputs) else None
        error = errors[k] if errors and k < len(errors) else None
        came = (
            inputs[k].get(name, given) if k < len(inputs) and isinstance(inputs[k], dict) else given
        )
        got = out.get(name) if isinstance(out, dict) else out
        shown = (
            f"'{clip_text(name, 60)}' of labelled row {k + 1}: {_shown(given)} is {_shown(label)}"
        )
        if error is not None:
            if name in strict:
                broke.append(f"{shown}, but it raised {clip_text(str(error), 120)}")
            continue
        b = _text(label)
        if got == came or maps_example(got, b, (expectations or {}).get(name)):
            continue
        if name in strict and _text(given) != b and _takes_form(given, got, b):
            continue  # the form of the label; its value for a rule across rows
        broke.append(f"{shown}, it gives {_shown(got)}")
    return broke


def _takes_form(given: Any, got: Any, label: str) -> bool:
    """Does ``got`` take the label's form where the label changes the input's form too (a number
    for a label that is one)?"""
    shape = value_shape(label)
    if value_shape(_text(given)) == shape:
        return False
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        try:
            float(label)
        except ValueError:
            return False
        return True
    return isinstance(got, str) and value_shape(got) == shape


def format_labels(pairs: list[tuple[Any, Any]], total: int | None = None) -> str:
    """The lines that show a field's labelled cells that change in a prompt (at most
    ``LABELS_SHOWN``)."""
    changing = [(a, b) for a, b in pairs if _text(a) != _text(b)]
    if not changing:
        return ""
    lines = [f"  {_shown(a)} -> {_shown(b)}" for a, b in changing[:LABELS_SHOWN]]
    more = len(changing) - LABELS_SHOWN
    return (
        "Rows the user corrected by hand (labels; tests: each input must become this output, or "
        "keep its value in this output's form where only the other rows can tell the value, or "
        "stay as it is):\n" + "\n".join(lines) + (f"\n  ... and {more} more" if more > 0 else "")
    )


def labels_refusal(broke: list[str]) -> str | None:
    """The feedback for a function that breaks the user's corrected rows (None when none)."""
    if not broke:
        return None
    more = f"; and {len(broke) - 4} more" if len(broke) > 4 else ""
    return (
        "It does not pass the rows the user corrected by hand (labels), tests every function "
        "must pass: " + "; ".join(broke[:4]) + more + ". Write each labelled value, or leave the "
        "value as it came where only the other rows can tell it."
    )
