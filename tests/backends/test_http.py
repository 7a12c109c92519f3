"""The HTTP backends against a real HTTP server on 127.0.0.1 speaking the OpenAI and Ollama wire
formats."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

from recursive_cleaner.backends import (
    BackendError,
    BackendHTTPError,
    OllamaBackend,
    OpenAICompatibleBackend,
    get_backend,
)
from recursive_cleaner.errors import LLMCallError
from recursive_cleaner.model.llm import call_llm


def openai_reply(
    content: str, *, prompt_tokens: int = 12, completion_tokens: int = 5, cached: int = 0
) -> dict:
    return {
        "id": "chatcmpl-abc123",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
        "system_fingerprint": "fp_test",
    }


def ollama_reply(content: str, *, prompt_eval_count: int | None = 26, eval_count: int = 7) -> dict:
    reply: dict[str, Any] = {
        "model": "qwen2.5-coder:1.5b",
        "created_at": "2026-01-01T00:00:00.000000Z",
        "message": {"role": "assistant", "content": content},
        "done_reason": "stop",
        "done": True,
        "total_duration": 5_000_000,
        "load_duration": 1_000_000,
        "prompt_eval_duration": 1_000_000,
        "eval_count": eval_count,
        "eval_duration": 2_000_000,
    }
    if prompt_eval_count is not None:
        reply["prompt_eval_count"] = prompt_eval_count
    return reply


class FakeServer:
    """What the handler should do next, and what it received."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()
        self.httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.httpd is not None
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"


