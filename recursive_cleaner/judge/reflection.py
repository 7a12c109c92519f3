"""Reflection: critique a candidate cleaning function on dimensions MEASURED in the sandbox, before
acceptance.

The critique -> refine -> dedup pattern (``../shared/spec/05-pattern-reflection.md``), each
dimension measured on the records instead of guessed. The candidate runs in the sandbox on the
visible and held-out records, then once more on its own outputs; each dimension is a score in
[0, 1] with evidence (counts, example values):

- ``runs``: share of the records on which it returns a dict without raising (0 for all when the
  code breaks the safety policy, does not load, times out or attempts a refused operation);
- ``fixes_issue``: with a target field, the share of that field's wrong values
  (``profiler.issue_counts``) it removes; blanking a value (None, "" or the key removed) does not
  fix it. Without a target: 1.0 when the records' wrong values go down, 0.5 when it changes
  values the profile does not judge, 0.0 when it changes nothing or a field gets more wrong values;
- ``specific``: share of the fields it changed that it names: the target, else the fields its
  code writes (``dependencies.field_access``); 1.0 with "cannot tell" evidence when the code
  writes through dynamic keys only (``record[key]``) and there is no target;
- ``side_effects``: the worst of three checks: records that do not show the issue (the named
  fields with an open issue already conform) come back unchanged; no record loses a field;
  f(f(x)) == f(x).

The quality score is the weighted mean (``ReflectionConfig.weights``; by default the pattern's
0.3/0.3/0.2/0.2, its "actionable" read as "runs"). Its decision logic, with its thresholds:
score < ``discard_threshold`` (0.3) -> "discard"; score < ``accept_threshold`` (0.7) -> "refine";
else "accept". A dimension under its entry in ``minimums`` turns an "accept" into a "refine": by
default runs 1.0, fixes_issue 0.1 and specific 1.0, the library's own acceptance rules
(``improvement.judge_change``): a function that crashes on one record, fixes (almost) nothing
or changes a field it was not asked to is never accepted, whatever its other scores.

Model mode (``mode="model"``) adds one call through the run's ``ModelClient``: the model sees the
code, the measurements and the values it changed and judges ``correctness`` (are the new values
the right values?), which no measurement tells. It adds to the measurements and never replaces one:
``score = (1 - model_weight) * measured + model_weight * correctness`` (``model_weight`` 0.2, so
the model tips borderline scores). An unreadable reply or a failed call leaves the measured score,
and ``evidence["model"]`` says so. ``model_prompt`` / ``combine_model_reply`` do the same in two
steps for a caller that makes the call itself.

The refine loop lives in the cleaner: ``Critique.feedback()`` is the text for the next prompt.
The measuring is in ``reflection_measure``; the config, ``Critique`` and the counts in
``reflection_verdict``; model mode in ``reflection_model``; ``find_duplicate`` (the dedup step) in
``dedup``.
"""

from __future__ import annotations

import time
from typing import Callable

from .reflection_measure import DIMENSIONS, measure, plain_records
from .reflection_model import combine_model_reply, model_prompt
from .reflection_verdict import (
    DEFAULT_MINIMUMS,
    DEFAULT_WEIGHTS,
    MODEL_DIMENSION,
    MODES,
    Critique,
    ReflectionConfig,
    ReflectionStats,
)
from .dedup import code_similarity, find_duplicate
from ..errors import LLMCallError
from ..profiling.expectations import Expectation
from ..model.client import ModelClient, as_client
from ..model.llm import LLMStats
from ..types import LLMBackend

__all__ = [
    "DIMENSIONS",
    "MODEL_DIMENSION",
    "DEFAULT_WEIGHTS",
    "DEFAULT_MINIMUMS",
    "MODES",
    "Critique",
    "ReflectionConfig",
    "ReflectionStats",
    "critique",
    "model_prompt",
    "combine_model_reply",
    "find_duplicate",
    "code_similarity",
    "Reviewer",
]


