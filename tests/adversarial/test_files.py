"""Issue 28, files: locks and outputs never written through a symlink, disk full during apply, an
output folder that is a file, the prompt cache's planted files, and ``apply --trusted`` importing a
module beside the functions."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from recursive_cleaner import DataCleaner
from recursive_cleaner.apply.local import ApplyError, apply_file
from recursive_cleaner.backends.prompt_cache import PromptCache
from recursive_cleaner.errors import OutputError, StateFileError
from recursive_cleaner.run.lock import lock_path, state_lock
from recursive_cleaner.write.state import atomic_write_text
from tests.fakes import CLEAN_REPLY, FakeBackend
from tests.cli_helpers import invoke, one_error_line

ROOT = Path(__file__).resolve().parents[2]
posix = pytest.mark.skipif(
    os.name != "posix", reason="symlinks, rlimits and owners as POSIX has them"
)
ROWS = [{"id": i, "name": f" n{i} "} for i in range(40)]
STRIP = (
    'def clean_data(record):\n    record = dict(record)\n    record["name"] = '
    'record["name"].strip()\n    return record\n'
)


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    (tmp_path / "cleaning_functions.py").write_text(STRIP)
    (tmp_path / "precious.txt").write_text("precious\n")
    return tmp_path


def _cleaner(backend, **options) -> DataCleaner:
    return DataCleaner(
        backend,
        "data.jsonl",
        chunk_size=20,
        profile_fields=False,
        cross_row=False,
        sleep=lambda s: None,
        **{"output_path": "cf.py", **options},
    )


# ---------------------------------------------------------------------------- the lock
@posix
def test_a_lock_symlink_beside_the_state_file_is_refused_and_its_target_left_alone(work):
    os.symlink(work / "precious.txt", lock_path("st.json"))
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(
        StateFileError,
        match=r"lock file st\.json\.lock of state file st\.json is a symbolic link: "
        r"not used \(remove it\)",
    ):
        _cleaner(backend, state_file="st.json").run()
    assert (work / "precious.txt").read_text() == "precious\n" and os.path.islink(
        lock_path("st.json")
    )
    assert backend.calls == 0


@posix
def test_a_lock_that_is_a_hard_link_or_not_a_lock_file_is_refused_untouched(work):
    os.link(work / "precious.txt", lock_path("a.json"))
    with pytest.raises(StateFileError, match="is not a lock file this library wrote"):
        with state_lock("a.json"):
            pass
    Path(lock_path("b.json")).write_text("some other file of the user's, not a pid\n")
    with pytest.raises(StateFileError, match="is not a lock file this library wrote"):
        with state_lock("b.json"):
            pass
    assert (work / "precious.txt").read_text() == "precious\n"
    assert Path(lock_path("b.json")).read_text().startswith("some other file")
    Path(lock_path("c.json")).write_text(" 999999999\n")  # a killed run's: used, then removed
    with state_lock("c.json"):
        assert Path(lock_path("c.json")).read_text() == f" {os.getpid()}\n"
    assert not os.path.exists(lock_path("c.json"))


# ---------------------------------------------------------------------------- outputs
@posix
def test_no_output_is_written_through_a_symlink_and_the_run_says_so_before_any_call(work):
    os.symlink(work / "precious.txt", "cf.py")
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(OutputError, match=r"^output_path: cf\.py is a symbolic link"):
        _cleaner(backend).run()  # run() checks every path before any call
    with pytest.raises(OutputError, match="is a symbolic link"):
        atomic_write_text("cf.py", "x = 1\n")
    os.symlink(work / "precious.txt", "out.jsonl")
    with pytest.raises(OutputError, match=r"^output_path: out\.jsonl is a symbolic link"):
        apply_file("cleaning_functions.py", "data.jsonl", "out.jsonl", workers=1)
    os.mkfifo("fifo.md")
    with pytest.raises(OutputError, match=r"fifo\.md is not a regular file"):
        _cleaner(backend, output_path="cf2.py", report_path="fifo.md").run()
    assert (work / "precious.txt").read_text() == "precious\n" and backend.calls == 0
    assert not list(work.glob(".*.tmp"))


def test_an_output_folder_that_is_a_file_is_reported_before_any_model_call(work, use):
    (work / "out").write_text("a plain file")
    backend = FakeBackend(default=CLEAN_REPLY)
    with pytest.raises(
        OutputError, match=r"^output_path: cannot write out/cf\.py: .*out is a file, not a folder"
    ):
        _cleaner(backend, output_path="out/cf.py").run()
    with pytest.raises(
        OutputError, match=r"^state_file: cannot write out/sub/st\.json: .*out is a file"
    ):
        _cleaner(backend, state_file="out/sub/st.json").run()
    assert backend.calls == 0
    use(backend)
    line = one_error_line(invoke("generate", "data.jsonl", "-o", "out/cf.py", "--progress", "off"))
    assert (
        "cannot write out/cf.py" in line
        and "is a file, not a folder" in line
        and backend.calls == 0
    )
    line = one_error_line(
        invoke(
            "apply",
            "cleaning_functions.py",
            "data.jsonl",
            "-o",
            "out/clean.jsonl",
            "--progress",
            "off",
        )
    )
    assert line.startswith("Error: -o: cannot write out/clean.jsonl")


# ---------------------------------------------------------------------------- disk full during
# apply
FULL = """
import resource, sys
sys.path.insert(0, {root!r})
from recursive_cleaner.apply.local import ApplyError, apply_file
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # every file this process writes: 4 KB at \
most
try:
    apply_file("cleaning_functions.py", "data.jsonl", {out!r}, workers=1, batch_size=10)
