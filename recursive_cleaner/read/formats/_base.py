"""The ``Format`` every input/output format is, and the one registry reading and apply ask."""

from __future__ import annotations

import copy
import errno
import itertools
import os
from dataclasses import dataclass
from typing import IO, Any, BinaryIO, Callable, Iterator

from ..rows import SkippedRecord
from .encoding import DEFAULT_ENCODING, check_encoding, is_utf8, transcoding

__all__ = [
    "Format",
    "Lines",
    "Part",
    "SkipCallback",
    "Opener",
    "BLOCK_SIZE",
    "REGISTRY",
    "register",
    "get",
    "unregister",
    "find",
    "detect",
    "names",
    "output_format",
    "output_extensions",
    "resolve",
    "batched",
    "install_hint",
    "described",
]

BLOCK_SIZE = 1 << 20  # bytes read per block (JSON, text, counting)

SkipCallback = Callable[[SkippedRecord], None]
Opener = Callable[..., IO[Any]]  # open, gzip.open: (path, mode, **text options) -> a file


@dataclass(frozen=True)
class Lines:
    """Raw JSON lines apply's workers parse themselves: ``data`` from ``line`` (1-based) at
    ``offset``."""

    data: bytes
    line: int = 1
    offset: int = 0


@dataclass(frozen=True)
class Part:
    """A file, or its bytes [start, end) (end -1: to the end) after ``line`` lines, ``record``
    records."""

    path: str
    fmt: str
    start: int = 0
    end: int = -1
    line: int = 0
    record: int = 0
    keys: tuple[str, ...] | None = None  # CSV: the header, for a part that starts after it
    encoding: str = DEFAULT_ENCODING  # the file's text encoding (``Format.encoded``)


def install_hint(extra: str) -> str:
    """The pip command that installs one of the package's extras."""
    return f"pip install 'recursive-data-cleaner[{extra}]'"


class Format:
    """One file format: how it is detected, read, counted, cut into parts and written.

    A subclass sets the class attributes and overrides what differs; ``register(instance)`` adds it.
    ``extensions`` are lower-case suffixes, one part (``.csv``) or two (``.csv.gz``); ``writes``
    are those apply can write (empty: not an output format). ``module`` / ``extra``: the optional
    package a format needs and the extra that installs it (``install_hint``). A text format reads
    UTF-8 bytes from ``opener``; ``encoded(name)`` is the format reading another encoding.
    """

    name: str = ""
    label: str = ""  # what help text calls it ("CSV/TSV"; "": the name)
    extensions: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    structured: bool = True  # records (dicts); False: text, read in character chunks
    applies: bool = True  # apply_file / apply_dask read it
    strings_only: bool = False  # every value read is a string (CSV): a number's text is not wrong
    module: str = ""
    extra: str = ""
    decodes: bool = True  # read as text, so a text encoding applies (False: Parquet, Excel)
    encoding: str = DEFAULT_ENCODING
    opener: Opener = staticmethod(open)  # opens the file as bytes (``"rb"``) or UTF-8 text

    @property
    def install_hint(self) -> str:
        """The pip command for the optional package this format needs ("" when it needs none)."""
        return install_hint(self.extra) if self.extra else ""

    @property
    def transcodes(self) -> bool:
        """Whether the file is in another encoding than UTF-8, read through a transcoding opener."""
        return self.encoding != DEFAULT_ENCODING

    def encoded(self, encoding: str) -> Format:
        """This format reading files in ``encoding``: itself for UTF-8, else a copy whose opener
        transcodes to UTF-8; ValueError for an unknown encoding or a format not read as text."""
        check_encoding(encoding)
        if is_utf8(encoding):
            return self
        if not self.decodes:
            raise ValueError(
                f"encoding={encoding!r} does not apply to {self.name} files (they are not read "
                "as text): leave it at utf-8"
            )
        clone = copy.copy(self)
        clone.encoding = encoding
        clone.opener = transcoding(self.opener, encoding)
        return clone

    # -- reading (generate, profiling, validate)
    def records(self, path: str, on_skip: SkipCallback | None, block_size: int) -> Iterator[dict]:
        """The records one at a time; bad records go to ``on_skip``."""
        raise NotImplementedError

    def chunks(
        self,
        path: str,
        size: int,
        overlap: int | None,
        on_skip: SkipCallback | None,
        block_size: int,
    ) -> Iterator[list]:
        """Lists of up to ``size`` records."""
        return batched(self.records(path, on_skip, block_size), size)

    def count(self, path: str, exact: bool, block_size: int) -> int:
        """The records ``records`` yields, streaming (``exact``: parse every one)."""
        return sum(1 for _ in self.records(path, None, block_size))

    def count_chunks(self, path: str, size: int, overlap: int | None, block_size: int) -> int:
        """Exactly the number of lists ``chunks`` yields."""
        return -(-self.count(path, True, block_size) // size)

    # -- apply, local and on Dask
    def batches(self, path: str, size: int, on_skip: SkipCallback | None) -> Iterator[Lines | list]:
        """apply's batches of ``size`` records: record lists, or raw ``Lines`` the workers parse."""
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, "No such file", path)
        return self.chunks(path, size, None, on_skip, BLOCK_SIZE)

    def plan(self, path: str, batch_size: int, per_batches: int) -> list[Part]:
        """The parts of a file for Dask, ``per_batches`` whole batches each (default: one part)."""
        return [Part(path, self.name, encoding=self.encoding)]

    def part_batches(
        self, part: Part, size: int, on_skip: SkipCallback | None
    ) -> Iterator[Lines | list]:
        """The batches of one part, cut where ``batches`` cuts the whole file."""
        return self.batches(part.path, size, on_skip)

    def writer(self, out: BinaryIO, path: str) -> Any:
        """apply's writer into ``out`` for ``path``: ``write(payload, count)``..., ``finish()``.

        ``payload`` is ``count`` JSON texts joined by b"\\n"; a record the format cannot hold is a
        ValueError. ``abort()``, if it has one, when the run fails; ``dropped``: keys left out.
        """
        raise ValueError(f"apply cannot write {self.name} files")

    def __repr__(self) -> str:
        return f"<format {self.name}>"


