"""Which cross-row steps a dataset needs: rules found in a sample, confirmed by the model, checked
on the sample.

The library looks for functional dependencies (rows sharing a key agree on other fields),
turns them into candidate ``majority`` steps (plus a ``vocabulary`` step for the keys, whose
own typos would split their groups), and shows them to the model with the user's goals. The
model copies the steps that hold and may add a ``dedup`` step when the goals ask for one. A
step is kept only if, on the sample, it changes something and leaves no field with more
values in the wrong format (the field profiler's count).

A key the goals name ("the times are the same for every row of that flight", "the same
provider_number always has the same name") is a *stated key*: its fields need only agree
in most rows (``STATED_AGREEMENT``), since the user vouches for the rule, and a majority step
on it is kept even if the model's reply drops it (it must still pass the sample check). When
a field names each row's source (``src``, ``source``, ``site`` …) and each source reports a
key once, the stated key's votes are weighted by source reliability (``weight_by``).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import replace
from typing import Any, Iterable, Mapping

from . import kinds
from .steps import CrossRowStep, apply_steps, fit, kind_of
from .xml_form import format_steps, parse_steps
from ..profiling.example_checks import maps_example
from ..profiling.row_rules import stated_fields, stated_keys
from .guard import asks_dedup, dedup_key_problem, harm
from ..profiling.expectations import loose_kind
from ..profiling.improvement import judge_holdout

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
]

PLAN_TAG = "cross_row_plan"
_ID_NAME = re.compile(
    r"(?:^|_)(?:id|no|num|number|code|key|sku|ref)(?:$|_)|(?:id|code|number)$", re.I
)
MIN_AGREEMENT = 0.9
STATED_AGREEMENT = 0.5
_SOURCE_NAME = re.compile(
    r"(?:^|_)(?:src|sources?|sites?|websites?|origin|feed|reporter|vendor)(?:$|_)", re.I
)


def _key_value(value: Any) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return value if isinstance(value, (str, int, float, bool)) else repr(value)


def _grouped(records: list[dict], key: tuple[str, ...]) -> tuple[list[list[dict]], int]:
    """The key groups of two or more rows, and how many rows they hold (rows with a blank key part
    are left out)."""
    groups: dict[Any, list[dict]] = defaultdict(list)
    for r in records:
        k = tuple(_key_value(r.get(part)) for part in key)
        if None not in k:
            groups[k].append(r)
    grouped = [g for g in groups.values() if len(g) >= 2]
    return grouped, sum(len(g) for g in grouped)


def _agreement(grouped: list[list[dict]], rows: int, fld: str) -> float:
    """Share of the grouped rows whose ``fld`` is their group's most common value."""
    return (
        sum(Counter(_key_value(r.get(fld)) for r in g).most_common(1)[0][1] for g in grouped) / rows
    )


