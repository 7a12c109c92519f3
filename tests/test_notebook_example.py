"""docs/notebook_example.py (a notebook as a `# %%` script) runs end to end: DataFrame in,
functions, DataFrame out; docs/notebook_pipeline.py: Cleaner fit, transform, validate, save/load."""

from __future__ import annotations

import os
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
    df, clean = ns["df"], ns["cleaned"]
    assert clean.index.equals(df.index) and list(clean.columns) == list(df.columns)
    import pandas as pd

    # a date field of the spec comes back as dates (issue 43), on the frame's own index
    assert clean.loc[102].tolist() == [
        "Bo Chen",
        "+15559876543",
        pd.Timestamp("2023-04-06"),
        "active",
    ]
    assert set(clean["status"]) == {"active", "pending", "churned"}
    assert clean["signup"].notna().all() and str(clean["signup"].dtype).startswith("datetime64")
    summary = ns["report"].summary()
    assert summary["conformity_before"] < 0.6 and summary["conformity_after"] == 1.0
    assert ns["improvement_frame"](ns["report"]).loc["status", "conformity_after"] == 1.0
    assert (
        "# Cleaning report" in ns["CleaningReport"](ns["result"].run.report_path)._repr_markdown_()
    )
    assert all(
        path.is_relative_to(tmp_path)
        for path in map(Path, (ns["workdir"], ns["result"].functions_path))
    )
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


def percent_notebook(text: str):
    """The ``# %%`` script as an nbformat v4 notebook: code cells, and markdown cells without their
    ``# ``."""
    nbformat = optional("nbformat")
    cells = []
    for chunk in text.split("# %%")[1:]:
        head, _, body = chunk.partition("\n")
        if head.strip() == "[markdown]":
            lines = [
                line[2:] if line.startswith("# ") else line.lstrip("#")
                for line in body.strip().splitlines()
            ]
            cells.append(nbformat.v4.new_markdown_cell("\n".join(lines)))
        else:
            cells.append(nbformat.v4.new_code_cell(body.strip()))
    return nbformat.v4.new_notebook(cells=cells)


def test_the_example_runs_as_a_real_notebook_with_html_display_and_progress(tmp_path, monkeypatch):
    """Executed by a Jupyter kernel (nbclient): the result's HTML table and the live progress are in
    the outputs."""
    optional("pandas")
    nbclient = optional("nbclient")
    optional("ipykernel")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(EXAMPLE.parents[1]), os.environ.get("PYTHONPATH", "")])
    )
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = percent_notebook(EXAMPLE.read_text(encoding="utf-8"))
    nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    outputs = [
        out
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    ]
    html = [out.get("data", {}).get("text/html", "") for out in outputs]
    assert any('class="recursive-cleaner-result"' in h and "fix_phone" in h for h in html)
    progress = [h for h in html if 'class="recursive-cleaner-progress"' in h]
    assert progress and "3 accepted" in progress[-1]  # the bar, updated in place to the run's end
    assert not [out for out in outputs if out.get("output_type") == "error"]


# ---------------------------------------------------------------- docs/notebook_pipeline.py
PIPELINE = Path(__file__).resolve().parents[1] / "docs" / "notebook_pipeline.py"


def test_the_pipeline_example_runs_end_to_end(tmp_path, monkeypatch):
    optional("pandas")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    ns = runpy.run_path(str(PIPELINE), run_name="__main__")

    assert ns["cleaner"].functions_ == ["fix_phone", "fix_status"]
    cleaned = ns["cleaned"]
    assert list(cleaned.index) == [201, 202]
    assert cleaned["phone"].tolist() == ["+15557778888", "+15559990000"]
    assert cleaned["status"].tolist() == ["pending", "active"]
    assert ns["check"].broken == {"phone": 2, "status": 2} and ns["after"].ok
    frame = ns["check"].to_frame()
    assert frame["index"].tolist() == [201, 202, 201, 202]
    assert frame["why"].iloc[2].startswith("not one of the allowed values")
    assert ns["reloaded"].transform(ns["november"]).equals(cleaned)
    assert Path(ns["saved"]).is_relative_to(tmp_path)


def test_the_pipeline_example_runs_as_a_real_notebook(tmp_path, monkeypatch):
    """Executed by a Jupyter kernel (nbclient), without an error in any cell."""
    optional("pandas")
    nbclient = optional("nbclient")
    optional("ipykernel")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(PIPELINE.parents[1]), os.environ.get("PYTHONPATH", "")])
    )
    notebook = percent_notebook(PIPELINE.read_text(encoding="utf-8"))
    nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    outputs = [
        out
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    ]
    assert not [out for out in outputs if out.get("output_type") == "error"]
    texts = [out.get("data", {}).get("text/plain", "") for out in outputs]
    assert "['fix_phone', 'fix_status']" in texts and texts[-1] == "True"
