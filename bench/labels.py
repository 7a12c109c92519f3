"""Corrected rows and a named authority on the benchmark tables (issue 44), offline, no model.

For each table (flights, hospital, beers of ``--data-dir``, and the generated multi-source table of
``bench/truth_table.py``: ``synthetic``): the saved model functions
(``bench/functions/TABLE.py``, ``clean_data`` in the sandbox; none for beers: the raw rows), then
the run's cross-row plan without the model call (``run.finish.plan_cross_row``'s path, as
``bench/replan.py``: the goals of ``bench/instructions/TABLE.txt`` read into the spec,
``discover_steps`` on the first 2,000 rows, ``validate_steps`` with the labels), then
``crossrow.labelled.with_labels`` (the labels step last; with ``--authority`` variants the
spec's authority), fitted on every row and applied. The labels are ``--labels`` rows drawn at
random per seed, their values the clean file's, written to a CSV and read back by the library's
reader (``read.labels.read_labels``, matched by the data's id column).

Printed per table: F1 and cells broken with 0 labels over the whole table; per seed and their
mean, with the labels: over the whole table, over the rows not labelled (0 labels -> the labels,
on the same rows) and the cells still wrong in the labelled rows (0 labels -> the labels); for
flights also the authority variants (the airline's own site: the ``src`` the flight's first part
names, ``ua`` for ``UA-…``).

    python bench/labels.py --seeds 1 2 3 4 5 --data-dir ../shared/bench-data
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import replan  # noqa: E402
import scoring  # noqa: E402

DEFAULT_DATA_DIR = os.path.join(os.path.dirname(ROOT), "shared", "bench-data")
TABLES = ("flights", "hospital", "beers")


def cleaned_rows(table: str, dirty: list[list[str]]) -> list[dict]:
    """The rows after the saved functions (the raw rows where there are none, or a row fails)."""
    import accuracy

    keys = dirty[0]
    records = [dict(zip(keys, r)) for r in dirty[1:]]
    path = os.path.join(HERE, "functions", f"{table}.py")
    if not os.path.isfile(path):
        return records
    with open(path, encoding="utf-8") as f:
        outputs, _ = accuracy.apply_clean_data(f.read(), records)
    return [o if isinstance(o, dict) else r for o, r in zip(outputs, records)]


def plan(
    table: str, dirty_path: str, rows: list[dict], labelled: list, key: str
) -> tuple[list, object]:
    """The steps the run keeps (no model call: every candidate) and the spec."""
    from recursive_cleaner.crossrow.discover import discover_steps
    from recursive_cleaner.profiling.focus import FieldFocus

    with open(os.path.join(HERE, "instructions", f"{table}.txt"), encoding="utf-8") as f:
        goals = f.read()
    with open(dirty_path, newline="", encoding="utf-8") as f:
        raw = list(csv.DictReader(f))
    fields = list(raw[0])
    focus = FieldFocus()
    head = {fl: [r[fl] for r in raw[:200]] for fl in fields}
    spec = focus.learn(goals, fields, head, check=head)
    sample = rows[:2000]
    stated = {k: [x for x in v if x in fields] for k, v in spec.stated().items() if k in fields}
    candidates = discover_steps(
        sample, stated=stated, protected=focus.protected, frozen=focus.rows_frozen
    )
    kept, _ = replan.checked_steps(
        candidates, sample, spec, focus, stated, labels=labelled, labels_key=key
    )
    return kept, spec


def draw_labels(dirty: list, clean: list, n: int, seed: int, folder: str) -> tuple[str, set]:
    """A CSV (the data's header) of ``n`` rows drawn at random with their clean values; the rows'
    indices (1-based)."""
    picked = sorted(random.Random(seed).sample(range(1, len(dirty)), n))
    path = os.path.join(folder, f"labels-{seed}.csv")
    scoring.write_csv_table(path, [dirty[0]] + [clean[i] for i in picked])
    return path, set(picked)


def score(dirty: list, clean: list, out: list, rows: set | None = None) -> tuple[float, int]:
    """(F1, cells broken) over the rows of ``rows`` (1-based; None: all)."""
    keep = [0] + [i for i in range(1, len(dirty)) if rows is None or i in rows]
    s = scoring.score_tables(
        [dirty[i] for i in keep], [clean[i] for i in keep], [out[i] for i in keep], header=True
    )
    return s.f1, s.broken_cells


def repaired(table: str, dirty_path: str, rows: list, keys: list, labels, named) -> list:
    """The table after the plan (with ``labels`` and the authority ``named``), as CSV text."""
    from recursive_cleaner.crossrow.labelled import with_labels
    from recursive_cleaner.crossrow.steps import fit

    labelled = [(rows[r.record - 1], r.corrected) for r in labels.rows] if labels else []
    kept, _ = plan(table, dirty_path, rows, labelled, labels.key if labels else "")
    steps = with_labels(
        kept, labels.step_rows() if labels else (), labels.key if labels else None, named
    )
    fitted = fit(steps, rows)
    return [keys] + [
        [scoring.to_csv_text(o.get(k)) for k in keys]
        for o in map(fitted.transform, [dict(r) for r in rows])
    ]


def run(table: str, data_dir: str, seeds: list[int], n: int, authority: bool) -> list[str]:
    from recursive_cleaner.profiling.authority import Authority
    from recursive_cleaner.read.labels import read_labels

    folder = os.path.join(data_dir, table)
    dirty_path = os.path.join(folder, "dirty.csv")
    if not os.path.isfile(dirty_path):
        return [f"{table}: no {dirty_path}, skipped"]
    dirty = scoring.read_csv_table(dirty_path)
    clean = scoring.read_csv_table(os.path.join(folder, "clean.csv"))
    keys = dirty[0]
    rows = cleaned_rows(table, dirty)
    variants = [("none", None)] + [("authority", Authority("src"))] * authority
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, named in variants:
            zero = repaired(table, dirty_path, rows, keys, None, named)
            f1, broken = score(dirty, clean, zero)
            lines.append(f"{table:9s} {name:10s} 0 labels: whole table F1 {f1:.4f} broken {broken}")
            results = []
            for seed in seeds:
                path, picked = draw_labels(dirty, clean, n, seed, tmp)
                out = repaired(table, dirty_path, rows, keys, read_labels(path, dirty_path), named)
                rest = set(range(1, len(dirty))) - picked
                results.append(
                    (
                        seed,
                        *score(dirty, clean, out),
                        *score(dirty, clean, zero, rest),
                        *score(dirty, clean, out, rest),
                        sum(out[i][j] != clean[i][j] for i in picked for j in range(len(keys))),
                        sum(zero[i][j] != clean[i][j] for i in picked for j in range(len(keys))),
                    )
                )
            lines += _lines(table, name, n, results)
    return lines


def _lines(table: str, variant: str, n: int, results: list) -> list[str]:
    out = []
    rows = [(f"seed {r[0]}", r[1:]) for r in results]
    if results:
        rows.append(("mean", [statistics.mean(r[k] for r in results) for k in range(1, 9)]))
    for label, (f1, broken, f1_0, broken_0, f1_rest, broken_rest, wrong, wrong_0) in rows:
        out.append(
            f"{table:9s} {variant:10s} {n} labels {label:7s} whole table F1 {f1:.4f} broken "
            f"{broken:5.1f} | rows not labelled F1 {f1_0:.4f} -> {f1_rest:.4f} broken "
            f"{broken_0:5.1f} -> {broken_rest:5.1f} | labelled rows wrong cells {wrong_0:4.1f} -> "
            f"{wrong:4.1f}"
        )
    return out


def synthetic(seeds: list[int], table_seed: int = 32, entities: int = 400) -> list[str]:
    """The generated multi-source table of ``bench/truth_table.py`` (12 feeds of known accuracy,
    two copying a poor one): a plain majority by ``sku``; truth discovery (the ``feed``-weighted
    vote) with 0, 10 and 20 labelled rows; with the most accurate feed (``north``) named as the
    authority, with 0 and 20 labels."""
    import truth_table
    from recursive_cleaner.crossrow.labelled import with_labels
    from recursive_cleaner.crossrow.steps import CrossRowStep, fit
    from recursive_cleaner.profiling.authority import Authority
    from recursive_cleaner.read.labels import read_labels

    dirty, clean = truth_table.build_table(table_seed, entities)
    keys = dirty[0]
    rows = [dict(zip(keys, r)) for r in dirty[1:]]
    vote = CrossRowStep("majority", key=("sku",), fields=truth_table.FIELDS, weight_by=("feed",))
    plain = CrossRowStep("majority", key=("sku",), fields=truth_table.FIELDS)

    def f1(steps: list) -> tuple[float, int]:
        fitted = fit(steps, rows)
        out = [keys] + [
            [scoring.to_csv_text(o.get(k)) for k in keys]
            for o in map(fitted.transform, [dict(r) for r in rows])
        ]
        return score(dirty, clean, out)

    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "dirty.csv")
        scoring.write_csv_table(data, dirty)
        runs = [("plain majority", [plain], None, 0), ("truth", [vote], None, 0)]
        runs += [("truth", [vote], None, 10), ("truth", [vote], None, 20)]
        north = Authority("feed", "equals", "north")
        runs += [("truth + authority north", [vote], north, 0)]
        runs += [("truth + authority north", [vote], north, 20)]
        for name, steps, named, n in runs:
            got = []
            for seed in seeds if n else [None]:
                labels = None
                if n:
                    path, _ = draw_labels(dirty, clean, n, seed, tmp)
                    labels = read_labels(path, data)
                got.append(
                    f1(
                        with_labels(
                            steps,
                            labels.step_rows() if labels else (),
                            labels.key if labels else None,
                            named,
                        )
                    )
                )
            mean = statistics.mean(g[0] for g in got)
            broken = statistics.mean(g[1] for g in got)
            spread = f" (seeds {min(g[0] for g in got):.4f}..{max(g[0] for g in got):.4f})"
            lines.append(
                f"synthetic {name:24s} {n:2d} labels F1 {mean:.4f} broken {broken:5.1f}"
                + (spread if n else "")
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=DEFAULT_DATA_DIR)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    p.add_argument("--labels", type=int, default=20, help="labelled rows per seed")
    p.add_argument("--tables", nargs="+", default=[*TABLES, "synthetic"])
    args = p.parse_args(argv)
    for table in args.tables:
        if table == "synthetic":
            lines = synthetic(args.seeds)
        else:
            lines = run(table, args.data_dir, args.seeds, args.labels, table == "flights")
        for line in lines:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
