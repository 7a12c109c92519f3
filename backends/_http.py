"""A tiny JSON-over-HTTP client on the standard library, turning every failure into a one-line
BackendError.

``timeout`` is a deadline for the whole call (connect, send, every read of the reply), not a
limit per socket read: a server that trickles a byte at a time cannot hold a call past it.
"""

from __future__ import annotations

import email.utils
import functools
import http.client
import io
import ipaddress
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Mapping

from .errors import BackendError, BackendHTTPError

__all__ = [
    "post_json",
    "excerpt",
    "normalize_base_url",
    "retry_after_seconds",
    "SchemaFallback",
    "GrammarFallback",
]

_EXCERPT = 200


def excerpt(data: bytes | str, limit: int = _EXCERPT) -> str:
    """A short one-line excerpt of a body, for error messages."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def normalize_base_url(url: str) -> str:
    """``host:port`` -> ``http://host:port``; no trailing slash."""
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    return url.rstrip("/")


def _is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# ---------------------------------------------------------------------------- one deadline per call
def _time_left(deadline: float) -> float:
    """Seconds until ``deadline`` (time.monotonic); TimeoutError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the deadline of the call passed")
    return left


class _DeadlineReader(io.RawIOBase):
    """A socket's reads, each allowed only the time left to the deadline."""

    def __init__(self, sock: Any, deadline: float) -> None:
        self._sock, self._raw, self._deadline = sock, sock.makefile("rb", buffering=0), deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(_time_left(self._deadline))
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineSocket:
    """The connection's socket as http.client sees it: sends and the reply's reads end at the
    deadline."""

    def __init__(self, sock: Any, deadline: float) -> None:
        self._sock, self._deadline = sock, deadline

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))

    def sendall(self, data: Any, *flags: Any) -> None:
        # sendall's timeout covers all of the data
        self._sock.settimeout(_time_left(self._deadline))
        self._sock.sendall(data, *flags)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _DeadlineConnection:
    """Mixed into http.client's connections: connect within the time left, then wrap the socket."""

    def __init__(self, *args: Any, deadline: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        self.deadline = deadline

    def connect(self) -> None:
        self.timeout = _time_left(self.deadline)
        super().connect()  # type: ignore[misc]
        self.sock = _DeadlineSocket(self.sock, self.deadline)  # type: ignore[has-type]


class _HTTP(_DeadlineConnection, http.client.HTTPConnection):
    pass


_CONNECTIONS: dict[type, type] = {http.client.HTTPConnection: _HTTP}
if hasattr(http.client, "HTTPSConnection"):  # Python built without ssl has no HTTPS

    class _HTTPS(_DeadlineConnection, http.client.HTTPSConnection):
        pass

    _CONNECTIONS[http.client.HTTPSConnection] = _HTTPS


class _DeadlineOpen:
    """Mixed into urllib's HTTP(S) handlers: a request with a ``deadline`` uses a deadline
    connection."""

    def do_open(self, http_class: Any, req: urllib.request.Request, **kwargs: Any) -> Any:
        deadline = getattr(req, "deadline", None)
        if deadline is not None and http_class in _CONNECTIONS:
            http_class = functools.partial(_CONNECTIONS[http_class], deadline=deadline)
        return super().do_open(http_class, req, **kwargs)  # type: ignore[misc]


class _HTTPHandler(_DeadlineOpen, urllib.request.HTTPHandler):
    pass


_HANDLERS: list[Any] = [_HTTPHandler]
if hasattr(urllib.request, "HTTPSHandler"):

    class _HTTPSHandler(_DeadlineOpen, urllib.request.HTTPSHandler):
        pass

    _HANDLERS.append(_HTTPSHandler)
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}), *_HANDLERS)


def _opener(url: str) -> urllib.request.OpenerDirector:
    # Loopback servers never go through an HTTP proxy from the environment; others honour it.
    return _DIRECT if _is_loopback(url) else urllib.request.build_opener(*_HANDLERS)


def retry_after_seconds(headers: Any, now: float | None = None) -> float | None:
    """The wait a reply asks for: ``retry-after-ms``, or ``Retry-After`` as seconds or an HTTP-date;
    None if absent or unreadable.

    ``now`` (seconds since the epoch, default the current time) is what an HTTP-date is counted
    from.
    """
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None or when.tzinfo is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if seconds == seconds else None  # NaN is no answer


def _timeout_error(url: str, timeout: float) -> BackendError:
    return BackendError(f"no complete reply from {url} within {timeout:g} s (timeout)")


