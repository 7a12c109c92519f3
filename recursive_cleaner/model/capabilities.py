"""What a backend can do beyond ``generate``: declared in its ``capabilities``, read only here."""

from __future__ import annotations

from typing import Any

__all__ = ["GRAMMAR", "JSON", "USAGE", "PROMPT_CACHE", "CAPABILITIES", "capabilities_of"]

GRAMMAR = "grammar"
"""``generate_grammar(prompt, grammar) -> str``: the reply held to a llama.cpp GBNF grammar."""
JSON = "json"
"""``generate_json(prompt, schema) -> str``: the reply held to a JSON schema."""
USAGE = "usage"
"""``last_usage``: ``{"prompt_tokens", "completion_tokens"[, "cached_tokens"]}`` after each call."""
PROMPT_CACHE = "prompt_cache"
"""``prompt_cache_stats() -> dict | None``: what a prompt cache on disk restored and saved."""

CAPABILITIES = {
    GRAMMAR: "generate_grammar",
    JSON: "generate_json",
    USAGE: "last_usage",
    PROMPT_CACHE: "prompt_cache_stats",
}
"""Each capability the library reads -> the method or attribute a backend declaring it has."""


def capabilities_of(backend: Any) -> frozenset[str]:
    """The capabilities ``backend`` declares (its ``capabilities``); none for a plain backend.

    A declared method the backend lacks is a TypeError naming it, so a mistake in a plugin
    shows at once instead of as a failed call. Names the library does not know are kept.
    """
    declared = getattr(backend, "capabilities", None)
    if declared is None:
        return frozenset()
    if isinstance(declared, str) or not all(isinstance(name, str) for name in declared):
        raise TypeError(
            f"{type(backend).__name__}.capabilities must be a set of names such as "
            f"{sorted(CAPABILITIES)}, got {declared!r}"
        )
    names = frozenset(declared)
    for name in sorted(names & {GRAMMAR, JSON, PROMPT_CACHE}):
        if not callable(getattr(backend, CAPABILITIES[name], None)):
            raise TypeError(
                f"{type(backend).__name__} declares the capability {name!r} but has no "
                f"{CAPABILITIES[name]}() method"
            )
    return names
