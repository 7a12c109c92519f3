"""The errors every backend raises: one base class with a clear one-line message."""

from __future__ import annotations

__all__ = [
    "BackendError",
    "BackendHTTPError",
    "BackendSetupError",
    "ContextLengthError",
    "TRANSIENT_STATUSES",
]


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

    def __init__(
        self, message: str, prompt_tokens: int | None = None, n_ctx: int | None = None
    ) -> None:
        super().__init__(message)
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx


TRANSIENT_STATUSES = frozenset({408, 409, 425, 429})
"""HTTP statuses below 500 worth another try: timeout, conflict, too early, too many requests."""


class BackendHTTPError(BackendError):
    """A server answered with an HTTP error status; ``status`` holds it.

    ``retryable`` only for a transient status (408, 409, 425, 429 and 5xx): a wrong key (401) or
    an unknown model (404) gives the same answer next time. ``retry_after``: the seconds the
    server asked to wait (its ``Retry-After``), or None.
    """

    def __init__(
        self, message: str, status: int, url: str = "", retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.url = url
        self.retry_after = retry_after
        self.retryable = status in TRANSIENT_STATUSES or status >= 500
