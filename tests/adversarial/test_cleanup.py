"""Sandbox children die with their parent (SIGKILL), and SIGTERM cleans up like Ctrl-C
(docs/safety.md).

Each test runs the library in a subprocess with its own TMPDIR, finds the sandbox child through
/proc, and waits (with a deadline) for it to be gone: a zombie counts as gone, since it runs no
code and only waits for init to reap it. Linux only: /proc, and the kernel's SIGIO on a closed pipe.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import recursive_cleaner

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc; Linux only"
)

# the tree under test, also for the subprocess
ROOT = Path(recursive_cleaner.__file__).resolve().parents[1]
# seconds a poll may take at most on a loaded machine; a healthy run takes a fraction of it
WAIT = 60.0
# the hostile function sleeps in its sandbox child (the CPU limit never ends a sleep); the tests
# never wait on it:
# they signal the parent and poll, with a deadline, for the child to be gone
SLEEPY = "import time\n\ndef clean(record):\n    time.sleep(600)\n    return record\n"
# catastrophic backtracking: the re engine holds the GIL, so only the kernel's SIGIO can end this
# child
BUSY = (
    "import re\n\ndef clean(record):\n    re.match(r'(a+)+$', 'a' * 60 + 'b')\n    return record\n"
)


# ---------------------------------------------------------------------------- /proc helpers
def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # fields from the state on (the name may hold spaces)
    return text[text.rindex(")") + 2 :].split()


def alive(pid: int) -> bool:
    """True while pid runs (a zombie or a vanished pid is not alive)."""
    fields = _stat(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def sandbox_children(parent: int) -> list[int]:
    """The sandbox child processes (running _child.py) whose parent is ``parent``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) and fields[1] == str(parent):
            try:
                if b"_child.py" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sleeping(pid: int) -> bool:
    """The process sleeps in a timer (time.sleep), by its wait channel; skips the test where the
    kernel hides it."""
    try:
        wchan = Path(f"/proc/{pid}/wchan").read_text().strip()
    except FileNotFoundError:
        if Path(f"/proc/{pid}").exists():
            pytest.skip("this kernel does not show /proc/PID/wchan")
        return False
    except OSError:
        return False
    return "nanosleep" in wchan


def wait_for(predicate, what: str, proc: subprocess.Popen):
    """Poll ``predicate`` until it returns something truthy, waiting on ``proc`` between polls; fail
    after WAIT s."""
    deadline = time.monotonic() + WAIT
    while not (value := predicate()):
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        try:
            proc.wait(0.02)
        except subprocess.TimeoutExpired:
            continue
        pytest.fail(
            f"the subprocess ended ({proc.returncode}) before {what}: {proc.stderr.read()!r}"
        )
    return value


def wait_gone(pid: int) -> bool:
    """Wait (at most WAIT s) for pid, which is not our child, to end; True once it has."""
    if not hasattr(os, "pidfd_open"):
        pytest.skip("os.pidfd_open needs Python 3.9 and Linux 5.3")
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], WAIT)[0]) and not alive(pid)
    finally:
        os.close(fd)


def start(args: list[str], tmp_path: Path, cwd: Path | None = None) -> subprocess.Popen:
    """The library in a subprocess: this tree first on its path, TMPDIR our own, output piped."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "TMPDIR": str(tmp_path / "tmp"),
    }
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=cwd or tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def leftovers(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "tmp").iterdir() if p.name.startswith("rc-sandbox-"))


def reap(proc: subprocess.Popen, children: list[int]) -> None:
    """End what a failed test may leave behind: the subprocess and the sandbox children it
    started."""
    proc.kill()
    for pid in children:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"the subprocess did not end after the signal: {err!r}")
    return proc.returncode, err


# ---------------------------------------------------------------------------- SIGKILL of the parent
def _run_code(code: str, *, cpu: int) -> str:
    return textwrap.dedent(f"""\
        from recursive_cleaner.judge.sandbox import run_in_sandbox
        print(run_in_sandbox({code!r}, "clean", [{{"a": 1}}], timeout=600, cpu_seconds={cpu}))
    """)


@pytest.mark.parametrize("watch", ["kernel", "thread"])
def test_a_sleeping_child_dies_with_its_killed_parent(tmp_path, watch):
    """validate_function's child sleeps (no CPU limit stops that); SIGKILL of the parent ends it
    too.

    ``thread``: the portable way (macOS), the child's own watcher thread, forced here on Linux.
    """
    force_thread = (
        "from recursive_cleaner.judge.sandbox import _process; "
        "_process.tie_to_parent = lambda fd, pid: False\n"
    )
    script = (
        (force_thread if watch == "thread" else "")
        + "from recursive_cleaner.judge.validation import validate_function\n"
        f"print(validate_function({SLEEPY!r}, [{{'a': 1}}], 'clean', timeout=600))\n"
    )
    children: list[int] = []
    proc = start(["-c", script], tmp_path)
    try:
        children += wait_for(lambda: sandbox_children(proc.pid), "the sandbox child", proc)
        [child] = children
        wait_for(lambda: sleeping(child), "the child to sleep in the generated code", proc)
        proc.kill()
        proc.wait(WAIT)
        assert wait_gone(child), "the orphaned sandbox child still runs"
    finally:
        reap(proc, children)
    assert leftovers(tmp_path) == []  # the working folder went away as soon as the child ran in it


def test_a_child_stuck_in_c_code_dies_with_its_killed_parent(tmp_path):
    """A child that holds the GIL in C code (a backtracking regex) under a long CPU limit: the
    kernel's SIGIO ends it."""
    children: list[int] = []
    proc = start(["-c", _run_code(BUSY, cpu=600)], tmp_path)
    try:
        children += wait_for(lambda: sandbox_children(proc.pid), "the sandbox child", proc)
        [child] = children
        # start-up takes ~0.1 s
        wait_for(lambda: cpu_seconds(child) > 0.5, "the child to spin in the regex", proc)
        proc.kill()
        proc.wait(WAIT)
        assert wait_gone(child), "the orphaned sandbox child still runs"
    finally:
        reap(proc, children)
    assert leftovers(tmp_path) == []


