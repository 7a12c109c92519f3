"""What an attempt asks for: the prompt (open pass or one field), its reply's grammar, the name,
and the library's own toolkit call that is a field's first attempt (no model call)."""

from __future__ import annotations

from ..model.context import build_context, build_rich_context
from ..model.grammar import field_reply, open_reply
from ..model.prompt import build_field_prompt, build_prompt, format_chunk, format_feedback
from ..model.response import ParsedResponse
from ..profiling.choose import choose_function
from ..profiling.example_checks import format_examples, format_labels
from ..profiling.focus import function_name
from ..profiling.profiler import FieldProfile, format_issue_for_prompt
from .state import RunContext

__all__ = [
    "prompt_for",
    "field_name",
    "grammar_for",
    "open_fields",
    "visible",
    "hint_for",
]


def prompt_for(ctx: RunContext, view: list, focus: FieldProfile | None, feedback: list[str]) -> str:
    """The prompt of an attempt: the open pass over ``view``, or one function for ``focus``."""
    options, state = ctx.options, ctx.state
    build = build_rich_context if options.rich_context else build_context
    context = build(state.functions, options.context_budget)
    if focus is None:
        shown = format_chunk(
            visible(ctx, view), options.mode, max_chars=options.chunk_chars, view=options.chunk_view
        )
        return build_prompt(
            options.instructions,
            context,
            shown,
            mode=options.mode,
            feedback=format_feedback(feedback),
            prefix=state.prefix,
            records=len(view) if options.mode == "structured" else None,
        )
    spec = ctx.focus.spec
    examples = spec.fields[focus.field].examples if spec and focus.field in spec.fields else ()
    labels = ctx.focus.labels
    labelled = [(a, b) for _, f, a, b in labels.cases() if f == focus.field] if labels else []
    shown = "\n".join(t for t in (format_examples(examples), format_labels(labelled)) if t)
    return build_field_prompt(
        state.prefix,
        context,
        field=focus.field,
        issue=format_issue_for_prompt(focus),
        name=field_name(ctx, focus),
        feedback=format_feedback(feedback),
        examples=shown,
    )


def visible(ctx: RunContext, records: list) -> list:
    """The records as an open pass or a dry run shows them: only the fields a function may change
    (the others are named once in the schema as left alone)."""
    hidden = ctx.focus.left_alone if ctx.options.mode == "structured" else set()
    if not hidden:
        return records
    return [
        {k: v for k, v in r.items() if k not in hidden} if isinstance(r, dict) else r
        for r in records
    ]


def field_name(ctx: RunContext, focus: FieldProfile | str) -> str:
    """The name a function for ``focus``'s field gets (``fix_email``, ``fix_email_2``, ...)."""
    field = focus if isinstance(focus, str) else focus.field
    return function_name(field, {f["name"] for f in ctx.state.functions})


def grammar_for(ctx: RunContext, focus: FieldProfile | None, view: list = ()) -> str | None:
    """The GBNF of the reply asked for (``constrained``): one function named as asked, or the
    open pass (for a field in scope only: ``open_fields``); None when replies are not
    constrained."""
    if not ctx.options.constrained:
        return None
    param = "text" if ctx.options.mode == "text" else "record"
    if focus is not None:
        return field_reply(field_name(ctx, focus), param).gbnf()
    fields = open_fields(ctx, view)
    names = [field_name(ctx, f) for f in fields or ()]
    if fields and ctx.options.rich_context:  # the functions so far, which it may revise
        names += [f["name"] for f in ctx.state.functions]
    return open_reply(param, fields, names).gbnf()


def open_fields(ctx: RunContext, view: list) -> list[str] | None:
    """The fields an open pass may write, when the goals leave some field alone (None: every field
    may do): the spec's and the view's, but those left alone."""
    alone = ctx.focus.left_alone
    if ctx.options.mode != "structured" or not alone:
        return None
    spec = ctx.focus.spec
    seen = list(spec.fields) if spec is not None else []
    seen += [k for r in view if isinstance(r, dict) for k in r]
    return [f for f in dict.fromkeys(seen) if f not in alone]


def hint_for(
    ctx: RunContext, focus: FieldProfile | None, view: list, index: int, iteration: int
) -> ParsedResponse | None:
    """The first attempt at a field (``hint_functions``), once per field and run: the toolkit call
    the library chooses by the goals' examples and the data (``profiling.choose``); None when no
    call passes them (tried again on a later chunk: its values may be ones a call mends)."""
    if (
        focus is None
        or not ctx.options.hint_functions
        or ctx.options.mode != "structured"
        or focus.field in ctx.hinted
    ):
        return None
    fields = ctx.focus
    chosen = choose_function(
        focus,
        field_name(ctx, focus),
        view,
        spec=fields.spec,
        expectations=fields.expectations,
        csv_strings=fields.csv_strings,
        frozen=fields.frozen,
        kept=fields.kept,
        harm=fields.harm,
    )
    if chosen is None:
        return None
    ctx.hinted.add(focus.field)
    ctx.emit(
        "function_from_hint",
        chunk_index=index,
        iteration=iteration,
        field=focus.field,
        function_name=field_name(ctx, focus),
        call=chosen.candidate.call(),
    )
    return ParsedResponse(
        name=field_name(ctx, focus), docstring=chosen.docstring, code=chosen.code, hint=True
    )
