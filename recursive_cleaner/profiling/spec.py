"""The field spec: the one reading of the goals that the profiler, prompts, judges, report and
cross-row plan use.

Per field: the kind (a format from the library's menu, ``free`` for goals no kind captures, or
``as_is``), the allowed values of an enumeration, whether the goals mention the field at all, the
words of the goals it came from, and where the reading came from (``goals``: the rule reader,
"instructions"; ``model``: the model's draft; ``field name`` / ``data``: a fallback; ``user``: a
spec the user gave). The goals' stated keys (``the same X always has the same Y``) are kept beside
the fields, each with the fields stated with it (``stated()``); the cross-row plan reads them, and
dedup, from here only.

How it is made (``read_spec``):

1. The rule reader (``instructions.read_goals``) reads each field's kind and whether the goals
   mention it. A model's draft (``draft``: field -> (kind, allowed)), when given, is a second
   opinion. A field the goals say to leave alone stays so, and a model's enumeration whose values
   the goals never write is taken only if nine in ten sample values are, or are spelled like, one of
   them, and each is a value of the goals or of the data (three counties seen in a few rows are not
   the county list). Where the rules read no format, the model's is taken only if at least half the
   sample values already fit it: it names the data's own convention, and does not rewrite "yes" as
   ``True`` where the goals never asked. Elsewhere,
   where the two disagree, **the data decides** — the model's reading wins only if clearly
   more sample values (a tenth of them, at least 2) fit it or are turned into fitting values by its
   toolkit primitive; on anything closer the rules' reading stays.
2. The data checks the result: a kind that no sample value fits and that its primitive cannot
   convert is dropped, with a note; a ``number`` whose values the integer primitive converts more of
   ("we just want the number" of ``CUST-0042``) is read as ``integer``. A guess from a field's name
   (``field name``) is kept only for a field the goals name, or whose values do not already share
   one shape.
3. Scope: with ``scope="mentioned"`` (the default) only fields the goals mention get a format,
   and the others are left as they are (``frozen``); ``scope="all"`` also reads formats for
   the others from their names and data, as before. Goals that name no field at all leave every
   field in scope.
4. Examples (``examples.goal_examples``: ``A -> B``, "A becomes B", "A stays A" ..., tied to the
   field whose data holds A) are kept where their output is a right value of the field; a field
   with no format whose examples convert values into one form takes it as its kind ``shape``.
   Every function for the field must pass them (``examples()``).
5. Protection: a field read ``as_is`` is ``protected`` (nothing writes it, not even a cross-row
   step on a stated key), and an example whose output equals its input (read from the goals or
   written by the user) keeps every value of its shape (``kept``).

``CleaningSpec.to_json`` is the text of ``cleaning_spec.json`` (the run writes it beside its
output); ``load_spec`` accepts it back (a path or a
dict), so a user can correct the reading before any function is written (docs/spec.md).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import clip_text
from ..toolkit import to_shape
from . import kinds
from .convention import form_owner, refuted, written_values
from .examples import fitting_examples, goal_examples
from .expectations import (
    KIND_PRIMITIVES,
    KINDS,
    Expectation,
    conforms,
    form_template,
    is_placeholder,
    value_shape,
)
from .conversions import Conversion, load_conversions, read_conversions
from .instructions import goal_sentences, read_goals
from .mentions import FieldMentions
from .row_rules import asks_dedup, stated_fields, stated_keys

__all__ = [
    "FieldSpec",
    "CleaningSpec",
    "read_spec",
    "load_spec",
    "goal_examples",
    "fit_score",
    "one_shape",
    "SPEC_KINDS",
    "SCOPES",
    "SPEC_FILE",
]

SPEC_KINDS = KINDS + ("free",)
SCOPES = ("mentioned", "all")
SPEC_FILE = "cleaning_spec.json"
_SPEC_VERSION = 1
_MIN_CHECKED = 5  # sample values needed before the data may drop a reading
_CASE_WORDS = re.compile(r"upper|lower|capital|caps", re.I)


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

    def stated(self) -> dict[str, list[str]]:
        """``{key: fields}`` of the stated keys: the fields the goals say its rows agree on ([]:
        every field)."""
        return {k: list(self.key_fields.get(k, [])) for k in self.keys}

    def in_scope(self, name: str) -> bool:
        """May the cleaning change this field (cross-row repairs on stated keys aside)?"""
        spec = self.fields.get(name)
        if self.scope == "all":
            return spec is None or spec.kind != "as_is"
        return spec is not None and spec.mentioned and spec.kind != "as_is"

    def expectations(self) -> dict[str, Expectation]:
        """``{field: Expectation}`` for the fields in scope that have a checkable kind (as_is
        included)."""
        out = {}
        for name, spec in self.fields.items():
            exp = spec.expectation()
            if exp is not None and (self.in_scope(name) or spec.kind == "as_is"):
                out[name] = exp
        return out

    def frozen(self) -> set[str]:
        """Fields nothing may change (out of scope) but a cross-row repair on a key the goals
        state."""
        return {name for name in self.fields if not self.in_scope(name)}

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
                if v not in ("", (), None) or k in ("kind", "mentioned")
            }
            if "allowed" in d:
                d["allowed"] = list(d["allowed"])
            if "examples" in d:
                d["examples"] = [list(pair) for pair in d["examples"]]
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
        return out

    def to_json(self) -> str:
        """The text of ``cleaning_spec.json``."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def summary(self) -> list[str]:
        """One line per field, for the report and the dry run."""
        lines = []
        for name, spec in self.fields.items():
            if not self.in_scope(name) and spec.kind != "as_is":
                lines.append(f"{name}: left as it is (the goals do not mention it)")
                continue
            what = (
                spec.expectation().describe()
                if spec.expectation()
                else ("free text" if spec.kind == "free" else "no format")
            )
            shown = "; ".join(f"{a!r} -> {b!r}" for a, b in spec.examples[:3])
            lines.append(
                f"{name}: {what} (from {spec.source or 'nothing'})"
                + (f"; {spec.note}" if spec.note else "")
                + (f"; examples {shown}" if shown else "")
            )
        for key, named in self.stated().items():
            lines.append(
                f"rows with the same {key} agree on "
                f"{', '.join(named) if named else 'every other field'} "
                "(a stated key)"
            )
        lines += [f"conversion: {c.describe()}" for c in self.conversions]
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
        out.fields[str(name)] = FieldSpec(
            kind,
            tuple(str(a) for a in allowed),
            bool(d.get("mentioned", True)),
            str(d.get("words", "")),
            str(d.get("source", "user")) or "user",
            str(d.get("note", "")),
            _loaded_examples(d.get("examples"), where, name),
        )
    return out


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
                f'{where}: keys must be a list of field names or of {{"key": ..., "fields": '
                f"[...]}} "
                "objects"
            )
        if key not in out.keys:
            out.keys.append(key)