def post_json(
    url: str,
    payload: Mapping[str, Any],
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """POST ``payload`` as JSON and return the decoded JSON object; BackendError on any failure.

    ``timeout`` is the whole call's budget in seconds (connect, send, headers and body).
    """
    deadline = time.monotonic() + timeout
    body = json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json",
            **(headers or {}),
        },
    )
    request.deadline = deadline  # type: ignore[attr-defined]  # read by _DeadlineOpen
    try:
        with _opener(url).open(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        try:
            detail = excerpt(exc.read() or b"") or exc.reason
        except (OSError, http.client.HTTPException):
            detail = exc.reason
        raise BackendHTTPError(
            f"HTTP {exc.code} from {url}: {detail}",
            status=exc.code,
            url=url,
            retry_after=retry_after_seconds(exc.headers),
        ) from exc
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise _timeout_error(url, timeout) from exc
        if isinstance(reason, ConnectionRefusedError):
            raise BackendError(
                f"cannot connect to {url}: connection refused (is the server running?)"
            ) from exc
        text = getattr(reason, "strerror", None) or str(reason)
        raise BackendError(f"cannot connect to {url}: {text}") from exc
    except TimeoutError as exc:
        raise _timeout_error(url, timeout) from exc
    except http.client.IncompleteRead as exc:
        raise BackendError(
            f"truncated reply from {url}: the connection closed after {len(exc.partial)} bytes: "
            f"{excerpt(exc.partial)!r}"
        ) from exc
    except (http.client.HTTPException, ConnectionError) as exc:
        raise BackendError(f"the connection to {url} failed: {type(exc).__name__}: {exc}") from exc
    except OSError as exc:
        raise BackendError(f"cannot talk to {url}: {exc.strerror or exc}") from exc
    try:
        data = json.loads(raw)
    except ValueError as exc:
        where = str(exc)
        kind = (
            "invalid JSON" if raw.rstrip().endswith((b"}", b"]")) else "truncated or invalid JSON"
        )
        raise BackendError(f"{kind} from {url} ({where}): {excerpt(raw)!r}") from exc
    if not isinstance(data, dict):
        raise BackendError(
            f"unexpected reply from {url}: a JSON {type(data).__name__}, not an object: "
            f"{excerpt(raw)!r}"
        )
    return data


class SchemaFallback:
    """``generate_json`` for an HTTP backend: the schema goes in the body until the server refuses
    it (400/422).

    The backend provides ``payload(prompt)``, ``send(body)``, ``generate(prompt)`` and
    ``hold_schema(body, schema)`` (where its wire format puts the schema).
    """

    structured = True  # per instance once a server refused: ask plainly from then on

    def generate_json(self, prompt: str, schema: dict) -> str:
        """Reply with JSON held to ``schema``; a server that refuses it gets the plain prompt."""
        if self.structured:
            body = self.payload(prompt)  # type: ignore[attr-defined]
            self.hold_schema(body, schema)  # type: ignore[attr-defined]
            reply = _held_reply(self, body)
            if reply is not None:
                return reply
            self.structured = False
        return self.generate(prompt)  # type: ignore[attr-defined]


def _held_reply(backend, body: dict) -> str | None:
    """The reply to a request that holds the model to a schema or grammar; None when the server
    refuses it (400/422)."""
    try:
        return backend.send(body)
    except Exception as exc:  # noqa: BLE001 - only the server's refusal of the field is handled
        if getattr(exc, "status", None) not in (400, 422):
            raise
        return None


class GrammarFallback:
    """``generate_grammar`` for an HTTP backend whose server may take a llama.cpp GBNF ``grammar``
    field.

    llama.cpp's server holds the reply to it; a server that refuses the field (400/422) gets the
    plain prompt from then on; one that ignores it answers as it would anyway. The backend provides
    ``payload(prompt)``, ``send(body)`` and ``generate(prompt)``.
    """

    grammar_accepted = True  # per instance once a server refused: ask plainly from then on

    def generate_grammar(self, prompt: str, grammar: str) -> str:
        """Reply held to the GBNF ``grammar`` where the server can; a server that refuses it gets
        the plain prompt."""
        if self.grammar_accepted:
            body = self.payload(prompt)  # type: ignore[attr-defined]
            body["grammar"] = grammar
            reply = _held_reply(self, body)
            if reply is not None:
                return reply
            self.grammar_accepted = False
        return self.generate(prompt)  # type: ignore[attr-defined]
