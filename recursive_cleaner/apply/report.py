"""The HTML report of an ``apply`` run: wrong values per field counted on the whole file.

``write_apply_report`` checks the input and the cleaned output against the field spec (``validate``:
two streaming passes), pairs input and output records for up to three real before → after values
per field (a third pass, stopped early; only when every record came out in order: no rejects, no
dropped duplicates), and writes the same page the run writes (``write.report_html``), its counts
labelled "counted on the whole file by apply". Without a spec the page still shows the examples,
the fields the steps changed and the cross-row steps, and says that nothing was counted.
"""

from __future__ import annotations

import dataclasses
import itertools
import os

from ..profiling.spec import CleaningSpec, load_spec
from ..read.parsers import iter_records
from ..write.report_data import ReportData
from ..write.report_html import counts_from_checks, left_alone_fields, write_html_report
from .check import validate
from .functions_plan import read_plan
from .result import ApplyResult, read_functions

__all__ = ["write_apply_report", "spec_beside", "PAIRS_SCANNED"]

PAIRS_SCANNED = 100_000  # records read for examples at most (the counts read every record)
_WANTED = 3


def spec_beside(functions_path: str | os.PathLike) -> str | None:
    """The ``cleaning_spec.json`` a run wrote beside its functions file, if there is one."""
    path = os.path.join(os.path.dirname(os.path.abspath(functions_path)), "cleaning_spec.json")
    return path if os.path.isfile(path) else None


def _examples(input_path: str, output_path: str, encoding: str) -> list[dict]:
    """Changed (input, output) record pairs, enough for three per field, in file order."""
    pairs, found = [], {}
    both = zip(iter_records(input_path, encoding=encoding), iter_records(output_path))
    for old, new in itertools.islice(both, PAIRS_SCANNED):
        if not isinstance(old, dict) or not isinstance(new, dict):
            continue
        changed = [k for k in dict.fromkeys([*old, *new]) if old.get(k) != new.get(k)]
        useful = [k for k in changed if found.get(k, 0) < _WANTED]
        if useful:
            pairs.append({"input": old, "output": new})
            for k in useful:
                found[k] = found.get(k, 0) + 1
    return pairs


def write_apply_report(
    functions_path: str | os.PathLike,
    input_path: str | os.PathLike,
    output_path: str | os.PathLike,
    result: ApplyResult,
    report_path: str | os.PathLike,
    *,
    spec: CleaningSpec | dict | str | os.PathLike | None = None,
    code: str | None = None,
    encoding: str = "utf-8",
) -> str:
    """Write the HTML page of one apply run (``result``) to ``report_path``; returns its path
    (``encoding``: the input's, as apply read it; the output is UTF-8)."""
    source, output = os.fspath(input_path), os.fspath(output_path)
    if spec is not None and not isinstance(spec, CleaningSpec):
        spec = load_spec(os.fspath(spec) if isinstance(spec, os.PathLike) else spec)
    whole = {}
    if spec is not None:
        before = validate(source, spec, shown=0, encoding=encoding)
        whole = counts_from_checks(before, validate(output, spec, shown=0))
    in_order = result.records_out == result.records_in and not result.dropped_duplicates
    examples = _examples(source, output, encoding) if in_order else []
    if code is None:
        code = read_functions(functions_path)  # decoded as Python's import decodes it
    try:
        steps = read_plan(code, os.fspath(functions_path)).steps
    except ValueError:
        steps = []
    data = ReportData(
        title="Apply report",
        source=source,
        records_seen=result.records_in,
        functions=[{"examples": examples}] if examples else [],
        output_path=output,
        cross_row=[s.describe() for s in steps],
        applied=dataclasses.asdict(result),
        left_alone=left_alone_fields(spec),
        whole_file=whole,
    )
    return write_html_report(report_path, data)
