"""May a candidate function join the accepted ones? Safety, the sandbox run, the profile, the
held-out records."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..profiling.example_checks import (
    example_cases,
    example_failures,
    examples_refusal,
    maps_example,
)
from ..profiling.focus import FieldFocus
from ..profiling.improvement import judge_holdout, untouchable_change
from ..write.module import render_module
from ..profiling.profiler import FieldProfile
from ..model.response import ParsedResponse
from ..write.names import name_problems
from .assembly import pick_examples
from .label_check import label_inputs, labels_problem
from .sandbox import SandboxWorker, run_in_sandbox
from .validation import check_code_safety, validate_function_detailed
from .verdict import ChunkView, Verdict

__all__ = ["Gate"]


@dataclass
class Gate:
    """The checks every candidate passes, in order, before it is accepted (in the sandbox).

    The loop hands it each chunk as a :class:`ChunkView` (``see``) and each accepted verdict
    (``advance``); the gate never reads the loop's state otherwise.
    """

    focus: FieldFocus
    mode: str = "structured"
    validate_runtime: bool = True
    timeout: float = 10.0
    allow_modify: bool = False
    chunk: ChunkView = field(default_factory=ChunkView)
    _worker: SandboxWorker | None = field(default=None, repr=False)
    _worker_code: str = field(default="", repr=False)
    # (names and code, module): rendered once per set
    _rendered: tuple = field(default=((), ""), repr=False)

    def see(self, chunk: ChunkView) -> None:
        """The chunk the next candidates are judged on."""
        self.chunk = chunk

    def advance(self, verdict: Verdict) -> None:
        """A candidate was accepted: judge the next ones on the chunk as it leaves it."""
        self.chunk = self.chunk.after(verdict)

    @property
    def hidden(self) -> list:
        """The held-out records of the chunk, as the accepted functions leave them."""
        return self.chunk.hidden

    @property
    def raw(self) -> list:
        """The chunk's records shown to the model, as they came in."""
        return self.chunk.raw

    @property
    def raw_hidden(self) -> list:
        """The chunk's held-out records, as they came in."""
        return self.chunk.raw_hidden

    def check(
        self,
        parsed: ParsedResponse,
        records: list,
        functions: list[dict],
        target: FieldProfile | None = None,
    ) -> Verdict:
        """Why the candidate cannot be accepted, or its outputs on ``records`` and on the held-out
        records."""
        name, code = parsed.name, parsed.code
        if (
            self.allow_modify
            and self.validate_runtime
            and any(f["name"] == name for f in functions)
        ):
            return self.check_modification(parsed, records, functions)
        if name == "clean_data" or any(f["name"] == name for f in functions):
            return Verdict(_already_exists(name, parsed))
        problems = check_code_safety(code) or name_problems(code, functions)
        if problems:
            return Verdict(" ".join(problems))
        if not self.validate_runtime:
            return Verdict(None)
        report = validate_function_detailed(
            code, records, name, expect=self._expect, timeout=self.timeout
        )
        if not report.ok:
            return Verdict(report.error or "validation failed")
        problem, credited = self.focus.judge(records, report.outputs, target)
        if problem:
            return Verdict(problem)
        written_for = credited or (target.field if target is not None else None)
        # the library's own call may leave an example as it came, never write it wrong; a model's
        # function must map each example of its field exactly
        strict = {written_for} - {None} if not parsed.hint else set()
        problem, not_done = self._check_examples(code, name, functions, records, strict)
        if problem:
            return Verdict(problem)
        problem = self._check_labels(code, name, functions, {written_for} - {None})
        if problem:
            return Verdict(problem)
        problem, hidden = self._check_hidden(code, name)
        if problem:
            return Verdict(problem)
        return Verdict(
            None,
            report.outputs,
            hidden,
            field=credited,
            examples=pick_examples(records, report.outputs, report.errors),
            not_done=[c for c in not_done if c[0] == written_for] or None,
        )

    def _probes(self, records: list) -> tuple[list, list[dict]]:
        """(field, input, output) of the goals' examples, and one record per example holding its
        input."""
        spec = self.focus.spec
        cases = (
            example_cases(spec.examples()) if spec is not None and self.mode == "structured" else []
        )
        template = next((r for r in (self.raw or records) if isinstance(r, dict)), None)
        if not cases or template is None:
            return [], []
        return cases, [{**template, name: a} for name, a, _ in cases]

    def _check_examples(
        self, code: str, name: str, functions: list[dict], records: list, strict: set
    ) -> tuple[str | None, list]:
        """(why the candidate breaks the goals' examples, fed through the accepted functions and
        then it, or None; the examples it leaves as they came to it).

        In the field it is written for (``strict``) each example's input must become exactly its
        output; in another field it may leave the value as the accepted functions hand it on.
        """
        cases, probes = self._probes(records)
        if not cases:
            return None, []
        inputs = self.apply(functions, probes)
        res = run_in_sandbox(code, name, inputs, timeout=self.timeout)
        if not res.ok:
            return f"On the goals' examples it failed: {res.error or 'it did not run'}", []
        problem = examples_refusal(
            example_failures(
                cases,
                res.outputs,
                errors=res.errors,
                inputs=inputs,
                strict=strict,
                expectations=self.focus.expectations,
            )
        )
        left = [
            (f, a, b)
            for (f, a, b), came, out in zip(cases, inputs, res.outputs)
            if a != b
            and isinstance(came, dict)
            and isinstance(out, dict)
            and out.get(f) == came.get(f)
            and not maps_example(out.get(f), b, (self.focus.expectations or {}).get(f))
        ]
        return problem, left

    def _check_labels(self, code: str, name: str, functions: list, strict: set) -> str | None:
        """Why the candidate (or a chain: ``clean_data``, no ``functions``) breaks the user's
        corrected rows, fed through the accepted functions and then it, or None."""
        labels, exp = self.focus.labels, self.focus.expectations
        if labels is None or self.mode != "structured":
            return None
        inputs = self.apply(functions, label_inputs(labels))
        return labels_problem(
            labels, code, name, inputs, strict=strict, timeout=self.timeout, expectations=exp
        )

    def _check_hidden(self, code: str, name: str) -> tuple[str | None, list]:
        """The candidate must also run on the held-out records and leave them no worse."""
        if not self.hidden:
            return None, []
        report = validate_function_detailed(
            code, self.hidden, name, expect=self._expect, timeout=self.timeout
        )
        if not report.ok:
            return f"On records you were not shown: {report.error or 'validation failed'}", []
        if self.mode != "structured":
            return None, report.outputs
        return judge_holdout(
            self.hidden,
            report.outputs,
            self.focus.expectations,
            csv_strings=self.focus.csv_strings,
            frozen=self.focus.frozen,
            kept=self.focus.kept,
            harm=self.focus.harm,
        ), report.outputs

    def check_modification(
        self, parsed: ParsedResponse, current: list, functions: list[dict]
    ) -> Verdict:
        """A re-sent name replaces the old function if the chain then runs, changes something, and
        is no worse.

        The chain with the new version runs on the chunk as it came in (``raw``) and on the held-out
        records, and is compared with the chunk as the current functions leave it (``current``).
        """
        problems = check_code_safety(parsed.code) or name_problems(
            parsed.code, [f for f in functions if f["name"] != parsed.name]
        )
        if problems:
            return Verdict(" ".join(problems))
        chain = [
            {**f, "code": parsed.code, "docstring": parsed.docstring or f.get("docstring", "")}
            if f["name"] == parsed.name
            else f
            for f in functions
        ]
        source = render_module(chain, mode=self.mode)
        res = run_in_sandbox(source, "clean_data", self.raw, timeout=self.timeout)
        if not res.ok or any(err is not None for err in res.errors):
            error = res.error or next((e for e in res.errors if e), "failed in the sandbox")
            return Verdict(f"Your new version of `{parsed.name}` failed: {error}")
        untouchable = untouchable_change(
            self.raw,
            res.outputs,
            self.focus.frozen,
            self.focus.kept,
            csv_strings=bool(self.focus.csv_strings),
        )
        if untouchable:
            return Verdict(
                f"Your new version of `{parsed.name}` is refused: "
                + untouchable[0].lower()
                + untouchable[1:]
            )
        field_of = next((f.get("field") for f in functions if f["name"] == parsed.name), None)
        cases, probes = self._probes(current)
        if cases:
            ran = run_in_sandbox(source, "clean_data", probes, timeout=self.timeout)
            broke = (
                examples_refusal(
                    example_failures(
                        cases,
                        ran.outputs,
                        errors=ran.errors,
                        inputs=probes,
                        strict={field_of} - {None},
                        expectations=self.focus.expectations,
                    )
                )
                if ran.ok
                else f"On the goals' examples it failed: {ran.error or 'it did not run'}"
            )
            if broke:
                return Verdict(
                    f"Your new version of `{parsed.name}` is refused: "
                    + broke[0].lower()
                    + broke[1:]
                )
        broke = self._check_labels(source, "clean_data", [], {field_of} - {None})
        if broke:
            return Verdict(
                f"Your new version of `{parsed.name}` is refused: " + broke[0].lower() + broke[1:]
            )
        if res.outputs == current:
            return Verdict(
                f"Your new version of `{parsed.name}` changes nothing on this data; write a "
                "function "
                "with a new name for a different issue, or reply clean."
            )
        if self.mode == "structured":
            worse = judge_holdout(
                current,
                res.outputs,
                self.focus.expectations,
                csv_strings=self.focus.csv_strings,
                harm=self.focus.harm,
            )
            if worse:
                return Verdict(
                    f"Your new version of `{parsed.name}` is worse: "
                    + worse.replace("On records you were not shown it made", "it made")
                )
        hidden_out: list = []
        if self.raw_hidden:
            hid = run_in_sandbox(source, "clean_data", self.raw_hidden, timeout=self.timeout)
            if not hid.ok or any(err is not None for err in hid.errors):
                return Verdict(
                    f"Your new version of `{parsed.name}` failed on records you were not shown: "
                    f"{hid.error or next((e for e in hid.errors if e), '')}"
                )
            hidden_out = hid.outputs
            if self.mode == "structured":
                worse = judge_holdout(
                    self.hidden,
                    hidden_out,
                    self.focus.expectations,
                    csv_strings=self.focus.csv_strings,
                    frozen=self.focus.frozen,
                    kept=self.focus.kept,
                    harm=self.focus.harm,
                )
                if worse:
                    return Verdict(worse)
        alone = run_in_sandbox(parsed.code, parsed.name, self.raw, timeout=self.timeout)
        examples = pick_examples(self.raw, alone.outputs, alone.errors) if alone.ok else []
        return Verdict(None, res.outputs, hidden_out, replaces=parsed.name, examples=examples)

    @property
    def _expect(self) -> type:
        return str if self.mode == "text" else dict

    def apply(self, functions: list[dict], records: list) -> list:
        """``records`` as the accepted functions leave them (in the sandbox); unchanged if they
        cannot run."""
        if not functions or not self.validate_runtime or not records:
            return records
        key = tuple((f["name"], f["code"]) for f in functions)
        if key != self._rendered[0]:
            self._rendered = (key, render_module(functions, mode=self.mode))
        res = self._run_accepted(self._rendered[1], records)
        if not res.ok:
            return records
        return [
            out if err is None else rec for rec, out, err in zip(records, res.outputs, res.errors)
        ]

    def _run_accepted(self, code: str, records: list):
        """The accepted module on ``records`` in one persistent sandboxed child per module version.

        Every chunk is profiled after the accepted functions ran on it, also the chunks that cost no
        model call: a fresh child per chunk would make a big file's run grow with the file. The
        child is the same locked-down one ``apply`` uses; a failed batch ends it (the next one
        starts a new child), and a new function set gets a new child.
        """
        import math

        if self._worker is None or self._worker.closed or code != self._worker_code:
            self.close()
            worker = SandboxWorker(code, "clean_data", cpu_seconds=math.ceil(self.timeout) + 1)
            if not worker.start(timeout=self.timeout).ok:
                worker.close(kill=True)
                # says why, as before
                return run_in_sandbox(code, "clean_data", records, timeout=self.timeout)
            self._worker, self._worker_code = worker, code
        return self._worker.run_batch(records, timeout=self.timeout)

    def close(self) -> None:
        """End the persistent child of ``apply`` (the run's end; a new function set)."""
        worker, self._worker, self._worker_code = self._worker, None, ""
        if worker is not None:
            worker.close()


def _already_exists(name: str, parsed: ParsedResponse) -> str:
    """Feedback for a re-sent function: say it is applied already and point at the next issue the
    model listed."""
    others = [i.description for i in parsed.issues if not i.solved][1:]
    nxt = f' Your next unsolved issue is: "{others[0]}".' if others else ""
    return (
        f"`{name}` already exists and has already been applied to the data shown; mark that issue "
        f'solved="true" and do not write it again.{nxt} Write a function with a new name for a '
        "different issue, or reply clean if nothing is left."
    )
