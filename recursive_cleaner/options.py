"""DataCleaner's options, each declared once: a field of an option group, with default, help, flag.

``DataCleaner(...)`` takes the reference contract's parameters (``chunk_size``, ``instructions``,
...; declared in ``Basics``) and keyword-only groups, small frozen value objects that also take
a plain value where one says it all (``optimizer=True``, ``output="out/cf.py"``), the way httpx
takes ``Timeout(...)`` or a float: ``Chunking``, ``Judging``, ``ModelCalls``, ``CrossRow``,
``Optimizer``, ``Metrics``, ``Output``, ``Goals``. Every option also has a flat keyword
(``holdout_ratio``, ``track_metrics``, ``report_path``: the reference design's names) that
``DataCleaner`` takes as it always did; ``option_values`` reads both, refusing an unknown
keyword or an option given twice.

From the declaration (``OPTIONS``, one ``OptionSpec`` per option) come:

* ``Options``: the flat, frozen options of one run, saved whole in the state file under the
  flat names (the ``saved`` options, with ``backend`` and ``backend_options``) and restored by
  ``DataCleaner.resume`` from ``Options.from_dict``. ``backend`` is the backend's *spec string*
  (``"local"``, ``"openai:MODEL@URL"``), never an object and never a key; None when the run was
  given an object or a callable, and then ``resume`` needs a backend again. ``backend_options``
  are the keyword options that string was built with (``--backend-option``; plain values only,
  no secret-looking key: ``run.setup.saved_backend_options``).
* the command line's flags of ``generate`` / ``analyze`` (``ui.cli_options``);
* the table of docs/options.md (``options_table``; tests/test_options.py compares them).

What is not an option stays out: the data (``file_path``), the progress callback
(``on_progress``) and where state goes (``state_file``).
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import Field, asdict, dataclass, field, fields, make_dataclass, replace
from typing import Any, ClassVar

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
    "option_values",
    "flat_options",
    "options_table",
]

BOTH = ("generate", "analyze")


def option(
    default: Any,
    help: str,
    *,
    flat: str | None = None,
    flag: tuple[str, ...] | None = (),
    metavar: str | None = None,
    choices: tuple[str, ...] = (),
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    negatable: bool | None = None,
    commands: tuple[str, ...] = BOTH,
    saved: bool = True,
    cli_none: str | None = None,
    stored: str | None = None,
) -> Any:
    """A group field declaring one option (``OptionSpec`` says what each argument means)."""
    info = dict(
        help=help,
        flat=flat,
        flag=flag,
        metavar=metavar,
        choices=choices,
        low=low,
        high=high,
        low_open=low_open,
        high_open=high_open,
        negatable=negatable,
        commands=commands,
        saved=saved,
        cli_none=cli_none,
        stored=stored,
    )
    return field(default=default, metadata={"option": info})


@dataclass(frozen=True)
class OptionSpec:
    """One option as declared: where it lives, its default, and how state, CLI and docs show it."""

    name: str  # the flat keyword (DataCleaner(holdout_ratio=...)) and the state file's key
    group: str | None  # its group's DataCleaner keyword; None: a parameter (Basics)
    attr: str  # its field in the group (Chunking.holdout)
    default: Any
    help: str
    annotation: str
    flag: tuple[str, ...] | None = ()  # CLI spellings; (): --NAME-WITH-DASHES; None: no flag
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    low: float | None = None  # bounds the CLI enforces (the library's checks: run.setup)
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    negatable: bool | None = None  # a bool flag as --x/--no-x; None: when the default is True
    commands: tuple[str, ...] = BOTH  # the CLI commands with the flag
    saved: bool = True  # kept in the state file (an ``Options`` field)
    cli_none: str | None = None  # the CLI value that means None ("off", "")
    stored: str | None = None  # the type ``Options`` keeps, when it is not the group's

    @property
    def flags(self) -> tuple[str, ...]:
        """The CLI spellings: as declared, else ``--`` and the flat name with dashes; or none."""
        if self.flag is None:
            return ()
        return self.flag or ("--" + self.name.replace("_", "-"),)


class _Group:
    """What every group shares: the fields given explicitly; a plain value for one field."""

    KEYWORD: ClassVar[str] = ""
    # (field, types) a plain value sets: ``optimizer=True`` is ``Optimizer(enabled=True)``
    PLAIN: ClassVar[tuple[str, tuple[type, ...]] | None] = None

    def given(self) -> dict[str, Any]:
        """The fields given to the constructor (the others are defaults), in declared order."""
        chosen = self.__dict__.get("_given", frozenset())
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)  # type: ignore[arg-type]
            if f.name in chosen
        }

    @classmethod
    def coerce(cls, value: Any) -> "_Group":
        """``value`` as this group: the group, or a plain value for its ``PLAIN`` field."""
        if isinstance(value, cls):
            return value
        if cls.PLAIN is not None and isinstance(value, cls.PLAIN[1]):
            return cls(**{cls.PLAIN[0]: value})
        plain = f" or a {' / '.join(t.__name__ for t in cls.PLAIN[1])}" if cls.PLAIN else ""
        raise TypeError(
            f"{cls.KEYWORD}= takes {cls.__name__}(...){plain}, got {type(value).__name__}"
        )


def _group(cls: type) -> type:
    """A frozen, keyword-only dataclass that remembers which fields its constructor was given."""
    cls = dataclass(frozen=True, kw_only=True)(cls)
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **given: Any) -> None:
        init(self, *args, **given)
        object.__setattr__(self, "_given", frozenset(given))

    cls.__init__ = __init__  # type: ignore[method-assign]
    return cls


@_group
class Basics(_Group):
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


@_group
class Chunking(_Group):
    """How the file is read and cut, in what order, and what of each chunk the model sees."""

    KEYWORD: ClassVar[str] = "chunking"
    mode: str = option(
        "auto",
        "How FILE is read: by its extension (auto), as records, or as text.",
        choices=("auto", "structured", "text"),
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


@_group
class Judging(_Group):
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


@_group
class ModelCalls(_Group):
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


@_group
class CrossRow(_Group):
    """Rules over the whole file after the last chunk (``cross_row=False`` turns them off)."""

    KEYWORD: ClassVar[str] = "cross_row"
    PLAIN: ClassVar[tuple[str, tuple[type, ...]] | None] = ("enabled", (bool,))
    enabled: bool = option(
        True,
        "Plan rules over the whole file (dedup, majority, vocabulary) after the last chunk.",
        flat="cross_row",
    )


@_group
class Optimizer(_Group):
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


@_group
class Metrics(_Group):
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


@_group
class Output(_Group):
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


@_group
class Goals(_Group):
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


BASICS = Basics()
GROUPS: dict[str, type] = {
    g.KEYWORD: g
    for g in (Chunking, Judging, ModelCalls, CrossRow, Optimizer, Metrics, Output, Goals)
}
"""The option groups by their DataCleaner keyword."""


def _specs(cls: type, group: str | None) -> list[OptionSpec]:
    out = []
    for f in fields(cls):
        info = dict(f.metadata["option"])
        out.append(
            OptionSpec(
                name=info.pop("flat") or f.name,
                group=group,
                attr=f.name,
                default=f.default,
                annotation=str(f.type),
                **info,
            )
        )
    return out


OPTIONS: tuple[OptionSpec, ...] = tuple(
    s
    for cls, group in [(Basics, None), *((g, k) for k, g in GROUPS.items())]
    for s in _specs(cls, group)
)
"""Every option, in declaration order: Basics, then each group."""
BY_NAME: dict[str, OptionSpec] = {s.name: s for s in OPTIONS}
DEFAULTS: dict[str, Any] = {s.name: s.default for s in OPTIONS}
"""Every option's default by its flat name."""
_FLAT_NAME = {(s.group, s.attr): s.name for s in OPTIONS}


