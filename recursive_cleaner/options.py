"""DataCleaner's options, each declared once: a field of an option group, with default, help, flag.

``DataCleaner(...)`` takes the reference contract's parameters (``chunk_size``, ``instructions``,
...; declared in ``Basics``) and keyword-only groups, small frozen value objects that also take
a plain value where one says it all (``optimizer=True``, ``output="out/cf.py"``), the way httpx
takes ``Timeout(...)`` or a float: ``Chunking``, ``Judging``, ``ModelCalls``, ``CrossRow``,
``Optimizer``, ``Metrics``, ``Output``, ``Goals``. Every option also has a flat keyword
(``holdout_ratio``, ``track_metrics``, ``report_path``: the reference design's names) that
``DataCleaner`` takes as it always did; ``given_options.option_values`` reads both, refusing an
unknown keyword or an option given twice.

How an option is declared (``option(...)``, ``OptionSpec``, the group base, the flat class) is
``option_spec``. From the declaration (``OPTIONS``, one ``OptionSpec`` per option) come:

* ``Options``: the flat, frozen options of one run, saved whole in the state file under the
  flat names (the ``saved`` options, with ``backend`` and ``backend_options``) and restored by
  ``DataCleaner.resume`` from ``Options.from_dict``. ``backend`` is the backend's *spec string*
  (``"local"``, ``"openai:MODEL@URL"``), never an object and never a key; None when the run was
  given an object or a callable, and then ``resume`` needs a backend again. ``backend_options``
  are the keyword options that string was built with (``--backend-option``; plain values only,
  no secret-looking key: ``run.setup.saved_backend_options``).
* the command line's flags of ``generate`` / ``analyze`` (``ui.cli_options``);
* the table of docs/options.md (``option_table.options_table``; tests/test_options.py compares
  them).

What is not an option stays out: the data (``file_path``), the progress callback
(``on_progress``) and where state goes (``state_file``).
"""

from __future__ import annotations

import os
import time
from typing import Any, ClassVar

from .option_spec import OptionGroup, OptionSpec, flat_class, group_specs, option, option_group

__all__ = [
    "Options",
    "OptionSpec",
    "OPTIONS",
    "BY_NAME",
    "DEFAULTS",
    "GROUPS",
    "Basics",
    "BASICS",
    "Chunking",
    "Judging",
    "ModelCalls",
    "CrossRow",
    "Optimizer",
    "Metrics",
    "Output",
    "Goals",
]


@option_group
class Basics(OptionGroup):
    """The reference contract's own parameters of ``DataCleaner(...)`` (given by name, no group)."""

    instructions: str = option(
        "",
        "Cleaning goals, or @path to read them from a file.",
        flag=("-i", "--instructions"),
        metavar="TEXT|@FILE",
    )
    chunk_size: int = option(
        50, "Records per chunk (characters in text mode, default 4000 there).", low=1
    )
    max_iterations: int = option(5, "Model calls per chunk at most.", low=1, commands=("generate",))
    context_budget: int = option(8000, "Characters of earlier functions shown to the model.", low=1)
    validate_runtime: bool = option(
        True, "Run each candidate on the chunk's records in the sandbox before accepting it."
    )
    schema_sample_size: int = option(10, "Records read to infer the schema (0: none).", low=0)
    restart: bool = option(
        False, "Start afresh: an existing --state file is not resumed but overwritten.", saved=False
    )


