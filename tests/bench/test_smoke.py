"""bench/accuracy.py, real_model.py and cost.py end to end with the scripted FakeBackend on tiny
data."""

from __future__ import annotations

import csv
import json
import os
import re
import sys

import pytest

from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import accuracy  # noqa: E402
import cost  # noqa: E402
import real_model  # noqa: E402

USAGE = {"prompt_tokens": 100, "completion_tokens": 20, "cached_tokens": 40}
UPPER_STATE = '''def {name}(record):
    """Upper-case the state code."""
    record = dict(record)
    if record.get("id") == "7":
        raise ValueError("row 7 is special")
    record["state"] = str(record.get("state", "")).upper()
    return record'''
FIX_EMAIL = '''def {name}(record):
    """Lower-case the email and remove spaces."""
    record = dict(record)
    if isinstance(record.get("email"), str):
        record["email"] = record["email"].lower().replace(" ", "")
    return record'''

ACCURACY_LINE = re.compile(
    r"accuracy (\S+) precision=([\d.]+) recall=([\d.]+) f1=([\d.]+) calls=(\d+) "
    r"tokens=(\d+) seconds=([\d.]+)"
)
REAL_MODEL_LINE = re.compile(
    r"real_model calls=(\d+) prompt_tokens=(\d+) completion_tokens=(\d+) "
    r"parse_fail_rate=([\d.]+) sec_per_call=([\d.]+) cache_share=([\d.]+) "
    r"accuracy=([\d.]+) records_kept=(\d+)/(\d+) wall_seconds=([\d.]+) parse_errors=(\d+)"
)
COST_LINE = re.compile(r"cost calls_per_1k=([\d.]+) tokens_per_function=([\d.]+)")


FIELD_TASK = re.compile(r"function named (\w+)\(record\) that fixes the field '([^']+)'")


def scripted(
    field: str, code: str, *, garbage_first: bool = False, usage: dict | None = USAGE
) -> FakeBackend:
    """A model that fixes one field: it sends ``code`` once, for that field's prompt, and calls
    everything else clean.

    When the cleaner asks for a specific field (its focused prompt), only ``field`` gets the
    function, under the name the cleaner asks for; otherwise the first reply carries it.
    """
    state = {"calls": 0, "sent": False}

    def handler(prompt: str) -> str:
        state["calls"] += 1
        if garbage_first and state["calls"] == 1:
            return "no xml here at all"
        asked = FIELD_TASK.search(prompt)
        if state["sent"] or (asked and asked.group(2) != field):
            return CLEAN_REPLY
        name = asked.group(1) if asked else f"fix_{field}"
        state["sent"] = True
        return make_reply(name, code.format(name=name))

    return FakeBackend(handler, usage=usage)


def _last_line(capsys) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1]


def _write_pair(tmp_path) -> tuple[str, str]:
    """10 rows; state lower-case in rows 1-4 and 7 (5 errors); name with a trailing space in rows
    9-10 (2 errors)."""
    dirty = [["id", "name", "state"]]
    clean = [["ID", "Name", "State"]]  # header spelled differently: compared by position
    for i in range(1, 11):
        state = "al" if i <= 4 or i == 7 else "AL"
        name = f"name {i}" + (" " if i >= 9 else "")
        dirty.append([str(i), name, state])
        clean.append([str(i), f"name {i}", "AL"])
    paths = []
    for label, rows in (("dirty", dirty), ("clean", clean)):
        path = tmp_path / f"{label}.csv"
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rows)
        paths.append(str(path))
    return paths[0], paths[1]


