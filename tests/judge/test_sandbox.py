"""The sandbox: hostile code is refused or killed, the test process is untouched, honest code works.

Hostile snippets run twice where it makes sense: through validate_function (the AST
policy rejects them before anything runs) and straight through run_in_sandbox, where
no AST policy applies, so the child's own defences are proven on their own.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# where the worker reads its paths
from recursive_cleaner.judge.sandbox import _worker as sandbox_module
from recursive_cleaner.errors import SandboxError
from recursive_cleaner.judge.sandbox import SandboxResult, SandboxWorker, run_in_sandbox
from recursive_cleaner.judge.validation import validate_function
from tests.fakes import FakeChildClock

# A module-global gadget chain: object -> os._wrap_close -> the os module's globals.
OS_GLOBALS = (
    "[c for c in ().__class__.__mro__[1].__subclasses__() if c.__name__ == '_wrap_close'][0]"
    ".__init__.__globals__"
)
REAL_BUILTINS = (
    "[c for c in [].__class__.__base__.__subclasses__() if c.__name__ == 'catch_warnings'][0]"
    ".__init__.__globals__['__builtins__']"
)


def run(code: str, records: list | None = None, **kwargs) -> SandboxResult:
    """run_in_sandbox on `clean`, asserting the test process's cwd, env and modules are
    unchanged."""
    before = (os.getcwd(), dict(os.environ), set(sys.modules))
    result = run_in_sandbox(code, "clean", [{"a": 1}] if records is None else records, **kwargs)
    assert (os.getcwd(), dict(os.environ), set(sys.modules)) == before
    assert len(result.outputs) == len(result.errors) == (1 if records is None else len(records))
    return result


def refused(result: SandboxResult, fragment: str) -> None:
    assert not result.ok
    assert any(fragment in v for v in result.violations), result.violations
    assert result.error, result  # "refused operation: ..." unless a load error came first


@pytest.fixture
def shared_dir():
    """A world-writable directory, so only the sandbox (not file permissions) stands in the way."""
    path = Path(tempfile.mkdtemp(prefix="rc-sandbox-test-"))
    path.chmod(0o777)
    victim = path / "victim.txt"
    victim.write_text("precious")
    victim.chmod(0o666)
    yield path
    shutil.rmtree(path, ignore_errors=True)


# --- files ------------------------------------------------------------------------


def test_reading_etc_passwd_is_refused_and_recorded():
    result = run("def clean(r):\n    return {'x': open('/etc/passwd').read()}")
    refused(result, "open('/etc/passwd', 'r')")
    assert result.outputs == [None]
    assert result.errors[0].startswith("PermissionError") and result.errors[0].endswith("(line 2)")


def test_reading_a_tmp_file_is_refused(shared_dir):
    victim = shared_dir / "victim.txt"
    result = run(f"def clean(r):\n    return {{'x': open({str(victim)!r}).read()}}")
    refused(result, str(victim))
    assert "precious" not in repr(result)


def test_reading_through_the_real_builtins_is_refused():
    result = run(
        f"def clean(r):\n    return {{'x': {REAL_BUILTINS}['open']('/etc/passwd').read()}}"
    )
    refused(result, "open('/etc/passwd', 'r')")


def test_writing_a_file_is_refused(shared_dir):
    target = shared_dir / "new.txt"
    result = run(f"def clean(r):\n    open({str(target)!r}, 'w').write('x')\n    return r")
    refused(result, "open(")
    assert not target.exists()


def test_deleting_a_file_is_refused(shared_dir):
    victim = shared_dir / "victim.txt"
    refused(
        run(f"import os\ndef clean(r):\n    os.remove({str(victim)!r})\n    return r"), "import os"
    )
    refused(
        run(f"def clean(r):\n    {OS_GLOBALS}['remove']({str(victim)!r})\n    return r"),
        "os.remove(",
    )
    refused(
        run(f"def clean(r):\n    {OS_GLOBALS}['rename']({str(victim)!r}, 'x')\n    return r"),
        "os.rename(",
    )
    assert victim.read_text() == "precious"


# --- network and processes --------------------------------------------------------


def test_opening_a_socket_is_refused():
    refused(run("import socket\ndef clean(r):\n    return r"), "import socket")
    refused(
        run(f"def clean(r):\n    {REAL_BUILTINS}['__import__']('socket').socket()\n    return r"),
        "import socket",
    )


def test_spawning_processes_is_refused(shared_dir):
    marker = shared_dir / "spawned"
    snippets = {
        "import subprocess": (
            "import subprocess\ndef clean(r):\n    subprocess.run(['touch', "
            f"{str(marker)!r}])\n    return r"
        ),
        "os.system(": f"def clean(r):\n    {OS_GLOBALS}['system']('touch {marker}')\n    return r",
        "os.posix_spawn(": (
            f"def clean(r):\n    {OS_GLOBALS}['posix_spawn']('/bin/touch', ['touch', "
            f"{str(marker)!r}], {{}})\n    return r"
        ),
        "os.execv(": (
            f"def clean(r):\n    {OS_GLOBALS}['execv']('/bin/touch', ['touch', "
            f"{str(marker)!r}])\n    return r"
        ),
        "os.fork(": f"def clean(r):\n    {OS_GLOBALS}['fork']()\n    return r",
        "os.kill(": f"def clean(r):\n    {OS_GLOBALS}['kill']({os.getpid()}, 9)\n    return r",
        "import _posixsubprocess": (
            f"def clean(r):\n    {REAL_BUILTINS}['__import__']('_posixsubprocess')\n    return r"
        ),
    }
    for fragment, code in snippets.items():
        refused(run(code), fragment)
    assert not marker.exists()


def test_recreating_posix_through_imp_is_refused():
    code = (
        f"def clean(r):\n    {OS_GLOBALS}['sys'].modules['_imp'].create_builtin(None)\n    return r"
    )
    refused(run(code), "_imp.create_builtin(")


# --- introspection escapes --------------------------------------------------------


@pytest.mark.parametrize(
    "expr, fragment",
    [
        ("__builtins__['exec']('x = 1')", "compile("),
        (f"{REAL_BUILTINS}['exec']('x = 1')", "compile("),
        (f"{REAL_BUILTINS}['eval']('1 + 1')", "compile("),
        (f"{OS_GLOBALS}['sys']._getframe()", "sys._getframe"),
        (f"{OS_GLOBALS}['sys'].settrace(None)", "sys.settrace"),
        (f"{OS_GLOBALS}['sys'].addaudithook(print)", "sys.addaudithook"),
        (f"{REAL_BUILTINS}['__import__']('gc').get_objects()", "gc.get_objects"),
        ("(lambda: 0).__code__", "'__code__'"),
        (f"{REAL_BUILTINS}['__import__']('ctypes')", "import ctypes"),
        (f"{REAL_BUILTINS}['input']()", "builtins.input"),
        (f"{OS_GLOBALS}['write'](3, b'R forged')", "os.write("),
        (
            f"{OS_GLOBALS}['sys'].modules['types'].CodeType(0, 0, 0, 0, 0, 0, b'', (), (), (), '', "
            "'', '', 0, b'', b'')",
            "code.__new__",
        ),
        (f"{REAL_BUILTINS}['breakpoint']()", "builtins.breakpoint"),
        (f"{OS_GLOBALS}['sys'].modules['_signal'].signal(14, 0)", "_signal.signal("),
    ],
)
def test_escape_gadgets_are_refused(expr, fragment):
    refused(run(f"def clean(r):\n    {expr}\n    return r"), fragment)


def test_frames_stay_out_of_reach():
    code = (
        "def clean(r):\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        "
        "return {'f': repr(e.__traceback__.tb_frame.f_back.f_locals)}"
    )
    refused(run(code), "'tb_frame'")
    gen = "def clean(r):\n    g = (x for x in [1])\n    return {'f': repr(g.gi_frame)}"
    refused(run(gen), "'gi_frame'")


def test_a_caught_refusal_is_still_reported():
    code = (
        "def clean(r):\n    try:\n        open('/etc/passwd')\n    except Exception:\n        "
        "pass\n    return r"
    )
    result = run(code)
    refused(result, "/etc/passwd")
    assert result.outputs == [{"a": 1}] and result.errors == [None]


# --- limits -----------------------------------------------------------------------


SPIN = "def clean(r):\n    while True:\n        pass"


def test_an_endless_loop_is_killed_at_the_timeout():
    """A child that never answers: the worker waits once, for the whole timeout on its clock, and
    kills it. The clock is a fake one (no real second passes); bench/sandbox_timing.py times it."""
    clock = FakeChildClock()
    with SandboxWorker(SPIN, "clean", clock=clock, wait=clock.wait) as worker:
        assert worker.start().ok and clock() == 0.0
        clock.silent, loading = True, len(clock.waits)  # from now on the child only spins
        result = worker.run_batch([{"a": 1}], timeout=1.0)
        assert worker.closed  # killed at the deadline
    assert not result.ok
    assert result.error == "timed out after 1.0s"
    assert clock.waits[loading:] == [1.0] and clock() == result.duration_s == 1.0


def test_allocating_ten_gigabytes_hits_the_memory_limit():
    result = run("def clean(r):\n    return {'x': 'x' * 10**10}", memory_mb=256)
    assert not result.ok
    assert result.error == "memory limit 256 MB exceeded"
    assert result.errors[0].startswith("MemoryError")


def test_cpu_limit_stops_a_busy_child():
    """The CPU limit, not the timeout, ends a spinning child: on the worker's clock no time passes
    (each wait ends when the child writes or ends), so no timeout can have fired."""
    clock = FakeChildClock()
    with SandboxWorker(SPIN, "clean", cpu_seconds=1, clock=clock, wait=clock.wait) as worker:
        assert worker.start().ok
        result = worker.run_batch([{"a": 1}], timeout=5.0)
    assert not result.ok
    assert result.error in ("CPU time limit of 1s exceeded", "killed by signal 9 (SIGKILL)")
    assert clock() == result.duration_s == 0.0


# --- protocol and per-record results ----------------------------------------------


def test_print_noise_does_not_corrupt_the_protocol():
    code = (
        "def clean(r):\n    print('R 0 {}')\n    print('noise ' * 1000)\n    return {'a': r['a'] + "
        "1}"
    )
    result = run(code, [{"a": 1}, {"a": 2}])
    assert result.ok and result.outputs == [{"a": 2}, {"a": 3}] and result.violations == []


def test_a_non_json_return_value_is_an_error_for_that_record():
    result = run("def clean(r):\n    return {1, 2} if r['a'] == 1 else r", [{"a": 1}, {"a": 2}])
    assert result.ok
    assert result.outputs == [None, {"a": 2}]
    assert result.errors[0] == (
        "TypeError: the return value is not JSON-serialisable (set): Object of type set is not "
        "JSON serializable"
    )


def test_raising_on_one_record_only():
    result = run("def clean(r):\n    return {'a': 1 / r['a']}", [{"a": 1}, {"a": 0}, {"a": 4}])
    assert result.ok
    assert result.outputs == [{"a": 1.0}, None, {"a": 0.25}]
    assert result.errors == [None, "ZeroDivisionError: division by zero (line 2)", None]


def test_load_errors_fail_the_run():
    assert run("def clean(r)\n    return r").error.startswith("SyntaxError")
    assert (
        run("X = 1 / 0\ndef clean(r):\n    return r").error
        == "ZeroDivisionError: division by zero (line 1)"
    )
    assert "does not define a function named 'clean'" in run("def other(r):\n    return r").error


def test_records_are_deep_copies():
    records = [{"tags": ["a"]}, {"tags": ["b"]}]
    result = run(
        "SEEN = []\ndef clean(r):\n    r['tags'].append('x')\n    SEEN.append(1)\n    return {'n': "
        "len(SEEN)}",
        records,
    )
    assert records == [{"tags": ["a"]}, {"tags": ["b"]}]
    # module-level state is put back before each record (issue 43): no record sees an earlier one
    assert result.outputs == [{"n": 1}, {"n": 1}]


def test_the_child_has_an_empty_environment():
    result = run(f"def clean(r):\n    return dict({OS_GLOBALS}['environ'])")
    assert result.ok
    assert set(result.outputs[0]) <= {"LC_CTYPE"}  # set by the interpreter's C-locale coercion


def test_working_directories_are_removed(monkeypatch):
    made = []
    real_mkdtemp = tempfile.mkdtemp

    def spy(*args, **kwargs):
        made.append(real_mkdtemp(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", spy)
    assert run("def clean(r):\n    return r").ok
    assert made and not any(os.path.exists(p) for p in made)


# --- honest code ------------------------------------------------------------------

PHONE = '''
import re

DIGITS = re.compile(r"\\D")


def clean(record):
    """Normalise US phone numbers to 555-123-4567."""
    digits = DIGITS.sub("", record.get("phone") or "")
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) == 10:
        record["phone"] = f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"
    return record
'''


def test_a_phone_normaliser_using_re_works():
    records = [
        {"phone": "(555) 123-4567"},
        {"phone": "+1 555.987.6543"},
        {"phone": "n/a"},
        {"phone": None},
    ]
    result = run(PHONE, records)
    assert result.ok and result.violations == [] and result.errors == [None] * 4
    assert [o["phone"] for o in result.outputs] == ["555-123-4567", "555-987-6543", "n/a", None]
    assert validate_function(PHONE, records, "clean") == (True, None)


def test_datetime_strptime_works_in_the_child():
    code = (
        "from datetime import datetime\ndef clean(r):\n    return {'d': datetime.strptime(r['d'], "
        "'%d/%m/%Y').date().isoformat()}"
    )
    result = run(code, [{"d": "31/12/1999"}])
    assert result.ok and result.outputs == [{"d": "1999-12-31"}]


def test_text_records():
    result = run_in_sandbox(
        "def clean(t):\n    return ' '.join(t.split())", "clean", ["  a   b ", "\u00e9\u00e9  x"]
    )
    assert result.ok and result.outputs == ["a b", "\u00e9\u00e9 x"]


def test_one_child_runs_a_whole_batch(monkeypatch):
    """What a run costs is one child, whatever the number of records (bench/sandbox_timing.py
    times the spawn): fifty records, one process started."""
    started = []
    popen = subprocess.Popen

    def counted(*args, **kwargs):
        started.append(args[0])
        return popen(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", counted)
    records = [{"phone": f"555 000 {i:04d}"} for i in range(50)]
    result = run(PHONE, records)
    assert result.ok and result.errors == [None] * 50
    assert [o["phone"] for o in result.outputs] == [f"555-000-{i:04d}" for i in range(50)]
    assert len(started) == 1 and started[0][-1].endswith("_child.py")


# --- the AST policy rejects the same snippets before anything runs ------------------


@pytest.mark.parametrize(
    "code, fragment",
    [
        ("def clean(r):\n    return {'x': open('/etc/passwd').read()}", "`open` is not allowed"),
        ("import socket\ndef clean(r):\n    return r", "import of 'socket'"),
        ("import subprocess\ndef clean(r):\n    return r", "import of 'subprocess'"),
        ("import os\ndef clean(r):\n    os.system('true')\n    return r", "import of 'os'"),
        ("import ctypes\ndef clean(r):\n    return r", "import of 'ctypes'"),
        (
            "def clean(r):\n    ().__class__.__mro__[1].__subclasses__()\n    return r",
            "`.__class__`",
        ),
        ("def clean(r):\n    __builtins__['exec']('1')\n    return r", "`__builtins__`"),
        (
            "def clean(r):\n    [].__class__.__base__.__subclasses__()\n    return r",
            "double-underscore",
        ),
    ],
)
def test_validate_function_rejects_hostile_code_statically(code, fragment, monkeypatch):
    def no_spawn(*args, **kwargs):
        raise AssertionError("the AST policy should have stopped this before the sandbox")

    monkeypatch.setattr("recursive_cleaner.judge.validation.run_in_sandbox", no_spawn)
    ok, message = validate_function(code, [{"a": 1}], "clean")
    assert not ok and fragment in message and "safety policy" in message


def test_validate_function_reports_limits():
    ok, message = validate_function(
        "def clean(r):\n    while True:\n        pass", [{"a": 1}], "clean", timeout=1.0
    )
    assert not ok and "longer than 1.0s" in message
    ok, message = validate_function(
        "def clean(r):\n    return {'x': 'x' * 10**10}", [{"a": 1}], "clean", memory_mb=256
    )
    assert not ok and "memory limit 256 MB" in message


# --- infrastructure failures --------------------------------------------------------


def test_a_missing_interpreter_raises_sandbox_error(monkeypatch):
    monkeypatch.setattr(sys, "executable", "/nonexistent/python3")
    with pytest.raises(SandboxError, match="cannot start"):
        run_in_sandbox("def clean(r):\n    return r", "clean", [{}])


def test_a_child_that_dies_before_arming_raises_sandbox_error(monkeypatch, tmp_path):
    broken = tmp_path / "child.py"
    broken.write_text("raise SystemExit('boom')\n")
    broken.chmod(broken.stat().st_mode | stat.S_IROTH)
    monkeypatch.setattr(sandbox_module, "CHILD_PATH", broken)
    with pytest.raises(SandboxError, match="boom"):
        run_in_sandbox("def clean(r):\n    return r", "clean", [{}])


def test_bad_arguments_are_caller_errors():
    with pytest.raises(TypeError, match="record 1"):
        run_in_sandbox("def clean(r):\n    return r", "clean", [{}, {"x": object()}])
    with pytest.raises(ValueError):
        run_in_sandbox("def clean(r):\n    return r", "clean", [{}], memory_mb=1)