def _stating(instructions: str, fields: list[str], key: str) -> str:
    """The sentences of the goals that state ``key`` (shown in cleaning_spec.json beside it)."""
    said = [
        s.strip()
        for s in re.split(r"(?<=[.;!?])\s+|\n\s*\n", instructions or "")
        if key in stated_keys(s, fields)
    ]
    return re.sub(r"\s+", " ", " ".join(said))[:300]


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


# ---------------------------------------------------------------- the data decides
def _present(samples: list | None) -> list:
    return [v for v in samples or [] if v is not None and v != "" and not is_placeholder(v)]


def _convert(exp: Expectation, value: Any) -> Any:
    """The toolkit primitive of ``exp`` applied to one value (library code, run here), or the
    value."""
    from .. import toolkit  # noqa: PLC0415 - the base toolkit, stdlib only

    fn = getattr(toolkit, exp.primitive, None) if exp.primitive else None
    if fn is None:
        return value
    try:
        if exp.kind == "enum":
            return fn(value, list(exp.allowed))
        if exp.kind == "shape":
            return fn(value, exp.allowed[0])
        if exp.kind == "number":
            return fn(toolkit.strip_units(value), whole_as_int="whole_as_int" in exp.allowed)
        return fn(value)
    except Exception:  # noqa: BLE001 - a primitive that cannot take this value converts nothing
        return value