def test_accuracy_main(tmp_path, capsys):
    dirty, clean = _write_pair(tmp_path)
    backend = scripted("state", UPPER_STATE)
    out = tmp_path / "out"
    argv = [
        "--dirty",
        dirty,
        "--clean",
        clean,
        "--instructions",
        "state: two capital letters",
        "--chunk-size",
        "5",
        "--max-iterations",
        "20",
        "--out",
        str(out),
        "--quiet",
        "--option",
        "hint_functions=false",
    ]  # the scripted function, not the toolkit one-liner
    assert accuracy.main(argv, backend=backend) == 0
    line = _last_line(capsys)
    m = ACCURACY_LINE.fullmatch(line)
    assert m, line
    # rows 1-4 fixed (row 7 raises in clean_data and keeps its dirty value): errors 7, changed 4,
    # correct 4
    # P = 4/4 = 1, R = 4/7, F1 = 2 * 4/7 / (1 + 4/7) = 8/11
    assert m.group(1) == tmp_path.name  # .../NAME/dirty.csv is called NAME
    assert float(m.group(2)) == 1.0
    assert float(m.group(3)) == pytest.approx(4 / 7, abs=1e-4)
    assert float(m.group(4)) == pytest.approx(8 / 11, abs=1e-4)
    # every call the backend saw is counted, at 120 tokens each (how many the loop makes is the
    # cleaner's business)
    assert int(m.group(5)) == backend.calls >= 1
    assert int(m.group(6)) == 120 * backend.calls
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["error_cells"], summary["changed_cells"], summary["correct_repairs"]) == (
        7,
        4,
        4,
    )
    assert summary["broken_cells"] == 0 and summary["rows_failed_apply"] == 1
    repaired = list(csv.reader(open(out / "repaired.csv", newline="", encoding="utf-8")))
    assert repaired[0] == ["id", "name", "state"] and repaired[1] == ["1", "name 1", "AL"]
    assert repaired[7] == ["7", "name 7", "al"]  # clean_data raised: dirty values kept
    assert "state: two capital letters" in backend.history[0]


def test_accuracy_rescores_a_saved_run_without_the_model(tmp_path, capsys):
    dirty, clean = _write_pair(tmp_path)
    argv = [
        "--dirty",
        dirty,
        "--clean",
        clean,
        "--instructions",
        "state: two capital letters",
        "--chunk-size",
        "5",
        "--max-iterations",
        "20",
        "--quiet",
    ]
    assert (
        accuracy.main(
            argv + ["--out", str(tmp_path / "run")], backend=scripted("state", UPPER_STATE)
        )
        == 0
    )
    first = ACCURACY_LINE.fullmatch(_last_line(capsys))
    saved = str(tmp_path / "run" / "cleaning_functions.py")
    # a FakeBackend with no replies fails the test on any call
    assert (
        accuracy.main(
            argv + ["--out", str(tmp_path / "again"), "--functions", saved], backend=FakeBackend()
        )
        == 0
    )
    again = ACCURACY_LINE.fullmatch(_last_line(capsys))
    assert again.group(2, 3, 4) == first.group(2, 3, 4) and again.group(5, 6) == ("0", "0")
    summary = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert (
        summary["functions"]
        == json.loads((tmp_path / "run" / "summary.json").read_text())["functions"]
    )


def test_accuracy_rows_and_max_chunks(tmp_path, capsys):
    dirty, clean = _write_pair(tmp_path)
    backend = scripted("state", UPPER_STATE, usage=None)  # no usage reported -> 0 tokens
    out = tmp_path / "out"
    argv = [
        os.path.dirname(dirty),
        "--instructions",
        "state: two capital letters",
        "--rows",
        "8",
        "--max-chunks",
        "1",
        "--chunk-size",
        "3",
        "--max-iterations",
        "20",
        "--out",
        str(out),
        "--quiet",
        "--option",
        "hint_functions=false",
    ]
    assert accuracy.main(argv, backend=backend) == 0
    m = ACCURACY_LINE.fullmatch(_last_line(capsys))
    assert m
    # the generator saw 3 rows (one chunk; no usage reported -> 0 tokens);
    # scored on 8 rows: errors = states of rows 1-4 and 7 = 5; fixed rows 1-4 -> R = 4/5, P = 1
    assert int(m.group(5)) == backend.calls and int(m.group(6)) == 0
    # row 4 is not in the truncated copy
    assert not any('"name 4"' in prompt for prompt in backend.history)
    assert float(m.group(3)) == pytest.approx(0.8) and float(m.group(2)) == 1.0
    with open(out / "generation_input.csv", newline="", encoding="utf-8") as f:
        assert len(list(csv.reader(f))) == 4  # header + 3 rows
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rows"] == 8 and summary["generation_rows"] == 3


def test_accuracy_named_dataset_missing_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="file not found"):
        accuracy.main(
            ["hospital", "--data-dir", str(tmp_path), "--out", str(tmp_path / "o")],
            backend=FakeBackend(),
        )


def test_instructions_exist_for_every_dataset():
    for name in accuracy.DATASETS:
        path = os.path.join(ROOT, "bench", "instructions", f"{name}.txt")
        assert os.path.getsize(path) > 200


def _crm_backend() -> FakeBackend:
    # an unparsable reply first, then the e-mail function once, then "clean" from then on
    return scripted("email", FIX_EMAIL, garbage_first=True)


