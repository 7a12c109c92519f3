"""The ``Kind`` every field kind is, and the one registry the stages loop over."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any, Callable

from ... import toolkit
from ...errors import clip_text

__all__ = [
    "Kind",
    "Candidate",
    "REGISTRY",
    "register",
    "get",
    "by_priority",
    "read_once",
    "members",
]

_READ: dict[tuple[int, str], tuple[tuple, Any]] = {}  # (id of the values, what) -> (them, it)
_READ_LOCK = threading.Lock()
_MAX_READ = 64  # tuples whose reading is kept (the last ones asked about)
_SCANNED = 8  # a tuple this short is scanned: a set would not be faster


@dataclass(frozen=True, eq=True)
class Candidate:
    """One toolkit call on a field's value: ``primitive(value, *args, **kwargs)``."""

    primitive: str
    args: tuple = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    def run(self, value: Any) -> Any:
        return getattr(toolkit, self.primitive)(value, *self.args, **dict(self.kwargs))

    def arguments(self) -> str:
        """ ", 'kg', digits=2": the arguments after the value, as Python literals."""
        return "".join(f", {a!r}" for a in self.args) + "".join(
            f", {k}={v!r}" for k, v in self.kwargs
        )

    def call(self) -> str:
        return f"{self.primitive}(value{self.arguments()})"


class Kind:
    """One field kind: its name, the toolkit primitive that writes it, what conforms, how it is
    described.

    A subclass sets the class attributes and overrides ``conforms`` (``describe`` when the allowed
    values change the words, ``candidates`` when its primitive takes parameters);
    ``register(instance)`` adds it. ``conforms`` is only asked about a present value (None and ""
    are missing: they conform to every kind).
    """

    name: str = ""
    primitive: str = ""  # the toolkit call that turns values into this kind ("" for none)
    priority: float = 100  # when one field collects several kinds, the lowest wins
    # how the model's draft menu shows it ("date (YYYY-MM-DD)"); "" keeps it off the menu
    menu: str = ""
    noun: str = "values"  # what the profile calls the values ("dates")
    # the short noun phrase of ``describe`` when the allowed values do not change it
    words: str = ""
    # a regex every conforming text fully matches ("": none); exact: matching it is conforming
    regex: str = ""
    regex_exact: bool = True
    # what writing this kind may do to a value's content (``profiling.harm.CHANGES``: "labels",
    # "trimmed", ...), allowed by the judge of harm where a clause binds the field to the kind
    changes: frozenset[str] = frozenset()

    def describe(self, allowed: tuple[str, ...], csv_strings: bool = False) -> str:
        """A short noun phrase for the format: 'ISO dates (YYYY-MM-DD)'."""
        return self.words or self.name

    def conforms(self, value: Any, allowed: tuple[str, ...], csv_strings: bool = False) -> bool:
        """Whether one present value has the format."""
        return False

    def regex_for(self, allowed: tuple[str, ...]) -> str:
        """The regex every conforming value fully matches ("" when none says it; schemas use it)."""
        return self.regex

    def problem(self, allowed: tuple[str, ...]) -> str:
        """What makes ``allowed`` unusable for this kind ("" for nothing): a spec file is loaded
        only without one (the file is untrusted: users edit it). Here: its regex must compile."""
        try:
            pattern = self.regex_for(allowed)
            if pattern:
                re.compile(pattern)
        except (re.error, ValueError, TypeError, RecursionError) as exc:
            return f"allowed {clip_text(repr(list(allowed)), 80)} gives no pattern ({exc})"
        return ""

    def values(self, allowed: tuple[str, ...]) -> tuple[str, ...] | None:
        """Every conforming value, when they are a known list (an enumeration, codes); else None."""
        return None

    def candidates(
        self,
        allowed: tuple[str, ...],
        strings: list[str],
        words: str,
        examples: tuple[tuple[str, str], ...],
    ) -> list[Candidate]:
        """The toolkit calls that write this kind, with the parameters the field's data
        (``strings``), the goals' ``words`` about it and its ``examples`` call for, in the order to
        try them."""
        return [Candidate(self.primitive)] if self.primitive else []

    def __repr__(self) -> str:
        return f"<kind {self.name}>"


def read_once(values: tuple, what: str, read: Callable[[tuple], Any]) -> Any:
    """``read(values)``, kept while the same tuple object is asked about again: a kind's
    ``conforms`` is asked about every value of a field with one ``allowed`` tuple (a spec's, kept
    as long as the spec), so what it reads from it (a set, their shapes) is read once, not per
    value (24,000 allowed values x 24,000 rows were a tuple scan each: 7 s). Anything but a tuple
    is read each time."""
    if not isinstance(values, tuple):
        return read(values)
    at = (id(values), what)
    with _READ_LOCK:
        held = _READ.get(at)
        if held is not None and held[0] is values:  # kept here: its id is not another's
            return held[1]
    made = read(values)
    with _READ_LOCK:
        if len(_READ) >= _MAX_READ:
            _READ.pop(next(iter(_READ)))
        _READ[at] = (values, made)
    return made


def members(values: tuple) -> tuple | frozenset:
    """``values`` to test ``x in`` against: a frozenset made once per tuple (``read_once``); the
    tuple itself when it is short or holds something unhashable."""
    if len(values) <= _SCANNED or not isinstance(values, tuple):
        return values
    try:
        return read_once(values, "members", frozenset)
    except TypeError:
        return values


REGISTRY: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Add a kind (built-in or a plug-in's) to the registry; its name must be new."""
    if not kind.name or not kind.name.isidentifier():
        raise ValueError(f"a kind needs a name that is an identifier, got {kind.name!r}")
    if kind.name in REGISTRY:
        raise ValueError(f"a kind named {kind.name!r} is already registered")
    REGISTRY[kind.name] = kind
    return kind


def get(name: str | None) -> Kind | None:
    """The registered kind of that name, or None."""
    return REGISTRY.get(name or "")


def by_priority() -> tuple[str, ...]:
    """Kind names, the one that wins a field first."""
    return tuple(sorted(REGISTRY, key=lambda n: (REGISTRY[n].priority, list(REGISTRY).index(n))))
