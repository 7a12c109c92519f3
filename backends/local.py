"""LocalBackend: a GGUF model run in-process (the embedded Qwen2.5-Coder-1.5B by default).

The model loads lazily on the first ``generate`` (or an explicit ``load()``) and stays
loaded for the life of the process. Backends that point at the same file with the same
context size, threads and prompt cache share one loaded runtime, so creating many is cheap.
``prompt_cache`` (default on: ``backends/prompt_cache.py``) keeps what the model read for
the next process.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Sequence

from .errors import BackendSetupError
from .local_runtimes import Runtime, resolve_runtime
from .model_files import DEFAULT_MODEL, EMBEDDED_MODELS, ensure_model
from .prompt_cache import resolve_prompt_cache

__all__ = ["LocalBackend", "loaded_runtimes", "unload_all", "default_threads"]

_LOADED: dict[tuple[Any, ...], Runtime] = {}
_LOAD_LOCK = threading.Lock()


def default_threads() -> int:
    """$RECURSIVE_CLEANER_THREADS if set, else the CPU cores this process may use."""
    env = os.environ.get("RECURSIVE_CLEANER_THREADS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise BackendSetupError(
                f"RECURSIVE_CLEANER_THREADS must be a whole number, got {env!r}"
            ) from None
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def loaded_runtimes() -> dict[tuple[Any, ...], Runtime]:
    """A snapshot of the runtimes loaded in this process, by (runtime, path, n_ctx, n_threads,
    prompt cache folder)."""
    with _LOAD_LOCK:
        return dict(_LOADED)


def unload_all() -> None:
    """Drop every shared loaded model (frees its memory once no backend holds it)."""
    with _LOAD_LOCK:
        _LOADED.clear()


class LocalBackend:
    """Runs a GGUF chat model in this process; ``generate(prompt)`` sends the prompt as one user
    message."""

    # generate_grammar, generate_json, last_usage, prompt_cache_stats()
    capabilities = frozenset({"grammar", "json", "usage", "prompt_cache"})

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        embedded: str = DEFAULT_MODEL,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        stop: Sequence[str] | None = None,
        seed: int | None = 0,
        system_prompt: str | None = None,
        runtime: str = "auto",
        verbose: bool = False,
        prompt_cache: bool | str | os.PathLike[str] | None = True,
    ) -> None:
        if model_path is None and embedded not in EMBEDDED_MODELS:
            raise ValueError(
                f"unknown embedded model {embedded!r}: known are "
                f"{', '.join(sorted(EMBEDDED_MODELS))}"
            )
        if n_ctx < 256:
            raise ValueError(f"n_ctx must be at least 256, got {n_ctx}")
        self.model_path = Path(model_path).expanduser() if model_path is not None else None
        self.embedded = embedded
        self.n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stop = list(stop) if stop else None
        self.seed = seed
        self.system_prompt = system_prompt
        self.runtime = runtime
        self.verbose = verbose
        self.prompt_cache = prompt_cache
        self.last_usage: dict[str, int] | None = None
        self.last_finish_reason: str | None = None
        self.last_timings: dict[str, float] | None = None
        self._runtime: Runtime | None = None

    def __repr__(self) -> str:
        model = str(self.model_path) if self.model_path else f"embedded:{self.embedded}"
        return f"LocalBackend(model={model!r}, n_ctx={self.n_ctx}, runtime={self.runtime!r})"

    @property
    def loaded(self) -> bool:
        return self._runtime is not None

    @property
    def loaded_runtime(self) -> Runtime | None:
        """The loaded runtime (``.name``: xllamacpp, llama-cpp-python), None before ``load``."""
        return self._runtime

    def resolve_model_path(self) -> Path:
        """The GGUF file to load: the given path, or the embedded model (joined on first use)."""
        if self.model_path is None:
            return ensure_model(self.embedded)
        if not self.model_path.is_file():
            raise BackendSetupError(f"model file not found: {self.model_path}")
        return self.model_path

    def load(self) -> "LocalBackend":
        """Load the model now (or reuse the copy already loaded in this process); return self."""
        if self._runtime is not None:
            return self
        name, factory = resolve_runtime(self.runtime)
        path = self.resolve_model_path()
        folder = resolve_prompt_cache(self.prompt_cache)
        key = (
            name,
            os.path.realpath(path),
            self.n_ctx,
            self.n_threads,
            str(folder) if folder else None,
        )
        with _LOAD_LOCK:
            runtime = _LOADED.get(key)
            if runtime is None:
                cache = {"prompt_cache": folder} if folder is not None else {}
                runtime = factory(
                    str(path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    verbose=self.verbose,
                    **cache,
                )
                _LOADED[key] = runtime
        self._runtime = runtime
        return self

    def unload(self) -> None:
        """Forget this backend's runtime and drop it from the shared cache."""
        runtime, self._runtime = self._runtime, None
        if runtime is None:
            return
        with _LOAD_LOCK:
            for key, value in list(_LOADED.items()):
                if value is runtime:
                    del _LOADED[key]

    def prompt_cache_stats(self) -> dict[str, Any] | None:
        """The on-disk prompt cache of the loaded runtime: folder, tokens restored and saved,
        failures; None if off."""
        cache = getattr(self._runtime, "prompt_cache", None)
        if cache is None:
            return None
        return {
            "folder": str(cache.folder),
            "restored_tokens": cache.restored_tokens,
            "saved_tokens": cache.saved_tokens,
            "failures": list(cache.failures),
        }

    def messages_for(self, prompt: str) -> list[dict[str, str]]:
        """The chat messages sent for ``prompt``: an optional system message, then the prompt as the
        user."""
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages.append({"role": "user", "content": prompt})
        return messages

    def generate(self, prompt: str) -> str:
        """Reply to ``prompt``; sets ``last_usage`` (prompt, completion, cached tokens) and
        ``last_timings``."""
        return self._reply(prompt, None)

    def generate_json(self, prompt: str, schema: dict) -> str:
        """Reply to ``prompt`` with JSON that fits ``schema`` (llama.cpp's grammar holds every token
        to it)."""
        return self._reply(prompt, schema)

    def generate_grammar(self, prompt: str, grammar: str) -> str:
        """Reply to ``prompt`` inside the GBNF ``grammar`` (llama.cpp samples only tokens that keep
        to it)."""
        return self._reply(prompt, None, grammar)

    def _reply(self, prompt: str, schema: dict | None, grammar: str | None = None) -> str:
        self.last_usage = None
        self.last_finish_reason = None
        self.last_timings = None
        runtime = self.load()._runtime
        assert runtime is not None
        reply = runtime.chat(
            self.messages_for(prompt),
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            stop=self.stop,
            seed=self.seed,
            **({"json_schema": schema} if schema is not None else {}),
            **({"grammar": grammar} if grammar is not None else {}),
        )
        usage = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens}
        if reply.cached_tokens is not None:
            usage["cached_tokens"] = reply.cached_tokens
        self.last_usage = usage
        self.last_finish_reason = reply.finish_reason
        self.last_timings = reply.timings
        return reply.text
