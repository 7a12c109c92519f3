"""RunResult: what one DataCleaner run did."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..read import parsers
from ..write.metrics import ImprovementReport
from .open_pass import open_pass_note

__all__ = ["RunResult"]


@dataclass
class RunResult:
    """What a run did: the output file, functions, chunks, skipped input lines and LLM cost."""

    output_path: str
    functions: list[str]
    chunks_total: int
    chunks_processed: int = 0
    chunks_clean: int = 0
    chunks_max_iterations: int = 0
    skipped_records: int = 0
    skipped: list[parsers.SkippedRecord] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    llm: dict[str, Any] = field(default_factory=dict)
    resumed_from_chunk: int | None = None
    unfixable: dict[str, str] = field(default_factory=dict)
    # what the goals ask that the run did not do: {field or rule: why, the clause quoted}
    unmet: dict[str, str] = field(default_factory=dict)
    issues: list[dict] = field(default_factory=list)
    report_path: str | None = None
    improvement: ImprovementReport | None = None
    modifications: list[dict] = field(default_factory=list)
    stopped_early: bool = False
    cross_row: list[dict] = field(default_factory=list)
    cross_row_dropped: int = 0  # records the cross-row steps drop on the planning sample (dedup)
    cross_row_sample: int = 0
    # the field spec (cleaning_spec.json's content)
    spec: dict[str, Any] = field(default_factory=dict)
    # where cleaning_spec.json was written  # records in that sample (0: no cross-row plan was made)
    spec_path: str | None = None
    reflection: dict[str, int] = field(default_factory=dict)
    optimization: dict[str, Any] = field(default_factory=dict)
    # open-ended passes asked of the model, and chunks that needed none (run.open_pass)
    open_passes: int = 0
    open_pass_skipped: int = 0
    # model replies that could not be parsed (each cost a call; the run asked again)
    unusable_replies: int = 0
    # the source written to output_path ("" in a dry run): what this run made, whatever the file
    # holds later
    code: str = ""
    # what the result depends on (run.fingerprint)
    fingerprint: dict[str, Any] = field(default_factory=dict)
    # what the report shows (write.report_data.ReportData; None when no report was written): a
    # CleanResult renders its report from it, and saves it as data, never as markup
    report_data: Any = None

    def open_pass_note(self) -> str:
        """"no open pass: nothing left unexplained" when no chunk needed the open pass, else ""."""
        return open_pass_note(self.open_passes, self.open_pass_skipped)
