"""docs/notebook_pipeline.py runs end to end: Cleaner fit (a Pipeline step with scikit-learn),
transform on new data, validate, pandera, save/load."""

from __future__ import annotations

import os
import runpy
from pathlib import Path

from tests.optional_deps import optional
from tests.test_notebook_example import percent_notebook

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "notebook_pipeline.py"


def test_the_pipeline_example_runs_end_to_end(tmp_path, monkeypatch):
    optional("pandas")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    ns = runpy.run_path(str(EXAMPLE), run_name="__main__")

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
        "PYTHONPATH", os.pathsep.join([str(EXAMPLE.parents[1]), os.environ.get("PYTHONPATH", "")])
    )
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
    assert not [out for out in outputs if out.get("output_type") == "error"]
    texts = [out.get("data", {}).get("text/plain", "") for out in outputs]
    assert "['fix_phone', 'fix_status']" in texts and texts[-1] == "True"
