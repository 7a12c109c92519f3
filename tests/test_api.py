"""The public names are exactly what we mean to export, and the v0.2 signatures hold."""

from __future__ import annotations

import inspect

import recursive_cleaner
from recursive_cleaner import DataCleaner, LLMBackend, errors
from recursive_cleaner.options import DEFAULTS

EXPECTED = {
    "clean",
    "CleanResult",
    "Cleaner",
    "DataCleaner",
    "RunResult",
    "apply_file",
    "apply_records",
    "ApplyResult",
    "ApplyError",
    "LLMBackend",
    "validate_function",
    "validate",
    "SpecCheck",
    "check_code_safety",
    "infer_schema",
    "Chunking",
    "Judging",
    "ModelCalls",
    "CrossRow",
    "Optimizer",
    "Metrics",
    "Output",
    "Goals",
    "format_schema_for_prompt",
    "build_context",
    "parse_response",
    "iter_chunks",
    "iter_records",
    "CleanerError",
    "ParseError",
    "MaxIterationsError",
    "OutputValidationError",
    "LLMCallError",
    "SandboxError",
    "InputError",
    "InputEncodingError",
    "StateFileError",
    "DependencyCycleError",
    "DataLossError",
    "__version__",
}


def test_exported_names():
    assert set(recursive_cleaner.__all__) == EXPECTED
    for name in EXPECTED:
        assert hasattr(recursive_cleaner, name), name


def test_v02_constructor_signature():
    params = inspect.signature(DataCleaner.__init__).parameters
    expected = [
        ("llm_backend", inspect.Parameter.empty),
        ("file_path", inspect.Parameter.empty),
        ("chunk_size", 50),
        ("instructions", ""),
        ("max_iterations", 5),
        ("context_budget", 8000),
        ("on_progress", None),
        ("state_file", None),
        ("validate_runtime", True),
        ("schema_sample_size", 10),
    ]
    names = list(params)[1:11]
    assert names == [n for n, _ in expected]
    for name, default in expected:
        assert params[name].default == default, name


def test_v04_to_v06_options_are_keywords_with_the_reference_defaults(tmp_path):
    """The reference design's flat names are still keywords of DataCleaner (in **options)."""
    expected = {
        "holdout_ratio": 0.2,
        "sampling_strategy": "sequential",
        "stratify_field": None,
        "track_metrics": False,
        "report_path": "cleaning_report.md",
        "dry_run": False,
        "mode": "auto",
        "optimize": False,
        "optimize_threshold": 10,
        "early_termination": False,
        "saturation_check_interval": 20,
    }
    assert {name: DEFAULTS[name] for name in expected} == expected
    data = tmp_path / "d.jsonl"
    data.write_text('{"a": 1}\n')
    cleaner = DataCleaner(
        lambda prompt: "",
        str(data),
        holdout_ratio=0.1,  # the spec's example
        sampling_strategy="stratified",
        stratify_field="a",
        optimize=True,
        report_path="r.md",
        dry_run=True,
    )
    assert (cleaner.holdout_ratio, cleaner.sampling_strategy) == (0.1, "stratified")
    assert (cleaner.optimize, cleaner.dry_run) == (True, True)
    assert callable(DataCleaner.get_improvement_report)


def test_the_constructor_has_at_most_20_parameters_and_takes_the_flat_names_as_options():
    params = inspect.signature(DataCleaner.__init__).parameters
    assert len(params) - 1 <= 20
    assert list(params)[-1] == "options" and params["options"].kind is inspect.Parameter.VAR_KEYWORD
    groups = [
        "chunking",
        "judging",
        "model",
        "cross_row",
        "optimizer",
        "metrics",
        "output",
        "goals",
        "restart",
    ]
    for name in groups:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, name


def test_resume_and_validate_function_signatures():
    assert list(inspect.signature(DataCleaner.resume).parameters)[:2] == [
        "state_file",
        "llm_backend",
    ]
    sig = inspect.signature(recursive_cleaner.validate_function)
    assert list(sig.parameters)[:3] == ["code", "sample_data", "function_name"]
    assert list(inspect.signature(recursive_cleaner.infer_schema).parameters)[:2] == [
        "file_path",
        "sample_size",
    ]


def test_error_tree():
    for cls in (
        errors.ParseError,
        errors.MaxIterationsError,
        errors.OutputValidationError,
        errors.LLMCallError,
        errors.SandboxError,
        errors.InputError,
        errors.StateFileError,
        errors.DependencyCycleError,
    ):
        assert issubclass(cls, errors.CleanerError)
    assert issubclass(errors.InputEncodingError, errors.InputError)
    assert issubclass(errors.StateFileError, ValueError)
    for name in errors.__all__:
        assert name in errors.__doc__, f"{name} missing from the drawn tree"


def test_backend_protocol_accepts_any_object_with_generate():
    class Mine:
        def generate(self, prompt: str) -> str:
            return ""

    assert isinstance(Mine(), LLMBackend)


def test_clean_is_the_one_call_entry_point():
    params = inspect.signature(recursive_cleaner.clean).parameters
    assert list(params)[:3] == ["data", "goals", "backend"]
    assert (
        params["backend"].default is None
        and params["progress"].kind is inspect.Parameter.KEYWORD_ONLY
    )
    # DataCleaner's options
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert callable(recursive_cleaner.CleanResult.apply) and hasattr(
        recursive_cleaner.CleanResult, "_repr_html_"
    )
