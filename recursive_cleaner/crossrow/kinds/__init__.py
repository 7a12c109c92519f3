"""Cross-row step kinds, one class per kind in one registry (issue 30, point 3).

A kind (``StepKind``) owns what a step of it does and how it is planned: its checks, its first
pass (``start`` / ``add`` counts, ``merge`` of the counts of consecutive parts, ``fit`` the
winners), its second pass (``transform``), its XML (``xml_attrs``) and its piece of the plan's
grammar (``grammar``), its line in the planning prompt (``prompt``, ``task``), its words for the
report and the generated file (``describe``) and the audit log (``names``), and the flags the
planner, the guard and apply read (``drops``, ``keeps_first``, ``fixes_keys``, ...).
``crossrow.steps`` (``CrossRowStep``, ``Summary``, ``Fitted``), ``crossrow.xml_form``,
``crossrow.plan``, ``apply.cross_row``, ``apply.dask_fit`` and ``apply.frames`` loop over the
registry, never over names.

The built-ins are registered here, in the order the planning prompt and the grammar list them;
a new kind is its own module here and one name in the tuple below, and a plug-in registers
its own through the same door (``register(MyKind())``).

- ``majority``: rows sharing a key agree on fields (the value most of the key's rows have);
- ``vocabulary``: a rare spelling becomes the much more frequent close one (keys too);
- ``dedup``: a record whose key was seen before is dropped;
- ``words``: a rare misspelled word inside a field's values becomes the word the field spells often;
- ``shape``: a value off the field's shape by a character becomes the one held value it can be;
- ``labels``: the user's corrected rows keep their values (never planned: the library adds it).
"""

from __future__ import annotations

from ._base import NO_FIX, REGISTRY, StepKind, get, register, registered, which
from .dedup import Dedup
from .labels import Labels
from .majority import Majority
from .shape import Shape
from .vocabulary import Vocabulary
from .words import Words

__all__ = ["StepKind", "REGISTRY", "NO_FIX", "register", "get", "registered", "which"]

for _kind in (Majority(), Vocabulary(), Dedup(), Words(), Shape(), Labels()):
    register(_kind)