def make_handler(state: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def send_body(self, status: int, body: bytes, *, length: int | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.loads(raw)
            state.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            prompt = body["messages"][-1]["content"]
            is_ollama = self.path == "/api/chat"
            mode = state.mode
            # a server that refuses structured output, and answers the plain prompt
            if mode == "no-schema":
                mode = (
                    "400"
                    if ("response_format" in body or "format" in body or "grammar" in body)
                    else "ok"
                )
            if mode == "400":
                self.send_body(400, b'{"error": {"message": "response_format is not supported"}}')
                return
            # hold the reply until the test ends; the client has given up by then
            if mode == "slow":
                state.release.wait(10)
                return
            if mode == "ok":
                reply = (
                    ollama_reply(f"echo: {prompt}")
                    if is_ollama
                    else openai_reply(f"echo: {prompt}")
                )
                self.send_body(200, json.dumps(reply).encode())
            elif mode == "500":
                self.send_body(
                    500, b'{"error": {"message": "model exploded", "type": "server_error"}}'
                )
            elif mode == "401":
                self.send_body(
                    401,
                    b'{"error": {"message": "Incorrect API key provided", "code": '
                    b'"invalid_api_key"}}',
                )
            elif mode == "404-model":
                self.send_body(
                    404, b'{"error": "model \\"nope\\" not found, try pulling it first"}'
                )
            elif mode == "cut-json":  # a complete HTTP body whose JSON stops half-way
                self.send_body(200, json.dumps(openai_reply("hello")).encode()[:40])
            elif mode == "short-body":  # the connection closes before Content-Length bytes arrived
                full = json.dumps(openai_reply("hello")).encode()
                self.send_body(200, full[:30], length=len(full))
                self.close_connection = True
            elif mode == "no-choices":
                self.send_body(
                    200, b'{"id": "chatcmpl-1", "object": "chat.completion", "choices": []}'
                )
            elif mode == "error-200":
                self.send_body(200, b'{"error": {"message": "context length exceeded"}}')
            elif mode == "no-message":
                self.send_body(200, b'{"model": "m", "done": true}')
            else:  # pragma: no cover - a typo in a test
                self.send_body(599, b"unknown mode")

    return Handler


@pytest.fixture
def server() -> Iterator[FakeServer]:
    state = FakeServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    httpd.daemon_threads = True
    state.httpd = httpd
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        state.release.set()  # frees handlers blocked in "slow" mode
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def dead_url() -> str:
    """A loopback URL where nothing listens (the port was just free)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def no_sleep(_: float) -> None:
    pass


def failing_call(backend: Any) -> LLMCallError:
    with pytest.raises(LLMCallError) as info:
        call_llm(backend, "hi", attempts=3, sleep=no_sleep)
    err = info.value
    assert err.attempts == 3
    assert isinstance(err.last_error, BackendError)
    assert "\n" not in str(err.last_error)
    return err


# --- OpenAI-compatible ---------------------------------------------------------------


def test_openai_normal_reply_with_usage(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    backend = OpenAICompatibleBackend(
        "test-model", base_url=server.url + "/v1", stop=["```\n"], max_tokens=64
    )
    reply = call_llm(backend, "clean this", attempts=3, sleep=no_sleep)
    assert reply.text == "echo: clean this"
    assert (reply.prompt_tokens, reply.completion_tokens, reply.attempts) == (12, 5, 1)
    assert backend.last_usage == {"prompt_tokens": 12, "completion_tokens": 5, "cached_tokens": 0}
    assert backend.last_finish_reason == "stop"
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    assert request["body"] == {
        "model": "test-model",
        "messages": [{"role": "user", "content": "clean this"}],
        "stream": False,
        "temperature": 0.0,
        "max_tokens": 64,
        "stop": ["```\n"],
    }


def test_openai_key_from_named_env_var_headers_and_system_prompt(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_GATEWAY_KEY", "gw-key")
    backend = OpenAICompatibleBackend(
        "m",
        base_url=server.url + "/v1/",
        api_key_env="MY_GATEWAY_KEY",
        extra_headers={"X-Team": "data"},
        system_prompt="You write Python.",
        extra_body={"top_p": 1},
    )
    assert backend.generate("p") == "echo: p"
    request = server.requests[0]
    assert request["headers"]["Authorization"] == "Bearer gw-key"
    assert request["headers"]["X-Team"] == "data"
    assert request["body"]["messages"][0] == {"role": "system", "content": "You write Python."}
    assert request["body"]["top_p"] == 1
    assert "gw-key" not in repr(backend)


def test_openai_without_key_sends_no_authorization(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend = OpenAICompatibleBackend("m", base_url=server.url + "/v1")
    backend.generate("p")
    assert "Authorization" not in server.requests[0]["headers"]


def test_spec_string_reaches_the_server(server: FakeServer) -> None:
    backend = get_backend(f"openai:spec-model@{server.url}/v1", max_tokens=8)
    assert backend.generate("x") == "echo: x"
    assert server.requests[0]["body"]["model"] == "spec-model"


def test_loopback_ignores_proxy_environment(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    assert OpenAICompatibleBackend("m", base_url=server.url + "/v1").generate("p") == "echo: p"


def test_openai_500_after_retries(server: FakeServer) -> None:
    server.mode = "500"
    err = failing_call(OpenAICompatibleBackend("m", base_url=server.url + "/v1"))
    assert isinstance(err.last_error, BackendHTTPError) and err.last_error.status == 500
    assert "HTTP 500" in str(err) and "model exploded" in str(err)
    assert len(server.requests) == 3


def test_openai_401_hints_at_the_key(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.mode = "401"
    with pytest.raises(BackendHTTPError, match="HTTP 401.*set OPENAI_API_KEY"):
        OpenAICompatibleBackend("m", base_url=server.url + "/v1").generate("p")


def test_openai_connection_refused_names_the_url(dead_url: str) -> None:
    err = failing_call(OpenAICompatibleBackend("m", base_url=dead_url + "/v1"))
    assert "connection refused" in str(err)
    assert dead_url + "/v1/chat/completions" in str(err)


def test_openai_timeout_names_the_seconds(server: FakeServer) -> None:
    server.mode = "slow"
    err = failing_call(OpenAICompatibleBackend("m", base_url=server.url + "/v1", timeout=0.3))
    assert "within 0.3 s (timeout)" in str(err)


def test_openai_truncated_json_names_an_excerpt(server: FakeServer) -> None:
    server.mode = "cut-json"
    err = failing_call(OpenAICompatibleBackend("m", base_url=server.url + "/v1"))
    assert "truncated or invalid JSON" in str(err)
    assert '{"id": "chatcmpl-abc123"' in str(err)


def test_openai_body_shorter_than_content_length(server: FakeServer) -> None:
    server.mode = "short-body"
    err = failing_call(OpenAICompatibleBackend("m", base_url=server.url + "/v1"))
    assert "truncated reply" in str(err) and "30 bytes" in str(err)


def test_openai_missing_choices(server: FakeServer) -> None:
    server.mode = "no-choices"
    err = failing_call(OpenAICompatibleBackend("m", base_url=server.url + "/v1"))
    assert "has no choices" in str(err)


def test_openai_error_object_in_a_200_reply(server: FakeServer) -> None:
    server.mode = "error-200"
    with pytest.raises(BackendError, match="context length exceeded"):
        OpenAICompatibleBackend("m", base_url=server.url + "/v1").generate("p")


def test_openai_then_recovers_within_the_retries(server: FakeServer) -> None:
    backend = OpenAICompatibleBackend("m", base_url=server.url + "/v1")
    calls = {"n": 0}
    original = backend.generate

    def flaky(prompt: str) -> str:
        calls["n"] += 1
        server.mode = "500" if calls["n"] == 1 else "ok"
        return original(prompt)

    backend.generate = flaky  # type: ignore[method-assign]
    reply = call_llm(backend, "p", attempts=3, sleep=no_sleep)
    assert reply.text == "echo: p" and reply.attempts == 2


# --- Ollama --------------------------------------------------------------------------------


def test_ollama_normal_reply_with_usage_and_options(server: FakeServer) -> None:
    backend = OllamaBackend(
        "qwen2.5-coder:1.5b", base_url=server.url, num_ctx=4096, stop=["\n\n"], max_tokens=99
    )
    reply = call_llm(backend, "clean this", attempts=3, sleep=no_sleep)
    assert reply.text == "echo: clean this"
    assert (reply.prompt_tokens, reply.completion_tokens) == (26, 7)
    assert backend.last_finish_reason == "stop"
    [request] = server.requests
    assert request["path"] == "/api/chat"
    assert request["body"] == {
        "model": "qwen2.5-coder:1.5b",
        "messages": [{"role": "user", "content": "clean this"}],
        "stream": False,
        "options": {
            "temperature": 0.0,
            "num_ctx": 4096,
            "num_predict": 99,
            "stop": ["\n\n"],
            "seed": 0,
        },
    }


def test_ollama_spec_with_url_and_keep_alive(server: FakeServer) -> None:
    backend = get_backend(f"ollama:qwen2.5-coder:1.5b@{server.url}", keep_alive="10m")
    assert backend.generate("x") == "echo: x"
    assert server.requests[0]["body"]["keep_alive"] == "10m"
    assert server.requests[0]["body"]["model"] == "qwen2.5-coder:1.5b"


def test_ollama_500_after_retries(server: FakeServer) -> None:
    server.mode = "500"
    err = failing_call(OllamaBackend("m", base_url=server.url))
    assert "HTTP 500" in str(err) and server.url + "/api/chat" in str(err)


def test_ollama_unknown_model_hints_at_pull(server: FakeServer) -> None:
    server.mode = "404-model"
    with pytest.raises(BackendHTTPError, match=r"not found.*ollama pull nope"):
        OllamaBackend("nope", base_url=server.url).generate("p")


def test_ollama_connection_refused(dead_url: str) -> None:
    err = failing_call(OllamaBackend("m", base_url=dead_url))
    assert "connection refused" in str(err) and dead_url in str(err)


def test_ollama_timeout(server: FakeServer) -> None:
    server.mode = "slow"
    err = failing_call(OllamaBackend("m", base_url=server.url, timeout=0.3))
    assert "within 0.3 s (timeout)" in str(err)


def test_ollama_truncated_json(server: FakeServer) -> None:
    server.mode = "cut-json"
    err = failing_call(OllamaBackend("m", base_url=server.url))
    assert "truncated or invalid JSON" in str(err)


def test_ollama_reply_without_message(server: FakeServer) -> None:
    server.mode = "no-message"
    err = failing_call(OllamaBackend("m", base_url=server.url))
    assert "no message content" in str(err)


def test_ollama_cached_prompt_without_prompt_eval_count() -> None:
    """Older Ollama versions leave prompt_eval_count out when the prompt came from the cache."""
    backend = OllamaBackend("m")
    data = ollama_reply("hi", prompt_eval_count=None)
    data["prompt_eval_cached_count"] = 20
    import recursive_cleaner.backends.ollama as ollama_module

    original = ollama_module.post_json
    ollama_module.post_json = lambda *a, **k: data  # type: ignore[assignment]
    try:
        assert backend.generate("p") == "hi"
    finally:
        ollama_module.post_json = original  # type: ignore[assignment]
    assert backend.last_usage == {"prompt_tokens": 0, "completion_tokens": 7, "cached_tokens": 20}


# --- structured replies (a JSON schema holds the reply) ------------------------------------


SCHEMA = {
    "type": "object",
    "properties": {"status": {"enum": ["enum", "none"]}},
    "required": ["status"],
}


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_generate_json_sends_the_schema(server: FakeServer, kind: str) -> None:
    backend = (
        OpenAICompatibleBackend("m", base_url=server.url + "/v1")
        if kind == "openai"
        else OllamaBackend("m", base_url=server.url)
    )
    assert backend.generate_json("draft", SCHEMA) == "echo: draft"
    body = server.requests[-1]["body"]
    sent = body["response_format"]["json_schema"]["schema"] if kind == "openai" else body["format"]
    assert sent == SCHEMA


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_server_that_refuses_the_schema_gets_the_plain_prompt_from_then_on(
    server: FakeServer, kind: str
) -> None:
    server.mode = "no-schema"
    backend = (
        OpenAICompatibleBackend("m", base_url=server.url + "/v1")
        if kind == "openai"
        else OllamaBackend("m", base_url=server.url)
    )
    assert backend.generate_json("draft", SCHEMA) == "echo: draft"
    assert backend.generate_json("again", SCHEMA) == "echo: again"
    held = ["response_format" in r["body"] or "format" in r["body"] for r in server.requests]
    assert held == [True, False, False]  # refused once, then asked plainly without trying again


def test_generate_grammar_sends_the_gbnf_to_an_openai_compatible_server(server: FakeServer) -> None:
    backend = OpenAICompatibleBackend("m", base_url=server.url + "/v1")
    assert backend.generate_grammar("p", 'root ::= "yes"') == "echo: p"
    assert server.requests[-1]["body"]["grammar"] == 'root ::= "yes"'
    ollama = OllamaBackend("m", base_url=server.url)
    assert "grammar" not in ollama.capabilities  # Ollama has no GBNF field
    assert not hasattr(ollama, "generate_grammar")


def test_a_server_that_refuses_the_grammar_gets_the_plain_prompt_from_then_on(
    server: FakeServer,
) -> None:
    server.mode = "no-schema"
    backend = OpenAICompatibleBackend("m", base_url=server.url + "/v1")
    assert backend.generate_grammar("p", 'root ::= "yes"') == "echo: p"
    assert backend.generate_grammar("q", 'root ::= "yes"') == "echo: q"
    assert ["grammar" in r["body"] for r in server.requests] == [True, False, False]
