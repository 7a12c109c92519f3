"""Truth discovery across sources against a plain majority (issue 32, point 1), no model.

Two multi-source tables, each cleaned by a ``majority`` step on its entity key three ways:

- ``majority``: the plain vote (every row alike);
- ``weighted``: the source-weighted vote of ``--old-commit`` (``crossrow/weights.py`` read from
  git: each source weighted by the log-odds of how often it agrees with the winners), with
  today's transform;
- ``truth``: today's ``weight_by`` (``crossrow/truth.py``: source accuracies and value
  confidences fitted together, values that differ only by format as one, copy detection).

Tables: the synthetic one of ``bench/truth_table.py`` (sources of known reliability, two copying
a poor one; ``--seed``, ``--entities``), and flights (``--data-dir``) after the saved model
functions ``bench/functions/flights.py`` (``clean_data`` in the sandbox, then the step of its
``CROSS_ROW_STEPS``). Scores are Baran's cell precision / recall / F1 against ``clean.csv``
(``bench/scoring.py``). For ``truth`` it prints each source's estimated accuracy beside its real
one (non-blank cells), the copying pairs found, and sorts the cells still wrong: left blank, a
format other than the truth's, a wrong winner (the right value a lone report, or more), no row
right, a right cell broken. Then what no vote can pass (``ceilings``): the F1 of an oracle
that gives every cell the right value whenever some row of its key holds it (keeping the step's
output elsewhere, or leaving the dirty value there), of one that trusts the source named by the
key's first word (the entity's own publisher: ``ua`` for ``UA-…``), and, of the cells no row holds
right, how many hold another field's value of the same row in the clean file.

    python bench/truth.py --data-dir ../shared/bench-data

The last line: ``truth synthetic_majority=X synthetic_weighted=X synthetic_truth=X
flights_majority=X flights_weighted=X flights_truth=X`` (F1; flights left out without its data).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import types
from collections import Counter, defaultdict
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import scoring  # noqa: E402
import truth_table  # noqa: E402
from recursive_cleaner.crossrow import truth as truth_module  # noqa: E402
from recursive_cleaner.crossrow.kinds import majority as majority_module  # noqa: E402
from recursive_cleaner.crossrow.steps import CrossRowStep, fit  # noqa: E402
from recursive_cleaner.crossrow.values import format_key  # noqa: E402

DEFAULT_DATA_DIR = os.path.join(os.path.dirname(ROOT), "shared", "bench-data")
METHODS = ("majority", "weighted", "truth")


def old_weights(commit: str) -> Callable | None:
    """``weigh_votes`` of ``crossrow/weights.py`` at ``commit``, or None when git lacks it."""
    run = subprocess.run(
        ["git", "-C", ROOT, "show", f"{commit}:recursive_cleaner/crossrow/weights.py"],
        capture_output=True,
        text=True,
    )
    if run.returncode:
        return None
    module = types.ModuleType("rc_old_weights")
    exec(compile(run.stdout, f"{commit}:weights.py", "exec"), module.__dict__)
    return module.weigh_votes


def _as_truths(weigh: Callable) -> Callable:
    """``find_truths`` made of an old ``weigh_votes``: its weighted counts as the scores."""

    def find(votes: dict, **_known: Any) -> truth_module.Truths:  # no known cells in the bench
        weighted, weights = weigh(votes)
        scores = {}
        for cell, counts in weighted.items():  # its rule: the strict plurality wins
            ranked = counts.most_common(2)
            won = len(ranked) == 1 or ranked[0][1] > ranked[1][1]
            scores[cell] = Counter({v: float(won and v == ranked[0][0]) for v in counts})
        return truth_module.Truths(scores=scores, accuracy=weights, claims={s: 0 for s in weights})

    return find


def cleaned(
    step: CrossRowStep, keys: list[str], rows: list[list[str]], find: Callable | None = None
) -> tuple[list[list[str]], Any]:
    """``rows`` after ``step`` (``find`` in place of ``find_truths`` when given); and the fit."""
    records = [dict(zip(keys, r)) for r in rows]
    saved = majority_module.find_truths
    try:
        if find is not None:
            majority_module.find_truths = find
        fitted = fit([step], records)
    finally:
        majority_module.find_truths = saved
    out = [fitted.transform(r) for r in records]
    return [[scoring.to_csv_text(r.get(k)) for k in keys] for r in out], fitted


def wrong_cells(
    dirty: list, clean: list, before: list, after: list, key: int, source: int, fields: list[int]
) -> Counter:
    """The cells still wrong after the step, sorted by why."""
    group: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(before):
        group[row[key]].append(i)
    kinds: Counter = Counter()
    for i, (d, c, a) in enumerate(zip(dirty, clean, after)):
        for j in fields:
            if a[j] == c[j]:
                continue
            given = [before[k][j] for k in group[before[i][key]]]
            if d[j] == c[j]:
                kinds["broken (right in the dirty file)"] += 1
            elif not a[j]:
                kinds["left blank"] += 1
            elif format_key(a[j]) == format_key(c[j]):
                kinds["the right value in another format"] += 1
            elif not any(format_key(g) == format_key(c[j]) for g in given):
                kinds["no row of the key right"] += 1
            elif sum(format_key(g) == format_key(c[j]) for g in given) == 1:
                kinds["wrong winner: the right value a lone report"] += 1
            else:
                kinds["wrong winner: the right value given by 2+ rows"] += 1
    return kinds


def real_accuracy(before: list, clean: list, source: int, fields: list[int]) -> dict:
    """Each source's share of right values among its non-blank cells."""
    right, total = Counter(), Counter()
    for b, c in zip(before, clean):
        for j in fields:
            if b[j]:
                total[b[source]] += 1
                right[b[source]] += b[j] == c[j]
    return {s: right[s] / total[s] for s in total}