class _Flat:
    """The methods of ``Options`` (its fields come from the declaration)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values, every field."""
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, saved: dict[str, Any]) -> Any:
        """Options from a state file's dict; other versions' keys ignored, missing ones defaults."""
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: v for k, v in saved.items() if k in known})

    def replace(self, **changes: Any) -> Any:
        return replace(self, **changes)  # type: ignore[type-var]


def _flat_field(spec: OptionSpec) -> tuple[str, str, Field]:
    return spec.name, spec.stored or spec.annotation, field(default=spec.default)


Options = make_dataclass(
    "Options",
    [
        *(_flat_field(s) for s in OPTIONS if s.saved),
        ("backend", "str | None", field(default=None)),
        ("backend_options", "dict | None", field(default=None)),
    ],
    bases=(_Flat,),
    frozen=True,
)
Options.__module__ = __name__
Options.__doc__ = (
    "The options of one run by flat name, as the state file keeps them (mode, "
    "chunk_size and report_path as the run resolved them; reflection as a dict; "
    "the backend's spec string)."
)


def option_values(
    groups: dict[str, Any], flat: dict[str, Any], owner: str = "DataCleaner.__init__"
) -> dict[str, Any]:
    """The options given, by flat name: each group's explicitly given fields and the flat keywords.

    TypeError for an unknown keyword (worded as Python words it), a group of the wrong type, or
    an option given twice (flat and in its group).
    """
    values: dict[str, Any] = {}
    said: dict[str, str] = {}
    for key, value in flat.items():
        spec = BY_NAME.get(key)
        if spec is None or spec.group is None:
            raise TypeError(f"{owner}() got an unexpected keyword argument {key!r}")
        values[key], said[key] = value, f"{key}={value!r}"
    for keyword, value in groups.items():
        if value is None:
            continue
        group = GROUPS[keyword].coerce(value)
        for attr, given in group.given().items():
            name = _FLAT_NAME[keyword, attr]
            here = f"{keyword}={type(group).__name__}({attr}={given!r})"
            if name in values:
                raise TypeError(
                    f"{owner}() got the option {name!r} twice: {said[name]} and "
                    f"{here}; give it once"
                )
            values[name], said[name] = given, here
    return values


