"""What a saved artifact (``CleanResult.save``, ``Cleaner.save``) may carry back into a process,
read as data (issue 43).

A loaded file is untrusted: someone else may have written it. So it never carries markup or a
path that is shown or read, and never chooses where data is sent or files are written:

* the report is not kept as text but as its data (``write.report_json``: read back value by
  value, each of the type the renderers expect, else a ValueError naming the key); ``loaded_run``
  gives the ``RunResult`` holding it, and the markdown and HTML reports are rendered again from
  it, every text through ``recursive_cleaner.escape``; the functions' path is the loaded file's
  own, never the path the file holds;
* a Cleaner's backend, and its options naming a path to write or read (``output_path``,
  ``report_path``, ``log_calls``, ``ground_truth``, a ``spec`` file, ``state_file``), are not
  restored: the defaults apply until they are given again, and ``steering_left_out`` names what
  was left out for the warning ``Cleaner.load`` gives (as ``run/resume.py`` does for state
  files).
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from ..errors import clip_text
from ..options import DEFAULTS
from ..read.formats.encoding import check_encoding
from ..run.result import RunResult
from ..write.report_json import report_from_dict

__all__ = [
    "RESULT_FORMAT",
    "RESULT_VERSION",
    "loaded_run",
    "STEERING_OPTIONS",
    "steering_left_out",
    "left_out_message",
]

RESULT_FORMAT = "recursive_cleaner.result"
RESULT_VERSION = 2  # 2: the report kept as its data (report_data), never as markup
# a Cleaner's options that name a file to write or read: never taken from a loaded file
STEERING_OPTIONS = (
    "output_path",
    "report_path",
    "log_calls",
    "ground_truth",
    "spec",
    "state_file",
    "labels",
)


def steering_left_out(
    backend: Any, options: dict[str, Any], default_backend: str
) -> dict[str, Any]:
    """What a loaded Cleaner file names that is not restored: its backend (unless the default)
    and each option naming a file (unless its default; a spec given as an object is data)."""
    out: dict[str, Any] = {}
    if backend is not None and backend != default_backend:
        out["backend"] = backend
    for name in STEERING_OPTIONS:
        value = options.get(name)
        if name in ("spec", "labels") and isinstance(value, (dict, list)):
            continue
        if name in options and value != DEFAULTS.get(name):
            out[name] = value
    return out


def left_out_message(where: str, left_out: dict[str, Any]) -> str:
    """The one-line warning naming what a loaded file chose and was not given (quoted, cut)."""
    named = ", ".join(f"{k} {clip_text(repr(v), 120)}" for k, v in left_out.items())
    again = ", ".join(f"{k}=..." for k in left_out)
    return (
        f"{where}: not restored: {named} (a loaded file never chooses where data is sent or "
        f"which files are read or written; the defaults apply): to use them, give them again: "
        f"Cleaner.load(path, {again})"
    )


def loaded_run(data: Any, where: str, functions_path: str | os.PathLike) -> tuple[RunResult, str]:
    """A saved result's dict checked and read back as the ``RunResult`` a ``CleanResult`` holds,
    and its input encoding; ValueError naming ``where`` and what is wrong. The report is read as
    data (``report_from_dict``); the functions' path is ``functions_path``, never the dict's."""
    if not isinstance(data, dict) or data.get("format") != RESULT_FORMAT:
        raise ValueError(f'{where} is not a saved CleanResult (no "format": "{RESULT_FORMAT}")')
    if not isinstance(data.get("version"), int) or data["version"] > RESULT_VERSION:
        raise ValueError(
            f"{where} has version {data.get('version')!r}; this library reads up to "
            f"{RESULT_VERSION}"
        )
    kinds = {
        "code": str,
        "functions": list,
        "cross_row_steps": list,
        "spec": dict,
        "fingerprint": dict,
    }
    for key, kind in kinds.items():
        if not isinstance(data.get(key), kind):
            raise ValueError(f"{where} is missing '{key}' (or it is not a {kind.__name__})")
    if not all(isinstance(n, str) for n in data["functions"]) or not all(
        isinstance(s, dict) for s in data["cross_row_steps"]
    ):
        raise ValueError(f"{where}: 'functions' must be names and 'cross_row_steps' objects")
    shown = data.get("report_data")
    report = report_from_dict(shown, where) if shown is not None else None
    if data.get("report") or data.get("report_html"):  # a version-1 file: markup, not data
        warnings.warn(
            f"{where}: its report is not shown (a saved report is rendered again from its "
            "data, which this older file does not hold; save the result again to keep it)",
            UserWarning,
            stacklevel=3,
        )
    run = RunResult(
        output_path=os.fspath(functions_path),
        functions=list(data["functions"]),
        chunks_total=report.chunks_total if report else 0,
        chunks_processed=report.chunks_processed if report else 0,
        skipped_records=report.skipped_records if report else 0,
        llm=dict(report.llm) if report else {},
        unfixable=dict(report.unfixable) if report else {},
        unmet=dict(report.unmet) if report else {},
        unusable_replies=report.unusable_replies if report else 0,
        cross_row=list(data["cross_row_steps"]),
        spec=dict(data["spec"]),
        code=data["code"],
        fingerprint=dict(data["fingerprint"]),
        report_data=report,
        improvement=report.improvement if report else None,
    )
    encoding = data.get("encoding") if isinstance(data.get("encoding"), str) else "utf-8"
    try:
        check_encoding(encoding)  # a text codec: never base64, rot13 or a name Python lacks
    except ValueError as exc:
        raise ValueError(f"{where}: {clip_text(exc, 200)}") from None
    return run, encoding
