"""Apply: cleaning_functions.py over a whole dataset: local sandboxed workers, cross-row passes,
audit, Dask.

``recursive_cleaner.apply.apply_file`` / ``apply_records`` are the public entry points (``local``).
"""

from .local import ApplyError, ApplyResult, apply_file, apply_records

__all__ = ["ApplyError", "ApplyResult", "apply_file", "apply_records"]
