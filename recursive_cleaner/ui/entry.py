"""``clean(data, goals)``: the one-call entry point for data people, and the ``CleanResult`` it
returns.

``clean`` runs a :class:`~recursive_cleaner.DataCleaner` (every keyword option of it passes
through) on a path, a pandas DataFrame or a list of dicts, with live progress (a bar in a
notebook or on a terminal, plain lines elsewhere). The result holds the functions, the
cross-row steps, the spec and the report, shows itself as HTML in a notebook, and applies
itself: ``result.apply(df)`` gives a DataFrame back with the same index, untouched columns
keeping their dtype; ``result.apply("data.csv", "clean.parquet")`` writes a file.
"""

from __future__ import annotations

import json
import os
import warnings
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from .._version import __version__
from ..apply.local import apply_file, apply_records
from ..cleaner import DataCleaner, RunResult
from ..crossrow.steps import CrossRowStep
from ..escape import html_text
from ..write.metrics import ImprovementReport
from ..write.report import render_report
from ..write.report_html import html_fragment, html_report_path, render_html
from ..write.state import atomic_write_text
from ..write.report_json import report_to_dict
from .artifact import RESULT_FORMAT, RESULT_VERSION, loaded_run
from .cli_options import BACKEND_ENV, default_backend
from .frames import CleaningReport, apply_frame
from .progress import LiveProgress

__all__ = ["clean", "CleanResult", "BACKEND_ENV", "default_backend", "read_json", "is_frame"]


def clean(
    data: Any, goals: str = "", backend: Any = None, *, progress: bool = True, **options: Any
) -> "CleanResult":
    """Write cleaning functions for ``data`` (a path, a DataFrame or a list of dicts) from
    plain-language ``goals``.

    ``backend``: a spec string ("local", "openai:MODEL@URL", ...), an object with
    ``generate(prompt)`` or a callable; None means ``RECURSIVE_CLEANER_BACKEND``, else "local".
    ``options`` are :class:`DataCleaner`'s keyword options with its defaults (``chunk_size=50``,
    ``output_path="cleaning_functions.py"``, ...). ``progress=False`` shows nothing (an
    ``on_progress`` of your own replaces the display).
    """
    if "instructions" in options or "file_path" in options or "llm_backend" in options:
        raise TypeError(
            "clean() takes the data, the goals and the backend as data, goals and backend"
        )
    display = LiveProgress() if progress and options.get("on_progress") is None else None
    with display if display is not None else nullcontext():
        if display is not None:
            options["on_progress"] = display
        cleaner = DataCleaner(
            default_backend() if backend is None else backend, data, instructions=goals, **options
        )
        run = cleaner.run()
    return CleanResult(
        run,
        improvement=cleaner.get_improvement_report() if cleaner.settings.track_metrics else None,
        code=run.code,
        encoding=cleaner.settings.encoding,
    )