@option_group
class Chunking(OptionGroup):
    """How the file is read and cut, in what order, and what of each chunk the model sees."""

    KEYWORD: ClassVar[str] = "chunking"
    mode: str = option(
        "auto",
        "How FILE is read: by its extension (auto), as records, or as text.",
        choices=("auto", "structured", "text"),
    )
    encoding: str = option(
        "utf-8",
        "Text encoding of the data files read: utf-8, latin-1, cp1252, utf-16... (JSONL, "
        "CSV/TSV, JSON, text and their .gz; Parquet and Excel take none). A byte that does not "
        "decode stops the command, naming its line. Outputs are written in UTF-8.",
        commands=("generate", "analyze", "apply", "validate"),
    )
    sampling: str = option(
        "sequential",
        "Order in which records reach the model.",
        flat="sampling_strategy",
        flag=("--sampling",),
        choices=("sequential", "random", "stratified"),
    )
    stratify_field: str | None = option(None, "Field for --sampling stratified.", metavar="FIELD")
    seed: int = option(0, "Seed for sampling and the holdout.")
    holdout: float = option(
        0.2,
        "Share of each chunk hidden from the model that a function must also pass on.",
        flat="holdout_ratio",
        flag=("--holdout",),
        low=0,
        high=1,
        high_open=True,
        commands=("generate",),
    )
    chars: int = option(
        12000, "Characters of a chunk shown to the model at most.", flat="chunk_chars", low=1
    )
    view: str = option(
        "varied",
        "Records an open-ended pass is shown: one per new value form, or all that fit.",
        flat="chunk_view",
        choices=("varied", "all"),
    )


@option_group
class Judging(OptionGroup):
    """How a candidate function is asked for, tried and accepted."""

    KEYWORD: ClassVar[str] = "judging"
    sandbox_timeout: float = option(
        10.0, "Seconds a candidate may run in the sandbox.", low=0, low_open=True
    )
    profile_fields: bool = option(
        True, "Ask for one function per dirty field, worst first (off: open-ended passes only)."
    )
    max_field_attempts: int = option(3, "Failed attempts at a field before giving it up.", low=1)
    open_pass_attempts: int = option(
        1, "Open-ended passes per chunk once the profile is clean.", low=0
    )
    idle_chunks_before_skip: int = option(
        1, "Chunks that teach nothing before later clean chunks stop costing calls.", low=0
    )
    call_every_chunk: bool = option(
        False,
        "Ask the model about every chunk (the reference design), even when the last "
        "chunks taught nothing new and the profile shows nothing to fix. Off: such "
        "chunks cost no call.",
        commands=("generate",),
    )
    hint_functions: bool = option(
        True,
        "Try the toolkit call the library chooses for a field (examples, data) before "
        "asking the model.",
    )
    toolkit: bool = option(True, "Offer the toolkit's tested primitives to the model.")
    rich_context: bool = option(
        False, "Show the model earlier functions' code, so it can revise them."
    )
    reflection: Any = option(
        None,
        "Critique each accepted candidate: by rules, or rules plus the model.",
        choices=("off", "rules", "model"),
        cli_none="off",
        stored="str | dict | None",
    )


@option_group
class ModelCalls(OptionGroup):
    """How the model is called: attempts per prompt, replies held to a grammar, retries' wait."""

    KEYWORD: ClassVar[str] = "model"
    attempts: int = option(
        3, "Calls per prompt before a failing backend stops the run.", flat="llm_attempts", low=1
    )
    constrained: bool = option(
        True, "Hold replies to the grammar of their form where the backend can (llama.cpp)."
    )
    sleep: Any = option(
        time.sleep, "How a retry waits (tests pass lambda s: None).", flag=None, saved=False
    )
    log_calls: str | None = option(
        None,
        "Append one JSON line per model call to FILE: purpose, prompt, reply, tokens, seconds, "
        "attempt, error (a new file is the owner's only: it quotes the data).",
        metavar="FILE",
        saved=False,
    )


@option_group
class CrossRow(OptionGroup):
    """Rules over the whole file after the last chunk (``cross_row=False`` turns them off)."""

    KEYWORD: ClassVar[str] = "cross_row"
    PLAIN: ClassVar[tuple[str, tuple[type, ...]] | None] = ("enabled", (bool,))
    enabled: bool = option(
        True,
        "Plan rules over the whole file (dedup, majority, vocabulary) after the last chunk.",
        flat="cross_row",
    )


