"""Candidate steps that repair values from what the field's other values show (issue 32, point 2).

Not a rule between fields but inside one: ``words`` (a rare misspelled word of the field's values
becomes the word the field spells that way many times) and ``shape`` (a value off the field's
shape by a character gets it back when only one value the field holds fits). A step of each is
proposed for a field when, fitted on the sample, it changes one of the sample's values; one step
per field, so a field the plan or the check refuses takes no other with it. Fields the goals
leave alone or out of their scope are never proposed.
"""

from __future__ import annotations

from typing import Iterable

from .steps import CrossRowStep, fit

__all__ = ["inside_steps", "INSIDE_KINDS"]

INSIDE_KINDS = ("words", "shape")


def inside_steps(records: list, skip: Iterable[str] = ()) -> list[CrossRowStep]:
    """A ``words`` and a ``shape`` step per field (not in ``skip``) where it changes a value."""
    dicts = [r for r in records if isinstance(r, dict)]
    skip = set(skip)
    fields = [f for f in dict.fromkeys(k for r in dicts for k in r) if f not in skip]
    steps = []
    for kind in INSIDE_KINDS if fields else ():
        fitted = fit([CrossRowStep(kind, fields=tuple(fields))], dicts)
        for record in dicts:
            fitted.transform(record)
        steps += [CrossRowStep(kind, fields=(f,)) for f in fields if fitted.changed[(0, f)]]
    return steps
