"""apply's checks before it starts: the output format its extension names; fields the functions read
but the data lacks."""

from __future__ import annotations

import ast
import itertools
import os
from collections.abc import Mapping
from typing import Any, Iterator

from ..read import formats
from ..read.parsers import iter_chunks
from ..write.dependencies import field_access

__all__ = [
    "OUTPUT_EXTENSIONS",
    "output_format",
    "function_fields",
    "missing_fields",
    "sample_records",
]


class _OutputExtensions(Mapping):
    """Output extension -> the format apply writes, read from the registry (``Format.writes``) when
    asked."""

    def __getitem__(self, ext: str) -> str:
        return formats.output_extensions()[ext]

    def __iter__(self) -> Iterator[str]:
        return iter(formats.output_extensions())

    def __len__(self) -> int:
        return len(formats.output_extensions())


OUTPUT_EXTENSIONS: Mapping[str, str] = _OutputExtensions()
"""Output extension -> format apply writes (.xls, the old binary Excel, cannot be written)."""

_ENTRY_POINTS = {"clean_data", "clean_dataset"}
_SAMPLE = 200  # records read to learn the data's fields


def output_format(output_path: str | os.PathLike) -> str:
    """The format ``output_path``'s extension names; ValueError (one line) for any other
    extension."""
    return formats.output_format(output_path).name


def function_fields(code: str) -> tuple[set[str], set[str]]:
    """(fields the file's cleaning functions read, fields only written: new fields they make); AST
    only."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(), set()
    reads: set[str] = set()
    writes: set[str] = set()
    for node in tree.body:
        if (
            isinstance(node, ast.FunctionDef)
            and node.name not in _ENTRY_POINTS
            and not node.name.startswith("_")
        ):
            access = field_access(code, node.name)
            reads |= access.reads
            writes |= access.writes - access.reads
    return reads, writes - reads


def missing_fields(code: str, records: list[Any]) -> list[str]:
    """Fields the functions read that no record of the sample has (none when the sample is empty or
    text)."""
    dicts = [r for r in records if isinstance(r, dict)]
    if not dicts:
        return []
    reads, made = function_fields(code)
    present = {key for record in dicts for key in record}
    return sorted(reads - present - made)


def sample_records(path: str, fmt: str | None = None, encoding: str = "utf-8") -> list[Any]:
    """The first records of ``path`` (at most 200); empty for text or an unreadable file."""
    kind = formats.detect(path) if fmt is None else formats.find(fmt)
    if kind is not None and not kind.structured:
        return []
    try:
        return list(
            itertools.islice(
                itertools.chain.from_iterable(iter_chunks(path, _SAMPLE, fmt, encoding=encoding)),
                _SAMPLE,
            )
        )
    except (OSError, ValueError, ImportError):
        return []
