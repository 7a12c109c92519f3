"""The field spec's data and its file form: ``FieldSpec``, ``CleaningSpec`` (``to_json`` is the text
of ``cleaning_spec.json``) and ``load_spec``, which reads it back (a path or a dict) so a user can
correct the reading before any function is written (docs/spec.md). ``spec.read_spec`` makes one.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import clip_text
from . import kinds
from .expectations import (
    KIND_PRIMITIVES,
    KINDS,
    Expectation,
    value_shape,
)
from .authority import Authority, load_authority
from .conversions import Conversion, load_conversions


__all__ = [
    "FieldSpec",
    "CleaningSpec",
    "load_spec",
    "check_forms",
    "SPEC_KINDS",
    "SCOPES",
    "SPEC_FILE",
    "EVIDENCE_SOURCES",
]

SPEC_KINDS = KINDS + ("free",)
EVIDENCE_SOURCES = frozenset({"instructions", "user", "model"})
"""Where a field's kind is evidence: a clause of the goals, the user's spec, the model's reading of
a clause that the data agreed with. A kind guessed from the field's name or its data is not."""
SCOPES = ("mentioned", "all")
SPEC_FILE = "cleaning_spec.json"
_SPEC_VERSION = 1


@dataclass(frozen=True)
class FieldSpec:
    """What one field should look like, and why the library believes it."""

    kind: str | None = None
    allowed: tuple[str, ...] = ()
    mentioned: bool = False
    words: str = ""
    source: str = ""
    note: str = ""
    # (input, output) pairs the cleaning must map exactly
    examples: tuple[tuple[str, str], ...] = ()
    # the goals ask a change of it (a format, a verb of cleaning, typos, an example, a conversion,
    # a stated key): bound to a target or not (``bound``); asked and unbound is an unmet goal
    asked: bool = False
    # the clause that binds it (quoted in the spec, the report and ``plan``)
    evidence: str = ""
    # a clause asks a rule across rows to mend it (typos, variants, consistency): the spelling
    # most rows have may be written though no format binds it
    mend: bool = False

    def bound(self) -> bool:
        """Do the goals bind the field to a target: a kind a clause (or the user) gives it, or an
        example that changes a value? Nothing else makes a field writable (no target, no write)."""
        return (
            self.kind not in (None, "free", "as_is") and self.source in EVIDENCE_SOURCES
        ) or any(a != b for a, b in self.examples)

    def kept_values(self) -> tuple[str, ...]:
        """The inputs of the examples whose output equals their input: values (and shapes) no change
        may touch."""
        return tuple(a for a, b in self.examples if a == b)

    def kept_shapes(self) -> frozenset[str]:
        """The ``value_shape`` of each kept value ("01907" -> "9"): values of these shapes stay as
        they are."""
        return frozenset(value_shape(a) for a in self.kept_values())

    def expectation(self) -> Expectation | None:
        """The checkable format (None for no kind and ``free``)."""
        if self.kind is None or self.kind == "free":
            return None
        return Expectation(
            self.kind, tuple(self.allowed), self.source, KIND_PRIMITIVES.get(self.kind, "")
        )


