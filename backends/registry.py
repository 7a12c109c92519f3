"""Spec strings to backends: ``local[:PATH|0.5b]``, ``openai:MODEL[@URL]``, ``ollama:MODEL[@URL]``, ``mlx:PATH``."""

from __future__ import annotations

from typing import Any, Callable

from .local import LocalBackend
from .mlx_backend import MLXBackend
from .model_files import EMBEDDED_MODELS
from .ollama import OllamaBackend
from .openai_compat import OPENAI_BASE_URL, OpenAICompatibleBackend, openai_base_url

__all__ = ["BACKENDS", "SPEC_EXAMPLES", "get_backend"]


def _model_at_url(kind: str, arg: str) -> tuple[str, str | None]:
    model, _, url = arg.partition("@")
    if not model.strip():
        raise ValueError(f"the {kind} backend needs a model: '{kind}:MODEL' or '{kind}:MODEL@URL'")
    return model.strip(), url.strip() or None


def _local(arg: str, **options: Any) -> LocalBackend:
    """``local`` (embedded 1.5B), ``local:0.5b`` / ``local:1.5b`` (embedded by size), ``local:PATH.gguf``."""
    if not arg:
        return LocalBackend(**options)
    if arg.lower() in EMBEDDED_MODELS:
        return LocalBackend(embedded=arg.lower(), **options)
    return LocalBackend(model_path=arg, **options)


def _openai(arg: str, **options: Any) -> OpenAICompatibleBackend:
    """``openai:MODEL`` (``OPENAI_BASE_URL``, else api.openai.com) or ``openai:MODEL@URL`` (any compatible server)."""
    model, url = _model_at_url("openai", arg)
    return OpenAICompatibleBackend(model, base_url=url or openai_base_url(OPENAI_BASE_URL), **options)


def _ollama(arg: str, **options: Any) -> OllamaBackend:
    """``ollama:MODEL`` (``OLLAMA_HOST``, else localhost:11434) or ``ollama:MODEL@URL``."""
    model, url = _model_at_url("ollama", arg)
    return OllamaBackend(model, base_url=url, **options)


def _mlx(arg: str, **options: Any) -> MLXBackend:
    """``mlx:PATH`` (an MLX model folder)."""
    if not arg.strip():
        raise ValueError("the mlx backend needs a model path: 'mlx:PATH'")
    return MLXBackend(arg.strip(), **options)


BACKENDS: dict[str, Callable[..., Any]] = {
    "local": _local,
    "openai": _openai,
    "ollama": _ollama,
    "mlx": _mlx,
}

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


def get_backend(spec: str, **options: Any) -> Any:
    """Build a backend from a spec string; ``options`` go to its constructor (e.g. ``stop=[...]``)."""
    if not isinstance(spec, str):
        raise TypeError(f"a backend spec is a string like 'local' or 'ollama:MODEL', got {type(spec).__name__}")
    prefix, _, arg = spec.strip().partition(":")
    factory = BACKENDS.get(prefix.strip().lower())
    if factory is None:
        known = ", ".join(sorted(BACKENDS))
        raise ValueError(f"unknown backend {spec!r}: known prefixes are {known} (e.g. {', '.join(SPEC_EXAMPLES[:4])})")
    return factory(arg.strip(), **options)
