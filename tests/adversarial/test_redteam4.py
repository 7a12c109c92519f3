"""The fourth red-team pass (after issue 43): each break it found, asserting what should happen.

33 attacks: 15 held, 18 broke, 15 fixed (3 open, named below). One line per attack (test):

 1. broke, fixed: records each bringing a key of their own make a table of empty cells in
    CSV/Parquet/Excel outputs (test_records_with_keys_of_their_own_cannot_make_a_table...)
 2. broke, fixed: apply writes its report/audit/output over the spec it reads
    (test_apply_never_writes_over_the_spec_it_reads, ..._refuses_an_audit_over_its_spec)
 3. broke, fixed: class-level tables of allowed classes carry state
    (test_a_class_level_table_of_an_allowed_module_keeps_no_state_between_records)
 4. broke, fixed: submodules' tables carry state in the child
    (test_a_submodules_table_keeps_no_state_between_records_without_the_policy)
 5. broke, fixed: terminal escapes / bidi controls in model code
    (test_code_holding_a_terminal_or_bidi_control_is_refused_naming_it, ...reaches_cleaning...)
 6. broke, fixed: state file entries of the wrong type (test_a_state_entry_of_the_wrong_type...,
    test_a_saved_option_of_the_wrong_type..., test_the_cli_resume_names_the_state_file...)
 7. broke, fixed: Excel output cut a text past 32,767 characters
    (test_an_excel_output_never_cuts_a_long_text)
 8. broke, fixed: Excel output rounded ints past 2**53 (..._keeps_every_digit_of_a_big_int)
 9. broke, fixed: apply --dask wrote the input's format (test_apply_dask_writes_the_format...)
10. broke, fixed: a control character in a field name broke llama.cpp's grammar
    (test_a_control_character_in_a_field_name..., test_a_nul_in_a_csv_header_leaves...)
11. broke, fixed: quadratic unique_header (test_repeated_header_names_are_renamed_in_linear_work)
12. broke, fixed: CROSS_ROW_STEPS entries of the wrong type (test_a_step_entry_of_the_wrong_type...)
13. broke, fixed: a 62 KB .xlsx of cells naming one 32,000-character shared string: 6.4 GB of
    values (test_cells_naming_one_shared_string_cannot_grow_a_small_workbook,
    test_apply_names_the_bound_in_one_line; bench/hostile_readers.py xlsx-shared)
14. broke, fixed: sandbox_timeout=inf (a flag, or a loaded Cleaner file's Infinity): a raw
    OverflowError at the first candidate (test_an_infinite_sandbox_timeout_is_refused...,
    test_the_sandbox_and_apply_refuse_a_timeout..., test_the_cli_refuses_an_infinite...)
15. broke, fixed: a workbook's other sheets' records lost with exit 0
    (test_the_records_of_a_workbooks_other_sheets_are_counted_never_lost_quietly)
16. broke, OPEN: the child alone lets a store through an allowed module function's
    ``__globals__`` carry state (the policy refuses it; strict xfail
    test_the_child_alone_keeps_no_state_through_globals_or_type_setattr)
17. broke, OPEN: the child alone lets ``type.__setattr__`` on an allowed class carry state (the
    policy refuses it; the same strict xfail)
18. broke, OPEN: a JSON record with a key twice ({"a": 1, "a": 2}) keeps the last value without
    a word (JSON's own reading; a check would cost every record an object_pairs_hook)
19. held: an unterminated CSV quote: the rows it swallows are skipped and counted
    (test_held_reader_attacks_lose_no_record_quietly)
20. held: raw U+2028 / U+0085 / U+001C inside JSONL strings are no line ends (same test)
21. held: a 100,000-deep list in a JSONL value, a JSON document or a state file: a skip or one
    line "nested too deeply" (same test)
22. held: two objects, null, [] or a string as JSONL lines: counted skips (same test)
23. held: two gzip members read as one stream; a truncated .jsonl.gz is one InputError
    (same test, test_a_truncated_gzip_is_one_input_error)
24. held: a 200 KB CSV field: one line naming the csv module's field limit
25. held: a NUL inside a CSV cell is kept as data
26. held: field names with triple quotes / CR LF / U+2028, enum values and goal text holding code
    reach the library's own no-call functions as literals only
    (test_hostile_field_names_values_and_goals_stay_data_in_the_generated_module)
27. held: terminal and bidi controls in field names and values through validate, apply's lines,
    the audit log and the HTML report
28. held: format strings walking attributes ("{0.__class__.__mro__}", built-up, format_map):
    refused by the policy
29. held: a function's result that is no record (None, a list, a string; 200,000-deep, a set,
    bytes, tuple keys) fails that record, never written
    (test_a_functions_result_that_is_not_a_record_fails_it_and_never_writes_it)
30. held: module-level itertools.count / functools.partial, stores on allowed classes and
    objects, a module-level str.maketrans table: refused by the policy and by the child
31. held: apply -o onto a folder, /dev/stdout or /dev/null: one line, nothing written
32. held: -i @/dev/zero or @/dev/urandom: refused (the message says "not found", see the report)
33. held (by design): a clean_data returning {} empties every record, exit 0: apply writes what
    the functions return (generate's judge refuses a function dropping fields; --audit shows it)

The first pass's breaks in order (the sections below keep their numbers):

1. Tabular outputs: records that each bring a key of their own make a table of empty cells (a
   126 KB JSONL took 32 s and 683 MB writing Parquet; 266 KB became a 256 MB CSV).
2. ``apply`` wrote its report, audit or output over the field spec it read (``--spec``, or the
   ``NAME.spec.json`` beside the functions).
3. Cross-record state past both layers: a class-level table of an allowed module's class
   (``textwrap.TextWrapper.unicode_whitespace_trans``, ``calendar.HTMLCalendar.cssclasses``).
4. Cross-record state past the child alone (the policy refuses): the public tables of the allowed
   packages' submodules (``html.entities.html5``, ``json.decoder.BACKSLASH``).
5. Model code holding terminal escapes or bidirectional overrides was written as is into
   cleaning_functions.py (``cat`` erases lines, OSC 52 sets the clipboard, Trojan Source).
6. A state file's optional entries of the wrong type: raw TypeError / AttributeError on resume.
7. Excel output cut a text past 32,767 characters and rounded ints past 2**53, exit 0.
8. ``apply --dask`` wrote the input's format whatever the output's extension (JSONL in .parquet).
9. A control character in a field name (a CSV header) made every constrained call's grammar
   unreadable to llama.cpp ("failed to parse grammar"): the run stopped after three attempts.
10. ``unique_header`` was quadratic in repeated names (a 64 KB CSV header: 78 s in apply).
11. ``CROSS_ROW_STEPS`` entries of the wrong type: a raw TypeError, or a string key read as its
    letters.
12. An .xlsx whose cells name one shared string (attack 13 above).
13. Infinite timeouts (attack 14).
14. A workbook's other sheets (attack 15).
15. State past the child alone through ``__globals__`` / ``type.__setattr__`` (attacks 16-17).
16. The held attacks, pinned (attacks 19-29).
"""

