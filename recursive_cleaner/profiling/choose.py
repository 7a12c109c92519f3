"""The library's own fix for a field, chosen by the goals' examples and the data before the model is asked.

For a field with wrong values, the toolkit calls that fit its kind are tried with the parameters
its data and goals call for: dates day first or month first (the goals' words, else a value such
as 25/03, else month first), the decimal mark the values use, the unit the goals name for values
with units of mass, length or volume, counts in words or with unit words, the form of the goals'
example outputs, the allowed values of a list. Each runs here, on the chunk (the toolkit is the
library's own, trusted code), and is judged by ``judge_change``'s rules (fewer wrong values, no
right value changed, other fields untouched) and by the field's examples (each input must give
exactly its output). The one that fixes the most values, the first on a tie, becomes the field's
first attempt: a one-liner that still goes through the gate, in the sandbox, like any reply. When
none passes, the model is asked, and shown the examples as tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from .. import toolkit
from .example_checks import maps_example
from .expectations import KIND_PRIMITIVES, Expectation, is_placeholder
from .improvement import judge_change
from .profiler import FieldProfile, issue_counts, profile_records
from .spec import CleaningSpec, FieldSpec

__all__ = ["Candidate", "Choice", "candidates", "choose_function", "dayfirst_from_words", "target_units",
           "CHOSEN_NOTE"]

CHOSEN_NOTE = "chosen by the library from the goals' examples and the data, without a model call"
_DAY_FIRST = re.compile(r"\bday[\s-]*first\b|\bdd\s*[/.\-]\s*mm\b|\bday\s*[/,.]\s*month\b", re.I)
_MONTH_FIRST = re.compile(r"\bmonth[\s-]*first\b|\bmm\s*[/.\-]\s*dd\b|\bmonth\s*[/,.]\s*day\b", re.I)
_ISO_TEMPLATE = re.compile(r"\byyyy\s*[/.\-]\s*mm\s*[/.\-]\s*dd\b", re.I)
_AMOUNT_UNIT = re.compile(r"\s*[-+]?[0-9][0-9.,' ]*\s*([A-Za-z\"'][A-Za-z. \"']{0,24}?)\s*\.?\s*")
_UNIT_WORD = re.compile(r"fl\.?\s*oz\.?|[A-Za-z]+")
_TO = frozenset({"to", "into"})
_NOT_UNITS = frozenset({"in"})  # "weights in kg": the word, not inches
_IN = frozenset({"in", "as"})
_PLAIN_KINDS = frozenset(KIND_PRIMITIVES) - {"enum", "shape", "number", "integer", "date", "datetime", "as_is"}
_SCALE_WORD = re.compile(r"\d\s*(?:k|m|mn|bn|thousand|million|billion)\b", re.I)
_DECIMALS = re.compile(r"[-+]?[0-9]*[.,]([0-9]+)")


@dataclass(frozen=True, eq=True)
class Candidate:
    """One toolkit call on a field's value: ``primitive(value, *args, **kwargs)``."""

    primitive: str
    args: tuple = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    def run(self, value: Any) -> Any:
        return getattr(toolkit, self.primitive)(value, *self.args, **dict(self.kwargs))

    def arguments(self) -> str:
        """", 'kg', digits=2": the arguments after the value, as Python literals."""
        return "".join(f", {a!r}" for a in self.args) + "".join(f", {k}={v!r}" for k, v in self.kwargs)

    def call(self) -> str:
        return f"{self.primitive}(value{self.arguments()})"


@dataclass(frozen=True)
class Choice:
    """The chosen call, what it fixes on the chunk, and its function (docstring, code)."""

    candidate: Candidate
    fixed: int
    docstring: str
    code: str


def dayfirst_from_words(words: str) -> bool | None:
    """True when the goals' words about the field say day first ("DD/MM/YYYY"), False for month first, else None."""
    words = _ISO_TEMPLATE.sub(" ", words or "")  # the MM-DD of YYYY-MM-DD is no order of the input
    day, month = bool(_DAY_FIRST.search(words)), bool(_MONTH_FIRST.search(words))
    return day if day != month else None


def _value_units(values: list) -> dict[str, set[str]]:
    """{dimension: spellings} of the units the values carry ("500 g", "2 lb")."""
    out: dict[str, set[str]] = {}
    for value in values:
        m = _AMOUNT_UNIT.fullmatch(value) if isinstance(value, str) and len(value) <= 64 else None
        dimension = toolkit.unit_dimension(m.group(1)) if m else None
        if dimension:
            out.setdefault(dimension, set()).add(_unit_key(m.group(1)))
    return out


