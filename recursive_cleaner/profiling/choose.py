"""The library's own fix for a field, chosen by the goals' examples and the data before the model is
asked.

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

from dataclasses import dataclass
from typing import Mapping

from . import kinds
from .example_checks import maps_example
from .expectations import Expectation, is_placeholder
from .harm import HarmCheck
from .harm.portrait import words_of
from .improvement import judge_change
from .kinds import Candidate
from .kinds.dates import dayfirst_from_words
from .kinds.numbers import target_units
from .profiler import FieldProfile, issue_counts, profile_records
from .spec import CleaningSpec, FieldSpec
from ..toolkit import unit_dimension

__all__ = [
    "Candidate",
    "Choice",
    "candidates",
    "choose_function",
    "dayfirst_from_words",  # (kinds')
    "target_units",  # (kinds')
    "CHOSEN_NOTE",
]

CHOSEN_NOTE = "chosen by the library from the goals' examples and the data, without a model call"


@dataclass(frozen=True)
class Choice:
    """The chosen call, what it fixes on the chunk, and its function (docstring, code)."""

    candidate: Candidate
    fixed: int
    docstring: str
    code: str


def candidates(
    profile: FieldProfile, values: list, field: FieldSpec | None = None
) -> list[Candidate]:
    """The toolkit calls that fit the field's kind (its ``Kind.candidates``: the parameters its data
    and goals call for), in order; a placeholder or whitespace issue the profile names adds its own
    call."""
    exp = profile.expectation
    if exp is None or exp.kind == "as_is":
        return []
    strings = [v for v in values if isinstance(v, str) and not is_placeholder(v)]
    out: list[Candidate] = []
    if profile.primitive == "null_if_placeholder":
        out.append(Candidate("null_if_placeholder"))
    kind = kinds.get(exp.kind)
    if kind is not None:
        out += kind.candidates(
            tuple(exp.allowed),
            strings,
            field.words if field else "",
            field.examples if field else (),
        )
    if profile.primitive == "normalize_whitespace" or (
        profile.primitive == "strip_units" and exp.kind not in ("number", "integer")
    ):  # (a number's candidates hold it where units do not mix)
        out.append(Candidate(profile.primitive))
    unique: list[Candidate] = []
    for candidate in out:
        if candidate not in unique:
            unique.append(candidate)
    return unique


def _examples_done(
    candidate: Candidate, examples: tuple, exp: Expectation | None, values: list
) -> int | None:
    """Each example mapped, or left as it came (not done, said as unmet): never written wrong. A
    value that carries a word such an example drops (a multiplier no call reads, "3 dz" -> 36; a
    unit aside) is of the form the example is about: the call leaves it as it came too, for a
    function that does it. The number of examples it does, or None when it writes one wrong."""
    try:
        undone: set[str] = set()
        done = 0
        for a, b in examples:
            out = candidate.run(a)
            if maps_example(out, b, exp):
                done += 1
                continue
            if out != a:
                return None
            # a unit is a label a number's call drops or converts (the judge of harm sees which)
            undone |= {
                w
                for w in set(words_of(str(a))) - set(words_of(str(b)))
                if unit_dimension(w) is None
            }
        kept = all(
            candidate.run(v) == v
            for v in values
            if isinstance(v, str) and undone & set(words_of(v))
        )
        return done if kept else None
    # the toolkit never raises; a call with wrong arguments passes nothing
    except Exception:  # noqa: BLE001
        return None


def choose_function(
    profile: FieldProfile,
    name: str,
    records: list,
    *,
    spec: CleaningSpec | None = None,
    expectations: Mapping[str, Expectation] | None = None,
    csv_strings: bool | None = None,
    frozen: frozenset | set = frozenset(),
    kept: Mapping[str, frozenset] | None = None,
    harm: HarmCheck | None = None,
) -> Choice | None:
    """The call that passes the field's examples (does them, or leaves them as they came), changes
    no right value, and does the most examples and then fixes the most values, as a function."""
    target = profile.field
    if not name.isidentifier():
        return None
    field = spec.fields.get(target) if spec else None
    examples = field.examples if field else ()
    expectations = dict(
        expectations or ({target: profile.expectation} if profile.expectation else {})
    )
    rows = [r for r in records if isinstance(r, dict)]
    values = [r.get(target) for r in rows]
    before = profile_records(rows, expectations, csv_strings=csv_strings)
    wrong = issue_counts(before).get(target, 0)
    best: tuple[tuple[int, int], Candidate] | None = None
    for candidate in candidates(profile, values, field):
        done = _examples_done(candidate, examples, profile.expectation, values)
        if done is None:
            continue
        try:
            after = [{**r, target: candidate.run(r.get(target))} for r in rows]
        except Exception:  # noqa: BLE001
            continue
        verdict = judge_change(
            rows,
            after,
            expectations,
            target=target,
            csv_strings=csv_strings,
            before_profiles=before,
            frozen=frozenset(frozen),
            kept=kept,
            harm=harm,
        )
        if verdict.problem is not None or verdict.credited is not None:
            continue
        # the call that does the most examples, then fixes the most values
        score = (done, wrong - verdict.after.get(target, 0))
        if best is None or score > best[0]:
            best = (score, candidate)
    if best is None:
        return None
    docstring, code = _written(profile, name, best[1])
    return Choice(best[1], best[0][1], docstring, code)


def _written(profile: FieldProfile, name: str, candidate: Candidate) -> tuple[str, str]:
    """(docstring, code) of ``name``: the field set to the candidate's call on it."""
    field, exp = profile.field, profile.expectation
    need = exp.describe(csv_strings=profile.csv_strings) if exp else "one format"
    call = candidate.call().replace("value", "v", 1)
    docstring = f"{field}: {need}, by the toolkit's {call} ({CHOSEN_NOTE})."
    code = (
        f"from recursive_cleaner.toolkit import {candidate.primitive}\n\n\n"
        f"def {name}(record):\n"
        f"    record = dict(record)\n"
        f"    if {field!r} in record:  # a record without the field stays without it\n"
        f"        record[{field!r}] = "
        f"{candidate.primitive}(record.get({field!r}){candidate.arguments()})\n"
        f"    return record\n"
    )
    return docstring, code
