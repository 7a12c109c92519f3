"""Cross-row cleaning: declarative steps that need the whole dataset, fitted then applied in two
streaming passes.

A per-record function cannot know what other rows say. These steps can, and they are data,
not code: the model picks or writes them as XML, the library validates them on a chunk and
runs them with its own (trusted) code, so nothing the model wrote executes here.

Each kind of step is one class in ``crossrow.kinds`` (its checks, counts, winners and transform,
its XML, grammar and words): ``majority`` (rows sharing a key agree on fields), ``vocabulary``
(rare misspellings become the common spelling), ``dedup`` (drop a record whose key was seen
before). This module holds what every kind shares and loops over them.

``fit(steps, records)`` is the first pass (statistics: a ``Summary`` of counts, which add up
part by part, so apply_dask merges the parts' summaries into the one a single pass counts;
``Summary.fitted()`` picks the winners); ``Fitted.transform(record)`` the second (returns the
cleaned record, or None for a dropped duplicate). The fixes of a ``fixes_keys`` kind
(vocabulary) are fitted first and applied to every step's key (``Fitted.key``), so a row whose
key had a typo still joins its group.

No step writes a field in its ``protected`` (the goals leave it as it is: a protected key is read,
never repaired) or replaces a value whose shape its ``keep`` lists for that field (an example
keeps values of that shape as they are); ``CrossRowStep.may_write`` is the one check.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Iterator

from ..profiling.profiler import value_shape
from . import kinds
from .kinds import NO_FIX, StepKind
from .step_checks import AUTHORITY_RULES, NAMES, as_row, check_authority, check_rows, check_types
from .values import NORMALIZERS, hashable, is_variant, normalized

__all__ = [
    "CrossRowStep",
    "Fitted",
    "Summary",
    "summarize",
    "fit",
    "apply_steps",
    "rows_changed",
    "iter_apply",
    "KINDS",
    "normalized",
    "unasked_drops",
    "is_variant",
    "kind_of",
    "AUTHORITY_RULES",
]

KINDS = tuple(sorted(kinds.REGISTRY))  # the built-ins; ``kinds.registered()`` has plug-ins' too


def kind_of(step: CrossRowStep) -> StepKind:
    """The registered kind of ``step`` (it was checked when the step was made)."""
    return kinds.REGISTRY[step.kind]


@dataclass(frozen=True)
class CrossRowStep:
    """One cross-row rule; its kind (``crossrow.kinds``) says what it does."""

    kind: str
    key: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    normalize: str = "casefold"
    min_share: float = 0.5
    min_count: int = 2
    max_distance: int = 2
    ratio: float = 3.0
    weight_by: tuple[str, ...] = ()
    # a dedup step the user's goals ask for: apply lets it drop more than max_drop
    asked: bool = False
    # majority on a key the goals do not state: replace only variants of the winner
    variants_only: bool = False
    # fields the goals leave as they are: never written (key repairs included)
    protected: tuple[str, ...] = ()
    # (field, value shape) an example keeps as it is: never replaced
    keep: tuple[tuple[str, str], ...] = ()
    # a labels step: the user's corrected rows, each ((field, value), ...), matched by ``key``
    rows: tuple[tuple[tuple[str, Any], ...], ...] = ()
    # a source-weighted step: the source that wins where it reports (``AUTHORITY_RULES``):
    # ("equals", NAME) or ("key_first_part",)
    authority: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "protected", tuple(self.protected))
        check_types(self)
        object.__setattr__(self, "keep", tuple((str(f), str(shape)) for f, shape in self.keep))
        object.__setattr__(self, "authority", tuple(self.authority))
        object.__setattr__(self, "rows", tuple(as_row(r) for r in self.rows))
        kind = kinds.get(self.kind)
        if kind is None:
            names = ", ".join(sorted(kinds.REGISTRY))
            raise ValueError(f"cross-row step kind must be one of {names}, got {self.kind!r}")
        if kind.needs_key and not self.key:
            raise ValueError(f"a {self.kind} step needs a key field")
        if kind.needs_fields and not self.fields:
            raise ValueError(f"a {self.kind} step needs fields")
        if self.normalize not in NORMALIZERS:
            raise ValueError(f"normalize must be one of {', '.join(NORMALIZERS)}")
        if self.asked and not kind.drops:
            raise ValueError(
                f"only a {kinds.which('drops')} step is marked as asked for by the goals"
            )
        if self.weight_by and not kind.weighs:
            raise ValueError(f"only a {kinds.which('weighs')} step can weight its votes by source")
        if self.variants_only and not kind.stated_repair:
            raise ValueError(f"only a {kinds.which('stated_repair')} step replaces variants only")
        if self.rows and not kind.anchors:
            raise ValueError(f"only a {kinds.which('anchors')} step holds rows")
        check_rows(self)
        if self.authority and not kind.weighs:
            raise ValueError(f"only a {kinds.which('weighs')} step names an authority")
        check_authority(self)
        kind.check(self)

    def describe(self) -> str:
        """One line for the report and the generated file."""
        return kind_of(self).describe(self)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["key"], d["fields"] = list(self.key), list(self.fields)
        if self.weight_by:
            d["weight_by"] = list(self.weight_by)
        else:
            d.pop("weight_by")  # files written before weighting existed stay the same
        if not self.asked:
            d.pop("asked")
        # files written before these existed stay the same
        for name in ("variants_only", "protected", "keep", "rows", "authority"):
            if not d[name]:
                d.pop(name)
        if "protected" in d:
            d["protected"] = list(self.protected)
        if "keep" in d:
            d["keep"] = [list(pair) for pair in self.keep]
        if "rows" in d:
            d["rows"] = [dict(row) for row in self.rows]
        if "authority" in d:
            d["authority"] = list(self.authority)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CrossRowStep":
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        for name in NAMES:  # a string would be read as its letters: "sku" as s, k, u
            if isinstance(known.get(name), (str, bytes)):
                raise ValueError(f"{name} must be a list of field names, not a string")
        known["key"], known["fields"] = (
            tuple(known.get("key") or ()),
            tuple(known.get("fields") or ()),
        )
        known["weight_by"] = tuple(known.get("weight_by") or ())
        known["protected"] = tuple(known.get("protected") or ())
        known["keep"] = tuple(tuple(pair) for pair in known.get("keep") or ())
        rows = known.get("rows") or ()
        if not isinstance(rows, (list, tuple)) or not all(isinstance(r, dict) for r in rows):
            raise ValueError("rows must be a list of records (objects)")
        known["rows"] = tuple(tuple(r.items()) for r in rows)
        if isinstance(known.get("authority"), (str, bytes)):
            raise ValueError("authority must be a list: [rule] or [rule, name]")
        known["authority"] = tuple(known.get("authority") or ())
        return cls(**known)

    def may_write(self, fld: str, old: Any, new: Any) -> bool:
        """May this step put ``new`` in place of ``old`` in ``fld``? Not in a protected field, nor
        over a kept value's shape; with ``variants_only``, a present value only by a variant of it
        (``is_variant``)."""
        if fld in self.protected or (self.keep and (fld, value_shape(old)) in self.keep):
            return False
        if (
            self.variants_only
            and old is not None
            and not (isinstance(old, str) and not old.strip())
        ):
            return is_variant(old, new, self.max_distance)
        return True


@dataclass
class Fitted:
    """The statistics of the first pass; ``transform`` is the second pass, record by record.

    ``fits``: step -> its kind's fitted state (``StepKind.fit``); ``seen``: the keys a
    ``keeps_first`` step has seen; ``changed``: (step, field) -> cells written; ``dropped`` /
    ``dropped_by``: records dropped (in all / per step); ``left_alone``: (step, field) -> distinct
    values or keys too long or past the work budget; ``key_fixers``: the steps whose fixes
    correct key values, in order.
    """

    steps: list[CrossRowStep]
    fits: dict[int, Any] = field(default_factory=dict)
    seen: dict[int, set] = field(default_factory=dict)
    changed: Counter = field(default_factory=Counter)
    dropped: int = 0
    dropped_by: Counter = field(default_factory=Counter)  # step index -> records it dropped
    left_alone: Counter = field(default_factory=Counter)  # (step, field) -> values/keys left alone
    key_fixers: list[int] = field(default_factory=list)
    # rows whose values are known (an ``anchors`` kind's: the user's corrected rows)
    anchors: list[dict] = field(default_factory=list)

    def fix(self, fld: str, value: Any) -> Any:
        """``value`` of ``fld`` as the first ``fixes_keys`` step that has a fix for it writes it."""
        for i in self.key_fixers:
            fixed = kind_of(self.steps[i]).fix(self.fits[i], fld, value)
            if fixed is not NO_FIX:
                return fixed
        return value

    def key(self, i: int, record: dict) -> Any:
        """Step ``i``'s key of ``record`` as it compares it (vocabulary fixes applied, normalised),
        or None."""
        step = self.steps[i]
        parts = tuple(normalized(self.fix(k, record.get(k)), step.normalize) for k in step.key)
        return None if any(p is None for p in parts) else parts

    def transform(self, record: Any) -> Any:
        """The record after every step (a new dict), or None when a dedup step drops it."""
        if not isinstance(record, dict):
            return record
        out = dict(record)
        for i in range(len(self.steps)):
            if not self.apply_step(i, out):
                return None
        return out

    def notes(self) -> list[list[str]]:
        """Per step, what its fit learned that the report shows (``StepKind.notes``)."""
        return [kind_of(s).notes(s, self.fits.get(i)) for i, s in enumerate(self.steps)]

    def apply_step(self, i: int, out: dict) -> bool:
        """Step ``i`` on ``out`` in place (``transform`` runs them all); False when it drops it."""
        return kind_of(self.steps[i]).transform(self, i, out)

    @property
    def groups(self) -> dict[int, dict]:
        """A view: each step whose fitted state has key groups (majority) -> its groups."""
        return {i: state.groups for i, state in self.fits.items() if hasattr(state, "groups")}

    @property
    def vocab(self) -> dict[tuple[int, str], Any]:
        """A view: (step, field) -> the field's spellings (counts, fixes) of a vocabulary step."""
        return {
            (i, fld): voc
            for i, state in self.fits.items()
            for fld, voc in getattr(state, "by_field", {}).items()
        }


