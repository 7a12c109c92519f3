"""Progress that moves during a model call (issue 45): in a Jupyter kernel (nbclient), on the rich
bar, in plain lines. The model is the shared FakeBackend on a FakeClock: each call takes a few
seconds of that clock and fires the progress timer's ticks on the way; nothing really sleeps."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

from recursive_cleaner.ui.progress import LiveProgress
from tests.fakes import CLEAN_REPLY, FakeBackend, FakeClock
from tests.optional_deps import optional

ROOT = Path(__file__).resolve().parents[2]

SETUP = """\
import json
from recursive_cleaner import DataCleaner
from recursive_cleaner.ui.progress import LiveProgress
from tests.fakes import CLEAN_REPLY, FakeBackend, FakeClock

rows = [{"id": i, "note": ["ok", "late by 2 days"][i % 2]} for i in range(4)]
with open("data.jsonl", "w", encoding="utf-8") as f:
    f.write("".join(json.dumps(r) + "\\n" for r in rows))
clock = FakeClock()
backend = FakeBackend(default=CLEAN_REPLY, clock=clock, latency=6.0)  # a 6 s model call"""

RUN = """\
progress = LiveProgress(clock=clock, timer=clock.timer, heartbeat=3)  # the kernel: the HTML bar
result = DataCleaner(
    backend, "data.jsonl", instructions="", output_path="cf.py", report_path=None,
    sleep=lambda s: None, on_progress=progress,
).run()
(backend.calls, progress.live)"""


def _progress_messages(tmp_path, monkeypatch) -> tuple[list[str], list[str]]:
    """Run the two cells in a kernel; every progress HTML the kernel sent, in order (the first
    display and each update in place), and the cells' plain-text results."""
    nbformat = optional("nbformat")
    nbclient = optional("nbclient")
    optional("ipykernel")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    seen: list[dict] = []

    class Recording(nbclient.NotebookClient):
        def process_message(self, msg, cell, cell_index):
            seen.append(msg)
            return super().process_message(msg, cell, cell_index)

    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(SETUP), nbformat.v4.new_code_cell(RUN)]
    )
    Recording(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    errors = [m for m in seen if m["msg_type"] == "error"]
    assert not errors, errors[0]["content"].get("evalue")
    html = [
        m["content"]["data"]["text/html"]
        for m in seen
        if m["msg_type"] in ("display_data", "update_display_data")
        and 'class="recursive-cleaner-progress"'
        in m["content"].get("data", {}).get("text/html", "")
    ]
    texts = [
        m["content"]["data"].get("text/plain", "")
        for m in seen
        if m["msg_type"] == "execute_result"
    ]
    return html, texts


def test_a_notebook_shows_the_model_call_moving(tmp_path, monkeypatch):
    html, texts = _progress_messages(tmp_path, monkeypatch)
    assert texts[-1] == "(1, 'notebook')"  # one model call; the kernel chose the HTML bar
    calling = [i for i, h in enumerate(html) if "calling the model" in h]
    assert calling, "no 'calling the model' was ever shown"
    during = html[calling[0] : calling[-1] + 1]
    # the call's own seconds, redrawn every second of the 6 s call
    seconds = [int(re.search(r"calling the model[^<]*· (\d+) s<", h).group(1)) for h in during]
    assert seconds == [0, 1, 2, 3, 4, 5, 6]
    # the run's elapsed time moves in the head line too
    elapsed = [re.search(r"(\d:\d\d:\d\d) elapsed", h).group(1) for h in during]
    assert elapsed[0] == "0:00:00" and elapsed[-1] == "0:00:06"
    # the heartbeat from the third second on, as the terminal's plain lines say it
    beats = [re.search(r"still waiting for the model \(call 1, (\d+) s\)", h) for h in during]
    assert [int(b.group(1)) if b else None for b in beats] == [None, None, None, 3, 4, 5, 6]
    # the reply ends the call: no seconds or heartbeat after it, and the run's end is shown
    after = html[calling[-1] + 1 :]
    assert after and not any("still waiting" in h or "calling the model" in h for h in after)
    assert "done" in html[-1]


def test_the_rich_bar_shows_the_elapsed_time_and_the_seconds_of_a_call():
    optional("rich")
    out, clock = io.StringIO(), FakeClock()
    progress = LiveProgress(out, live=True, clock=clock, timer=clock.timer)
    progress({"type": "chunk_start", "chunk_index": 0, "total_chunks": 2, "records": 3})
    progress({"type": "llm_request", "call": 1, "purpose": "generate"})
    clock.advance(25.0)
    progress.close()  # the last state is drawn once more and stays on screen
    text = out.getvalue()
    assert "0/2 chunks · 0:00:25 elapsed" in text
    assert "calling the model (call 1 for this chunk) · 25 s" in text


def test_plain_lines_keep_their_heartbeat_on_the_fake_clock():
    out, clock = io.StringIO(), FakeClock()
    progress = LiveProgress(out, live=False, clock=clock, timer=clock.timer, heartbeat=10)
    backend = FakeBackend(default=CLEAN_REPLY, clock=clock, latency=25.0)
    progress({"type": "chunk_start", "chunk_index": 0, "total_chunks": 1, "records": 3})
    progress({"type": "llm_request", "call": 1, "purpose": "generate"})
    backend.generate("prompt")
    progress({"type": "llm_call", "latency_ms": 25000.0})
    beats = [line.split("] ")[1] for line in out.getvalue().splitlines() if "still" in line]
    assert beats == [
        "  still waiting for the model (call 1, 10 s)",
        "  still waiting for the model (call 1, 20 s)",
    ]
    assert clock.timers == []  # the reply stopped the heartbeat's timer


def test_the_open_pass_not_asked_is_said_once():
    out = io.StringIO()
    progress = LiveProgress(out, live=False, clock=FakeClock(), heartbeat=None)
    progress({"type": "chunk_start", "chunk_index": 0, "total_chunks": 1, "records": 3})
    progress({"type": "open_pass_skipped", "reason": "no open pass: nothing left unexplained"})
    assert "no open pass: nothing left unexplained" in out.getvalue()
    assert progress.tally.activity == "chunk 1/1: no open pass: nothing left unexplained"
