"""DataCleaner: walk the file chunk by chunk and let the model write one tested function at a time."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Callable

from . import checkpoint, parsers, schema
from ._options import beside, check_options, first_issue, resolve_backend
from .acceptance import Gate, Verdict
from .chunk_source import ChunkSource
from .context import build_context, build_rich_context
from .documents import is_document, materialize_document
from .dry_run import detect_issues
from .errors import LLMCallError, ParseError
from .focus import FieldFocus, function_name
from .frames import materialize_input
from .llm import LLMReply, LLMStats, call_llm
from .metrics import ImprovementReport
from .optimizer import TAGS_INSTRUCTION, ConsolidationResult
from .profiler import FieldProfile, format_issue_for_prompt
from .prompt import build_field_prompt, build_prompt, format_chunk, format_feedback, static_prefix
from .reflection import ReflectionConfig, Reviewer
from .response import ParsedResponse, parse_response
from .result import RunResult
from .run_report import MetricsSample
from .sampling import split_holdout
from .saturation import SaturationWatch
from .state import load_state, save_state
from .toolkit import CATALOGUE
from .types import BackendLike, ProgressCallback
from .validation import ALLOWED_IMPORTS
from .wrap_up import finish_run

__all__ = ["DataCleaner", "RunResult"]

log = logging.getLogger("recursive_cleaner")
_TEXT_DEFAULT_CHARS = 4000
_MAX_SKIPS_KEPT = 100


class DataCleaner:
    """Generate ``cleaning_functions.py`` for a messy file with an LLM.

    ``llm_backend`` is anything with ``generate(prompt) -> str``, a plain callable, or a
    backend string such as ``"local"`` or ``"ollama:qwen2.5-coder"`` (see ``backends``).
    """

    def __init__(
        self,
        llm_backend: BackendLike | str,
        file_path: str | Any,
        chunk_size: int = 50,
        instructions: str = "",
        max_iterations: int = 5,
        context_budget: int = 8000,
        on_progress: ProgressCallback | None = None,
        state_file: str | None = None,
        validate_runtime: bool = True,
        schema_sample_size: int = 10,
        *,
        mode: str = "auto",
        output_path: str = "cleaning_functions.py",
        holdout_ratio: float = 0.2,
        sampling_strategy: str = "sequential",
        stratify_field: str | None = None,
        seed: int = 0,
        track_metrics: bool = False,
        ground_truth: str | None = None,
        metrics_sample: int = 1000,
        report_path: str | None = "cleaning_report.md",
        dry_run: bool = False,
        llm_attempts: int = 3,
        sandbox_timeout: float = 10.0,
        profile_fields: bool = True,
        max_field_attempts: int = 3,
        open_pass_attempts: int = 1,
        idle_chunks_before_skip: int = 2,
        chunk_chars: int = 12000,
        toolkit: bool = True,
        rich_context: bool = False,
        reflection: ReflectionConfig | str | None = None,
        cross_row: bool = True,
        optimize: bool = False,
        optimize_threshold: int = 10,
        early_termination: bool = False,
        saturation_check_interval: int = 20,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        check_options(chunk_size, max_iterations, mode, holdout_ratio, sampling_strategy, stratify_field)
        self.backend = resolve_backend(llm_backend)
        file_path = materialize_input(file_path)  # a DataFrame or list of dicts becomes a JSONL file
        if is_document(file_path) and Path(file_path).is_file():  # PDF, Word, HTML: their text, in text mode
            file_path = materialize_document(file_path)
        self.file_path = str(file_path)
        self.fmt = "text" if mode == "text" else parsers.detect_format(self.file_path)
        if mode == "structured" and self.fmt == "text":
            raise ValueError(f"{file_path}: cannot read as structured data (use .jsonl, .csv, .json, .parquet or .xlsx)")
        self.mode = "text" if self.fmt == "text" else "structured"
        if self.mode == "text" and chunk_size == 50:
            chunk_size = _TEXT_DEFAULT_CHARS  # 50 is the records default; text is chunked by characters
        self.chunk_size = chunk_size
        self.instructions, self.max_iterations, self.context_budget = instructions, max_iterations, context_budget
        self.on_progress, self.state_file, self.output_path = on_progress, state_file, output_path
        self.validate_runtime, self.schema_sample_size = validate_runtime, schema_sample_size
        self.llm_attempts, self.sandbox_timeout, self.sleep = llm_attempts, sandbox_timeout, sleep
        self.profile_fields, self.open_pass_attempts = profile_fields, open_pass_attempts
        self.idle_chunks_before_skip, self.chunk_chars = idle_chunks_before_skip, chunk_chars
        self.holdout_ratio, self.seed = holdout_ratio, seed
        self.sampling_strategy, self.stratify_field = sampling_strategy, stratify_field
        self.track_metrics, self.ground_truth = track_metrics or ground_truth is not None, ground_truth
        self.metrics_sample, self.dry_run = metrics_sample, dry_run
        self.report_path = beside(report_path, output_path)
        self.source = ChunkSource(self.file_path, self.fmt, chunk_size, strategy=sampling_strategy,
                                  stratify_field=stratify_field, seed=seed, on_skip=self._on_skip)
        self._idle_chunks = 0
        self.toolkit = toolkit
        self.focus = FieldFocus(enabled=profile_fields and self.mode == "structured" and validate_runtime,
                                max_attempts=max_field_attempts)
        self.gate = Gate(self.focus, mode=self.mode, validate_runtime=validate_runtime, timeout=sandbox_timeout,
                         allow_modify=rich_context)
        self.rich_context = rich_context
        self.optimize, self.optimize_threshold = optimize, optimize_threshold
        self.cross_row, self.cross_row_steps = cross_row, []
        self._cross_row_drop: tuple[int, int] = (0, 0)  # (records the cross-row steps drop, sample records)
        self.early_termination, self.saturation_check_interval = early_termination, saturation_check_interval
        self.reflection = ReflectionConfig(mode=reflection) if isinstance(reflection, str) else reflection
        self.reviewer = Reviewer(self.reflection) if self.reflection else None
        self.watch = SaturationWatch(saturation_check_interval, enabled=early_termination)
        self._consolidation: ConsolidationResult | None = None
        self._modifications: list[dict] = []
        self._prefix = ""
        self.functions: list[dict] = []
        self.stats = LLMStats(on_add=self._on_llm_call)
        self._where: dict[str, int] = {"chunk_index": -1, "iteration": 0}
        self.last_completed_chunk = -1
        self.total_chunks = 0
        self._skip_count = 0
        self._skipped: list[parsers.SkippedRecord] = []
        self._rejected: list[tuple[str, str]] = []
        self._callback_failed = False
        self._issues: list[dict] = []
        self._records_seen = 0
        self._metrics_sample: MetricsSample | None = None
        self._improvement: ImprovementReport | None = None
        self._order_note = ""

    @classmethod
    def resume(cls, state_file: str, llm_backend: BackendLike | str, **options: Any) -> "DataCleaner":
        """Rebuild a cleaner from its state file; FileNotFoundError / ValueError if it cannot."""
        state = load_state(state_file)
        cleaner = cls(
            llm_backend,
            state["file_path"],
            chunk_size=state["chunk_size"],
            instructions=state["instructions"],
            state_file=state_file,
            **{**state.get("options", {}), **options},
        )
        checkpoint.restore(cleaner, state)
        return cleaner

    # ------------------------------------------------------------------ the loop
    def run(self) -> RunResult:
        """Process every chunk not yet done, write cleaning_functions.py and the report, and return what happened."""
        if not Path(self.file_path).is_file():
            raise FileNotFoundError(f"data file not found: {self.file_path}")
        started = time.monotonic()
        resumed = checkpoint.load_matching_state(self)
        self._prepare_prompt()
        self.total_chunks = self.source.count()
        self._metrics_sample = MetricsSample(self.metrics_sample, self.seed) if self.track_metrics else None
        result = RunResult(output_path=self.output_path, functions=[], chunks_total=self.total_chunks,
                           resumed_from_chunk=resumed)

        for index, records in enumerate(self._chunks()):
            if index <= self.last_completed_chunk:
                continue
            self._emit("chunk_start", chunk_index=index, records=len(records))
            added = len(self.functions)
            status = self._analyze_chunk(records, index) if self.dry_run else self._process_chunk(records, index)
            self.watch.record(status, len(self.functions) - added)
            result.chunks_processed += 1
            result.chunks_clean += status in ("clean", "clean_by_profile")
            result.chunks_max_iterations += status == "max_iterations"
            self.last_completed_chunk = index
            self._save()
            self._emit("chunk_done", chunk_index=index, status=status)
            self._where = {"chunk_index": index, "iteration": 0}  # a saturation check's call belongs to no iteration
            if not self.dry_run and self.watch.should_stop(self.backend, self.functions, stats=self.stats,
                                                           sleep=self.sleep, attempts=self.llm_attempts):
                result.stopped_early = True
                self._emit("early_termination", chunk_index=index, chunks_processed=result.chunks_processed,
                           reasoning=self.watch.last.reasoning if self.watch.last else "")
                break
        return finish_run(self, result, started)

    def get_improvement_report(self) -> ImprovementReport | None:
        """Quality before/after on a sample of the records seen (run with ``track_metrics=True``)."""
        return self._improvement

    def _analyze_chunk(self, records: list, index: int) -> str:
        """Dry run: report the chunk's issues (profile and model), write no code."""
        issues = detect_issues(self, records, index)
        self._issues.extend(issues)
        self._emit("issues_detected", chunk_index=index, issues=issues)
        return "analyzed"

    def _process_chunk(self, records: list, index: int) -> str:
        """Ask for one function at a time until the chunk is clean by the profile and the model."""
        visible, hidden = split_holdout(records, self.holdout_ratio, seed=self.seed, salt=index) \
            if self.validate_runtime else (records, [])
        view = self.gate.apply(self.functions, visible)
        self.gate.hidden = self.gate.apply(self.functions, hidden)
        self.gate.raw, self.gate.raw_hidden = visible, hidden
        feedback: list[str] = []
        focus_field: str | None = None
        last_reply = ""
        open_failures, accepted = 0, 0
        self._emit("chunk_profile", chunk_index=index, open_issues=self.focus.counts(view))
        for iteration in range(1, self.max_iterations + 1):
            focus = self.focus.next(view)
            if focus is None and self.focus.enabled and self._clean_by_profile(open_failures, accepted):
                return "clean_by_profile"
            self._emit("iteration", chunk_index=index, iteration=iteration)
            if (focus.field if focus else None) != focus_field:
                focus_field, feedback = (focus.field if focus else None), []
                if self.reviewer:
                    self.reviewer.new_task()
            last_reply = self._call(self._prompt(view, focus, feedback), index, iteration)
            try:
                parsed = parse_response(last_reply)
            except ParseError as exc:
                open_failures += focus is None
                self._failed(focus, feedback, str(exc), "parse_error", chunk_index=index, iteration=iteration)
                continue
            if not parsed.has_function:
                if focus is None:
                    self._idle_chunks += accepted == 0
                    return "clean"
                self._failed(focus, feedback, f"The field '{focus.field}' is not clean yet. {focus.issue} "
                             "Write the function.", "not_clean", chunk_index=index, iteration=iteration)
                continue
            verdict = self.gate.check(parsed, view, self.functions, focus)
            problem = verdict.problem or self._review(parsed, view, focus, verdict)
            if problem:
                open_failures += focus is None
                self._rejected.append((parsed.name, problem))
                self._failed(focus, feedback, f"Function `{parsed.name}` was rejected: {problem}",
                             "validation_failed", chunk_index=index, iteration=iteration,
                             function_name=parsed.name, error=problem)
                continue
            accepted, self._idle_chunks, feedback = accepted + 1, 0, []
            view = self._accept(parsed, verdict, view, focus, chunk_index=index, iteration=iteration)
        log.warning("chunk %d: not clean after %d iterations; moving on", index, self.max_iterations)
        self._emit("chunk_skipped", chunk_index=index, attempts=self.max_iterations, last_reply=last_reply[-500:])
        return "max_iterations"

    def _review(self, parsed: ParsedResponse, view: list, focus: FieldProfile | None, verdict: Verdict) -> str | None:
        """Reflection, when on: feedback for a weak or duplicate candidate (see reflection.Reviewer); None accepts."""
        if self.reviewer is None or verdict.replaces:
            return None
        problem, crit = self.reviewer.review(
            parsed.code, parsed.name, view, self.functions, hidden=self.gate.hidden,
            target=focus.field if focus else None, expectations=self.focus.expectations, backend=self.backend,
            timeout=self.sandbox_timeout, stats=self.stats, sleep=self.sleep, csv_strings=self.focus.csv_strings)
        if crit is not None:
            self._emit("function_critiqued", function_name=parsed.name, score=crit.score, decision=crit.decision,
                       dimensions=crit.dimensions)
        return problem

    def _accept(self, parsed: ParsedResponse, verdict: Verdict, view: list, focus: FieldProfile | None,
                **where: int) -> list:
        """Add (or, for a re-sent name, replace) the function; the chunk as it now looks."""
        before = self.focus.counts(view)
        view = verdict.outputs if verdict.outputs is not None else view
        self.gate.hidden = verdict.hidden_outputs or self.gate.hidden
        after = self.focus.counts(view)
        entry = {"name": parsed.name, "docstring": parsed.docstring, "code": parsed.code,
                 "field": focus.field if focus else None,
                 "issue": (focus.issue if focus else first_issue(parsed)) or "",
                 "issues_before": before, "issues_after": after, "chunk_index": where["chunk_index"]}
        if verdict.replaces:
            slot = next(i for i, f in enumerate(self.functions) if f["name"] == verdict.replaces)
            self.functions[slot] = {**self.functions[slot], **{k: v for k, v in entry.items() if k in
                                                              ("docstring", "code", "issues_after")}}
            self._modifications.append({"name": parsed.name, "chunk_index": where["chunk_index"],
                                        "issues_before": before, "issues_after": after})
            self._emit("function_modified", function_name=parsed.name, issues_before=before, issues_after=after,
                       **where)
        else:
            self.functions.append(entry)
            self._emit("function_generated", function_name=parsed.name, field=entry["field"],
                       issues_before=before, issues_after=after, **where)
        self.focus.fixed(focus)
        return view

    def _clean_by_profile(self, open_failures: int, accepted: int) -> bool:
        """The profile shows nothing left: stop after the open-ended pass found nothing it could fix.

        Without a model call when the last ``idle_chunks_before_skip`` chunks taught nothing new
        (homogeneous data stops costing calls); otherwise after ``open_pass_attempts`` failed
        open-ended attempts on this chunk.
        """
        if (self.early_termination and accepted == 0 and open_failures == 0
                and self._idle_chunks >= self.idle_chunks_before_skip):
            return True
        if open_failures >= self.open_pass_attempts:
            self._idle_chunks += accepted == 0
            return True
        return False

    def _failed(self, focus: FieldProfile | None, feedback: list[str], message: str, event: str, **fields) -> None:
        """Record a failed attempt: feedback for the next prompt, an event, and the field's failure count."""
        feedback.append(message)
        self.focus.failed(focus)
        self._emit(event, error=fields.pop("error", message), **fields)

    def _prompt(self, view: list, focus: FieldProfile | None, feedback: list[str]) -> str:
        context = (build_rich_context if self.rich_context else build_context)(self.functions, self.context_budget)
        if focus is None:
            shown = format_chunk(view, self.mode, max_chars=self.chunk_chars)
            return build_prompt(self.instructions, context, shown, mode=self.mode,
                                feedback=format_feedback(feedback), prefix=self._prefix,
                                records=len(view) if self.mode == "structured" else None)
        name = function_name(focus.field, {f["name"] for f in self.functions})
        return build_field_prompt(self._prefix, context, field=focus.field, issue=format_issue_for_prompt(focus),
                                  name=name, feedback=format_feedback(feedback))

    # ------------------------------------------------------------------ steps
    def _call(self, prompt: str, index: int, iteration: int, purpose: str = "generate") -> str:
        self._where = {"chunk_index": index, "iteration": iteration}
        try:
            reply = call_llm(self.backend, prompt, attempts=self.llm_attempts, sleep=self.sleep)
        except LLMCallError:
            self._save()  # never lose finished chunks; the error names the backend's failure
            raise
        self.stats.add(reply, purpose)
        return reply.text

    def _on_llm_call(self, reply: LLMReply, purpose: str) -> None:
        """Every counted model call, also those of saturation, reflection and consolidation, is an event."""
        self._emit("llm_call", **self._where, purpose=purpose or "generate", latency_ms=round(reply.latency_ms, 1),
                   prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                   cached_tokens=reply.cached_tokens, attempts=reply.attempts)

    # ------------------------------------------------------------------ input
    def _chunks(self):
        """Chunks in the sampling order; records seen are counted for the report."""
        for records in self.source.chunks(self._metrics_sample):
            if self.source.index > self.last_completed_chunk:
                self._records_seen += len(records)
            yield records

    def _on_skip(self, skipped: parsers.SkippedRecord, chunk_index: int) -> None:
        if chunk_index <= self.last_completed_chunk:
            return  # reported in the run that processed this chunk
        self._skip_count += 1
        if len(self._skipped) < _MAX_SKIPS_KEPT:
            self._skipped.append(skipped)
        log.warning("%s:%d: skipped: %s", skipped.path, skipped.line, skipped.reason)
        self._emit("record_skipped", path=skipped.path, line=skipped.line, reason=skipped.reason)

    def _prepare_prompt(self) -> None:
        """Schema, the static prompt prefix, and the format each field should have (from the instructions)."""
        info = None
        if self.mode == "structured" and self.schema_sample_size > 0:
            info = schema.infer_schema(self.file_path, self.schema_sample_size)
        self._prefix = static_prefix(
            self.instructions, schema=schema.format_schema_for_prompt(info) if info else "", mode=self.mode,
            allowed_imports=", ".join(sorted(m for m in ALLOWED_IMPORTS if not m.startswith("recursive_cleaner"))),
            toolkit=CATALOGUE if self.toolkit else "", extra_rules=TAGS_INSTRUCTION if self.optimize else "")
        if info:
            self.focus.learn(self.instructions, info["fields"], info.get("samples"))

    # ------------------------------------------------------------------ state
    def options(self) -> dict[str, Any]:
        """The constructor options a resumed run gets back from the state file."""
        return {"max_iterations": self.max_iterations, "context_budget": self.context_budget,
                "validate_runtime": self.validate_runtime, "schema_sample_size": self.schema_sample_size,
                "mode": self.mode, "output_path": self.output_path, "profile_fields": self.profile_fields,
                "max_field_attempts": self.focus.max_attempts, "toolkit": self.toolkit,
                "holdout_ratio": self.holdout_ratio, "sampling_strategy": self.sampling_strategy,
                "stratify_field": self.stratify_field, "seed": self.seed, "track_metrics": self.track_metrics,
                "ground_truth": self.ground_truth, "report_path": self.report_path, "dry_run": self.dry_run,
                "rich_context": self.rich_context,
                "reflection": self.reflection.mode if self.reflection else None, "optimize": self.optimize, "optimize_threshold": self.optimize_threshold,
                "early_termination": self.early_termination,
                "saturation_check_interval": self.saturation_check_interval}

    def _save(self) -> None:
        if self.state_file:
            save_state(self.state_file, checkpoint.snapshot(self))

    # ------------------------------------------------------------------ events
    def _emit(self, event_type: str, **fields: Any) -> None:
        """Send a progress event; a callback that raises is logged once and never stops the run."""
        if self.on_progress is None:
            return
        event = {"type": event_type, "total_chunks": self.total_chunks, **fields}
        try:
            self.on_progress(event)
        except Exception:  # noqa: BLE001 - a user's callback must not stop the run
            if not self._callback_failed:
                log.exception("on_progress callback raised on %r; further errors are ignored", event_type)
            self._callback_failed = True
