"""In-process llama.cpp runtimes that LocalBackend can drive: xllamacpp (default) and
llama-cpp-python.

Each runtime loads one GGUF file once and answers chat requests with the model's own
chat template. Both are imported lazily, so importing this module costs nothing.
"""

from __future__ import annotations

import http.client
import importlib.metadata
import importlib.util
import json
import os
import re
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence
from urllib.parse import urlsplit

from .errors import BackendError, BackendSetupError, ContextLengthError
from .prompt_cache import PromptCache, model_identity, state_key

__all__ = [
    "Completion",
    "Runtime",
    "XllamacppRuntime",
    "LlamaCppPythonRuntime",
    "RUNTIMES",
    "AUTO_ORDER",
    "resolve_runtime",
    "context_error",
]

LOCAL_HINT = "pip install 'recursive-data-cleaner[local]'"


@dataclass
class Completion:
    """One chat reply and its token counts."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int | None = None
    finish_reason: str | None = None
    timings: dict[str, float] | None = None


class Runtime(Protocol):
    """A loaded model that answers chat messages."""

    name: str

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        stop: Sequence[str] | None,
        seed: int | None,
        json_schema: dict | None = None,
        grammar: str | None = None,
    ) -> Completion: ...


def context_error(prompt_tokens: int | None, n_ctx: int | None) -> ContextLengthError:
    """The one clear message for a prompt that does not fit the context window."""
    size = f"{prompt_tokens} tokens" if prompt_tokens is not None else "too long"
    return ContextLengthError(
        f"the prompt is {size} but the local model's context window holds {n_ctx} tokens: "
        "shorten the prompt (smaller chunks) or raise n_ctx",
        prompt_tokens=prompt_tokens,
        n_ctx=n_ctx,
    )


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


class XllamacppRuntime:
    """llama.cpp's own server engine in-process via xllamacpp (prebuilt wheels, prompt cache,
    thread-safe).

    With ``prompt_cache`` (a folder), the slot's state is restored from there on load and saved
    there after the first call (``backends/prompt_cache.py``), so the next process does not
    read the same prefix again.
    """

    name = "xllamacpp"

    def __init__(
        self,
        model_path: str,
        *,
        n_ctx: int,
        n_threads: int,
        verbose: bool = False,
        prompt_cache: Path | None = None,
    ) -> None:
        import xllamacpp as xlc

        params = xlc.CommonParams()
        params.model.path = model_path
        params.n_ctx = n_ctx
        # one slot: the whole context for one request, and its KV cache reused
        params.n_parallel = 1
        params.cpuparams.n_threads = n_threads
        params.cpuparams_batch.n_threads = n_threads
        params.cache_prompt = True
        params.verbosity = 3 if verbose else 0
        # xllamacpp also serves HTTP on an ephemeral 127.0.0.1 port; a random key keeps other local
        # users off it. Chat calls are in-process; only the prompt cache's slot actions use the
        # port.
        self._key = secrets.token_urlsafe(24)
        params.api_keys = [self._key]
        self.n_ctx = n_ctx
        self.prompt_cache: PromptCache | None = None
        self._cache_lock = threading.Lock()
        self._cache_saved = False
        if prompt_cache is not None:
            # llama.cpp joins it to the file name as text
            params.slot_save_path = str(prompt_cache) + os.sep
            params.endpoint_slots = True
            key = state_key(
                [
                    self.name,
                    _version("xllamacpp"),
                    *model_identity(model_path),
                    n_ctx,
                    getattr(params, "cache_type_k", None),
                    getattr(params, "cache_type_v", None),
                ]
            )
            self.prompt_cache = PromptCache(Path(prompt_cache), key)
        try:
            self._server = xlc.Server(params)
        except Exception as exc:  # the binding raises plain RuntimeError/ValueError on a bad file
            raise BackendSetupError(
                f"xllamacpp could not load the model {model_path}: {exc}"
            ) from exc
        if self.prompt_cache is not None:
            self.prompt_cache.restore(self._slot_action)

    def _slot_action(self, action: str, filename: str) -> dict:
        """Save or restore slot 0 through the engine's own endpoint, on its loopback port only."""
        url = urlsplit(str(self._server.listening_address))
        if url.hostname not in ("127.0.0.1", "localhost", "::1") or url.port is None:
            raise BackendError(
                f"xllamacpp listens on {url.hostname!r}, not on loopback: prompt cache not used"
            )
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
        try:
            conn.request(
                "POST",
                f"/slots/0?action={action}",
                json.dumps({"filename": filename}),
                {"Content-Type": "application/json", "Authorization": f"Bearer {self._key}"},
            )
            answer = conn.getresponse().read(1 << 16)
        finally:
            conn.close()
        return json.loads(answer)

    def _save_once(self) -> None:
        """After the first call of this runtime: its prompt is what the next run most likely starts
        with."""
        if self.prompt_cache is None:
            return
        with self._cache_lock:
            if self._cache_saved:
                return
            self._cache_saved = True
            self.prompt_cache.save(self._slot_action)

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        stop: Sequence[str] | None,
        seed: int | None,
        json_schema: dict | None = None,
        grammar: str | None = None,
    ) -> Completion:
        request: dict[str, Any] = {
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "cache_prompt": True,
            "stream": False,
        }
        if stop:
            request["stop"] = list(stop)
        if seed is not None:
            request["seed"] = seed
        if json_schema is not None:
            # llama.cpp turns it into a grammar: the reply can only fit it
            request["json_schema"] = json_schema
        if grammar is not None:
            request["grammar"] = grammar  # GBNF: every sampled token must keep the reply inside it
        reply = self._server.handle_chat_completions(request)
        if not isinstance(reply, dict):
            raise BackendError(f"xllamacpp returned {type(reply).__name__}, expected a dict")
        error = reply.get("error")
        if error:
            if isinstance(error, dict) and error.get("type") == "exceed_context_size_error":
                raise context_error(error.get("n_prompt_tokens"), error.get("n_ctx", self.n_ctx))
            message = error.get("message", error) if isinstance(error, dict) else error
            raise BackendError(f"the local model failed: {message}")
        try:
            choice = reply["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise BackendError(f"xllamacpp reply has no choices: {str(reply)[:200]}") from None
        usage = reply.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens", (reply.get("timings") or {}).get("cache_n"))
        self._save_once()
        return Completion(
            text=text,
            prompt_tokens=_int(usage.get("prompt_tokens")),
            completion_tokens=_int(usage.get("completion_tokens")),
            cached_tokens=cached if isinstance(cached, int) else None,
            finish_reason=choice.get("finish_reason"),
            timings=reply.get("timings") if isinstance(reply.get("timings"), dict) else None,
        )


_LLAMA_CPP_OVERFLOW = re.compile(r"Requested tokens \((\d+)\) exceed context window of (\d+)")


class LlamaCppPythonRuntime:
    """llama-cpp-python's Llama object (compiles from source; faster prompt reading, not
    thread-safe).

    ``prompt_cache`` is accepted and not used: this runtime keeps its prompt cache in memory only.
    """

    name = "llama-cpp-python"

    def __init__(
        self,
        model_path: str,
        *,
        n_ctx: int,
        n_threads: int,
        verbose: bool = False,
        prompt_cache: Path | None = None,
    ) -> None:
        from llama_cpp import Llama

        self.n_ctx = n_ctx
        self._lock = threading.Lock()
        try:
            self._llm = Llama(
                model_path=model_path,
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                verbose=verbose,
            )
        except Exception as exc:
            raise BackendSetupError(
                f"llama-cpp-python could not load the model {model_path}: {exc}"
            ) from exc

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        stop: Sequence[str] | None,
        seed: int | None,
        json_schema: dict | None = None,
        grammar: str | None = None,
    ) -> Completion:
        extra: dict[str, Any] = {}
        if json_schema:
            extra["response_format"] = {"type": "json_object", "schema": json_schema}
        if grammar is not None:
            from llama_cpp import LlamaGrammar

            extra["grammar"] = LlamaGrammar.from_string(grammar, verbose=False)
        with self._lock:
            try:
                reply = self._llm.create_chat_completion(
                    messages=messages,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    stop=list(stop) if stop else None,
                    seed=seed,
                    **extra,
                )
            except ValueError as exc:
                match = _LLAMA_CPP_OVERFLOW.search(str(exc))
                if match:
                    raise context_error(int(match.group(1)), int(match.group(2))) from exc
                raise BackendError(f"the local model failed: {exc}") from exc
        choice = reply["choices"][0]
        usage = reply.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            prompt_tokens=_int(usage.get("prompt_tokens")),
            completion_tokens=_int(usage.get("completion_tokens")),
            finish_reason=choice.get("finish_reason"),
        )