def critique(
    code: str,
    name: str,
    records: list,
    *,
    hidden: list | None = None,
    target: str | None = None,
    expectations: dict[str, Expectation] | None = None,
    config: ReflectionConfig | None = None,
    backend: ModelClient | LLMBackend | None = None,
    timeout: float = 10.0,
    csv_strings: bool | None = None,
    stats: LLMStats | None = None,
    sleep: Callable[[float], None] = time.sleep,
    attempts: int = 3,
) -> Critique:
    """Measure function ``name`` of ``code`` on ``records`` (and ``hidden``) in the sandbox, score
    it and decide.

    ``target`` is the field it should fix (None for an open-ended function); ``expectations`` and
    ``csv_strings`` go to the profiler as in ``improvement.judge_change``. Model mode needs
    ``backend``: the run's ModelClient (its retries and stats), or a plain backend whose call is
    added to ``stats`` and tried up to ``attempts`` times with ``sleep``.
    """
    config = config or ReflectionConfig()
    if config.mode == "model" and backend is None:
        raise ValueError("mode='model' needs a backend")
    visible, held = plain_records(records, "records"), plain_records(hidden or [], "hidden")
    dims, evidence, examples = measure(
        code, name, visible, held, target, expectations, timeout, csv_strings
    )
    score = round(config.measured_score(dims), 4)
    decision, blocked = config.decide(score, dims)
    result = Critique(
        name,
        score,
        decision,
        dims,
        evidence,
        blocked,
        target,
        config.accept_threshold,
        dict(config.minimums),
        examples=examples,
    )
    if config.mode != "model":
        return result
    client = as_client(backend, stats=stats, attempts=attempts, sleep=sleep)
    try:
        reply = client.call(model_prompt(result, code), "reflection")
    except LLMCallError as exc:
        result.evidence["model"] = (
            f"the critique call failed ({exc}); the measured score {score:.2f} stands"
        )
        return result
    return combine_model_reply(result, reply, config)


class Reviewer:
    """The cleaner's reflection step for one run: dedup, critique, refine rounds per field,
    stats."""

    def __init__(self, config: ReflectionConfig) -> None:
        self.config = config
        self.stats = ReflectionStats()
        self.rounds = 0

    def new_task(self) -> None:
        """A new field (or the open-ended pass) is being worked on: its refine rounds start
        again."""
        self.rounds = 0

    def review(
        self,
        code: str,
        name: str,
        records: list,
        accepted: list[dict],
        *,
        hidden: list | None = None,
        target: str | None = None,
        expectations: dict | None = None,
        backend: ModelClient | LLMBackend | None = None,
        timeout: float = 10.0,
        stats: LLMStats | None = None,
        sleep: Callable[[float], None] = time.sleep,
        attempts: int = 3,
        csv_strings: bool | None = None,
    ) -> tuple[str | None, Critique | None]:
        """(feedback for the model, the critique): feedback None accepts the candidate.

        ``backend``: the run's ModelClient (model mode), or a backend with ``stats``, ``sleep`` and
        ``attempts`` as for :func:`critique`.

        A candidate still judged "refine" when the rounds are used up is accepted: it passed the
        cleaner's own checks, so reflection never accepts less than the run would without it.
        """
        duplicate = find_duplicate(code, name, accepted, threshold=self.config.dedup_threshold)
        if duplicate:
            self.stats.deduplicated += 1
            return (
                f"it does the same as `{duplicate}`, which already runs before yours; fix a "
                "different issue.",
                None,
            )
        if self.rounds == 0:
            self.stats.original += 1
        crit = critique(
            code,
            name,
            records,
            hidden=hidden,
            target=target,
            expectations=expectations,
            config=self.config,
            backend=backend,
            timeout=timeout,
            stats=stats,
            sleep=sleep,
            attempts=attempts,
            csv_strings=csv_strings,
        )
        if crit.decision == "accept" or (
            crit.decision == "refine" and self.rounds >= self.config.max_refine_rounds
        ):
            self.stats.final += 1
            return None, crit
        if crit.decision == "refine":
            self.rounds += 1
            self.stats.refined += 1
        else:
            self.stats.discarded += 1
        return crit.feedback(), crit
