"""Consolidation with LLM agency: the model merges redundant functions until it says it is done.

Each round shows the group's functions in full and asks for merged functions plus a
self-assessment (``complete``, ``remaining_issues``, ``confidence``). The loop stops when the
model says ``complete``, when a round proposes no merge, when the group is down to one
function, after ``max_rounds`` (the safety cap), or when a reply is unusable even after its
parse error was fed back once (the group keeps what earlier rounds verified).

A merged function replaces its originals only if, in the sandbox, it cleans the sample
``records`` exactly as the chain of originals does (same outputs, same records failing: ``verify``);
otherwise the originals stay and the refusal carries the reason, which is also shown to the
model in the next round.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable

from .reply import AgentAssessment, ProposedMerge, build_consolidation_prompt, parse_consolidation
from .verify import compare_pipelines, defined_names, verify_merge
from ..errors import LLMCallError, ParseError
from ..model.client import ModelClient, as_client
from ..model.llm import LLMStats
from ..types import LLMBackend

__all__ = [
    "AgentAssessment",
    "MergeDecision",
    "ConsolidationResult",
    "consolidate_with_agency",
    "verify_merge",
    "compare_pipelines",
    "defined_names",
    "Emit",
]

Emit = Callable[..., None]
"""``emit(event_type, **fields)``, e.g. ``DataCleaner._emit``."""

_MAX_NOTES = 8


@dataclass
class MergeDecision:
    """A proposed merge and what became of it; ``reason`` says why it was refused."""

    name: str
    original_names: list[str]
    accepted: bool
    reason: str = ""
    round: int = 0
    group: str = ""
    function: dict | None = None

    def describe(self) -> str:
        """One line for a report."""
        joined = ", ".join(self.original_names)
        if self.accepted:
            return f"merged {joined} into {self.name}"
        return f"kept {joined}: merging them into {self.name} was refused: {self.reason}"


class ConsolidationResult(list):
    """The final functions ({name, docstring, code} dicts; the list itself, as the contract returns)
    and the story.

    ``accepted`` / ``refused``: MergeDecisions; ``assessments``: the model's, per round;
    ``calls``: LLM calls made; ``stop_reasons``: group → complete | no_progress | max_rounds |
    nothing_to_merge | parse_error | llm_error; ``notes``: failures worth reporting.
    """

    def __init__(
        self, functions: Iterable[dict] = (), *, original_count: int | None = None
    ) -> None:
        super().__init__(functions)
        self.inputs: list[dict] = list(self)
        self.original_count = len(self.inputs) if original_count is None else original_count
        self.accepted: list[MergeDecision] = []
        self.refused: list[MergeDecision] = []
        self.assessments: list[AgentAssessment] = []
        self.calls = 0
        self.rounds = 0
        self.stop_reasons: dict[str, str] = {}
        self.notes: list[str] = []

    @property
    def functions(self) -> list[dict]:
        """The final functions as a plain list."""
        return list(self)

    @property
    def accepted_functions(self) -> list[dict]:
        """Every merged function accepted (including ones merged again later)."""
        return [d.function for d in self.accepted if d.function is not None]

    def absorb(self, other: "ConsolidationResult") -> None:
        """Add another group's decisions, calls and notes (not its functions)."""
        self.accepted += other.accepted
        self.refused += other.refused
        self.assessments += other.assessments
        self.calls += other.calls
        self.rounds += other.rounds
        self.stop_reasons.update(other.stop_reasons)
        self.notes += other.notes

    def report_lines(self) -> list[str]:
        """What the consolidation did, one line each, for the run report."""
        head = (
            f"{self.original_count} → {len(self)} functions: {len(self.accepted)} merge(s) "
            "accepted, "
            f"{len(self.refused)} refused, {self.calls} LLM call(s)"
        )
        return [head] + [d.describe() for d in self.accepted + self.refused] + list(self.notes)


