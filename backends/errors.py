"""The errors every backend raises: one base class with a clear one-line message."""

from __future__ import annotations

__all__ = ["BackendError", "BackendHTTPError", "BackendSetupError", "ContextLengthError"]


class BackendError(RuntimeError):
    """A backend failed: not installed, unreachable, or it gave an unusable reply."""


class BackendSetupError(BackendError):
    """The backend cannot start: a runtime not installed, a model file missing, a bad setting.

    Not retried: trying the same call again cannot install a package or find a file.
    """

    retryable = False


class ContextLengthError(BackendError):
    """The prompt (plus room for the reply) does not fit the model's context window."""

    retryable = False  # the same prompt will not fit next time either

    def __init__(self, message: str, prompt_tokens: int | None = None, n_ctx: int | None = None) -> None:
        super().__init__(message)
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx


class BackendHTTPError(BackendError):
    """A server answered with an HTTP error status; ``status`` holds it."""

    def __init__(self, message: str, status: int, url: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.url = url
