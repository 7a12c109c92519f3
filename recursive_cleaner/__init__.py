"""recursive_cleaner: an LLM writes, one tested function at a time, the code that cleans your
data."""

from ._version import __version__
from .apply import ApplyError, ApplyResult, apply_file, apply_records
from .apply.check import SpecCheck, validate
from .cleaner import DataCleaner, RunResult
from .context import build_context
from .errors import (
    CleanerError,
    DataLossError,
    DependencyCycleError,
    InputEncodingError,
    InputError,
    LLMCallError,
    MaxIterationsError,
    OutputValidationError,
    ParseError,
    SandboxError,
    StateFileError,
)
from .model.response import parse_response
from .options import Chunking, CrossRow, Goals, Judging, Metrics, ModelCalls, Optimizer, Output
from .read.parsers import iter_chunks, iter_records
from .schema import format_schema_for_prompt, infer_schema
from .types import LLMBackend
from .ui.entry import CleanResult, clean
from .ui.estimator import Cleaner
from .validation import check_code_safety, validate_function

__all__ = [
    "clean",
    "CleanResult",
    "Cleaner",
    "DataCleaner",
    "RunResult",
    "Chunking",
    "Judging",
    "ModelCalls",
    "CrossRow",
    "Optimizer",
    "Metrics",
    "Output",
    "Goals",
    "apply_file",
    "apply_records",
    "ApplyResult",
    "ApplyError",
    "LLMBackend",
    "validate_function",
    "validate",
    "SpecCheck",
    "check_code_safety",
    "infer_schema",
    "format_schema_for_prompt",
    "build_context",
    "parse_response",
    "iter_chunks",
    "iter_records",
    "CleanerError",
    "ParseError",
    "MaxIterationsError",
    "OutputValidationError",
    "LLMCallError",
    "SandboxError",
    "InputError",
    "InputEncodingError",
    "StateFileError",
    "DependencyCycleError",
    "DataLossError",
    "__version__",
]
