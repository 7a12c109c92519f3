"""End to end with the real embedded model (slow: a few short prompts, small max_tokens).

Skipped when xllamacpp or the model parts are missing, except under CI=true, where CI
installs every extra and a missing model is a failure.
"""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from recursive_cleaner.backends import BackendError, ContextLengthError, LocalBackend, get_backend
from recursive_cleaner.backends.model_files import ensure_model
from recursive_cleaner.model.llm import call_llm

pytestmark = pytest.mark.real_model

N_CTX = 8192  # LocalBackend's default, so a later test in the session reuses the loaded model


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {reason}: CI must install the 'local' extra")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def backend() -> Iterator[LocalBackend]:
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        _unavailable("xllamacpp is not installed (pip install 'recursive-data-cleaner[local]')")
    try:
        path = ensure_model()
    except BackendError as exc:
        _unavailable(f"the embedded model is unavailable: {exc}")
    yield LocalBackend(path, n_ctx=N_CTX, max_tokens=24, runtime="xllamacpp").load()


def test_loads_and_replies_with_usage(backend: LocalBackend) -> None:
    reply = call_llm(
        backend, "Reply with one word: what colour is the sky on a clear day?", sleep=lambda s: None
    )
    assert reply.text.strip()
    assert reply.prompt_tokens and reply.prompt_tokens > 5
    assert reply.completion_tokens and 0 < reply.completion_tokens <= 24
    assert backend.last_usage is not None and backend.last_usage["cached_tokens"] >= 0


def test_stop_sequences_stop_generation(backend: LocalBackend) -> None:
    prompt = "Write the numbers from 1 to 10 separated by commas, nothing else."
    stopped = LocalBackend(
        backend.model_path, n_ctx=N_CTX, max_tokens=24, stop=[","], runtime="xllamacpp"
    )
    text = stopped.generate(prompt)
    assert "," not in text
    assert stopped.last_usage is not None and stopped.last_usage["completion_tokens"] <= 4
    assert stopped._runtime is backend._runtime  # the loaded model is shared


def test_shared_prefix_is_reused_from_the_cache(backend: LocalBackend) -> None:
    short = LocalBackend(backend.model_path, n_ctx=N_CTX, max_tokens=4, runtime="xllamacpp")
    prompt = "Name one primary colour. Answer in one word.\n" + "Context line that repeats.\n" * 20
    short.generate(prompt)
    short.generate(prompt)
    usage = short.last_usage
    assert usage is not None and usage["cached_tokens"] > usage["prompt_tokens"] // 2


def test_prompt_longer_than_the_context_is_a_clear_error(backend: LocalBackend) -> None:
    with pytest.raises(ContextLengthError, match=f"context window holds {N_CTX} tokens"):
        backend.generate("word " * (N_CTX + 200))


def test_spec_string_builds_a_working_local_backend(backend: LocalBackend) -> None:
    local = get_backend(
        f"local:{backend.model_path}", n_ctx=N_CTX, max_tokens=4, runtime="xllamacpp"
    )
    assert local.generate("Say OK.").strip()


def test_the_field_grammar_holds_the_reply_to_one_function_with_the_asked_name(
    backend: LocalBackend,
) -> None:
    """llama.cpp takes the GBNF of model.grammar: whatever the prompt says, the reply has the form
    the parser reads."""
    from recursive_cleaner.model.grammar import field_reply
    from recursive_cleaner.model.response import parse_response

    held = LocalBackend(backend.model_path, n_ctx=N_CTX, max_tokens=400, runtime="xllamacpp")
    text = held.generate_grammar(
        "Write a Python function that lower-cases record['email']. Reply in any format.",
        field_reply("fix_email").gbnf(),
    )
    # no stop sequence here: the whole form, closing tag included
    assert field_reply("fix_email").accepts(text)
    parsed = parse_response(text)
    assert parsed.name == "fix_email" and "def fix_email(record):" in parsed.code


def test_the_prompt_read_by_one_process_is_not_read_again_by_the_next(
    backend: LocalBackend, tmp_path
) -> None:
    """The slot saved after a runtime's first call is restored by the next runtime (a new process,
    here a new load)."""
    shared = "A line of context that a later run shares.\n" * 30
    prompt = shared + "Name one primary colour. Answer in one word."
    first = LocalBackend(
        backend.model_path, n_ctx=N_CTX, max_tokens=4, runtime="xllamacpp", prompt_cache=tmp_path
    )
    first.generate(prompt)
    stats = first.prompt_cache_stats()
    assert stats is not None and stats["saved_tokens"] >= first.last_usage["prompt_tokens"], stats
    first.unload()  # the next load is a new runtime with an empty slot, as in a new process

    second = LocalBackend(
        backend.model_path, n_ctx=N_CTX, max_tokens=4, runtime="xllamacpp", prompt_cache=tmp_path
    )
    second.generate(shared + "Name one animal. Answer in one word.")
    stats = second.prompt_cache_stats()
    assert stats is not None and stats["restored_tokens"] > 0 and not stats["failures"], stats
    usage = second.last_usage
    # only the question read
    assert usage is not None and usage["cached_tokens"] > usage["prompt_tokens"] * 0.8, usage
    second.unload()