def test_real_model_main(tmp_path, capsys):
    backend = _crm_backend()
    argv = [
        "--records",
        "20",
        "--chunk-size",
        "10",
        "--max-iterations",
        "30",
        "--out",
        str(tmp_path),
        "--quiet",
        "--option",
        "hint_functions=false",
    ]
    assert real_model.main(argv, backend=backend) == 0
    out = capsys.readouterr().out
    line = out.strip().splitlines()[-1]
    m = REAL_MODEL_LINE.fullmatch(line)
    assert m, line
    calls, prompt_tokens, completion_tokens = int(m.group(1)), int(m.group(2)), int(m.group(3))
    assert calls == backend.calls and (prompt_tokens, completion_tokens) == (
        100 * calls,
        20 * calls,
    )
    assert float(m.group(4)) == pytest.approx(1 / calls, abs=1e-4)  # 1 parse error
    summary = json.loads((tmp_path / "summary.json").read_text())
    # the e-mail field goes from 5/20 to 20/20; the other fields are untouched
    assert summary["baseline_field_accuracy"]["email"] == 0.25
    assert summary["field_accuracy"]["email"] == 1.0
    for key, before in summary["baseline_field_accuracy"].items():
        if key != "email":
            assert summary["field_accuracy"][key] == before
    # 40 of 100 prompt tokens cached
    assert float(m.group(6)) == pytest.approx(0.4) == summary["cache_share"]
    assert summary["prompt_tokens_per_call"] == 100
    assert (m.group(8), m.group(9)) == ("20", "20") and summary["records_kept"] == 20
    # one function
    assert summary["sec_per_function"] == pytest.approx(summary["generation_seconds"])
    assert float(m.group(7)) == pytest.approx(summary["accuracy"], abs=1e-4)
    assert summary["accuracy"] == pytest.approx(summary["baseline_accuracy"] + 15 / (20 * 8))
    assert summary["functions"] == ["fix_email"] and summary["generation_records"] == 20
    assert summary["parse_errors"] == 1 == int(m.group(11))
    assert float(m.group(10)) == pytest.approx(summary["wall_seconds"], abs=0.05)
    assert summary["wall_seconds"] >= summary["generation_seconds"]
    logged = [json.loads(x) for x in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert (
        len(logged) == calls
        and logged[0]["prompt"] == backend.history[0]
        and logged[0]["prompt_tokens"] == 100
    )
    assert summary["calls_per_1k"] == pytest.approx(calls / 20 * 1000)
    assert summary["tokens_per_function"] == 120 * calls
    assert "email" in out and "before" in out
    cleaned = [json.loads(x) for x in (tmp_path / "cleaned.jsonl").read_text().splitlines()]
    assert len(cleaned) == 20 and all(r["email"] == r["email"].lower() for r in cleaned)


def test_real_model_starts_from_an_empty_prompt_cache_unless_given_one(tmp_path, monkeypatch):
    from recursive_cleaner.backends.prompt_cache import PROMPT_CACHE_ENV

    monkeypatch.setenv(PROMPT_CACHE_ENV, "/the/session/folder")
    stale = tmp_path / "out" / "prompt-cache" / "old.slot"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"x")
    seen = []
    monkeypatch.setattr(
        real_model,
        "run",
        lambda args, backend: (
            seen.append(os.environ[PROMPT_CACHE_ENV])
            or {
                "calls": 0,
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "parse_fail_rate": 0.0,
                "sec_per_call": 0.0,
                "cache_share": 0.0,
                "accuracy": 1.0,
                "records_kept": 1,
                "records": 1,
                "wall_seconds": 0.0,
                "parse_errors": 0,
            }
        ),
    )
    monkeypatch.setattr(real_model, "print_report", lambda s: None)
    assert real_model.main(["--out", str(tmp_path / "out")]) == 0
    assert seen == [str(stale.parent)] and not stale.exists()  # emptied: a measured run starts cold
    given = tmp_path / "given"
    given.mkdir()
    (given / "kept.slot").write_bytes(b"x")
    assert real_model.main(["--out", str(tmp_path / "out"), "--prompt-cache", str(given)]) == 0
    assert seen[-1] == str(given) and (given / "kept.slot").exists()
    assert os.environ[PROMPT_CACHE_ENV] == "/the/session/folder"  # restored after the run


