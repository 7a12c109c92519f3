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
from .options import BASICS, DEFAULTS, Options
from .options import Chunking, CrossRow, Goals, Judging, Metrics, ModelCalls, Optimizer, Output
from .types import BackendLike, ProgressCallback

# read -> model -> write -> optimizer -> run: the stages the loop drives
from .read import parsers
from .model.llm import LLMReply
from .model.response import parse_response
from .write.metrics import ImprovementReport
from .write.state import save_state
from .optimizer.saturation import SaturationWatch
from .run import checkpoint
from .run.asking import grammar_for, hint_for, prompt_for
from .run.attempts import (
    FEEDBACK_CHARS,
    accept,
    clean_by_profile,
    give_up,
    record_failure,
    retake_set_aside,
    review,
    show_chunk,
)
from .run.configure import build_context, settings_for
from .run.dry_run import analyze_chunk
from .run.events import llm_call_event, record_skip
from .run.finish import finish_interrupted, finish_run
from .run.lock import state_lock
from .run.result import RunResult
from .run.resume import resume_arguments
from .run.review import GoalsPlan, read_plan
from .run.setup import resolve_backend
from .run.start import start_run
from .run.state import RunContext, RunState

__all__ = ["DataCleaner", "RunResult"]

log = logging.getLogger("recursive_cleaner")
_STATE_NAMES = ("functions", "last_completed_chunk", "total_chunks", "cross_row_steps")


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
        self._asked = {k: values[k] for k in ("mode", "sleep", "restart", "log_calls")}
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
                log_calls=self._asked["log_calls"],
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

    def plan(self) -> "GoalsPlan":
        """The goals' reading before any function is written, with no model call (but the draft,
        when ``draft_spec`` asks for it): each field, what it will become, the clause that binds it,
        its examples; the fields left as they are and why; the rules across rows; what nothing
        binds. The spec is written to ``<output stem>.plan.spec.json`` (edit it, give it back as
        ``spec=``)."""
        ctx = self.ctx
        if not Path(ctx.file_path).is_file():
            raise FileNotFoundError(f"data file not found: {ctx.file_path}")
        return read_plan(ctx)

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
        # the state file resumed or refused, chunks counted, schema, spec and the prompt's prefix
        result = start_run(self.ctx, self.state_file)
        try:
            self._chunk_loop(result)
        except KeyboardInterrupt as exc:  # Ctrl-C: what was accepted is written, then re-raised
            # the state at the chunk's start, the first chunk's too: resume carries on from it
            checkpoint.save_interrupted(self.ctx, self.state_file)
            if type(exc) is KeyboardInterrupt:  # not a subclass: the CLI's SIGTERM exits at once
                finish_interrupted(self.ctx, result, started)
            raise
        return finish_run(self.ctx, result, started)

    def _chunk_loop(self, result: RunResult) -> None:
        state = self.ctx.state
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
                analyze_chunk(self.ctx, records, index)
                if dry
                else self._process_chunk(records, index)
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
                return

    def get_improvement_report(self) -> ImprovementReport | None:
        """Quality before/after on a sample of the records seen (run with
        ``track_metrics=True``)."""
        return self.state.improvement

    def _process_chunk(self, records: list, index: int) -> str:
        """Ask for one function at a time until the chunk is clean by the profile and the model."""
        view = show_chunk(self.ctx, records, index)  # the holdout split; one sandbox round trip
        feedback: list[str] = []
        focus_field: str | None = None
        last_reply = ""
        open_failures, accepted = 0, 0  # accepted: functions from open-ended passes on this chunk
        self._emit("chunk_profile", chunk_index=index, open_issues=self.ctx.focus.counts(view))
        view = retake_set_aside(self.ctx, view, index)
        # attempts: the model's; the library's own one-liners cost no call
        iteration, attempts = 0, 0
        asked: set = set()  # the fields the model was asked about (None: the open pass)
        while attempts < self.settings.max_iterations:
            iteration += 1
            focus = self.ctx.focus.next(view)
            if focus is None and clean_by_profile(self.ctx, open_failures, accepted, view):
                return "clean_by_profile"
            at = {"chunk_index": index, "iteration": iteration}
            self._emit("iteration", **at)
            if (focus.field if focus else None) != focus_field:
                focus_field, feedback = (focus.field if focus else None), []
                if self.ctx.reviewer:
                    self.ctx.reviewer.new_task()
            hinted = hint_for(self.ctx, focus, view, index, iteration)  # the library's own: no call
            attempts += hinted is None
            asked.update(() if hinted else [focus.field if focus else None])
            last_reply = (
                hinted.code
                if hinted
                else self._call(
                    prompt_for(self.ctx, view, focus, feedback),
                    index,
                    iteration,
                    grammar=grammar_for(self.ctx, focus, view),
                )
            )
            try:
                parsed = hinted or parse_response(last_reply)
            except ParseError as exc:
                open_failures += record_failure(
                    self.ctx, focus, feedback, str(exc), "parse_error", **at
                )
                continue
            if not parsed.has_function:
                if focus is None:
                    self.state.idle_chunks += accepted == 0
                    return "clean"
                message = f"The field '{focus.field}' is not clean yet. {focus.issue} "
                message += "Write the function."
                record_failure(self.ctx, focus, feedback, message, "not_clean", **at)
                continue
            verdict = self.ctx.gate.check(parsed, view, self.state.functions, focus)
            problem = verdict.problem or review(self.ctx, parsed, view, focus, verdict)
            if problem:
                self.state.rejected.append((parsed.name, clip_text(problem, FEEDBACK_CHARS)))
                message = f"Function `{parsed.name}` was rejected: {problem}"
                open_failures += record_failure(
                    self.ctx,
                    focus,
                    feedback,
                    message,
                    "validation_failed",
                    **at,
                    function_name=parsed.name,
                    error=problem,
                )
                continue
            # an open-ended pass taught something new: keep asking on the next chunks
            if focus is None:
                accepted, self.state.idle_chunks = accepted + 1, 0
            feedback = []
            view = accept(self.ctx, parsed, verdict, view, focus, **at)
        return give_up(self.ctx, index, view, asked, last_reply)

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
        llm_call_event(self.ctx, reply, purpose)

    # ------------------------------------------------------------------ input
    def _chunks(self):
        """Chunks in the sampling order; records seen are counted for the report."""
        for records in self.ctx.source.chunks(self.state.metrics_sample):
            if self.ctx.source.index > self.state.last_completed_chunk:
                self.state.records_seen += len(records)
            yield records

    def _on_skip(self, skipped: parsers.SkippedRecord, chunk_index: int) -> None:
        record_skip(self.ctx, skipped, chunk_index)

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