def flat_options(options: dict[str, Any], owner: str = "DataCleaner.resume") -> dict[str, Any]:
    """``options`` with each group keyword replaced by the options its group gives, by flat name;
    other keys as they are (``resume`` lays these over the saved options)."""
    groups = {k: v for k, v in options.items() if k in GROUPS}
    rest = {k: v for k, v in options.items() if k not in GROUPS}
    expanded = option_values(groups, {}, owner)
    twice = sorted(expanded.keys() & rest.keys())
    if twice:
        raise TypeError(
            f"{owner}() got the option {twice[0]!r} twice: flat and in its group; give it once"
        )
    return {**rest, **expanded}


def _default_text(spec: OptionSpec) -> str:
    if callable(spec.default):
        return f"`{spec.default.__module__}.{spec.default.__name__}`"
    return f"`{spec.default!r}`"


def _cli_text(spec: OptionSpec) -> str:
    if not spec.flags:
        return "—"
    text = " / ".join(f"`{f}`" for f in spec.flags)
    negatable = spec.negatable if spec.negatable is not None else spec.default is True
    if isinstance(spec.default, bool) and negatable:
        text = f"`{spec.flags[-1]}` / `--no-{spec.flags[-1][2:]}`"
    if spec.choices:
        text += " {" + ",".join(spec.choices) + "}"
    return text + (" (" + ", ".join(spec.commands) + ")" if spec.commands != BOTH else "")


def options_table() -> str:
    """The markdown table of every option (docs/options.md holds it; tests compare the two)."""
    rows = [
        "| Flat keyword | In its group | Default | Command line | Saved | What it does |",
        "|---|---|---|---|---|---|",
    ]
    for s in OPTIONS:
        where = (
            "parameter"
            if s.group is None
            else f"`{s.group}={GROUPS[s.group].__name__}({s.attr}=…)`"
        )
        rows.append(
            f"| `{s.name}` | {where} | {_default_text(s)} | {_cli_text(s)} | "
            f"{'yes' if s.saved else 'no'} | {s.help.replace('|', '/')} |"
        )
    return "\n".join(rows) + "\n"
