"""A run's field spec is named after what the run writes, and says which functions it belongs to.

``generate`` writes ``<functions stem>.spec.json`` beside its functions (``cleaning_functions.py``
→ ``cleaning_functions.spec.json``); a dry run (``analyze``) names its spec after its report
(``analysis_report.md`` → ``analysis_report.spec.json``). Another command never rewrites it, so a
reader never counts by a spec another run left. The file's ``written_for`` entry names the
functions file and the sha256 of the code written there (line ends ignored): a reader holding
the functions compares it (``apply.report.find_spec``). Versions before this one wrote
``cleaning_spec.json`` (``LEGACY_SPEC``) beside the functions, ``analyze`` too: readers take it
only as a fallback and say so.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from ..profiling.spec import SPEC_FILE

__all__ = [
    "SPEC_SUFFIX",
    "LEGACY_SPEC",
    "STAMP_KEY",
    "spec_path_for",
    "code_digest",
    "spec_stamp",
    "stamped_spec",
]

SPEC_SUFFIX = ".spec.json"
LEGACY_SPEC = SPEC_FILE
"""``cleaning_spec.json``: the name versions before this one wrote (generate and analyze alike)."""
STAMP_KEY = "written_for"
"""The spec file's entry naming what wrote it: ``command``, ``functions`` (file name) and
``functions_sha256`` for generate; ``command`` and ``report`` for a dry run. ``load_spec`` ignores
it."""
_NO_REPORT_SPEC = "analysis" + SPEC_SUFFIX


def spec_path_for(
    output_path: str | os.PathLike, report_path: str | None = None, *, dry_run: bool = False
) -> str:
    """Where a run writes its field spec: beside the functions, named after them; in a dry run
    beside the report, named after it (``analysis.spec.json`` beside ``output_path`` without
    one)."""
    if dry_run:
        if report_path:
            return os.path.splitext(os.fspath(report_path))[0] + SPEC_SUFFIX
        return os.path.join(os.path.dirname(os.fspath(output_path)), _NO_REPORT_SPEC)
    return os.path.splitext(os.fspath(output_path))[0] + SPEC_SUFFIX


def code_digest(text: str) -> str:
    """The sha256 of a functions file's text, line ends read as ``\\n`` (a checkout that turns
    them into ``\\r\\n`` keeps the match)."""
    plain = text.replace("\r\n", "\n").replace("\r", "\n")
    return hashlib.sha256(plain.encode("utf-8", "surrogatepass")).hexdigest()


def spec_stamp(
    *,
    functions_path: str | None = None,
    source: str | None = None,
    report_path: str | None = None,
) -> dict[str, Any]:
    """The ``written_for`` entry: a generate run's functions file and its code's digest (None
    when no file was written), or a dry run's report."""
    if functions_path is None:
        return {
            "command": "analyze",
            "report": os.path.basename(report_path) if report_path else None,
        }
    return {
        "command": "generate",
        "functions": os.path.basename(functions_path),
        "functions_sha256": code_digest(source) if source else None,
    }


def stamped_spec(spec: dict[str, Any], stamp: dict[str, Any]) -> str:
    """The spec file's text: the spec's dict (as ``CleaningSpec.to_json`` writes it), then the
    stamp."""
    return json.dumps({**spec, STAMP_KEY: stamp}, indent=2, ensure_ascii=False) + "\n"
