"""Contract path of the prompt context (spec 02): the code lives in ``model.context``."""

from .model.context import build_context, build_rich_context, NO_FUNCTIONS, REUSE_GUIDANCE

__all__ = ["build_context", "build_rich_context", "NO_FUNCTIONS", "REUSE_GUIDANCE"]
