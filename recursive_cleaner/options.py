"""One options object: every ``DataCleaner`` option a run keeps, saved whole in the state file and restored whole.

``DataCleaner(...)``'s keyword arguments (the signature ``tests/test_api.py`` pins) become one
frozen ``Options``; ``DataCleaner.resume`` rebuilds the cleaner from ``Options.from_dict`` of the
state file's ``options``. What is not an option stays out: the data (``file_path``), the callbacks
(``on_progress``, ``sleep``) and where state goes (``state_file``). ``backend`` is the backend's
*spec string* (``"local"``, ``"openai:MODEL@URL"``), never an object and never a key; None when the
run was given an object or a callable, and then ``resume`` needs a backend again. ``backend_options``
are the keyword options that string was built with (``--backend-option``; ``run.setup.saved_backend_options``:
plain values only, any key that looks like a secret left out), so ``resume`` builds the same backend.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

__all__ = ["Options"]


@dataclass(frozen=True)
class Options:
    """The options of one run (mode, chunk_size and report_path as the run resolved them)."""

    chunk_size: int = 50
    instructions: str = ""
    max_iterations: int = 5
    context_budget: int = 8000
    validate_runtime: bool = True
    schema_sample_size: int = 10
    mode: str = "auto"
    output_path: str = "cleaning_functions.py"
    holdout_ratio: float = 0.2
    sampling_strategy: str = "sequential"
    stratify_field: str | None = None
    seed: int = 0
    track_metrics: bool = False
    ground_truth: str | None = None
    metrics_sample: int = 1000
    report_path: str | None = "cleaning_report.md"
    dry_run: bool = False
    llm_attempts: int = 3
    sandbox_timeout: float = 10.0
    profile_fields: bool = True
    max_field_attempts: int = 3
    open_pass_attempts: int = 1
    idle_chunks_before_skip: int = 1
    call_every_chunk: bool = False  # the reference design: every chunk gets at least one model call (no idle skip)
    constrained: bool = True  # replies held to the grammar of their form where the backend can (generate_grammar)
    chunk_chars: int = 12000
    hint_functions: bool = True  # a field's first attempt is the toolkit call the library chooses, without a call
    chunk_view: str = "varied"  # open passes see one record per new value form; "all": every record that fits
    toolkit: bool = True
    rich_context: bool = False
    reflection: str | dict | None = None  # a mode name, or a ReflectionConfig's fields
    cross_row: bool = True
    optimize: bool = False
    optimize_threshold: int = 10
    early_termination: bool = False
    saturation_check_interval: int = 20
    scope: str = "mentioned"  # "mentioned": only fields the goals mention change; "all": every field
    spec: str | dict | None = None  # a cleaning_spec.json path or dict given by the user (no drafting)
    draft_spec: bool = False  # one model call drafts the spec beside the rule reader (the data decides)
    backend: str | None = None
    backend_options: dict | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values, every field."""
        return asdict(self)

    @classmethod
    def from_dict(cls, saved: dict[str, Any]) -> "Options":
        """Options from a state file's dict; keys of other versions are ignored, missing ones get defaults."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in saved.items() if k in known})

    def replace(self, **changes: Any) -> "Options":
        return replace(self, **changes)
