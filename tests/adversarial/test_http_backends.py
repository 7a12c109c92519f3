"""The HTTP backends against a local server that misbehaves: a trickled reply, error statuses,
Retry-After.

Issue 17, items 13 and 14 (docs/safety.md, "Cleanup and time limits"): ``timeout`` is a deadline
for the whole call; only transient HTTP statuses are retried, after the wait the server asks for
(capped); OPENAI_BASE_URL and OLLAMA_HOST are read like the official clients read them.
"""

from __future__ import annotations

import email.utils
import json
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
from recursive_cleaner.backends._http import retry_after_seconds
from recursive_cleaner.backends.ollama import ollama_host
from recursive_cleaner.errors import LLMCallError
from recursive_cleaner.model.llm import RETRY_AFTER_MAX, call_llm

TRICKLE_EVERY = 0.05  # seconds between two bytes of a trickled reply
OPENAI_OK = {
    "choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]
}
OLLAMA_OK = {"message": {"role": "assistant", "content": "ok"}, "done": True, "done_reason": "stop"}


class Server:
    """What the next replies are, what came in, and whether a trickled reply was sent to its end."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.status = 200
        self.headers: dict[str, str] = {}
        self.requests: list[str] = []
        self.finished = threading.Event()
        self.stop = threading.Event()
        self.url = ""


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def trickle(self, data: bytes) -> None:
            for i in range(len(data)):
                if server.stop.wait(TRICKLE_EVERY):
                    return
                try:
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                except OSError:  # the client gave up: what the tests expect
                    return
            server.finished.set()

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            server.requests.append(self.path)
            body = json.dumps(OLLAMA_OK if self.path == "/api/chat" else OPENAI_OK).encode()
            head = (
                f"HTTP/1.1 {server.status} X\r\nContent-Type: application/json\r\n"
                + "".join(f"{k}: {v}\r\n" for k, v in server.headers.items())
                + f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            self.close_connection = True
            if server.mode == "trickle-body":
                self.wfile.write(head)
                self.wfile.flush()
                self.trickle(body)
            elif server.mode == "trickle-headers":
                self.trickle(head + body)
            else:
                self.wfile.write(head + body)

    return Handler


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = "http://127.0.0.1:%d" % httpd.server_address[1]
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def backend(kind: str, server: Server, **options: Any) -> Any:
    if kind == "openai":
        return OpenAICompatibleBackend("m", base_url=server.url + "/v1", **options)
    return OllamaBackend("m", base_url=server.url, **options)


# ---------------------------------------------------------------------------- 13: one deadline per
# call
@pytest.mark.parametrize("kind", ["openai", "ollama"])
@pytest.mark.parametrize("mode", ["trickle-body", "trickle-headers"])
def test_a_trickling_server_cannot_hold_a_call_past_its_timeout(server, kind, mode):
    """Every byte comes well within the timeout, the whole reply never does: the call stops at the
    deadline."""
    server.mode = mode
    with pytest.raises(
        BackendError, match=r"no complete reply from .* within 0\.3 s \(timeout\)"
    ) as info:
        backend(kind, server, timeout=0.3).generate("p")
    assert not server.finished.is_set()  # the server was still sending when the call gave up
    assert not isinstance(info.value, BackendHTTPError)


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_a_normal_reply_within_the_deadline(server, kind):
    assert backend(kind, server, timeout=5).generate("p") == "ok"


# ---------------------------------------------------------------------------- 14: what is retried,
# and when
def _call(kind: str, server: Server) -> tuple[list[float], LLMCallError | None]:
    sleeps: list[float] = []
    try:
        call_llm(backend(kind, server), "p", attempts=3, sleep=sleeps.append)
    except LLMCallError as exc:
        return sleeps, exc
    return sleeps, None


@pytest.mark.parametrize("kind", ["openai", "ollama"])
@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
def test_a_client_error_is_not_retried(server, kind, status):
    server.status = status
    sleeps, err = _call(kind, server)
    assert err is not None and err.attempts == 1 and isinstance(err.last_error, BackendHTTPError)
    assert err.last_error.status == status and not err.last_error.retryable
    assert len(server.requests) == 1 and sleeps == []


@pytest.mark.parametrize("status", [408, 409, 425, 429, 500, 502, 503, 504])
def test_a_transient_status_is_retried_with_backoff(server, status):
    server.status = status
    sleeps, err = _call("openai", server)
    assert err is not None and err.attempts == 3 and len(server.requests) == 3
    assert sleeps == [1.0, 2.0]  # call_llm's exponential backoff: no Retry-After was sent


@pytest.mark.parametrize("kind", ["openai", "ollama"])
@pytest.mark.parametrize(
    "header, value, wait",
    [
        ("Retry-After", "7", 7.0),
        ("Retry-After", "0", 0.0),
        ("Retry-After", "3600", RETRY_AFTER_MAX),  # a server asking for an hour waits the cap
        ("retry-after-ms", "1500", 1.5),
        ("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT", RETRY_AFTER_MAX),
        ("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT", 0.0),  # a date passed: at once
        ("Retry-After", "soon", None),  # unreadable: the backoff
    ],
)
def test_429_waits_what_retry_after_asks(server, kind, header, value, wait):
    server.status, server.headers = 429, {header: value}
    sleeps, err = _call(kind, server)
    assert err is not None and err.attempts == 3
    assert sleeps == ([1.0, 2.0] if wait is None else [wait, wait])


def test_a_503_with_retry_after_then_success(server):
    server.status, server.headers = 503, {"Retry-After": "2"}
    sleeps: list[float] = []

    def recover(seconds: float) -> None:
        sleeps.append(seconds)
        server.status, server.headers = 200, {}

    reply = call_llm(backend("openai", server), "p", attempts=3, sleep=recover)
    assert reply.text == "ok" and reply.attempts == 2 and sleeps == [2.0]


def test_retry_after_as_an_http_date_counts_from_now():
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 42, usegmt=True)
    assert retry_after_seconds({"retry-after": date}, now=now) == 42.0
    assert retry_after_seconds({"retry-after": "-5"}, now=now) == 0.0
    assert retry_after_seconds({"retry-after": "nan"}, now=now) is None
    assert retry_after_seconds({}, now=now) is None and retry_after_seconds(None) is None


def test_connection_errors_are_still_retried():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    with pytest.raises(LLMCallError) as info:
        call_llm(
            OllamaBackend("m", base_url=f"127.0.0.1:{port}"), "p", attempts=3, sleep=sleeps.append
        )
    assert (
        info.value.attempts == 3
        and "connection refused" in str(info.value)
        and sleeps == [1.0, 2.0]
    )


# ---------------------------------------------------------------------------- 14: the official
# clients' variables
def test_openai_base_url_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1/")
    assert OpenAICompatibleBackend("m").generate("p") == "ok"
    assert get_backend("openai:m").url == server.url + "/v1/chat/completions"
    assert server.requests == ["/v1/chat/completions"]
    assert (
        get_backend("openai:m@http://elsewhere:1/v1").url
        == "http://elsewhere:1/v1/chat/completions"
    )
    assert (
        OpenAICompatibleBackend("m", base_url="http://given:2/v1").url
        == "http://given:2/v1/chat/completions"
    )


def test_without_openai_base_url_the_defaults_stay(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert get_backend("openai:m").url == "https://api.openai.com/v1/chat/completions"
    assert OpenAICompatibleBackend("m").url == "http://localhost:8000/v1/chat/completions"


def test_ollama_host_from_the_environment_without_a_scheme(server, monkeypatch):
    # "127.0.0.1:PORT", as ollama's docs set it
    monkeypatch.setenv("OLLAMA_HOST", server.url.removeprefix("http://"))
    assert OllamaBackend("m").generate("p") == "ok"
    assert get_backend("ollama:m").generate("p") == "ok"
    assert server.requests == ["/api/chat", "/api/chat"]
    assert OllamaBackend("m", base_url="http://given:3").url == "http://given:3/api/chat"


@pytest.mark.parametrize(
    "value, url",
    [
        (None, "http://localhost:11434"),
        ("", "http://localhost:11434"),
        ("example.com", "http://example.com:11434"),
        ("example.com:56789", "http://example.com:56789"),
        (":56789", "http://127.0.0.1:56789"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        ("http://example.com", "http://example.com:80"),
        ("https://example.com", "https://example.com:443"),
        ("https://example.com:8443/ollama/", "https://example.com:8443/ollama"),
        ("[::1]:8080", "http://[::1]:8080"),
    ],
)
def test_ollama_host_is_read_like_the_official_client(value, url, monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert ollama_host(value) == url
    if value is not None:
        monkeypatch.setenv("OLLAMA_HOST", value)
        assert ollama_host() == url


def test_a_bad_ollama_port_is_one_clear_error():
    with pytest.raises(ValueError, match="bad Ollama host 'example.com:99999'"):
        OllamaBackend("m", base_url="example.com:99999")