@option_group
class Optimizer(OptionGroup):
    """After the last chunk, consolidation (``optimizer=True`` turns it on); early termination."""

    KEYWORD: ClassVar[str] = "optimizer"
    PLAIN: ClassVar[tuple[str, tuple[type, ...]] | None] = ("enabled", (bool,))
    enabled: bool = option(
        False,
        "Consolidate the functions after the last chunk (same output required).",
        flat="optimize",
        flag=("--optimize",),
    )
    threshold: int = option(
        10, "Functions needed before --optimize runs.", flat="optimize_threshold", low=1
    )
    early_termination: bool = option(
        False,
        "Every --saturation-check-interval clean chunks, ask the model whether the data "
        "is saturated; stop reading if it says so.",
        negatable=True,
        commands=("generate",),
    )
    saturation_check_interval: int = option(
        20,
        "Clean chunks between two saturation checks (--early-termination).",
        low=1,
        commands=("generate",),
    )


@option_group
class Metrics(OptionGroup):
    """Quality before and after, on a sample of the records (``metrics=True`` turns it on)."""

    KEYWORD: ClassVar[str] = "metrics"
    PLAIN: ClassVar[tuple[str, tuple[type, ...]] | None] = ("track", (bool,))
    track: bool = option(
        False,
        "Measure quality before/after on a sample (in the report).",
        flat="track_metrics",
        commands=("generate",),
    )
    ground_truth: str | None = option(
        None,
        "A clean file with the same rows: adds cell accuracy (implies --track-metrics).",
        metavar="FILE",
        commands=("generate",),
    )
    sample: int = option(1000, "Records sampled for --track-metrics.", flat="metrics_sample", low=1)


@option_group
class Output(OptionGroup):
    """What a run writes and where (``output="out/cleaning_functions.py"``: the functions' path)."""

    KEYWORD: ClassVar[str] = "output"
    PLAIN: ClassVar[tuple[str, tuple[type, ...]] | None] = ("path", (str, os.PathLike))
    path: str = option(
        "cleaning_functions.py",
        "Where to write the functions (the report goes beside it).",
        flat="output_path",
        flag=("-o", "--output"),
    )
    report: str | None = option(
        "cleaning_report.md",
        "Markdown report path ('' for none).",
        flat="report_path",
        flag=("--report",),
        cli_none="",
    )
    dry_run: bool = option(
        False, "Same as the analyze command: report issues, write no code.", commands=("generate",)
    )


@option_group
class Goals(OptionGroup):
    """How the goals are read into the field spec, and which fields may change."""

    KEYWORD: ClassVar[str] = "goals"
    scope: str = option(
        "mentioned",
        "Change only the fields the goals mention, or fix every issue found.",
        choices=("mentioned", "all"),
    )
    spec: Any = option(
        None,
        "A cleaning_spec.json (edited) to use instead of reading the goals again.",
        metavar="FILE",
        stored="str | dict | None",
    )
    draft_spec: bool = option(
        False,
        "Also ask the model to draft the field spec (one call); the data settles disagreements.",
    )
    labels: Any = option(
        None,
        "Rows corrected by hand (CSV/JSONL/JSON with the data's header, a DataFrame or a list of "
        "records): tests of every function and rule across rows; they keep their values.",
        metavar="FILE",
        stored="str | list | None",
    )
    labels_key: str | None = option(
        None,
        "The column matching each corrected row to its input row (default: an id column).",
        metavar="COL",
    )


BASICS = Basics()
GROUPS: dict[str, type] = {
    g.KEYWORD: g
    for g in (Chunking, Judging, ModelCalls, CrossRow, Optimizer, Metrics, Output, Goals)
}
"""The option groups by their DataCleaner keyword."""


OPTIONS: tuple[OptionSpec, ...] = tuple(
    s
    for cls, group in [(Basics, None), *((g, k) for k, g in GROUPS.items())]
    for s in group_specs(cls, group)
)
"""Every option, in declaration order: Basics, then each group."""
BY_NAME: dict[str, OptionSpec] = {s.name: s for s in OPTIONS}
DEFAULTS: dict[str, Any] = {s.name: s.default for s in OPTIONS}
"""Every option's default by its flat name."""


Options = flat_class(
    "Options",
    [s for s in OPTIONS if s.saved],
    [("backend", "str | None"), ("backend_options", "dict | None")],
)
Options.__module__ = __name__
Options.__doc__ = (
    "The options of one run by flat name, as the state file keeps them (mode, "
    "chunk_size and report_path as the run resolved them; reflection as a dict; "
    "the backend's spec string)."
)