def test_a_sleeping_child_is_killed_at_the_wall_clock_timeout():
    """In a living parent, the wall-clock timeout (not the CPU limit) ends a child that sleeps; the
    worker's clock is a fake one, so the 0.5 s pass at once."""
    from recursive_cleaner.judge.sandbox import SandboxWorker
    from tests.fakes import FakeChildClock

    clock = FakeChildClock()
    before = set(sandbox_children(os.getpid()))  # another test's gate may keep its child
    with SandboxWorker(SLEEPY, "clean", cpu_seconds=600, clock=clock, wait=clock.wait) as worker:
        assert worker.start().ok
        [child] = set(sandbox_children(os.getpid())) - before
        clock.silent, loading = True, len(clock.waits)  # it sleeps 600 s: no answer comes
        worker.submit([{"a": 1}])
        reply = worker.receive(timeout=0.5)
        assert reply.error == "timed out after 0.5s"
        assert clock.waits[loading:] == [0.5] and clock() == 0.5  # one wait, all of the timeout
        assert not alive(child)  # killed and reaped before receive returned


# ---------------------------------------------------------------------------- SIGTERM of the CLI
def sigterm_while_sleeping(proc) -> tuple[int, str, int]:
    """SIGTERM ``proc`` once its one sandbox child sleeps in the hostile function: (exit code,
    stderr, child pid)."""
    children: list[int] = []
    try:
        children += wait_for(lambda: sandbox_children(proc.pid), "the sandbox child", proc)
        [child] = children
        wait_for(lambda: sleeping(child), "the child to sleep in the function", proc)
        proc.send_signal(signal.SIGTERM)
        code, err = finish(proc)
    finally:
        reap(proc, children)
    return code, err, child


def test_sigterm_during_apply_cleans_up_like_ctrl_c(tmp_path):
    (tmp_path / "f.py").write_text(SLEEPY.replace("def clean(", "def clean_data("))
    (tmp_path / "data.jsonl").write_text("".join(json.dumps({"a": i}) + "\n" for i in range(10)))
    (tmp_path / "out").mkdir()
    proc = start(
        [
            "-m",
            "recursive_cleaner",
            "apply",
            "f.py",
            "data.jsonl",
            "-o",
            "out/clean.jsonl",
            "--workers",
            "1",
            "--timeout",
            "600",
            "--progress",
            "off",
        ],
        tmp_path,
    )
    code, err, child = sigterm_while_sleeping(proc)
    assert code == 143 and err.strip() == "Error: terminated", err
    # killed (and reaped) by the parent's cleanup, not left to the orphan watch
    assert not alive(child)
    assert leftovers(tmp_path) == []
    assert sorted(os.listdir(tmp_path / "out")) == []  # no hidden partial output, no pass-1 spool


GENERATE = textwrap.dedent("""\
    import sys
    sys.path.insert(0, {root!r})
    from recursive_cleaner.ui import cli
    from tests.fakes import CLEAN_REPLY, FakeBackend, make_reply
    cli.make_backend = lambda spec: FakeBackend([CLEAN_REPLY, make_reply("slow_down", {code!r})], \
default=CLEAN_REPLY)
    sys.exit(cli.main(["generate", "crm.jsonl", "--chunk-size", "3", "--state", "st.json", "-o", \
"out/functions.py",
                       "--report", "out/report.md", "--progress", "off", \
"--call-every-chunk"]))
""")


def test_sigterm_during_generate_cleans_up_and_keeps_the_finished_chunks(tmp_path):
    """Chunk 1 is done and saved; SIGTERM while chunk 2's candidate sleeps in the sandbox: exit 143
    with the resume hint."""
    rows = [{"id": i, "email": f"user{i}@x.com"} for i in range(6)]
    (tmp_path / "crm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "out").mkdir()
    code = SLEEPY.replace("def clean(", "def slow_down(")
    proc = start(["-c", GENERATE.format(root=str(ROOT), code=code)], tmp_path)
    code_, err, child = sigterm_while_sleeping(proc)
    assert code_ == 143, err
    assert "terminated; progress is saved, carry on with: recursive-cleaner resume st.json" in err
    assert json.loads((tmp_path / "st.json").read_text())["last_completed_chunk"] == 0
    assert not alive(child)
    assert leftovers(tmp_path) == []
    # no half-written state file
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert sorted(os.listdir(tmp_path / "out")) == []