@dataclass
class Summary:
    """The first pass as counts that add up: summaries of consecutive parts, merged in order, give
    the whole's.

    ``counts``: step -> its kind's counts (``StepKind.start`` / ``add`` / ``merge``); ``capped``:
    the (step, field) cells whose value counts (``counts[step][field]``) stopped at a cap, exact
    only after ``recount``. ``fitted()`` picks the winners.
    """

    steps: list[CrossRowStep]
    counts: dict[int, Any] = field(default_factory=dict)
    capped: set = field(default_factory=set)

    def __post_init__(self) -> None:
        for i, s in enumerate(self.steps):
            if i not in self.counts:
                start = kind_of(s).start(s)
                if start is not None:
                    self.counts[i] = start

    def add(self, record: Any) -> None:
        """Count one record (anything but a dict is not counted)."""
        if not isinstance(record, dict):
            return
        for i in self.counts:
            kind_of(self.steps[i]).add(self, i, record)

    def merge(self, later: "Summary") -> "Summary":
        """Add the summary of the records that come after these (in place; returns self)."""
        for i in later.counts:
            kind_of(self.steps[i]).merge(self, later, i)
        self.capped |= later.capped
        return self

    def recount(
        self, cells: Iterable[tuple[int, str]], records: Iterable[Any]
    ) -> dict[tuple[int, str], Counter]:
        """The counts of the values ``counts`` keeps for ``cells``, over ``records`` (exact)."""
        out = {cell: Counter() for cell in cells}
        for record in records:
            if isinstance(record, dict):
                for (i, fld), counts in out.items():
                    value = hashable(record.get(fld))
                    if value in self.counts[i][fld]:
                        counts[value] += 1
        return out

    def recounted(self, totals: dict[tuple[int, str], Counter]) -> None:
        """Put the recounts of whole files (``recount``'s, added up) in place of capped counts."""
        for (i, fld), counter in totals.items():
            self.counts[i][fld] = Counter({value: counter[value] for value in self.counts[i][fld]})

    def fitted(self) -> Fitted:
        """The winners: ``fixes_keys`` steps first (vocabulary), then the ``anchors`` (labels), then
        the others (keys fixed, known rows given)."""
        fitted = Fitted(list(self.steps))
        fixers = [i for i, s in enumerate(self.steps) if kind_of(s).fixes_keys]
        anchors = [i for i, s in enumerate(self.steps) if kind_of(s).anchors and i not in fixers]
        others = [i for i in range(len(self.steps)) if i not in fixers and i not in anchors]
        for group in (fixers, anchors, others):
            for i in group:
                state = kind_of(self.steps[i]).fit(self, i, fitted)
                if state is not None:
                    fitted.fits[i] = state
            fitted.key_fixers = [i for i in fixers if i in fitted.fits]
        fitted.fits = dict(sorted(fitted.fits.items()))
        return fitted