def fit_score(
    exp: Expectation, samples: list | None, *, csv_strings: bool = False
) -> tuple[int, int, int]:
    """(values that fit, values its primitive makes fit, values) for a reading of one field."""
    values = _present(samples)
    fit = sum(conforms(v, exp, csv_strings=csv_strings) for v in values)
    convertible = sum(
        1
        for v in values
        if not conforms(v, exp, csv_strings=csv_strings)
        and conforms(_convert(exp, v), exp, csv_strings=csv_strings)
    )
    return fit, convertible, len(values)


def one_shape(samples: list | None, share: float = 0.9) -> bool:
    """Do the sample values already share one shape (digits as 9, letters as a)?"""
    values = _present(samples)
    if len(values) < 3:
        return False
    return Counter(value_shape(str(v).strip()) for v in values).most_common(1)[0][1] >= share * len(
        values
    )


def _said(value: str, goals: str) -> bool:
    return (
        re.search(rf"(?<!\w){re.escape(str(value).strip())}(?!\w)", goals or "", re.I) is not None
    )


def _settle(
    name: str,
    rules: FieldSpec,
    model: FieldSpec,
    goals: str,
    samples: list | None,
    csv_strings: bool,
) -> FieldSpec:
    """The reading of one field where the rules and the model's draft differ."""
    if rules.kind == "as_is" and rules.source == "instructions":
        return rules  # the goals say to leave it: no fit to the data argues with that
    if model.kind == "enum" and not all(_said(v, goals) for v in model.allowed):
        seen = {str(v).strip().lower() for v in _present(samples)}
        fit, conv, n = fit_score(model.expectation(), samples, csv_strings=csv_strings)
        # a few of the data's values, not the field's vocabulary
        if (
            n < _MIN_CHECKED
            or fit + conv < 0.9 * n
            or any(
                not _said(v, goals) and str(v).strip().lower() not in seen for v in model.allowed
            )
        ):
            return rules  # (or values neither the goals nor the data have)
    # (an enum passed its own check above)
    if not rules.kind and model.kind not in ("enum", "as_is"):
        fit, _, n = fit_score(model.expectation(), samples, csv_strings=csv_strings)
        if n >= _MIN_CHECKED and fit < 0.5 * n:
            # the goals ask no format, and this one would rewrite most values that have one
            return rules
        return model
    return _decide(name, rules, model, samples, csv_strings)