@dataclass
class CleaningSpec:
    """The spec of every field, the keys the goals state, and the scope of the cleaning."""

    fields: dict[str, FieldSpec] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    scope: str = "mentioned"
    # the goals ask to remove duplicate records (a negated mention is no request)
    dedup: bool = False
    # key -> the fields stated with it (none: all)
    key_fields: dict[str, list[str]] = field(default_factory=dict)
    key_words: dict[str, str] = field(default_factory=dict)  # key -> the sentences that state it
    # unit conversions across a number field and its unit field
    conversions: tuple[Conversion, ...] = ()
    # the source that wins where it reports (``profiling.authority``)
    authority: Authority | None = None

    def stated(self) -> dict[str, list[str]]:
        """``{key: fields}`` of the stated keys: the fields the goals say its rows agree on ([]:
        every field)."""
        return {k: list(self.key_fields.get(k, [])) for k in self.keys}

    def in_scope(self, name: str) -> bool:
        """May the cleaning change this field (cross-row repairs on stated keys aside)? Only where
        the goals bind it to a target (``FieldSpec.bound``, a conversion); with ``scope="all"``
        (goals that name no field, or the user's option) every field not left as it is."""
        spec = self.fields.get(name)
        if self.scope == "all":
            return spec is None or spec.kind != "as_is"
        if spec is None or spec.kind == "as_is":
            return False
        return spec.bound() or any(name in (c.value, c.unit) for c in self.conversions)

    def expectations(self) -> dict[str, Expectation]:
        """``{field: Expectation}`` for the fields in scope that have a checkable kind (as_is
        included)."""
        out = {}
        for name, spec in self.fields.items():
            exp = spec.expectation()
            if exp is not None and (self.in_scope(name) or spec.kind == "as_is"):
                out[name] = exp
        return out

    def frozen(self, rows: bool = False) -> set[str]:
        """Fields no function may change (out of scope); ``rows``: those a rule across rows may not
        change either (no clause asks it to mend them: "fix the typos in the city" asks the
        spelling most rows have and binds no format) but a repair on a key the goals state with
        them."""
        return {
            name
            for name, spec in self.fields.items()
            if not self.in_scope(name) and not (rows and spec.mend and spec.kind != "as_is")
        }

    def unmet(self) -> dict[str, str]:
        """``{field: the goals' words}`` of the fields the goals ask a change of but bind to no
        target the library can check (no format, example, list or conversion): left as they are,
        said so (a rule across rows may still mend them)."""
        return {
            name: spec.evidence or spec.words
            for name, spec in self.fields.items()
            if spec.asked and spec.kind != "as_is" and not self.in_scope(name)
        }

    def protected(self) -> set[str]:
        """Fields the goals say to leave as they are (``as_is``): nothing writes them but the
        majority of a stated key they are named with ("mend the product names with the spelling most
        lines of that SKU have")."""
        return {name for name, spec in self.fields.items() if spec.kind == "as_is"}

    def examples(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """``{field: ((input, output), ...)}`` of the fields with examples: every function for the
        field must pass them."""
        return {name: spec.examples for name, spec in self.fields.items() if spec.examples}

    def kept(self) -> dict[str, frozenset[str]]:
        """``{field: shapes}`` of the fields with an example that keeps its value: no value of those
        shapes changes."""
        return {
            name: spec.kept_shapes() for name, spec in self.fields.items() if spec.kept_values()
        }

    def to_dict(self) -> dict[str, Any]:
        fields_out = {}
        for name, spec in self.fields.items():
            d = {
                k: v
                for k, v in asdict(spec).items()
                if v not in ("", (), None, False) or k in ("kind", "mentioned")
            }
            if "allowed" in d:
                d["allowed"] = list(d["allowed"])
            if "examples" in d:
                d["examples"] = [list(pair) for pair in d["examples"]]
            # files written before them stay the same
            for optional in ("asked", "evidence", "mend"):
                if not d.get(optional):
                    d.pop(optional, None)
            fields_out[name] = d
        keys = [
            {"key": k, "fields": list(self.key_fields.get(k, []))}
            | ({"words": self.key_words[k]} if self.key_words.get(k) else {})
            for k in self.keys
        ]
        out = {
            "version": _SPEC_VERSION,
            "scope": self.scope,
            "keys": keys,
            "dedup": self.dedup,
            "fields": fields_out,
        }
        if self.conversions:  # files written before conversions existed stay the same
            out["conversions"] = [c.to_dict() for c in self.conversions]
        if self.authority is not None:
            out["authority"] = self.authority.to_dict()
        return out

    def to_pandera(self, *, csv_strings: bool = False, strict: bool = False) -> Any:
        """This spec as a ``pandera.DataFrameSchema`` (extra ``pandera``; ``spec_pandera``)."""
        from .spec_pandera import pandera_schema

        return pandera_schema(self, csv_strings=csv_strings, strict=strict)

    def to_json(self) -> str:
        """The text of ``cleaning_spec.json``."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def summary(self) -> list[str]:
        """One line per field, for the report and the dry run."""
        lines = []
        for name, spec in self.fields.items():
            if not self.in_scope(name) and spec.kind != "as_is":
                why = (
                    "the goals name no format, example, list or conversion for it"
                    if spec.mentioned
                    else "the goals do not mention it"
                )
                lines.append(f"{name}: left as it is ({why})")
                continue
            what = (
                spec.expectation().describe()
                if spec.expectation()
                else ("free text" if spec.kind == "free" else "no format")
            )
            shown = "; ".join(f"{a!r} -> {b!r}" for a, b in spec.examples[:3])
            lines.append(
                f"{name}: {what} (from {spec.source or 'nothing'})"
                + (f'; evidence: "{clip_text(spec.evidence, 160)}"' if spec.evidence else "")
                + (f"; {spec.note}" if spec.note else "")
                + (f"; examples {shown}" if shown else "")
            )
        for key, named in self.stated().items():
            lines.append(
                f"rows with the same {key} agree on "
                f"{', '.join(named) if named else 'no field named: none written'} "
                "(a stated key)"
            )
        lines += [f"conversion: {c.describe()}" for c in self.conversions]
        lines += [self.authority.describe()] if self.authority else []
        return lines


def load_spec(given: str | Path | dict) -> CleaningSpec:
    """A spec from ``cleaning_spec.json`` (a path) or its dict; ValueError naming what is wrong."""
    if isinstance(given, (str, Path)):
        try:
            data = json.loads(Path(given).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ValueError(f"spec file {given}: {exc.strerror or exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"spec file {given} is not valid JSON: {exc}") from None
        except RecursionError:  # json's decoder recurses: a hostile file nested 100,000 deep
            raise ValueError(f"spec file {given} is not valid JSON: nested too deeply") from None
        where = f"spec file {given}"
    else:
        data, where = given, "spec"
    if not isinstance(data, dict) or not isinstance(data.get("fields"), dict):
        raise ValueError(f"{where} must be an object with a 'fields' object")
    scope = data.get("scope", "mentioned")
    if scope not in SCOPES:
        raise ValueError(f"{where}: scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    out = CleaningSpec(scope=scope, dedup=bool(data.get("dedup")))
    _load_keys(out, data.get("keys") or [], where)
    out.conversions = load_conversions(
        data.get("conversions"), where, set(map(str, data["fields"]))
    )
    out.authority = load_authority(data.get("authority"), where, set(map(str, data["fields"])))
    for name, d in data["fields"].items():
        if not isinstance(d, dict):
            raise ValueError(f"{where}: field {name!r} must be an object")
        kind = d.get("kind")
        # (a registered plug-in's too)
        if kind is not None and kind != "free" and kinds.get(kind) is None:
            raise ValueError(
                f"{where}: field {name!r} has kind {kind!r}; kinds are "
                f"{', '.join([*kinds.REGISTRY, 'free'])}"
            )
        allowed = d.get("allowed") or []
        if not _plain_list(allowed):  # a string would be read letter by letter, a number not at all
            raise ValueError(
                f"{where}: field {name!r}: allowed must be a list of values (strings or numbers)"
            )
        if kind == "enum" and len(allowed) < 2:
            raise ValueError(
                f"{where}: field {name!r} is an enum and needs at least two allowed values"
            )
        if kind == "shape" and not allowed:
            raise ValueError(
                f"{where}: field {name!r} is a shape and needs allowed values of that shape "
                "(AB-1234)"
            )
        problem = _form_problem(kind, tuple(str(a) for a in allowed))
        if problem:
            raise ValueError(f"{where}: field {clip_text(repr(name), 80)}: {problem}")
        out.fields[str(name)] = FieldSpec(
            kind,
            tuple(str(a) for a in allowed),
            bool(d.get("mentioned", True)),
            str(d.get("words", "")),
            str(d.get("source", "user")) or "user",
            str(d.get("note", "")),
            _loaded_examples(d.get("examples"), where, name),
            bool(d.get("asked", False)),
            str(d.get("evidence", "")),
            bool(d.get("mend", False)),
        )
    return out


def _form_problem(kind: str | None, allowed: tuple[str, ...]) -> str:
    """What makes a field's ``allowed`` unusable for its kind ("" for nothing: ``Kind.problem``)."""
    found = kinds.get(kind) if kind not in (None, "free") else None
    return found.problem(allowed) if found is not None and allowed else ""


def check_forms(spec: CleaningSpec, where: str = "spec") -> CleaningSpec:
    """``spec`` itself; ValueError naming the first field whose form its kind cannot use (a spec
    made in Python, not loaded by ``load_spec``, which checks the same)."""
    for name, field_spec in spec.fields.items():
        problem = _form_problem(field_spec.kind, tuple(field_spec.allowed))
        if problem:
            raise ValueError(f"{where}: field {clip_text(repr(name), 80)}: {problem}")
    return spec


def _load_keys(out: CleaningSpec, keys: Any, where: str) -> None:
    """The stated keys: names (every field agrees with each), or ``{"key": K, "fields": [...],
    "words": "..."}``."""
    if not isinstance(keys, list):
        raise ValueError(
            f'{where}: keys must be a list of field names or of {{"key": ..., "fields": [...]}} '
            "objects"
        )
    for entry in keys:
        if isinstance(entry, dict):
            key, named = entry.get("key"), entry.get("fields") or []
            if not isinstance(key, str) or not key or not _plain_list(named):
                raise ValueError(
                    f'{where}: a stated key must be {{"key": NAME, "fields": [NAMES]}}, got '
                    f"{clip_text(repr(entry), 80)}"
                )
            out.key_fields[key] = [str(f) for f in named if str(f) != key]
            if entry.get("words"):
                out.key_words[key] = str(entry["words"])
        elif isinstance(entry, (str, int, float)) and not isinstance(entry, bool):
            key = str(entry)
        else:
            raise ValueError(
                f"{where}: keys must be a list of field names or of "
                '{"key": ..., "fields": [...]} objects'
            )
        if key not in out.keys:
            out.keys.append(key)


def _loaded_examples(given: Any, where: str, name: str) -> tuple[tuple[str, str], ...]:
    """A field's ``examples`` as (input, output) text pairs: ``[["01907", "01907"], ...]``; absent
    is none."""
    if given is None:
        return ()
    if not isinstance(given, list) or not all(
        isinstance(p, (list, tuple)) and len(p) == 2 for p in given
    ):
        raise ValueError(
            f"{where}: field {name!r} has examples that are not a list of [input, output] pairs"
        )
    if not all(
        isinstance(v, (str, int, float)) and not isinstance(v, bool) for p in given for v in p
    ):
        raise ValueError(f"{where}: field {name!r} has an example that is not text or a number")
    return tuple((str(a), str(b)) for a, b in given)


def _plain_list(value: Any) -> bool:
    """A JSON list of strings, numbers or booleans (what a key list or an enum's allowed values may
    be)."""
    return isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value)
