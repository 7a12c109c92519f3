"""The parent survives any output of generated code: depth, size, NaN, bytes, huge names, escapes, a
lying child.

Each hostile output goes back through the real sandbox protocol into ``validate_function`` and
``apply_records`` (and the loop and the CLI): the only exceptions are the library's own, texts
from the child are clipped, and the parent's memory is bounded (tracemalloc: the parent's own
allocations while it handles a 20 MB output). Sizes in the fuzz tests stay small; one test
per path uses a genuinely large output.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply import apply_records
from recursive_cleaner.errors import CleanerError, clip_text
from recursive_cleaner.judge.sandbox import MAX_DEPTH, MESSAGE_CHARS
from recursive_cleaner.judge.sandbox._child_records import make_depth_check
from recursive_cleaner.judge.sandbox import SandboxResult, SandboxWorker, run_in_sandbox
from recursive_cleaner.judge.validation import validate_function, validate_function_detailed
from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the sandbox is POSIX only")

BIG = 20_000_000  # the size that took the parent to 1.2 GB before the output was bounded
# what the parent may allocate while it handles one BIG output (a 1 MB read buffer, ...)
PARENT_PEAK = 16 << 20
TEXT_CAP = MESSAGE_CHARS + 40  # a message from the child, " (line N)" and a prefix
_ESC = "\x1b]0;owned\x07\x1b[31m"

LEAVES = {  # Python expressions for the innermost value; SIZE is replaced by the example's size
    "int": "7",
    "none": "None",
    "nan": "float('nan')",
    "inf": "float('inf')",
    "-inf": "-float('inf')",
    "bytes": "b'xy' * SIZE",
    "set": "{1, 2}",
    "tuple": "(1, 2)",
    "str": "'x' * SIZE",
    "escapes": f"{_ESC!r} * SIZE",
    "big_int": "10 ** 5000",
    "nan_key": "{'NaN': 'Infinity', 'k': float('nan')}",
}


def _code(
    leaf: str, size: int, depth: int, wrapper: str, breadth: int, top: str, name: str = "fn"
) -> str:
    """A function that passes the AST policy and returns the shape described."""
    wrap = "[v]" if wrapper == "list" else "{'k': v}"
    result = {
        "dict": "{'id': record.get('id'), 'out': [v] * BREADTH}",
        "bare": "v",
        "record": "record",
    }[top]
    return textwrap.dedent(f"""\
        def {name}(record):
            v = {LEAVES[leaf].replace("SIZE", str(size))}
            for _ in range({depth}):
                v = {wrap}
            record = dict(record)
            record['extra'] = v
            return {result.replace("BREADTH", str(breadth))}
        """)


def _acceptable(leaf: str, size: int, depth: int, wrapper: str, breadth: int, top: str) -> bool:
    """Whether validation should accept the shape: JSON-able, a dict, small enough, nested at most
    MAX_DEPTH."""
    nesting = depth + (leaf in ("nan_key", "tuple")) + {"dict": 2, "record": 1, "bare": 0}[top]
    is_dict = (
        top != "bare" or (wrapper == "dict" and depth > 0) or (leaf == "nan_key" and depth == 0)
    )
    # an escape: 6 in JSON
    json_chars = size * (1 if leaf == "str" else 31) * (breadth if top == "dict" else 1)
    # validation: 64K + 4 x the input record
    too_large = leaf in ("str", "escapes") and json_chars >= 65_000
    return (
        leaf not in ("bytes", "set", "big_int")
        and is_dict
        and not too_large
        and nesting <= MAX_DEPTH
    )


SHAPES = st.tuples(
    st.sampled_from(sorted(LEAVES)),
    # 70K+: over validation's cap for these small records
    st.sampled_from([0, 1, 1000, 70_000, 300_000]),
    # 5000: past the child's recursion limit
    st.sampled_from([0, 5, MAX_DEPTH - 2, MAX_DEPTH, 150, 5000]),
    st.sampled_from(["list", "dict"]),
    st.sampled_from([1, 3]),
    st.sampled_from(["dict", "bare", "record"]),
)
RECORDS = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]
_DEEP = make_depth_check(MAX_DEPTH)


def _depth(value: object) -> int:
    """Nesting of lists and dicts, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            stack.extend(
                (child, level + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def _finite(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


def _clean(text: str | None, cap: int) -> None:
    assert text is None or (
        isinstance(text, str) and len(text) <= cap and "\x1b" not in text and "\x07" not in text
    )


# ---------------------------------------------------------------------------- the fuzz tests


@settings(max_examples=15, database=None)
@given(shape=SHAPES)
def test_validate_function_turns_any_output_into_a_verdict(shape):
    report = validate_function_detailed(_code(*shape), RECORDS, "fn")
    _clean(report.error, 2000)
    for text in report.errors:
        _clean(text, TEXT_CAP)
    for output in report.outputs:
        assert _depth(output) <= MAX_DEPTH and _finite(output)
    assert report.ok is _acceptable(*shape), (shape, report.error)
    assert validate_function(_code(*shape), RECORDS, "fn")[0] is report.ok


@settings(max_examples=8, database=None)
@given(shape=SHAPES)
def test_apply_records_turns_any_output_into_records_or_failed_records(shape):
    with tempfile.TemporaryDirectory() as folder:
        _apply_shape(shape, Path(folder) / "rejects.jsonl")


def _apply_shape(shape: tuple, rejects: Path) -> None:
    code = _code(*shape, name="clean_data")
    try:
        out = list(
            apply_records(code, RECORDS, workers=1, reject_path=str(rejects), cross_row=False)
        )
    except CleanerError as exc:  # a failure of the run as a whole is the library's own error
        _clean(str(exc), 2000)
        return
    for record in out:
        assert isinstance(record, dict) and _depth(record) <= MAX_DEPTH and _finite(record)
    for line in rejects.read_text().splitlines():
        entry = json.loads(line)
        _clean(entry["error"], TEXT_CAP)
    assert len(out) + len(rejects.read_text().splitlines()) == len(RECORDS)


# ---------------------------------------------------------------------------- a lying child
# The parent must not trust the child either: a process that speaks the protocol with any bytes.

_LIAR = textwrap.dedent("""\
    import os, sys, json
    size = int.from_bytes(os.read(0, 8), "big")
    data = b""
    while len(data) < size:
        data += os.read(0, size - len(data))
    nonce = json.loads(data)["nonce"].encode()
    with open(sys.argv[1], "rb") as f:
        script = f.read().replace(b"NONCE", nonce)
    os.write(1, script)
    os.read(0, 1 << 16)  # wait for the batch (or the end of input)
""")


class _LyingWorker(SandboxWorker):
    """A SandboxWorker whose child writes ``script`` (NONCE replaced by the worker's nonce) and
    nothing else."""

    def __init__(self, script: bytes) -> None:
        super().__init__("", "fn", max_reply_mb=1)
        self._script = script

    def _command(self):
        # removed once the child started, as the sandbox does
        self._workdir = tempfile.mkdtemp(prefix="rc-liar-")
        # kept until close(): the child reads it
        self._script_dir = tempfile.mkdtemp(prefix="rc-liar-script-")
        path = os.path.join(self._script_dir, "script")
        with open(path, "wb") as f:
            f.write(self._script)
        return [sys.executable, "-c", _LIAR, path], self._workdir, {}

    def close(self, *args, **kwargs):
        try:
            return super().close(*args, **kwargs)
        finally:
            shutil.rmtree(getattr(self, "_script_dir", ""), ignore_errors=True)


def _frame(head: object, payload: bytes) -> bytes:
    return b"\nR NONCE " + json.dumps(head).encode() + b"\n" + payload + b"\nE NONCE\n"


PAYLOADS = st.one_of(
    st.just(b"[" * 5000 + b"]" * 5000),
    st.just(b'{"a": NaN}'),
    st.just(b'{"a": -Infinity}'),
    st.just(b"not json"),
    st.just(b'{"a": "' + b"x" * 3000 + b'"}'),
    st.binary(max_size=200),
    st.builds(lambda d: b'{"a": ' + b"[" * d + b"]" * d + b"}", st.integers(0, 300)),
)
HEADS = st.fixed_dictionaries(
    {
        "n": st.one_of(st.integers(-2, 3), st.just("1"), st.none()),
        "size": st.one_of(st.just(None), st.integers(-1, 10)),  # None: the payload's true size
        "failed": st.one_of(
            st.just([]),
            st.lists(
                st.lists(st.one_of(st.integers(-1, 5), st.text(max_size=20)), max_size=4),
                max_size=3,
            ),
        ),
        "skipped": st.one_of(st.just([]), st.lists(st.integers(-1, 5), max_size=3)),
        "error": st.one_of(st.none(), st.text(max_size=50), st.integers()),
    }
)
EXTRAS = st.lists(
    st.sampled_from(
        [
            b"V" + (_ESC + "x" * 3000).encode().hex().encode() + b"\n",
            b"V zz\n",
            b"garbage line\n",
            b"A\n",
            b"\n",
        ]
    ),
    max_size=4,
)


LOADS = st.sampled_from(
    [b'{"error": null}'] * 3
    + [
        b'{"error": "' + _ESC.encode() + b'"}',
        b"[1]",
        b'{"error": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    ]
)


@settings(max_examples=30, database=None)
@given(HEADS, PAYLOADS, st.lists(st.sampled_from([b"A\n", b"\n"]), max_size=2), LOADS, EXTRAS)
def test_a_child_that_breaks_the_protocol_gets_a_result_never_an_exception(
    head, payload, before, loaded, extras
):
    head = dict(head)
    if head["size"] is None:
        head["size"] = len(payload)
    script = (
        b"A\n"
        + b"".join(before)
        + b"L NONCE "
        + loaded
        + b"\n"
        + b"".join(extras)
        + _frame(head, payload)
    )
    with _LyingWorker(script) as worker:
        start = worker.start(timeout=20)
        result = worker.run_batch([{"a": 1}], timeout=20) if start.ok else None
    _clean(start.error, TEXT_CAP + 40)
    for text in start.violations:
        _clean(text, TEXT_CAP)
    if result is not None:
        assert isinstance(result, SandboxResult)
        _clean(result.error, TEXT_CAP + 40)
        for text in result.errors + result.violations:
            _clean(text, TEXT_CAP + 40)
        assert (
            len(result.outputs) == 1
            and _depth(result.outputs[0]) <= MAX_DEPTH
            and _finite(result.outputs[0])
        )


@pytest.mark.parametrize(
    "payload, verdict",
    [
        (b'{"a": 2}', None),
        (b'{"a": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}", "malformed"),  # one level too deep
        (b'{"a": NaN}', "malformed"),
        (b'{"a": "NaN \\" Infinity"}', None),  # the words inside a string are text
    ],
)
def test_the_fake_child_speaks_the_protocol_and_each_check_decides(payload, verdict):
    script = b'A\nL NONCE {"error": null}\n' + _frame(
        {"n": 1, "size": len(payload), "failed": [], "skipped": [], "error": None}, payload
    )
    with _LyingWorker(script) as worker:
        assert worker.start(timeout=20).ok
        result = worker.run_batch([{"a": 1}], timeout=20)
    if verdict is None:
        assert result.ok and result.outputs == [json.loads(payload)]
    else:
        assert not result.ok and verdict in result.error and result.outputs == [None]


def _peak(run) -> tuple[object, int]:
    """run()'s result and the most the parent's Python allocations grew while it ran."""
    tracemalloc.start()
    try:
        return run(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_lying_child_sending_an_endless_line_is_stopped_reading_a_bounded_amount():
    script = b"A\nV" + b"41" * BIG  # 40 MB without a newline
    worker = _LyingWorker(script)
    result, peak = _peak(lambda: worker.start(timeout=30))
    worker.close(kill=True)
    assert not result.ok and "line over" in result.error
    assert peak < PARENT_PEAK


def test_a_lying_child_announcing_a_huge_reply_is_stopped_before_it_is_read():
    with _LyingWorker(
        b'A\nL NONCE {"error": null}\n'
        + _frame({"n": 1, "size": 1 << 40, "failed": [], "skipped": [], "error": None}, b"")
    ) as worker:
        assert worker.start(timeout=20).ok
        result = worker.run_batch([{"a": 1}], timeout=20)
    assert not result.ok and "output exceeded 1 MB" in result.error


# ---------------------------------------------------------------------------- genuinely large
# outputs

HUGE_NAMES = {
    "import": f"def fn(record):\n    __import__({_ESC!r} + 'x' * {BIG})\n",
    "audit event": (
        f"import typing\ndef fn(record):\n    typing.sys.audit({_ESC!r} + 'e' * {BIG})\n"
    ),
    "exception": (
        f"def fn(record):\n    raise type('E' * {BIG}, (Exception,), {{}})({_ESC!r} + 'm' * "
        f"{BIG})\n"
    ),
}


@pytest.mark.parametrize("kind", sorted(HUGE_NAMES))
def test_a_20_mb_name_reaches_the_parent_clipped(kind):
    result, peak = _peak(lambda: run_in_sandbox(HUGE_NAMES[kind], "fn", [{"a": 1}], timeout=30))
    texts = [result.error, *result.errors, *result.violations]
    assert any(texts)
    for text in texts:
        _clean(text, TEXT_CAP + 40)
    assert peak < PARENT_PEAK


def test_a_20_mb_output_is_a_rejection_in_validation_and_a_failed_record_in_apply(tmp_path):
    code = (
        f"def clean_data(record):\n    record = dict(record)\n    record['x'] = 'x' * {BIG}\n    "
        "return record\n"
    )
    (ok, error), peak = _peak(lambda: validate_function(code, RECORDS, "clean_data"))
    assert not ok and "too large" in error and len(error) < 2000
    assert peak < PARENT_PEAK
    rejects = tmp_path / "rejects.jsonl"
    out, peak = _peak(
        lambda: list(
            apply_records(code, RECORDS, workers=1, reject_path=str(rejects), cross_row=False)
        )
    )
    assert out == []  # both records failed: over the 16M-character cap, so never sent
    assert [json.loads(line)["record"] for line in rejects.read_text().splitlines()] == RECORDS
    assert "too large" in rejects.read_text()
    assert peak < PARENT_PEAK


def test_output_nested_5000_deep_after_raising_the_recursion_limit_is_rejected_not_raised(tmp_path):
    code = (
        "import typing\ndef clean_data(record):\n    typing.sys.setrecursionlimit(100000)\n    v = "
        "1\n"
        "    for _ in range(5000):\n        v = [v]\n"
        "    record = dict(record)\n    record['x'] = v\n    return record\n"
    )
    result = run_in_sandbox(code, "clean_data", RECORDS)
    if result.ok:
        assert all("nests lists/dicts more than 100 levels" in e for e in result.errors)
    else:  # a sandbox that refuses typing.sys refuses it as an operation
        assert result.violations and isinstance(result.error, str)
    ok, error = validate_function(code, RECORDS, "clean_data")
    assert not ok and isinstance(error, str)
    try:
        out = list(apply_records(code, RECORDS, workers=1, cross_row=False))
    except CleanerError:  # a policy that refuses typing.sys refuses the whole file
        return
    assert out == RECORDS  # failed records are written unchanged


def test_nan_and_infinity_are_written_as_null_and_the_output_is_valid_json(tmp_path):
    code = (
        "def clean_data(record):\n    record = dict(record)\n"
        "    record['x'] = [float('nan'), float('inf'), -float('inf'), 'NaN']\n    return record\n"
    )
    report = validate_function_detailed(code, RECORDS, "clean_data")
    assert report.ok and report.outputs[0]["x"] == [None, None, None, "NaN"]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text('{"id": 1, "v": NaN}\n{"id": 2, "v": 1}\n')
    from recursive_cleaner.apply import apply_file

    failing = (
        "def clean_data(record):\n    if record['id'] == 1:\n        raise ValueError('no')\n    "
        "return record\n"
    )
    for source in (code, failing):
        functions = tmp_path / "cf.py"
        functions.write_text(source)
        apply_file(str(functions), str(src), str(out), workers=1, cross_row=False)
        lines = out.read_text().splitlines()
        assert [
            json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in the output"))
            for line in lines
        ]
        # the input's NaN: null, whether cleaned or written unchanged
        assert json.loads(lines[0])["v"] is None


# ---------------------------------------------------------------------------- the loop and the CLI


def test_the_loop_quotes_huge_refusals_and_outputs_clipped_in_prompts_and_state(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": i, "name": f"n{i}"}) + "\n" for i in range(4)))
    hostile = [
        make_reply(
            "big_refusal",
            "import typing\ndef big_refusal(record):\n"
            f"    typing.sys.audit({_ESC!r} + 'e' * {BIG})\n    return record",
        ),
        make_reply(
            "deep_output",
            "def deep_output(record):\n    v = 1\n    for _ in range(5000):\n        v = [v]\n"
            "    return dict(record, name=v)",
        ),
        make_reply(
            "huge_exception",
            f"def huge_exception(record):\n    raise ValueError({_ESC!r} + 'm' * {BIG})",
        ),
    ]
    backend = FakeBackend(hostile, default=CLEAN_REPLY)
    events: list = []
    cleaner = DataCleaner(
        backend,
        str(data),
        instructions="Names in Title Case.",  # a target: the open pass is asked (issue 42)
        chunk_size=4,
        holdout_ratio=0.0,
        profile_fields=False,
        output_path=str(tmp_path / "cf.py"),
        sleep=lambda s: None,
        on_progress=events.append,
        state_file=str(tmp_path / "state.json"),
    )
    result = cleaner.run()
    assert result.functions == []
    assert len(result.rejected) >= 3 and all(len(problem) <= 2000 for _, problem in result.rejected)
    assert max(map(len, backend.history)) < 100_000  # was 31 MB and 63 MB
    assert (tmp_path / "state.json").stat().st_size < 100_000  # was 63 MB
    assert not any("\x1b" in prompt for prompt in backend.history)
    for event in events:
        _clean(event.get("error"), 2000)


def test_the_cli_error_line_holds_no_escape_sequence(tmp_path):
    from recursive_cleaner.ui.cli import cli

    functions = tmp_path / "cf.py"
    functions.write_text(
        f"raise ValueError({_ESC!r} + 'x' * 100000)\ndef clean_data(record):\n    return record\n"
    )
    data = tmp_path / "d.jsonl"
    data.write_text('{"a": 1}\n')
    run = CliRunner().invoke(
        cli,
        [
            "apply",
            str(functions),
            str(data),
            "-o",
            str(tmp_path / "o.jsonl"),
            "--trusted",
            "--workers",
            "1",
        ],
    )
    assert run.exit_code == 1
    assert "\x1b" not in run.output and "\x07" not in run.output and len(run.output) < 2100


def test_clip_text_cuts_and_removes_terminal_controls():
    assert clip_text("x" * 1000, 10) == "x" * 9 + "\u2026"
    assert clip_text("a\x1b]0;title\x07b\x1b[2Jc\x9b31md\re\u202ef\tg\nh") == "abcdef\tg\nh"
    assert clip_text(b"bytes") == "b'bytes'"