REGISTRY: dict[str, Format] = {}
_BY_EXTENSION: dict[str, Format] = {}
_DEFAULT = "text"  # the format of a path no extension names


def register(fmt: Format) -> Format:
    """Add a format (built-in or a plug-in's); its name and extensions must be new."""
    if not fmt.name or fmt.name in REGISTRY:
        raise ValueError(f"a format needs a new name, got {fmt.name!r}")
    for ext in fmt.extensions + fmt.writes:
        if not ext.startswith(".") or ext != ext.lower() or ext.count(".") > 2:
            raise ValueError(f"{fmt.name}: an extension is '.x' or '.x.y', lower case, not {ext!r}")
        if _BY_EXTENSION.get(ext, fmt) is not fmt:
            taken = _BY_EXTENSION[ext].name
            raise ValueError(f"{fmt.name}: {ext} already names the {taken} format")
    REGISTRY[fmt.name] = fmt
    _BY_EXTENSION.update((ext, fmt) for ext in fmt.extensions + fmt.writes)
    return fmt


def unregister(name: str) -> Format:
    """Take a format out of the registry (a plug-in's, a test's), with its extensions."""
    fmt = REGISTRY.pop(name)
    for ext in [e for e, f in _BY_EXTENSION.items() if f is fmt]:
        del _BY_EXTENSION[ext]
    return fmt


def find(name: str | None) -> Format | None:
    """The registered format of that name, or None."""
    return REGISTRY.get(name or "")


def get(name: str) -> Format:
    """The registered format of that name; ValueError naming the known ones otherwise."""
    fmt = REGISTRY.get(name) if isinstance(name, str) else None
    if fmt is None:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(REGISTRY)}")
    return fmt


def names() -> tuple[str, ...]:
    """Every registered format's name, in the order they were registered."""
    return tuple(REGISTRY)


def _suffixes(path: str | os.PathLike) -> tuple[str, str]:
    """(the last two suffixes, the last), lower case, cut by ``os.path.splitext`` ("" for none)."""
    root, last = os.path.splitext(os.fspath(path))
    before = os.path.splitext(root)[1]
    return ((before + last).lower() if before and last else ""), last.lower()


def _by_extension(path: str | os.PathLike) -> Format | None:
    two, one = _suffixes(path)
    return _BY_EXTENSION.get(two) if two in _BY_EXTENSION else _BY_EXTENSION.get(one)


def detect(path: str | os.PathLike) -> Format:
    """The format a path's extension names (two suffixes first: ``.csv.gz``); else text."""
    return _by_extension(path) or REGISTRY[_DEFAULT]


def described(*, applied: bool = False) -> str:
    """The registered formats in registration order, for a command's help: "JSONL (.jsonl
    .ndjson), ..., Excel (.xlsx .xlsm .xls; extra excel)", the format of a path no extension
    names last ("plain text (any other name)"); ``applied``: only those apply reads."""
    parts, default = [], REGISTRY.get(_DEFAULT)
    for fmt in REGISTRY.values():
        if fmt is default or (applied and not fmt.applies):
            continue
        notes = " ".join(fmt.extensions) + (f"; extra {fmt.extra}" if fmt.extra else "")
        parts.append(f"{fmt.label or fmt.name} ({notes})")
    if default is not None and not (applied and not default.applies):
        parts.append(f"{default.label or default.name} (any other name)")
    return ", ".join(parts)


def output_extensions() -> dict[str, str]:
    """Every extension apply writes -> its format's name."""
    return {ext: fmt.name for fmt in REGISTRY.values() for ext in fmt.writes}


def output_format(path: str | os.PathLike) -> Format:
    """The format apply writes to ``path``; ValueError (one line) for another extension."""
    fmt = _by_extension(path)
    two, one = _suffixes(path)
    if fmt is None or (two if two in fmt.writes else one) not in fmt.writes:
        known = ", ".join(sorted(output_extensions()))
        raise ValueError(
            f"cannot tell the output format from {os.fspath(path)!r}: name it with one of {known}"
        )
    return fmt


def resolve(
    path: str | os.PathLike, fmt: str | None, encoding: str = DEFAULT_ENCODING
) -> tuple[str, Format]:
    """(the path as a string, its format: ``fmt`` if given, else detected, reading ``encoding``);
    the file must exist."""
    path = os.fspath(path)
    kind = (detect(path) if fmt is None else get(fmt)).encoded(encoding)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, "No such file", path)
    return path, kind


def batched(records: Iterator[Any], size: int) -> Iterator[list]:
    """Lists of ``size`` items (the last may be shorter)."""
    while True:
        chunk = list(itertools.islice(records, size))
        if not chunk:
            return
        yield chunk