RuntimeFactory = Callable[..., Runtime]

# name -> (import name, factory, install hint)
RUNTIMES: dict[str, tuple[str, RuntimeFactory, str]] = {
    "xllamacpp": ("xllamacpp", XllamacppRuntime, LOCAL_HINT),
    "llama-cpp-python": ("llama_cpp", LlamaCppPythonRuntime, "pip install llama-cpp-python"),
}
AUTO_ORDER = ("xllamacpp", "llama-cpp-python")


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def resolve_runtime(name: str = "auto") -> tuple[str, RuntimeFactory]:
    """The (name, factory) of a runtime: ``auto`` picks the first installed in AUTO_ORDER."""
    if name == "auto":
        for candidate in AUTO_ORDER:
            if _installed(RUNTIMES[candidate][0]):
                return candidate, RUNTIMES[candidate][1]
        raise BackendSetupError(f"no local model runtime is installed: {LOCAL_HINT}")
    try:
        module, factory, hint = RUNTIMES[name]
    except KeyError:
        known = ", ".join(["auto", *RUNTIMES])
        raise BackendSetupError(f"unknown local runtime {name!r}: known are {known}") from None
    if not _installed(module):
        raise BackendSetupError(f"the local runtime {name} is not installed: {hint}")
    return name, factory
