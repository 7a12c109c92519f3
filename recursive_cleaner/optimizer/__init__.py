"""Optimizer: after the last chunk, group functions by tags, consolidate them, verify equal output;
saturation.

The contract names (spec 03) are importable from here: ``group_by_salience``,
``consolidate_with_agency``, ``AgentAssessment``, ``extract_tags``.
"""

from .consolidation import AgentAssessment, consolidate_with_agency
from .grouping import extract_tags, group_by_salience

__all__ = ["group_by_salience", "consolidate_with_agency", "AgentAssessment", "extract_tags"]