def test_cost_main_runs_and_reads_summary(tmp_path, capsys):
    argv = [
        "--records",
        "20",
        "--chunk-size",
        "10",
        "--max-chunks",
        "1",
        "--max-iterations",
        "30",
        "--out",
        str(tmp_path),
        "--quiet",
        "--option",
        "hint_functions=false",
    ]
    backend = _crm_backend()
    assert cost.main(argv, backend=backend) == 0
    line = _last_line(capsys)
    m = COST_LINE.fullmatch(line)
    assert m, line
    # the generator saw 10 records (one chunk) and accepted one function
    calls = backend.calls
    assert float(m.group(1)) == pytest.approx(calls / 10 * 1000, abs=0.05)
    assert float(m.group(2)) == pytest.approx(120 * calls, abs=0.05)
    assert cost.main(["--from-summary", str(tmp_path / "summary.json")]) == 0
    assert _last_line(capsys) == line


def test_real_model_prints_a_baseline_beside_this_run(tmp_path, capsys):
    row = {
        "wall_seconds": 576.0,
        "generation_seconds": 560.2,
        "calls": 11,
        "parse_errors": 1,
        "parse_fail_rate": 1 / 11,
        "cache_share": 0.62,
        "accuracy": 1.0,
    }
    real_model.print_side_by_side(
        [("baseline b11706c", row), ("this abc", {**row, "calls": 7, "cache_share": 0.91})]
    )
    old, new = capsys.readouterr().out.splitlines()[1:]
    assert old.split()[:6] == ["baseline", "b11706c", "576.0", "560.2", "11", "1"] and "62%" in old
    assert new.split()[4] == "7" and "91%" in new
    # a folder as is
    assert real_model.baseline_checkout(str(tmp_path), str(tmp_path / "out")) == str(tmp_path)


def test_constrained_compares_the_two_modes_on_logged_prompts(tmp_path, capsys):
    import constrained
    from recursive_cleaner.model import grammar
    from tests.fakes import GrammarFakeBackend

    code = "def fix_email(record):\n    record = dict(record)\n    return record"
    good = (
        "<cleaning_analysis>\n  <function_to_generate>\n    <name>fix_email</name>\n    "
        "<docstring>x</docstring>\n"
        f"    <code>\n```python\n{code}\n```\n    </code>\n  </function_to_generate>\n"
        "  <chunk_status>needs_more_work</chunk_status>\n</cleaning_analysis>"
    )
    field = (
        "PREFIX\n=== TASK ===\nWrite ONE function named fix_email(record) that fixes the field "
        "'email'"
    )
    calls = tmp_path / "calls.jsonl"
    calls.write_text(
        "".join(
            json.dumps(e) + "\n"
            for e in (
                {"prompt": field, "reply": "no tags", "held": None},
                {
                    "prompt": "PREFIX\n=== TASK ===\nList EVERY data quality issue you still see",
                    "reply": CLEAN_REPLY,
                },
                # not a reply form
                {"prompt": "Decide whether the data's problems are saturated", "reply": "x"},
            )
        )
    )
    backend = GrammarFakeBackend(lambda prompt: good if backend.grammars[-1] else "no tags")
    assert constrained.main([str(calls), "--out", str(tmp_path / "out")], backend=backend) == 0
    assert backend.grammars == [
        grammar.field_reply("fix_email").gbnf(),
        None,
        grammar.open_reply().gbnf(),
        None,
    ]
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith(
        "constrained prompts=2 grammar_parse=2/2 plain_parse=0/2 grammar_functions=2 "
        "plain_functions=0 "
    )
    backend.grammars.clear()
    assert (
        constrained.main(
            [str(calls), "--reuse", "--limit", "1", "--out", str(tmp_path / "out")], backend=backend
        )
        == 0
    )
    # the plain reply came from the log
    assert backend.grammars == [grammar.field_reply("fix_email").gbnf()]


