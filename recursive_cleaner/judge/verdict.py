"""What the gate says of a candidate (``Verdict``), the chunk it judges (``ChunkView``), and where
an accepted function keeps the goals' examples it left undone (``NOT_DONE_KEY``)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ChunkView", "Verdict", "NOT_DONE_KEY"]


NOT_DONE_KEY = "examples_not_done"
"""Where an accepted function's dict keeps the goals' examples it left as they came."""


@dataclass
class Verdict:
    """``problem`` is None when the candidate is accepted; ``outputs`` are its results on the
    visible records."""

    problem: str | None
    outputs: list | None = None
    hidden_outputs: list | None = None
    replaces: str | None = None
    # the field it fixed, when the model chose another issue than the one asked for
    field: str | None = None
    # a few (input, output) pairs of the function alone (judge.assembly)
    examples: list | None = None
    # the goals' examples (field, input, output) the library's own call left as they came
    not_done: list | None = None


@dataclass(frozen=True)
class ChunkView:
    """One chunk as the gate judges it: the records shown and held out, as the accepted functions
    leave them (``visible``, ``hidden``) and as they came in (``raw``, ``raw_hidden``)."""

    visible: list = field(default_factory=list)
    hidden: list = field(default_factory=list)
    raw: list = field(default_factory=list)
    raw_hidden: list = field(default_factory=list)

    def after(self, verdict: Verdict) -> "ChunkView":
        """The chunk once ``verdict``'s function is accepted: its outputs where it gave them."""
        return ChunkView(
            self.visible if verdict.outputs is None else verdict.outputs,
            verdict.hidden_outputs or self.hidden,
            self.raw,
            self.raw_hidden,
        )