def _unit_key(text: str) -> str:
    """One key per unit size ("kg", "kgs", "Kilograms" -> the same): the value of 1 of it in grams/metres/litres."""
    size = toolkit.to_unit("1 " + text, {"mass": "g", "length": "m", "volume": "l"}[toolkit.unit_dimension(text)])
    return repr(size)


_ARROW_BEFORE = re.compile(r"(?:->|→|=>)\s*$")
_FACTOR_AFTER = re.compile(r"\s*(?:/|\*|×|x\b|times\b|divided\b|multiplied\b)\s*\(?\d", re.I)  # "g / 1000"


def target_units(words: str, dimension: str, used: set[str] = frozenset()) -> list[str]:
    """The units of ``dimension`` the goals' words name, most likely target first ("to kg", "-> kg", "in kg", then
    others; a unit the words give a factor for, "lb x 0.4536", is a source: last)."""
    found: list[tuple[int, int, str]] = []
    text = words or ""
    tokens = list(_UNIT_WORD.finditer(text))
    for i, m in enumerate(tokens):
        token = m.group()
        if toolkit.unit_dimension(token) != dimension or token.lower() in _NOT_UNITS or \
                (len(token) == 1 and token.lower() not in ("g", "l", "m")):
            continue
        before = tokens[i - 1].group().lower() if i else ""
        rank = (0 if before in _TO or _ARROW_BEFORE.search(text, 0, m.start()) else 4 if _FACTOR_AFTER.match(text, m.end())
                else 1 if before in _IN else 2 if _unit_key(token) not in used else 3)
        found.append((rank, i, token))
    return list(dict.fromkeys(token for _, _, token in sorted(found)))


_DECIMALS_SAID = re.compile(r"\b(\d|zero|one|two|three|four)\s+(?:decimals?|decimal places|places|digits after|dp)\b",
                            re.I)


def _digits(examples: tuple[tuple[str, str], ...], words: str = "") -> list[int]:
    """The numbers of decimals the examples' numeric outputs are written with, and the goals' words name ("2 decimals",
    "one decimal place"), to round a conversion to."""
    out = {toolkit.words_to_number(m.group(1).lower()) if m.group(1).isalpha() else int(m.group(1))
           for m in _DECIMALS_SAID.finditer(words or "")}
    for _, b in examples:
        m = _DECIMALS.fullmatch(b.strip())
        if m:
            out.add(len(m.group(1)))
    return sorted(out)


def candidates(profile: FieldProfile, values: list, field: FieldSpec | None = None) -> list[Candidate]:
    """The toolkit calls that fit the field's kind, with the parameters its data and goals call for, in order."""
    exp = profile.expectation
    if exp is None or exp.kind == "as_is":
        return []
    words = field.words if field else ""
    examples = field.examples if field else ()
    strings = [v for v in values if isinstance(v, str) and not is_placeholder(v)]
    out: list[Candidate] = []
    if profile.primitive == "null_if_placeholder":
        out.append(Candidate("null_if_placeholder"))
    kind = exp.kind
    if kind in ("date", "datetime"):
        order = dayfirst_from_words(words)
        order = toolkit.infer_dayfirst(strings) if order is None else order
        prim = KIND_PRIMITIVES[kind]
        form = (("form", exp.allowed[0]),) if kind == "datetime" and exp.allowed else ()
        day, plain = Candidate(prim, kwargs=(("dayfirst", True),) + form), Candidate(prim, kwargs=form)
        if order:
            out += [day, plain]  # the goals say day first: so for the whole file, whatever this chunk holds
        elif all(day.run(v) == plain.run(v) for v in strings):
            out.append(plain)  # no value where the order matters: the plain call
        else:
            out += [day, plain] if order else [plain, day]
    elif kind in ("number", "integer"):
        out += _number_candidates(exp, strings, words, examples)
    elif kind == "enum" and exp.allowed:
        out.append(Candidate("closest_value", (list(exp.allowed),)))
        aliases = {a: b for a, b in examples if b in exp.allowed and a not in exp.allowed}
        if aliases:  # the goals' examples as spellings of the values: "high" is H, "Ops" is Operations
            out.append(Candidate("closest_value", (list(exp.allowed),), (("aliases", aliases),)))
    elif kind == "shape":
        out += [Candidate("to_shape", (b,)) for b in exp.allowed]
        if examples and not any(c.isdigit() for a, b in examples for c in a + b):  # words: their case, the examples
            out += [Candidate(p) for p in ("title_case_name", "to_lower", "to_upper", "normalize_whitespace")]  # decide
    elif kind in _PLAIN_KINDS:
        out.append(Candidate(KIND_PRIMITIVES[kind]))
    if profile.primitive == "normalize_whitespace" or (profile.primitive == "strip_units" and kind not in (
            "number", "integer")):  # (a number's candidates hold it where units do not mix)
        out.append(Candidate(profile.primitive))
    unique: list[Candidate] = []
    for candidate in out:
        if candidate not in unique:
            unique.append(candidate)
    return unique