def compare(
    name: str, dirty: list, clean: list, before: list, step: CrossRowStep, old: Callable | None
) -> dict[str, float]:
    """Print the three methods' scores on one table and what ``truth`` found; their F1."""
    keys = dirty[0]
    plain = CrossRowStep("majority", key=step.key, fields=step.fields)
    runs = {"majority": (plain, None), "truth": (step, None)}
    if old is not None:
        runs["weighted"] = (step, _as_truths(old))
    f1s, fits = {}, {}
    print(f"\n{name}: {len(before) - 1} rows, key {'+'.join(step.key)}, source {step.weight_by[0]}")
    for method in METHODS:
        if method not in runs:
            continue
        rows, fits[method] = cleaned(runs[method][0], keys, before[1:], runs[method][1])
        score = scoring.score_tables(dirty, clean, [keys] + rows, header=True)
        f1s[method] = score.f1
        print(
            f"  {method:9s} P {score.precision:.4f} R {score.recall:.4f} F1 {score.f1:.4f} "
            f"broken {score.broken_cells} changed {score.changed_cells} errors {score.error_cells}"
        )
        if method == "truth":
            after = rows
    state = fits["truth"].fits[0]
    src, kcol = keys.index(step.weight_by[0]), keys.index(step.key[0])
    fields = [keys.index(f) for f in step.fields]
    real = real_accuracy(before[1:], clean[1:], src, fields)
    print("  source accuracy, estimated (real, on its non-blank cells):")
    ranked = sorted(state.accuracy, key=lambda s: -state.accuracy[s])
    for s in ranked:
        print(
            f"    {s:22s} {state.accuracy[s]:.3f} ({real.get(s, 0):.3f}) {state.reports[s]} cells"
        )
    print(f"  copying pairs: {', '.join(f'{a}~{b}' for a, b in sorted(state.copies)) or 'none'}")
    kinds = wrong_cells(dirty[1:], clean[1:], before[1:], after, kcol, src, fields)
    print(f"  cells still wrong after truth ({sum(kinds.values())}):")
    for kind, n in kinds.most_common():
        print(f"    {n:6d} {kind}")
    ceilings(dirty, clean, before, [keys] + after, kcol, src, fields)
    return f1s


