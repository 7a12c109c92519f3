"""Contract path of validation (spec 02): the code lives in ``judge.validation``."""

from .judge.validation import (
    ALLOWED_IMPORTS,
    ValidationReport,
    check_code_safety,
    validate_function,
    validate_function_detailed,
)

__all__ = [
    "ALLOWED_IMPORTS",
    "ValidationReport",
    "check_code_safety",
    "validate_function",
    "validate_function_detailed",
]
