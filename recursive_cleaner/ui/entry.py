"""``clean(data, goals)``: the one-call entry point for data people, and the ``CleanResult`` it returns.

``clean`` runs a :class:`~recursive_cleaner.DataCleaner` (every keyword option of it passes
through) on a path, a pandas DataFrame or a list of dicts, with live progress (a bar in a
notebook or on a terminal, plain lines elsewhere). The result holds the functions, the
cross-row steps, the spec and the report, shows itself as HTML in a notebook, and applies
itself: ``result.apply(df)`` gives a DataFrame back with the same index, untouched columns
keeping their dtype; ``result.apply("data.csv", "clean.parquet")`` writes a file.
"""

from __future__ import annotations

import html
import os
import warnings
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from ..apply.local import apply_file, apply_records
from ..cleaner import DataCleaner, RunResult
from ..crossrow.steps import CrossRowStep
from ..write.metrics import ImprovementReport
from .cli_options import BACKEND_ENV, default_backend
from .frames import CleaningReport, apply_frame
from .progress import LiveProgress

__all__ = ["clean", "CleanResult", "BACKEND_ENV", "default_backend"]

def clean(data: Any, goals: str = "", backend: Any = None, *, progress: bool = True,
          **options: Any) -> "CleanResult":
    """Write cleaning functions for ``data`` (a path, a DataFrame or a list of dicts) from plain-language ``goals``.

    ``backend``: a spec string ("local", "openai:MODEL@URL", ...), an object with
    ``generate(prompt)`` or a callable; None means ``RECURSIVE_CLEANER_BACKEND``, else "local".
    ``options`` are :class:`DataCleaner`'s keyword options with its defaults (``chunk_size=50``,
    ``output_path="cleaning_functions.py"``, ...). ``progress=False`` shows nothing (an
    ``on_progress`` of your own replaces the display).
    """
    if "instructions" in options or "file_path" in options or "llm_backend" in options:
        raise TypeError("clean() takes the data, the goals and the backend as data, goals and backend")
    display = LiveProgress() if progress and options.get("on_progress") is None else None
    with display if display is not None else nullcontext():
        if display is not None:
            options["on_progress"] = display
        cleaner = DataCleaner(default_backend() if backend is None else backend, data, instructions=goals, **options)
        run = cleaner.run()
    return CleanResult(run, improvement=cleaner.get_improvement_report() if cleaner.settings.track_metrics else None)