from __future__ import annotations

import json
import sys

import pytest

from recursive_cleaner import DataCleaner, apply_file
from recursive_cleaner.apply.local import ApplyError, apply_records
from recursive_cleaner.apply.writers import output_writer
from recursive_cleaner.errors import StateFileError
from recursive_cleaner.judge.policy import check_code_safety
from recursive_cleaner.judge.sandbox import run_in_sandbox
from recursive_cleaner.model.grammar import open_reply
from recursive_cleaner.read import rows as rows_module
from recursive_cleaner.write.state import load_state
from tests.cli_helpers import invoke
from tests.fakes import CLEAN_REPLY, FakeBackend, GrammarFakeBackend, make_reply
from tests.optional_deps import optional

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="the sandbox is POSIX only")
IDENTITY = "def clean_data(record):\n    return record\n"


def BREAK(why: str):  # noqa: N802 - reads as a mark
    return pytest.mark.xfail(strict=True, reason=f"redteam4: {why}")


# ---------------------------------------------------------------------------- 1. sparse tables
def _sparse(n: int) -> tuple[bytes, int]:
    """A batch of ``n`` records, each with one key no other record has."""
    return b"\n".join(json.dumps({f"k{i}": i}).encode() for i in range(n)), n


@pytest.mark.parametrize("name", ["o.csv", "o.parquet", "o.xlsx"])
def test_records_with_keys_of_their_own_cannot_make_a_table_of_empty_cells(tmp_path, name):
    """2,000 records x 2,000 columns: 4,000,000 cells for 2,000 values, refused by the bound the
    readers use (``read.rows.SHEET_RATIO`` / ``SHEET_CELLS``), before the table is built."""
    if not name.endswith(".csv"):
        optional("pyarrow" if name.endswith(".parquet") else "openpyxl")
    payload, n = _sparse(2000)
    fmt = {"csv": "csv", "parquet": "parquet", "xlsx": "excel"}[name.rsplit(".", 1)[1]]
    with open(tmp_path / name, "w+b") as out:
        writer = output_writer(fmt, out, str(tmp_path / name))
        with pytest.raises(ValueError, match="cells for 2,000 values"):
            writer.write(payload, n)
            writer.finish()


