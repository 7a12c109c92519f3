"""apply's cross-row passes: the file's steps fitted on pass 1 (spooled), then pass 2 transforms.

``read_plan`` (``apply.functions_plan``, re-exported here) reads what a ``cleaning_functions.py``
asks for: its ``CROSS_ROW_STEPS``, the code the workers load, the audited call order.

``two_passes``: pass 1 (the workers' cleaned batches) is written to ``spool`` as ``row<TAB>JSON``
lines while ``cross_row.fit`` consumes the records one by one (it keeps statistics, never the
records); pass 2 reads the spool back and transforms each record. ``spool`` gives the temporary
file: beside apply_file's output, or in memory up to 32 MB for apply_records; always removed.

``AuditLog`` (``apply.audit``, re-exported here) streams the audit log: one row per changed cell.
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator

from .audit import AUDIT_FIELDS, AuditLog
from .functions_plan import AUDIT_FUNCTION, FunctionsPlan, read_plan
from ..read.json_stream import dump_json
from ..crossrow.steps import CrossRowStep, Fitted, fit, kind_of, unasked_drops
from ..errors import DataLossError

__all__ = [
    "AUDIT_FUNCTION",
    "AUDIT_FIELDS",
    "FunctionsPlan",
    "read_plan",
    "step_label",
    "spool",
    "two_passes",
    "AuditLog",
    "loss_message",
]

# apply_records: pass 1 kept in memory up to this size, then in a temporary file
SPOOL_MEMORY = 32 << 20


def step_label(i: int, step: CrossRowStep) -> str:
    """``cross_row[i]:kind(key)`` (vocabulary: ``kind(fields)``; ``StepKind.names``): the log's."""
    return f"cross_row[{i}]:{step.kind}({'+'.join(kind_of(step).names(step))})"


@contextmanager
def spool(beside: str | None, wanted: bool = True) -> Iterator[BinaryIO | None]:
    """Pass 1's temporary file: beside the file ``beside`` (apply_file), else spooled in memory;
    always removed."""
    if not wanted:
        yield None
    elif beside is None:
        with tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY) as file:
            yield file  # type: ignore[misc]
    else:
        target = Path(beside)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".pass1.tmp", dir=target.parent
        )
        try:
            with os.fdopen(fd, "w+b", buffering=1 << 20) as file:
                yield file
        finally:
            with suppress(OSError):
                os.unlink(tmp)


def two_passes(
    cleaned: Iterable[tuple[bytes, int, Any]],
    steps: list[CrossRowStep],
    file: BinaryIO,
    size: int,
    audit: AuditLog | None,
    result: Any,
    max_drop: float = 1.0,
) -> Iterator[tuple[bytes, int]]:
    """(payload, count) batches of the output: ``cleaned`` (payload, count, rows) spooled and
    fitted, then transformed.

    At the end sets ``result.dropped_duplicates``, ``cross_row_changed`` and lowers ``records_out``.
    Raises DataLossError as soon as steps not marked ``asked`` drop more than ``max_drop`` of the
    records.
    """

    def first_pass() -> Iterator[Any]:
        for payload, count, rows in cleaned:
            if count:
                texts = payload.split(b"\n")
                file.write(b"".join(b"%d\t%s\n" % pair for pair in zip(rows, texts)))
                yield from map(json.loads, texts)

    counted = [0]

    def counting(records: Iterable[Any]) -> Iterator[Any]:
        for record in records:
            counted[0] += 1
            yield record

    fitted = fit(steps, counting(first_pass()))
    file.seek(0)
    labels = [step_label(i, s) for i, s in enumerate(steps)]
    limit = max_drop * counted[0]
    while lines := list(itertools.islice(file, size)):
        if unasked_drops(fitted) > limit:
            raise DataLossError(
                _loss_message(fitted, labels, counted[0], max_drop),
                unasked_drops(fitted),
                counted[0],
            )
        texts = []
        for line in lines:
            row, _, text = line.partition(b"\t")
            record = json.loads(text)
            out = (
                fitted.transform(record)
                if audit is None
                else audit.transform(fitted, record, int(row), labels)
            )
            if out is not None:
                texts.append(dump_json(out))
        yield b"\n".join(texts), len(texts)
    if unasked_drops(fitted) > limit:
        raise DataLossError(
            _loss_message(fitted, labels, counted[0], max_drop), unasked_drops(fitted), counted[0]
        )
    result.dropped_duplicates = fitted.dropped
    result.records_out -= fitted.dropped
    changed: dict[str, dict[str, int]] = {}
    for (i, fld), n in sorted(fitted.changed.items(), key=lambda item: item[0][0]):
        changed.setdefault(labels[i], {})[fld] = n
    result.cross_row_changed = changed


def _loss_message(fitted: Fitted, labels: list[str], records: int, max_drop: float) -> str:
    return loss_message(fitted.dropped_by, fitted.steps, labels, records, max_drop)


def loss_message(
    dropped_by: dict[int, int],
    steps: list[CrossRowStep],
    labels: list[str],
    records: int,
    max_drop: float,
) -> str:
    """The DataLossError message: ``dropped_by`` (step index -> records dropped) counts the unasked
    drops."""
    unasked = sum(n for i, n in dropped_by.items() if not steps[i].asked)
    named = ", ".join(
        f"{labels[i]} {n:,}" for i, n in sorted(dropped_by.items()) if not steps[i].asked
    )
    return (
        f"the cross-row steps would drop at least {unasked:,} of {records:,} records "
        f"(more than {max_drop:.0%}; {named}) and the goals they were made from did not ask for "
        "it: nothing "
        "was written. Check the file's CROSS_ROW_STEPS, pass --no-cross-row to skip them, or "
        "--allow-drop "
        "(allow_drop=True) to apply them anyway"
    )
