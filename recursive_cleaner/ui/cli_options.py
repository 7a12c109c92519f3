"""The command line's run options: one flag per declared DataCleaner option (``options.OPTIONS``), its defaults.

``run_options(command)`` decorates ``generate`` / ``analyze`` with the flags the declaration gives
that command (spelling, type, bounds, default and help all come from it); ``run_kwargs(opts)`` pops
their values into DataCleaner keyword arguments by flat name. ``backend_options`` /
``parse_backend_options`` give ``--backend-option KEY=VALUE`` (repeatable), passed to the backend's
constructor. ``default_backend`` is ``$RECURSIVE_CLEANER_BACKEND``, else ``local``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import click

from ..options import OPTIONS, OptionSpec
from ..run.setup import BACKEND_ENV, default_backend  # re-exported: defined below the ui for DataCleaner.resume

__all__ = ["run_options", "run_kwargs", "backend_option", "parse_backend_options", "RUN_FLAGS", "BACKEND_ENV",
           "default_backend", "click_option"]


def _type(spec: OptionSpec) -> Any:
    """The click type of a declared option: a choice, a bounded number, or the default's type."""
    if spec.choices:
        return click.Choice(list(spec.choices))
    bounded = spec.low is not None or spec.high is not None
    kind = type(spec.default)
    if kind is int:
        return click.IntRange(spec.low, spec.high, min_open=spec.low_open, max_open=spec.high_open) if bounded else int
    if kind is float:
        return click.FloatRange(spec.low, spec.high, min_open=spec.low_open, max_open=spec.high_open) \
            if bounded else float
    return None


def click_option(spec: OptionSpec) -> Callable:
    """The click decorator of one declared option (its value under the flat name)."""
    kw: dict[str, Any] = {"help": spec.help, "show_default": spec.default != ""}
    decls = list(spec.flags)
    if isinstance(spec.default, bool):
        if spec.negatable or (spec.negatable is None and spec.default):
            decls[-1] = f"{decls[-1]}/--no-{decls[-1][2:]}"
        else:
            kw.update(is_flag=True, show_default=False)
    else:
        kind = _type(spec)
        if kind is not None:
            kw["type"] = kind
    if spec.metavar:
        kw["metavar"] = spec.metavar
    default = spec.cli_none if spec.default is None and spec.cli_none is not None else spec.default
    return click.option(*decls, spec.name, default=default, **kw)


RUN_FLAGS = [spec.name for spec in OPTIONS if spec.flags]
"""The DataCleaner keywords (flat names) these flags set (tests check each one reaches DataCleaner)."""


def run_options(command: str) -> Callable:
    """Add the flag of every declared option ``command`` has, in declaration order, to a click command."""
    def add(f: Callable) -> Callable:
        for spec in reversed(OPTIONS):
            if spec.flags and command in spec.commands:
                f = click_option(spec)(f)
        return f
    return add


def run_kwargs(opts: dict) -> dict[str, Any]:
    """Pop the flags' values out of ``opts`` as DataCleaner keyword arguments (``--reflection off``, ``--report ''``:
    None)."""
    kwargs = {spec.name: opts.pop(spec.name) for spec in OPTIONS if spec.name in opts}
    for spec in OPTIONS:
        if spec.cli_none is not None and kwargs.get(spec.name) == spec.cli_none:
            kwargs[spec.name] = None
    return kwargs


backend_option = click.option(
    "--backend-option", "backend_options", multiple=True, default=(), metavar="KEY=VALUE",
    help="A backend setting, repeatable: timeout=60, max_tokens=2048, temperature=0.2, ... "
         "(VALUE read as JSON when it parses: numbers, true/false, null).")


def parse_backend_options(items: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """``("timeout=60", "model_path=/m.gguf")`` -> ``{"timeout": 60, "model_path": "/m.gguf"}``; BadParameter otherwise."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="'--backend-option'")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out