def test_records_with_some_keys_missing_still_make_their_table(tmp_path):
    """Ordinary sparse data (optional fields) is far from the bound: written as before."""
    records = [{"id": i, **({"note": "x"} if i % 3 else {}), f"k{i % 7}": 1} for i in range(3000)]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = apply_file(_functions(tmp_path), str(path), str(tmp_path / "out.csv"), workers=1)
    assert result.records_out == 3000


def test_apply_of_a_sparse_file_is_one_error_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    payload, _ = _sparse(3000)
    (tmp_path / "in.jsonl").write_bytes(payload + b"\n")
    _functions(tmp_path)
    result = invoke("apply", "cf.py", "in.jsonl", "-o", "out.csv", "--progress", "off")
    assert result.exit_code == 1 and "cells for" in result.stderr, result.stderr
    assert not (tmp_path / "out.csv").exists()


def _functions(folder, code: str = IDENTITY) -> str:
    path = folder / "cf.py"
    path.write_text(code)
    return str(path)


# ---------------------------------------------------------------------------- 2. the spec is input
SPEC = {"version": 1, "fields": {"a": {"kind": "integer", "mentioned": True}}}


@pytest.fixture
def spec_beside(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _functions(tmp_path)
    (tmp_path / "cf.spec.json").write_text(json.dumps(SPEC))
    (tmp_path / "given.json").write_text(json.dumps(SPEC))
    (tmp_path / "in.jsonl").write_text('{"a": 1}\n{"a": 2}\n')
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["-o", "out.jsonl", "--report", "cf.spec.json"],
        ["-o", "cf.spec.json"],
        ["-o", "out.jsonl", "--audit", "given.json", "--spec", "given.json"],
        ["-o", "out.jsonl", "--report", "given.json", "--spec", "given.json"],
    ],
)
def test_apply_never_writes_over_the_spec_it_reads(spec_beside, args):
    result = invoke("apply", "cf.py", "in.jsonl", *args, "--progress", "off")
    assert result.exit_code == 2 and "spec" in result.stderr, (result.exit_code, result.stderr)
    for name in ("cf.spec.json", "given.json"):
        assert json.loads((spec_beside / name).read_text()) == SPEC


def test_apply_file_refuses_an_audit_over_its_spec(spec_beside):
    with pytest.raises(ValueError, match="spec"):
        apply_file("cf.py", "in.jsonl", "out.jsonl", spec="given.json", audit_path="given.json")
    assert json.loads((spec_beside / "given.json").read_text()) == SPEC


# ---------------------------------------------------------------------------- 3/4. shared tables
RECORDS = [{"id": i} for i in range(5)]


def _counter(setup: str, count: str, seen: str) -> str:
    """clean(record): ``count`` adds one to a table something shares, ``seen`` reads it back."""
    return (
        f"{setup}\n\n\ndef clean(record):\n    {count}\n    record = dict(record)\n"
        f"    record['seen'] = repr({seen})\n    return record\n"
    )


PAST_BOTH = {
    "textwrap.TextWrapper.unicode_whitespace_trans": _counter(
        "import textwrap",
        "t = textwrap.TextWrapper().unicode_whitespace_trans\n    t[7] = t.get(7, 0) + 1",
        "textwrap.TextWrapper().unicode_whitespace_trans.get(7)",
    ),
    "calendar.HTMLCalendar.cssclasses": _counter(
        "import calendar",
        "c = calendar.HTMLCalendar()\n    c.cssclasses.append('x')",
        "len(calendar.HTMLCalendar().cssclasses)",
    ),
}
CHILD_ONLY = {
    "html.entities.html5": _counter(
        "import html",
        "html.entities.html5['rcn'] = html.entities.html5.get('rcn', 0) + 1",
        "html.entities.html5.get('rcn')",
    ),
    "json.decoder.BACKSLASH": _counter(
        "import json",
        "json.decoder.BACKSLASH['n'] = json.decoder.BACKSLASH.get('n', '') + 'x'",
        "json.decoder.BACKSLASH.get('n')",
    ),
}


def _alone(code: str) -> list:
    """What each record gets when it is the only one (a fresh child each)."""
    outs = []
    for record in RECORDS:
        result = run_in_sandbox(code, "clean", [record])
        outs.append(result.outputs[0] if result.ok else None)
    return outs


def _no_record_sees_another(code: str) -> None:
    result = run_in_sandbox(code, "clean", RECORDS)
    if result.ok:  # each record as it would be alone, or failed on its own
        together = [o if e is None else None for o, e in zip(result.outputs, result.errors)]
        alone = _alone(code)
        assert [o for o in together if o] == [o for o, t in zip(alone, together) if t], result
    else:
        assert result.error or result.violations, result


@POSIX
@pytest.mark.parametrize("name", sorted(PAST_BOTH))
def test_a_class_level_table_of_an_allowed_module_keeps_no_state_between_records(name):
    assert check_code_safety(PAST_BOTH[name]) == []  # pinned: the policy does not see it
    _no_record_sees_another(PAST_BOTH[name])


