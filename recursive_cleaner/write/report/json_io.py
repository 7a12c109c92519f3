"""The report's data (``ReportData``) as JSON and back, every value checked (issue 43).

A saved result keeps its report as data, never as markup, so that the report shown after loading
is rendered again (``report.render_report``, ``report_html.render_html``: every text through
``recursive_cleaner.escape``). A loaded file is untrusted, so ``report_from_dict`` reads it back
value by value, each one of the type the renderers expect: a count is a whole number, a mode one
of the modes, a text a string, an object only the keys a renderer reads; anything else is a
ValueError naming the key (``report_data.functions[0].name must be text``). ``report_to_dict``
writes the same shapes, leaving out a value of another type (the model's latency under ``llm``).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, fields
from typing import Any, Callable

from ...errors import clip_text
from ..metrics import FieldImprovement, FieldQuality, ImprovementReport
from .data import ReportData

__all__ = ["report_to_dict", "report_from_dict"]

_MODES = ("structured", "text", "auto")


class _Unfit(ValueError):
    """A value that is not of the type its key holds; ``at`` names the key."""

    def __init__(self, at: str, what: str) -> None:
        super().__init__(f"report_data.{at} must be {what}")


Reader = Callable[[Any, str, bool], Any]


def _text(value: Any, at: str, strict: bool) -> str:
    if isinstance(value, str):
        return value
    raise _Unfit(at, "text")


def _count(value: Any, at: str, strict: bool) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise _Unfit(at, "a whole number, 0 or more")


def _number(value: Any, at: str, strict: bool) -> float | int:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    raise _Unfit(at, "a finite number")


def _flag(value: Any, at: str, strict: bool) -> bool:
    if isinstance(value, bool):
        return value
    raise _Unfit(at, "true or false")


def _mode(value: Any, at: str, strict: bool) -> str:
    if value in _MODES:
        return value
    raise _Unfit(at, f"one of {', '.join(_MODES)}")


def _plain(value: Any, at: str, strict: bool) -> Any:
    """A JSON value as it is (a value from data, shown escaped); any other object as its repr."""
    try:
        return json.loads(json.dumps(value, allow_nan=False, default=repr))
    except (TypeError, ValueError, RecursionError):
        raise _Unfit(at, "a JSON value") from None


def _optional(read: Reader) -> Reader:
    return lambda value, at, strict: None if value is None else read(value, at, strict)


def _items(read: Reader) -> Reader:
    """A list of ``read`` values; loading: each must fit, saving: those that do not are left out."""

    def items(value: Any, at: str, strict: bool) -> list:
        if not isinstance(value, (list, tuple)):
            raise _Unfit(at, "a list")
        return _kept(((f"{at}[{i}]", v) for i, v in enumerate(value)), read, strict)

    return items


def _mapping(read: Reader) -> Reader:
    """Text keys to ``read`` values."""

    def mapping(value: Any, at: str, strict: bool) -> dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise _Unfit(at, "an object with text keys")
        kept = _kept(((f"{at}.{k}", (k, v)) for k, v in value.items()), _value_of(read), strict)
        return dict(kept)

    return mapping


def _value_of(read: Reader) -> Reader:
    return lambda pair, at, strict: (pair[0], read(pair[1], at, strict))


def _kept(entries: Any, read: Reader, strict: bool) -> list:
    out = []
    for at, value in entries:
        try:
            out.append(read(value, at, strict))
        except _Unfit:
            if strict:
                raise
    return out


def _pair(first: Reader, second: Reader) -> Reader:
    def pair(value: Any, at: str, strict: bool) -> tuple:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise _Unfit(at, "a pair")
        return (first(value[0], f"{at}[0]", strict), second(value[1], f"{at}[1]", strict))

    return pair


def _listed(read: Reader) -> Reader:
    """A pair as a list (the profile's JSON form)."""
    return lambda value, at, strict: list(read(value, at, strict))


def _record(keys: dict[str, Reader]) -> Reader:
    """An object holding only ``keys`` (each optional); other keys are left out."""

    def record(value: Any, at: str, strict: bool) -> dict:
        if not isinstance(value, dict):
            raise _Unfit(at, "an object")
        out = {}
        for key, read in keys.items():
            if key in value:
                try:
                    out[key] = read(value[key], f"{at}.{key}", strict)
                except _Unfit:
                    if strict:
                        raise
        return out

    return record


def _dataclass(cls: type, keys: dict[str, Reader]) -> Reader:
    """One of ``cls`` from its fields, every one present and of its type."""
    reader = _record(keys)

    def build(value: Any, at: str, strict: bool) -> Any:
        if not isinstance(value, dict):
            value = asdict(value) if hasattr(value, "__dataclass_fields__") else value
        found = reader(value, at, True)
        missing = [f.name for f in fields(cls) if f.name in keys and f.name not in found]
        if missing:
            raise _Unfit(f"{at}.{missing[0]}", "given")
        return cls(**found)

    return build


_TEXT_OR_NONE = _optional(_text)
_QUALITY = _dataclass(
    FieldQuality,
    {
        "field": _text,
        "non_null": _count,
        "nulls": _count,
        "type_consistency": _number,
        "conformity": _number,
        "distinct": _count,
        "distinct_normalized": _count,
        "open_issue": _TEXT_OR_NONE,
    },
)
_IMPROVEMENT = _dataclass(
    ImprovementReport,
    {
        "records": _count,
        "rows_changed": _count,
        "fields": _mapping(
            _dataclass(
                FieldImprovement,
                {
                    "field": _text,
                    "before": _optional(_QUALITY),
                    "after": _optional(_QUALITY),
                    "cells_changed": _count,
                    "spelling_collapse": _number,
                    "accuracy_before": _optional(_number),
                    "accuracy_after": _optional(_number),
                },
            )
        ),
        "accuracy_before": _optional(_number),
        "accuracy_after": _optional(_number),
    },
)
_COUNTS = _mapping(_number)
_TEXTS = _items(_text)
# one side of the whole-file profile (``profile.profile_file``), every column of it
_PROFILE_SIDE = _record(
    {
        "label": _text,
        "records": _count,
        "skipped": _count,
        "not_objects": _count,
        "more_columns": _count,
        "more_capped": _flag,
        "note": _text,
        "columns": _items(
            _record(
                {
                    "name": _text,
                    "types": _mapping(_count),
                    "nulls": _count,
                    "distinct": _count,
                    "distinct_capped": _flag,
                    "top": _items(_listed(_pair(_text, _count))),
                    "top_exact": _flag,
                    "lengths": _items(_count),
                    "numbers": _record(
                        {
                            "count": _count,
                            "min": _number,
                            "max": _number,
                            "mean": _optional(_number),
                            "bins": _items(_count),
                            "sampled": _flag,
                        }
                    ),
                    "expected": _text,
                    "checked": _count,
                    "wrong": _count,
                    "evidence": _text,
                }
            )
        ),
    }
)
# every field of ReportData, with the type its renderers read
_REPORT: dict[str, Reader] = {
    "title": _text,
    "source": _text,
    "instructions": _text,
    "mode": _mode,
    "dry_run": _flag,
    "chunks_total": _count,
    "chunks_processed": _count,
    "records_seen": _count,
    "functions": _items(
        _record(
            {
                "name": _TEXT_OR_NONE,
                "docstring": _TEXT_OR_NONE,
                "code": _TEXT_OR_NONE,
                "field": _TEXT_OR_NONE,
                "issue": _TEXT_OR_NONE,
                "issues_before": _optional(_COUNTS),
                "issues_after": _optional(_COUNTS),
                "examples": _items(_record({"input": _plain, "output": _plain})),
            }
        )
    ),
    "rejected": _items(_pair(_TEXT_OR_NONE, _text)),
    "unfixable": _mapping(_text),
    "unmet": _mapping(_text),
    "issues": _items(
        _record(
            {
                "field": _TEXT_OR_NONE,
                "issue": _TEXT_OR_NONE,
                "offending": _items(_plain),
                "count": _optional(_count),
                "chunk_index": _optional(_count),
            }
        )
    ),
    "improvement": _optional(_IMPROVEMENT),
    "llm": _COUNTS,
    "latency": _COUNTS,
    "skipped_records": _count,
    "skipped_examples": _TEXTS,
    "output_path": _text,
    "order_note": _text,
    "open_pass": _text,
    "modifications": _items(_record({"name": _TEXT_OR_NONE, "chunk_index": _optional(_count)})),
    "reflection": _COUNTS,
    "optimization": _record(
        {
            "original": _count,
            "final": _count,
            "calls": _count,
            "merged": _TEXTS,
            "refused": _TEXTS,
        }
    ),
    "stopped_early": _flag,
    "cross_row": _TEXTS,
    "cross_row_dropped": _count,
    "cross_row_sample": _count,
    "cross_row_notes": _items(_TEXTS),
    "spec": _TEXTS,
    "spec_path": _text,
    "suggestions": _TEXTS,
    "applied": _record(
        {
            "records_in": _count,
            "records_out": _count,
            "dropped_duplicates": _count,
            "failed": _count,
            "changes_by_step": _mapping(_count),
        }
    ),
    "seconds": _optional(_number),
    "unusable_replies": _count,
    "cross_row_rows": _items(_count),
    "left_alone": _items(_pair(_text, _text)),
    "whole_file": _record(
        {"records": _count, "fields": _mapping(_pair(_optional(_count), _optional(_count)))}
    ),
    "interrupted": _flag,
    "source_label": _text,
    "plan": _TEXTS,
    "profile": _record({"before": _PROFILE_SIDE, "after": _PROFILE_SIDE}),
    "labels": _TEXTS,
}


def report_to_dict(data: ReportData) -> dict[str, Any]:
    """The report's data as JSON-ready values of the types ``report_from_dict`` reads (a value of
    another type is left out)."""
    out = {}
    for key, read in _REPORT.items():
        try:
            value = read(getattr(data, key), key, False)
            value = asdict(value) if hasattr(value, "__dataclass_fields__") else value
            out[key] = _plain(value, key, False)
        except _Unfit:
            continue
    return out


def report_from_dict(data: Any, where: str) -> ReportData:
    """``ReportData`` from ``report_to_dict``'s dict, every value checked; ValueError naming
    ``where`` and the key whose value is not of its type."""
    if not isinstance(data, dict):
        raise ValueError(f"{where}: report_data must be an object")
    values = {}
    try:
        for key, read in _REPORT.items():
            if key in data:
                value = read(data[key], key, True)
                values[key] = [tuple(v) for v in value] if key in _TUPLES else value
    except _Unfit as exc:
        raise ValueError(f"{where}: {clip_text(exc, 200)}") from None
    return ReportData(**values)


_TUPLES = ("rejected", "left_alone")
