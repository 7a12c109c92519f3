"""backends/prompt_cache.py and its wiring: the local model's prompt state saved for the next
process.

The runtime's save/restore is a ``SlotAction`` here: a function that writes or reads files in
the folder the way llama.cpp does, so every path (damaged file, refusal, failure, pruning) is
tested without the model. tests/backends/test_local.py checks it with the real one.
"""

from __future__ import annotations

import http.server
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

import recursive_cleaner.backends.local_runtimes as runtimes
from recursive_cleaner.backends.prompt_cache import (
    PROMPT_CACHE_ENV,
    PromptCache,
    prompt_cache_dir,
    resolve_prompt_cache,
    state_key,
)
from tests.fakes import fake_xllamacpp


class FakeSlot:
    """Saves ``content`` to the named file and restores by reading it back, as llama.cpp's slot
    actions do."""

    def __init__(self, folder: Path, content: bytes = b"kv" * 1000, tokens: int = 42) -> None:
        self.folder, self.content, self.tokens = folder, content, tokens
        self.calls: list[tuple[str, str]] = []
        self.restored: bytes | None = None

    def __call__(self, action: str, filename: str) -> dict:
        self.calls.append((action, filename))
        path = self.folder / filename
        if action == "save":
            path.write_bytes(self.content)
            return {
                "id_slot": 0,
                "filename": filename,
                "n_saved": self.tokens,
                "n_written": len(self.content),
            }
        self.restored = path.read_bytes()
        return {
            "id_slot": 0,
            "filename": filename,
            "n_restored": self.tokens,
            "n_read": len(self.restored),
        }


def test_a_saved_state_is_named_by_its_content_and_restored(tmp_path: Path) -> None:
    slot = FakeSlot(tmp_path)
    cache = PromptCache(tmp_path, "k" * 32)
    # nothing saved yet: the runtime is not asked
    assert cache.restore(slot) == 0 and slot.calls == []
    assert cache.save(slot) == 42
    [state] = cache.states()
    assert state.name.startswith("k" * 32 + "-") and state.suffix == ".slot"
    assert not list(tmp_path.glob("*.tmp"))  # written under a temporary name, then renamed
    assert slot.calls[0][0] == "save" and slot.calls[0][1].endswith(".tmp")

    again = PromptCache(tmp_path, "k" * 32)
    assert again.restore(slot) == 42 and again.restored_tokens == 42
    assert slot.calls[-1] == ("restore", state.name) and slot.restored == slot.content


def test_a_newer_save_replaces_the_older_state_of_the_same_key(tmp_path: Path) -> None:
    cache = PromptCache(tmp_path, "a" * 32)
    cache.save(FakeSlot(tmp_path, b"first"))
    cache.save(FakeSlot(tmp_path, b"second"))
    [state] = cache.states()
    assert state.read_bytes() == b"second"


def test_a_damaged_state_is_deleted_before_the_runtime_reads_it(tmp_path: Path) -> None:
    """llama.cpp aborts the whole process on a truncated state: the file must never reach it."""
    slot = FakeSlot(tmp_path)
    cache = PromptCache(tmp_path, "d" * 32)
    cache.save(slot)
    [state] = cache.states()
    # truncated, as a full disk or a stray copy would leave it
    state.write_bytes(slot.content[:100])
    slot.calls.clear()
    assert cache.restore(slot) == 0
    assert slot.calls == [] and not state.exists()
    assert "damaged" in cache.failures[-1]


def test_a_state_the_runtime_refuses_is_deleted_and_nothing_raises(tmp_path: Path) -> None:
    PromptCache(tmp_path, "r" * 32).save(FakeSlot(tmp_path))
    cache = PromptCache(tmp_path, "r" * 32)
    assert (
        cache.restore(lambda action, name: {"error": {"code": 400, "message": "failed to restore"}})
        == 0
    )
    assert cache.states() == [] and "failed to restore" in cache.failures[-1]


def test_failures_of_the_runtime_are_recorded_not_raised(tmp_path: Path) -> None:
    def broken(action: str, filename: str) -> dict:
        raise ConnectionRefusedError("no server")

    cache = PromptCache(tmp_path, "f" * 32)
    assert cache.save(broken) == 0
    assert cache.failures == ["save: ConnectionRefusedError: no server"] and cache.states() == []


def test_a_save_whose_size_disagrees_with_the_runtime_is_dropped(tmp_path: Path) -> None:
    def short_write(action: str, filename: str) -> dict:
        (tmp_path / filename).write_bytes(b"half")
        return {"n_saved": 10, "n_written": 1000}  # the runtime wrote 1000 bytes; the disk holds 4

    cache = PromptCache(tmp_path, "s" * 32)
    assert cache.save(short_write) == 0
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_cannot_be_made_is_a_recorded_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = PromptCache(blocker / "cache", "b" * 32)
    assert cache.save(FakeSlot(blocker)) == 0 and "cannot create" in cache.failures[0]


def test_prune_keeps_the_newest_states_and_clears_stale_temporary_files(tmp_path: Path) -> None:
    for i in range(6):
        path = tmp_path / f"{i:032d}-0000000000000000.slot"
        path.write_bytes(b"x")
        os.utime(path, (1000 + i, 1000 + i))
    stale, fresh = tmp_path / f"{'a' * 32}.1-000000aa.tmp", tmp_path / f"{'a' * 32}.2-000000bb.tmp"
    stale.write_bytes(b"x")
    fresh.write_bytes(b"x")
    os.utime(stale, (1000, 1000))
    os.utime(fresh, (9000, 9000))
    PromptCache(tmp_path, "z" * 32, keep=4, clock=lambda: 9000.0 + 60).prune()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [f"{i:032d}-0000000000000000.slot" for i in (2, 3, 4, 5)] + [fresh.name]


