"""Review before the first call (issue 42 point 5): the goals' reading as a table.

``GoalsPlan`` is what ``DataCleaner.plan()``, ``Cleaner.plan()`` and ``recursive-cleaner plan``
give: the field spec read from the goals and the data with no model call (unless the model's draft
is asked for), and ``lines()``, one row per field — what it will become, the clause that binds it
(its evidence), its examples —, the fields left as they are and why, the rules across rows, and
what the goals ask that nothing binds (unmet). ``generate`` on a terminal prints the same table
before its first model call. Every text from the goals or the data goes through
``escape.terminal_text`` where it is printed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import os

from ..crossrow import kinds
from ..errors import clip_text
from ..judge.verdict import NOT_DONE_KEY
from ..profiling import schema
from ..profiling.spec import CleaningSpec
from ..write.state import atomic_write_text
from .prepare import learn_spec
from .state import RunContext

__all__ = ["GoalsPlan", "plan_lines", "read_plan", "unmet_goals", "PLAN_SUFFIX"]

PLAN_SUFFIX = ".plan.spec.json"
"""The spec a plan writes beside where the functions would go
(``cleaning_functions.plan.spec.json``): its own file, never the one a generate run wrote; give it
to ``generate --spec`` after editing."""

_QUOTE = 90  # characters of a clause quoted as evidence


def _quote(words: str) -> str:
    text = " ".join((words or "").split())
    return f'"{clip_text(text, _QUOTE)}"' if text else ""


def _target(spec: CleaningSpec, name: str) -> str:
    fs = spec.fields[name]
    exp = fs.expectation()
    what = exp.describe() if exp is not None else "one spelling (the rules across rows)"
    if fs.kind in (None, "free") and any(a != b for a, b in fs.examples):
        what = "as its examples show"
    converted = [c for c in spec.conversions if name in (c.value, c.unit)]
    if converted:
        what = converted[0].describe()
    return what


def plan_lines(spec: CleaningSpec) -> list[str]:
    """The reading as lines: the fields written (target, evidence, examples), the fields left as
    they are and why, the rules across rows, the goals nothing binds."""
    written = [n for n in spec.fields if spec.in_scope(n)]
    lines = ["Fields the cleaning may write (each with the clause that binds it):"]
    if not written:
        lines.append("  (none)")
    for name in written:
        fs = spec.fields[name]
        source = "the user's spec" if fs.source == "user" else fs.source or "the goals"
        row = f"  {name}: {_target(spec, name)}  [from {source}]"
        evidence = _quote(fs.evidence or fs.words)
        if evidence:
            row += f"\n      evidence: {evidence}"
        if fs.examples:
            shown = "; ".join(f"{a!r} -> {b!r}" for a, b in fs.examples[:3])
            row += f"\n      examples: {clip_text(shown, 120)}"
        lines.append(row)
    alone = [n for n in spec.fields if not spec.in_scope(n)]
    if alone:
        lines.append("Fields left as they are:")
    for name in alone:
        fs = spec.fields[name]
        if fs.kind == "as_is":
            said = fs.evidence or fs.words
            why = "the goals say to leave it" + (f": {_quote(said)}" if said else "")
        elif fs.asked:
            why = "asked, but no format, example, list or conversion binds it (see unmet)"
        elif fs.mentioned and spec.scope != "all":
            why = "mentioned, with no change asked of it"
        else:
            why = "the goals do not ask for it"
        lines.append(f"  {name}: {why}")
    rules = []
    for key, named in spec.stated().items():
        fields = ", ".join(named) if named else "no field named: none written"
        said = spec.key_words.get(key, "")
        rules.append(
            f"  rows with the same {key} agree on {fields}"
            + (f"\n      evidence: {_quote(said)}" if said else "")
        )
    if spec.dedup:
        rules.append("  duplicate records are removed (the goals ask for it)")
    rules += [f"  conversion: {c.describe()}" for c in spec.conversions]
    if spec.authority is not None:
        rules.append(f"  {spec.authority.describe()} (a source-weighted vote by it)")
    if rules:
        lines.append("Rules across rows:")
        lines += rules
    unmet = spec.unmet()
    if unmet:
        lines.append("Asked, but bound to no target the library can check (not written; say how):")
        lines += [f"  {name}: {_quote(words) or '(no words)'}" for name, words in unmet.items()]
    return lines


@dataclass
class GoalsPlan:
    """The goals' reading before any function is written: the spec, where it was saved, the table
    (``lines``; ``str(plan)`` is the table)."""

    spec: CleaningSpec
    spec_path: str | None = None
    fields: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return plan_lines(self.spec)

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec.to_dict(),
            "spec_path": self.spec_path,
            "unmet": self.spec.unmet(),
            "lines": self.lines(),
        }


def read_plan(ctx: RunContext) -> GoalsPlan:
    """The goals read against the data (schema, samples) with no model call but the draft the
    options ask for; the spec written to ``<output stem>.plan.spec.json``."""
    options = ctx.options
    info = schema.infer_schema(
        ctx.file_path, max(options.schema_sample_size, 1), encoding=ctx.source.encoding
    )
    if not info:
        raise ValueError(f"{ctx.file_path}: no records to read the goals against")
    learn_spec(ctx, info, ties=False)
    spec = ctx.state.spec
    path = os.path.splitext(os.fspath(options.output_path))[0] + PLAN_SUFFIX
    atomic_write_text(path, spec.to_json())
    return GoalsPlan(spec, path, list(info["fields"]))


def unmet_goals(
    spec: CleaningSpec | None,
    functions: list[dict],
    steps: list[Any],
    unfixable: dict[str, str] | None = None,
) -> dict[str, str]:
    """What the goals ask that the run did not do (issue 42 point 4), ``{field or key: why, the
    clause quoted}``: a field asked for with no target the library can check, a field given up, an
    example no written function passes, a rule across rows naming no field."""
    if spec is None:
        return {}
    out: dict[str, str] = {}
    written = {f.get("field") for f in functions}
    # a rule across rows mends them (the user's corrected rows mend their own rows only)
    stepped = {
        fld for s in steps if getattr(kinds.get(s.kind), "planned", True) for fld in s.fields
    }
    for name, words in spec.unmet().items():
        if name in stepped:
            continue  # a rule across rows mends it
        out[name] = f"asked, but no format, example, list or conversion binds it: {_quote(words)}"
    for f in functions:
        for a, b in f.get(NOT_DONE_KEY) or ():
            out.setdefault(
                f.get("field") or f["name"],
                f"its example {a!r} -> {b!r} was not done: `{f['name']}` leaves it as it came",
            )
    for name, issue in (unfixable or {}).items():
        out.setdefault(name, f"given up: {issue}")
    for name, pairs in spec.examples().items():
        changing = [(a, b) for a, b in pairs if a != b]
        if changing and spec.in_scope(name) and name not in written and name not in stepped:
            a, b = changing[0]
            out.setdefault(name, f"no function was written for its example {a!r} -> {b!r}")
    for key, named in spec.stated().items():
        if not named:
            said = spec.key_words.get(key, "")
            out.setdefault(
                f"rows with the same {key}",
                f"the rule names no field to write: {_quote(said)}",
            )
    return out
