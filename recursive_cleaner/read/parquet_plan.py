"""How a Parquet file is read within its bounds (``rows.PARQUET_RATIO``, ``PARQUET_MB``,
``PARQUET_BATCH_MB``): what its metadata declares, which columns are read as dictionaries, the
rows of a batch, and what a batch's values take decoded.

A few KB of Parquet can hold hundreds of MB: a 120 KB string repeated 2,000 times through a
dictionary is a 433-byte file, through a prefix encoding (DELTA_BYTE_ARRAY) 452 bytes; one int
repeated a million times a few KB. ``ParquetPlan`` refuses what the metadata declares past the
bound before anything is read; ``tables`` then measures each batch (``value_bytes``) before a
value reaches Python, dictionary columns still as dictionaries (``decoded`` decodes them after).
pyarrow is imported by the caller (``_extras.require``); this module takes its objects.
"""

from __future__ import annotations

import os
from typing import Any

from . import rows

__all__ = ["READ_BATCH", "ParquetPlan", "value_bytes", "decoded"]

READ_BATCH = 8192
"""Rows of a batch at most."""

_WIDTHS = {"INT32": 4, "INT64": 8, "INT96": 12, "FLOAT": 4, "DOUBLE": 8}


class ParquetPlan:
    """How a Parquet file is read within ``rows.PARQUET_*``: the bound, the leaf columns read as
    dictionaries, the rows of a batch per row group and the row groups each iterator reads
    (``reads``); an InputError when the metadata declares more.

    A column chunk declares its values as its uncompressed size, at least their fixed width (a
    dictionary of one value makes a million rows of a few bytes); a string column in a dictionary
    is read as one and measured before it is decoded (``value_bytes``), unless no value of a row
    group's dictionaries could make them more than ``PARQUET_BATCH_MB``; in a prefix encoding
    (DELTA_BYTE_ARRAY) a value is at most its chunk's size, so its batches are that much smaller.
    """

    def __init__(self, metadata: Any, path: str) -> None:
        self.path, self.size = path, os.path.getsize(path)
        self.limit = max(rows.PARQUET_MB << 20, rows.PARQUET_RATIO * self.size)
        budget = rows.PARQUET_BATCH_MB << 20
        leaves: set[int] = set()
        declared, self.batch_rows = 0, []
        for g in range(metadata.num_row_groups):
            group = metadata.row_group(g)
            group_bytes, cap, worst, dictionary = 0, READ_BATCH, 0, set()
            for i in range(group.num_columns):
                chunk = group.column(i)
                width = metadata.schema.column(i).length if chunk.physical_type in _FIXED else 0
                nbytes = _chunk_bytes(chunk, width)
                group_bytes += nbytes
                if chunk.physical_type == "BYTE_ARRAY":
                    if chunk.has_dictionary_page or any("DICT" in e for e in chunk.encodings):
                        # each value at most the whole dictionary
                        dictionary.add(i)
                        worst += chunk.num_values * nbytes
                    if "DELTA_BYTE_ARRAY" in chunk.encodings:
                        cap = min(cap, max(1, budget // max(nbytes, 1)))
            if worst > budget:  # else decoded they cannot overfill a batch: read as they are
                leaves |= dictionary
            declared += group_bytes
            fits = budget * group.num_rows // max(group_bytes, 1)
            self.batch_rows.append(max(1, min(cap, fits)))
        self.dictionaries = sorted(leaves)
        self.check(declared, "as its metadata declares them")
        # row groups read by one iterator (one per group costs ~1 ms): consecutive ones with the
        # same batch size, unless a nested column is read as a dictionary (pyarrow cannot give
        # one that changes between groups inside a batch)
        alone = bool(leaves & _nested_leaves(metadata))
        self.reads: list[tuple[list[int], int]] = []
        for g, size in enumerate(self.batch_rows):
            if self.reads and not alone and self.reads[-1][1] == size:
                self.reads[-1][0].append(g)
            else:
                self.reads.append(([g], size))

    def check(self, nbytes: int, how: str) -> None:
        """InputError when ``nbytes`` of values pass the bound."""
        from ..errors import InputError

        if nbytes > self.limit:
            raise InputError(
                f"{self.path}: its values come to more than {self.limit >> 20} MB {how}, over "
                f"{rows.PARQUET_RATIO} times its {rows.size_text(self.size)} (a compression "
                "bomb?); it is not read (bound: rows.PARQUET_RATIO)",
                self.path,
            )


_FIXED = ("FIXED_LEN_BYTE_ARRAY",)


def _nested_leaves(metadata: Any) -> set[int]:
    """The leaf columns under a list, struct or map (all of them if the schema cannot be read)."""
    import pyarrow as pa

    try:
        fields = list(metadata.schema.to_arrow_schema())
    except (NotImplementedError, ValueError, TypeError):  # pragma: no cover - pyarrow refuses it
        return set(range(metadata.num_columns))
    nested, at = set(), 0
    for field in fields:
        count, stack = 0, [field.type]
        while stack:  # no recursion: a schema may nest deeply
            kind = stack.pop()
            if pa.types.is_map(kind):
                stack += [kind.key_type, kind.item_type]
            elif pa.types.is_struct(kind):
                stack += [kind.field(i).type for i in range(kind.num_fields)]
            elif hasattr(kind, "value_type") and not pa.types.is_dictionary(kind):  # lists
                stack.append(kind.value_type)
            else:
                count += 1
        if pa.types.is_nested(field.type):
            nested.update(range(at, at + count))
        at += count
    return nested


def _chunk_bytes(chunk: Any, width: int) -> int:
    """A column chunk's values as declared: its uncompressed size, at least their fixed width."""
    kind, count = chunk.physical_type, chunk.num_values
    if kind == "BOOLEAN":
        fixed = (count + 7) // 8
    elif kind in _FIXED:
        fixed = count * max(width or 0, 0)
    else:  # a string's offset: 4 bytes
        fixed = count * _WIDTHS.get(kind, 4)
    return max(chunk.total_uncompressed_size, fixed)


def value_bytes(batch: Any) -> int:
    """The bytes a record batch's values take decoded; dictionaries measured without decoding."""
    import pyarrow as pa
    import pyarrow.compute as pc

    total, stack = 0, list(batch.columns)
    while stack:  # no recursion: a schema may nest deeply
        array = stack.pop()
        kind = array.type
        if pa.types.is_dictionary(kind) and _is_binary(pa, kind.value_type):
            lengths = pc.binary_length(array.dictionary).take(array.indices)
            total += (pc.sum(lengths).as_py() or 0) + 4 * len(array)
        elif pa.types.is_dictionary(kind):  # fixed-width values (a decimal stored as bytes)
            entry = array.dictionary.nbytes // max(len(array.dictionary), 1) + 1
            total += entry * len(array)
        elif pa.types.is_map(kind):
            stack += [array.keys, array.items]
            total += 4 * len(array)
        elif isinstance(array, (pa.ListArray, pa.LargeListArray, pa.FixedSizeListArray)):
            stack.append(array.flatten())
            total += 4 * len(array)
        elif pa.types.is_struct(kind):
            stack += array.flatten()
        else:
            total += array.nbytes
    return total


def _is_binary(pa: Any, kind: Any) -> bool:
    return any(
        test(kind)
        for test in (
            pa.types.is_string,
            pa.types.is_large_string,
            pa.types.is_binary,
            pa.types.is_large_binary,
        )
    )


def decoded(column: Any) -> Any:
    """A column read with dictionaries (``ParquetPlan``), measured, in its plain type."""
    import pyarrow as pa

    plain = _plain_type(column.type)
    if plain == column.type:
        return column
    try:
        return column.cast(plain)
    except (NotImplementedError, pa.ArrowInvalid):  # to_pylist decodes it too (slower)
        return column


def _plain_type(kind: Any) -> Any:
    """``kind`` with every dictionary replaced by its value type (fields keep their names)."""
    import pyarrow as pa

    def field(f: Any) -> Any:
        return f.with_type(_plain_type(f.type))

    if pa.types.is_dictionary(kind):
        return _plain_type(kind.value_type)
    if pa.types.is_map(kind):
        return pa.map_(field(kind.key_field), field(kind.item_field))
    if pa.types.is_large_list(kind):
        return pa.large_list(field(kind.value_field))
    if pa.types.is_fixed_size_list(kind):
        return pa.list_(field(kind.value_field), kind.list_size)
    if pa.types.is_list(kind):
        return pa.list_(field(kind.value_field))
    if pa.types.is_struct(kind):
        return pa.struct([field(kind.field(i)) for i in range(kind.num_fields)])
    return kind
