"""What a run has learned so far: functions, cross-row steps, counts and position; and what the
stages share."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..crossrow.steps import CrossRowStep
from ..judge.gate import Gate
from ..judge.reflection import Reviewer
from ..model.client import ModelClient
from ..optimizer.consolidation import ConsolidationResult
from ..optimizer.saturation import SaturationWatch
from ..options import Options
from ..profiling.focus import FieldFocus
from ..profiling.spec import CleaningSpec
from ..read.rows import SkippedRecord
from ..read.sampling import MetricsSample
from ..read.source import ChunkSource
from ..write.metrics import ImprovementReport

__all__ = ["RunState", "RunContext", "ChunkFocus"]


@dataclass
class ChunkFocus(FieldFocus):
    """FieldFocus that profiles one list of records once: the chunk's event and the next field read
    the same view.

    Profiling is most of a chunk's cost when the chunk costs no model call (issue 18: a big
    file's run must not grow with the file); a view is a new list whenever a function changes it.
    """

    _last: tuple = field(default=(None, None), repr=False, compare=False)

    def profile(self, records: list) -> dict:
        held, profiles = self._last
        if held is not records:
            profiles = super().profile(records)
            self._last = (records, profiles)
        return profiles


@dataclass
class RunState:
    """The loop's learning and counts (the state file keeps the part a resumed run needs:
    ``checkpoint``)."""

    functions: list[dict] = field(default_factory=list)
    last_completed_chunk: int = -1
    total_chunks: int = 0
    input_size: int = -1  # bytes of the data file when the run (or the run it resumes) started
    skip_count: int = 0
    skipped: list[SkippedRecord] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    issues: list[dict] = field(default_factory=list)
    modifications: list[dict] = field(default_factory=list)
    records_seen: int = 0
    idle_chunks: int = 0
    open_passes: int = 0  # open-ended passes asked of the model (run.open_pass)
    # chunks whose open pass was not asked: the profile left nothing unexplained
    open_pass_skipped: int = 0
    # the model's draft of the spec (draft_spec=True), kept so a resume does not ask again
    spec_draft: dict | None = None
    # clause -> the field the model tied it to (model.field_tie), kept too
    spec_ties: dict = field(default_factory=dict)
    # the model's answers for fields asked for with no format (model.kind_ask): "field\nwords" ->
    # kind
    spec_kinds: dict = field(default_factory=dict)
    unusable_replies: int = 0  # model replies that could not be parsed (the run asked again)
    prefix: str = ""  # the static prompt prefix of this run
    cross_row_steps: list[CrossRowStep] = field(default_factory=list)
    # (records the steps drop, records of the planning sample)
    cross_row_drop: tuple[int, int] = (0, 0)
    cross_row_rows: list[int] = field(default_factory=list)  # per step, records it changed there
    # per step, what its fit learned there (a source-weighted vote's source accuracies)
    cross_row_notes: list[list[str]] = field(default_factory=list)
    # the user's corrected rows: what they are, the labelled cells each function and step passes
    label_lines: list[str] = field(default_factory=list)
    consolidation: ConsolidationResult | None = None
    order_note: str = ""
    metrics_sample: MetricsSample | None = None
    improvement: ImprovementReport | None = None
    spec: CleaningSpec | None = None  # the field spec the run works to (profiling.spec)
    # what the result depends on (run.fingerprint), saved in the state file
    fingerprint: dict | None = None


@dataclass
class RunContext:
    """What the stages beside and after the loop use (dry run, wrap-up, report): no reaching into
    DataCleaner.

    ``call(prompt, chunk_index, iteration, purpose)`` is the loop's model call (it saves the state
    file before an LLMCallError leaves the run); ``emit(event_type, **fields)`` sends a progress
    event; ``where`` (chunk_index, iteration) is the position every ``llm_call`` event reports.
    """

    options: Options
    state: RunState
    client: ModelClient
    source: ChunkSource
    gate: Gate
    focus: FieldFocus
    watch: SaturationWatch
    file_path: str
    call: Callable[..., str]
    emit: Callable[..., None]
    reviewer: Reviewer | None = None
    where: dict[str, int] = field(default_factory=lambda: {"chunk_index": -1, "iteration": 0})
    # fields whose toolkit one-liner was tried (hint_functions)
    hinted: set = field(default_factory=set)
    # start afresh: an existing state file is neither read nor checked (overwritten)
    restart: bool = False
    # built by DataCleaner.resume: options given to it on purpose are not a change
    resumed: bool = False