def _decide(
    name: str, rules: FieldSpec, model: FieldSpec, samples: list | None, csv_strings: bool
) -> FieldSpec:
    """Rules and model disagree: the reading the data clearly supports better (by a tenth of the
    values) wins."""
    scores = []
    for spec in (rules, model):
        exp = spec.expectation()
        if exp is None:
            scores.append((0, 0, 0))
            continue
        fit, conv, n = fit_score(exp, samples, csv_strings=csv_strings)
        scores.append((fit + conv, fit, n))
    # clearly better, not a near tie
    if scores[1][0] >= scores[0][0] + max(2, max(scores[0][2], scores[1][2]) // 10):
        return replace(
            model,
            mentioned=rules.mentioned or model.mentioned,
            words=rules.words or model.words,
            note=f"the model's reading; the data fits it better than the rules' "
            f"({scores[1][0]} vs {scores[0][0]} of {max(scores[1][2], scores[0][2])} sample "
            "values)",
        )
    return rules


def read_spec(
    instructions: str,
    fields: list[str],
    samples: dict[str, list] | None = None,
    *,
    scope: str = "mentioned",
    draft: dict[str, tuple[str | None, tuple[str, ...]]] | None = None,
    csv_strings: bool | None = None,
    check: dict[str, list] | None = None,
    tie=None,
) -> CleaningSpec:
    """The spec of ``fields`` from the goals (rules, and the model's ``draft`` when given), checked
    on the data.

    ``samples`` (a few values per field) feed the rule reader's fallbacks; ``check`` (more values
    per field, default ``samples``) is what the data check and the rules-vs-model decision look at.
    ``tie(clause) -> field | None`` guesses the field of a clause with a format word the rules tie
    to no field (``model.field_tie``); the guess stands only if at least half the field's sample
    values fit the clause's reading or are turned into fitting ones by its primitive, and some are
    turned.
    """

    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    samples = samples or {}
    check = check or samples
    if csv_strings is None:
        csv_strings = bool(samples) and all(
            isinstance(v, str) for vs in samples.values() for v in vs if v is not None
        )
    readings = read_goals(instructions, fields, samples, data=check, tie=tie)
    if scope == "mentioned" and not any(r.mentioned for r in readings.values()):
        scope = "all"  # goals that name no field ("clean this up") leave every field in scope
    spec = CleaningSpec(scope=scope)
    examples = goal_examples(instructions, fields, check)
    for name in fields:
        reading = readings[name]
        exp = reading.expectation
        source = exp.source if exp else ""
        rules = FieldSpec(
            exp.kind if exp else None,
            exp.allowed if exp else (),
            reading.mentioned,
            reading.words[:300],
            source,
        )
        chosen = rules
        if draft and name in draft and draft[name][0] is not None:
            kind, allowed = draft[name]
            model = FieldSpec(kind, tuple(allowed), reading.mentioned, reading.words[:300], "model")
            if (model.kind, model.allowed) != (rules.kind, rules.allowed):
                chosen = _settle(name, rules, model, instructions, check.get(name), csv_strings)
        if reading.tied and chosen.source == "instructions":
            chosen = _tied(chosen, reading.tied, check.get(name), csv_strings)
        checked = _checked(name, chosen, reading.by_name, check.get(name), csv_strings)
        spec.fields[name] = _against_convention(
            checked,
            examples.get(name, ()),
            check.get(name),
            csv_strings,
            instructions if checked.source == "field name" else checked.words,
        )
    for name, pairs in examples.items():
        spec.fields[name] = _with_examples(spec.fields[name], pairs, check.get(name))
    for name in fields:
        spec.fields[name] = _with_written_form(spec.fields[name], check.get(name))
    # a code the words write for one field that only another field's data has: that field's
    for name in fields:
        field_spec = spec.fields[name]
        if field_spec.mentioned and field_spec.kind in (None, "free") and field_spec.words:
            free = {
                n: check.get(n) or []
                for n, f in spec.fields.items()
                if n != name and f.kind is None
            }
            owner = form_owner(field_spec.words, check.get(name), free)
            if owner is not None:
                moved = _with_written_form(
                    replace(spec.fields[owner], mentioned=True, words=field_spec.words[:300]),
                    check.get(owner),
                )
                if moved.kind is not None:  # only a form that mends some of its values
                    spec.fields[owner] = moved
    spec.key_fields = stated_fields(instructions, fields)
    spec.keys = list(spec.key_fields)
    spec.key_words = {k: _stating(instructions, fields, k) for k in spec.keys}
    spec.dedup = asks_dedup(instructions)
    left_alone = {n for n, f in spec.fields.items() if f.kind == "as_is"}
    spec.conversions = read_conversions(goal_sentences(instructions), fields, check, left_alone)
    return spec


def _against_convention(
    spec: FieldSpec,
    pairs: tuple[tuple[str, str], ...],
    samples: list | None,
    csv_strings: bool,
    words: str,
) -> FieldSpec:
    """The reading, unless the data's one form, which the goals write themselves, refutes it
    (``convention``).

    ``words`` are the field's sentences (the whole goals for a guess from the field's name). A
    refuted enumeration takes its examples' outputs as its values when most sample values are one of
    them ("high", "HIGH" and "h" are H: the values are H, L and N); any other refuted reading is
    dropped, with the reason in ``note``.
    """
    exp = spec.expectation()
    if exp is None:
        return spec
    why = refuted(
        exp,
        samples,
        words,
        inputs=[a for a, b in pairs if a != b],
        outputs=[b for _, b in pairs],
        csv_strings=csv_strings,
        guessed=spec.source == "field name",
    )
    if why is None:
        return spec
    form = (
        _timestamp_form(written_values(words, [b for _, b in pairs]))
        if exp.kind in ("date", "datetime")
        else None
    )
    # the goals write their timestamps another ISO way ("2024-02-03 14:05"): that form, not none
    if form:
        return replace(
            spec,
            kind="datetime",
            allowed=(form,),
            note=f"{why}; written as {form_template(form)}, as the goals write it",
        )
    outputs = tuple(dict.fromkeys(b for a, b in pairs if a != b))
    values = [str(v).strip() for v in _present(samples)]
    if exp.kind == "enum" and outputs and sum(v in outputs for v in values) * 2 > len(values):
        return replace(spec, allowed=outputs, note=f"{why}; the values are the examples' outputs")
    return replace(spec, kind=None, allowed=(), source="", note=why)


def _exact(value: str) -> str:
    return value_shape(value, runs=False)  # "617-555-0143" -> "999-999-9999"


def _with_written_form(spec: FieldSpec, samples: list | None) -> FieldSpec:
    """A field the goals name with no format read, whose words write one value (or template) with
    digits in the exact form most of its values have ("phone as 617-555-0143", "NNN-NNN-NNNN"): that
    form is its kind ``shape``."""
    if (
        spec.kind not in (None, "free")
        or not spec.mentioned
        or any(a != b for a, b in spec.examples)
    ):
        return spec
    values = [str(v).strip() for v in _present(samples)]
    if len(values) < _MIN_CHECKED:
        return spec
    shapes = Counter(_exact(v) for v in values)
    inputs = {a for a, _ in spec.examples}
    forms = {
        _exact(v): v
        for v in written_values(spec.words)
        if v not in inputs and any(c.isdigit() for c in v) and shapes[_exact(v)] * 2 >= len(values)
    }
    if len(forms) != 1:
        return spec
    shape, form = forms.popitem()
    stamp = _timestamp_form([form])
    # a timestamp or a date: parsed and written, never regrouped slot by slot
    if stamp or _ISO_DAY.fullmatch(form):
        kind, allowed = ("datetime", (stamp,)) if stamp else ("date", ())
        return replace(
            spec,
            kind=kind,
            allowed=allowed,
            source="instructions",
            note=(spec.note + "; " if spec.note else "") + f"the form the goals write ({form!r})",
        )
    if not any(_exact(str(to_shape(v, form))) == shape for v in values if _exact(v) != shape):
        # nothing the form would mend: a description of the values ("e.g. AA-3859-IAH-ORD")
        return spec
    return replace(
        spec,
        kind="shape",
        allowed=(form,),
        source="instructions",
        note=(spec.note + "; " if spec.note else "")
        + (
            f"the form the goals write ({form!r}): {shapes[shape]} of {len(values)} sample values "
            "have it"
        ),
    )


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}([ T])\d{2}:\d{2}(:\d{2})?")