def summarize(steps: Iterable[CrossRowStep], records: Iterable[Any]) -> Summary:
    """The first pass over ``records``: their ``Summary``."""
    summary = Summary(list(steps))
    for record in records:
        summary.add(record)
    return summary


def fit(steps: Iterable[CrossRowStep], records: Iterable[Any]) -> Fitted:
    """First pass: every step's counts (``Summary``), then the winners."""
    return summarize(steps, records).fitted()


def unasked_drops(fitted: Fitted) -> int:
    """Records dropped so far by steps the goals did not ask for (see ``CrossRowStep.asked``)."""
    return sum(n for i, n in fitted.dropped_by.items() if not fitted.steps[i].asked)


def apply_steps(steps: Iterable[CrossRowStep], records: list) -> list:
    """Fit and transform a list in memory (validation on a chunk; small data)."""
    fitted = fit(steps, records)
    return [out for out in map(fitted.transform, records) if out is not None]


def rows_changed(steps: list[CrossRowStep], records: list) -> list[int]:
    """Per step, in order: the records it changed or dropped when the steps run over ``records``."""
    fitted, counts = fit(steps, records), [0] * len(steps)
    for record in records:
        if not isinstance(record, dict):
            continue
        out = dict(record)
        for i in range(len(steps)):
            before = dict(out)
            kept = fitted.apply_step(i, out)
            if not kept or out != before:
                counts[i] += 1
            if not kept:
                break
    return counts


def iter_apply(fitted: Fitted, records: Iterable[Any]) -> Iterator[Any]:
    """The second pass over a stream: transformed records, duplicates dropped."""
    for record in records:
        out = fitted.transform(record)
        if out is not None:
            yield out
