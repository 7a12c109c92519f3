"""Cross-row: rules over the whole file (majority by key, vocabulary, dedup), data not code; their
plan and guard.

Each kind of rule is one class in ``kinds`` (one registry); ``steps`` holds what they share.

``CrossRowStep`` and ``apply_steps`` are what a generated ``clean_dataset`` imports from here.
"""

from .steps import CrossRowStep, apply_steps

__all__ = ["CrossRowStep", "apply_steps"]
