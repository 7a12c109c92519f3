"""Measure a candidate cleaning function in the sandbox: the four dimensions of ``reflection``'s
critique.

See ``reflection`` for what each dimension means; this module only measures (no decision, no model).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ..write.dependencies import field_access
from ..profiling.expectations import Expectation, conforms, is_placeholder
from ..profiling.profiler import (
    FieldProfile,
    issue_counts,
    profile_records,
    strings_only,
    value_key,
)
from .sandbox import run_in_sandbox
from .validation import validate_function_detailed

__all__ = ["DIMENSIONS", "NOT_MEASURED", "measure", "plain_records", "short"]

DIMENSIONS = ("runs", "fixes_issue", "specific", "side_effects")
NOT_MEASURED = "not measured: the function returned a dict for no record"
_SHOW = 3
_EXAMPLES = 8
_CHARS = 60


def plain_records(records: list, what: str) -> list:
    """The records as the sandbox sees them (JSON round trip), so before and after compare like for
    like."""
    try:
        return json.loads(json.dumps(list(records)))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} must be JSON-serialisable: {exc}") from None


def short(value: Any) -> str:
    """repr(value), cut to a few dozen characters for evidence."""
    text = repr(value)
    return text if len(text) <= _CHARS else text[: _CHARS - 3] + "..."


def _values(values: list) -> str:
    return ", ".join(short(v) for v in values[:_SHOW]) + (", ..." if len(values) > _SHOW else "")


def _listing(counts: Counter | dict) -> str:
    return ", ".join(f"'{f}' in {n} record(s)" for f, n in sorted(counts.items()))


def _changed(old: dict, new: dict) -> list[str]:
    """Fields whose value differs, in record order (a key added or removed counts)."""
    missing = object()
    return [k for k in dict.fromkeys([*old, *new]) if old.get(k, missing) != new.get(k, missing)]


def _diff(old: dict, new: dict, fields: list[str] | None = None) -> str:
    """``'f': old -> new`` for the first changed field (of ``fields`` if given)."""
    changed = _changed(old, new)
    key = next(
        (f for f in changed if fields is None or f in fields), changed[0] if changed else None
    )
    if key is None:
        return "no change"
    show = lambda rec: short(rec[key]) if key in rec else "<absent>"  # noqa: E731
    return f"'{key}': {show(old)} -> {show(new)}"


def _present(value: Any) -> bool:
    """A real value: not None, not "", not a placeholder such as 'N/A'."""
    return value is not None and value != "" and not is_placeholder(value)


def _conforms(value: Any, profile: FieldProfile) -> bool | None:
    """Whether the value conforms by the profile; None when the profile's capped offending list
    cannot tell."""
    if value is None or value == "":
        return True
    if profile.expectation is not None:
        return conforms(value, profile.expectation, csv_strings=profile.csv_strings)
    if value_key(value) in {value_key(v) for v in profile.offending}:
        return False
    return None if profile.distinct_offending > len(profile.offending) else True


def measure(
    code: str,
    name: str,
    visible: list,
    held: list,
    target: str | None,
    expectations: dict[str, Expectation] | None,
    timeout: float,
    csv_strings: bool | None,
) -> tuple[dict[str, float], dict[str, str], list[str]]:
    """(dimension -> score, dimension -> evidence, changed values on the visible records)."""
    if not visible:
        raise ValueError("records must not be empty: there is nothing to measure the function on")
    every = visible + held
    report = validate_function_detailed(code, every, name, timeout=timeout)
    outputs = report.outputs or [None] * len(every)
    errors = report.errors or [None] * len(every)
    ok = [
        not report.violations and err is None and isinstance(out, dict) and isinstance(rec, dict)
        for rec, out, err in zip(every, outputs, errors)
    ]
    dims: dict[str, float] = {}
    evidence: dict[str, str] = {}
    dims["runs"], evidence["runs"] = _runs(every, len(visible), outputs, errors, ok, report.error)
    ran = [i for i, good in enumerate(ok) if good]
    if not ran:
        for dim in DIMENSIONS[1:]:
            dims[dim], evidence[dim] = 0.0, NOT_MEASURED
        return dims, evidence, []
    after = [out if good else rec for rec, out, good in zip(every, outputs, ok)]
    changes = {i: _changed(every[i], after[i]) for i in ran}
    if csv_strings is None:
        # from the input: a number the function wrote must not flip it
        csv_strings = strings_only(every)
    before_prof = profile_records(every, expectations, csv_strings=csv_strings)
    after_prof = profile_records(after, expectations, csv_strings=csv_strings)
    named = {target} if target else set(field_access(code, name).writes)
    if target:
        dims["fixes_issue"], evidence["fixes_issue"] = _fixes_target(
            target, every, after, ran, before_prof, after_prof
        )
    else:
        dims["fixes_issue"], evidence["fixes_issue"] = _fixes_open(changes, before_prof, after_prof)
    dims["specific"], evidence["specific"] = _specific(changes, named, bool(target))
    dims["side_effects"], evidence["side_effects"] = _side_effects(
        code, name, every, after, ran, changes, named, before_prof, target, timeout
    )
    examples = list(
        dict.fromkeys(
            _diff(every[i], after[i], sorted(named) or None)
            for i in ran
            if i < len(visible) and changes[i]
        )
    )[:_EXAMPLES]
    return dims, evidence, examples


def _runs(
    every: list, n_visible: int, outputs: list, errors: list, ok: list[bool], error: str | None
) -> tuple[float, str]:
    n, k = len(every), sum(ok)
    split = f" ({n_visible} shown, {n - n_visible} held out)" if n > n_visible else ""
    if k == n:
        return 1.0, f"returned a dict for all {n} records{split}"
    if error and not any(ok) and not any(errors):
        # safety policy, signature, load error, timeout, refused operation, or None everywhere
        return 0.0, error
    failures = []
    for i, (rec, out, err) in enumerate(zip(every, outputs, errors)):
        if not ok[i] and len(failures) < 2:
            where = f"record {i}" if i < n_visible else f"held-out record {i - n_visible}"
            what = (
                f"raised {err}"
                if err is not None
                else "returned None (a missing return?)"
                if out is None
                else f"returned a {type(out).__name__}, not a dict"
            )
            failures.append(f"{where} {what}; input {short(rec)}")
    return k / n, f"{k} of {n} records{split} ran: " + "; ".join(failures)


def _fixes_target(
    target: str,
    every: list,
    after: list,
    ran: list[int],
    before_prof: dict[str, FieldProfile],
    after_prof: dict[str, FieldProfile],
) -> tuple[float, str]:
    b, a = issue_counts(before_prof).get(target, 0), issue_counts(after_prof).get(target, 0)
    blanked = sum(
        1 for i in ran if _present(every[i].get(target)) and not _present(after[i].get(target))
    )
    text = f"'{target}': {b} wrong values before, {a} after, on {len(every)} records"
    if b == 0:
        score = 0.0 if a > 0 else 0.5
        text += "; there was nothing to fix in these records"
    else:
        score = max(0, b - a - blanked) / b
    if blanked:
        text += f"; {blanked} value(s) were blanked (None, '' or removed), which does not fix them"
    if a:
        text += f"; still wrong: {_values(after_prof[target].offending)}"
    return score, text


def _fixes_open(
    changes: dict[int, list[str]],
    before_prof: dict[str, FieldProfile],
    after_prof: dict[str, FieldProfile],
) -> tuple[float, str]:
    n_before, n_after = issue_counts(before_prof), issue_counts(after_prof)
    n_changed = sum(1 for fields in changes.values() if fields)
    if not n_changed:
        return 0.0, "it changed nothing: every record comes back as it went in"
    worse = {f: (n_before.get(f, 0), n) for f, n in n_after.items() if n > n_before.get(f, 0)}
    if worse:
        listed = "; ".join(
            f"'{f}' {a} -> {b} wrong values (e.g. {_values(after_prof[f].offending)})"
            for f, (a, b) in sorted(worse.items())
        )
        return 0.0, f"it made fields worse: {listed}"
    total_b, total_a = sum(n_before.values()), sum(n_after.values())
    if total_a < total_b:
        return 1.0, f"wrong values {total_b} -> {total_a}; it changed {n_changed} record(s)"
    return 0.5, (
        f"it changed {n_changed} record(s), but the profile shows no fewer wrong values "
        f"({total_b} before and after)"
    )


def _specific(
    changes: dict[int, list[str]], named: set[str], has_target: bool
) -> tuple[float, str]:
    touched = Counter(f for fields in changes.values() for f in fields)
    if not touched:
        return 1.0, "it changed no field"
    if not named:
        return 1.0, (
            f"cannot tell: the code writes fields through dynamic keys only; it changed "
            f"{_listing(touched)}"
        )
    outside = {f: n for f, n in touched.items() if f not in named}
    names = ", ".join(f"'{f}'" for f in sorted(named))
    if not outside:
        return 1.0, f"it changed only {names}"
    what = "the target" if has_target else "the fields its code writes"
    score = (len(touched) - len(outside)) / len(touched)
    return score, f"it changed fields it does not name: {_listing(outside)} ({what}: {names})"


def _side_effects(
    code: str,
    name: str,
    every: list,
    after: list,
    ran: list[int],
    changes: dict[int, list[str]],
    named: set[str],
    before_prof: dict[str, FieldProfile],
    target: str | None,
    timeout: float,
) -> tuple[float, str]:
    checks = [
        _clean_records_kept(every, after, ran, changes, named, before_prof, target),
        _fields_kept(every, after, ran),
        _idempotent(code, name, [after[i] for i in ran], timeout),
    ]
    score = min(s for s, _ in checks)
    bad = [text for s, text in checks if s < 1.0]
    return score, "; ".join(bad) if bad else "; ".join(text for _, text in checks)


def _clean_records_kept(
    every: list,
    after: list,
    ran: list[int],
    changes: dict[int, list[str]],
    named: set[str],
    before_prof: dict[str, FieldProfile],
    target: str | None,
) -> tuple[float, str]:
    issue_fields = sorted(f for f in named if f in before_prof and before_prof[f].issue)
    if not issue_fields:
        if target:
            return 1.0, f"'{target}' has no open issue, so no record is known to be free of it"
        return 1.0, "no field it names has an open issue, so no record is known to be free of it"
    clean = [
        i
        for i in ran
        if all(_conforms(every[i].get(f), before_prof[f]) is True for f in issue_fields)
    ]
    hit = [i for i in clean if changes[i]]
    fields = ", ".join(f"'{f}'" for f in issue_fields)
    if not hit:
        return 1.0, f"it left the {len(clean)} record(s) whose {fields} already conforms unchanged"
    return (
        1 - len(hit) / len(clean),
        f"it changed {len(hit)} of {len(clean)} record(s) whose {fields} already conforms, "
        f"e.g. {_diff(every[hit[0]], after[hit[0]])}",
    )


def _fields_kept(every: list, after: list, ran: list[int]) -> tuple[float, str]:
    lost = Counter()
    records = 0
    for i in ran:
        gone = [k for k in every[i] if k not in after[i]]
        records += bool(gone)
        lost.update(gone)
    if not records:
        return 1.0, "no field dropped"
    return 1 - records / len(
        ran
    ), f"it dropped fields from {records} of {len(ran)} record(s): {_listing(lost)}"


def _idempotent(code: str, name: str, firsts: list, timeout: float) -> tuple[float, str]:
    """Run the function again on its own outputs: f(f(x)) must equal f(x)."""
    second = run_in_sandbox(code, name, firsts, timeout=timeout)
    if not second.ok:
        why = second.error or "; ".join(second.violations[:2]) or "failed in the sandbox"
        return 0.0, f"running it on its own output failed: {why}"
    again = [
        (j, out, err)
        for j, (out, err, first) in enumerate(zip(second.outputs, second.errors, firsts))
        if err is not None or out != first
    ]
    if not again:
        return (
            1.0,
            f"idempotent: running it twice gives the same result on all {len(firsts)} record(s)",
        )
    j, out, err = again[0]
    eg = (
        f"it raised {err} on its own output"
        if err is not None
        else (_diff(firsts[j], out) if isinstance(out, dict) else f"it returned {short(out)}")
    )
    return (
        1 - len(again) / len(firsts),
        f"not idempotent: running it again on its output changes {len(again)} of {len(firsts)} "
        f"record(s), e.g. {eg}",
    )
