"""Prompt layout (static prefix first, chunk last) and the docstring registry."""

from __future__ import annotations

from recursive_cleaner.model.context import NO_FUNCTIONS, build_context
from recursive_cleaner.model.prompt import (
    MIN_VARIED,
    build_prompt,
    format_chunk,
    format_feedback,
    varied_records,
)


def _prompt(context="(none)", chunk='{"a": 1}', feedback="", schema=""):
    return build_prompt("Phones to E.164.", context, chunk, schema=schema, feedback=feedback)


def test_static_prefix_is_identical_across_chunks_and_context():
    p1 = _prompt(context=NO_FUNCTIONS, chunk='{"a": 1}')
    p2 = _prompt(context="## f\ndoc", chunk='{"b": 2}', feedback=format_feedback(["boom"]))
    marker = "=== EXISTING FUNCTIONS"
    assert p1.index(marker) == p2.index(marker)
    assert p1[: p1.index(marker)] == p2[: p2.index(marker)]


def test_order_goals_schema_context_chunk_feedback():
    p = _prompt(
        context="## f\ndoc", schema="Fields detected:\n- a (int)", feedback=format_feedback(["bad"])
    )
    order = [
        p.index(s)
        for s in (
            "USER'S CLEANING GOALS",
            "DATA SCHEMA",
            "=== EXISTING FUNCTIONS",
            "=== DATA (",
            "REJECTED",
        )
    ]
    assert order == sorted(order)
    assert p.rstrip().endswith("reply.")


def test_prompt_states_the_function_contract_and_no_alternatives_as_example():
    p = _prompt()
    assert "takes ONE record (a dict" in p and "returns the cleaned" in p
    assert "clean|needs_more_work" not in p and "true|false" not in p
    text = build_prompt("x", "", "some text", mode="text")
    assert "(a str)" in text and "def fix_phone(text)" in text


def test_format_chunk_jsonl_and_text():
    assert format_chunk([{"a": "é"}, {"b": 1}]) == '{"a": "é"}\n{"b": 1}'
    assert format_chunk(["raw text"], mode="text") == "raw text"


def test_feedback_keeps_last_three():
    fb = format_feedback([f"e{i}" for i in range(5)])
    assert "e4" in fb and "e2" in fb and "e1" not in fb
    assert format_feedback([]) == ""


def _fn(i, doc_len=10):
    return {"name": f"f{i}", "docstring": "d" * doc_len, "code": ""}


def test_context_empty():
    assert build_context([]) == NO_FUNCTIONS


def test_context_keeps_most_recent_within_budget_oldest_first():
    funcs = [_fn(i, 50) for i in range(10)]
    ctx = build_context(funcs, max_chars=200)
    assert "## f9" in ctx and "## f8" in ctx and "## f0" not in ctx
    assert ctx.index("## f8") < ctx.index("## f9")
    assert len(ctx) <= 200


def test_context_too_small_for_any_entry():
    assert build_context([_fn(1, 500)], max_chars=50) == NO_FUNCTIONS


def test_format_chunk_fits_a_character_budget():
    records = [{"i": i, "text": "x" * 40} for i in range(100)]
    shown = format_chunk(records, max_chars=500)
    assert len(shown) < 600 and '"i": 0' in shown
    assert shown.endswith("more records like these not shown)")
    # at least one, cut
    assert format_chunk([{"big": "y" * 1000}], max_chars=100).startswith('{"big"')
    assert "not shown" not in format_chunk(records[:2], max_chars=500)


def test_varied_view_shows_one_record_per_new_value_form_and_counts_the_rest():
    records = [{"id": i, "oz": f"{i}.0", "city": "Boston"} for i in range(1, 41)]
    records[30] = {"id": 31, "oz": "12.0 oz. Alumi-Tek", "city": "San Francisco CA"}
    shown = format_chunk(records, view="varied")
    lines = [line for line in shown.splitlines() if line.startswith("{")]
    assert '"oz": "12.0 oz. Alumi-Tek"' in shown  # the odd one out, far down the chunk, is shown
    # the first record, topped up with the next ones, and the odd one
    assert len(lines) == MIN_VARIED
    assert shown.endswith(
        f"({40 - MIN_VARIED} more records whose values all have forms shown above)"
    )
    assert format_chunk(records) == format_chunk(records, view="all")  # all: every record that fits
    assert len(format_chunk(records, view="all").splitlines()) == 40


def test_varied_records_keep_their_order_and_word_count_is_not_a_new_form():
    records = [
        {"name": "Pale Ale"},
        {"name": "Sierra Nevada Pale Ale"},
        {"name": "IPA 2"},
        {"name": None},
    ]
    assert varied_records(records, least=0) == [records[0], records[2], records[3]]
    assert varied_records(records[:2], least=5) == records[:2]
    assert format_chunk(["a text"], mode="text", view="varied") == "a text"


