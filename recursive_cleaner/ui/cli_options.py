"""The command line's run options: a flag per declared DataCleaner option (``options.OPTIONS``).

``run_options(command)`` decorates ``generate`` / ``analyze`` with the flags the declaration
gives that command (spelling, type, bounds, default and help all come from it);
``run_kwargs(opts)`` pops their values into DataCleaner keyword arguments by flat name.
``backend_options`` / ``parse_backend_options`` give ``--backend-option KEY=VALUE``
(repeatable), passed to the backend's constructor. ``default_backend`` is
``$RECURSIVE_CLEANER_BACKEND``, else ``local``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import click

from ..options import OPTIONS, OptionSpec

# re-exported: defined below the ui for DataCleaner.resume
from ..run.setup import BACKEND_ENV, default_backend

__all__ = [
    "run_options",
    "run_kwargs",
    "backend_option",
    "parse_backend_options",
    "RUN_FLAGS",
    "BACKEND_ENV",
    "default_backend",
    "click_option",
]


def _type(spec: OptionSpec) -> Any:
    """The click type of a declared option: a choice, a bounded number, or the default's type."""
    if spec.choices:
        return click.Choice(list(spec.choices))
    bounds = dict(min=spec.low, max=spec.high, min_open=spec.low_open, max_open=spec.high_open)
    bounded = spec.low is not None or spec.high is not None
    if type(spec.default) is int:
        return click.IntRange(**bounds) if bounded else int
    if type(spec.default) is float:
        return click.FloatRange(**bounds) if bounded else float
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
    elif _type(spec) is not None:
        kw["type"] = _type(spec)
    if spec.metavar:
        kw["metavar"] = spec.metavar
    none = spec.default is None and spec.cli_none is not None
    return click.option(*decls, spec.name, default=spec.cli_none if none else spec.default, **kw)


RUN_FLAGS = [spec.name for spec in OPTIONS if spec.flags]
"""The DataCleaner keywords (flat names) these flags set."""


def run_options(command: str) -> Callable:
    """Add the flag of every declared option ``command`` has, in declaration order."""

    def add(f: Callable) -> Callable:
        for spec in reversed(OPTIONS):
            if spec.flags and command in spec.commands:
                f = click_option(spec)(f)
        return f

    return add


def run_kwargs(opts: dict) -> dict[str, Any]:
    """Pop the flags' values out of ``opts`` as DataCleaner keyword arguments by flat name (the
    CLI's value for None, ``--reflection off`` or ``--report ''``, as None)."""
    kwargs = {spec.name: opts.pop(spec.name) for spec in OPTIONS if spec.name in opts}
    for spec in OPTIONS:
        if spec.cli_none is not None and kwargs.get(spec.name) == spec.cli_none:
            kwargs[spec.name] = None
    return kwargs


backend_option = click.option(
    "--backend-option",
    "backend_options",
    multiple=True,
    default=(),
    metavar="KEY=VALUE",
    help="A backend setting, repeatable: timeout=60, max_tokens=2048, temperature=0.2, ... "
    "(VALUE read as JSON when it parses: numbers, true/false, null).",
)


def parse_backend_options(items: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """``("timeout=60", "model_path=/m.gguf")`` -> ``{"timeout": 60, "model_path": "/m.gguf"}``;
    BadParameter otherwise."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise click.BadParameter(
                f"expected KEY=VALUE, got {item!r}", param_hint="'--backend-option'"
            )
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out
