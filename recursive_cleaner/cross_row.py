"""Where cleaning_functions.py files written by 0.2.0 import their cross-row steps from (now
``crossrow``)."""

from .crossrow.steps import CrossRowStep, apply_steps

__all__ = ["CrossRowStep", "apply_steps"]