class CleanResult:
    """What ``clean`` made: the functions (code and names), cross-row steps, spec and report; it
    applies itself.

    The code, steps, spec and report are captured when the run ends and held in memory: ``apply``
    runs this result's own code, whatever ``cleaning_functions.py`` holds by then (another
    ``clean()`` in the same folder rewrites it). ``save(path)`` / ``CleanResult.load(path)`` keep
    the result as one JSON file (code, steps, spec, functions, the report's data, fingerprint,
    version). A loaded file is data (``ui.artifact``): its report is rendered again from its
    checked data, escaped; no path in it is read, and its functions' path is the file's own.
    """

    def __init__(
        self,
        run: RunResult,
        improvement: ImprovementReport | None = None,
        *,
        code: str | None = None,
        report: str | None = None,
        report_html: str | None = None,
        encoding: str = "utf-8",
    ) -> None:
        self.run = run
        self.encoding = encoding  # the run's input encoding: apply(path) reads paths in it
        self.improvement = improvement if improvement is not None else run.improvement
        # a RunResult of its own (not from clean): its code, else its file as it is now
        if code is None:
            path = Path(run.output_path) if run.output_path else None
            code = run.code or (
                path.read_text(encoding="utf-8") if path is not None and path.is_file() else ""
            )
        self._code = code
        data = run.report_data
        if data is not None:  # the run's own report, rendered as its files were
            report = render_report(data) if report is None else report
            report_html = render_html(data) if report_html is None else report_html
        # a RunResult made by hand: the files its own run wrote
        if report is None and run.report_path and Path(run.report_path).is_file():
            report = Path(run.report_path).read_text(encoding="utf-8")
        self._report = report
        page = html_report_path(run.report_path)
        if report_html is None and page and Path(page).is_file():
            report_html = Path(page).read_text(encoding="utf-8")
        self._report_html = report_html or ""

    @property
    def functions_path(self) -> str:
        """Where ``cleaning_functions.py`` was written (it may hold another run's functions by now:
        ``code`` is this one's)."""
        return self.run.output_path

    @property
    def functions(self) -> list[str]:
        """Names of the accepted functions, in the order ``clean_data`` runs them."""
        return list(self.run.functions)

    @property
    def code(self) -> str:
        """The generated module's source as this run wrote it ("" when it wrote none, e.g. a dry
        run)."""
        return self._code

    @property
    def cross_row_steps(self) -> list[dict]:
        """The rules over the whole file (dedup, majority, vocabulary) written as
        ``CROSS_ROW_STEPS``."""
        return list(self.run.cross_row)

    @property
    def spec(self) -> dict[str, Any]:
        """The field spec: how the goals were read (``cleaning_spec.json``'s content)."""
        return self.run.spec

    @property
    def fingerprint(self) -> dict[str, Any]:
        """What the result depends on: hashes of the goals, spec and generating options, and the
        data file."""
        return dict(self.run.fingerprint)

    @property
    def report(self) -> CleaningReport | None:
        """The markdown cleaning report as this run wrote it (renders inline in a notebook); None
        when none."""
        return CleaningReport.of_text(self._report) if self._report else None

    @property
    def report_html(self) -> str | None:
        """The HTML cleaning report (``cleaning_report.html``) as this run wrote it; None when
        none."""
        return self._report_html or None

    def to_dict(self) -> dict[str, Any]:
        """This result as the JSON-ready dict ``save`` writes."""
        return {
            "format": RESULT_FORMAT,
            "version": RESULT_VERSION,
            "library": __version__,
            "code": self._code,
            "functions": self.functions,
            "cross_row_steps": self.cross_row_steps,
            "spec": self.spec,
            "fingerprint": self.fingerprint,
            # the report as data: a loaded file renders it again (never markup from the file)
            "report_data": (
                report_to_dict(self.run.report_data) if self.run.report_data is not None else None
            ),
            "encoding": self.encoding,
            # a Path given as output_path is kept as text
            "functions_path": os.fspath(self.functions_path) if self.functions_path else None,
        }

    def save(self, path: str | os.PathLike) -> str:
        """Write this result as one JSON file (code, steps, spec, functions, report, fingerprint);
        the path written."""
        atomic_write_text(path, json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n")
        return os.fspath(path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "CleanResult":
        """A result saved with ``save``; ValueError naming the file and what is wrong. It applies
        its own code."""
        where = f"result file {os.fspath(path)}"
        return cls.from_dict(read_json(path, "result file"), where, functions_path=path)

    @classmethod
    def from_dict(
        cls, data: Any, where: str = "result", *, functions_path: str | os.PathLike = ""
    ) -> "CleanResult":
        """A result from ``to_dict``'s dict; ValueError naming ``where`` and what is wrong.

        Its report is rendered again from its data (a version-1 file's report text is not shown);
        ``functions_path`` names where its code came from (``load``: the file), never the path the
        dict holds."""
        run, encoding = loaded_run(data, where, functions_path)
        return cls(run, code=data["code"], encoding=encoding)

    def apply(
        self, data: Any, output: str | os.PathLike | None = None, **apply_options: Any
    ) -> Any:
        """Run this result's functions over ``data`` (its own code: never what a file holds by now).

        A DataFrame gives a DataFrame back: the same index and columns, untouched columns with
        their dtype (``apply_frame``; cross-row steps are not run on a DataFrame). A list of dicts
        gives a list back (cross-row steps run). A path needs ``output`` and writes it in the
        format its extension names (``apply_file``), returning the ``ApplyResult``; a path is read
        in the run's ``encoding`` unless ``encoding=`` says otherwise.
        """
        if not self._code:
            raise ValueError("this result has no functions to apply (a dry run writes none)")
        if isinstance(data, (str, os.PathLike)):
            if output is None:
                raise TypeError(
                    "result.apply(path, output): name the output file (its extension sets the "
                    "format)"
                )
            apply_options.setdefault("encoding", self.encoding)
            apply_options.setdefault("spec", self.spec or None)  # types the output (out_types)
            return apply_file(
                self.functions_path or "cleaning_functions.py",
                os.fspath(data),
                os.fspath(output),
                code=self._code,
                **apply_options,
            )
        if output is not None:
            raise TypeError(
                "output is for a path input; a DataFrame or a list of dicts comes back as the same"
            )
        if is_frame(data):
            if self.run.cross_row:
                warnings.warn(
                    f"{len(self.run.cross_row)} cross-row step(s) not run on a DataFrame (rows "
                    "keep their "
                    "index); result.apply(path, output) or a list of dicts runs them",
                    UserWarning,
                    stacklevel=2,
                )
            apply_options.setdefault("spec", self.spec or None)  # typed columns (out_types)
            return apply_frame(
                self.functions_path or "cleaning_functions.py",
                data,
                code=self._code,
                **apply_options,
            )
        return list(apply_records(self._code, [dict(r) for r in data], **apply_options))

    def summary(self) -> dict[str, Any]:
        """The counts shown by the displays: functions, steps, chunks, model calls, unusable
        replies."""
        llm = self.run.llm or {}
        return {
            "functions": len(self.run.functions),
            "cross_row_steps": len(self.run.cross_row),
            "chunks": f"{self.run.chunks_processed}/{self.run.chunks_total}",
            "model_calls": llm.get("calls", 0),
            "unusable_replies": getattr(self.run, "unusable_replies", 0),
            "skipped_records": self.run.skipped_records,
        }

    def __repr__(self) -> str:
        names = ", ".join(self.run.functions[:5]) + (", ..." if len(self.run.functions) > 5 else "")
        s = self.summary()
        return (
            f"<CleanResult: {_n(s['functions'], 'function')} ({names or 'none'}), "
            f"{_n(s['cross_row_steps'], 'cross-row step')}, {s['chunks']} chunks, "
            f"{_n(s['model_calls'], 'model call')}; {self.functions_path}>"
        )

    def _repr_html_(self) -> str:
        esc = html_text
        s = self.summary()
        rows = "".join(
            "<tr><th "
            f"style='text-align:left'>{esc(k.replace('_', ' '))}</th><td>{esc(str(v))}</td></tr>"
            for k, v in s.items()
        )
        funcs = (
            "".join(f"<li><code>{esc(name)}</code></li>" for name in self.run.functions)
            or "<li>none</li>"
        )
        steps = "".join(f"<li>{esc(_step_label(step))}</li>" for step in self.run.cross_row)
        unfixable = "".join(
            f"<li><code>{esc(k)}</code>: {esc(v)}</li>" for k, v in self.run.unfixable.items()
        )
        parts = [
            f'<div class="recursive-cleaner-result"><b>Cleaning functions</b> in '
            f"<code>{esc(self.functions_path)}</code>",
            f"<table>{rows}</table>",
            f"<p>Functions, in the order <code>clean_data</code> runs them:</p><ol>{funcs}</ol>",
        ]
        if steps:
            parts.append(f"<p>Cross-row steps:</p><ul>{steps}</ul>")
        if unfixable:
            parts.append(f"<p>Left as they are:</p><ul>{unfixable}</ul>")
        unmet = "".join(
            f"<li><code>{esc(k)}</code>: {esc(v)}</li>" for k, v in self.run.unmet.items()
        )
        if unmet:
            parts.append(f"<p>Unmet goals (not done):</p><ul>{unmet}</ul>")
        page = html_fragment(self._report_html)
        if page:  # the HTML report: fields, examples, what was left alone, cross-row steps
            parts.append(page)
        elif self.improvement is not None:
            parts.append(self.improvement._repr_html_())
        if self._report and self.run.report_path:
            parts.append(
                f"<p>Report: <code>{esc(self.run.report_path)}</code> "
                "(<code>result.report</code>)</p>"
            )
        parts.append("<p><code>result.apply(df)</code> cleans a DataFrame.</p></div>")
        return "".join(parts)


def read_json(path: str | os.PathLike, what: str) -> Any:
    """The JSON document at ``path``; ValueError naming ``what`` and the file when it cannot be
    read."""
    where = f"{what} {os.fspath(path)}"
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{where}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{where} is not valid JSON: {exc}") from None


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _step_label(step: dict) -> str:
    try:
        return f"{step.get('kind')}: {CrossRowStep.from_dict(step).describe()}"
    except (TypeError, ValueError, KeyError):
        return str(step.get("kind", step))


def is_frame(data: Any) -> bool:
    import sys

    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(data, pandas.DataFrame)
