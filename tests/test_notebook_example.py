"""docs/notebook_example.py (a notebook as a `# %%` script) runs end to end: DataFrame in, functions, DataFrame out."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from tests.optional_deps import optional

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "notebook_example.py"


def test_the_example_is_a_percent_format_notebook():
    text = EXAMPLE.read_text(encoding="utf-8")
    cells = text.split("# %%")
    assert len(cells) >= 12 and text.startswith("# %% [markdown]")
    for cell in cells[1:]:
        compile("# %%" + cell, str(EXAMPLE), "exec")  # every cell is valid Python on its own


def test_notebook_example_runs_end_to_end(tmp_path, monkeypatch):
    optional("pandas")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    ns = runpy.run_path(str(EXAMPLE), run_name="__main__")

    assert ns["result"].functions == ["fix_phone", "fix_signup", "fix_status"]
    df, clean = ns["df"], ns["clean"]
    assert clean.index.equals(df.index) and list(clean.columns) == list(df.columns)
    assert clean.loc[102].tolist() == ["Bo Chen", "+15559876543", "2023-04-06", "active"]
    assert set(clean["status"]) == {"active", "pending", "churned"}
    assert clean["signup"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    summary = ns["report"].summary()
    assert summary["conformity_before"] < 0.6 and summary["conformity_after"] == 1.0
    assert ns["improvement_frame"](ns["report"]).loc["status", "conformity_after"] == 1.0
    assert "# Cleaning report" in ns["CleaningReport"](ns["result"].report_path)._repr_markdown_()
    assert all(path.is_relative_to(tmp_path) for path in map(Path, (ns["workdir"], ns["result"].output_path)))
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")
