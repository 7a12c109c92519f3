"""The built-in backends' factories, registered like any plugin (pyproject's entry points)."""

from __future__ import annotations

from typing import Any, Callable

from .local import LocalBackend
from .mlx_backend import MLXBackend
from .model_files import EMBEDDED_MODELS
from .ollama import OllamaBackend
from .openai_compat import OPENAI_BASE_URL, OpenAICompatibleBackend, openai_base_url

__all__ = ["make_local", "make_openai", "make_ollama", "make_mlx", "BUILTINS", "SPEC_EXAMPLES"]


def model_at_url(kind: str, arg: str) -> tuple[str, str | None]:
    """``MODEL`` or ``MODEL@URL`` -> (model, url or None); ValueError without a model."""
    model, _, url = arg.partition("@")
    if not model.strip():
        raise ValueError(f"the {kind} backend needs a model: '{kind}:MODEL' or '{kind}:MODEL@URL'")
    return model.strip(), url.strip() or None


def make_local(arg: str, **options: Any) -> LocalBackend:
    """``local`` (embedded 1.5B), ``local:0.5b`` / ``local:1.5b`` (by size), ``local:PATH.gguf``."""
    if not arg:
        return LocalBackend(**options)
    if arg.lower() in EMBEDDED_MODELS:
        return LocalBackend(embedded=arg.lower(), **options)
    return LocalBackend(model_path=arg, **options)


def make_openai(arg: str, **options: Any) -> OpenAICompatibleBackend:
    """``openai:MODEL`` (``OPENAI_BASE_URL``, else api.openai.com) or ``openai:MODEL@URL``."""
    model, url = model_at_url("openai", arg)
    base_url = url or openai_base_url(OPENAI_BASE_URL)
    return OpenAICompatibleBackend(model, base_url=base_url, **options)


def make_ollama(arg: str, **options: Any) -> OllamaBackend:
    """``ollama:MODEL`` (``OLLAMA_HOST``, else localhost:11434) or ``ollama:MODEL@URL``."""
    model, url = model_at_url("ollama", arg)
    return OllamaBackend(model, base_url=url, **options)


def make_mlx(arg: str, **options: Any) -> MLXBackend:
    """``mlx:PATH`` (an MLX model folder)."""
    if not arg.strip():
        raise ValueError("the mlx backend needs a model path: 'mlx:PATH'")
    return MLXBackend(arg.strip(), **options)


BUILTINS: dict[str, Callable[..., Any]] = {
    "local": make_local,
    "openai": make_openai,
    "ollama": make_ollama,
    "mlx": make_mlx,
}
"""What pyproject.toml's entry points name; registered directly when the group lacks them
(a source checkout that is not installed, or an install whose metadata is stale)."""

SPEC_EXAMPLES = (
    "local",
    "local:0.5b",
    "local:/models/model.gguf",
    "openai:gpt-4o-mini",
    "openai:MODEL@http://localhost:8000/v1",
    "ollama:qwen2.5-coder:1.5b",
    "ollama:MODEL@http://gpu-box:11434",
    "mlx:/models/Qwen2.5-Coder-1.5B-Instruct-4bit",
)
