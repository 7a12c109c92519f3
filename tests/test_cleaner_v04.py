"""DataCleaner's v0.3–v0.6 options end to end with the scripted fake backend.

holdout_ratio, sampling_strategy / stratify_field, track_metrics / get_improvement_report,
dependency ordering of the written functions, report_path and dry_run.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.read.sampling import split_holdout
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

STATUSES = ["active", "pending", "churned"]
ROWS = [
    {
        "id": i,
        "phone": f"(555) 100-{i:04d}",
        "status": STATUSES[0] if i < 8 else STATUSES[1 + i % 2],
        "signup": "2024-01-%02d" % (i + 1) if i % 3 else "01/%02d/2024" % (i + 1),
    }
    for i in range(12)
]
PHONES = textwrap.dedent('''\
    import re

    def normalize_phones(record):
        """Phones to +1 and ten digits."""
        record = dict(record)
        digits = re.sub(r"\\D", "", str(record.get("phone", "")))
        if len(digits) == 10:
            record["phone"] = "+1" + digits
        return record''')


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "crm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def _cleaner(backend, data, tmp_path, **kw):
    kw.setdefault("chunk_size", 6)
    kw.setdefault("profile_fields", False)
    return DataCleaner(
        backend,
        str(data),
        instructions="Phones to E.164. Dates to ISO 8601.",
        output_path=str(tmp_path / "cleaning_functions.py"),
        sleep=lambda s: None,
        **kw,
    )


# --------------------------------------------------------------------------- holdout
def test_holdout_rejects_a_function_that_crashes_only_on_hidden_records(data, tmp_path):
    visible, hidden = split_holdout(ROWS[:6], 0.34, seed=0, salt=0)
    assert hidden, "the split must hide at least one record of the first chunk"
    bad_id = hidden[0]["id"]
    crashes_on_hidden = PHONES.replace(
        "record = dict(record)",
        f'record = dict(record)\n    if record["id"] == {bad_id}:\n'
        '        raise ValueError("boom")',
    )
    backend = FakeBackend(
        [
            make_reply("normalize_phones", crashes_on_hidden),
            make_reply("normalize_phones", PHONES),
            CLEAN_REPLY,
        ],
        default=CLEAN_REPLY,
    )
    result = _cleaner(backend, data, tmp_path, holdout_ratio=0.34).run()
    assert result.functions == ["normalize_phones"]
    assert (
        result.rejected and "not shown" in result.rejected[0][1] and "boom" in result.rejected[0][1]
    )
    assert "not shown" in backend.history[1]  # the reason went back to the model
    shown = backend.history[0][backend.history[0].index("=== DATA (") :]
    assert f"100-{bad_id:04d}" not in shown  # the hidden record was never in the prompt
    assert "return record" in (tmp_path / "cleaning_functions.py").read_text()


def test_holdout_zero_shows_every_record(data, tmp_path):
    backend = FakeBackend(default=CLEAN_REPLY)
    _cleaner(backend, data, tmp_path, holdout_ratio=0.0, chunk_view="all").run()
    assert all(f"100-{i:04d}" in backend.history[0] for i in range(6))


def test_holdout_rejects_a_function_that_makes_hidden_records_worse(tmp_path):
    rows = [
        {"id": i, "when": "2024-03-%02d" % (i + 1) if i % 3 else "03/%02d/2024" % (i + 1)}
        for i in range(12)
    ]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _, hidden = split_holdout(rows, 0.3, seed=0, salt=0)
    hidden_ids = {r["id"] for r in hidden}
    breaks_hidden = textwrap.dedent(f"""\
        def touch_dates(record):
            record = dict(record)
            when = record["when"]
            if record["id"] in {sorted(hidden_ids)!r}:
                record["when"] = "March " + when[-2:]
            elif "/" in when:
                month, day, year = when.split("/")
                record["when"] = year + "-" + month + "-" + day
            return record""")
    backend = FakeBackend([make_reply("touch_dates", breaks_hidden)], default=CLEAN_REPLY)
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=12,
        instructions="Dates to ISO 8601.",
        holdout_ratio=0.3,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        hint_functions=False,
    ).run()
    assert "touch_dates" not in result.functions
    assert any("not shown" in reason and "'when'" in reason for _, reason in result.rejected)


# --------------------------------------------------------------------------- sampling
def _first_chunk_ids(prompt: str) -> set[int]:
    """The ids of the records shown, read off their phones (the open pass shows only the fields in
    scope)."""
    data = prompt[prompt.index("=== DATA (") : prompt.index("=== TASK ===")]
    return {
        int(json.loads(line)["phone"][-4:]) for line in data.splitlines() if line.startswith("{")
    }


def test_stratified_sampling_puts_every_status_in_the_first_chunk(data, tmp_path):
    backend = FakeBackend(default=CLEAN_REPLY)
    _cleaner(
        backend,
        data,
        tmp_path,
        chunk_size=4,
        holdout_ratio=0.0,
        sampling_strategy="stratified",
        stratify_field="status",
    ).run()
    first = _first_chunk_ids(backend.history[0])
    assert {ROWS[i]["status"] for i in first} == set(STATUSES)
    sequential = FakeBackend(default=CLEAN_REPLY)
    _cleaner(sequential, data, tmp_path, chunk_size=4, holdout_ratio=0.0).run()
    # the head of the file: one status only
    assert _first_chunk_ids(sequential.history[0]) == {0, 1, 2, 3}


def test_random_sampling_is_reproducible_and_covers_every_record(data, tmp_path):
    runs = []
    for seed in (7, 7, 8):
        backend = FakeBackend(default=CLEAN_REPLY)
        _cleaner(
            backend,
            data,
            tmp_path,
            chunk_size=4,
            holdout_ratio=0.0,
            sampling_strategy="random",
            seed=seed,
        ).run()
        runs.append([_first_chunk_ids(p) for p in backend.history])
    assert runs[0] == runs[1] and runs[0] != runs[2]
    assert set().union(*runs[0]) == set(range(12))


def test_bad_sampling_options_are_refused(data, tmp_path):
    with pytest.raises(ValueError, match="stratify_field"):
        _cleaner(FakeBackend(), data, tmp_path, sampling_strategy="stratified")
    with pytest.raises(ValueError, match="sampling_strategy"):
        _cleaner(FakeBackend(), data, tmp_path, sampling_strategy="shuffled")
    with pytest.raises(ValueError, match="holdout_ratio"):
        _cleaner(FakeBackend(), data, tmp_path, holdout_ratio=1.0)


# --------------------------------------------------------------------------- metrics
def test_track_metrics_reports_quality_before_and_after(data, tmp_path):
    backend = FakeBackend([make_reply("normalize_phones", PHONES)], default=CLEAN_REPLY)
    cleaner = _cleaner(backend, data, tmp_path, track_metrics=True)
    assert cleaner.get_improvement_report() is None  # nothing measured before run()
    result = cleaner.run()
    report = cleaner.get_improvement_report()
    assert report is not None and report is result.improvement
    assert report.records == 12 and report.rows_changed == 12
    phone = report.fields["phone"]
    assert phone.cells_changed == 12 and phone.after.conformity > phone.before.conformity
    assert report.fields["status"].cells_changed == 0
    assert "phone" in str(report)


def test_ground_truth_gives_cell_accuracy(data, tmp_path):
    truth = tmp_path / "truth.jsonl"
    truth.write_text(
        "".join(json.dumps({**r, "phone": "+1555100%04d" % r["id"]}) + "\n" for r in ROWS)
    )
    backend = FakeBackend([make_reply("normalize_phones", PHONES)], default=CLEAN_REPLY)
    cleaner = _cleaner(backend, data, tmp_path, ground_truth=str(truth))
    cleaner.run()
    report = cleaner.get_improvement_report()
    assert report.accuracy_before == pytest.approx(3 / 4)  # 4 fields, phone wrong everywhere
    assert report.accuracy_after == pytest.approx(1.0)


# --------------------------------------------------------------------------- dependency order
def test_written_functions_run_writers_before_readers(data, tmp_path):
    reader = textwrap.dedent('''\
        def flag_short_phone(record):
            """Flags phones with fewer than ten digits."""
            record = dict(record)
            record["short_phone"] = len(record.get("phone_digits") or "") < 10
            return record''')
    writer = textwrap.dedent('''\
        import re

        def add_phone_digits(record):
            """Adds the digits of the phone."""
            record = dict(record)
            record["phone_digits"] = re.sub(r"\\D", "", str(record.get("phone", "")))
            return record''')
    backend = FakeBackend(
        [make_reply("flag_short_phone", reader), make_reply("add_phone_digits", writer)],
        default=CLEAN_REPLY,
    )
    result = _cleaner(backend, data, tmp_path).run()
    assert result.functions == ["add_phone_digits", "flag_short_phone"]
    source = (tmp_path / "cleaning_functions.py").read_text()
    body = source[source.index("def clean_data") :]
    assert body.index("add_phone_digits(") < body.index("flag_short_phone(")


# --------------------------------------------------------------------------- report
def test_report_is_written_next_to_the_functions(data, tmp_path):
    backend = FakeBackend(
        [
            make_reply("normalize_phones", PHONES, docstring="Phones to +1 and ten digits."),
            make_reply("bad", "def bad(record):\n    return None"),
        ],
        default=CLEAN_REPLY,
    )
    result = _cleaner(backend, data, tmp_path, track_metrics=True).run()
    path = tmp_path / "cleaning_report.md"
    assert result.report_path == str(path) and path.exists()
    text = path.read_text()
    assert "normalize_phones" in text and "Phones to +1 and ten digits." in text
    assert "Phones to E.164" in text  # the goals
    assert "bad" in text and "Rejected" in text
    assert "phone" in text.split("Quality")[1]  # the before/after table


def test_report_path_none_writes_no_report(data, tmp_path):
    result = _cleaner(FakeBackend(default=CLEAN_REPLY), data, tmp_path, report_path=None).run()
    assert result.report_path is None and not (tmp_path / "cleaning_report.md").exists()


def test_complete_event_carries_latency_stats_and_report_path(data, tmp_path):
    events = []
    _cleaner(FakeBackend(default=CLEAN_REPLY), data, tmp_path, on_progress=events.append).run()
    complete = events[-1]
    assert complete["type"] == "complete"
    assert set(complete["latency_stats"]) >= {"min_ms", "max_ms", "avg_ms", "total_ms"}
    assert complete["report_path"].endswith("cleaning_report.md")


# --------------------------------------------------------------------------- dry run
def test_dry_run_makes_no_code_generation_calls_and_reports_issues(data, tmp_path):
    reply = (
        '<cleaning_analysis><issues_detected><issue id="1" solved="false">phone: mixed '
        "formats</issue>"
        "</issues_detected><chunk_status>needs_more_work</chunk_status></cleaning_analysis>"
    )
    backend = FakeBackend(default=reply)
    events = []
    result = _cleaner(
        backend, data, tmp_path, dry_run=True, profile_fields=True, on_progress=events.append
    ).run()
    assert backend.calls == 2  # one detection call per chunk
    assert all("analysis only" in p and "Write ONE function" not in p for p in backend.history)
    assert not (tmp_path / "cleaning_functions.py").exists()
    assert result.functions == []
    kinds = [e["type"] for e in events]
    assert kinds.count("issues_detected") == 2 and "dry_run_complete" in kinds
    assert kinds.index("dry_run_complete") < kinds.index("complete")
    detected = [i for e in events if e["type"] == "issues_detected" for i in e["issues"]]
    assert any(i["source"] == "model" and "mixed formats" in i["issue"] for i in detected)
    assert any(i["source"] == "profile" and i["field"] == "signup" for i in detected)
    text = (tmp_path / "cleaning_report.md").read_text()
    assert "signup" in text and "mixed formats" in text


def test_resume_keeps_the_new_options(data, tmp_path):
    state = tmp_path / "state.json"
    backend = FakeBackend(
        [make_reply("normalize_phones", PHONES), CLEAN_REPLY, RuntimeError("down")], default=None
    )
    cleaner = _cleaner(
        backend,
        data,
        tmp_path,
        state_file=str(state),
        holdout_ratio=0.25,
        llm_attempts=1,
        sampling_strategy="random",
        seed=3,
        report_path=None,
    )
    with pytest.raises(Exception):
        cleaner.run()
    resumed = DataCleaner.resume(str(state), FakeBackend(default=CLEAN_REPLY), sleep=lambda s: None)
    assert (
        resumed.holdout_ratio,
        resumed.sampling_strategy,
        resumed.seed,
        resumed.report_path,
    ) == (0.25, "random", 3, None)
    result = resumed.run()
    assert result.functions == ["normalize_phones"] and result.resumed_from_chunk == 0


# --------------------------------------------------------------------------- rich context: re-sent
# names
def test_rich_context_shows_code_and_a_resent_name_replaces_the_function(tmp_path):
    rows = [
        {"id": i, "phone": p}
        for i, p in enumerate(
            [
                "(555) 100-0001",
                "1-555-100-0002",
                "555.100.0003",
                "+1 555 100 0004",
                "5551000005",
                "555 100 0006",
            ]
        )
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    improved = PHONES.replace(
        "    if len(digits) == 10:",
        '    if len(digits) == 11 and digits[0] == "1":\n'
        "        digits = digits[1:]\n    if len(digits) == 10:",
    )
    assert improved != PHONES
    backend = FakeBackend(
        [
            make_reply("normalize_phones", PHONES),
            make_reply("normalize_phones", improved),
            make_reply("normalize_phones", improved),
        ],
        default=CLEAN_REPLY,
    )
    events = []
    result = DataCleaner(
        backend,
        str(path),
        chunk_size=6,
        instructions="Phones to E.164.",
        holdout_ratio=0.0,
        profile_fields=False,
        rich_context=True,
        on_progress=events.append,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
    ).run()
    assert "def normalize_phones(record):" in backend.history[1]  # prior work shown in full
    assert result.functions == ["normalize_phones"]
    assert [m["name"] for m in result.modifications] == ["normalize_phones"]
    assert [e["type"] for e in events].count("function_modified") == 1
    assert "digits[1:]" in (tmp_path / "cf.py").read_text()
    # the third reply re-sent the same code: it changes nothing and is refused with that reason
    assert any("changes nothing" in reason for _, reason in result.rejected)


def test_without_rich_context_a_resent_name_is_refused(data, tmp_path):
    backend = FakeBackend(
        [make_reply("normalize_phones", PHONES), make_reply("normalize_phones", PHONES)],
        default=CLEAN_REPLY,
    )
    result = _cleaner(backend, data, tmp_path, holdout_ratio=0.0).run()
    assert (
        "def normalize_phones"
        not in backend.history[1].split("=== EXISTING FUNCTIONS")[1].split("===")[1]
    )
    assert any("already exists" in reason for _, reason in result.rejected)


# --------------------------------------------------------------------------- text mode
def test_text_mode_chunks_at_sentences_and_functions_take_a_str(tmp_path):
    text = " ".join(f"Sentence  number {i} has  double spaces." for i in range(30)) + "\n"
    path = tmp_path / "notes.txt"
    path.write_text(text)
    squeeze = textwrap.dedent('''\
        import re

        def squeeze_spaces(text):
            """Collapses runs of spaces."""
            return re.sub(r" {2,}", " ", text)''')
    backend = FakeBackend([make_reply("squeeze_spaces", squeeze)], default=CLEAN_REPLY)
    events = []
    cleaner = DataCleaner(
        backend,
        str(path),
        chunk_size=300,
        instructions="Single spaces only.",
        output_path=str(tmp_path / "cf.py"),
        track_metrics=True,
        on_progress=events.append,
        sleep=lambda s: None,
    )
    result = cleaner.run()
    assert cleaner.mode == "text" and result.functions == ["squeeze_spaces"]
    shown = [p[p.index("=== DATA (text) ===") : p.index("=== TASK ===")] for p in backend.history]
    assert all(s.rstrip().endswith("spaces.") for s in shown[:-1])  # every chunk ends at a sentence
    assert result.chunks_total > 3
    assert "def clean_data(text):" in (tmp_path / "cf.py").read_text()
    report = cleaner.get_improvement_report()
    assert report is not None and report.rows_changed >= 1
    assert (tmp_path / "cleaning_report.md").exists()
