"""A tiny JSON-over-HTTP client on the standard library, turning every failure into a one-line BackendError."""

from __future__ import annotations

import http.client
import ipaddress
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Mapping

from .errors import BackendError, BackendHTTPError

__all__ = ["post_json", "excerpt", "normalize_base_url"]

_EXCERPT = 200
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


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


def _opener(url: str) -> urllib.request.OpenerDirector:
    # Loopback servers never go through an HTTP proxy from the environment; others honour it.
    return _DIRECT if _is_loopback(url) else urllib.request.build_opener()


def _timeout_error(url: str, timeout: float) -> BackendError:
    return BackendError(f"no reply from {url} within {timeout:g} s (timeout)")


def post_json(
    url: str,
    payload: Mapping[str, Any],
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """POST ``payload`` as JSON and return the decoded JSON object; BackendError on any failure."""
    body = json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json", **(headers or {})},
    )
    try:
        with _opener(url).open(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        try:
            detail = excerpt(exc.read() or b"") or exc.reason
        except (OSError, http.client.HTTPException):
            detail = exc.reason
        raise BackendHTTPError(f"HTTP {exc.code} from {url}: {detail}", status=exc.code, url=url) from exc
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise _timeout_error(url, timeout) from exc
        if isinstance(reason, ConnectionRefusedError):
            raise BackendError(f"cannot connect to {url}: connection refused (is the server running?)") from exc
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
        kind = "invalid JSON" if raw.rstrip().endswith((b"}", b"]")) else "truncated or invalid JSON"
        raise BackendError(f"{kind} from {url} ({where}): {excerpt(raw)!r}") from exc
    if not isinstance(data, dict):
        raise BackendError(
            f"unexpected reply from {url}: a JSON {type(data).__name__}, not an object: {excerpt(raw)!r}"
        )
    return data