@POSIX
@pytest.mark.parametrize("name", sorted(CHILD_ONLY))
def test_a_submodules_table_keeps_no_state_between_records_without_the_policy(name):
    assert check_code_safety(CHILD_ONLY[name])  # the policy refuses it
    _no_record_sees_another(CHILD_ONLY[name])


# ---------------------------------------------------------------------------- 5. controls in code
ESCAPES = {
    "erase lines (CSI)": "\x1b[2K\x1b[1A\x1b[2K",
    "set the clipboard (OSC 52)": "\x1b]52;c;ZWNobw==\x07",
    "8-bit CSI": "\x9b2K",
    "right-to-left override": "\u202e",
    "isolates (Trojan Source)": "\u2066\u2069",
    "backspace": "\x08\x08\x08",
}


def _with(control: str) -> str:
    return (
        "def fix_status(record):\n    record = dict(record)\n"
        f'    role = "user{control}"  # admin{control}\n'
        '    record["status"] = str(record.get("status", "")).strip().lower()\n'
        "    return record"
    )


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_code_holding_a_terminal_or_bidi_control_is_refused_naming_it(name):
    problems = check_code_safety(_with(ESCAPES[name]))
    assert any("control character" in p for p in problems), problems


def test_ordinary_code_with_escapes_written_as_escapes_passes():
    code = 'def f(record):\n    return {"s": "\\x1b" + "\\u202e", "t": "a\\tb"}\n'
    assert check_code_safety(code) == []


def test_no_control_from_a_reply_reaches_cleaning_functions_py(tmp_path):
    data = tmp_path / "s.jsonl"
    statuses = ["active", "Active ", "pending", "PENDING", "active", "churned"]
    data.write_text(
        "".join(json.dumps({"id": i, "status": s}) + "\n" for i, s in enumerate(statuses))
    )
    replies = [make_reply("fix_status", _with("".join(ESCAPES.values())))]
    DataCleaner(
        FakeBackend(replies, default=CLEAN_REPLY),
        str(data),
        instructions="Lower-case the status; keep every record.",
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        chunk_size=6,
        profile_fields=False,
        holdout_ratio=0.0,
        cross_row=False,
    ).run()
    text = (tmp_path / "cf.py").read_text(encoding="utf-8")
    assert not [c for c in text if c in "\x1b\x07\x9b\x08\u202e\u2066\u2069"]


# ---------------------------------------------------------------------------- 6. state file types
BAD_ENTRIES = {
    "rejected": [1, 2],
    "issues": [1, 2],
    "llm": [1],
    "unusable_replies": "x",
    "total_chunks": "x",
    "skipped_records": "many",
    "options": [1],
    "early_termination": [1],
}


def _state(tmp_path, **entries) -> str:
    data = tmp_path / "d.jsonl"
    data.write_text('{"a": 1}\n')
    state = {
        "version": "0.2.0",
        "file_path": str(data),
        "instructions": "trim",
        "chunk_size": 50,
        "last_completed_chunk": -1,
        "functions": [],
        **entries,
    }
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    return str(path)


@pytest.mark.parametrize("key", sorted(BAD_ENTRIES))
def test_a_state_entry_of_the_wrong_type_is_a_state_file_error_naming_it(tmp_path, key):
    path = _state(tmp_path, **{key: BAD_ENTRIES[key]})
    with pytest.raises(StateFileError, match=key):
        load_state(path)


@pytest.mark.parametrize("examples", [[[1, 2, 3], "x"], {"a": 1}, 5])
def test_a_functions_examples_of_the_wrong_form_are_a_state_file_error(tmp_path, examples):
    fn = {"name": "f", "docstring": "d", "code": IDENTITY, "examples": examples}
    with pytest.raises(StateFileError, match="examples"):
        load_state(_state(tmp_path, functions=[fn]))


@pytest.mark.parametrize(
    "options", [{"holdout_ratio": "lots"}, {"max_iterations": "99"}, {"cross_row": "yes"}]
)
def test_a_saved_option_of_the_wrong_type_is_a_state_file_error_naming_it(tmp_path, options):
    path = _state(tmp_path, options=options)
    with pytest.raises(StateFileError, match=next(iter(options))):
        DataCleaner.resume(path, FakeBackend(default=CLEAN_REPLY))


def test_the_cli_resume_names_the_state_file_and_the_entry(tmp_path, use):
    use(FakeBackend(default=CLEAN_REPLY))
    path = _state(tmp_path, rejected=[1, 2])
    result = invoke("resume", path, "-b", "fake", "--progress", "off")
    assert result.exit_code == 1 and path in result.stderr and "rejected" in result.stderr


