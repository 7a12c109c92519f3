"""Contract path of the schema helpers (spec 02): the code lives in ``profiling.schema``."""

from .profiling.schema import (
    infer_schema,
    infer_schema_from_records,
    format_schema_for_prompt,
    empty_schema,
)

__all__ = ["infer_schema", "infer_schema_from_records", "format_schema_for_prompt", "empty_schema"]
