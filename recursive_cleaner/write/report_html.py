"""Earlier import path of ``write.report.html`` (tests and docs import it)."""

from .report.html import (
    render_html,
    write_html_report,
    html_report_path,
    html_fragment,
    left_alone_fields,
    field_counts,
    field_examples,
    counts_from_checks,
    EXAMPLES_PER_FIELD,
)

__all__ = [
    "render_html",
    "write_html_report",
    "html_report_path",
    "html_fragment",
    "left_alone_fields",
    "field_counts",
    "field_examples",
    "counts_from_checks",
    "EXAMPLES_PER_FIELD",
]