# --------------------------------------------------------------------------- rich context
from recursive_cleaner.model.context import REUSE_GUIDANCE, build_rich_context  # noqa: E402


def _coded(name, body_lines=3):
    body = "\n".join(f"    x{i} = {i}" for i in range(body_lines))
    return {
        "name": name,
        "docstring": f"Doc of {name}.",
        "code": f'def {name}(record):\n    """Doc of {name}."""\n{body}\n    return record',
    }


def test_rich_context_shows_code_and_reuse_guidance():
    text = build_rich_context([_coded("fix_a"), _coded("fix_b")])
    assert text.startswith(REUSE_GUIDANCE)
    assert "def fix_a(record):" in text and "def fix_b(record):" in text
    assert text.index("fix_a") < text.index("fix_b")  # oldest first


def test_rich_context_truncates_long_code():
    text = build_rich_context([_coded("long_one", body_lines=200)], max_code_chars=300)
    assert "# ... (truncated)" in text and "x199" not in text and "def long_one" in text


def test_rich_context_degrades_to_docstrings_then_drops_old_functions():
    funcs = [_coded(f"f{i}", body_lines=20) for i in range(6)]
    text = build_rich_context(funcs, max_chars=1200)
    assert "def f5(record):" in text  # the newest keeps its code
    assert "## f1\nDoc of f1." in text or "f1" not in text
    assert "def f0(record):" not in text  # the oldest lost its code (or dropped out)
    assert len(text) <= 1200
    tiny = build_rich_context(funcs, max_chars=len(REUSE_GUIDANCE) + 40)
    assert "## f5\nDoc of f5." in tiny and "def f5" not in tiny


def test_rich_context_empty():
    assert build_rich_context([]) == build_context([])


def test_every_call_of_a_scripted_run_starts_with_the_same_static_prefix(tmp_path):
    """Issue 18: the server's prompt cache reuses the prefix only if it is byte-identical in every
    call.

    A run with two dirty fields, a reply that does not parse (feedback), accepted functions and
    several chunks: every prompt starts with the run's prefix, nothing that varies (chunk, field,
    offending values, feedback) is inside it, and each prompt shares with the one before it at
    least the prefix and the functions written before both.
    """
    import json
    import os
    import textwrap

    from recursive_cleaner import DataCleaner
    from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

    rows = [
        {
            "id": i,
            "email": f" User{i}@X.com" if i % 2 else f"user{i}@x.com",
            "status": ["active", "actvie", "pending"][i % 3],
        }
        for i in range(24)
    ]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fixes = {
        "status": textwrap.dedent("""\
            def fix_status(record):
                record = dict(record)
                s = str(record.get("status") or "").strip().lower()
                record["status"] = {"actvie": "active"}.get(s, s)
                return record"""),
        "email": textwrap.dedent("""\
            def fix_email(record):
                record = dict(record)
                record["email"] = str(record.get("email") or "").strip().lower()
                return record"""),
    }
    garbled = []

    def reply(prompt: str) -> str:
        task = prompt[prompt.rfind("=== TASK ===") :]
        for field, code in fixes.items():
            if f"fixes the field '{field}'" in task:
                if field == "email" and not garbled:
                    garbled.append(prompt)
                    # no block: a parse error, then feedback
                    return "I think the emails need lower-casing."
                return make_reply(f"fix_{field}", code)
        return CLEAN_REPLY

    backend = FakeBackend(reply)
    cleaner = DataCleaner(
        backend,
        str(path),
        chunk_size=6,
        output_path=str(tmp_path / "cf.py"),
        report_path=None,
        instructions="- status is one of active, pending\n- email lower-case, no spaces",
        sleep=lambda s: None,
        holdout_ratio=0,
        schema_sample_size=2,
        hint_functions=False,
        call_every_chunk=True,  # the open passes too, though nothing is left unexplained
    )
    cleaner.run()
    prefix = cleaner.state.prefix
    assert backend.calls >= 4 and len(prefix) > 1000 and garbled
    assert all(p.startswith(prefix) for p in backend.history)
    for varying in ("User3@X.com", "FIELD TO FIX", "=== DATA (", "REJECTED", "fix_status"):
        assert varying not in prefix and any(varying in p for p in backend.history)
    for before, after in zip(backend.history, backend.history[1:]):
        shared = len(os.path.commonprefix([before, after]))
        head = before[: before.index("=== EXISTING FUNCTIONS")]
        assert shared >= len(head) >= len(prefix)
