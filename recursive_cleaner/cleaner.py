"""DataCleaner: walk the file chunk by chunk and let the model write one tested function at a time."""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from .errors import LLMCallError, ParseError, clip_text
from .options import Options
from .toolkit import CATALOGUE
from .types import BackendLike, ProgressCallback
# read -> profiling -> model -> judge -> optimizer -> run: the stages the loop drives
from .read import parsers
from .read.documents import is_document, materialize_document
from .read.inputs import materialize_input
from .read.sampling import MetricsSample, split_holdout
from .read.source import ChunkSource
from .profiling import schema
from .profiling.focus import function_name
from .profiling.choose import choose_function
from .profiling.example_checks import format_examples
from .profiling.profiler import FieldProfile, format_issue_for_prompt
from .profiling.spec import load_spec
from .model.client import ModelClient
from .model.context import build_context, build_rich_context
from .model.grammar import field_reply, open_reply
from .model.llm import LLMReply
from .model.prompt import build_field_prompt, build_prompt, format_chunk, format_feedback, static_prefix
from .model.response import ParsedResponse, parse_response
from .model.field_tie import make_tie
from .model.spec_draft import build_spec_prompt, parse_spec_draft, spec_schema
from .write.metrics import ImprovementReport
from .write.state import load_state, save_state
from .judge.gate import ChunkView, Gate, Verdict
from .judge.reflection import ReflectionConfig, Reviewer
from .judge.validation import ALLOWED_IMPORTS
from .optimizer.grouping import TAGS_INSTRUCTION
from .optimizer.saturation import SaturationWatch
from .run import checkpoint
from .run.dry_run import detect_issues
from .run.finish import finish_run
from .run.lock import state_lock
from .run.result import RunResult
from .run.resume import resume_backend, resume_paths
from .run.setup import (backend_spec, beside, check_options, check_run_paths, first_issue, resolve_backend,
                        saved_backend_options)
from .run.state import ChunkFocus, RunContext, RunState

__all__ = ["DataCleaner", "RunResult"]