def test_chunk_overhead_runs_the_loop_without_the_model(capsys):
    import chunk_overhead

    assert chunk_overhead.main(["--records", "60"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    m = re.fullmatch(
        r"chunk_overhead records=60 chunks=(\d+) calls=(\d+) seconds=[\d.]+ ms_per_chunk=[\d.]+",
        line,
    )
    assert m, line
    # the library's one-liners leave nothing unexplained: not even an open pass (issue 45)
    assert int(m.group(1)) == 2 and int(m.group(2)) == 0


@pytest.mark.parametrize(
    "script",
    [
        "accuracy.py",
        "real_model.py",
        "cost.py",
        "constrained.py",
        "chunk_overhead.py",
        "dask_apply.py",
    ],
)
def test_scripts_show_help(script):
    import subprocess

    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", script), "--help"],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=60,
    )
    assert proc.returncode == 0 and "usage:" in proc.stdout


def test_apply_clean_data_isolates_bad_records():
    # a refused operation fails the whole sandbox run; the batch is retried in halves
    source = (
        "def clean_data(record):\n"
        '    if record["a"] == 2:\n'
        '        open("/etc/hostname").read()\n'
        '    return {"a": record["a"] * 10}\n'
    )
    outputs, errors = accuracy.apply_clean_data(
        source, [{"a": 1}, {"a": 2}, {"a": 3}], batch_size=3
    )
    assert outputs[0] == {"a": 10} and outputs[2] == {"a": 30}
    assert outputs[1] is None and errors[1] and errors[0] is None and errors[2] is None


def test_apply_clean_data_module_that_does_not_load():
    outputs, errors = accuracy.apply_clean_data("def clean_data(r) return r", [{"a": 1}] * 3)
    assert outputs == [None] * 3 and all("SyntaxError" in e for e in errors)


# ---------------------------------------------------------------------------- mechanisms.py
def test_mechanisms_configs_turn_one_mechanism_on_each():
    import mechanisms

    assert mechanisms.CONFIGS["baseline"] == {
        "rich_context": "false",
        "reflection": "none",
        "optimize": "false",
        "early_termination": "false",
    }
    for name in ("rich_context", "reflection", "optimize", "early_termination"):
        changed = {
            k
            for k, v in mechanisms.CONFIGS[name].items()
            if mechanisms.CONFIGS["baseline"].get(k) != v
        }
        assert changed and changed <= {name, "optimize_threshold"}, name
    assert (
        mechanisms.CONFIGS["all"]["reflection"] == "rules"
        and mechanisms.CONFIGS["all"]["early_termination"] == "true"
    )
    args = mechanisms.options_for("reflection")
    assert args[::2] == ["--option"] * 4 and "reflection=rules" in args
    assert accuracy.parse_options(args[1::2])["reflection"] == "rules"
    assert accuracy.parse_options(mechanisms.options_for("baseline")[1::2])["reflection"] is None


def test_mechanisms_reads_finished_runs_and_prints_the_table(tmp_path, capsys):
    import mechanisms

    for config, f1, calls in (("baseline", 0.5, 10), ("all", 0.75, 4)):
        folder = tmp_path / f"hospital-{config}"
        folder.mkdir()
        (folder / "summary.json").write_text(
            json.dumps(
                {
                    "dataset": "hospital",
                    "calls": calls,
                    "prompt_tokens": 900,
                    "completion_tokens": 100,
                    "precision": 0.8,
                    "recall": 0.6,
                    "f1": f1,
                    "broken_cells": 3,
                    "functions": ["a", "b"],
                    "generation_seconds": 10.0,
                    "apply_seconds": 2.0,
                }
            )
        )
    assert mechanisms.main(["hospital", "--configs", "baseline,all", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| hospital | baseline | 10 | 1,000 | 0.800 | 0.600 | **0.500** | 3 | 2 | 12 |" in out
    assert (
        "mechanism hospital all calls=4 tokens=1000 precision=0.8000 recall=0.6000 f1=0.7500 "
        "broken=3" in out
    )
    with pytest.raises(SystemExit):
        mechanisms.main(["hospital", "--configs", "nosuch", "--out", str(tmp_path)])


def test_dask_apply_compares_apply_dask_with_apply_file_on_a_tiny_table(tmp_path, capsys):
    from tests.optional_deps import optional

    optional("distributed")
    import dask_apply

    table = tmp_path / "data" / "flights"
    table.mkdir(parents=True)
    rows = ["tuple_id,src,flight,sched_dep_time"] + [
        f"{i},s{i % 3},F{i % 4},{'7:10 a.m.' if i % 5 else '7:15 a.m.'}" for i in range(40)
    ]
    (table / "dirty.csv").write_text("\n".join(rows) + "\n")
    assert (
        dask_apply.main(
            [
                "--size-mb",
                "0.05",
                "--data-dir",
                str(tmp_path / "data"),
                "--tables",
                "flights",
                "--out",
                str(tmp_path / "out"),
                "--partition-size",
                "200",
                "--simulate",
                "2",
            ]
        )
        == 0
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert re.fullmatch(r"dask_apply identical=1 ratio=[\d.]+", lines[-1]), lines[-1]
    sides = [json.loads(line) for line in lines[:-1]]
    assert [s.get("side") for s in sides[:2]] == ["local", "dask"] and sides[1][
        "records_in"
    ] == sides[0]["records_in"]
    assert sum("fit_simulation" in s for s in sides) == 2
