"""What the library itself sees is still dirty, and which field the model should fix next.

The cleaner asks this module, with no model call, for the worst field of the chunk that still
has an open issue; a field whose attempts are used up is set aside as unfixable (and reported).
A field given up on is taken up again (at most ``max_reopen`` times) when a later chunk shows
wrong values that call for another toolkit primitive than those tried: the first chunk's "Not
Available" (null_if_placeholder) says nothing about the "12/02/2011 6:55 a.m." (to_time_12h)
of chunk 20, while a new typo ("x00xx" after "x00x5") is no reason to try again. A field whose
format the data set (not the goals) is not asked for when no primitive fits its wrong values:
'3563x' among five-digit zips is a typo for the rules across rows, not a format to convert.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from ..errors import clip_text
from .expectations import Expectation
from .harm import HarmCheck, harm_check
from .improvement import judge_change
from .profiler import FieldProfile, issue_counts, open_issues, profile_records
from ..read.labels import Labels
from .spec import CleaningSpec, load_spec, read_spec

__all__ = ["FieldFocus", "function_name", "reason_key"]


@dataclass
class FieldFocus:
    """Field expectations for a run, attempts per field, and the fields given up on."""

    enabled: bool = True
    max_attempts: int = 3
    expectations: dict[str, Expectation] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    unfixable: dict[str, str] = field(default_factory=dict)
    # the source holds only strings (CSV); learned once, from the raw data
    csv_strings: bool | None = None
    max_reopen: int = 2
    # field -> primitives suggested when given up
    given_up_remedies: dict[str, set] = field(default_factory=dict)
    reopened: dict[str, int] = field(default_factory=dict)
    spec: CleaningSpec | None = None
    # fields out of the goals' scope: nothing may change them
    frozen: set[str] = field(default_factory=set)
    # fields the goals leave as they are: not even a stated key's step
    protected: set[str] = field(default_factory=set)
    # field -> value shapes an example keeps as they are
    kept: dict[str, frozenset] = field(default_factory=dict)
    # fields whose goals give an example that changes a value: asked for whatever the data sets
    shown: frozenset[str] = frozenset()
    # what scope="all" would check in them
    suggested: dict[str, Expectation] = field(default_factory=dict)
    # field -> refusals seen (``reason_key``)
    reasons: dict[str, set] = field(default_factory=dict)
    # the judge that needs no reading: each field's portrait (its data) and licence (its evidence)
    harm: HarmCheck | None = None
    # fields a rule across rows may not write either (not asked for at all)
    rows_frozen: set[str] = field(default_factory=set)
    # the user's corrected rows (``read.labels.Labels``): tests of every function and step
    labels: Labels | None = None

    def learn(
        self,
        instructions: str,
        fields: list[str],
        samples: dict[str, list] | None,
        *,
        scope: str = "mentioned",
        spec: str | dict | CleaningSpec | None = None,
        draft: dict | None = None,
        check: dict[str, list] | None = None,
        tie=None,
        ask=None,
    ) -> CleaningSpec:
        """The field spec (given, or read from the goals and checked on the samples) and the formats
        it sets; ``tie``: ``read_spec``'s model guess for a clause the rules tie to no field."""
        if samples:
            self.csv_strings = all(
                isinstance(v, str) for values in samples.values() for v in values if v is not None
            )
        if spec is None:
            self.spec = read_spec(
                instructions,
                fields,
                samples,
                scope=scope,
                draft=draft,
                csv_strings=self.csv_strings,
                check=check,
                tie=tie,
                ask=ask,
            )
        else:
            self.spec = spec if isinstance(spec, CleaningSpec) else load_spec(spec)
        self.expectations = self.spec.expectations()
        self.frozen = self.spec.frozen()
        self.rows_frozen = self.spec.frozen(rows=True)
        self.protected = self.spec.protected()
        self.kept = self.spec.kept()
        self.shown = frozenset(
            f for f, ex in self.spec.examples().items() if any(a != b for a, b in ex)
        )
        labelled: dict[str, list] = {}
        for name, given, label in self.labels.cells() if self.labels is not None else ():
            labelled.setdefault(name, []).append((given, label))
        self.harm = harm_check(self.spec, check or samples or {}, labelled)
        # seen there, reported as suggestions, never changed: what the fields' names and data
        if self.frozen:
            # suggest (the spec, maybe edited, is the one reading of the goals; they are not read
            # again here)
            wider = read_spec(
                "", fields, samples, scope="all", csv_strings=self.csv_strings, check=check
            )
            self.suggested = {
                f: e
                for f, e in wider.expectations().items()
                if f in self.frozen and f not in self.protected
            }
        return self.spec

    def suggestions(self, records: list) -> list[str]:
        """What the fields out of scope would need, on ``records``: one line per field with wrong
        values."""
        if not self.suggested:
            return []
        profiles = profile_records(records, self.suggested, csv_strings=self.csv_strings)
        return [
            f"{name}: {p.n_offending} of {p.non_null} sample values are not "
            f"{self.suggested[name].describe(csv_strings=bool(self.csv_strings))} (e.g. "
            f"{clip_text(repr(p.offending[0]), 80)})"
            for name, p in profiles.items()
            if name in self.suggested and p.n_offending
        ]

    @property
    def left_alone(self) -> set[str]:
        """The fields no function may write: out of the goals' scope, or to be left as they are."""
        return self.frozen | self.protected

    def profile(self, records: list) -> dict[str, FieldProfile]:
        """The profile of every field a function may write (never one left alone), judged as the
        source's values are (numbers as text count when it is CSV)."""
        profiles = profile_records(records, self.expectations, csv_strings=self.csv_strings)
        alone = self.left_alone
        return {f: p for f, p in profiles.items() if f not in alone} if alone else profiles

    def counts(self, records: list) -> dict[str, int]:
        """Field → number of values that do not conform (empty when profiling is off)."""
        return issue_counts(self.profile(records)) if self.enabled else {}

    def next(self, records: list) -> FieldProfile | None:
        """The worst field with an open issue that has attempts left, or None."""
        if not self.enabled:
            return None
        alone, shown = self.left_alone, self.shown
        for prof in open_issues(self.profile(records)):
            if prof.field in alone:
                continue  # never asked for: no function may write it
            if (
                prof.expectation is not None
                and prof.expectation.source == "data"
                and prof.field not in shown
                and (not prof.primitive or _typos_of(prof.examples_ok, prof.offending))
            ):
                # the data's own format, and the rest are typos of it ('3563x'), not another format;
                # unless the goals show how such a value changes (their examples decide: asked)
                continue
            if self.failures.get(prof.field, 0) < self.max_attempts:
                return prof
            tried = self.given_up_remedies.setdefault(prof.field, {prof.primitive})
            if (
                prof.primitive
                and prof.primitive not in tried
                and self.reopened.get(prof.field, 0) < self.max_reopen
            ):
                tried.add(prof.primitive)  # wrong values that need another remedy: one more round
                self.reopened[prof.field] = self.reopened.get(prof.field, 0) + 1
                self.failures[prof.field] = 0
                self.reasons.pop(prof.field, None)
                self.unfixable.pop(prof.field, None)
                return prof
            self.unfixable.setdefault(prof.field, prof.issue or "")
        return None

    def set_aside(self, records: list) -> list[FieldProfile]:
        """The fields given up on (``unfixable``) that still have an open issue in ``records``."""
        if not self.enabled or not self.unfixable:
            return []
        return [p for p in open_issues(self.profile(records)) if p.field in self.unfixable]

    def shown_changes(self) -> frozenset[str]:
        """The fields whose goals give an example that changes a value ('c1998' -> '1998')."""
        return self.shown

    def failed(self, target: FieldProfile | None, reason: str = "") -> None:
        """Count a failed attempt; the same refusal a second time uses up the field's attempts (no
        third call)."""
        if target is None:
            return
        self.failures[target.field] = self.failures.get(target.field, 0) + 1
        said = self.reasons.setdefault(target.field, set())
        key = reason_key(reason)
        if key and key in said:
            self.failures[target.field] = max(self.failures[target.field], self.max_attempts)
        said.add(key)

    def fixed(self, target: FieldProfile | None) -> None:
        if target is not None:
            self.failures.pop(target.field, None)
            self.reasons.pop(target.field, None)

    def judge(
        self, before: list, after: list, target: FieldProfile | None
    ) -> tuple[str | None, str | None]:
        """(why the change does not move the profile or None, the field it fixed when not the one
        asked for)."""
        if not self.enabled:
            return None, None
        verdict = judge_change(
            before,
            after,
            self.expectations,
            target=target.field if target else None,
            csv_strings=self.csv_strings,
            frozen=frozenset(self.frozen),
            kept=self.kept,
            harm=self.harm,
        )
        return verdict.problem, verdict.credited


_QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\d+")


def reason_key(reason: str) -> str:
    """A refusal without what varies between attempts (names, quoted values, counts): the same
    mistake twice."""
    return " ".join(_QUOTED.sub("_", reason or "").split())[:300]


def _typos_of(right: list, offending: list) -> bool:
    """Is every wrong value a right value's shape with a letter where it has a digit ('3563x' beside
    '35630')?"""
    shapes = {_char_shape(v) for v in right}
    if not shapes or not offending:
        return False

    def typo(value: object) -> bool:
        shape = _char_shape(value)
        return any(
            len(shape) == len(usual)
            and all(a == b or (a == "9" and b == "a") for a, b in zip(usual, shape))
            for usual in shapes
        )

    return all(typo(v) for v in offending)


def _char_shape(value: object) -> str:
    return "".join("9" if c.isdigit() else "a" if c.isalpha() else c for c in str(value).strip())


def function_name(field_name: str, taken: set[str]) -> str:
    """``fix_<field>``, numbered if that name is taken."""
    # only characters a Python name may hold (a field name is data: "²", "\n" and the rest go)
    text = unicodedata.normalize("NFKC", str(field_name))  # as Python reads a name
    word = "".join(c if ("a" + c).isidentifier() else "_" for c in text)
    base = "fix_" + (re.sub(r"_+", "_", word).strip("_").lower() or "field")
    if not base.isidentifier():  # NFKC-changing letters and the like: the plain name
        base = "fix_field"
    n, name = 1, base
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name
