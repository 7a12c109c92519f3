"""LLM backends: anything with ``generate(prompt: str) -> str``, plus ``last_usage`` after each
call.

Build one from a spec string with :func:`get_backend`::

    get_backend("local")                          # embedded Qwen2.5-Coder-1.5B, in-process
    get_backend("local:/models/x.gguf")           # any GGUF file
    get_backend("ollama:qwen2.5-coder:1.5b")      # Ollama's native /api/chat
    get_backend("openai:gpt-4o-mini")             # api.openai.com (OPENAI_API_KEY)
    get_backend("openai:my-model@http://localhost:8000/v1", stop=["```\\n"])
    get_backend("mlx:/models/qwen-mlx")           # Apple Silicon

Backends are plugins: the built-ins and any installed package that declares a factory in the
entry-point group ``recursive_cleaner.backends`` (or calls :func:`register`) answer to their
prefix. What a backend can do beyond ``generate`` it declares in ``capabilities``
(docs/backends.md).

Every failure a backend raises on purpose is a :class:`BackendError` with a one-line message.
This package knows nothing of the cleaner that uses it.
"""

from __future__ import annotations

from .errors import BackendError, BackendHTTPError, BackendSetupError, ContextLengthError
from .local import LocalBackend, unload_all
from .mlx_backend import MLXBackend
from .model_files import EMBEDDED_MODELS, ensure_model
from .ollama import OllamaBackend
from .openai_compat import OpenAICompatibleBackend
from .registry import (
    BACKENDS,
    ENTRY_POINT_GROUP,
    SPEC_EXAMPLES,
    failed_backends,
    get_backend,
    register,
    unregister,
)

__all__ = [
    "BACKENDS",
    "SPEC_EXAMPLES",
    "get_backend",
    "register",
    "unregister",
    "failed_backends",
    "ENTRY_POINT_GROUP",
    "BackendError",
    "BackendHTTPError",
    "BackendSetupError",
    "ContextLengthError",
    "LocalBackend",
    "OllamaBackend",
    "OpenAICompatibleBackend",
    "MLXBackend",
    "EMBEDDED_MODELS",
    "ensure_model",
    "unload_all",
]
