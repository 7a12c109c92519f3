"""Whether a chunk's open pass is worth a model call: only where the profile leaves something
unexplained.

The open pass (the model asked over the whole chunk whether anything else is wrong) comes after
the per-field functions. On a chunk where every field in scope has a checkable target that all its
values now meet, and no field the goals open without one still writes its values in several
forms, there is nothing left for it to find that could be accepted: no call (issue 45). What is
left is said in one line (``unexplained``): the wrong values no function fixed, else the first
field in scope with no target whose values come in several forms.
"""

from __future__ import annotations

from typing import Any

from ..errors import clip_text
from ..profiling.profiler import value_shape
from .state import RunContext

__all__ = ["NOTHING_LEFT", "unexplained", "value_form", "open_pass_note", "skip_open_pass"]

NOTHING_LEFT = "no open pass: nothing left unexplained"
"""What the run says (summary, progress, result) when no chunk needed the open pass."""


def value_form(value: Any) -> str:
    """A value's form: the shapes of its words, each once ("16.0 oz. Alumi-Tek" -> "9.9 Aa-Aa
    a.")."""
    if isinstance(value, str) and value.strip():
        return " ".join(sorted({value_shape(word) for word in value.split()}))
    return value_shape(value)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def unexplained(ctx: RunContext, view: list) -> str | None:
    """What the profile leaves unexplained on ``view`` (the chunk as the functions left it), or
    None.

    Something is left when the run cannot say (text mode, no profile, no spec), when a field's
    wrong values were fixed by no function (given up, or typos of the data's own form), or when a
    field in scope with no checkable target still has values in more than one form (blanks aside).
    """
    focus, spec = ctx.focus, ctx.focus.spec
    if ctx.options.mode != "structured" or not focus.enabled or spec is None:
        return "no field profile to explain the chunk"
    wrong = {f: n for f, n in focus.counts(view).items() if n}
    if wrong:
        field, n = max(wrong.items(), key=lambda item: item[1])
        return f"{clip_text(field, 80)}: {n} wrong value(s) no function fixed"
    alone, checked = focus.left_alone, focus.expectations
    names = dict.fromkeys(k for r in view if isinstance(r, dict) for k in r)
    for name in names:
        if name in alone or name in checked or not spec.in_scope(name):
            continue
        forms: set[str] = set()
        for record in view:
            value = record.get(name) if isinstance(record, dict) else None
            if not _blank(value):
                forms.add(value_form(value))
                if len(forms) > 1:
                    return f"{clip_text(name, 80)}: values in several forms and no target"
    return None


def skip_open_pass(ctx: RunContext, view: list) -> bool:
    """True (and counted, and said once as an event) when the open pass on ``view`` would find
    nothing the profile leaves unexplained; ``call_every_chunk`` (the reference design) always
    asks."""
    if ctx.options.call_every_chunk or unexplained(ctx, view) is not None:
        return False
    state = ctx.state
    state.open_pass_skipped += 1
    if state.open_pass_skipped == 1:
        ctx.emit("open_pass_skipped", reason=NOTHING_LEFT)
    return True


def open_pass_note(open_passes: int, skipped: int) -> str:
    """The summary's line about the open pass: ``NOTHING_LEFT`` when no chunk needed one, else
    ""."""
    return NOTHING_LEFT if skipped and not open_passes else ""