def consolidate_with_agency(
    functions: list[dict],
    backend: ModelClient | LLMBackend,
    max_rounds: int = 5,
    *,
    records: list | None = None,
    emit: Emit | None = None,
    group: str = "",
    reserved_names: Iterable[str] = (),
    stats: LLMStats | None = None,
    sleep: Callable[[float], None] = time.sleep,
    llm_attempts: int = 3,
    timeout: float = 10.0,
    mode: str = "structured",
) -> ConsolidationResult:
    """Consolidate functions until the model reports complete (or ``max_rounds``, the safety cap).

    ``records``: sample records every merge must clean exactly as its originals do (without them
    every merge is refused). ``reserved_names``: names defined by functions outside this group.
    Emits ``optimize_round`` (round, remaining_issues, group, complete, confidence, merged,
    refused, error). ``backend``: the run's ModelClient (its retries and stats), or a plain
    backend whose calls are tried ``llm_attempts`` times with ``sleep`` and added to ``stats``.
    """
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be at least 1, got {max_rounds!r}")
    send = emit or (lambda event_type, **fields: None)
    client = as_client(backend, stats=stats, attempts=llm_attempts, sleep=sleep)
    reserved = set(reserved_names)
    result = ConsolidationResult(functions)
    current = list(functions)
    origins = {id(f): [f.get("name", "")] for f in current}
    notes: list[str] = []
    stop = "max_rounds"
    for rnd in range(1, max_rounds + 1):
        if len(current) < 2:
            stop = "nothing_to_merge"
            break
        shown, shown_notes = list(current), notes[-_MAX_NOTES:]
        parsed, failure = _ask(
            client,
            lambda feedback: build_consolidation_prompt(
                shown, notes=shown_notes, feedback=feedback, mode=mode
            ),
            result,
        )
        if parsed is None:
            stop = failure[0]
            result.notes.append(
                f"group {group or '(all)'}, round {rnd}: {failure[1]}; "
                "the group keeps the functions it had"
            )
            send(
                "optimize_round",
                round=rnd,
                remaining_issues="",
                group=group,
                complete=False,
                confidence="low",
                merged=[],
                refused=[],
                error=failure[1],
            )
            break
        merges, assessment = parsed
        result.rounds, notes = rnd, []
        result.assessments.append(assessment)
        decisions = []
        for proposal in merges:
            decision = _decide(
                proposal,
                current,
                origins,
                rnd=rnd,
                group=group,
                records=records,
                reserved=reserved,
                timeout=timeout,
                mode=mode,
            )
            decisions.append(decision)
            (result.accepted if decision.accepted else result.refused).append(decision)
            notes.append(
                f"{decision.describe()}."
                if decision.accepted
                else f"Your merge of {', '.join(decision.original_names)} into {decision.name} was "
                "refused: "
                f"{decision.reason}. Do not propose it again unchanged."
            )
        if assessment.remaining_issues and assessment.remaining_issues.lower() != "none":
            notes.append(f"You said remaining: {assessment.remaining_issues}")
        send(
            "optimize_round",
            round=rnd,
            remaining_issues=assessment.remaining_issues,
            group=group,
            complete=assessment.complete,
            confidence=assessment.confidence,
            merged=[d.name for d in decisions if d.accepted],
            refused=[d.name for d in decisions if not d.accepted],
            error=None,
        )
        if assessment.complete:
            stop = "complete"
            break
        if not merges:
            stop = "no_progress"
            break
    result[:] = current
    result.stop_reasons[group] = stop
    return result


def _ask(client: ModelClient, prompt: Callable[..., str], result: ConsolidationResult):
    """(parsed reply, None) or (None, (stop reason, message)); one retry with the parse error as
    feedback."""
    feedback = ""
    for _ in range(2):
        try:
            reply = client.call(prompt(feedback), "consolidation")
        except LLMCallError as exc:
            return None, ("llm_error", f"the LLM call failed: {exc}")
        result.calls += 1
        try:
            return parse_consolidation(reply), None
        except ParseError as exc:
            feedback = str(exc)
    return None, ("parse_error", f"the reply could not be used twice ({feedback})")


def _decide(
    proposal: ProposedMerge,
    current: list[dict],
    origins: dict[int, list[str]],
    *,
    rnd: int,
    group: str,
    records: list | None,
    reserved: set[str],
    timeout: float,
    mode: str,
) -> MergeDecision:
    """Check one proposed merge; when accepted, put it in ``current`` where its first original
    was."""

    def refuse(reason: str) -> MergeDecision:
        return MergeDecision(
            proposal.name,
            proposal.original_names,
            accepted=False,
            reason=reason,
            round=rnd,
            group=group,
        )

    names = {f.get("name") for f in current}
    unknown = [n for n in proposal.original_names if n not in names]
    if unknown:
        return refuse(
            f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not among the functions "
            "under review (maybe already merged)"
        )
    if len(proposal.original_names) < 2:
        return refuse("a merge must replace at least two functions")
    wanted = set(proposal.original_names)
    if proposal.name in names and proposal.name not in wanted:
        return refuse(f"the name {proposal.name} is already used by a function it does not replace")
    originals = [f for f in current if f.get("name") in wanted]
    others = set().union(*(defined_names(f) for f in current if f.get("name") not in wanted))
    merged = {
        "name": proposal.name,
        "docstring": proposal.docstring,
        "code": proposal.code,
        "merged_from": [n for f in originals for n in origins.get(id(f), [f.get("name", "")])],
    }
    fields = {f.get("field") for f in originals}
    if len(fields) == 1 and None not in fields:
        merged["field"] = fields.pop()
    reason = verify_merge(
        merged, originals, records, reserved_names=reserved | others, timeout=timeout, mode=mode
    )
    if reason:
        return refuse(reason)
    at = next(i for i, f in enumerate(current) if f is originals[0])
    current[:] = (
        current[:at] + [merged] + [f for f in current[at:] if all(f is not o for o in originals)]
    )
    origins[id(merged)] = merged["merged_from"]
    return MergeDecision(
        proposal.name,
        proposal.original_names,
        accepted=True,
        round=rnd,
        group=group,
        function=merged,
    )
