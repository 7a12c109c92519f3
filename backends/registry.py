"""Spec strings to backends: a registry of ``name -> factory(arg, **options)`` that plugins join.

Built-ins and third-party packages come in through the same door: the entry-point group
``recursive_cleaner.backends`` (read on first use) calls :func:`register` for each name, and so
may code in the same process. ``get_backend("name:ARG", **options)`` calls that name's factory
with ``ARG``. A plugin that fails to load is listed in :func:`failed_backends` and named in a
one-line error when it is asked for; it never breaks the built-ins or the import.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Any, Callable

from .builtin import BUILTINS, SPEC_EXAMPLES
from .errors import BackendSetupError

__all__ = [
    "BACKENDS",
    "SPEC_EXAMPLES",
    "ENTRY_POINT_GROUP",
    "BackendRegistry",
    "FunctionBackend",
    "get_backend",
    "register",
    "unregister",
    "failed_backends",
]

ENTRY_POINT_GROUP = "recursive_cleaner.backends"
"""The entry-point group a backend plugin declares itself in (pyproject.toml's
``[project.entry-points."recursive_cleaner.backends"]``)."""

Factory = Callable[..., Any]
_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")
_OWN = "recursive_cleaner.backends."  # read first, so no plugin can take a built-in's name


def _one_line(text: str, limit: int = 300) -> str:
    words = " ".join(str(text).split())
    return words if len(words) <= limit else words[: limit - 3] + "..."


def _where(point: Any) -> str:
    """``module:attr from DIST VERSION`` of an entry point (the value alone without a dist)."""
    try:
        dist = point.dist
        return f"{point.value} from {dist.metadata['Name']} {dist.version}"
    except Exception:  # noqa: BLE001 - no distribution known: the value alone
        return point.value


def _named(factory: Factory) -> str:
    """``module:qualname`` of a factory registered in process."""
    module = getattr(factory, "__module__", None) or "?"
    return f"{module}:{getattr(factory, '__qualname__', type(factory).__name__)}"


class FunctionBackend:
    """A plugin factory's plain ``fn(prompt) -> str``, as a backend that declares no capability."""

    capabilities: frozenset = frozenset()

    def __init__(self, fn: Callable[[str], str]) -> None:
        self.fn = fn

    def generate(self, prompt: str) -> str:
        """The function's reply to ``prompt``."""
        return self.fn(prompt)

    def __repr__(self) -> str:
        return f"FunctionBackend({self.fn!r})"