class CleanResult:
    """What ``clean`` made: the functions (file and names), cross-row steps, spec and report; it applies itself."""

    def __init__(self, run: RunResult, improvement: ImprovementReport | None = None) -> None:
        self.run = run
        self.improvement = improvement if improvement is not None else run.improvement

    @property
    def functions_path(self) -> str:
        """Where ``cleaning_functions.py`` was written."""
        return self.run.output_path

    @property
    def functions(self) -> list[str]:
        """Names of the accepted functions, in the order ``clean_data`` runs them."""
        return list(self.run.functions)

    @property
    def code(self) -> str:
        """The generated module's source ("" when no file was written, e.g. a dry run)."""
        path = Path(self.functions_path)
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    @property
    def cross_row_steps(self) -> list[dict]:
        """The rules over the whole file (dedup, majority, vocabulary) written as ``CROSS_ROW_STEPS``."""
        return list(self.run.cross_row)

    @property
    def spec(self) -> dict[str, Any]:
        """The field spec: how the goals were read (``cleaning_spec.json``'s content)."""
        return self.run.spec

    @property
    def report(self) -> CleaningReport | None:
        """The markdown cleaning report (renders inline in a notebook); None when none was written."""
        path = self.run.report_path
        return CleaningReport(Path(path)) if path and Path(path).is_file() else None

    def apply(self, data: Any, output: str | os.PathLike | None = None, **apply_options: Any) -> Any:
        """Run the functions over ``data``.

        A DataFrame gives a DataFrame back: the same index and columns, untouched columns with
        their dtype (``apply_frame``; cross-row steps are not run on a DataFrame). A list of dicts
        gives a list back (cross-row steps run). A path needs ``output`` and writes it in the
        format its extension names (``apply_file``), returning the ``ApplyResult``.
        """
        if isinstance(data, (str, os.PathLike)):
            if output is None:
                raise TypeError("result.apply(path, output): name the output file (its extension sets the format)")
            return apply_file(self.functions_path, os.fspath(data), os.fspath(output), **apply_options)
        if output is not None:
            raise TypeError("output is for a path input; a DataFrame or a list of dicts comes back as the same")
        if _is_frame(data):
            if self.run.cross_row:
                warnings.warn(f"{len(self.run.cross_row)} cross-row step(s) not run on a DataFrame (rows keep their "
                              "index); result.apply(path, output) or a list of dicts runs them", UserWarning,
                              stacklevel=2)
            return apply_frame(self.functions_path, data, **apply_options)
        return list(apply_records(self.code, [dict(r) for r in data], **apply_options))

    def summary(self) -> dict[str, Any]:
        """The counts shown by the displays: functions, steps, chunks, model calls, unusable replies."""
        llm = self.run.llm or {}
        return {"functions": len(self.run.functions), "cross_row_steps": len(self.run.cross_row),
                "chunks": f"{self.run.chunks_processed}/{self.run.chunks_total}",
                "model_calls": llm.get("calls", 0), "unusable_replies": getattr(self.run, "unusable_replies", 0),
                "skipped_records": self.run.skipped_records}

    def __repr__(self) -> str:
        names = ", ".join(self.run.functions[:5]) + (", ..." if len(self.run.functions) > 5 else "")
        s = self.summary()
        return (f"<CleanResult: {_n(s['functions'], 'function')} ({names or 'none'}), "
                f"{_n(s['cross_row_steps'], 'cross-row step')}, {s['chunks']} chunks, "
                f"{_n(s['model_calls'], 'model call')}; {self.functions_path}>")

    def _repr_html_(self) -> str:
        esc = html.escape
        s = self.summary()
        rows = "".join(f"<tr><th style='text-align:left'>{esc(k.replace('_', ' '))}</th><td>{esc(str(v))}</td></tr>"
                       for k, v in s.items())
        funcs = "".join(f"<li><code>{esc(name)}</code></li>" for name in self.run.functions) or "<li>none</li>"
        steps = "".join(f"<li>{esc(_step_label(step))}</li>" for step in self.run.cross_row)
        unfixable = "".join(f"<li><code>{esc(k)}</code>: {esc(v)}</li>" for k, v in self.run.unfixable.items())
        parts = [f'<div class="recursive-cleaner-result"><b>Cleaning functions</b> in '
                 f"<code>{esc(self.functions_path)}</code>", f"<table>{rows}</table>",
                 f"<p>Functions, in the order <code>clean_data</code> runs them:</p><ol>{funcs}</ol>"]
        if steps:
            parts.append(f"<p>Cross-row steps:</p><ul>{steps}</ul>")
        if unfixable:
            parts.append(f"<p>Left as they are:</p><ul>{unfixable}</ul>")
        if self.improvement is not None:
            parts.append(self.improvement._repr_html_())
        if self.run.report_path:
            parts.append(f"<p>Report: <code>{esc(self.run.report_path)}</code> (<code>result.report</code>)</p>")
        parts.append("<p><code>result.apply(df)</code> cleans a DataFrame.</p></div>")
        return "".join(parts)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _step_label(step: dict) -> str:
    try:
        return f"{step.get('kind')}: {CrossRowStep.from_dict(step).describe()}"
    except (TypeError, ValueError, KeyError):
        return str(step.get("kind", step))


def _is_frame(data: Any) -> bool:
    import sys

    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(data, pandas.DataFrame)
