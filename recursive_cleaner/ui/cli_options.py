"""The command line's run options beyond the basics: one flag per DataCleaner option, with Python's defaults.

``run_options`` decorates ``generate`` and ``analyze``; ``run_kwargs(opts)`` pops their values
into DataCleaner keyword arguments. ``backend_options`` / ``parse_backend_options`` give
``--backend-option KEY=VALUE`` (repeatable), passed to the backend's constructor.
``default_backend`` is ``$RECURSIVE_CLEANER_BACKEND``, else ``local``. Early termination and
its saturation check keep their own flags in ``cli``.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import click

__all__ = ["run_options", "run_kwargs", "backend_option", "parse_backend_options", "RUN_FLAGS", "BACKEND_ENV",
           "default_backend"]

from ..run.setup import BACKEND_ENV, default_backend  # re-exported: defined below the ui for DataCleaner.resume

def _opt(*decls: str, **kw: Any) -> Callable:
    kw.setdefault("show_default", True)
    return click.option(*decls, **kw)


_INT1 = click.IntRange(min=1)
_INT0 = click.IntRange(min=0)
# (click decorator, DataCleaner keyword, option's dest): the defaults are DataCleaner's.
_FLAGS: list[tuple[Callable, str, str]] = [
    (_opt("--context-budget", type=_INT1, default=8000, help="Characters of earlier functions shown to the model."),
     "context_budget", "context_budget"),
    (_opt("--schema-sample-size", type=_INT0, default=10, help="Records read to infer the schema (0: none)."),
     "schema_sample_size", "schema_sample_size"),
    (_opt("--validate-runtime/--no-validate-runtime", default=True,
          help="Run each candidate on the chunk's records in the sandbox before accepting it."),
     "validate_runtime", "validate_runtime"),
    (_opt("--sandbox-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0,
          help="Seconds a candidate may run in the sandbox."), "sandbox_timeout", "sandbox_timeout"),
    (_opt("--profile-fields/--no-profile-fields", default=True,
          help="Ask for one function per dirty field, worst first (off: open-ended passes only)."),
     "profile_fields", "profile_fields"),
    (_opt("--max-field-attempts", type=_INT1, default=3, help="Failed attempts at a field before giving it up."),
     "max_field_attempts", "max_field_attempts"),
    (_opt("--open-pass-attempts", type=_INT0, default=1, help="Open-ended passes per chunk once the profile is clean."),
     "open_pass_attempts", "open_pass_attempts"),
    (_opt("--idle-chunks-before-skip", type=_INT0, default=1,
          help="Chunks that teach nothing before later clean chunks stop costing calls."),
     "idle_chunks_before_skip", "idle_chunks_before_skip"),
    (_opt("--chunk-chars", type=_INT1, default=12000, help="Characters of a chunk shown to the model at most."),
     "chunk_chars", "chunk_chars"),
    (_opt("--hint-functions/--no-hint-functions", default=True,
          help="Try the toolkit call the library chooses for a field (examples, data) before asking the model."),
     "hint_functions", "hint_functions"),
    (_opt("--chunk-view", type=click.Choice(["varied", "all"]), default="varied",
          help="Records an open-ended pass is shown: one per new value form, or all that fit."),
     "chunk_view", "chunk_view"),
    (_opt("--toolkit/--no-toolkit", default=True, help="Offer the toolkit's tested primitives to the model."),
     "toolkit", "toolkit"),
    (_opt("--rich-context", is_flag=True, default=False, show_default=False,
          help="Show the model earlier functions' code, so it can revise them."), "rich_context", "rich_context"),
    (_opt("--reflection", type=click.Choice(["off", "rules", "model"]), default="off",
          help="Critique each accepted candidate: by rules, or rules plus the model."), "reflection", "reflection"),
    (_opt("--cross-row/--no-cross-row", default=True,
          help="Plan rules over the whole file (dedup, majority, vocabulary) after the last chunk."),
     "cross_row", "cross_row"),
    (_opt("--optimize", is_flag=True, default=False, show_default=False,
          help="Consolidate the functions after the last chunk (same output required)."), "optimize", "optimize"),
    (_opt("--optimize-threshold", type=_INT1, default=10, help="Functions needed before --optimize runs."),
     "optimize_threshold", "optimize_threshold"),
    (_opt("--constrained/--no-constrained", default=True,
          help="Hold replies to the grammar of their form where the backend can (llama.cpp)."),
     "constrained", "constrained"),
    (_opt("--metrics-sample", type=_INT1, default=1000, help="Records sampled for --track-metrics."),
     "metrics_sample", "metrics_sample"),
]
RUN_FLAGS = [keyword for _, keyword, _ in _FLAGS]
"""The DataCleaner keywords these flags set (tests check each one reaches DataCleaner)."""


def run_options(f: Callable) -> Callable:
    """Add every flag of ``_FLAGS`` to a click command."""
    for decorator, _, _ in reversed(_FLAGS):
        f = decorator(f)
    return f


def run_kwargs(opts: dict) -> dict[str, Any]:
    """Pop the flags' values out of ``opts`` as DataCleaner keyword arguments."""
    kwargs = {keyword: opts.pop(dest) for _, keyword, dest in _FLAGS if dest in opts}
    if kwargs.get("reflection") == "off":
        kwargs["reflection"] = None
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