# ---------------------------------------------------------------------------- 7. Excel limits
def test_an_excel_output_never_cuts_a_long_text(tmp_path):
    optional("openpyxl")
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": 1, "note": "y" * 40_000}) + "\n")
    with pytest.raises(ApplyError, match="32,767"):
        apply_file(_functions(tmp_path), str(source), str(tmp_path / "o.xlsx"), workers=1)
    assert not (tmp_path / "o.xlsx").exists()


def test_an_excel_output_keeps_every_digit_of_a_big_int(tmp_path):
    openpyxl = optional("openpyxl")
    source = tmp_path / "in.jsonl"
    big = 2**70 + 1
    source.write_text(json.dumps({"id": big, "small": 12}) + "\n")
    apply_file(_functions(tmp_path), str(source), str(tmp_path / "o.xlsx"), workers=1)
    rows = list(openpyxl.load_workbook(tmp_path / "o.xlsx").active.iter_rows(values_only=True))
    assert str(rows[1][0]) == str(big) and rows[1][1] == 12


# ---------------------------------------------------------------------------- 8. Dask's output
@pytest.mark.parametrize("target", ["out.csv", "out.parquet"])
def test_apply_dask_writes_the_format_its_output_names(tmp_path, target):
    optional("dask.bag")
    from recursive_cleaner.apply.on_dask import apply_dask
    from recursive_cleaner.read.parsers import iter_records

    if target.endswith(".parquet"):
        optional("pyarrow")
    source = tmp_path / "in.jsonl"
    source.write_text('{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n')
    apply_dask(_functions(tmp_path), str(source), str(tmp_path / target))
    local = tmp_path / f"local.{target.rsplit('.', 1)[1]}"
    apply_file(str(tmp_path / "cf.py"), str(source), str(local), workers=1)
    assert (tmp_path / target).read_bytes() == local.read_bytes()
    assert list(iter_records(str(tmp_path / target))) == [
        {"a": "1" if target.endswith(".csv") else 1, "b": "x"},
        {"a": "2" if target.endswith(".csv") else 2, "b": "y"},
    ]


# ---------------------------------------------------------------------------- 9. the grammar
CONTROLS = ["a\x00b", "a\x01b", "a\x1bb", "a\x7fb"]


@pytest.mark.parametrize("field", CONTROLS)
def test_a_control_character_in_a_field_name_never_reaches_the_grammar_raw(field):
    gbnf = open_reply(fields=[field, "status"], names=["fix_status"]).gbnf()
    assert not [c for c in gbnf[:-1] if ord(c) < 0x20 or ord(c) == 0x7F], gbnf


class _LlamaLike(GrammarFakeBackend):
    """llama.cpp's reading of a grammar: a raw NUL ends it (``failed to parse grammar``)."""

    def generate_grammar(self, prompt: str, grammar: str) -> str:
        if "\x00" in grammar:
            self.grammars.append(grammar)
            self.history.append(prompt)
            raise RuntimeError("the local model failed: failed to parse grammar")
        return super().generate_grammar(prompt, grammar)


