"""Before the first chunk: the schema, the field spec, the goals' conversions, the prompt prefix."""

from __future__ import annotations

from typing import Any, Iterable

from ..judge.validation import ALLOWED_IMPORTS
from ..model.field_tie import make_tie
from ..model.kind_ask import make_kind_ask
from ..model.prompt import static_prefix
from ..model.spec_draft import build_spec_prompt, parse_spec_draft, spec_schema
from ..optimizer.grouping import TAGS_INSTRUCTION
from ..profiling import schema
from ..profiling.focus import function_name
from ..toolkit import CATALOGUE
from .state import RunContext

__all__ = ["prepare_prompt", "learn_spec", "add_conversions", "left_alone", "field_samples"]


def prepare_prompt(ctx: RunContext) -> None:
    """Schema, the static prompt prefix, and the format each field should have (from the goals)."""
    options, state = ctx.options, ctx.state
    info = None
    if options.mode == "structured" and options.schema_sample_size > 0:
        info = schema.infer_schema(
            ctx.file_path, options.schema_sample_size, encoding=ctx.source.encoding
        )
    if info:
        learn_spec(ctx, info)
        ctx.emit("spec_ready", fields=state.spec.to_dict()["fields"], scope=state.spec.scope)
        add_conversions(ctx, state.spec.conversions)
    shown = schema.format_schema_for_prompt(info, left_alone=left_alone(ctx)) if info else ""
    allowed = sorted(m for m in ALLOWED_IMPORTS if not m.startswith("recursive_cleaner"))
    state.prefix = static_prefix(
        options.instructions,
        schema=shown,
        mode=options.mode,
        allowed_imports=", ".join(allowed),
        toolkit=CATALOGUE if options.toolkit else "",
        extra_rules=TAGS_INSTRUCTION if options.optimize else "",
    )


def learn_spec(ctx: RunContext, info: dict, *, ties: bool = True) -> None:
    """The field spec (``state.spec``): given, or read from the goals and checked on the data; the
    model's draft when ``draft_spec`` asks for it, and (``ties``) one constrained call per clause
    the rules tie to no field."""
    options, state = ctx.options, ctx.state
    check = field_samples(ctx, info)
    draft = None
    if options.draft_spec and options.spec is None and state.spec_draft is not None:
        draft = state.spec_draft  # a resumed run: the draft it already asked for
    elif options.draft_spec and options.spec is None:  # the model's reading, a second opinion
        structured = ctx.client.can("json")
        prompt = build_spec_prompt(options.instructions, check, structured=structured)
        reply = ctx.call(prompt, 0, 0, purpose="spec", schema=spec_schema(info["fields"]))
        draft = state.spec_draft = parse_spec_draft(reply, info["fields"])
    tie = (
        None
        if options.spec is not None or not ties
        else make_tie(  # a clause the rules tie to no field
            ctx.client.backend,
            info["fields"],
            check,
            known=state.spec_ties,
            call=lambda prompt, gbnf: ctx.call(prompt, 0, 0, purpose="spec", grammar=gbnf),
            constrained=options.constrained,
        )
    )
    ask = (
        None
        if options.spec is not None or not ties
        else make_kind_ask(  # a field asked for with no format the rules bind (issue 42 point 6)
            ctx.client.backend,
            check,
            call=lambda prompt, gbnf: ctx.call(prompt, 0, 0, purpose="spec", grammar=gbnf),
            known=state.spec_kinds,
            constrained=options.constrained,
        )
    )
    state.spec = ctx.focus.learn(
        options.instructions,
        info["fields"],
        info.get("samples"),
        scope=options.scope,
        spec=options.spec,
        check=check,
        draft=draft,
        tie=tie,
        ask=ask,
    )


def add_conversions(ctx: RunContext, conversions: Iterable[Any]) -> None:
    """The goals' unit conversions (``spec.conversions``) as the first functions, written by the
    library: no model call, no judge (``convert_unit`` changes only the rows in the source unit)."""
    functions = ctx.state.functions
    have = {f["code"].replace(f["name"], "") for f in functions}  # a resumed run has them
    taken = {f["name"] for f in functions}
    slot = 0
    for conv in conversions:
        name = function_name(conv.value, taken).replace("fix_", "convert_", 1)
        docstring, code = conv.function(name)
        if code.replace(name, "") in have:
            continue
        taken.add(name)
        functions.insert(
            slot,
            {
                "name": name,
                "docstring": docstring,
                "code": code,
                "field": conv.value,
                "issue": conv.describe(),
                "issues_before": {},
                "issues_after": {},
                "chunk_index": 0,
                "examples": [],
            },
        )
        slot += 1
        ctx.emit(
            "function_generated",
            function_name=name,
            field=conv.value,
            issues_before={},
            issues_after={},
            chunk_index=0,
            iteration=0,
        )


def left_alone(ctx: RunContext) -> set[str]:
    """The fields no function may write: out of the goals' scope, or to be left as they are."""
    return ctx.focus.left_alone


def field_samples(ctx: RunContext, info: dict, records: int = 200) -> dict[str, list]:
    """Each field's values in the first ``records`` records (the spec's check needs more than 3)."""
    head = [r for r in ctx.source.head(records) if isinstance(r, dict)]
    if not head:
        return info.get("samples") or {}
    return {f: [r.get(f) for r in head if f in r] for f in info["fields"]}