log = logging.getLogger("recursive_cleaner")
_TEXT_DEFAULT_CHARS = 4000
_MAX_SKIPS_KEPT = 100
FEEDBACK_CHARS = 2000  # one rejection as the next prompt, the state file and events quote it


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
        idle_chunks_before_skip: int = 1,
        call_every_chunk: bool = False,
        constrained: bool = True,
        chunk_chars: int = 12000,
        chunk_view: str = "varied",
        hint_functions: bool = True,
        toolkit: bool = True,
        rich_context: bool = False,
        reflection: ReflectionConfig | str | None = None,
        cross_row: bool = True,
        optimize: bool = False,
        optimize_threshold: int = 10,
        early_termination: bool = False,
        saturation_check_interval: int = 20,
        scope: str = "mentioned",
        spec: str | dict | None = None,
        draft_spec: bool = False,
        restart: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        check_options(chunk_size, max_iterations, mode, holdout_ratio, sampling_strategy, stratify_field, scope,
                      chunk_view)
        backend = resolve_backend(llm_backend)
        file_path = materialize_input(file_path)  # a DataFrame or list of dicts becomes a JSONL file
        if is_document(file_path) and Path(file_path).is_file():  # PDF, Word, HTML: their text, in text mode
            file_path = materialize_document(file_path)
        self.file_path = str(file_path)
        self.fmt = "text" if mode == "text" else parsers.detect_format(self.file_path)
        if mode == "structured" and self.fmt == "text":
            raise ValueError(f"{file_path}: cannot read as structured data (use .jsonl, .csv, .json, .parquet or .xlsx)")
        mode = "text" if self.fmt == "text" else "structured"
        if mode == "text" and chunk_size == 50:
            chunk_size = _TEXT_DEFAULT_CHARS  # 50 is the records default; text is chunked by characters
        if spec is not None:
            load_spec(spec)  # a spec file that cannot be used fails here, naming what is wrong
        self.reflection = ReflectionConfig(mode=reflection) if isinstance(reflection, str) else reflection
        self.settings = Options(
            chunk_size=chunk_size, instructions=instructions, max_iterations=max_iterations,
            context_budget=context_budget, validate_runtime=validate_runtime, schema_sample_size=schema_sample_size,
            mode=mode, output_path=output_path, holdout_ratio=holdout_ratio, sampling_strategy=sampling_strategy,
            stratify_field=stratify_field, seed=seed, track_metrics=track_metrics or ground_truth is not None,
            ground_truth=ground_truth, metrics_sample=metrics_sample, report_path=beside(report_path, output_path),
            dry_run=dry_run, llm_attempts=llm_attempts, sandbox_timeout=sandbox_timeout,
            profile_fields=profile_fields, max_field_attempts=max_field_attempts,
            open_pass_attempts=open_pass_attempts, idle_chunks_before_skip=idle_chunks_before_skip,
            call_every_chunk=call_every_chunk, constrained=constrained,
            chunk_chars=chunk_chars, chunk_view=chunk_view, hint_functions=hint_functions, toolkit=toolkit,
            rich_context=rich_context,
            reflection=None if self.reflection is None else asdict(self.reflection), cross_row=cross_row,
            optimize=optimize, optimize_threshold=optimize_threshold, early_termination=early_termination,
            saturation_check_interval=saturation_check_interval, scope=scope,
            spec=str(spec) if isinstance(spec, Path) else spec, draft_spec=draft_spec,
            backend=backend_spec(llm_backend) or backend_spec(backend),
            backend_options=saved_backend_options(llm_backend) or saved_backend_options(backend))
        check_run_paths(self.file_path, output_path, self.settings.report_path, state_file, ground_truth)
        self.on_progress, self.state_file = on_progress, state_file
        self._callback_failed = False
        focus = ChunkFocus(enabled=profile_fields and mode == "structured" and validate_runtime,
                           max_attempts=max_field_attempts)
        self.ctx = RunContext(
            options=self.settings, state=RunState(),
            client=ModelClient(backend, attempts=llm_attempts, sleep=sleep, on_call=self._on_llm_call),
            source=ChunkSource(self.file_path, self.fmt, chunk_size, strategy=sampling_strategy,
                               stratify_field=stratify_field, seed=seed, on_skip=self._on_skip),
            gate=Gate(focus, mode=mode, validate_runtime=validate_runtime, timeout=sandbox_timeout,
                      allow_modify=rich_context),
            focus=focus, watch=SaturationWatch(saturation_check_interval, enabled=early_termination),
            file_path=self.file_path, call=self._call, emit=self._emit,
            reviewer=Reviewer(self.reflection) if self.reflection else None, restart=restart)

    # ------------------------------------------------------------------ what the run holds
    state = property(lambda self: self.ctx.state, doc="What the run has learned: functions, steps, counts.")
    backend = property(lambda self: self.ctx.client.backend, doc="The backend the run calls.")
    stats = property(lambda self: self.ctx.client.stats, doc="Model calls, tokens and latency of the run.")
    functions = property(lambda self: self.ctx.state.functions, doc="The accepted functions (dicts).")
    last_completed_chunk = property(lambda self: self.ctx.state.last_completed_chunk)
    total_chunks = property(lambda self: self.ctx.state.total_chunks)
    cross_row_steps = property(lambda self: self.ctx.state.cross_row_steps)
    watch = property(lambda self: self.ctx.watch)
    mode = property(lambda self: self.settings.mode)
    chunk_size = property(lambda self: self.settings.chunk_size)
    instructions = property(lambda self: self.settings.instructions)
    output_path = property(lambda self: self.settings.output_path)
    report_path = property(lambda self: self.settings.report_path)

    def __getattr__(self, name: str) -> Any:
        """Any other option by name (``cleaner.seed``, ``cleaner.holdout_ratio``): read from ``settings``."""
        settings = self.__dict__.get("settings")
        if settings is not None and name in Options.__dataclass_fields__:
            return getattr(settings, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @classmethod
    def resume(cls, state_file: str, llm_backend: BackendLike | str | None = None, **options: Any) -> "DataCleaner":
        """Rebuild a cleaner from its state file: progress, functions and options as saved; FileNotFoundError /
        ValueError (StateFileError) if it cannot.

        The state file never chooses where data goes or files are written (``run.resume``):
        ``llm_backend`` None is the default backend (``$RECURSIVE_CLEANER_BACKEND``, else "local"),
        and a state file made with another one is refused, naming it, until it is given again;
        the functions go to ``output_path`` if given, else ``cleaning_functions.py`` beside the
        state file (the report beside them), and a state file naming other paths is refused until
        they are given. ``options`` override saved options.
        """
        saved = load_state(state_file)
        kept = Options.from_dict({**saved.get("options", {}), "chunk_size": saved["chunk_size"],
                                  "instructions": saved["instructions"]}).to_dict()
        backend, backend_options = resume_backend(state_file, saved.get("options", {}), llm_backend)
        if backend_options:
            backend = resolve_backend(backend, **backend_options)
        kept.pop("backend"), kept.pop("backend_options")
        kept.update(resume_paths(state_file, saved.get("options", {}), options))
        if isinstance(kept.get("reflection"), dict):
            kept["reflection"] = ReflectionConfig(**kept["reflection"])
        cleaner = cls(backend, saved["file_path"], state_file=state_file, **{**kept, **options})
        cleaner.ctx.resumed = True
        checkpoint.restore(cleaner.ctx, saved)
        return cleaner

    # ------------------------------------------------------------------ the loop
    def run(self) -> RunResult:
        """Process every chunk not yet done, write cleaning_functions.py and the report, and return what happened."""
        if not Path(self.file_path).is_file():
            raise FileNotFoundError(f"data file not found: {self.file_path}")
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
        self._prepare_prompt()
        state.metrics_sample = MetricsSample(self.settings.metrics_sample, self.settings.seed) \
            if self.settings.track_metrics else None
        result = RunResult(output_path=self.settings.output_path, functions=[], chunks_total=state.total_chunks,
                           resumed_from_chunk=resumed)

        for index, records in enumerate(self._chunks()):
            if index <= state.last_completed_chunk:
                continue
            self._emit("chunk_start", chunk_index=index, records=len(records), functions=len(state.functions))
            added = len(state.functions)
            dry = self.settings.dry_run
            status = self._analyze_chunk(records, index) if dry else self._process_chunk(records, index)
            self.ctx.watch.record(status, len(state.functions) - added)
            result.chunks_processed += 1
            result.chunks_clean += status in ("clean", "clean_by_profile")
            result.chunks_max_iterations += status == "max_iterations"
            state.last_completed_chunk = index
            self._save()
            self._emit("chunk_done", chunk_index=index, status=status)
            self.ctx.where.update(chunk_index=index, iteration=0)  # a saturation check's call belongs to no iteration
            if not dry and self.ctx.watch.should_stop(self.ctx.client, state.functions):
                result.stopped_early = True
                self._emit("early_termination", chunk_index=index, chunks_processed=result.chunks_processed,
                           reasoning=self.ctx.watch.last.reasoning if self.ctx.watch.last else "")
                break
        return finish_run(self.ctx, result, started)

    def get_improvement_report(self) -> ImprovementReport | None:
        """Quality before/after on a sample of the records seen (run with ``track_metrics=True``)."""
        return self.ctx.state.improvement

    def _analyze_chunk(self, records: list, index: int) -> str:
        """Dry run: report the chunk's issues (profile and model), write no code."""
        issues = detect_issues(self.ctx, records, index)
        self.ctx.state.issues.extend(issues)
        self._emit("issues_detected", chunk_index=index, issues=issues)
        return "analyzed"

    def _process_chunk(self, records: list, index: int) -> str:
        """Ask for one function at a time until the chunk is clean by the profile and the model."""
        visible, hidden = split_holdout(records, self.settings.holdout_ratio, seed=self.settings.seed, salt=index) \
            if self.settings.validate_runtime else (records, [])
        both = self.ctx.gate.apply(self.state.functions, visible + hidden)  # one sandbox round trip per chunk
        view = both[:len(visible)]
        self.ctx.gate.see(ChunkView(view, both[len(visible):], raw=visible, raw_hidden=hidden))
        feedback: list[str] = []
        focus_field: str | None = None
        last_reply = ""
        open_failures, accepted = 0, 0  # accepted: functions from open-ended passes on this chunk
        self._emit("chunk_profile", chunk_index=index, open_issues=self.ctx.focus.counts(view))
        iteration, attempts = 0, 0  # attempts: the model's; the library's own one-liners cost no call
        while attempts < self.settings.max_iterations:
            iteration += 1
            focus = self.ctx.focus.next(view)
            if focus is None and self.ctx.focus.enabled and self._clean_by_profile(open_failures, accepted):
                return "clean_by_profile"
            self._emit("iteration", chunk_index=index, iteration=iteration)
            if (focus.field if focus else None) != focus_field:
                focus_field, feedback = (focus.field if focus else None), []
                if self.ctx.reviewer:
                    self.ctx.reviewer.new_task()
            hinted = self._hint(focus, view, index, iteration)  # the library's own toolkit call: no model call
            attempts += hinted is None
            last_reply = hinted.code if hinted else self._call(self._prompt(view, focus, feedback), index, iteration,
                                                               grammar=self._grammar(focus))
            try:
                parsed = hinted or parse_response(last_reply)
            except ParseError as exc:
                open_failures += focus is None
                self._failed(focus, feedback, str(exc), "parse_error", chunk_index=index, iteration=iteration)
                continue
            if not parsed.has_function:
                if focus is None:
                    self.state.idle_chunks += accepted == 0
                    return "clean"
                self._failed(focus, feedback, f"The field '{focus.field}' is not clean yet. {focus.issue} "
                             "Write the function.", "not_clean", chunk_index=index, iteration=iteration)
                continue
            verdict = self.ctx.gate.check(parsed, view, self.state.functions, focus)
            problem = verdict.problem or self._review(parsed, view, focus, verdict)
            if problem:
                open_failures += focus is None
                self.state.rejected.append((parsed.name, clip_text(problem, FEEDBACK_CHARS)))
                self._failed(focus, feedback, f"Function `{parsed.name}` was rejected: {problem}",
                             "validation_failed", chunk_index=index, iteration=iteration,
                             function_name=parsed.name, error=problem)
                continue
            if focus is None:  # an open-ended pass taught something new: keep asking on the next chunks
                accepted, self.state.idle_chunks = accepted + 1, 0
            feedback = []
            view = self._accept(parsed, verdict, view, focus, chunk_index=index, iteration=iteration)
        log.warning("chunk %d/%d: still not clean after %d model attempts (max_iterations); moving on", index + 1,
                    self.state.total_chunks, self.settings.max_iterations)
        self._emit("chunk_skipped", chunk_index=index, attempts=self.settings.max_iterations, last_reply=last_reply[-500:])
        return "max_iterations"

    def _review(self, parsed: ParsedResponse, view: list, focus: FieldProfile | None, verdict: Verdict) -> str | None:
        """Reflection, when on: feedback for a weak or duplicate candidate (see reflection.Reviewer); None accepts."""
        if self.ctx.reviewer is None or verdict.replaces:
            return None
        problem, crit = self.ctx.reviewer.review(
            parsed.code, parsed.name, view, self.state.functions, hidden=self.ctx.gate.hidden,
            target=focus.field if focus else None, expectations=self.ctx.focus.expectations,
            backend=self.ctx.client, timeout=self.settings.sandbox_timeout,
            csv_strings=self.ctx.focus.csv_strings)
        if crit is not None:
            self._emit("function_critiqued", function_name=parsed.name, score=crit.score, decision=crit.decision,
                       dimensions=crit.dimensions)
        return problem

    def _accept(self, parsed: ParsedResponse, verdict: Verdict, view: list, focus: FieldProfile | None,
                **where: int) -> list:
        """Add (or, for a re-sent name, replace) the function; the chunk as it now looks."""
        before = self.ctx.focus.counts(view)
        view = verdict.outputs if verdict.outputs is not None else view
        self.ctx.gate.advance(verdict)
        after = self.ctx.focus.counts(view)
        credited = verdict.field  # the model fixed another field than the one asked for: credit that one
        entry = {"name": parsed.name, "docstring": parsed.docstring, "code": parsed.code,
                 "field": credited or (focus.field if focus else None),
                 "issue": (first_issue(parsed) if credited or not focus else focus.issue) or "",
                 "issues_before": before, "issues_after": after, "chunk_index": where["chunk_index"],
                 "examples": verdict.examples or []}  # checked again in the assembled file (judge.assembly)
        if verdict.replaces:
            slot = next(i for i, f in enumerate(self.state.functions) if f["name"] == verdict.replaces)
            self.state.functions[slot] = {**self.state.functions[slot], **{k: v for k, v in entry.items() if k in
                                                              ("docstring", "code", "issues_after", "examples")}}
            self.state.modifications.append({"name": parsed.name, "chunk_index": where["chunk_index"],
                                        "issues_before": before, "issues_after": after})
            self._emit("function_modified", function_name=parsed.name, issues_before=before, issues_after=after,
                       **where)
        else:
            self.state.functions.append(entry)
            self._emit("function_generated", function_name=parsed.name, field=entry["field"],
                       issues_before=before, issues_after=after, **where)
        self.ctx.focus.fixed(focus)
        return view

    def _clean_by_profile(self, open_failures: int, accepted: int) -> bool:
        """The profile shows nothing left: stop after the open-ended pass found nothing it could fix.

        Without a model call when the open-ended passes of the last ``idle_chunks_before_skip``
        chunks found nothing (homogeneous data stops costing calls, so a run's cost does not grow
        with the file; off with ``call_every_chunk``, the reference design). Field functions do
        not count: the profile finds those issues on every chunk without the open pass. Otherwise
        after ``open_pass_attempts`` failed open-ended attempts on this chunk.
        """
        if (not self.settings.call_every_chunk and accepted == 0 and open_failures == 0
                and self.state.idle_chunks >= self.settings.idle_chunks_before_skip):
            return True
        if open_failures >= self.settings.open_pass_attempts:
            self.state.idle_chunks += accepted == 0
            return True
        return False

    def _failed(self, focus: FieldProfile | None, feedback: list[str], message: str, event: str, **fields) -> None:
        """Record a failed attempt: feedback for the next prompt, an event, and the field's failure count.

        The message quotes what the model and the sandboxed code produced: it is clipped (``clip_text``).
        """
        message = clip_text(message, FEEDBACK_CHARS)
        feedback.append(message)
        self.ctx.focus.failed(focus, message)
        self.state.unusable_replies += event == "parse_error"
        self._emit(event, error=clip_text(fields.pop("error", message), FEEDBACK_CHARS), **fields)

    def _prompt(self, view: list, focus: FieldProfile | None, feedback: list[str]) -> str:
        context = (build_rich_context if self.settings.rich_context else build_context)(self.state.functions, self.settings.context_budget)
        if focus is None:
            hidden = self._left_alone() if self.settings.mode == "structured" else set()
            records = [{k: v for k, v in r.items() if k not in hidden} if isinstance(r, dict) and hidden else r
                       for r in view]  # the open pass sees only the fields it may change
            shown = format_chunk(records, self.settings.mode, max_chars=self.settings.chunk_chars,
                                 view=self.settings.chunk_view)
            return build_prompt(self.settings.instructions, context, shown, mode=self.settings.mode,
                                feedback=format_feedback(feedback), prefix=self.state.prefix,
                                records=len(view) if self.settings.mode == "structured" else None)
        name = self._field_name(focus)
        spec = self.ctx.focus.spec
        examples = spec.fields[focus.field].examples if spec and focus.field in spec.fields else ()
        return build_field_prompt(self.state.prefix, context, field=focus.field, issue=format_issue_for_prompt(focus),
                                  name=name, feedback=format_feedback(feedback), examples=format_examples(examples))

    def _hint(self, focus: FieldProfile | None, view: list, index: int, iteration: int) -> ParsedResponse | None:
        """The first attempt at a field (``hint_functions``), once per field and run: the toolkit call the library
        chooses by the goals' examples and the data (``profiling.choose``); None when no call passes them."""
        if focus is None or not self.settings.hint_functions or self.settings.mode != "structured" \
                or focus.field in self.ctx.hinted:
            return None
        self.ctx.hinted.add(focus.field)
        fields = self.ctx.focus
        chosen = choose_function(focus, self._field_name(focus), view, spec=fields.spec,
                                 expectations=fields.expectations, csv_strings=fields.csv_strings,
                                 frozen=fields.frozen, kept=fields.kept)
        if chosen is None:
            return None
        self._emit("function_from_hint", chunk_index=index, iteration=iteration, field=focus.field,
                   function_name=self._field_name(focus), call=chosen.candidate.call())
        return ParsedResponse(name=self._field_name(focus), docstring=chosen.docstring, code=chosen.code)

    def _field_name(self, focus: FieldProfile) -> str:
        return function_name(focus.field, {f["name"] for f in self.state.functions})

    def _grammar(self, focus: FieldProfile | None) -> str | None:
        """The GBNF of the reply asked for (``constrained``): one function named as asked, or the open pass."""
        if not self.settings.constrained:
            return None
        param = "text" if self.settings.mode == "text" else "record"
        return (open_reply(param) if focus is None else field_reply(self._field_name(focus), param)).gbnf()

    # ------------------------------------------------------------------ steps
    def _call(self, prompt: str, index: int, iteration: int, purpose: str = "generate",
              schema: dict | None = None, grammar: str | None = None) -> str:
        self.ctx.where.update(chunk_index=index, iteration=iteration)
        try:
            return self.ctx.client.call(prompt, purpose, schema=schema, grammar=grammar)
        except LLMCallError:
            self._save()  # never lose finished chunks; the error names the backend's failure
            raise

    def _on_llm_call(self, reply: LLMReply, purpose: str) -> None:
        """Every counted model call, also those of saturation, reflection and consolidation, is an event."""
        self._emit("llm_call", **self.ctx.where, purpose=purpose or "generate", latency_ms=round(reply.latency_ms, 1),
                   prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                   cached_tokens=reply.cached_tokens, attempts=reply.attempts)

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

    def _prepare_prompt(self) -> None:
        """Schema, the static prompt prefix, and the format each field should have (from the instructions)."""
        info = None
        if self.settings.mode == "structured" and self.settings.schema_sample_size > 0:
            info = schema.infer_schema(self.file_path, self.settings.schema_sample_size)
        options = self.settings
        if info:
            check = self._field_samples(info)
            draft = None
            if options.draft_spec and options.spec is None and self.state.spec_draft is not None:
                draft = self.state.spec_draft  # a resumed run: the draft it already asked for
            elif options.draft_spec and options.spec is None:  # the model's reading, a second opinion
                structured = self.ctx.client.can("json")
                prompt = build_spec_prompt(options.instructions, check, structured=structured)
                reply = self._call(prompt, 0, 0, purpose="spec", schema=spec_schema(info["fields"]))
                draft = self.state.spec_draft = parse_spec_draft(reply, info["fields"])
            tie = None if options.spec is not None else make_tie(  # a clause the rules tie to no field
                self.ctx.client.backend, info["fields"], check, known=self.state.spec_ties,
                call=lambda prompt, gbnf: self._call(prompt, 0, 0, purpose="spec", grammar=gbnf),
                constrained=options.constrained)
            self.state.spec = self.ctx.focus.learn(options.instructions, info["fields"], info.get("samples"),
                                                   scope=options.scope, spec=options.spec, check=check, draft=draft,
                                                   tie=tie)
            self._emit("spec_ready", fields=self.state.spec.to_dict()["fields"], scope=self.state.spec.scope)
            self._add_conversions(self.state.spec.conversions)
        shown = schema.format_schema_for_prompt(info, left_alone=self._left_alone()) if info else ""
        self.state.prefix = static_prefix(
            options.instructions, schema=shown, mode=options.mode,
            allowed_imports=", ".join(sorted(m for m in ALLOWED_IMPORTS if not m.startswith("recursive_cleaner"))),
            toolkit=CATALOGUE if options.toolkit else "", extra_rules=TAGS_INSTRUCTION if options.optimize else "")

    def _add_conversions(self, conversions) -> None:
        """The goals' unit conversions (``spec.conversions``) as the first functions, written by the library: no
        model call, no judge (the toolkit's ``convert_unit`` changes only the rows in the source unit)."""
        have = {f["code"].replace(f["name"], "") for f in self.state.functions}  # a resumed run has them
        taken = {f["name"] for f in self.state.functions}
        slot = 0
        for conv in conversions:
            name = function_name(conv.value, taken).replace("fix_", "convert_", 1)
            docstring, code = conv.function(name)
            if code.replace(name, "") in have:
                continue
            taken.add(name)
            self.state.functions.insert(slot, {"name": name, "docstring": docstring, "code": code, "field": conv.value,
                                               "issue": conv.describe(), "issues_before": {}, "issues_after": {},
                                               "chunk_index": 0, "examples": []})
            slot += 1
            self._emit("function_generated", function_name=name, field=conv.value, issues_before={},
                       issues_after={}, chunk_index=0, iteration=0)

    def _left_alone(self) -> set[str]:
        """The fields no function may write: out of the goals' scope, or left as they are (never shown as work)."""
        return self.ctx.focus.frozen | self.ctx.focus.protected

    def _field_samples(self, info: dict, records: int = 200) -> dict[str, list]:
        """Each field's values in the first ``records`` records (the data's check of the spec needs more than 3)."""
        head = [r for r in self.ctx.source.head(records) if isinstance(r, dict)]
        if not head:
            return info.get("samples") or {}
        return {f: [r.get(f) for r in head if f in r] for f in info["fields"]}

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
                log.exception("on_progress callback raised on %r; further errors are ignored", event_type)
            self._callback_failed = True
