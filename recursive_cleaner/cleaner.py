"""DataCleaner: walk the file chunk by chunk and let the model write one tested function at a
time."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from .errors import LLMCallError, ParseError, clip_text
from .given_options import option_values
from .options import (
    BASICS,
    DEFAULTS,
    Chunking,
    CrossRow,
    Goals,
    Judging,
    Metrics,
    ModelCalls,
    Optimizer,
    Options,
    Output,
)
from .types import BackendLike, ProgressCallback

# read -> profiling -> model -> judge -> optimizer -> run: the stages the loop drives
from .read import parsers
from .read.sampling import MetricsSample, split_holdout
from .profiling.profiler import FieldProfile
from .model.llm import LLMReply
from .model.response import ParsedResponse, parse_response
from .write.metrics import ImprovementReport
from .write.state import save_state
from .judge.gate import ChunkView, Verdict
from .optimizer.saturation import SaturationWatch
from .run import checkpoint
from .run.asking import grammar_for, hint_for, prompt_for
from .run.configure import build_context, settings_for
from .run.dry_run import detect_issues
from .run.finish import finish_run
from .run.lock import state_lock
from .run.prepare import prepare_prompt
from .run.result import RunResult
from .run.resume import resume_arguments
from .run.setup import first_issue, resolve_backend
from .run.state import RunContext, RunState

__all__ = ["DataCleaner", "RunResult"]

log = logging.getLogger("recursive_cleaner")
_MAX_SKIPS_KEPT = 100
_STATE_NAMES = ("functions", "last_completed_chunk", "total_chunks", "cross_row_steps")
FEEDBACK_CHARS = 2000  # one rejection as the next prompt, the state file and events quote it


class DataCleaner:
    """Generate ``cleaning_functions.py`` for a messy file with an LLM.

    ``llm_backend`` is anything with ``generate(prompt) -> str``, a plain callable, or a
    backend string such as ``"local"`` or ``"ollama:qwen2.5-coder"`` (see ``backends``).
    The options past the reference contract's come in groups (``chunking=Chunking(seed=3)``,
    ``optimizer=True``, ``output="out/cleaning_functions.py"``: ``recursive_cleaner.options``)
    or by their flat names (``seed=3``, ``optimize=True``, ``output_path=...``): docs/options.md.
    The constructor only stores and checks them; ``run()`` resolves the backend, writes a
    DataFrame or a document to a file, loads the spec and checks every path.
    """

    def __init__(
        self,
        llm_backend: BackendLike | str,
        file_path: str | Any,
        chunk_size: int = BASICS.chunk_size,
        instructions: str = BASICS.instructions,
        max_iterations: int = BASICS.max_iterations,
        context_budget: int = BASICS.context_budget,
        on_progress: ProgressCallback | None = None,
        state_file: str | None = None,
        validate_runtime: bool = BASICS.validate_runtime,
        schema_sample_size: int = BASICS.schema_sample_size,
        *,
        chunking: Chunking | None = None,
        judging: Judging | None = None,
        model: ModelCalls | None = None,
        cross_row: CrossRow | bool | None = None,
        optimizer: Optimizer | bool | None = None,
        metrics: Metrics | bool | None = None,
        output: Output | str | os.PathLike | None = None,
        goals: Goals | None = None,
        restart: bool = BASICS.restart,
        **options: Any,
    ) -> None:
        groups = dict(
            chunking=chunking,
            judging=judging,
            model=model,
            cross_row=cross_row,
            optimizer=optimizer,
            metrics=metrics,
            output=output,
            goals=goals,
        )
        values = {
            **DEFAULTS,
            "chunk_size": chunk_size,
            "instructions": instructions,
            "max_iterations": max_iterations,
            "context_budget": context_budget,
            "validate_runtime": validate_runtime,
            "schema_sample_size": schema_sample_size,
            "restart": restart,
            **option_values(groups, options),
        }
        self.settings, self.reflection = settings_for(llm_backend, file_path, values)
        self.llm_backend, self.data = llm_backend, file_path  # resolved and read by run()
        self.file_path = os.fspath(file_path) if isinstance(file_path, (str, os.PathLike)) else None
        self.on_progress, self.state_file = on_progress, state_file
        self._asked = {k: values[k] for k in ("mode", "sleep", "restart")}
        self.state = RunState()
        self.watch = SaturationWatch(
            self.settings.saturation_check_interval, enabled=self.settings.early_termination
        )
        self._backend: Any = None
        self._ctx: RunContext | None = None
        self._callback_failed = False

    # ------------------------------------------------------------------ what the run holds
    @property
    def backend(self) -> Any:
        """The backend the run calls (a backend string is resolved at the first read or run)."""
        if self._backend is None:
            self._backend = resolve_backend(self.llm_backend)
        return self._backend

    @property
    def ctx(self) -> RunContext:
        """The run's context (``run.configure.build_context``), built by run() or the first read."""
        if self._ctx is None:
            self._ctx = build_context(
                self.backend,
                self.data,
                self.settings,
                mode=self._asked["mode"],
                state=self.state,
                watch=self.watch,
                reflection=self.reflection,
                state_file=self.state_file,
                sleep=self._asked["sleep"],
                restart=self._asked["restart"],
                on_call=self._on_llm_call,
                on_skip=self._on_skip,
                call=self._call,
                emit=self._emit,
            )
            self.file_path = self._ctx.file_path  # a DataFrame's or a document's file
        return self._ctx

    stats = property(lambda self: self.ctx.client.stats, doc="Model calls, tokens and latency.")

    def __getattr__(self, name: str) -> Any:
        """Any option by its flat name (``cleaner.seed``, ``cleaner.mode``), from ``settings``; what
        the run learned by name (``functions``, ``last_completed_chunk``, ``total_chunks``,
        ``cross_row_steps``), from ``state``."""
        settings = self.__dict__.get("settings")
        if settings is not None and name in Options.__dataclass_fields__:
            return getattr(settings, name)
        if name in _STATE_NAMES and "state" in self.__dict__:
            return getattr(self.__dict__["state"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @classmethod
    def resume(
        cls, state_file: str, llm_backend: BackendLike | str | None = None, **options: Any
    ) -> "DataCleaner":
        """Rebuild a cleaner from its state file: progress, functions and options as saved;
        FileNotFoundError / ValueError (StateFileError) if it cannot.

        The state file never chooses where data goes or files are written (``run.resume``):
        ``llm_backend`` None is the default backend (``$RECURSIVE_CLEANER_BACKEND``, else "local"),
        and a state file made with another one is refused, naming it, until it is given again;
        the functions go to ``output_path`` if given, else ``cleaning_functions.py`` beside the
        state file (the report beside them), and a state file naming other paths is refused until
        they are given. ``options`` (flat or in their groups) override saved options.
        """
        saved, backend, kwargs = resume_arguments(state_file, llm_backend, options)
        cleaner = cls(backend, saved["file_path"], state_file=state_file, **kwargs)
        cleaner.ctx.resumed = True
        checkpoint.restore(cleaner.ctx, saved)
        return cleaner

    # ------------------------------------------------------------------ the loop
    def run(self) -> RunResult:
        """Process every chunk not yet done, write cleaning_functions.py and the report, and return
        what happened."""
        ctx = self.ctx  # the backend, the input as a file, the spec and the paths: built here
        if not Path(ctx.file_path).is_file():
            raise FileNotFoundError(f"data file not found: {ctx.file_path}")
        with state_lock(self.state_file):  # one run per state file: a second one fails at once
            try:
                return self._run()
            finally:
                self.ctx.gate.close()  # the persistent sandbox child that profiles each chunk

    def _run(self) -> RunResult:
        started = time.monotonic()
        resumed = checkpoint.load_matching_state(self.ctx, self.state_file)
        state = self.ctx.state
        saved_chunks, state.total_chunks = state.total_chunks, self.ctx.source.count()
        checkpoint.check_input(self.ctx, self.state_file, saved_chunks)
        prepare_prompt(self.ctx)  # schema, spec, the goals' conversions, the static prefix
        state.metrics_sample = (
            MetricsSample(self.settings.metrics_sample, self.settings.seed)
            if self.settings.track_metrics
            else None
        )
        result = RunResult(
            output_path=self.settings.output_path,
            functions=[],
            chunks_total=state.total_chunks,
            resumed_from_chunk=resumed,
        )

        for index, records in enumerate(self._chunks()):
            if index <= state.last_completed_chunk:
                continue
            self._emit(
                "chunk_start",
                chunk_index=index,
                records=len(records),
                functions=len(state.functions),
            )
            added = len(state.functions)
            dry = self.settings.dry_run
            status = (
                self._analyze_chunk(records, index) if dry else self._process_chunk(records, index)
            )
            self.ctx.watch.record(status, len(state.functions) - added)
            result.chunks_processed += 1
            result.chunks_clean += status in ("clean", "clean_by_profile")
            result.chunks_max_iterations += status == "max_iterations"
            state.last_completed_chunk = index
            self._save()
            self._emit("chunk_done", chunk_index=index, status=status)
            # a saturation check's call belongs to no iteration
            self.ctx.where.update(chunk_index=index, iteration=0)
            if not dry and self.ctx.watch.should_stop(self.ctx.client, state.functions):
                result.stopped_early = True
                self._emit(
                    "early_termination",
                    chunk_index=index,
                    chunks_processed=result.chunks_processed,
                    reasoning=self.ctx.watch.last.reasoning if self.ctx.watch.last else "",
                )
                break
        return finish_run(self.ctx, result, started)

    def get_improvement_report(self) -> ImprovementReport | None:
        """Quality before/after on a sample of the records seen (run with
        ``track_metrics=True``)."""
        return self.state.improvement

    def _analyze_chunk(self, records: list, index: int) -> str:
        """Dry run: report the chunk's issues (profile and model), write no code."""
        issues = detect_issues(self.ctx, records, index)
        self.ctx.state.issues.extend(issues)
        self._emit("issues_detected", chunk_index=index, issues=issues)
        return "analyzed"

    def _process_chunk(self, records: list, index: int) -> str:
        """Ask for one function at a time until the chunk is clean by the profile and the model."""
        visible, hidden = (
            split_holdout(records, self.settings.holdout_ratio, seed=self.settings.seed, salt=index)
            if self.settings.validate_runtime
            else (records, [])
        )
        # one sandbox round trip per chunk
        both = self.ctx.gate.apply(self.state.functions, visible + hidden)
        view = both[: len(visible)]
        self.ctx.gate.see(ChunkView(view, both[len(visible) :], raw=visible, raw_hidden=hidden))
        feedback: list[str] = []
        focus_field: str | None = None
        last_reply = ""
        open_failures, accepted = 0, 0  # accepted: functions from open-ended passes on this chunk
        self._emit("chunk_profile", chunk_index=index, open_issues=self.ctx.focus.counts(view))
        # attempts: the model's; the library's own one-liners cost no call
        iteration, attempts = 0, 0
        while attempts < self.settings.max_iterations:
            iteration += 1
            focus = self.ctx.focus.next(view)
            if (
                focus is None
                and self.ctx.focus.enabled
                and self._clean_by_profile(open_failures, accepted)
            ):
                return "clean_by_profile"
            self._emit("iteration", chunk_index=index, iteration=iteration)
            if (focus.field if focus else None) != focus_field:
                focus_field, feedback = (focus.field if focus else None), []
                if self.ctx.reviewer:
                    self.ctx.reviewer.new_task()
            hinted = hint_for(self.ctx, focus, view, index, iteration)  # the library's own: no call
            attempts += hinted is None
            last_reply = (
                hinted.code
                if hinted
                else self._call(
                    prompt_for(self.ctx, view, focus, feedback),
                    index,
                    iteration,
                    grammar=grammar_for(self.ctx, focus),
                )
            )
            try:
                parsed = hinted or parse_response(last_reply)
            except ParseError as exc:
                open_failures += focus is None
                self._failed(
                    focus, feedback, str(exc), "parse_error", chunk_index=index, iteration=iteration
                )
                continue
            if not parsed.has_function:
                if focus is None:
                    self.state.idle_chunks += accepted == 0
                    return "clean"
                self._failed(
                    focus,
                    feedback,
                    f"The field '{focus.field}' is not clean yet. {focus.issue} "
                    "Write the function.",
                    "not_clean",
                    chunk_index=index,
                    iteration=iteration,
                )
                continue
            verdict = self.ctx.gate.check(parsed, view, self.state.functions, focus)
            problem = verdict.problem or self._review(parsed, view, focus, verdict)
            if problem:
                open_failures += focus is None
                self.state.rejected.append((parsed.name, clip_text(problem, FEEDBACK_CHARS)))
                self._failed(
                    focus,
                    feedback,
                    f"Function `{parsed.name}` was rejected: {problem}",
                    "validation_failed",
                    chunk_index=index,
                    iteration=iteration,
                    function_name=parsed.name,
                    error=problem,
                )
                continue
            # an open-ended pass taught something new: keep asking on the next chunks
            if focus is None:
                accepted, self.state.idle_chunks = accepted + 1, 0
            feedback = []
            view = self._accept(
                parsed, verdict, view, focus, chunk_index=index, iteration=iteration
            )
        log.warning(
            "chunk %d/%d: still not clean after %d model attempts (max_iterations); moving on",
            index + 1,
            self.state.total_chunks,
            self.settings.max_iterations,
        )
        self._emit(
            "chunk_skipped",
            chunk_index=index,
            attempts=self.settings.max_iterations,
            last_reply=last_reply[-500:],
        )
        return "max_iterations"

    def _review(
        self, parsed: ParsedResponse, view: list, focus: FieldProfile | None, verdict: Verdict
    ) -> str | None:
        """Reflection, when on: feedback for a weak or duplicate candidate (see
        reflection.Reviewer); None accepts."""
        if self.ctx.reviewer is None or verdict.replaces:
            return None
        problem, crit = self.ctx.reviewer.review(
            parsed.code,
            parsed.name,
            view,
            self.state.functions,
            hidden=self.ctx.gate.hidden,
            target=focus.field if focus else None,
            expectations=self.ctx.focus.expectations,
            backend=self.ctx.client,
            timeout=self.settings.sandbox_timeout,
            csv_strings=self.ctx.focus.csv_strings,
        )
        if crit is not None:
            self._emit(
                "function_critiqued",
                function_name=parsed.name,
                score=crit.score,
                decision=crit.decision,
                dimensions=crit.dimensions,
            )
        return problem

    def _accept(
        self,
        parsed: ParsedResponse,
        verdict: Verdict,
        view: list,
        focus: FieldProfile | None,
        **where: int,
    ) -> list:
        """Add (or, for a re-sent name, replace) the function; the chunk as it now looks."""
        before = self.ctx.focus.counts(view)
        view = verdict.outputs if verdict.outputs is not None else view
        self.ctx.gate.advance(verdict)
        after = self.ctx.focus.counts(view)
        # the model fixed another field than the one asked for: credit that one
        credited = verdict.field
        entry = {
            "name": parsed.name,
            "docstring": parsed.docstring,
            "code": parsed.code,
            "field": credited or (focus.field if focus else None),
            "issue": (first_issue(parsed) if credited or not focus else focus.issue) or "",
            "issues_before": before,
            "issues_after": after,
            "chunk_index": where["chunk_index"],
            # checked again in the assembled file (judge.assembly)
            "examples": verdict.examples or [],
        }
        if verdict.replaces:
            slot = next(
                i for i, f in enumerate(self.state.functions) if f["name"] == verdict.replaces
            )
            self.state.functions[slot] = {
                **self.state.functions[slot],
                **{
                    k: v
                    for k, v in entry.items()
                    if k in ("docstring", "code", "issues_after", "examples")
                },
            }
            self.state.modifications.append(
                {
                    "name": parsed.name,
                    "chunk_index": where["chunk_index"],
                    "issues_before": before,
                    "issues_after": after,
                }
            )
            self._emit(
                "function_modified",
                function_name=parsed.name,
                issues_before=before,
                issues_after=after,
                **where,
            )
        else:
            self.state.functions.append(entry)
            self._emit(
                "function_generated",
                function_name=parsed.name,
                field=entry["field"],
                issues_before=before,
                issues_after=after,
                **where,
            )
        self.ctx.focus.fixed(focus)
        return view

    def _clean_by_profile(self, open_failures: int, accepted: int) -> bool:
        """The profile shows nothing left: stop after the open-ended pass found nothing it could
        fix.

        Without a model call when the open-ended passes of the last ``idle_chunks_before_skip``
        chunks found nothing (homogeneous data stops costing calls, so a run's cost does not grow
        with the file; off with ``call_every_chunk``, the reference design). Field functions do
        not count: the profile finds those issues on every chunk without the open pass. Otherwise
        after ``open_pass_attempts`` failed open-ended attempts on this chunk.
        """
        if (
            not self.settings.call_every_chunk
            and accepted == 0
            and open_failures == 0
            and self.state.idle_chunks >= self.settings.idle_chunks_before_skip
        ):
            return True
        if open_failures >= self.settings.open_pass_attempts:
            self.state.idle_chunks += accepted == 0
            return True
        return False

    def _failed(
        self, focus: FieldProfile | None, feedback: list[str], message: str, event: str, **fields
    ) -> None:
        """Record a failed attempt: feedback for the next prompt, an event, and the field's failure
        count.

        The message quotes what the model and the sandboxed code produced: it is clipped
        (``clip_text``).
        """
        message = clip_text(message, FEEDBACK_CHARS)
        feedback.append(message)
        self.ctx.focus.failed(focus, message)
        self.state.unusable_replies += event == "parse_error"
        self._emit(event, error=clip_text(fields.pop("error", message), FEEDBACK_CHARS), **fields)

    # ------------------------------------------------------------------ steps
    def _call(
        self,
        prompt: str,
        index: int,
        iteration: int,
        purpose: str = "generate",
        schema: dict | None = None,
        grammar: str | None = None,
    ) -> str:
        self.ctx.where.update(chunk_index=index, iteration=iteration)
        try:
            return self.ctx.client.call(prompt, purpose, schema=schema, grammar=grammar)
        except LLMCallError:
            self._save()  # never lose finished chunks; the error names the backend's failure
            raise

    def _on_llm_call(self, reply: LLMReply, purpose: str) -> None:
        """Every counted model call, also those of saturation, reflection and consolidation, is an
        event."""
        self._emit(
            "llm_call",
            **self.ctx.where,
            purpose=purpose or "generate",
            latency_ms=round(reply.latency_ms, 1),
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            cached_tokens=reply.cached_tokens,
            attempts=reply.attempts,
        )

    # ------------------------------------------------------------------ input
    def _chunks(self):
        """Chunks in the sampling order; records seen are counted for the report."""
        for records in self.ctx.source.chunks(self.state.metrics_sample):
            if self.ctx.source.index > self.state.last_completed_chunk:
                self.state.records_seen += len(records)
            yield records

    def _on_skip(self, skipped: parsers.SkippedRecord, chunk_index: int) -> None:
        if chunk_index <= self.state.last_completed_chunk:
            return  # reported in the run that processed this chunk
        self.state.skip_count += 1
        if len(self.state.skipped) < _MAX_SKIPS_KEPT:
            self.state.skipped.append(skipped)
        log.warning("%s:%d: skipped: %s", skipped.path, skipped.line, skipped.reason)
        self._emit("record_skipped", path=skipped.path, line=skipped.line, reason=skipped.reason)

    # ------------------------------------------------------------------ state
    def options(self) -> dict[str, Any]:
        """Every option of the run as the state file keeps it (``Options.to_dict``)."""
        return self.settings.to_dict()

    def _save(self) -> None:
        if self.state_file:
            save_state(self.state_file, checkpoint.snapshot(self.ctx))

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
                log.exception(
                    "on_progress callback raised on %r; further errors are ignored", event_type
                )
            self._callback_failed = True