def _number_candidates(exp: Expectation, strings: list, words: str, examples: tuple) -> list[Candidate]:
    whole = (("whole_as_int", True),) if "whole_as_int" in exp.allowed else ()
    decimal = toolkit.infer_decimal(strings)
    if decimal and all(toolkit.to_number(v, decimal=decimal) == toolkit.to_number(v) for v in strings):
        decimal = None  # every value reads the same either way: the plain call
    marks = ((("decimal", decimal),) if decimal else ()), ()
    out: list[Candidate] = []
    units = _value_units(strings)
    for dimension, used in units.items():
        for target in target_units(words, dimension, used):
            for digits in [*_digits(examples, words), None]:  # the rounding the goals give first
                for mark in marks:
                    kw = ((("digits", digits),) if digits is not None else ()) + mark
                    out.append(Candidate("to_unit", (target,), kw))
    if any(len(used) > 1 for used in units.values()):
        return out  # grams and pounds: a bare number would mix them, only a conversion may fix these
    if exp.kind == "integer":
        out += [Candidate("to_int"), Candidate("to_count")]
        out += [Candidate("to_number", kwargs=(("integer", True),) + mark) for mark in marks]
    else:
        out += [Candidate("to_number", kwargs=whole + mark) for mark in marks]
    out += [Candidate("words_to_number"), Candidate("to_count"), Candidate("strip_units")]
    if any(_SCALE_WORD.search(a) for a, _ in examples):  # "52k" -> 52000: the examples ask to read multipliers
        out += [Candidate("to_number", kwargs=(("integer", True), ("scaled", True)) + mark) for mark in marks] + [
            Candidate("to_number", kwargs=(("whole_as_int", True), ("scaled", True)) + mark) for mark in marks]
    return out


def _passes_examples(candidate: Candidate, examples: tuple, exp: Expectation | None) -> bool:
    try:
        return all(maps_example(candidate.run(a), b, exp) for a, b in examples)
    except Exception:  # noqa: BLE001 - the toolkit never raises; a call with wrong arguments passes nothing
        return False


def choose_function(profile: FieldProfile, name: str, records: list, *, spec: CleaningSpec | None = None,
                    expectations: Mapping[str, Expectation] | None = None, csv_strings: bool | None = None,
                    frozen: frozenset | set = frozenset(), kept: Mapping[str, frozenset] | None = None
                    ) -> Choice | None:
    """The call that passes the field's examples, changes no right value and fixes the most, as a function."""
    target = profile.field
    if not name.isidentifier():
        return None
    field = spec.fields.get(target) if spec else None
    examples = field.examples if field else ()
    expectations = dict(expectations or ({target: profile.expectation} if profile.expectation else {}))
    rows = [r for r in records if isinstance(r, dict)]
    values = [r.get(target) for r in rows]
    before = profile_records(rows, expectations, csv_strings=csv_strings)
    wrong = issue_counts(before).get(target, 0)
    best: tuple[int, Candidate] | None = None
    for candidate in candidates(profile, values, field):
        if not _passes_examples(candidate, examples, profile.expectation):
            continue
        try:
            after = [{**r, target: candidate.run(r.get(target))} for r in rows]
        except Exception:  # noqa: BLE001
            continue
        verdict = judge_change(rows, after, expectations, target=target, csv_strings=csv_strings,
                               before_profiles=before, frozen=frozenset(frozen), kept=kept)
        if verdict.problem is not None or verdict.credited is not None:
            continue
        fixed = wrong - verdict.after.get(target, 0)
        if best is None or fixed > best[0]:
            best = (fixed, candidate)
    if best is None:
        return None
    docstring, code = _written(profile, name, best[1])
    return Choice(best[1], best[0], docstring, code)


def _written(profile: FieldProfile, name: str, candidate: Candidate) -> tuple[str, str]:
    """(docstring, code) of ``name``: the field set to the candidate's call on it."""
    field, exp = profile.field, profile.expectation
    need = exp.describe(csv_strings=profile.csv_strings) if exp else "one format"
    call = candidate.call().replace("value", "v", 1)
    docstring = f"{field}: {need}, by the toolkit's {call} ({CHOSEN_NOTE})."
    code = (f"from recursive_cleaner.toolkit import {candidate.primitive}\n\n\n"
            f"def {name}(record):\n"
            f"    record = dict(record)\n"
            f"    if {field!r} in record:  # a record without the field stays without it\n"
            f"        record[{field!r}] = {candidate.primitive}(record.get({field!r}){candidate.arguments()})\n"
            f"    return record\n")
    return docstring, code
