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
   written by the user) keeps every value of its shape (``kept``). Goals that leave "everything
   else" as it is ("all other columns unchanged", "don't touch anything else", "nothing else is
   ours to change": ``keep_words.leaves_rest``) make every field they do not ask for ``as_is``,
   never one they ask for (a format, a verb of cleaning, an example, a conversion, a stated key).

``CleaningSpec.to_json`` is the text of ``cleaning_spec.json`` (the run writes it beside its
output); ``load_spec`` accepts it back (a path or a
dict), so a user can correct the reading before any function is written (docs/spec.md).
The data's checks of a reading are in ``spec_checks``; ``FieldSpec``, ``CleaningSpec`` and the
file form in ``spec_file`` (both re-exported here).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .convention import form_owner
from .examples import goal_examples
from .conversions import read_conversions
from .expectations import conforms
from .goal_text import detect_kinds
from .document import plain_goals
from .goal_text import goal_blocks
from .instructions import goal_sentences, read_goals, resolve_kind
from .keep_words import asks_change, holds_keep, leaves_rest
from .kinds import get as kinds_get
from .mentions import FieldMentions
from .row_rules import asks_dedup, mended_fields, stated_fields, stated_keys
from .spec_checks import (
    against_convention,
    asked_reading,
    checked_reading,
    fit_score,
    one_shape,
    settle_reading,
    tied_reading,
)
from .spec_forms import with_examples, with_written_form
from .spec_file import SCOPES, SPEC_FILE, SPEC_KINDS, CleaningSpec, FieldSpec, load_spec

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