class BackendRegistry(Mapping):
    """Backend names -> factories; the group's entry points join on first use (read-only)."""

    def __init__(
        self, group: str = ENTRY_POINT_GROUP, builtins: Mapping[str, Factory] = BUILTINS
    ) -> None:
        self.group = group
        self.builtins = dict(builtins)
        self.origins: dict[str, str] = {}  # name -> where its factory came from
        self._factories: dict[str, Factory] = {}
        self._failed: dict[str, str] = {}
        self._seen: set[tuple[str, str]] = set()
        self._scanned = False
        self._lock = threading.RLock()

    def register(
        self, name: str, factory: Factory, *, replace: bool = False, origin: str = ""
    ) -> Factory:
        """Add ``name`` (lower case letters, digits, ``_``, ``-``); a taken one needs replace."""
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(
                "a backend name is lower case letters, digits, '_' or '-' (the part "
                f"of the spec before ':'), got {name!r}"
            )
        if not callable(factory):
            raise TypeError(
                f"the factory of backend {name!r} is not callable: {type(factory).__name__}"
            )
        with self._lock:
            taken = self._factories.get(name)
            if taken is not None and taken is not factory and not replace:
                raise ValueError(
                    f"the backend name {name!r} is taken by "
                    f"{self.origins.get(name) or taken!r}; pass replace=True to "
                    "replace it"
                )
            self._factories[name] = factory
            self.origins[name] = origin or _named(factory)
            self._failed.pop(name, None)
        return factory

    def unregister(self, name: str) -> None:
        """Forget ``name`` (a built-in comes back on the next scan)."""
        with self._lock:
            self._factories.pop(name, None)
            self.origins.pop(name, None)
            self._failed.pop(name, None)
            self._seen = {seen for seen in self._seen if seen[0] != name}
            self._scanned = False

    def failed(self) -> dict[str, str]:
        """Plugins that could not be loaded: name -> the one-line reason."""
        self.scan()
        with self._lock:
            return dict(self._failed)

    def scan(self, again: bool = False) -> None:
        """Read the entry points not read yet (``again``: also after the first scan), then the
        built-ins the group lacks (a checkout that is not installed)."""
        with self._lock:
            if self._scanned and not again:
                return
            self._scanned = True
            for point in sorted(self._entry_points(), key=lambda p: not p.value.startswith(_OWN)):
                self._load(point)
            for name, factory in self.builtins.items():
                if name not in self._factories:
                    self.register(name, factory, origin=f"{_OWN}builtin (built in)")

    def factory(self, name: str) -> Factory:
        """``name``'s factory; BackendSetupError for a plugin that failed, KeyError if unknown."""
        self.scan()
        with self._lock:
            if name not in self._factories and name not in self._failed:
                importlib.invalidate_caches()  # installed (or put on sys.path) since the first scan
                self.scan(again=True)
            if name in self._failed:
                raise BackendSetupError(self._failed[name])
            return self._factories[name]

    def _entry_points(self) -> list:
        from importlib.metadata import entry_points

        try:
            return list(entry_points(group=self.group))
        except Exception as exc:  # noqa: BLE001 - broken metadata: the built-ins still come
            self._failed["?"] = _one_line(
                f"the {self.group} entry points could not be read: {type(exc).__name__}: {exc}"
            )
            return []

    def _load(self, point: Any) -> None:
        """Register one entry point, or record in one line why it cannot be."""
        key = (point.name.lower(), point.value)
        if key in self._seen:
            return
        self._seen.add(key)
        where, name = _where(point), key[0]
        if name in self._factories:
            if self.origins.get(name) != where:
                self._failed.setdefault(
                    f"{name} ({where})",
                    f"backend plugin {name!r} ({where}) "
                    f"is not used: the name is taken by {self.origins[name]}",
                )
            return
        try:
            self.register(name, point.load(), origin=where)
        except Exception as exc:  # noqa: BLE001 - reported when asked for, never raised here
            self._failed[name] = _one_line(
                f"backend plugin {name!r} ({where}) failed to load: {type(exc).__name__}: {exc}"
            )

    def __getitem__(self, name: str) -> Factory:
        self.scan()
        return self._factories[name]

    def __iter__(self) -> Iterator[str]:
        self.scan()
        return iter(sorted(self._factories))

    def __len__(self) -> int:
        self.scan()
        return len(self._factories)

    def __repr__(self) -> str:
        return f"BackendRegistry({', '.join(self)})"


BACKENDS = BackendRegistry()
"""Every registered backend: name -> factory (built-ins and plugins; add with :func:`register`)."""


def register(name: str, factory: Factory, *, replace: bool = False) -> Factory:
    """Make ``get_backend("name:ARG", **options)`` call ``factory(ARG, **options)``."""
    return BACKENDS.register(name, factory, replace=replace)


def unregister(name: str) -> None:
    """Remove a backend registered in this process."""
    BACKENDS.unregister(name)


def failed_backends() -> dict[str, str]:
    """The backend plugins that could not be loaded: name -> a one-line reason."""
    return BACKENDS.failed()


def get_backend(spec: str, **options: Any) -> Any:
    """Build a backend from a spec string; ``options`` go to its factory (e.g. ``stop=[...]``)."""
    if not isinstance(spec, str):
        raise TypeError(
            f"a backend spec is a string like 'local' or 'ollama:MODEL', got {type(spec).__name__}"
        )
    prefix, _, arg = spec.strip().partition(":")
    name = prefix.strip().lower()
    try:
        factory = BACKENDS.factory(name)
    except KeyError:
        broken = sorted(n for n in BACKENDS.failed() if n != "?" and " " not in n)
        failed = f"; failed to load: {', '.join(broken)}" if broken else ""
        known = ", ".join(BACKENDS)
        raise ValueError(
            f"unknown backend {spec!r}: known prefixes are {known}{failed} "
            f"(e.g. {', '.join(SPEC_EXAMPLES[:4])})"
        ) from None
    built = factory(arg.strip(), **options)
    if callable(getattr(built, "generate", None)):
        return built
    if callable(built):
        return FunctionBackend(built)
    raise TypeError(
        f"backend {name!r} ({BACKENDS.origins.get(name, '?')}) built a "
        f"{type(built).__name__}, not a backend: an object with generate(prompt) -> "
        "str, or a function prompt -> str"
    )
