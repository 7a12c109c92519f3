"""What a run's result depends on, as the state file records it: goals, spec, the generating
options, the data.

``make_fingerprint(options, file_path)`` is a small dict of hashes saved as the state file's
``fingerprint``; ``changes(saved, current, ...)`` names the parts that differ, so a second run
with other goals on the same state file refuses (``load_matching_state``) instead of handing
back the first run's functions.

The data file is recorded by its size and the sha256 of its whole content (``content``), read
once at the start of a run as a stream of 1 MiB blocks; ``head`` (the sha256 of its first 64 KiB)
is kept beside it, the only digest state files from before had. Why the whole file: an edit past
the first 64 KiB that kept the size resumed the old run as if it were the same data, and any
sample of blocks misses an edit between them; unlike a modification time a content hash does
not change when the same file is copied or touched. The cost is one more read of a file the run
reads whole anyway to count its chunks (sha256 runs at 0.3 to 1.5 GB/s, several times faster than
parsing the records). A state file holding only ``head`` is compared by it, as before.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from ..options import Options
from ..profiling.spec import load_spec

__all__ = [
    "FINGERPRINT_VERSION",
    "HEAD_BYTES",
    "OPERATIONAL",
    "LATER_DEFAULTS",
    "generating_options",
    "make_fingerprint",
    "data_identity",
    "changes",
    "describe_changes",
]

FINGERPRINT_VERSION = 1
HEAD_BYTES = 64 * 1024
_BLOCK = 1 << 20  # bytes hashed at a time
OPERATIONAL = frozenset(
    {
        "output_path",
        "report_path",
        "backend",
        "backend_options",
        "llm_attempts",
        "sandbox_timeout",
        "track_metrics",
        "ground_truth",
        "metrics_sample",
        "instructions",
        "spec",
        "labels",
    }
)
"""Options that do not change what is generated (or that have a part of their own: goals, spec,
labels)."""
LATER_DEFAULTS = {"encoding": "utf-8", "labels": None, "labels_key": None}
"""Options added after the first fingerprints, left out of the digest at these defaults: a state
file saved before them still matches the same options given again."""


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def generating_options(options: Options | dict[str, Any]) -> dict[str, Any]:
    """The options that change what a run generates (everything but ``OPERATIONAL``, and
    ``LATER_DEFAULTS`` at their default)."""
    values = options.to_dict() if isinstance(options, Options) else dict(options)
    return {
        k: v
        for k, v in values.items()
        if k not in OPERATIONAL and not (k in LATER_DEFAULTS and v == LATER_DEFAULTS[k])
    }


def data_identity(path: str | os.PathLike) -> dict[str, Any]:
    """The data file as the fingerprint records it: absolute path, size, the sha256 of its first
    64 KiB (``head``) and of all of it (``content``)."""
    head, whole = hashlib.sha256(), hashlib.sha256()
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            first = f.read(HEAD_BYTES)
            head.update(first)
            whole.update(first)
            for block in iter(lambda: f.read(_BLOCK), b""):
                whole.update(block)
    except OSError:
        return {"path": os.path.abspath(path), "size": None, "head": None, "content": None}
    return {
        "path": os.path.abspath(path),
        "size": size,
        "head": head.hexdigest()[:32],
        "content": whole.hexdigest()[:32],
    }


def _spec_digest(spec: str | dict | None) -> str | None:
    """The user's field spec by its content (None when none was given); a spec that cannot be read
    by its text."""
    if spec is None:
        return None
    try:
        return _digest(load_spec(spec).to_dict())
    except ValueError:
        return _digest(spec)


def _labels_digest(labels: str | list | None) -> str | None:
    """The user's corrected rows by their content (a file's bytes, a list's records); None: none."""
    if labels is None:
        return None
    if isinstance(labels, (str, os.PathLike)):
        return data_identity(labels)["content"]
    return _digest(labels)


def make_fingerprint(options: Options, file_path: str | os.PathLike) -> dict[str, Any]:
    """The state file's ``fingerprint``: one hash per part a result depends on, and the data file's
    identity (``labels`` only when given: a state file from before them still matches)."""
    out = {
        "version": FINGERPRINT_VERSION,
        "goals": _digest(options.instructions),
        "spec": _spec_digest(options.spec),
        "options": _digest(generating_options(options)),
        "data": data_identity(file_path),
    }
    labels = _labels_digest(getattr(options, "labels", None))
    return out | ({"labels": labels} if labels is not None else {})


def changes(
    saved_state: dict[str, Any],
    current: dict[str, Any],
    options: Options,
    *,
    compare_options: bool = True,
) -> list[str]:
    """What differs between a state file and this run, in words ("other goals", "other options
    (seed)", ...).

    A state file written before fingerprints (none saved) is compared by its goals only: it still
    resumes.
    """
    saved = saved_state.get("fingerprint")
    if not isinstance(saved, dict):
        same_goals = saved_state.get("instructions") == options.instructions
        return [] if same_goals else ["other goals"]
    found = []
    if saved.get("goals") != current["goals"]:
        found.append("other goals")
    if saved.get("spec") != current["spec"]:
        found.append("another field spec")
    if saved.get("labels") != current.get("labels"):
        found.append("other corrected rows (labels)")
    if compare_options and saved.get("options") != current["options"]:
        before = generating_options(saved_state.get("options") or {})
        now = generating_options(options)
        named = sorted(k for k in now if k in before and before[k] != now[k])
        found.append("other options" + (f" ({', '.join(named)})" if named else ""))
    data, here = saved.get("data"), current["data"]
    # a size that changed is checkpoint.check_input's to report (with the sizes and chunk counts)
    if isinstance(data, dict) and data.get("size") == here["size"]:
        if data.get("content") is not None:
            if data.get("content") != here.get("content"):
                found.append("another version of the data file (its content differs)")
        elif data.get("head") != here["head"]:  # a state file from before ``content``
            found.append("another version of the data file (its first 64 KiB differ)")
    return found


def describe_changes(state_file: str | os.PathLike, found: list[str]) -> str:
    """The one-line refusal for ``found`` (``changes``)."""
    what = " and ".join(found) if len(found) < 3 else ", ".join(found[:-1]) + " and " + found[-1]
    return (
        f"state file {os.fspath(state_file)} was made with {what}; use restart=True / --restart to "
        "start afresh "
        "(or another state file)"
    )
