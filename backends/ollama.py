"""OllamaBackend: Ollama's native ``POST /api/chat``, which (unlike its /v1 API) lets us set the
context size."""

from __future__ import annotations

import ipaddress
import json
import os
import urllib.parse
from typing import Any, Mapping, Sequence

from ._http import SchemaFallback, excerpt, post_json
from .errors import BackendError, BackendHTTPError

__all__ = ["OllamaBackend", "OLLAMA_BASE_URL", "ollama_host"]

OLLAMA_BASE_URL = "http://localhost:11434"


def ollama_host(value: str | None = None) -> str:
    """A base URL from ``value``, else ``OLLAMA_HOST``, read as Ollama's own client does.

    ``host``, ``host:port``, ``:port`` or a URL: the scheme defaults to http, the host to 127.0.0.1
    and the port to 11434 (80 / 443 for an explicit http:// / https://); a path is kept.
    """
    text = (value or os.environ.get("OLLAMA_HOST", "")).strip()
    if not text:
        return OLLAMA_BASE_URL
    scheme, _, rest = text.partition("://")
    port = 11434
    if not rest:
        scheme, rest = "http", text
    elif scheme in ("http", "https"):
        port = 80 if scheme == "http" else 443
    split = urllib.parse.urlsplit(f"{scheme}://{rest}")
    host = split.hostname or "127.0.0.1"
    try:
        port = split.port or port
    except ValueError:
        raise ValueError(
            f"bad Ollama host {text!r}: the port is not a number from 0 to 65535"
        ) from None
    try:
        if ipaddress.ip_address(host).version == 6:
            host = f"[{host}]"
    except ValueError:
        pass
    path = split.path.strip("/")
    return f"{scheme}://{host}:{port}" + (f"/{path}" if path else "")


class OllamaBackend(SchemaFallback):
    """Sends the prompt as one user message to an Ollama server (non-streaming).

    ``base_url`` None: ``OLLAMA_HOST`` from the environment, else ``http://localhost:11434``
    (see :func:`ollama_host`). ``timeout`` is a deadline for the whole call, in seconds.
    """

    capabilities = frozenset({"json", "usage"})  # generate_json (Ollama's "format"), last_usage

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        temperature: float = 0.0,
        max_tokens: int | None = 1024,
        num_ctx: int | None = 8192,
        stop: Sequence[str] | None = None,
        seed: int | None = 0,
        timeout: float = 300.0,
        keep_alive: str | int | None = None,
        system_prompt: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if not model:
            raise ValueError("OllamaBackend needs a model name, e.g. 'qwen2.5-coder:1.5b'")
        self.model = model
        self.base_url = ollama_host(base_url)
        self.url = self.base_url + "/api/chat"
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.num_ctx = num_ctx
        self.stop = list(stop) if stop else None
        self.seed = seed
        self.timeout = timeout
        self.keep_alive = keep_alive
        self.system_prompt = system_prompt
        self.options = dict(options or {})
        self.last_usage: dict[str, int] | None = None
        self.last_finish_reason: str | None = None

    def __repr__(self) -> str:
        return (
            f"OllamaBackend(model={self.model!r}, base_url={self.base_url!r}, "
            f"num_ctx={self.num_ctx})"
        )

    def payload(self, prompt: str) -> dict[str, Any]:
        """The JSON body sent for ``prompt``."""
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages.append({"role": "user", "content": prompt})
        wanted = {
            "temperature": self.temperature,
            "num_ctx": self.num_ctx,
            "num_predict": self.max_tokens,
            "stop": self.stop,
            "seed": self.seed,
        }
        options = {k: v for k, v in wanted.items() if v is not None}
        options.update(self.options)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": False,
            "options": options,
        }
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    def generate(self, prompt: str) -> str:
        """Reply to ``prompt``; sets ``last_usage`` from prompt_eval_count / eval_count."""
        return self.send(self.payload(prompt))

    @staticmethod
    def hold_schema(body: dict[str, Any], schema: dict) -> None:
        """Put ``schema`` where this server takes it."""
        body["format"] = schema  # Ollama's structured outputs

    def send(self, body: dict[str, Any]) -> str:
        """Post ``body`` (a ``payload``, maybe held to a schema): the reply text; last_usage set."""
        self.last_usage = None
        self.last_finish_reason = None
        try:
            data = post_json(self.url, body, timeout=self.timeout)
        except BackendHTTPError as exc:
            if exc.status == 404 and "not found" in str(exc):
                raise BackendHTTPError(
                    f"{exc} (try: ollama pull {self.model})", exc.status, exc.url, exc.retry_after
                ) from exc
            raise
        if data.get("error"):
            raise BackendError(f"error from {self.url}: {excerpt(str(data['error']))}")
        message = data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise BackendError(
                f"reply from {self.url} has no message content: {excerpt(json.dumps(data))!r}"
            )
        # Older Ollama versions leave prompt_eval_count out when the whole prompt came from the
        # cache.
        usage = {
            "prompt_tokens": _count(data, "prompt_eval_count"),
            "completion_tokens": _count(data, "eval_count"),
        }
        if isinstance(data.get("prompt_eval_cached_count"), int):
            usage["cached_tokens"] = data["prompt_eval_cached_count"]
        self.last_usage = usage
        self.last_finish_reason = data.get("done_reason")
        return message["content"]


def _count(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    return value if isinstance(value, int) else 0