except ApplyError as exc:
    print("ApplyError:", exc)
"""


@posix
@pytest.mark.parametrize("out", ["clean.jsonl", "clean.csv"])
def test_disk_full_during_apply_is_one_line_naming_the_output_and_leaves_no_temporary_file(
    work, out
):
    data = work / "data.jsonl"
    data.write_text(
        "".join(json.dumps({"id": i, "name": f" {'x' * 200} "}) + "\n" for i in range(100))
    )
    proc = subprocess.run(
        [sys.executable, "-c", FULL.format(root=str(ROOT), out=out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        f"ApplyError: cannot write {out}: File too large (disk full or a file-size limit)"
    )
    assert proc.stdout.count("\n") == 1 and "Traceback" not in proc.stderr
    assert not (work / out).exists() and not list(work.glob(".*tmp"))


def test_a_full_disk_when_the_output_is_renamed_into_place_leaves_nothing(work, monkeypatch):
    """The same with ENOSPC raised by the last write (the monkeypatched flush); the target keeps its
    old content."""
    import errno

    from recursive_cleaner.apply import writers

    (work / "clean.jsonl").write_text("old\n")
    real = os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writers.os, "fsync", full)
    with pytest.raises(ApplyError, match=r"^cannot write clean\.jsonl: No space left on device"):
        apply_file("cleaning_functions.py", "data.jsonl", "clean.jsonl", workers=1)
    monkeypatch.setattr(writers.os, "fsync", real)
    assert (work / "clean.jsonl").read_text() == "old\n" and not list(work.glob(".*tmp"))


# ---------------------------------------------------------------------------- the prompt cache
class Slot:
    """The runtime's slot actions: records what it is handed; saves write ``content``."""

    def __init__(self, folder: Path, content: bytes = b"kv" * 100) -> None:
        self.folder, self.content, self.calls = folder, content, []

    def __call__(self, action: str, filename: str) -> dict:
        self.calls.append((action, filename))
        if action == "save":
            (self.folder / filename).write_bytes(self.content)
            return {"n_saved": 7, "n_written": len(self.content)}
        return {"n_restored": 7}


@posix
def test_the_prompt_cache_never_hands_the_runtime_a_planted_link_or_foreign_file(tmp_path):
    key = "a" * 32
    secret = tmp_path / "secret"
    secret.write_bytes(b"not a slot")
    folder = tmp_path / "cache"
    folder.mkdir()
    import hashlib

    digest = hashlib.sha256(b"not a slot").hexdigest()[:16]
    # its content matches its name: only the link check stops it
    os.symlink(secret, folder / f"{key}-{digest}.slot")
    slot = Slot(folder)
    assert PromptCache(folder, key).restore(slot) == 0 and slot.calls == []
    os.mkfifo(folder / f"{key}-{'0' * 16}.slot")
    assert PromptCache(folder, key).restore(slot) == 0 and slot.calls == []


def test_pruning_deletes_only_the_files_this_cache_named(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    foreign = [
        folder / "model.slot",
        folder / "notes.tmp",
        folder / f"{'b' * 32}-{'c' * 16}.slot.bak",
        folder / "user.1-deadbeef.tmp",
    ]
    for path in foreign:
        path.write_bytes(b"x")
        os.utime(path, (1000, 1000))
    cache = PromptCache(folder, "d" * 32, keep=1, clock=lambda: 1_000_000.0)
    for content in (b"one", b"two"):
        assert cache.save(Slot(folder, content)) == 7
    assert all(path.exists() for path in foreign)
    assert [p.read_bytes() for p in cache.states()] == [b"two"]


@posix
def test_the_prompt_cache_folder_is_created_for_this_user_only(tmp_path):
    folder = tmp_path / "models" / "prompt-cache"
    old = os.umask(0o002)
    try:
        assert PromptCache(folder, "e" * 32).save(Slot(folder)) == 7
    finally:
        os.umask(old)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


# ---------------------------------------------------------------------------- apply --trusted and
# sys.path
def test_apply_trusted_does_not_import_a_module_lying_beside_the_functions_file(work):
    marker = work / "imported.txt"
    (work / "json.py").write_text(
        f"open({str(marker)!r}, 'w').write('json.py ran')\nraise SystemExit(3)\n"
    )
    (work / "helpers.py").write_text("def strip(value):\n    return value.strip()\n")
    (work / "cleaning_functions.py").write_text(
        textwrap.dedent("""\
        import json
        import helpers  # a module of the user's own beside the file is still found


        def clean_data(record):
            record = dict(record)
            record["name"] = helpers.strip(record["name"])
            record["dump"] = json.dumps([1])
            return record
        """)
    )
    result = invoke(
        "apply",
        "cleaning_functions.py",
        "data.jsonl",
        "-o",
        "out.jsonl",
        "--trusted",
        "--workers",
        "1",
        "--progress",
        "off",
    )
    assert result.exit_code == 0, result.stderr
    assert not marker.exists()
    first = json.loads((work / "out.jsonl").read_text().splitlines()[0])
    assert first == {"id": 0, "name": "n0", "dump": "[1]"}