def test_a_nul_in_a_csv_header_leaves_a_constrained_run_to_finish(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("id,sta\x00tus,name\n" + "".join(f"{i},Active ,bob\n" for i in range(20)))
    backend = _LlamaLike(default=CLEAN_REPLY)
    DataCleaner(
        backend,
        str(data),
        instructions="Leave the id alone. Clean everything else.",
        scope="all",
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        chunk_size=10,
        holdout_ratio=0.0,
    ).run()
    assert not any("\x00" in (g or "") for g in backend.grammars)


# ---------------------------------------------------------------------------- 10. unique_header
class _Counted(str):
    """A header name that counts how often a candidate name is made from it."""

    made = 0

    def __format__(self, spec: str) -> str:
        _Counted.made += 1
        return str.__format__(self, spec)


def test_repeated_header_names_are_renamed_in_linear_work():
    _Counted.made = 0
    n = 2000
    names = rows_module.unique_header([_Counted("a") for _ in range(n)])
    assert names[:3] == ["a", "a_2", "a_3"] and len(set(names)) == n
    assert _Counted.made <= 4 * n, _Counted.made  # was n * n (4,000,000 here)


def test_renaming_keeps_its_old_answers():
    names = ["a", "a", "a_2", "", "a", " ", "b", "b_2", "b"]
    assert rows_module.unique_header(names) == [
        "a",
        "a_3",
        "a_2",
        "column_4",
        "a_4",
        "column_6",
        "b",
        "b_2",
        "b_3",
    ]


# ---------------------------------------------------------------------------- 11. steps' types
@pytest.mark.parametrize(
    "step, named",
    [
        ({"kind": "majority", "key": [1], "fields": ["b"]}, "key"),
        ({"kind": "words", "fields": [["b"]]}, "fields"),
        ({"kind": "majority", "key": "ab", "fields": ["c"]}, "key"),
        ({"kind": "majority", "key": ["a"], "fields": "c"}, "fields"),
        ({"kind": "majority", "key": ["a"], "fields": ["c"], "min_share": "x"}, "min_share"),
        ({"kind": "dedup", "key": ["a"], "asked": "yes"}, "asked"),
    ],
)
def test_a_step_entry_of_the_wrong_type_is_one_error_naming_the_file(step, named):
    code = f"CROSS_ROW_STEPS = [{step!r}]\n\n{IDENTITY}"
    records = [{"a": str(i % 3), "b": "x", "c": i} for i in range(6)]
    with pytest.raises(ApplyError, match=f"cleaning_functions.py.*{named}"):
        list(apply_records(code, records, workers=1))


def test_a_step_is_still_read_from_lists_of_names():
    code = "CROSS_ROW_STEPS = [{'kind': 'majority', 'key': ['a'], 'fields': ['b']}]\n\n" + IDENTITY
    records = [{"a": "1", "b": "x"}, {"a": "1", "b": "x"}, {"a": "1", "b": "x "}]
    assert [r["b"] for r in apply_records(code, records, workers=1)] == ["x", "x", "x"]


# ---------------------------------------------------------------------------- 12. shared strings
def _shared_string_book(path, rows: int, cols: int, text: str) -> None:
    """An .xlsx whose data cells all name one shared string (what Excel itself writes for a
    repeated text: the string once, each cell its index)."""
    import zipfile

    ns = 'xmlns="http://schemas.openxmlformats.org/'
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    main = f'{ns}spreadsheetml/2006/main"'
    parts = {
        "[Content_Types].xml": f'<Types {ns}package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/sharedStrings.'
        'xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.'
        'sharedStrings+xml"/></Types>',
        "_rels/.rels": f'<Relationships {ns}package/2006/relationships"><Relationship Id="r1" '
        f'Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook {main} xmlns:r="{rel}"><sheets><sheet name="S" '
        'sheetId="1" r:id="r1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships {ns}package/2006/relationships">'
        f'<Relationship Id="r1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="r2" Type="{rel}/sharedStrings" Target="sharedStrings.xml"/>'
        "</Relationships>",
        "xl/sharedStrings.xml": f"<sst {main}>"
        + "".join(f"<si><t>h{j}</t></si>" for j in range(cols))
        + f"<si><t>{text}</t></si></sst>",
        "xl/worksheets/sheet1.xml": f"<worksheet {main}><sheetData>"
        + '<row r="1">'
        + "".join(f'<c r="{chr(65 + j)}1" t="s"><v>{j}</v></c>' for j in range(cols))
        + "</row>"
        + "".join(
            f'<row r="{i}">' + f'<c t="s"><v>{cols}</v></c>' * cols + "</row>"
            for i in range(2, rows + 2)
        )
        + "</sheetData></worksheet>",
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as book:
        for name, content in parts.items():
            book.writestr(name, content)


def test_cells_naming_one_shared_string_cannot_grow_a_small_workbook(tmp_path, monkeypatch):
    """Before: a 62 KB workbook of 200,000 cells naming one 32,000-character string (6.4 GB of
    values) took apply 42 s and 1.9 GB before the sandbox's memory limit stopped it; now the
    reader refuses it by sheet row 211 (``rows.SHEET_TEXT_RATIO``), here at a test's size."""
    optional("openpyxl")
    from recursive_cleaner.errors import InputError
    from recursive_cleaner.read.parsers import iter_records

    monkeypatch.setattr(rows_module, "SHEET_TEXT_MB", 1)
    path = tmp_path / "ss.xlsx"
    _shared_string_book(path, rows=2000, cols=5, text="x" * 4000)  # 40 MB of values
    assert path.stat().st_size < 10_000
    read = 0
    with pytest.raises(InputError, match=r"ss\.xlsx: by sheet row \d+ .*SHEET_TEXT_RATIO"):
        for _ in iter_records(str(path)):
            read += 1
    assert read < 100  # 1 MB: about 50 rows of 20,000 characters


def test_a_workbook_of_ordinary_repeated_text_still_reads(tmp_path, monkeypatch):
    optional("openpyxl")
    from recursive_cleaner.read.parsers import iter_records

    monkeypatch.setattr(rows_module, "SHEET_TEXT_MB", 1)
    path = tmp_path / "ok.xlsx"
    _shared_string_book(path, rows=2000, cols=5, text="active")
    records = list(iter_records(str(path)))
    assert len(records) == 2000 and records[0] == {f"h{j}": "active" for j in range(5)}


def test_apply_names_the_bound_in_one_line(tmp_path, monkeypatch):
    optional("openpyxl")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(rows_module, "SHEET_TEXT_MB", 1)
    _shared_string_book(tmp_path / "ss.xlsx", rows=2000, cols=5, text="x" * 4000)
    _functions(tmp_path)
    result = invoke("apply", "cf.py", "ss.xlsx", "-o", "out.jsonl", "--progress", "off")
    assert result.exit_code == 1 and "SHEET_TEXT_RATIO" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "out.jsonl").exists()


# ---------------------------------------------------------------------------- 13. infinite timeouts
def test_an_infinite_sandbox_timeout_is_refused_before_any_call(tmp_path):
    """Before: ``sandbox_timeout=inf`` (a flag, or a loaded Cleaner file's options: JSON's
    ``Infinity``) was accepted and the run died at its first candidate in a raw OverflowError
    (``math.ceil(inf)`` for the child's CPU limit)."""
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": 1, "s": "A "}\n')
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(ValueError, match="sandbox_timeout must be a positive finite number"):
        DataCleaner(
            backend, str(data), instructions="trim s", sleep=lambda s: None, sandbox_timeout=1e999
        ).run()
    assert backend.calls == 0


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), 0.0])
def test_the_sandbox_and_apply_refuse_a_timeout_no_cpu_limit_comes_from(tmp_path, timeout):
    with pytest.raises(ValueError, match="positive finite number"):
        run_in_sandbox(IDENTITY, "clean_data", [{"a": 1}], timeout=timeout)
    source = tmp_path / "in.jsonl"
    source.write_text('{"a": 1}\n')
    with pytest.raises(ValueError, match="positive finite number"):
        apply_file(
            _functions(tmp_path), str(source), str(tmp_path / "o.jsonl"), timeout_per_batch=timeout
        )


