"""Count work instead of timing it (no wall time in tests): every call of a Python function in a
package (a profile hook) plus every character handed to a pattern there (each module's patterns
and its ``re`` swapped for counting ones). ``grows_linearly`` checks that doubling an input adds
at most 2.2 times the work the input before added (linear: 2; quadratic: 4).

A run of backtracking inside one pattern call is no count: what this catches is work repeated
over the input (a scan per word, a pair per pair), as the red-team tests of the goals do
(tests/adversarial/test_redteam3_goals.py, the same meter).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import sys
import types
from typing import Callable

import pytest

__all__ = ["Meter", "CountingPattern", "grows_linearly", "work_meter"]


class Meter:
    """The work counted: Python calls into the package and characters handed to its patterns."""

    def __init__(self) -> None:
        self.calls = self.chars = 0


class CountingPattern:
    """A compiled pattern that adds to the meter what each call is handed: the stretch a search,
    split or substitution reads; 1 plus the matched length for a match at one place."""

    def __init__(self, pattern: re.Pattern, meter: Meter) -> None:
        self._p, self._m = pattern, meter
        self.pattern, self.flags, self.groups = pattern.pattern, pattern.flags, pattern.groups
        self.groupindex = pattern.groupindex

    def _scan(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> None:
        self._m.chars += max(min(endpos, len(text)) - pos, 0)

    def search(self, text, pos=0, endpos=sys.maxsize):
        self._scan(text, pos, endpos)
        return self._p.search(text, pos, endpos)

    def finditer(self, text, pos=0, endpos=sys.maxsize):
        self._scan(text, pos, endpos)
        return self._p.finditer(text, pos, endpos)

    def findall(self, text, pos=0, endpos=sys.maxsize):
        self._scan(text, pos, endpos)
        return self._p.findall(text, pos, endpos)

    def sub(self, repl, text, count=0):
        self._scan(text)
        return self._p.sub(repl, text, count)

    def subn(self, repl, text, count=0):
        self._scan(text)
        return self._p.subn(repl, text, count)

    def split(self, text, maxsplit=0):
        self._scan(text)
        return self._p.split(text, maxsplit)

    def match(self, text, pos=0, endpos=sys.maxsize):
        m = self._p.match(text, pos, endpos)
        self._m.chars += 1 + (m.end() - pos if m else 0)
        return m

    def fullmatch(self, text, pos=0, endpos=sys.maxsize):
        m = self._p.fullmatch(text, pos, endpos)
        self._m.chars += 1 + (m.end() - pos if m else 0)
        return m


def _counting_re(meter: Meter) -> types.SimpleNamespace:
    """The ``re`` module with counting patterns behind its functions."""
    proxy = types.SimpleNamespace(**{k: getattr(re, k) for k in dir(re) if not k.startswith("__")})

    def compile_(pattern, flags=0):
        return CountingPattern(re.compile(pattern, flags), meter)

    def scanning(name):
        def call(pattern, text, flags=0):
            return getattr(compile_(pattern, flags), name)(text)

        return call

    proxy.compile = compile_
    for name in ("search", "match", "fullmatch", "finditer", "findall"):
        setattr(proxy, name, scanning(name))
    proxy.split = lambda p, text, maxsplit=0, flags=0: compile_(p, flags).split(text, maxsplit)
    proxy.sub = lambda p, repl, text, count=0, flags=0: compile_(p, flags).sub(repl, text, count)
    return proxy


def _modules(package: types.ModuleType):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        yield importlib.import_module(info.name)


def _counted(value, meter: Meter):
    """``value`` with its patterns counting: a pattern, or a list/tuple of tuples holding some."""
    if isinstance(value, re.Pattern):
        return CountingPattern(value, meter)
    if isinstance(value, (list, tuple)) and any(
        isinstance(x, re.Pattern) for v in value if isinstance(v, tuple) for x in v
    ):
        return type(value)(
            tuple(CountingPattern(x, meter) if isinstance(x, re.Pattern) else x for x in v)
            for v in value
        )
    return value


def _install(monkeypatch: pytest.MonkeyPatch, package: types.ModuleType, meter: Meter):
    """Counting patterns and ``re`` in every module of the package; a hook counting calls."""
    for module in _modules(package):
        for name, value in list(vars(module).items()):
            if value is re:
                monkeypatch.setattr(module, name, _counting_re(meter))
            elif _counted(value, meter) is not value:
                monkeypatch.setattr(module, name, _counted(value, meter))
        for value in list(vars(module).values()):
            for item in value if isinstance(value, (list, tuple)) else [value]:
                for obj in item if isinstance(item, tuple) else (item,):
                    if type(obj).__name__ == "LeadThen":
                        for attr in ("lead", "target", "stops"):
                            found = getattr(obj, attr)
                            monkeypatch.setattr(obj, attr, CountingPattern(found, meter))
    prefix = os.path.dirname(package.__file__) + os.sep

    def hook(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(prefix):
            meter.calls += 1

    return hook


def _clear_caches(package: types.ModuleType) -> None:
    for module in _modules(package):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def work_meter(
    monkeypatch: pytest.MonkeyPatch, package: types.ModuleType
) -> Callable[[Callable[[], object]], int]:
    """``work(run)``: the work counted in ``package`` while ``run()`` runs; the package's caches are
    cleared before and after, so nothing made with a counting pattern outlives the test."""
    meter = Meter()
    hook = _install(monkeypatch, package, meter)

    def work(run: Callable[[], object]) -> int:
        _clear_caches(package)
        meter.calls = meter.chars = 0
        sys.setprofile(hook)
        try:
            run()
        finally:
            sys.setprofile(None)
            _clear_caches(package)
        return meter.calls + meter.chars

    return work


def grows_linearly(
    work: Callable[[Callable[[], object]], int], run: Callable[[int], object], size: int
) -> tuple[int, int, int]:
    """The work of ``run(size)``, ``run(2 * size)``, ``run(4 * size)``, asserted linear: what the
    second doubling adds is at most 2.2 times what the first added."""
    one, two, four = (work(lambda k=k: run(k * size)) for k in (1, 2, 4))
    assert four - two <= 2.2 * (two - one), (one, two, four)
    return one, two, four
