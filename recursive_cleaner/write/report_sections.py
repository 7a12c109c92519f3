"""Earlier import path of ``write.report.sections`` (tests and docs import it)."""

from .report.sections import (
    functions_section,
    issues_section,
    rejected_section,
    left_dirty_section,
    llm_usage_section,
    judgement_section,
    skipped_section,
    applied_section,
    refused_steps,
    cross_row_section,
)

__all__ = [
    "functions_section",
    "issues_section",
    "rejected_section",
    "left_dirty_section",
    "llm_usage_section",
    "judgement_section",
    "skipped_section",
    "applied_section",
    "refused_steps",
    "cross_row_section",
]