def test_the_folder_comes_from_the_setting_the_environment_or_the_model_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RECURSIVE_CLEANER_CACHE", str(tmp_path / "models"))
    monkeypatch.delenv(PROMPT_CACHE_ENV, raising=False)
    assert prompt_cache_dir() == tmp_path / "models" / "prompt-cache"
    monkeypatch.setenv(PROMPT_CACHE_ENV, str(tmp_path / "pc"))
    assert resolve_prompt_cache(True) == tmp_path / "pc"
    for off in ("off", "0", "False"):
        monkeypatch.setenv(PROMPT_CACHE_ENV, off)
        assert resolve_prompt_cache(True) is None
    assert resolve_prompt_cache(False) is None and resolve_prompt_cache(None) is None
    assert resolve_prompt_cache("off") is None  # --backend-option prompt_cache=off
    assert resolve_prompt_cache(str(tmp_path / "mine")) == tmp_path / "mine"


def test_the_key_changes_with_everything_a_state_depends_on() -> None:
    base = ["xllamacpp", "1.0", "/m.gguf", 100, 5, 8192, "f16", "f16"]
    keys = {state_key(base)} | {
        state_key(base[:i] + ["other"] + base[i + 1 :]) for i in range(len(base))
    }
    assert len(keys) == len(base) + 1 and all(len(k) == 32 and k.isalnum() for k in keys)


# --- XllamacppRuntime wiring (LocalBackend's: tests/backends/test_registry.py)
# ----------------------------------


def test_the_runtime_restores_on_load_and_saves_after_its_first_call_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", fake_xllamacpp())
    slot = FakeSlot(tmp_path)
    monkeypatch.setattr(
        runtimes.XllamacppRuntime, "_slot_action", lambda self, action, name: slot(action, name)
    )
    first = runtimes.XllamacppRuntime("/m.gguf", n_ctx=512, n_threads=2, prompt_cache=tmp_path)
    params = first._server.params
    assert params.slot_save_path == str(tmp_path) + os.sep and params.endpoint_slots is True
    assert slot.calls == []  # nothing to restore yet
    for _ in range(3):
        first.chat(
            [{"role": "user", "content": "p"}], max_tokens=1, temperature=0.0, stop=None, seed=0
        )
    assert [action for action, _ in slot.calls] == ["save"]
    second = runtimes.XllamacppRuntime("/m.gguf", n_ctx=512, n_threads=2, prompt_cache=tmp_path)
    assert [action for action, _ in slot.calls] == ["save", "restore"]
    assert second.prompt_cache is not None and second.prompt_cache.restored_tokens == 42
    other = runtimes.XllamacppRuntime("/m.gguf", n_ctx=1024, n_threads=2, prompt_cache=tmp_path)
    # another n_ctx, another key
    assert other.prompt_cache is not None and other.prompt_cache.restored_tokens == 0


def test_without_a_folder_the_runtime_touches_no_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", fake_xllamacpp())
    monkeypatch.setattr(
        runtimes.XllamacppRuntime, "_slot_action", lambda *a: pytest.fail("no slot action")
    )
    rt = runtimes.XllamacppRuntime("/m.gguf", n_ctx=512, n_threads=2)
    rt.chat([{"role": "user", "content": "p"}], max_tokens=1, temperature=0.0, stop=None, seed=0)
    assert rt.prompt_cache is None and not hasattr(rt._server.params, "slot_save_path")


@pytest.fixture
def slot_server() -> Iterator[tuple[str, list[dict]]]:
    """llama.cpp's slot endpoint on 127.0.0.1: records each request, answers like the engine."""
    seen: list[dict] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(
                {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
            )
            answer = json.dumps({"id_slot": 0, "filename": body["filename"], "n_saved": 7}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_slot_actions_go_to_the_engines_loopback_port_with_its_key(
    monkeypatch: pytest.MonkeyPatch, slot_server: tuple[str, list[dict]]
) -> None:
    address, seen = slot_server
    monkeypatch.setitem(sys.modules, "xllamacpp", fake_xllamacpp(address=address))
    rt = runtimes.XllamacppRuntime("/m.gguf", n_ctx=512, n_threads=2)
    assert rt._slot_action("save", "a.tmp")["n_saved"] == 7
    assert seen == [
        {"path": "/slots/0?action=save", "auth": f"Bearer {rt._key}", "body": {"filename": "a.tmp"}}
    ]


def test_slot_actions_never_leave_loopback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", fake_xllamacpp(address="http://10.1.2.3:8080"))
    (tmp_path / f"{'x' * 32}-0.slot").write_bytes(b"x")
    rt = runtimes.XllamacppRuntime("/m.gguf", n_ctx=512, n_threads=2, prompt_cache=tmp_path)
    with pytest.raises(runtimes.BackendError, match="not on loopback"):
        rt._slot_action("save", "a.tmp")
    rt.chat([{"role": "user", "content": "p"}], max_tokens=1, temperature=0.0, stop=None, seed=0)
    assert rt.prompt_cache is not None and "not on loopback" in rt.prompt_cache.failures[-1]