def _stating(instructions: str, fields: list[str], key: str) -> str:
    """The sentences of the goals that state ``key`` (shown in cleaning_spec.json beside it)."""
    said = [
        s.strip()
        for s in re.split(r"(?<=[.;!?])\s+|\n\s*\n", instructions or "")
        if key in stated_keys(s, fields)
    ]
    return re.sub(r"\s+", " ", " ".join(said))[:300]


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
    ask=None,
) -> CleaningSpec:
    """The spec of ``fields`` from the goals (rules, and the model's ``draft`` when given), checked
    on the data.

    ``samples`` (a few values per field) feed the rule reader's fallbacks; ``check`` (more values
    per field, default ``samples``) is what the data check and the rules-vs-model decision look at.
    ``tie(clause) -> field | None`` guesses the field of a clause with a format word the rules tie
    to no field (``model.field_tie``); the guess stands only if at least half the field's sample
    values fit the clause's reading or are turned into fitting ones by its primitive, and some are
    turned. ``ask({field: words}) -> {field: kind | None}`` guesses, in one call, the format the
    goals ask of each field they mention but bind to none (``model.kind_ask``): kept only where the
    data agrees (``spec_checks.asked_reading``).
    """

    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
    # a markdown table's rows as bullets, `x` as "x", a section's name on its bullets
    named = FieldMentions([str(f) for f in fields])
    instructions = plain_goals(instructions, lambda label: bool(named.groups(label)))
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
                chosen = settle_reading(
                    name, rules, model, instructions, check.get(name), csv_strings
                )
        if reading.tied and chosen.source == "instructions":
            chosen = tied_reading(chosen, reading.tied, check.get(name), csv_strings)
        checked = checked_reading(name, chosen, reading.by_name, check.get(name), csv_strings)
        spec.fields[name] = against_convention(
            checked,
            examples.get(name, ()),
            check.get(name),
            csv_strings,
            instructions if checked.source == "field name" else checked.words,
        )
    for name, pairs in examples.items():
        spec.fields[name] = with_examples(spec.fields[name], pairs, check.get(name))
    for name in fields:
        spec.fields[name] = with_written_form(spec.fields[name], check.get(name))
    fields_of: dict[str, set[str]] = {}  # each clause -> the fields it mentions
    for name, reading in readings.items():
        for clause in reading.said:
            fields_of.setdefault(clause, set()).add(name)
    mentions = FieldMentions(fields, check)
    for name in fields:  # a guess its own clause confirms: the clause is its evidence
        spec.fields[name] = _confirmed(
            name, spec.fields[name], readings[name].said, mentions, fields_of
        )
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
                moved = with_written_form(
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
    # each sentence first, then its whole bullet or paragraph (a factor whose units stand in the
    # sentence before it: the units in one sentence, the factor in the next)
    parts = goal_sentences(instructions) + goal_blocks(instructions or "", lambda _: False)
    spec.conversions = read_conversions(parts, fields, check, left_alone)
    asked = _asked(spec, readings)
    mended = {n for n, r in readings.items() if r.typos} | mended_fields(
        {n: r.said for n, r in readings.items()},
        lambda c: (
            not asks_change(c)
            or holds_keep(c)
            or leaves_rest(c)
            or any(k == "as_is" for k, *_ in detect_kinds(c))
        ),
    )
    for name in asked | mended:
        if spec.fields[name].kind != "as_is":
            spec.fields[name] = replace(
                spec.fields[name], asked=name in asked or name in mended, mend=name in mended
            )
    if ask is not None and spec.scope == "mentioned":  # the model where the rules bind nothing
        unbound = _addressed(
            {n: f.words for n, f in spec.fields.items() if f.kind != "as_is" and not f.bound()},
            {n: f.words for n, f in spec.fields.items()},
        )
        for name, kind in (ask(unbound) if unbound else {}).items():
            if kind == "keep" and name in unbound:  # a protection the rules did not read
                spec.fields[name] = replace(
                    spec.fields[name],
                    kind="as_is",
                    source="model",
                    asked=False,
                    note="the model read the goals as leaving it as it is",
                )
            elif kind and name in unbound:
                spec.fields[name] = asked_reading(
                    spec.fields[name], kind, check.get(name), csv_strings
                )
    rest = next((r.rest for r in readings.values() if r.rest), "")
    if rest:
        _leave_rest(spec, asked, rest)
    for name, field_spec in spec.fields.items():
        if spec.in_scope(name) or field_spec.kind == "as_is" or field_spec.asked:
            found = _evidence(field_spec, readings[name].said, fields_of)
            spec.fields[name] = replace(field_spec, evidence=found)
    return spec


_TOKEN = re.compile(r"\+?[\w@.:/\-]*\w")
_PART_END = re.compile(r"[,;:]\s|\s[-–—]\s|\.\s")
_KIND_WORD = re.compile(r"[^\W\d_]{3,}")
_PLAIN_WORDS = frozenset({"values", "with", "without", "spaces", "single", "the", "and", "case"})


def _kind_words(kind: Any) -> frozenset[str]:
    """The words a kind declares for itself (its description, noun, name): "iso", "dates" for a
    date."""
    text = " ".join((getattr(kind, "words", ""), getattr(kind, "noun", ""), kind.name))
    return frozenset(w.casefold() for w in _KIND_WORD.findall(text)) - _PLAIN_WORDS


def _confirmed(
    name: str,
    field_spec: FieldSpec,
    said: tuple[str, ...],
    mentions: FieldMentions,
    fields_of: dict[str, set[str]],
) -> FieldSpec:
    """A kind guessed from the field's name or data that a part of a clause about it confirms: the
    part names it and at most a few fields, asks a change and leaves nothing alone, and holds a
    format word that reads as that kind for the field ("lowercase emails"), a value of the kind's
    form ("international format, e.g. +14155550123", "ISO like 2024-03-01") or one of the kind's
    own words ("signup_date ISO"). The part binds it."""
    if field_spec.kind in (None, "free", "as_is") or field_spec.source not in (
        "field name",
        "data",
    ):
        return field_spec
    kind = kinds_get(field_spec.kind)
    if kind is None:
        return field_spec
    exp, own = field_spec.expectation(), _kind_words(kind)
    for clause in said:
        for part in filter(None, (p.strip() for p in _PART_END.split(clause))):
            # a part naming no field speaks of the clause's subject: this field's alone
            named = {f for *_, group in mentions.groups(part) for f in group} or set(
                fields_of.get(clause, ())
            )
            if name not in named or len(named) > _ADDRESSED or not asks_change(part):
                continue
            found = detect_kinds(part)
            if any(k == "as_is" for k, *_ in found) or leaves_rest(part):
                continue
            read = resolve_kind(name, [(k, a) for k, a, _, _ in found]) if found else None
            written = kind.regex and any(
                conforms(t, exp) for t in _TOKEN.findall(part) if any(c.isdigit() for c in t)
            )
            worded = own & {w.casefold() for w in _KIND_WORD.findall(part)}
            if (read and read[0] == field_spec.kind) or written or worded:
                return replace(
                    field_spec,
                    source="instructions",
                    note=(field_spec.note + "; " if field_spec.note else "")
                    + f"the goals confirm the {field_spec.kind} its {field_spec.source} suggested",
                )
    return field_spec


def _evidence(field_spec: FieldSpec, said: tuple[str, ...], fields_of: dict) -> str:
    """The clause that binds a field (or leaves it alone): of the clauses that mention it, those
    naming at most a few fields that write a format word or an example's input; else those naming
    few fields; else the first that mention it."""
    few = [c for c in said if len(fields_of.get(c, ())) <= _ADDRESSED] or list(said)
    inputs = [a for a, b in field_spec.examples if a != b]
    binding = [c for c in few if detect_kinds(c) or any(a and a in c for a in inputs)]
    return " ".join(" ".join(c.split()) for c in (binding or few)[:2])[:300]


_CLAUSE_END = re.compile(r"(?<=[.;!?])\s+|\n+")
_ADDRESSED = 3  # a clause naming more fields than this lists them ("Columns: a, b, c, d")


def _addressed(unbound: dict[str, str], words: dict[str, str]) -> dict[str, str]:
    """The unbound fields a clause speaks to, each with those clauses: a clause that names at most
    ``_ADDRESSED`` fields (a list of the columns describes them, it asks nothing of each)."""
    named: dict[str, set[str]] = {}
    for name, said in words.items():
        for clause in filter(None, (c.strip() for c in _CLAUSE_END.split(said or ""))):
            named.setdefault(clause, set()).add(name)
    out = {}
    for name, said in unbound.items():
        own = [
            c
            for c in dict.fromkeys(filter(None, (c.strip() for c in _CLAUSE_END.split(said or ""))))
            if len(named.get(c, ())) <= _ADDRESSED
        ]
        if own:
            out[name] = " ".join(own)
    return out


def _asked(spec: CleaningSpec, readings: dict) -> set[str]:
    """The fields the goals ask a change of: a format or a verb of cleaning naming it, an example
    that changes its values, a conversion, or the stated key it is mended by."""
    asked = {n for n, r in readings.items() if r.asked}
    asked |= {
        n
        for n, f in spec.fields.items()
        if any(a != b for a, b in f.examples)
        or (f.kind not in (None, "as_is") and f.source == "instructions")  # a form they write
    }
    asked |= {f for c in spec.conversions for f in (c.value, c.unit)}
    asked |= {f for fields in spec.key_fields.values() for f in fields}
    return asked & set(spec.fields)


def _leave_rest(spec: CleaningSpec, asked: set[str], words: str) -> None:
    """ "Leave everything else alone": every field the goals do not ask for is ``as_is``. Goals that
    ask for no field leave it all as read."""
    if not asked:
        return
    for name, field_spec in spec.fields.items():
        if name not in asked and field_spec.kind != "as_is":
            spec.fields[name] = FieldSpec(
                "as_is",
                mentioned=True,
                words=words[:300],
                source="instructions",
                note="the goals leave every field they do not ask for as it is",
            )