def test_the_cli_refuses_an_infinite_sandbox_timeout_in_one_line(tmp_path, monkeypatch, use):
    use(FakeBackend(default=CLEAN_REPLY))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.jsonl").write_text('{"id": 1, "s": "A "}\n')
    result = invoke("generate", "d.jsonl", "-i", "trim s", "--sandbox-timeout", "inf")
    assert result.exit_code in (1, 2) and "sandbox" in result.stderr.lower(), result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------------- 14. other sheets
def test_the_records_of_a_workbooks_other_sheets_are_counted_never_lost_quietly(
    tmp_path, monkeypatch
):
    """Before: a workbook whose second sheet held 498 records: ``apply`` wrote "1 of 1
    records", exit 0 (only the first worksheet is read)."""
    openpyxl = optional("openpyxl")
    monkeypatch.chdir(tmp_path)
    book = openpyxl.Workbook()
    book.active.append(["id", "n"])
    book.active.append([1, "a"])
    more = book.create_sheet("more\u202e")
    more.append(["id", "n"])
    for i in range(2, 50):
        more.append([i, "b"])
    more.append([])
    book.create_sheet("notes").append(["a header alone is no record"])
    book.save(tmp_path / "two.xlsx")
    _functions(tmp_path)
    result = invoke("apply", "cf.py", "two.xlsx", "-o", "out.jsonl", "--progress", "off")
    assert result.exit_code == 1 and "48 input row(s)" in result.stderr, result.stderr
    assert "1 of 49 records" in result.stdout and "\u202e" not in result.stdout + result.stderr
    from recursive_cleaner.read.parsers import iter_records

    skipped = []
    assert list(iter_records("two.xlsx", on_skip=skipped.append)) == [{"id": 1, "n": "a"}]
    assert [s.line for s in skipped] == list(range(2, 50))
    assert "'more" in skipped[0].reason and "first worksheet" in skipped[0].reason


# ---------------------------------------------------------------------------- 15. child-only state
# The policy refuses both; without it, the child does not stop them (left open: see the docstring)
CHILD_ONLY_OPEN = {
    "an allowed module function's __globals__": _counter(
        "import textwrap",
        "g = textwrap.dedent.__globals__\n    g['_n'] = g.get('_n', 0) + 1",
        "textwrap.dedent.__globals__.get('_n')",
    ),
    "type.__setattr__ on an allowed module's class": _counter(
        "import string",
        "type.__setattr__(string.Template, 'idpattern', string.Template.idpattern + 'x')",
        "len(string.Template.idpattern)",
    ),
}


@POSIX
@pytest.mark.parametrize("name", sorted(CHILD_ONLY_OPEN))
def test_spellings_the_policy_refuses(name):
    assert check_code_safety(CHILD_ONLY_OPEN[name])


@BREAK("the child alone does not stop a store through __globals__ or type.__setattr__")
@POSIX
@pytest.mark.parametrize("name", sorted(CHILD_ONLY_OPEN))
def test_the_child_alone_keeps_no_state_through_globals_or_type_setattr(name):
    _no_record_sees_another(CHILD_ONLY_OPEN[name])


