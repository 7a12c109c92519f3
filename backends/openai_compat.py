"""OpenAICompatibleBackend: any server speaking OpenAI's ``POST /chat/completions`` (OpenAI, vLLM,
llama-server...)."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Sequence

from ._http import GrammarFallback, SchemaFallback, excerpt, normalize_base_url, post_json
from .errors import BackendError, BackendHTTPError

__all__ = ["OpenAICompatibleBackend", "OPENAI_BASE_URL", "LOCAL_BASE_URL", "openai_base_url"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
LOCAL_BASE_URL = "http://localhost:8000/v1"


def openai_base_url(fallback: str = LOCAL_BASE_URL) -> str:
    """The ``OPENAI_BASE_URL`` environment variable when set (as OpenAI's own client reads it), else
    ``fallback``."""
    return os.environ.get("OPENAI_BASE_URL", "").strip() or fallback


class OpenAICompatibleBackend(SchemaFallback, GrammarFallback):
    """Sends the prompt as one user message to ``{base_url}/chat/completions`` (non-streaming).

    ``base_url`` None: ``OPENAI_BASE_URL`` from the environment, else ``http://localhost:8000/v1``.
    ``timeout`` is a deadline for the whole call, in seconds.
    """

    # generate_grammar (a llama.cpp server's "grammar"), generate_json, last_usage
    capabilities = frozenset({"grammar", "json", "usage"})

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float | None = 0.0,
        max_tokens: int | None = 1024,
        stop: Sequence[str] | None = None,
        seed: int | None = None,
        timeout: float = 120.0,
        system_prompt: str | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        if not model:
            raise ValueError("OpenAICompatibleBackend needs a model name")
        self.model = model
        self.base_url = normalize_base_url(base_url or openai_base_url())
        self.url = self.base_url + "/chat/completions"
        self.api_key_env = api_key_env
        self._api_key = api_key if api_key is not None else os.environ.get(api_key_env)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.stop = list(stop) if stop else None
        self.seed = seed
        self.timeout = timeout
        self.system_prompt = system_prompt
        self.extra_headers = dict(extra_headers or {})
        self.extra_body = dict(extra_body or {})
        self.last_usage: dict[str, int] | None = None
        self.last_finish_reason: str | None = None

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAICompatibleBackend(model={self.model!r}, base_url={self.base_url!r})"

    def payload(self, prompt: str) -> dict[str, Any]:
        """The JSON body sent for ``prompt``; options left as None are omitted."""
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages.append({"role": "user", "content": prompt})
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": False}
        optional = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stop": self.stop,
            "seed": self.seed,
        }
        body.update({k: v for k, v in optional.items() if v is not None})
        body.update(self.extra_body)
        return body

    def headers(self) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        headers.update(self.extra_headers)
        return headers

    def generate(self, prompt: str) -> str:
        """Reply to ``prompt``; sets ``last_usage`` from the response's ``usage``."""
        return self.send(self.payload(prompt))

    @staticmethod
    def hold_schema(body: dict[str, Any], schema: dict) -> None:
        """Put ``schema`` where this server takes it."""
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": True},
        }

    def send(self, body: dict[str, Any]) -> str:
        """Post ``body`` (a ``payload``, maybe held to a schema or grammar): the reply text."""
        self.last_usage = None
        self.last_finish_reason = None
        try:
            data = post_json(self.url, body, timeout=self.timeout, headers=self.headers())
        except BackendHTTPError as exc:
            if exc.status == 401 and not self._api_key:
                raise BackendHTTPError(
                    f"{exc} (no API key was sent: set {self.api_key_env} or pass api_key=)",
                    exc.status,
                    exc.url,
                    exc.retry_after,
                ) from exc
            raise
        if data.get("error"):
            error = data["error"]
            message = error.get("message", error) if isinstance(error, dict) else error
            raise BackendError(f"error from {self.url}: {excerpt(str(message))}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise BackendError(
                f"reply from {self.url} has no choices: {excerpt(json.dumps(data))!r}"
            )
        choice = choices[0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise BackendError(
                f"reply from {self.url} has a choice without a message: "
                f"{excerpt(json.dumps(choice))!r}"
            )
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            raise BackendError(
                f"reply from {self.url} has non-text content: {excerpt(json.dumps(content))!r}"
            )
        self.last_usage = usage_of(data.get("usage"))
        self.last_finish_reason = choice.get("finish_reason")
        return content or ""


def usage_of(usage: Any) -> dict[str, int] | None:
    """OpenAI ``usage`` -> ``{prompt_tokens, completion_tokens[, cached_tokens]}``, or None when
    absent."""
    if not isinstance(usage, dict):
        return None
    result = {
        "prompt_tokens": usage.get("prompt_tokens")
        if isinstance(usage.get("prompt_tokens"), int)
        else 0,
        "completion_tokens": usage.get("completion_tokens")
        if isinstance(usage.get("completion_tokens"), int)
        else 0,
    }
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
        result["cached_tokens"] = details["cached_tokens"]
    return result