def _timestamp_form(values: list[str]) -> str | None:
    """The ISO form ("%Y-%m-%d %H:%M") of the one kind of timestamp ``values`` write, or None."""
    forms = {
        "%Y-%m-%d" + m.group(1) + "%H:%M" + ("" if m.group(2) is None else ":%S")
        for m in (_TIMESTAMP.fullmatch(v.strip()) for v in values)
        if m
    }
    return forms.pop() if len(forms) == 1 else None


def _with_examples(
    spec: FieldSpec, pairs: tuple[tuple[str, str], ...], samples: list | None
) -> FieldSpec:
    """The field with the examples whose outputs are right values of it; a field with no format
    takes theirs.

    Where the goals read no format (or ``free``) and the examples convert values into outputs of
    one form the inputs do not have (``ab 1234 -> AB-1234``), that form is the field's kind
    ``shape`` when at least half its sample values already have it: the data's own convention.
    """
    pairs = fitting_examples(pairs, spec.expectation(), samples)
    if not pairs:
        return spec
    changes = [(a, b) for a, b in pairs if a != b]
    # named by its values
    spec = replace(spec, examples=pairs, mentioned=spec.mentioned or bool(changes))
    outputs = tuple(dict.fromkeys(b for _, b in changes))
    shapes = {value_shape(b) for b in outputs}
    values = [str(v).strip() for v in _present(samples)]
    # the examples ask for more
    weak = spec.kind == "text" and any(" ".join(a.split()) != b for a, b in changes)
    if (
        spec.kind not in (None, "free")
        and not weak
        or not changes
        or any(value_shape(a) in shapes for a, _ in changes)
        or len(values) < _MIN_CHECKED
        or sum(value_shape(v) in shapes for v in values) * 2 < len(values)
    ):
        return spec
    return replace(
        spec,
        kind="shape",
        allowed=outputs,
        source="examples",
        note=f"the form of the goals' examples: {sum(value_shape(v) in shapes for v in values)} of "
        f"{len(values)} sample values have it",
    )


