"""MLXBackend: an MLX model on Apple Silicon through mlx_lm (load once, stream, stop on stop
sequences)."""

from __future__ import annotations

import importlib
import threading
from pathlib import Path
from typing import Any, Sequence

from .errors import BackendSetupError

__all__ = ["MLXBackend", "MLX_HINT"]

MLX_HINT = "pip install 'recursive-data-cleaner[mlx]' (Apple Silicon only)"

_LOADED: dict[str, tuple[Any, Any]] = {}
_LOCK = threading.Lock()


def _mlx_lm() -> tuple[Any, Any]:
    """The ``mlx_lm`` module and its ``make_sampler``, or BackendError with the install hint."""
    try:
        mlx_lm = importlib.import_module("mlx_lm")
        sample_utils = importlib.import_module("mlx_lm.sample_utils")
    except ImportError as exc:
        raise BackendSetupError(
            f"the MLX backend needs mlx-lm, which is not installed ({exc}): {MLX_HINT}"
        ) from exc
    return mlx_lm, sample_utils.make_sampler


def _cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """``text`` cut before the first stop sequence, and whether one was found."""
    hits = [i for i in (text.find(s) for s in stop if s) if i >= 0]
    return (text[: min(hits)], True) if hits else (text, False)


class MLXBackend:
    """Runs an MLX model folder (or hub id cached locally) with its tokenizer's chat template."""

    capabilities = frozenset({"usage"})  # last_usage after each call

    def __init__(
        self,
        model_path: str | Path,
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        stop: Sequence[str] | None = None,
        system_prompt: str | None = None,
    ) -> None:
        if not str(model_path):
            raise ValueError("MLXBackend needs a model path")
        self.model_path = str(model_path)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.stop = list(stop) if stop else None
        self.system_prompt = system_prompt
        self.last_usage: dict[str, int] | None = None
        self.last_finish_reason: str | None = None
        self._model: Any = None
        self._tokenizer: Any = None

    def __repr__(self) -> str:
        return f"MLXBackend(model_path={self.model_path!r})"

    def load(self) -> "MLXBackend":
        """Load the model now (shared with other MLXBackends on the same path); return self."""
        if self._model is not None:
            return self
        mlx_lm, _ = _mlx_lm()
        with _LOCK:
            if self.model_path not in _LOADED:
                try:
                    _LOADED[self.model_path] = tuple(mlx_lm.load(self.model_path))[:2]
                except Exception as exc:
                    raise BackendSetupError(
                        f"mlx_lm could not load {self.model_path}: {exc}"
                    ) from exc
            self._model, self._tokenizer = _LOADED[self.model_path]
        return self

    def chat_prompt(self, prompt: str) -> str:
        """``prompt`` wrapped in the model's chat template, ready for generation."""
        self.load()
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages.append({"role": "user", "content": prompt})
        return self._tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True
        )

    def generate(self, prompt: str) -> str:
        """Reply to ``prompt``; sets ``last_usage`` from mlx_lm's token counts."""
        self.last_usage = None
        self.last_finish_reason = None
        mlx_lm, make_sampler = _mlx_lm()
        text_in = self.chat_prompt(prompt)
        text, prompt_tokens, generated, finish = "", 0, 0, None
        for response in mlx_lm.stream_generate(
            self._model,
            self._tokenizer,
            text_in,
            max_tokens=self.max_tokens,
            sampler=make_sampler(temp=self.temperature),
        ):
            text += response.text
            prompt_tokens, generated = response.prompt_tokens, response.generation_tokens
            finish = response.finish_reason
            if self.stop:
                text, hit = _cut_at_stop(text, self.stop)
                if hit:
                    finish = "stop"
                    break
        self.last_usage = {"prompt_tokens": int(prompt_tokens), "completion_tokens": int(generated)}
        self.last_finish_reason = finish
        return text
