"""How tests/data/state_v_before_groups.json (+ .jsonl) was made, with main ba09ef5's code.

    python tests/data/make_state_v_before_groups.py OUT_DIR  # writes OUT_DIR/d.jsonl, run.json

A run with many non-default options, stopped after its first chunk, by the code before option
groups; ``tests/test_options.py`` resumes it (its ``file_path`` rewritten to the copy's).
"""

import json
import os
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from recursive_cleaner import DataCleaner  # noqa: E402
from recursive_cleaner.run.setup import remember_spec  # noqa: E402
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply  # noqa: E402

ROWS = [
    {"id": i, "email": f"P{i}@X.COM", "status": "active" if i % 3 else "pending"} for i in range(18)
]
EMAIL = textwrap.dedent("""\
    def lower_emails(record):
        record = dict(record)
        if isinstance(record.get("email"), str):
            record["email"] = record["email"].lower()
        return record""")
OPTIONS = dict(
    chunk_size=6,
    instructions="email: lower case",
    max_iterations=2,
    context_budget=5000,
    schema_sample_size=4,
    holdout_ratio=0.25,
    sampling_strategy="random",
    seed=4,
    track_metrics=True,
    metrics_sample=50,
    llm_attempts=2,
    sandbox_timeout=5.0,
    max_field_attempts=2,
    open_pass_attempts=2,
    idle_chunks_before_skip=2,
    call_every_chunk=True,
    constrained=False,
    chunk_chars=9000,
    chunk_view="all",
    hint_functions=False,
    rich_context=True,
    reflection="rules",
    cross_row=False,
    optimize=True,
    optimize_threshold=3,
    saturation_check_interval=5,
    scope="all",
)
os.chdir(sys.argv[1])
with open("d.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in ROWS)
backend = remember_spec(
    FakeBackend([make_reply("lower_emails", EMAIL)], default=CLEAN_REPLY),
    "ollama:tiny",
    {"timeout": 7},
)


def stop(event):
    if event["type"] == "chunk_done" and event["chunk_index"] == 0:
        raise KeyboardInterrupt


cleaner = DataCleaner(
    backend, "d.jsonl", state_file="run.json", on_progress=stop, sleep=lambda s: None, **OPTIONS
)
try:
    cleaner.run()
except KeyboardInterrupt:
    pass
print(json.dumps(json.load(open("run.json"))["options"], indent=1))