def _tied(spec: FieldSpec, clause: str, samples: list | None, csv_strings: bool) -> FieldSpec:
    """A reading the model tied to this field: kept, and the field mentioned, only if the data
    agrees."""
    exp = spec.expectation()
    fit, conv, n = fit_score(exp, samples, csv_strings=csv_strings) if exp else (0, 0, 0)
    if n >= _MIN_CHECKED and fit + conv >= 0.5 * n and conv:  # it fits, and it has something to do
        return replace(
            spec,
            mentioned=True,
            words=(spec.words + " " + clause).strip()[:300],
            note=f"the model tied {clip_text(clause, 80)!r} to this field; {fit + conv} of {n} "
            "sample "
            "values fit it",
        )
    return FieldSpec(
        None,
        (),
        spec.mentioned,
        spec.words,
        "",
        note=f"not {clip_text(clause, 80)!r}, which the model "
        f"tied to this field: {fit + conv} of {n} sample values fit it",
    )


def _checked(
    name: str, spec: FieldSpec, by_name: bool, samples: list | None, csv_strings: bool
) -> FieldSpec:
    """The data's check of one field's reading: drop what no value fits and the primitive cannot
    convert."""
    if spec.source == "field name" and not by_name and one_shape(samples):
        return replace(
            spec,
            kind=None,
            allowed=(),
            source="",
            note=f"not {spec.kind} from the field's name: the goals do not name it and its values "
            "already share one shape",
        )
    exp = spec.expectation()
    # (an enumeration is checked too: a list that none of the field's values is, or is spelled like,
    # was read for another field)
    if exp is None or exp.kind == "as_is" or not _present(samples):
        return spec
    if (
        exp.kind in ("us_state", "country_alpha2")
        and not exp.allowed
        and not _CASE_WORDS.search(spec.words)
    ):
        codes = [str(v).strip() for v in _present(samples)]
        written = [c for c in codes if len(c) == 2 and c.islower()]
        lower = sum(conforms(c.upper(), exp, csv_strings=csv_strings) for c in written)
        if (
            len(codes) >= _MIN_CHECKED
            and len(written) >= 0.9 * len(codes)
            and lower >= 0.8 * len(codes)
        ):
            return replace(
                spec,
                allowed=("lower",),
                note=f"in lower case: {lower} of {len(codes)} sample values "
                # keep it
                "are codes written so, and the goals name no case",
            )
    fit, convertible, n = fit_score(exp, samples, csv_strings=csv_strings)
    if fit == 0 and convertible == 0 and n >= _MIN_CHECKED:
        return replace(
            spec,
            kind=None,
            allowed=(),
            source="",
            note=f"not {exp.describe(csv_strings=csv_strings)}: none of {n} sample values fits, "
            f"and {exp.primitive or 'no primitive'} converts none",
        )
    if exp.kind == "number" and spec.source == "instructions" and "whole_as_int" not in exp.allowed:
        as_int = replace(spec, kind="integer").expectation()
        i_fit, i_conv, _ = fit_score(as_int, samples, csv_strings=csv_strings)
        # "just the number" of "CUST-0042": to_int
        if i_fit + i_conv >= fit + convertible + max(2, n // 10):
            return replace(
                spec,
                kind="integer",
                note=f"integer, not number: {as_int.primitive} turns {i_fit + i_conv} "
                f"of {n} sample values into whole numbers, "
                f"{exp.primitive} {fit + convertible}",
            )
    return spec
