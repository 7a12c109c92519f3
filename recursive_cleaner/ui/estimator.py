"""``Cleaner``: the cleaning as a fitted object, scikit-learn style (issue 31).

``Cleaner(goals, backend, **options)`` only stores what it is given (its parameters are the
goals, the backend, ``progress`` and DataCleaner's keyword options: ``get_params`` /
``set_params``, so ``sklearn.base.clone`` and ``sklearn.pipeline.Pipeline`` take it, with no
dependency on scikit-learn). ``fit(data)`` runs the generation (``clean``: a DataCleaner on a
path, a DataFrame or a list of dicts); what it learns is ``result_`` (a ``CleanResult``): the
module's source ``code_``, the cross-row steps ``cross_row_steps_`` and the field spec ``spec_``.
``transform(data)`` applies them through the sandboxed apply path (``apply_frame`` with the
cross-row steps for a DataFrame, ``apply_records`` for a list of dicts, ``apply_file`` for a path).
``save(path)`` / ``Cleaner.load(path)``: one JSON file with the goals, the plain options, the
backend's spec string (never an object) and the fitted result; loading reads JSON only, the code
runs nowhere but in the sandbox's workers when ``transform`` applies it. A loaded file never
chooses the backend nor a path to write or read (``ui.artifact``): those are given again or the
defaults apply, and a warning names what the file held.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

from .._version import __version__
from ..cleaner import DataCleaner
from ..apply.check import SpecCheck, validate
from ..apply.local import apply_file, apply_records
from ..given_options import flat_options
from ..options import BY_NAME, GROUPS
from ..profiling.spec import CleaningSpec, load_spec
from ..write.state import atomic_write_text
from .artifact import STEERING_OPTIONS, left_out_message, steering_left_out
from .cli_options import default_backend
from .entry import CleanResult, clean, is_frame, read_json
from .frames import apply_frame

__all__ = ["Cleaner", "CLEANER_FORMAT", "CLEANER_VERSION"]

CLEANER_FORMAT = "recursive_cleaner.cleaner"
CLEANER_VERSION = 1
# DataCleaner's keywords that are neither an option nor the data, goals or backend
_EXTRA = frozenset({"on_progress", "state_file"})
_OWN = ("goals", "backend", "progress")


class Cleaner:
    """Goals and options in, a fitted cleaning out: ``fit`` writes the functions, ``transform``
    applies them.

    ``backend``: a spec string ("local", "openai:MODEL@URL"), an object with ``generate(prompt)``
    or a callable; None: ``$RECURSIVE_CLEANER_BACKEND``, else "local". ``options``: DataCleaner's
    keyword options (flat, ``chunk_size=20``, or groups, ``judging=Judging(...)``); like ``clean``,
    a fit writes ``cleaning_functions.py``, the spec and the report where ``output_path`` /
    ``report_path`` say (the working folder by default). ``progress``: the live progress display.
    """

    def __init__(
        self, goals: str = "", backend: Any = None, *, progress: bool = False, **options: Any
    ) -> None:
        self.goals = goals
        self.backend = backend
        self.progress = progress
        self._options = dict(options)

    # ------------------------------------------------------------- scikit-learn's protocol

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments by name: goals, backend, progress and each option given."""
        return {"goals": self.goals, "backend": self.backend, "progress": self.progress} | dict(
            self._options
        )

    def set_params(self, **params: Any) -> "Cleaner":
        """Change parameters (an option by its DataCleaner keyword); ValueError for an unknown
        one."""
        for name, value in params.items():
            if name in _OWN:
                setattr(self, name, value)
            elif _known(name):
                self._options[name] = value
            else:
                raise ValueError(
                    f"Cleaner has no parameter {name!r}: goals, backend, progress or a "
                    "DataCleaner option (docs/options.md)"
                )
        return self

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "result_")

    def __sklearn_tags__(self) -> Any:
        """What scikit-learn (1.6+, which alone calls this) needs to know: a transformer of any
        data, not deterministic."""
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=TransformerTags(preserves_dtype=[]),
            input_tags=InputTags(string=True, dict=True, allow_nan=True),
            no_validation=True,
            non_deterministic=True,
        )

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if k != "goals")
        goals = self.goals if len(self.goals) <= 40 else self.goals[:37] + "..."
        return f"Cleaner(goals={goals!r}, {shown})"

    # ------------------------------------------------------------------- fit and transform

    def fit(self, X: Any, y: Any = None) -> "Cleaner":
        """Write the cleaning functions for ``X`` (a path, a DataFrame or a list of dicts); self.

        ``y`` is ignored (scikit-learn's signature)."""
        unknown = [name for name in self._options if not _known(name)]
        if unknown:
            raise TypeError(f"Cleaner got an unexpected option {unknown[0]!r} (docs/options.md)")
        self._fitted(clean(X, self.goals, self.backend, progress=self.progress, **self._options))
        return self

    def plan(self, X: Any) -> Any:
        """How the goals read against ``X`` before any model call (``DataCleaner.plan``): each
        field's target and the clause that binds it, what is left alone and why, what nothing
        binds; ``print`` it. No model is called (but the draft, when ``draft_spec`` asks)."""
        unknown = [name for name in self._options if not _known(name)]
        if unknown:
            raise TypeError(f"Cleaner got an unexpected option {unknown[0]!r} (docs/options.md)")
        backend = self.backend if self._options.get("draft_spec") else _no_model
        return DataCleaner(backend, X, instructions=self.goals, **self._options).plan()

    def transform(
        self, X: Any, output: str | os.PathLike | None = None, **apply_options: Any
    ) -> Any:
        """The fitted functions and cross-row steps applied to ``X``, in the sandbox's workers.

        A DataFrame gives a DataFrame (same index; a row a dedup step drops is left out), a list
        of dicts a list; a path writes ``output`` (default ``NAME.clean.EXT`` beside it, its
        extension sets the format) and gives its path, read in the ``encoding`` option (unless
        given here). ``apply_options``: ``apply_file``'s (``workers``, ``max_drop``,
        ``max_failures``: past it ApplyError, ...).
        """
        result = self._result()
        where = result.functions_path or "cleaning_functions.py"
        if isinstance(X, (str, os.PathLike)):
            source = Path(X)
            out = Path(output) if output is not None else source.with_name(_clean_name(source))
            encoding = flat_options(self._options, "Cleaner").get("encoding", "utf-8")
            apply_options.setdefault("encoding", encoding)
            apply_options.setdefault("spec", result.spec or None)  # types the output (out_types)
            apply_file(where, os.fspath(source), os.fspath(out), code=result.code, **apply_options)
            return os.fspath(out)
        if output is not None:
            raise TypeError("output is for a path; a DataFrame or a list of dicts comes back")
        if is_frame(X):
            apply_options.setdefault("cross_row", True)
            apply_options.setdefault("spec", result.spec or None)  # typed columns (out_types)
            return apply_frame(where, X, code=result.code, **apply_options)
        return list(apply_records(result.code, [dict(r) for r in X], **apply_options))

    def fit_transform(self, X: Any, y: Any = None, **apply_options: Any) -> Any:
        """``fit(X)`` then ``transform(X)``."""
        return self.fit(X, y).transform(X, **apply_options)

    def validate(self, data: Any, **options: Any) -> SpecCheck:
        """The cells of ``data`` that break the fitted spec, per field (``validate``)."""
        return validate(data, self.spec, **options)

    def to_pandera(self, **options: Any) -> Any:
        """The fitted spec as a ``pandera`` DataFrameSchema (``CleaningSpec.to_pandera``)."""
        return self.spec.to_pandera(**options)

    # ------------------------------------------------------------------- fitted state

    @property
    def spec(self) -> CleaningSpec:
        """The fitted field spec as a ``CleaningSpec``."""
        spec = self._result().spec
        return load_spec(spec) if spec else CleaningSpec()

    def _fitted(self, result: CleanResult) -> None:
        self.result_ = result
        self.code_ = result.code
        self.cross_row_steps_ = result.cross_row_steps
        self.spec_ = result.spec
        self.functions_ = result.functions

    def _result(self) -> CleanResult:
        if not hasattr(self, "result_"):
            raise ValueError(
                "this Cleaner is not fitted yet: call fit(data) or Cleaner.load(path) first"
            )
        if not self.result_.code:
            raise ValueError("this Cleaner has no functions to apply (a dry run writes none)")
        return self.result_

    def save(self, path: str | os.PathLike) -> str:
        """Write the fitted cleaner as one JSON file (goals, plain options, backend spec, code,
        steps, spec); its path."""
        result = self._result()
        options, left_out = _plain_options(self._options)
        data = {
            "format": CLEANER_FORMAT,
            "version": CLEANER_VERSION,
            "library": __version__,
            "goals": self.goals,
            "backend": self.backend if isinstance(self.backend, str) else None,
            "options": options,
            "options_left_out": left_out,
            "result": result.to_dict(),
        }
        atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return os.fspath(path)

    @classmethod
    def load(cls, path: str | os.PathLike, **params: Any) -> "Cleaner":
        """A cleaner saved with ``save``, fitted; ``params`` set or replace its parameters
        (``backend=`` to fit again). ValueError naming the file and what is wrong.

        The file is data: its backend and the options naming a file (``output_path``,
        ``report_path``, ``log_calls``, ``ground_truth``, a ``spec`` file, ``state_file``) are not
        restored, the defaults apply until ``params`` give them again; a UserWarning names what
        the file chose that was left out."""
        where = f"cleaner file {os.fspath(path)}"
        data = read_json(path, "cleaner file")
        if not isinstance(data, dict) or data.get("format") != CLEANER_FORMAT:
            raise ValueError(f'{where} is not a saved Cleaner (no "format": "{CLEANER_FORMAT}")')
        if not isinstance(data.get("version"), int) or data["version"] > CLEANER_VERSION:
            raise ValueError(
                f"{where} has version {data.get('version')!r}; this library reads up to "
                f"{CLEANER_VERSION}"
            )
        goals, options = data.get("goals", ""), data.get("options", {})
        backend = data.get("backend")
        if not isinstance(goals, str) or not isinstance(options, dict):
            raise ValueError(f"{where}: 'goals' must be text and 'options' an object")
        if backend is not None and not isinstance(backend, str):
            raise ValueError(f"{where}: 'backend' must be a spec string or null")
        # flat names only (what save writes): a group's plain value would name a path unseen
        unknown = [n for n in options if not _known(n) or (n in GROUPS and n not in BY_NAME)]
        if unknown:
            raise ValueError(f"{where}: {unknown[0]!r} is not a DataCleaner option")
        result = CleanResult.from_dict(
            data.get("result"), f"{where}: its result", functions_path=path
        )
        try:
            if result.spec:
                load_spec(result.spec)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        left_out = steering_left_out(backend, options, default_backend())
        kept = {k: v for k, v in options.items() if k not in STEERING_OPTIONS}
        if isinstance(options.get("spec"), dict):  # a spec held in the file is data
            kept["spec"] = options["spec"]
        cleaner = cls(goals, None, **kept)
        cleaner.set_params(**params)
        cleaner._fitted(result)
        unsaid = {k: v for k, v in left_out.items() if k not in params}
        if unsaid:
            warnings.warn(left_out_message(where, unsaid), UserWarning, stacklevel=2)
        return cleaner


def _known(name: str) -> bool:
    """A DataCleaner keyword a Cleaner passes on: an option (flat), a group, or on_progress /
    state_file."""
    return name in _EXTRA or name in GROUPS or (name in BY_NAME and name != "instructions")


def _plain_options(options: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The options by flat name that JSON keeps as they are (paths as text); the names left
    out."""
    kept, left_out = {}, []
    for name, value in flat_options(options, "Cleaner").items():
        value = os.fspath(value) if isinstance(value, os.PathLike) else value
        if _plain(value):
            kept[name] = value
        else:
            left_out.append(name)
    return kept, left_out


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _clean_name(source: Path) -> str:
    """``data.csv`` -> ``data.clean.csv``; ``data.csv.gz`` -> ``data.clean.csv.gz``."""
    name = source.name
    cut = name.find(".", 1)
    return f"{name}.clean" if cut < 0 else f"{name[:cut]}.clean{name[cut:]}"


def _no_model(prompt: str) -> str:
    """The backend of a plan: it makes no call."""
    raise RuntimeError("plan() makes no model call")
