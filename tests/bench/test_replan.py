"""bench/replan.py: a saved functions file's output planned again without the model, scored."""

from __future__ import annotations

import csv
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import replan  # noqa: E402


def _write(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)


def test_replan_scores_the_librarys_own_plan_and_lists_what_is_still_wrong(tmp_path, capsys):
    header = ["id", "sample", "score"]
    clean = [[str(k), f"{k} patients", ["100%", "97%", "98%"][k % 3]] for k in range(60)]
    dirty = [list(r) for r in clean]
    dirty[4][1], dirty[9][2], dirty[11][2] = "4 pateents", "1?0%", "9?%"
    folder = tmp_path / "t"
    folder.mkdir()
    _write(folder / "dirty.csv", [header] + dirty)
    _write(folder / "clean.csv", [header] + clean)
    goals = tmp_path / "goals.txt"
    # a change asked of both (issue 42: a description alone binds nothing)
    goals.write_text(
        "Fix the typos in sample (a count like '12 patients') and score (a percentage like '97%')."
    )
    functions = tmp_path / "cf.py"
    functions.write_text("def clean_data(record):\n    return dict(record)\n")
    argv = ["t", "--data-dir", str(tmp_path), "--goals", str(goals), "--functions", str(functions)]
    assert replan.main(argv + ["--list"]) == 0
    out = capsys.readouterr().out
    assert "kept     in sample, replace a rare word" in out
    assert "still wrong by field: {'score': 1}" in out and "score row 12: '9?%'" in out
    assert "replan t precision=1.0000 recall=0.6667 f1=0.8000 broken=0" in out
