"""Candidate cross-row steps found in a sample: keys whose rows agree on other fields.

The library looks for functional dependencies (rows sharing a key agree on other fields) and
turns them into candidate ``majority`` steps (plus a ``vocabulary`` step for the keys, whose
own typos would split their groups); ``plan`` shows them to the model.

A key the goals name ("the times are the same for every row of that flight", "the same
provider_number always has the same name") is a *stated key*: its fields need only agree
in most rows (``STATED_AGREEMENT``), since the user vouches for the rule. When another field's
values name sources (the rows of one key come from several of its values, each once, and each
value reports several keys) and the sources are not equally reliable (how often their values
disagree with their key group differs beyond chance), the key's votes are fitted by truth
discovery (``weight_by``: ``crossrow.truth``). Nothing in a field's name says it is a source.

Every field checked against every key is quadratic in the fields: the rows visited are counted
(``MAX_WORK``); keys are tried stated first, then named like an identifier, then in column order,
and past the bound the rest is not looked at but counted (``left_out``; 300 columns: minutes).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from typing import Any, Iterable

from .inside import inside_steps
from .near import Budget
from .steps import CrossRowStep, apply_steps
from .validate import MAX_STEPS
from ..profiling.expectations import loose_kind

__all__ = [
    "discover_steps",
    "source_field",
    "MIN_AGREEMENT",
    "STATED_AGREEMENT",
    "SOURCE_SPREAD",
    "MAX_WORK",
    "MAX_STEPS",
]

_ID_NAME = re.compile(
    r"(?:^|_)(?:id|no|num|number|code|key|sku|ref)(?:$|_)|(?:id|code|number)$", re.I
)
MIN_AGREEMENT = 0.9
STATED_AGREEMENT = 0.5
# how far (in standard deviations of chance) the sources' disagreement rates must spread
SOURCE_SPREAD = 5.0
MAX_WORK = 4_000_000  # rows discovery visits (a row read once for a key and a field: one unit)


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


class _Columns:
    """Each field's values (``_key_value``) in row order, read from the records once."""

    def __init__(self, records: list[dict]) -> None:
        self.records, self.read = records, {}

    def __getitem__(self, fld: str) -> list:
        column = self.read.get(fld)
        if column is None:
            column = self.read[fld] = [_key_value(r.get(fld)) for r in self.records]
        return column

    def varied(self, fields: list[str]) -> set[str]:
        """The fields that are not constant (nor almost: one value in more than 98% of rows)."""
        out = set()
        for fld in fields:
            overall = Counter(self[fld])
            if len(overall) >= 2 and max(overall.values()) <= 0.98 * len(self.records):
                out.add(fld)
        return out