def _dependents(
    records: list[dict], key: str, fields: list[str], min_agreement: float
) -> list[tuple[str, float]]:
    """(field, agreement) for each field that agrees with its key group's majority in >=
    ``min_agreement`` of rows."""
    grouped, rows = _grouped(records, (key,))
    if len(grouped) < 2 or rows < max(6, len(records) // 4):
        return []
    found = []
    for fld in fields:
        if fld == key:
            continue
        overall = Counter(_key_value(r.get(fld)) for r in records)
        if len(overall) < 2 or overall.most_common(1)[0][1] > 0.98 * len(records):
            continue  # constant (or almost): nothing to learn
        agree = _agreement(grouped, rows, fld)
        if agree >= min_agreement:
            found.append((fld, agree))
    return found


def _majorities(grouped: list[list[dict]], fld: str) -> dict[int, Any]:
    """id(row) -> its group's most common ``fld`` value."""
    out = {}
    for g in grouped:
        top = Counter(_key_value(r.get(fld)) for r in g).most_common(1)[0][0]
        out.update((id(r), top) for r in g)
    return out


def _second_key(records: list[dict], key: str, fld: str, others: list[str]) -> str | None:
    """A field that, added to ``key``, explains ``fld``'s disagreements (state_average by state +
    measure_code).

    A typo disagrees with its group whatever joins the key; a value that really depends on a
    second field agrees with its (key, second) group, or is alone in it (the only hospital of
    its state). A blank value, or a blank second field, explains nothing. The second field is
    the one that explains the most disagreements: at least 3, a third of them, and three times
    the share of rows the pair leaves alone; its groups must keep 80% of the grouped rows.
    """
    grouped, base_rows = _grouped(records, (key,))
    alone = _majorities(grouped, fld)
    wrong = [r for g in grouped for r in g if _key_value(r.get(fld)) != alone[id(r)]]
    if len(wrong) < 3:
        return None
    best: tuple[int, str] | None = None
    for other in others:
        if other in (key, fld):
            continue
        pair_groups, rows = _grouped(records, (key, other))
        if rows < 0.8 * base_rows:
            continue
        paired = _majorities(pair_groups, fld)
        explained = sum(
            1
            for r in wrong
            if None not in (_key_value(r.get(other)), _key_value(r.get(fld)))
            and paired.get(id(r), _key_value(r.get(fld))) == _key_value(r.get(fld))
        )
        alone_share = 1 - rows / base_rows
        if explained >= max(3, len(wrong) / 3, 3 * alone_share * len(wrong)) and (
            best is None or explained > best[0]
        ):
            best = (explained, other)
    return best[1] if best else None


def _rows_differ(records: list[dict], key: str, fld: str) -> bool:
    """Whether most values that disagree with their key group are another group's usual value.

    A misspelling or a stray suffix is rare in the field ("Mooresville NC", "birminghxm"); a
    value that many other groups settle on ("16" ounces where the brewery mostly makes 12) is
    the row being different, not wrong, so a majority would overwrite right values. Blanks are
    left out: filling them is what a majority is for.
    """
    grouped, _ = _grouped(records, (key,))
    tops, minority = set(), []
    for g in grouped:
        counts = Counter(v for v in (_key_value(r.get(fld)) for r in g) if v is not None)
        if counts:
            top = counts.most_common(1)[0][0]
            tops.add(top)
            minority += [v for v in counts.elements() if v != top]
    return bool(minority) and sum(v in tops for v in minority) >= 0.5 * len(minority)


def _source_field(records: list[dict], key: str, fields: list[str]) -> str | None:
    """A field named like a source (src, site …) that each key group has at most once per row, for
    90% of rows."""
    grouped, rows = _grouped(records, (key,))
    for fld in fields:
        if fld == key or not _SOURCE_NAME.search(fld) or not rows:
            continue
        once = sum(
            n
            for g in grouped
            for v, n in Counter(_key_value(r.get(fld)) for r in g).items()
            if n == 1 and v is not None
        )
        if once >= 0.9 * rows:
            return fld
    return None


def _key_like(values: set) -> bool:
    """Identifiers and codes can be keys; times, dates and decimal numbers cannot."""
    strings = [str(v) for v in values]
    if loose_kind(strings) in ("date", "datetime", "time"):
        return False
    return not any(
        isinstance(v, float) or re.fullmatch(r"[-+]?\d*[.,]\d+", str(v).strip()) for v in values
    )


def discover_steps(
    records: list,
    *,
    min_agreement: float = MIN_AGREEMENT,
    max_keys: int = 3,
    stated: Iterable[str] | dict[str, list[str]] = (),
    protected: Iterable[str] = (),
) -> list[CrossRowStep]:
    """Candidate steps from a sample: majority steps for the strongest keys, then vocabulary for
    those keys.

    ``stated`` keys (see :func:`stated_keys`) need only ``STATED_AGREEMENT`` and come first. Given
    as ``{key: fields}`` (:func:`stated_fields`), the lower bar holds only for the fields the goals
    name with that key (all of them when they name none); the others need ``min_agreement``. A
    ``protected`` field (the goals leave it as it is) may be a key, never a field a step writes,
    unless the goals name it with a stated key ("mend the product names with the spelling most lines
    of that SKU have": the stated repair is more specific than a general "leave the product names as
    they are").
    """
    named = {k: list(v) for k, v in stated.items()} if isinstance(stated, dict) else {}
    dicts = [r for r in records if isinstance(r, dict)]
    if len(dicts) < 6:
        return []
    fields = list(dict.fromkeys(k for r in dicts for k in r))
    stated, protected = set(stated), set(protected)
    n = len(dicts)
    keys, key_like = [], []
    for fld in fields:
        values = {_key_value(r.get(fld)) for r in dicts} - {None}
        if not 2 <= len(values) <= n // 2 or not _key_like(values):
            continue
        key_like.append(fld)
        deps = _dependents(
            dicts,
            fld,
            fields,
            min(min_agreement, STATED_AGREEMENT) if fld in stated else min_agreement,
        )
        # "rows with the same measure code agree on the condition": not on emergency_service
        if named.get(fld):
            deps = [(d, a) for d, a in deps if d in named[fld] or a >= min_agreement]
        if deps:
            keys.append((fld, deps))
    keys.sort(
        key=lambda kd: (
            kd[0] not in stated,
            -len(kd[1]),
            not _ID_NAME.search(kd[0]),
            fields.index(kd[0]),
        )
    )
    steps, pairs, covered = [], [], set()
    for key, deps in keys:
        if key in covered:
            continue  # a field that another key determines is not a key of its own
        todo = [(d, a) for d, a in deps if d not in covered and d not in {s.key[0] for s in steps}]
        if not todo:
            continue
        alone, by_pair = [], defaultdict(list)
        for d, a in todo:
            second = _second_key(dicts, key, d, key_like)
            (by_pair[second] if second else alone).append(d)
        # the dependencies the goals state
        told = named.get(key) or (list(fields) if key in stated else [])
        # the others must look like one
        alone = [d for d in alone if d in told or not _rows_differ(dicts, key, d)]
        # a protected field the goals name with this stated key: its repair is asked
        mend = set(named.get(key, ()))
        # the rest found and covered, never written
        alone = [d for d in alone if d not in protected or d in mend]
        by_pair = {
            second: [d for d in ds if d not in protected or d in mend]
            for second, ds in by_pair.items()
        }
        by_pair = {second: ds for second, ds in by_pair.items() if ds}
        if alone:
            source = _source_field(dicts, key, fields) if key in stated else None
            steps.append(
                CrossRowStep(
                    "majority",
                    key=(key,),
                    fields=tuple(a for a in alone if a != source),
                    weight_by=(source,) if source else (),
                )
            )
        pairs += [
            CrossRowStep(
                "majority", key=tuple(sorted((key, second), key=fields.index)), fields=tuple(ds)
            )
            for second, ds in by_pair.items()
        ]
        covered.update(d for d, _ in todo)
        if len(steps) >= max_keys:
            break
    # a protected key is read, not mended
    repairable = tuple(s.key[0] for s in steps if s.key[0] not in protected)
    if repairable:
        steps.insert(0, CrossRowStep("vocabulary", fields=repairable))
    return steps + pairs


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
    offered = [kind for kind in kinds.registered() if dedup or not kind.drops]
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
    dropped."""
    stated = set(stated)
    have = {(s.kind, s.key) for s in chosen if kind_of(s).stated_repair}
    return list(chosen) + [
        s
        for s in candidates
        if kind_of(s).stated_repair and s.key[0] in stated and (s.kind, s.key) not in have
    ]


def _changed(before: list[dict], after: list[dict]) -> set[str]:
    return {
        k
        for old, new in zip(before, after)
        for k in old.keys() | new.keys()
        if old.get(k) != new.get(k)
    }


def _guarded(
    step: CrossRowStep,
    stated: set[str],
    protected: set[str],
    kept: Mapping[str, Iterable[str]],
    named: Mapping[str, Iterable[str]],
) -> tuple[CrossRowStep | None, str | None]:
    """The step without the fields the goals leave as they are, with its guards set; why fields were
    taken out.

    Its protected key parts are never repaired, the shapes kept by examples never replaced, and a
    majority on a key the goals do not state replaces only variants of the winner. A protected field
    the goals name with a stated key of a majority step (``named``) is written by it: the stated
    repair.
    """
    kind = kind_of(step)
    if not kind.writes:
        return step, None
    mend = {f for k in step.key if k in stated and kind.stated_repair for f in named.get(k, ())}
    written = tuple(f for f in step.fields if f not in protected or f in mend)
    removed = [f for f in step.fields if f not in written]
    why = (
        f"it would write {', '.join(removed)}, which the goals leave as "
        f"{'it is' if len(removed) == 1 else 'they are'}"
        if removed
        else None
    )
    if not written:
        return None, why
    touches = set(step.key) | set(written)
    return replace(
        step,
        fields=written,
        protected=tuple(f for f in step.key if f in protected),
        keep=tuple(sorted((f, shape) for f in touches for shape in kept.get(f, ()))),
        variants_only=kind.stated_repair and not (stated & set(step.key)),
    ), why


def _breaks_examples(
    step: CrossRowStep,
    current: list[dict],
    after: list[dict],
    examples: Mapping[str, Iterable[tuple[str, str]]],
) -> str | None:
    """Why the step breaks a goals' example of a field it writes, or None.

    On the sample it may not turn an example's input into anything but its output, nor write an
    input the examples turn into something else; a vocabulary step must also leave each output
    as it is and map each input to its output or leave it (checked on one record of the sample).
    """
    for fld in step.fields:
        pairs = [(str(a), str(b)) for a, b in examples.get(fld, ())]
        wrong = {a: b for a, b in pairs if a != b}
        if not pairs:
            continue
        for old, new in zip(current, after) if len(after) == len(current) else ():
            was, now = old.get(fld), new.get(fld)
            if was == now:
                continue
            if isinstance(was, str) and was in wrong and not maps_example(now, wrong[was]):
                return (
                    f"it turns the goals' example {was!r} of {fld} into {now!r}, not {wrong[was]!r}"
                )
            if isinstance(now, str) and now in wrong:
                return (
                    f"it writes {now!r} into {fld}, which the goals' examples turn into "
                    f"{wrong[now]!r}"
                )
        if kind_of(step).value_map and current:
            fitted = fit([step], current)
            for a, b in pairs:
                out_b = (fitted.transform({**current[0], fld: b}) or {}).get(fld)
                out_a = (fitted.transform({**current[0], fld: a}) or {}).get(fld)
                if not maps_example(out_b, b) or not (out_a == a or maps_example(out_a, b)):
                    return f"it would rewrite the goals' example {a!r} -> {b!r} of {fld}"
    return None


def validate_steps(
    steps: list[CrossRowStep],
    sample: list,
    expectations: dict | None = None,
    *,
    allow_dedup: bool = True,
    stated: Iterable[str] | Mapping[str, Iterable[str]] = (),
    frozen: Iterable[str] = (),
    csv_strings: bool | None = None,
    protected: Iterable[str] = (),
    kept: Mapping[str, Iterable[str]] | None = None,
    examples: Mapping[str, Iterable[tuple[str, str]]] | None = None,
) -> tuple[list[CrossRowStep], list[tuple[str, str]]]:
    """Keep each step that changes the sample, makes no field worse and is safe; (kept, [(step,
    reason)]).

    ``allow_dedup`` is whether the goals ask to remove duplicates: without it a dedup step is
    refused (dropping records is never done on the model's initiative alone); with it a kept
    dedup step is marked ``asked``. A dedup key must identify records, and a step that drops or
    rewrites more than a small share of the sample is refused unless the goals ask for it
    (``guard``; a majority step on a ``stated`` key is asked for). A step may change a ``frozen``
    field (one the goals do not ask about) only when its key is stated; a ``protected`` field (one
    the goals leave as it is) never, unless ``stated`` is ``{key: fields}`` and names it with the
    step's key; nor a value of a shape an example keeps (``kept``: field -> shapes). A majority step
    on a key the goals do not state replaces only values that look like variants of the winner
    (``CrossRowStep.variants_only``). A step that writes a field with ``examples`` (field ->
    (input, output) pairs) must keep them (``_breaks_examples``).
    """
    accepted: list[CrossRowStep] = []
    refused: list[tuple[str, str]] = []
    named = {k: list(v) for k, v in stated.items()} if isinstance(stated, Mapping) else {}
    stated, frozen, protected = set(stated), set(frozen) | set(protected), set(protected)
    current = [r for r in sample if isinstance(r, dict)]
    for given in steps:
        step, why = _guarded(given, stated, protected, kept or {}, named)
        if why:
            refused.append((format_steps([given]), why))
        if step is None:
            continue
        kind = kind_of(step)
        if kind.drops:
            if not allow_dedup:
                refused.append((format_steps([step]), "the goals do not ask to remove duplicates"))
                continue
            problem = dedup_key_problem(step, current)
            if problem:
                refused.append((format_steps([step]), problem))
                continue
            step = replace(step, asked=True)
        after = apply_steps(accepted + [step], [r for r in sample if isinstance(r, dict)])
        if after == current:
            refused.append((format_steps([step]), "it changes nothing on the sample"))
            continue
        asked = step.asked or (kind.stated_repair and bool(stated & set(step.key)))
        touched = sorted(frozen & _changed(current, after)) if len(after) == len(current) else []
        keyed = bool(stated & set(step.key)) or (kind.fixes_keys and set(step.fields) <= stated)
        if touched and not keyed:
            refused.append(
                (
                    format_steps([step]),
                    f"it changes {', '.join(touched)}, which the goals do not ask "
                    "to change (and its key is not one the goals state)",
                )
            )
            continue
        too_much = harm(step, current, after, asked=asked) or _breaks_examples(
            step, current, after, examples or {}
        )
        if too_much:
            refused.append((format_steps([step]), too_much))
            continue
        if not kind.drops:
            worse = judge_holdout(current, after, expectations or {}, csv_strings=csv_strings)
            if worse:
                refused.append(
                    (
                        format_steps([step]),
                        worse.replace(
                            "On records you were not shown it made", "On the sample it made"
                        ),
                    )
                )
                continue
        accepted.append(step)
        current = after
    return accepted, refused
