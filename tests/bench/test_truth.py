"""bench/truth_table.py and bench/truth.py on a small synthetic table (no flights data): the
scripts run, the table is seeded, the last line has the F1 of each method."""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import truth  # noqa: E402
import truth_table  # noqa: E402


def test_the_table_is_seeded_and_its_truth_is_one_value_per_entity(tmp_path):
    dirty, clean = truth_table.build_table(seed=5, entities=30)
    assert (dirty, clean) == truth_table.build_table(seed=5, entities=30)
    assert dirty[0] == clean[0] == list(truth_table.COLUMNS) and len(dirty) == len(clean)
    truths = {}
    for row in clean[1:]:
        assert truths.setdefault(row[2], row[3:]) == row[3:]
    assert sum(d != c for d, c in zip(dirty[1:], clean[1:])) > len(dirty) // 4
    paths = truth_table.write_table(tmp_path, seed=5, entities=30)
    assert all(p.is_file() for p in paths)


def test_the_bench_prints_each_methods_f1(tmp_path, capsys):
    assert truth.main(["--entities", "40", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "flights: no" in out and "copying pairs:" in out
    last = out.strip().splitlines()[-1]
    scores = dict(re.findall(r"synthetic_(\w+)=([\d.]+)", last))
    assert {"majority", "truth"} <= set(scores)