def ceilings(
    dirty: list, clean: list, before: list, after: list, key: int, source: int, fields: list[int]
) -> None:
    """Print what no vote among the rows can pass: oracles that know the right value."""
    group: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(before[1:], 1):
        group[row[key]].append(i)
    held, held_abstain, owner = ([r[:] for r in after] for _ in range(3))
    other_field = 0
    for i in range(1, len(after)):
        rows = group[before[i][key]]
        first = before[i][key].replace("-", " ").split()[:1]
        for j in fields:
            right = clean[i][j]
            holders = [k for k in rows if format_key(before[k][j]) == format_key(right)]
            if holders:
                held[i][j] = held_abstain[i][j] = right
            elif after[i][j] != right:
                held_abstain[i][j] = dirty[i][j]
                other_field += bool(right) and any(
                    clean[i][f] == right for f in range(len(clean[i])) if f != j
                )
            own = [
                b[j] for b in (before[k] for k in rows) if first and b[source] == first[0].lower()
            ]
            if own and own[0]:
                owner[i][j] = own[0]
    print("  ceilings (oracles; no vote among the rows can pass the first two):")
    for label, table in (
        ("every cell some row of the key holds right, the step's output elsewhere", held),
        ("the same, the dirty value left elsewhere", held_abstain),
        ("the source the key's first word names (the entity's own) trusted", owner),
    ):
        score = scoring.score_tables(dirty, clean, table, header=True)
        print(f"    F1 {score.f1:.4f} (P {score.precision:.4f} R {score.recall:.4f}) {label}")
    print(f"    cells no row holds right, right value another field of the row: {other_field}")


def synthetic(seed: int, entities: int, old: Callable | None) -> dict[str, float]:
    dirty, clean = truth_table.build_table(seed, entities)
    step = CrossRowStep("majority", key=("sku",), fields=truth_table.FIELDS, weight_by=("feed",))
    return compare("synthetic", dirty, clean, dirty, step, old)


def flights(data_dir: str, old: Callable | None) -> dict[str, float] | None:
    import accuracy

    folder = os.path.join(data_dir, "flights")
    if not os.path.isfile(os.path.join(folder, "dirty.csv")):
        print(f"\nflights: no {folder}/dirty.csv, skipped")
        return None
    dirty = scoring.read_csv_table(os.path.join(folder, "dirty.csv"))
    clean = scoring.read_csv_table(os.path.join(folder, "clean.csv"))
    with open(os.path.join(HERE, "functions", "flights.py"), encoding="utf-8") as f:
        source = f.read()
    keys = dirty[0]
    outputs, _ = accuracy.apply_clean_data(source, [dict(zip(keys, r)) for r in dirty[1:]])
    before = [dirty[0]] + [
        [scoring.to_csv_text(o.get(k)) for k in keys] if isinstance(o, dict) else d
        for o, d in zip(outputs, dirty[1:])
    ]
    (saved,) = [s for s in accuracy.cross_row_steps(source) if s.get("weight_by")]
    return compare("flights", dirty, clean, before, CrossRowStep.from_dict(saved), old)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=DEFAULT_DATA_DIR)
    p.add_argument("--seed", type=int, default=32)
    p.add_argument("--entities", type=int, default=400)
    p.add_argument(
        "--old-commit", default="264311a", help="the weighted vote before (default %(default)s)"
    )
    args = p.parse_args(argv)
    old = old_weights(args.old_commit)
    results = {"synthetic": synthetic(args.seed, args.entities, old)}
    found = flights(args.data_dir, old)
    if found is not None:
        results["flights"] = found
    print(
        "truth "
        + " ".join(
            f"{table}_{method}={f1s[method]:.4f}"
            for table, f1s in results.items()
            for method in METHODS
            if method in f1s
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
