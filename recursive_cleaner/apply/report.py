"""The HTML report of an ``apply`` run: wrong values per field counted on the whole file.

``write_apply_report`` profiles the input and the cleaned output (``write.report.profile``: one
bounded streaming pass each, the wrong values counted by the field spec as ``validate`` counts
them) and pairs input and output records for up to three real before → after values
per field (a third pass, stopped early; only when every record came out in order: no rejects, no
dropped duplicates), and writes the same page the run writes (``write.report_html``), its counts
labelled "counted on the whole file by apply". Without a spec the page still shows the examples,
the fields the steps changed and the cross-row steps, and says that nothing was counted.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
from dataclasses import dataclass

from ..profiling.spec import CleaningSpec, load_spec
from ..read.parsers import iter_records
from ..run.sidecar import LEGACY_SPEC, STAMP_KEY, code_digest, spec_path_for
from ..write.report_data import ReportData
from ..profiling.spec_file import check_forms
from ..run.review import plan_lines
from ..write.report.profile import add_profile, wrong_counts
from ..write.report_html import left_alone_fields, write_html_report
from .functions_plan import read_plan
from .result import ApplyResult, read_functions

__all__ = ["write_apply_report", "spec_beside", "find_spec", "SpecLookup", "PAIRS_SCANNED"]

PAIRS_SCANNED = 100_000  # records read for examples at most (the counts read every record)
_WANTED = 3


@dataclass(frozen=True)
class SpecLookup:
    """The field spec that belongs to a functions file (``path``, None when none does) and what a
    user should know about the lookup (``note``: a spec left unused and why, or the older name
    read)."""

    path: str | None
    note: str = ""


def _stamp(path: str) -> dict | None:
    """A spec file's ``written_for`` entry (None when it has none or cannot be read)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError):
        return None  # load_spec says what is wrong with it when it is used
    stamp = data.get(STAMP_KEY) if isinstance(data, dict) else None
    return stamp if isinstance(stamp, dict) else None


def _written_for(stamp: dict, functions: str) -> bool:
    """Whether a stamp names ``functions`` as it is now (its code's digest)."""
    digest = stamp.get("functions_sha256")
    try:
        with open(functions, encoding="utf-8", errors="surrogateescape") as f:
            return isinstance(digest, str) and code_digest(f.read()) == digest
    except OSError:
        return False


def _linked(path: str) -> SpecLookup | None:
    """A spec path that is a symbolic link: never read (a run writes none), said so."""
    if not os.path.islink(path):
        return None
    return SpecLookup(
        None, f"{path} is a symbolic link: not read; pass --spec to use the file it names"
    )


def find_spec(functions_path: str | os.PathLike) -> SpecLookup:
    """The field spec the run that wrote ``functions_path`` wrote beside it
    (``<stem>.spec.json``, ``run.sidecar``), when its ``written_for`` entry matches the file's
    code; a spec written for other code, or a symbolic link, is left unused, with a note. Without
    one, the ``cleaning_spec.json`` earlier versions wrote there, with a note (``analyze`` wrote
    that name too)."""
    functions = os.path.abspath(functions_path)
    own = spec_path_for(functions)
    linked = _linked(own)
    if linked is not None:
        return linked
    if os.path.isfile(own):
        stamp = _stamp(own)
        if stamp is None or not os.path.exists(functions) or _written_for(stamp, functions):
            # written with these functions, by hand (no stamp), or nothing to compare with
            return SpecLookup(own)
        made = "by analyze" if stamp.get("command") == "analyze" else "for other code"
        return SpecLookup(
            None,
            f"{own} was written {made}, not for {functions_path} as it is now (edited or "
            f"written again since): not used; pass --spec {own} to use it anyway",
        )
    legacy = os.path.join(os.path.dirname(functions), LEGACY_SPEC)
    linked = _linked(legacy)
    if linked is not None:
        return linked
    if os.path.isfile(legacy):
        stamp = _stamp(legacy)
        if stamp is not None and not _written_for(stamp, functions):
            return SpecLookup(
                None,
                f"{legacy} was not written for {functions_path} as it is now: not used; pass "
                f"--spec {legacy} to use it anyway",
            )
        return SpecLookup(
            legacy,
            f"read {legacy}, the name earlier versions wrote (analyze wrote it too, with its "
            f"own goals): check it is the reading of {functions_path}'s goals, or pass --spec",
        )
    return SpecLookup(None)


def spec_beside(functions_path: str | os.PathLike) -> str | None:
    """The field spec that belongs to a functions file, if there is one (``find_spec``)."""
    return find_spec(functions_path).path


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
    if spec is not None:
        check_forms(spec)  # a spec made in Python: the forms load_spec checks (as validate did)
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
        plan=plan_lines(spec) if spec is not None else [],
    )
    # one streaming pass over each file: its profile and the wrong values by the spec
    add_profile(data, source, output=output, spec=spec, encoding=encoding)
    data.whole_file = wrong_counts(data.profile) if spec is not None else {}
    return write_html_report(report_path, data)
