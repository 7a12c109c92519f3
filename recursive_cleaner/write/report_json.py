"""Earlier import path of ``write.report.json_io`` (tests and docs import it)."""

from .report.json_io import (
    report_to_dict,
    report_from_dict,
)

__all__ = [
    "report_to_dict",
    "report_from_dict",
]
