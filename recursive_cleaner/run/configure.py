"""A DataCleaner's options as its run uses them (no I/O), and the context its run() builds."""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from ..judge.gate import Gate
from ..judge.reflection import Reviewer
from ..judge.reflection_verdict import ReflectionConfig
from ..model.client import ModelClient
from ..optimizer.saturation import SaturationWatch
from ..options import OPTIONS, Options
from ..profiling.spec import load_spec
from ..read import formats, parsers
from ..read.formats.encoding import check_encoding, is_utf8
from ..read.documents import is_document, materialize_document
from ..read.inputs import frame_records, materialize_input
from ..read.labels import read_labels
from ..read.source import ChunkSource
from .call_log import CallLog
from .labelled import writable_labels
from .setup import backend_spec, beside, check_options, check_run_paths, saved_backend_options
from .state import ChunkFocus, RunContext, RunState

__all__ = ["TEXT_DEFAULT_CHARS", "settings_for", "build_context", "input_encoding"]

TEXT_DEFAULT_CHARS = 4000  # a text file's chunk_size when the records default (50) was kept


def settings_for(
    llm_backend: Any, data: Any, values: dict[str, Any]
) -> tuple[Options, ReflectionConfig | None]:
    """The run's ``Options`` (and its ``ReflectionConfig``) from every option's value by flat name.

    ValueError for a value no run could use (``setup.check_options``). Resolved from the path
    alone, as the run will read its input: the mode (a text file or a document is read as text,
    records otherwise; a DataFrame or a list of dicts becomes JSONL, read as UTF-8 whatever the
    ``encoding``), a text file's chunk_size,
    the report beside the functions, metrics on with a ground truth, the backend's spec string.
    """
    v = values
    check_options(
        v["chunk_size"],
        v["max_iterations"],
        v["mode"],
        v["holdout_ratio"],
        v["sampling_strategy"],
        v["stratify_field"],
        v["scope"],
        v["chunk_view"],
        v["sandbox_timeout"],
    )
    path = os.fspath(data) if isinstance(data, (str, os.PathLike)) else "records.jsonl"
    encoding = input_encoding(data, path, v["encoding"])
    mode = "text" if v["mode"] == "text" or parsers.detect_format(path) == "text" else "structured"
    chunk_size = TEXT_DEFAULT_CHARS if mode == "text" and v["chunk_size"] == 50 else v["chunk_size"]
    reflection = v["reflection"]
    if isinstance(reflection, str):
        reflection = ReflectionConfig(mode=reflection)
    spec = v["spec"]
    labels = v["labels"]
    if labels is not None and not isinstance(labels, (str, os.PathLike, list, tuple)):
        if type(labels).__name__ != "DataFrame":
            raise TypeError(
                "labels= takes a file path, a DataFrame or a list of records, got "
                f"{type(labels).__name__}"
            )
        labels = list(frame_records(labels))  # a DataFrame: its records, kept in the state file
    settings = Options(
        **{
            **{s.name: v[s.name] for s in OPTIONS if s.saved},
            "mode": mode,
            "chunk_size": chunk_size,
            "encoding": encoding,
            "track_metrics": v["track_metrics"] or v["ground_truth"] is not None,
            "report_path": beside(v["report_path"], v["output_path"]),
            "reflection": None if reflection is None else asdict(reflection),
            "spec": str(spec) if isinstance(spec, Path) else spec,
            "labels": os.fspath(labels)
            if isinstance(labels, (str, os.PathLike))
            else (None if labels is None else [dict(r) for r in labels]),
            "backend": backend_spec(llm_backend),
            "backend_options": saved_backend_options(llm_backend),
        }
    )
    return settings, reflection


