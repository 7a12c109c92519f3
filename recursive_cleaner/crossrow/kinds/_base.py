"""The ``StepKind`` every cross-row step kind is, and the one registry the stages loop over."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...model.grammar import seq
from ..values import hashable

__all__ = [
    "StepKind",
    "FieldValueCounts",
    "REGISTRY",
    "NO_FIX",
    "register",
    "get",
    "registered",
    "which",
]

NO_FIX = object()  # ``StepKind.fix``: this step has no fix for the value


class StepKind:
    """One kind of cross-row step: what its parameters mean, its XML and grammar, its two passes.

    A subclass sets the class attributes (what the planner, the guard and apply need to know of
    it) and overrides the methods its work needs; ``register(instance)`` adds it. The steps are
    ``crossrow.steps.CrossRowStep``\\ s (kind, key, fields and the shared parameters); a kind's
    methods get the step, or the ``Summary`` / ``Fitted`` and the step's index ``i`` in it:

    - first pass: ``start(step)`` -> the step's counts (None: it counts nothing), kept in
      ``summary.counts[i]``; ``add(summary, i, record)`` counts one record;
      ``merge(summary, later, i)`` adds the counts of the records after these (Dask parts, in
      order: the merged counts must be the ones a single pass counts); ``fit(summary, i,
      fitted)`` -> the step's fitted state (its winners), kept in ``fitted.fits[i]``;
    - second pass: ``transform(fitted, i, out)`` changes the record ``out`` in place (counting
      each cell it writes in ``fitted.changed[(i, field)]``, asking ``step.may_write`` first);
      False drops it (counted in ``fitted.dropped`` and ``fitted.dropped_by[i]``);
    - the plan: ``prompt`` / ``task`` (the planning prompt), ``grammar`` (its piece of the
      reply's grammar), ``xml_attrs`` (how the model writes it); ``describe`` (the report and
      the generated file), ``names`` (the fields its audit label names), ``notes`` (what its fit
      learned, for the report: a source-weighted majority's source accuracies).

    A per-field count that may stop at a cap keeps ``summary.counts[i]`` a dict field ->
    ``Counter`` and adds ``(i, field)`` to ``summary.capped``: Dask recounts those cells.
    """

    name: str = ""
    needs_key: bool = False  # a step of this kind needs ``key``
    needs_fields: bool = False  # ... and ``fields`` (other than its key)
    # it writes ``fields`` (False: dedup): protected fields and kept shapes guard it
    writes: bool = True
    # it may drop records: only when the goals ask for it (``asked``); its key must identify records
    drops: bool = False
    # it drops a record whose key an earlier one has (``Fitted.seen[i]``; on Dask: a round of keys)
    keeps_first: bool = False
    weighs: bool = False  # its votes may be weighted by source (``weight_by``)
    # a stated key vouches for it; on another key it replaces variants only (``variants_only``)
    stated_repair: bool = False
    # its fixes correct every step's key values (``fix``): fitted before the others
    fixes_keys: bool = False
    # it maps a value to a value whatever its row: the goals' examples are checked on it alone
    value_map: bool = False
    # the plan offers it to the model (prompt, grammar, the reply's XML); the library's own
    # steps (``labels``) are not
    planned: bool = True
    # its fit gives rows whose values are known (``Fitted.anchors``): fitted before the steps
    # that read them (a source-weighted majority holds their cells' truth)
    anchors: bool = False
    prompt: str = ""  # its line under "Kinds of rule" in the planning prompt
    task: str = ""  # a clause the planning task adds when this kind is offered

    def check(self, step: Any) -> None:
        """Raise ValueError for parameters of ``step`` this kind cannot take (past shared ones)."""

    def describe(self, step: Any) -> str:
        """One line for the report and the generated file."""
        return f"{self.name} on {'+'.join(self.names(step))}"

    def names(self, step: Any) -> tuple[str, ...]:
        """The fields the step's audit label names: its key (or its fields when it has none)."""
        return tuple(step.key or step.fields)

    def xml_attrs(self, step: Any) -> list[str]:
        """The attributes of ``<cross_row_step .../>`` for ``step``, as the model writes them."""
        attrs = [f'kind="{step.kind}"']
        for attr in ("key", "fields", "weight_by"):
            if getattr(step, attr):
                attrs.append(f'{attr}="{", ".join(getattr(step, attr))}"')
        return attrs

    def grammar(self, listed: Any, written: Any = None) -> Any:
        """This kind's ``<cross_row_step .../>`` line in the plan's grammar (``listed``: names of
        any field, for keys; ``written``: names of the fields a step may write, default the same).
        """
        parts: list[Any] = [f'<cross_row_step kind="{self.name}"']
        for attr, names, wanted in (
            ("key", listed, self.needs_key),
            ("fields", listed if written is None else written, self.needs_fields),
        ):
            parts += [f' {attr}="', names, '"'] if wanted else []
        return seq(*parts, "/>\n")

    def start(self, step: Any) -> Any:
        """The step's empty counts for the first pass, or None when it counts nothing."""
        return None

    def add(self, summary: Any, i: int, record: dict) -> None:
        """Count one record into ``summary.counts[i]``."""

    def merge(self, summary: Any, later: Any, i: int) -> None:
        """Add ``later.counts[i]`` (the records after these) into ``summary.counts[i]``."""

    def fit(self, summary: Any, i: int, fitted: Any) -> Any:
        """The step's fitted state from ``summary.counts[i]`` (None: nothing to keep)."""
        return None

    def fix(self, state: Any, fld: str, value: Any) -> Any:
        """A ``fixes_keys`` kind: the value ``value`` of ``fld`` becomes, or ``NO_FIX``."""
        return NO_FIX

    def transform(self, fitted: Any, i: int, out: dict) -> bool:
        """Step ``i`` on the record ``out``, in place; False when it drops the record."""
        return True

    def notes(self, step: Any, state: Any) -> list[str]:
        """What the fit learned that the report shows (``state``: the step's fitted state)."""
        return []

    def __repr__(self) -> str:
        return f"<cross-row kind {self.name}>"


class FieldValueCounts(StepKind):
    """A kind whose first pass counts each field's distinct values (``vocabulary``, ``shape``): at
    most ``max_values()`` per field, a cell past it marked ``capped`` (Dask recounts those)."""

    def max_values(self) -> int:
        raise NotImplementedError

    def start(self, step: Any) -> dict:
        return {fld: Counter() for fld in step.fields}

    def add(self, summary: Any, i: int, record: dict) -> None:
        cap = self.max_values()
        for fld, counts in summary.counts[i].items():
            value = hashable(record.get(fld))
            if value is not None:
                if value in counts or len(counts) < cap:
                    counts[value] += 1
                else:
                    summary.capped.add((i, fld))

    def merge(self, summary: Any, later: Any, i: int) -> None:
        cap = self.max_values()
        for fld, counts in later.counts[i].items():
            mine = summary.counts[i][fld]
            for value, n in counts.items():
                if value in mine or len(mine) < cap:
                    mine[value] += n
                else:
                    summary.capped.add((i, fld))


REGISTRY: dict[str, StepKind] = {}


def register(kind: StepKind) -> StepKind:
    """Add a kind (built-in or a plug-in's) to the registry; its name must be new.

    A kind that drops records must drop a record whose key an earlier one has (``keeps_first``):
    those are the drops apply_dask counts before it writes (``max_drop``), and the only ones.
    """
    if not kind.name or not kind.name.isidentifier():
        raise ValueError(f"a cross-row kind needs a name that is an identifier, got {kind.name!r}")
    if kind.drops != kind.keeps_first:
        raise ValueError(
            f"the cross-row kind {kind.name!r}: a kind that drops records keeps the "
            "first of each key (drops and keeps_first go together)"
        )
    if kind.name in REGISTRY:
        raise ValueError(f"a cross-row kind named {kind.name!r} is already registered")
    REGISTRY[kind.name] = kind
    return kind


def get(name: str | None) -> StepKind | None:
    """The registered kind of that name, or None."""
    return REGISTRY.get(name or "")


def registered() -> tuple[StepKind, ...]:
    """Every kind, in the order they were registered (the order the prompt and the grammar list)."""
    return tuple(REGISTRY.values())


def which(attr: str) -> str:
    """The names of the kinds that have ``attr`` set, for a message: "majority", "dedup or toy"."""
    return " or ".join(k.name for k in REGISTRY.values() if getattr(k, attr))
