"""What an apply run gives and reads: its error, its counts, the functions file, the input's
format."""

from __future__ import annotations

import io
import os
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CleanerError, InputError
from ..read import formats
from ..read.rows import SkippedRecord

__all__ = [
    "ApplyError",
    "ApplyResult",
    "read_functions",
    "check_input_format",
    "positive_int",
    "no_records",
]


class ApplyError(CleanerError):
    """Applying the functions failed as a whole (load error, refused operation, timeout, crash)."""


def read_functions(path: str | os.PathLike) -> str:
    """The functions file's text decoded as Python's import decodes it (a BOM, a coding cookie: what
    the policy checks is what an import would run); ApplyError naming the file when it is not such
    text."""
    data = Path(path).read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        why = (
            f"{exc.reason} at byte {exc.start}" if isinstance(exc, UnicodeDecodeError) else str(exc)
        )
        raise ApplyError(f"cannot load {path}: it is not Python source text ({why})") from None


@dataclass
class ApplyResult:
    """Counts and timing of one apply run."""

    records_in: int = 0
    records_out: int = 0
    failed: int = 0
    skipped_input: int = 0
    seconds: float = 0.0
    workers: int = 0
    trusted: bool = False
    # the first 100 input rows that could not be read (all are in the reject file)
    skipped: list[SkippedRecord] = field(default_factory=list)
    # CSV/Parquet/Excel: keys first seen after the first batch
    dropped_keys: list[str] = field(default_factory=list)
    # the cross-row steps run: "cross_row[0]:dedup(email)"
    cross_row_steps: list[str] = field(default_factory=list)
    dropped_duplicates: int = 0  # records a cross-row dedup step dropped
    # step -> field -> cells changed
    cross_row_changed: dict[str, dict[str, int]] = field(default_factory=dict)
    # with audit_path: records changed per function/step
    changes_by_step: dict[str, int] = field(default_factory=dict)
    audit_rows: int = 0  # rows written to audit_path
    # fields the functions read that the data lacks
    missing_fields: list[str] = field(default_factory=list)

    @property
    def rows_in(self) -> int:
        """Input rows: the records read and the rows that could not be read (``skipped_input``)."""
        return self.records_in + self.skipped_input

    @property
    def rejected(self) -> int:
        """Input rows not cleaned: malformed (``skipped_input``: in the reject file, never in the
        output) and those clean_data failed on (``failed``: in the reject file, else unchanged in
        the output). ``max_failures`` / ``--max-failures`` count these."""
        return self.failed + self.skipped_input

    @property
    def cleaned(self) -> int:
        """Records clean_data returned a record for."""
        return self.records_in - self.failed

    @property
    def records_per_s(self) -> float:
        """Records read per second of wall-clock time."""
        return self.records_in / self.seconds if self.seconds > 0 else 0.0


def check_input_format(caller: str, path: str, fmt: str | None) -> formats.Format:
    """The format apply reads ``path`` in (``fmt``, else its extension's); ValueError if none."""
    kind = formats.detect(path) if fmt is None else formats.find(fmt)
    if kind is None or not kind.applies:
        known = ", ".join(name for name, k in formats.REGISTRY.items() if k.applies)
        name = fmt if kind is None else kind.name
        raise ValueError(f"{caller} reads {known} files, not {name!r} ({path})")
    return kind


def positive_int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def no_records(path: str, result: ApplyResult) -> InputError:
    """The error of an input with no record to clean (as generate's: an empty input is an error);
    raised before the output is written, so none is."""
    if result.skipped_input:
        first = result.skipped[0] if result.skipped else None
        detail = f"all {result.skipped_input:,} rows skipped" + (
            f"; line {first.line}: {first.reason}" if first else ""
        )
    else:
        try:
            detail = "an empty file" if os.path.getsize(path) == 0 else "no record read"
        except OSError:
            detail = "no record read"
    return InputError(f"{path} has no records ({detail}): nothing to clean", path)