def input_encoding(data: Any, path: str, encoding: Any) -> str:
    """The encoding the run reads its input in: ``encoding`` for a data file read as text, UTF-8
    for data the library writes itself; ValueError for an unknown one or one given for a file
    not read as text (Parquet, Excel, a PDF/Word/HTML document)."""
    check_encoding(encoding)
    if not isinstance(data, (str, os.PathLike)):
        return "utf-8"
    if not is_utf8(encoding) and is_document(path):
        raise ValueError(
            f"encoding={encoding!r} does not apply to {path} (a document is converted to text by "
            "its own rules): leave it at utf-8"
        )
    formats.detect(path).encoded(encoding)  # ValueError for Parquet, Excel
    return encoding


def build_context(
    backend: Any,
    data: Any,
    options: Options,
    *,
    mode: str,
    state: RunState,
    watch: SaturationWatch,
    reflection: ReflectionConfig | None,
    state_file: str | None,
    sleep: Callable[[float], None],
    restart: bool,
    log_calls: str | None = None,
    on_call: Callable,
    on_skip: Callable,
    call: Callable,
    emit: Callable,
) -> RunContext:
    """The run's ``RunContext``: the input as a file (a DataFrame or a list of dicts as JSONL, a
    document as its text), the spec and every path checked; the model client, source and gate.

    ``backend`` is resolved; ``mode`` is the mode asked for (``options.mode``: as resolved).
    ValueError for structured reading of a text file or a spec that cannot be used; LabelError
    for corrected rows (``labels``) that cannot be matched to the input rows;
    PathConflictError / OutputError for a path the run may not write (``log_calls`` too): all
    before the first model call.
    """
    file_path = materialize_input(data)  # a DataFrame or list of dicts becomes a JSONL file
    document = None
    if is_document(file_path) and Path(file_path).is_file():  # PDF, Word, HTML: their text
        document, file_path = str(file_path), materialize_document(file_path)
    file_path = str(file_path)
    fmt = "text" if mode == "text" else parsers.detect_format(file_path)
    if mode == "structured" and fmt == "text":
        raise ValueError(
            f"{file_path}: cannot read as structured data "
            "(use .jsonl, .csv, .json, .parquet or .xlsx)"
        )
    if options.spec is not None:
        load_spec(options.spec)  # a spec file that cannot be used fails here, naming what is wrong
    labels_path = options.labels if isinstance(options.labels, str) else None
    check_run_paths(
        file_path,
        options.output_path,
        options.report_path,
        state_file,
        options.ground_truth,
        document=document,
        log_calls=log_calls,
        dry_run=options.dry_run,
        labels=labels_path,
    )
    focus = ChunkFocus(
        enabled=options.profile_fields
        and options.mode == "structured"
        and options.validate_runtime,
        max_attempts=options.max_field_attempts,
    )
    if options.labels is not None:  # matched to the input rows now: a bad label fails here
        if options.mode != "structured":
            raise ValueError("labels (corrected rows) need structured data, not text")
        focus.labels = writable_labels(
            read_labels(
                options.labels,
                file_path,
                key=options.labels_key,
                encoding=options.encoding,
                data_encoding=options.encoding,
            )
        )
    return RunContext(
        options=options,
        state=state,
        client=ModelClient(
            backend,
            attempts=options.llm_attempts,
            sleep=sleep,
            on_call=on_call,
            on_event=emit,
            call_log=CallLog(log_calls) if log_calls else None,
        ),
        source=ChunkSource(
            file_path,
            fmt,
            options.chunk_size,
            strategy=options.sampling_strategy,
            stratify_field=options.stratify_field,
            seed=options.seed,
            on_skip=on_skip,
            encoding="utf-8" if document is not None else options.encoding,
        ),
        gate=Gate(
            focus,
            mode=options.mode,
            validate_runtime=options.validate_runtime,
            timeout=options.sandbox_timeout,
            allow_modify=options.rich_context,
        ),
        focus=focus,
        watch=watch,
        file_path=file_path,
        call=call,
        emit=emit,
        reviewer=Reviewer(reflection) if reflection else None,
        restart=restart,
    )