def _dependents(
    columns: _Columns,
    key: str,
    fields: list[str],
    min_agreement: float,
    varied: set[str],
    work: Budget,
) -> list[tuple[str, float]] | None:
    """(field, agreement) for each field that agrees with its key group's majority in >=
    ``min_agreement`` of its grouped rows (``varied``: the fields that are not constant); None
    when ``work`` ran out."""
    n = len(columns.records)
    if not work.spend(n):
        return None
    at: dict[Any, list[int]] = defaultdict(list)
    for row, value in enumerate(columns[key]):
        if value is not None:
            at[value].append(row)
    grouped = [g for g in at.values() if len(g) >= 2]
    rows = sum(len(g) for g in grouped)
    if len(grouped) < 2 or rows < max(6, n // 4):
        return []
    found = []
    for fld in fields:
        if fld == key or fld not in varied:
            continue  # constant (or almost): nothing to learn
        if not work.spend(rows):
            return None
        column = columns[fld]
        agree = sum(max(Counter(map(column.__getitem__, g)).values()) for g in grouped) / rows
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


def _second_key(
    records: list[dict], key: str, fld: str, others: list[str], work: Budget
) -> str | None:
    """A field that, added to ``key``, explains ``fld``'s disagreements (state_average by state +
    measure_code).

    A typo disagrees with its group whatever joins the key; a value that really depends on a
    second field agrees with its (key, second) group, or is alone in it (the only hospital of
    its state). A blank value, or a blank second field, explains nothing. The second field is
    the one that explains the most disagreements: at least 3, a third of them, and three times
    the share of rows the pair leaves alone; its groups must keep 80% of the grouped rows. None
    too when ``work`` runs out before every field is tried.
    """
    if not work.spend(2 * len(records)):
        return None
    grouped, base_rows = _grouped(records, (key,))
    alone = _majorities(grouped, fld)
    wrong = [r for g in grouped for r in g if _key_value(r.get(fld)) != alone[id(r)]]
    if len(wrong) < 3:
        return None
    best: tuple[int, str] | None = None
    for other in others:
        if other in (key, fld):
            continue
        if not work.spend(2 * len(records)):
            return None
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


def _rows_differ(records: list[dict], key: str, fld: str, work: Budget) -> bool:
    """Whether most values that disagree with their key group are another group's usual value.

    A misspelling or a stray suffix is rare in the field ("Mooresville NC", "birminghxm"); a
    value that many other groups settle on ("16" ounces where the brewery mostly makes 12) is
    the row being different, not wrong, so a majority would overwrite right values. Blanks are
    left out: filling them is what a majority is for. Past ``work``: True (nothing is written).
    """
    if not work.spend(2 * len(records)):
        return True
    grouped, _ = _grouped(records, (key,))
    tops, minority = set(), []
    for g in grouped:
        counts = Counter(v for v in (_key_value(r.get(fld)) for r in g) if v is not None)
        if counts:
            top = counts.most_common(1)[0][0]
            tops.add(top)
            minority += [v for v in counts.elements() if v != top]
    return bool(minority) and sum(v in tops for v in minority) >= 0.5 * len(minority)


def source_field(
    records: list[dict],
    key: str,
    fields: list[str],
    candidates: Iterable[str] | None = None,
    work: Budget | None = None,
) -> str | None:
    """A field whose values name sources of unequal reliability for ``key``'s ``fields``, or None.

    Its values must name sources, not rows or groups: in the key groups of two or more rows, 90%
    of the rows are their group's only row of their value, and a value reports two keys on
    average. Its sources must differ in how often their values disagree with their group's most
    common value, beyond chance, in at least half of ``fields``: a chi-square over the sources
    ``SOURCE_SPREAD`` standard deviations past chance (a typo that strikes any row alike makes no
    source less reliable; one field that depends on another, as a state average on the state, is
    not the sources). The field that spreads most fields most wins; ``candidates``: the fields
    to try (default: all). None too when ``work`` (default: ``MAX_WORK`` rows) runs out before
    every candidate is tried.
    """
    work = Budget(MAX_WORK) if work is None else work
    grouped, rows = _grouped(records, (key,))
    best: tuple[int, float, str] | None = None
    if candidates is None:
        candidates = dict.fromkeys(k for r in records for k in r)
    for fld in candidates if rows and fields else ():
        if fld == key or fld in fields:
            continue
        if not work.spend(rows * (1 + len(fields))):
            return None
        names = [[_key_value(r.get(fld)) for r in g] for g in grouped]
        once = sum(n for g in names for v, n in Counter(g).items() if n == 1 and v is not None)
        if once < 0.9 * rows or len({v for g in names for v in g}) > rows / 2:
            continue
        spreads = [_spread(grouped, fld, f) for f in fields]
        spread = sum(z >= SOURCE_SPREAD for z in spreads)
        ranked = (spread, sum(spreads))
        if spread and 2 * spread >= len(fields) and (best is None or ranked > best[:2]):
            best = (*ranked, fld)
    return best[2] if best else None


def _spread(grouped: list[list[dict]], source: str, fld: str) -> float:
    """How far the sources' rates of disagreeing with their group on ``fld`` spread beyond chance
    (z)."""
    cells, wrong = Counter(), Counter()
    for g in grouped:
        values = [(_key_value(r.get(fld)), _key_value(r.get(source))) for r in g]
        counts = Counter(v for v, _ in values if v is not None)
        if sum(counts.values()) < 3:
            continue
        top = counts.most_common(1)[0][0]
        for v, s in values:
            if v is not None and s is not None:
                cells[s] += 1
                wrong[s] += v != top
    total, missed = sum(cells.values()), sum(wrong.values())
    if len(cells) < 2 or not 0 < missed < total:
        return 0.0
    rate, df = missed / total, len(cells) - 1
    chi = sum((wrong[s] - n * rate) ** 2 / (n * rate * (1 - rate)) for s, n in cells.items())
    # Wilson-Hilferty: the chi-square's cube root is about normal
    return ((chi / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))


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
    frozen: Iterable[str] = (),
    left_out: Counter | None = None,
) -> list[CrossRowStep]:
    """Candidate steps from a sample: majority steps for the strongest keys, then vocabulary for
    those keys.

    ``stated`` keys (see :func:`stated_keys`) need only ``STATED_AGREEMENT`` and come first. Given
    as ``{key: fields}`` (:func:`stated_fields`), the lower bar holds only for the fields the goals
    name with that key (all of them when they name none); the others need ``min_agreement``. A
    ``protected`` field (the goals leave it as it is) may be a key, never a field a step writes,
    unless the goals name it with a stated key ("mend the product names with the spelling most lines
    of that SKU have": the stated repair is more specific than a general "leave the product names as
    they are"). Last, the steps that repair a field's values from its own (``inside``) where the
    sample needs them after those, on fields neither protected nor ``frozen`` (out of scope).
    At most ``MAX_STEPS``, and ``MAX_WORK`` rows visited: what is not looked at is counted in
    ``left_out`` (``keys``: key candidates; ``checks``: sources, second keys and the like;
    ``steps``: candidate steps past ``MAX_STEPS``).
    """
    named = {k: list(v) for k, v in stated.items()} if isinstance(stated, dict) else {}
    dicts = [r for r in records if isinstance(r, dict)]
    if len(dicts) < 6:
        return []
    left_out = Counter() if left_out is None else left_out
    fields = list(dict.fromkeys(k for r in dicts for k in r))
    place = {f: j for j, f in enumerate(fields)}
    stated, protected = set(stated), set(protected)
    n, work = len(dicts), Budget(MAX_WORK)
    key_like = []
    for fld in fields:
        values = {_key_value(r.get(fld)) for r in dicts} - {None}
        if 2 <= len(values) <= n // 2 and _key_like(values):
            key_like.append(fld)
    columns = _Columns(dicts)
    varied, keys = columns.varied(fields), []
    # the keys most likely to matter first: past the work bound, the rest are not looked at
    for fld in sorted(key_like, key=lambda f: (f not in stated, not _ID_NAME.search(f), place[f])):
        deps = _dependents(
            columns,
            fld,
            fields,
            min(min_agreement, STATED_AGREEMENT) if fld in stated else min_agreement,
            varied,
            work,
        )
        if deps is None:
            left_out["keys"] += 1
            continue
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
            place[kd[0]],
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
        # sources of unequal reliability explain the disagreements: no second key is looked for
        source = source_field(dicts, key, [d for d, _ in todo], fields, work=work)
        for d, a in todo:
            second = None if source else _second_key(dicts, key, d, key_like, work)
            (by_pair[second] if second else alone).append(d)
        # the dependencies the goals state
        told = named.get(key) or (list(fields) if key in stated else [])
        # the others must look like one
        alone = [d for d in alone if d in told or not _rows_differ(dicts, key, d, work)]
        left_out["checks"] += work.left < 0
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
                "majority",
                key=tuple(sorted((key, second), key=place.__getitem__)),
                fields=tuple(ds),
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
    # what the rules across rows leave for the field's own values
    inside = inside_steps(apply_steps(steps + pairs, dicts), protected | set(frozen))
    found = steps + pairs + inside
    left_out["steps"] += max(0, len(found) - MAX_STEPS)
    return found[:MAX_STEPS]
