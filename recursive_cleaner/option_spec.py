"""How an option is declared: ``option(...)`` fields, ``OptionSpec``, the group base, and the flat
class made from the specs (``options`` holds the declaration itself)."""

from __future__ import annotations

import functools
from dataclasses import Field, asdict, dataclass, field, fields, make_dataclass, replace
from typing import Any, ClassVar

__all__ = [
    "BOTH",
    "option",
    "OptionSpec",
    "OptionGroup",
    "option_group",
    "group_specs",
    "FlatOptions",
    "flat_class",
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


class OptionGroup:
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
    def coerce(cls, value: Any) -> "OptionGroup":
        """``value`` as this group: the group, or a plain value for its ``PLAIN`` field."""
        if isinstance(value, cls):
            return value
        if cls.PLAIN is not None and isinstance(value, cls.PLAIN[1]):
            return cls(**{cls.PLAIN[0]: value})
        plain = f" or a {' / '.join(t.__name__ for t in cls.PLAIN[1])}" if cls.PLAIN else ""
        raise TypeError(
            f"{cls.KEYWORD}= takes {cls.__name__}(...){plain}, got {type(value).__name__}"
        )


def option_group(cls: type) -> type:
    """A frozen, keyword-only dataclass that remembers which fields its constructor was given."""
    cls = dataclass(frozen=True, kw_only=True)(cls)
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **given: Any) -> None:
        init(self, *args, **given)
        object.__setattr__(self, "_given", frozenset(given))

    cls.__init__ = __init__  # type: ignore[method-assign]
    return cls


def group_specs(cls: type, group: str | None) -> list[OptionSpec]:
    """The options a group declares, in order (``group``: its DataCleaner keyword; None: Basics)."""
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


class FlatOptions:
    """The methods of a flat options class such as ``Options`` (its fields come from the
    declaration)."""

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


def flat_class(name: str, specs: list[OptionSpec], extra: list[tuple[str, str]]) -> type:
    """A frozen dataclass with a field per spec (its flat name and stored type, its default) and
    the ``extra`` (name, type) fields defaulting to None; ``FlatOptions``' methods."""
    return make_dataclass(
        name,
        [*(_flat_field(s) for s in specs), *((n, t, field(default=None)) for n, t in extra)],
        bases=(FlatOptions,),
        frozen=True,
    )
