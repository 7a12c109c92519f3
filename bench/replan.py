"""The cross-row plan made again, offline: a saved functions file's ``clean_data`` on a benchmark
table, then the library's own discovery and checks on its output (``plan_cross_row`` without the
model call), scored against the ground truth with the cells still wrong listed by field.

No model: the plan is what the library keeps when the model's reply is the file's own
``CROSS_ROW_STEPS`` (``--as-saved``: the steps a past run's model chose, plus what
``plan.with_stated`` adds back) or no plan at all (the default: every candidate). The goals are
``bench/instructions/NAME.txt``; the spec, the protected and out-of-scope fields are read from
them as a run reads them (the first 200 rows as the field samples).

    python bench/replan.py hospital --functions bench/functions/hospital.py --as-saved --list
    python bench/replan.py beers                                  # no functions: the raw rows
"""

from __future__ import annotations

import argparse
import collections
import csv
import importlib.util
import os
import sys
from typing import Any, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import scoring  # noqa: E402  (bench/scoring.py)

__all__ = ["replan", "main"]


def _functions(path: str | None) -> tuple[Any, list[dict]]:
    if not path:
        return dict, []
    spec = importlib.util.spec_from_file_location("replan_functions", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.clean_data, list(getattr(module, "CROSS_ROW_STEPS", []))


def checked_steps(candidates: list, sample: list, spec, focus, stated: dict, **more) -> tuple:
    """``validate_steps`` as a run calls it (``run.finish.plan_cross_row``): (kept, refused)."""
    from recursive_cleaner.crossrow.validate import validate_steps

    return validate_steps(
        candidates,
        sample,
        focus.expectations,
        allow_dedup=spec.dedup,
        stated=stated,
        frozen=focus.rows_frozen,
        csv_strings=focus.csv_strings,
        protected=focus.protected,
        kept=focus.kept,
        examples=spec.examples(),
        content=focus.harm,
        **more,
    )


def replan(
    dirty: str, goals: str, functions: str | None = None, *, as_saved: bool = False
) -> tuple[list, list, list[dict]]:
    """(the steps kept, those refused with why, the repaired records) for one table."""
    from recursive_cleaner.crossrow.discover import discover_steps
    from recursive_cleaner.crossrow.plan import with_stated
    from recursive_cleaner.crossrow.steps import CrossRowStep, fit
    from recursive_cleaner.profiling.focus import FieldFocus

    with open(dirty, newline="", encoding="utf-8") as f:
        records = list(csv.DictReader(f))
    fields = list(records[0]) if records else []
    clean_data, saved = _functions(functions)
    focus = FieldFocus()
    head = {f: [r[f] for r in records[:200]] for f in fields}
    spec = focus.learn(goals, fields, head, check=head)
    cleaned = [clean_data(dict(r)) for r in records]
    sample = cleaned[:2000]
    stated = {k: [f for f in v if f in fields] for k, v in spec.stated().items() if k in fields}
    # as run.finish.plan_cross_row: a rule across rows may mend an asked field
    candidates = discover_steps(
        sample, stated=stated, protected=focus.protected, frozen=focus.rows_frozen
    )
    if as_saved:
        candidates = with_stated([CrossRowStep.from_dict(s) for s in saved], candidates, stated)
    kept, refused = checked_steps(candidates, sample, spec, focus, stated)
    fitted = fit(kept, cleaned)
    return kept, refused, [out for out in map(fitted.transform, cleaned) if out is not None]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("table", help="a folder of --data-dir holding dirty.csv and clean.csv")
    p.add_argument(
        "--data-dir", default=os.path.join(os.path.dirname(ROOT), "shared", "bench-data")
    )
    p.add_argument("--functions", default=None, help="a saved cleaning_functions.py")
    p.add_argument("--goals", default=None, help="the goals' file (bench/instructions/TABLE.txt)")
    p.add_argument("--as-saved", action="store_true", help="the file's steps as the model's plan")
    p.add_argument("--list", action="store_true", help="every cell still wrong")
    args = p.parse_args(argv)
    folder = os.path.join(args.data_dir, args.table)
    goals_path = args.goals or os.path.join(HERE, "instructions", f"{args.table}.txt")
    with open(goals_path, encoding="utf-8") as f:
        goals = f.read()
    dirty_path = os.path.join(folder, "dirty.csv")
    kept, refused, repaired = replan(dirty_path, goals, args.functions, as_saved=args.as_saved)
    for step in kept:
        print(f"kept     {step.describe()}")
    for step, why in refused:
        print(f"refused  {' '.join(step.split())}: {why}")
    dirty = scoring.read_csv_table(dirty_path)
    clean = scoring.read_csv_table(os.path.join(folder, "clean.csv"))
    if len(repaired) != len(dirty) - 1:
        print(f"{len(dirty) - 1 - len(repaired)} rows dropped: not scored by position")
        return 1
    header = dirty[0]
    rows = [header] + [[scoring.to_csv_text(r.get(h)) for h in header] for r in repaired]
    s = scoring.score_tables(dirty, clean, rows)
    wrong: collections.Counter = collections.Counter()
    for i in range(1, len(dirty)):
        for j, name in enumerate(header):
            if rows[i][j] != clean[i][j]:
                wrong[name] += 1
                if args.list:
                    print(
                        f"  {name} row {i}: {rows[i][j]!r} (dirty {dirty[i][j]!r}), truth "
                        f"{clean[i][j]!r}"
                    )
    print(f"still wrong by field: {dict(wrong.most_common())}")
    print(
        f"replan {args.table} precision={s.precision:.4f} recall={s.recall:.4f} f1={s.f1:.4f} "
        f"broken={s.broken_cells} changed={s.changed_cells} correct={s.correct_repairs}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
