"""Which cross-row steps a dataset needs: rules found in a sample, confirmed by the model, checked
on the sample.

``discover`` finds candidate steps in a cleaned sample (functional dependencies: rows sharing a
key agree on other fields); this module shows them to the model with the user's goals
(``build_plan_prompt``) and reads its reply (``choose_steps``): the model copies the steps that
hold and may add a ``dedup`` step when the goals ask for one. A majority step on a *stated key*
(one the goals name) is kept even if the reply drops it (``with_stated``), and so is a repair of a
field from its own values (``inside``). ``validate`` keeps a step only if, on the sample, it
changes something and makes nothing worse.

``discover_steps`` and ``validate_steps`` are importable from here, as before.
"""

from __future__ import annotations

import re
from typing import Iterable

from . import kinds
from .discover import MIN_AGREEMENT, STATED_AGREEMENT, discover_steps
from .inside import INSIDE_KINDS
from .steps import CrossRowStep, kind_of
from .validate import validate_steps
from .xml_form import format_steps, parse_steps
from ..profiling.row_rules import stated_fields, stated_keys
from .guard import asks_dedup

__all__ = [
    "discover_steps",
    "stated_keys",
    "stated_fields",
    "build_plan_prompt",
    "choose_steps",
    "with_stated",
    "validate_steps",
    "wants_dedup",
    "PLAN_TAG",
    "MIN_AGREEMENT",
    "STATED_AGREEMENT",
]

PLAN_TAG = "cross_row_plan"


_PLAN = """
=== RULES ACROSS ROWS ===
Some problems can only be fixed by looking at other rows. The library found these rules in a
sample of {n} records: rows that share the key agree on the other fields, so a value that
disagrees with most rows of its key is a typo.
{candidates}

Kinds of rule:
{kinds}
=== TASK ===
Given the user's goals, copy the rules above that are true for this data, drop any that are \
not{tasks}. Reply with
<{tag}> containing one <cross_row_step .../> per rule, or an empty <{tag}></{tag}> if none applies.
"""


def wants_dedup(instructions: str) -> bool:
    """The goals ask to remove duplicates (``guard.asks_dedup``: a negated mention is no
    request)."""
    return asks_dedup(instructions)


def build_plan_prompt(
    prefix: str, candidates: list[CrossRowStep], n_records: int, *, dedup: bool = True
) -> str:
    """The planning prompt: the run's static prefix, the candidate rules, the kinds, the task.

    A kind that ``drops`` records is offered only with ``dedup`` (the goals ask to remove them).
    """
    shown = format_steps(candidates) if candidates else "(none found)"
    offered = [kind for kind in kinds.registered() if kind.planned and (dedup or not kind.drops)]
    lines = "".join(f"{kind.prompt}\n" for kind in offered if kind.prompt)
    asks = "".join(f",\nand {kind.task}" for kind in offered if kind.task)
    return prefix + _PLAN.format(
        n=n_records, candidates=shown, tag=PLAN_TAG, kinds=lines, tasks=asks
    )


def choose_steps(reply: str, fields: list[str]) -> tuple[list[CrossRowStep] | None, list[str]]:
    """The steps the model's reply keeps (only known fields) and why any were refused; None: no plan
    in it."""
    m = re.search(rf"<{PLAN_TAG}\b[^>]*>(.*?)(?:</{PLAN_TAG}\s*>|\Z)", reply or "", re.S | re.I)
    if m is None and "<cross_row_step" not in (reply or ""):
        return None, ["the reply had no <" + PLAN_TAG + ">"]
    return parse_steps(m.group(1) if m else reply or "", fields)


def with_stated(
    chosen: list[CrossRowStep], candidates: list[CrossRowStep], stated: Iterable[str]
) -> list[CrossRowStep]:
    """The model's steps plus each candidate majority step on a stated key that the reply
    dropped, and each candidate repairing a field from its own values (``inside``: what the data
    shows, not a rule the model could judge from its line) on a field the reply left it off."""
    stated = set(stated)
    have = {(s.kind, s.key) for s in chosen if kind_of(s).stated_repair}
    own = {(s.kind, f) for s in chosen if s.kind in INSIDE_KINDS for f in s.fields}

    def dropped(s: CrossRowStep) -> bool:
        if s.kind in INSIDE_KINDS:
            return not {(s.kind, f) for f in s.fields} <= own
        return kind_of(s).stated_repair and s.key[0] in stated and (s.kind, s.key) not in have

    return list(chosen) + [s for s in candidates if dropped(s)]