# ---------------------------------------------------------------------------- 16. held, pinned
HELD_INPUTS = {  # name -> (file, bytes, records read, skipped lines)
    "unterminated CSV quote": (
        "q.csv",
        b"id,n\n1,a\n2,\"b\n" + b"".join(b"%d,c\n" % i for i in range(3, 8)),
        None,
        None,
    ),
    "raw U+2028, U+0085, U+001C in a JSONL string": (
        "s.jsonl",
        '{"t": "a\u2028b\u0085c"}\n{"t": "d"}\n'.encode(),
        [{"t": "a\u2028b\u0085c"}, {"t": "d"}],
        [],
    ),
    "a 100,000-deep list in a JSONL value": (
        "d.jsonl",
        b'{"a": 1}\n{"v": ' + b"[" * 100_000 + b"]" * 100_000 + b'}\n{"a": 3}\n',
        [{"a": 1}, {"a": 3}],
        [2],
    ),
    "two objects, null, [] and a string as JSONL lines": (
        "o.jsonl",
        b'{"a": 1}{"a": 2}\nnull\n[]\n"s"\n{"a": 3}\n',
        [{"a": 3}],
        [1, 2, 3, 4],
    ),
    "two gzip members": ("c.jsonl.gz", None, [{"a": 1}, {"a": 2}], []),
}


@pytest.mark.parametrize("name", sorted(HELD_INPUTS))
def test_held_reader_attacks_lose_no_record_quietly(tmp_path, name):
    import gzip

    from recursive_cleaner.read.parsers import iter_records

    file, payload, expected, lines = HELD_INPUTS[name]
    if payload is None:
        payload = gzip.compress(b'{"a": 1}\n') + gzip.compress(b'{"a": 2}\n')
    path = tmp_path / file
    path.write_bytes(payload)
    skipped = []
    if expected is None:  # an unterminated quote: the rows it swallows are skipped, never merged
        records = list(iter_records(str(path), on_skip=skipped.append))
        assert len(records) + len(skipped) == 7 and skipped, (records, skipped)
        return
    assert list(iter_records(str(path), on_skip=skipped.append)) == expected
    assert [s.line for s in skipped] == lines


def test_a_truncated_gzip_is_one_input_error(tmp_path):
    import gzip

    from recursive_cleaner.errors import InputError
    from recursive_cleaner.read.parsers import iter_records

    data = gzip.compress(b"".join(b'{"id": %d, "t": "%s"}\n' % (i, b"x" * 40) for i in range(5000)))
    (tmp_path / "t.jsonl.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="not a readable gzip file"):
        list(iter_records(str(tmp_path / "t.jsonl.gz")))


def test_hostile_field_names_values_and_goals_stay_data_in_the_generated_module(tmp_path):
    """Field names with triple quotes, backslashes, CR LF and U+2028, enum values and goal text
    holding quotes and ``import os``: the library's own no-call functions write them as literals."""
    import ast

    f1, f2 = 'status"""\nimport os\nos.system("id")\n#', "signup\u2028date\r\nx=1"
    rows = [
        {"id": i, f1: ["Active", "ACTIVE ", "pending"][i % 3], f2: f"2020/01/0{i % 9 + 1}"}
        for i in range(30)
    ]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    goals = (
        f'{f1} is one of "active", "pending", "can\'\'\'celled\\"\n#"; lower case.\n'
        f'{f2} should be ISO dates (YYYY-MM-DD). """ \'\'\' \n import os'
    )
    DataCleaner(
        FakeBackend(default=CLEAN_REPLY),
        str(data),
        instructions=goals,
        output_path=str(tmp_path / "cf.py"),
        report_path=str(tmp_path / "r.md"),
        sleep=lambda s: None,
        chunk_size=30,
        holdout_ratio=0.0,
    ).run()
    tree = ast.parse((tmp_path / "cf.py").read_text(encoding="utf-8"))
    kinds = {type(node).__name__ for node in tree.body[1:]}
    assert kinds <= {"Import", "ImportFrom", "FunctionDef", "Assign"}, kinds
    assert check_code_safety((tmp_path / "cf.py").read_text(encoding="utf-8")) == []


def test_a_functions_result_that_is_not_a_record_fails_it_and_never_writes_it(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"a": 1}\n{"a": 2}\n')
    for body in ("return None", "return [record]", "return 'x'"):
        code = _functions(tmp_path, f"def clean_data(record):\n    {body}\n")
        result = apply_file(code, str(source), str(tmp_path / "o.jsonl"), workers=1)
        assert result.failed == 2 and result.records_out == 2, (body, result)
        assert (tmp_path / "o.jsonl").read_text() == source.read_text()
