"""A named authority (issue 44): the spec entry saying which source wins where it reports.

``"authority": {"source": "src", "rule": "key_first_part"}`` in ``cleaning_spec.json``: where a
source-weighted vote on a key decides a cell, the value the source the key's first part names
reports wins (``ua`` for ``UA-1234-IAH-ORD``, names compared casefolded); ``{"source": "src",
"rule": "equals", "name": "ua"}``: the source of that name. A cell the authority does not report
is voted on as before; a cell the user's corrected rows label keeps the label. Editable in the
spec; shown in the report and ``plan``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import clip_text

__all__ = ["Authority", "load_authority", "AUTHORITY_RULES"]

AUTHORITY_RULES = ("key_first_part", "equals")
_NAME_CHARS = 200


@dataclass(frozen=True)
class Authority:
    """The source field, the rule naming the source that wins, and the name an ``equals`` rule
    compares with."""

    source: str
    rule: str = "key_first_part"
    name: str = ""

    def describe(self) -> str:
        """One line for the report and the plan."""
        if self.rule == "equals":
            return (
                f"authority: the {self.source} named {clip_text(self.name, 60)!r} wins where it "
                "reports"
            )
        return f"authority: the {self.source} the key's first part names wins where it reports"

    def to_dict(self) -> dict[str, str]:
        out = {"source": self.source, "rule": self.rule}
        return out | ({"name": self.name} if self.rule == "equals" else {})


def load_authority(given: Any, where: str, fields: set[str]) -> Authority | None:
    """The spec's ``authority`` entry (None when absent); ValueError naming what is wrong."""
    if given is None:
        return None
    shape = (
        f'{where}: authority must be {{"source": FIELD, "rule": "key_first_part"}} or '
        '{"source": FIELD, "rule": "equals", "name": NAME}'
    )
    if not isinstance(given, dict) or not isinstance(given.get("source"), str):
        raise ValueError(shape)
    rule, name = given.get("rule", "key_first_part"), given.get("name", "")
    if rule not in AUTHORITY_RULES or not isinstance(name, str) or len(name) > _NAME_CHARS:
        raise ValueError(shape)
    if rule == "equals" and not name.strip():
        raise ValueError(f"{where}: an authority with the rule equals needs a name")
    source = given["source"]
    if fields and source not in fields:
        raise ValueError(
            f"{where}: the authority's source {clip_text(source, 80)!r} is not a field of the spec"
        )
    return Authority(source, rule, name.strip() if rule == "equals" else "")
