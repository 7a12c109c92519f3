"""A unit conversion the goals state: ``Conversion`` and its entry in cleaning_spec.json."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["Conversion", "load_conversions"]


@dataclass(frozen=True)
class Conversion:
    """``value`` (a number) where ``unit`` spells ``source`` becomes ``target``: times or divided by
    ``by``."""

    value: str
    unit: str
    source: str
    target: str
    op: str  # "multiply" or "divide"
    by: float
    places: int | None = None
    words: str = ""

    def describe(self) -> str:
        rounded = (
            ""
            if self.places is None
            else f", rounded to {self.places} decimal{'s' * (self.places != 1)}"
        )
        return (
            f"{self.value} in {self.source} ({self.unit}) becomes {self.target}: "
            f"{'x' if self.op == 'multiply' else '/'} {self.by:g}{rounded}"
        )

    def call(self) -> str:
        """The toolkit call of the generated function."""
        places = "" if self.places is None else f", places={self.places}"
        by = int(self.by) if float(self.by).is_integer() else self.by
        return (
            f"convert_unit(record.get({self.value!r}), record.get({self.unit!r}), {self.source!r}, "
            f"{self.target!r}, {self.op}={by!r}{places})"
        )

    def function(self, name: str) -> tuple[str, str]:
        """(docstring, code) of the generated function."""
        docstring = (
            f"{self.describe()} (the goals' conversion: convert_unit; other spellings of "
            f"{self.target} too)."
        )
        code = (
            "from recursive_cleaner.toolkit import convert_unit\n\n\n"
            f"def {name}(record):\n"
            f"    record = dict(record)\n"
            f"    if {self.value!r} in record and {self.unit!r} in record:\n"
            f"        record[{self.value!r}], record[{self.unit!r}] = {self.call()}\n"
            f"    return record\n"
        )
        return docstring, code

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: v for k, v in d.items() if v not in (None, "")}


def load_conversions(
    given: Any, where: str, fields: set[str] | None = None
) -> tuple[Conversion, ...]:
    """``cleaning_spec.json``'s ``conversions``; ValueError naming what is wrong."""
    if given in (None, []):
        return ()
    if not isinstance(given, list):
        raise ValueError(f"{where}: conversions must be a list of objects")
    out = []
    for i, d in enumerate(given):
        what = f"{where}: conversions[{i}]"
        if not isinstance(d, dict):
            raise ValueError(f"{what} must be an object")
        missing = [k for k in ("value", "unit", "source", "target", "op", "by") if k not in d]
        if missing:
            raise ValueError(f"{what} needs {', '.join(missing)}")
        if d["op"] not in ("multiply", "divide"):
            raise ValueError(f"{what}: op must be multiply or divide, got {d['op']!r}")
        by, places = d["by"], d.get("places")
        if isinstance(by, bool) or not isinstance(by, (int, float)) or not 0 < abs(by) < 1e12:
            raise ValueError(f"{what}: by must be a non-zero number, got {by!r}")
        if places is not None and (
            isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= 12
        ):
            raise ValueError(
                f"{what}: places must be a whole number from 0 to 12 or null, got {places!r}"
            )
        for key in ("value", "unit", "source", "target"):
            if not isinstance(d[key], str) or not d[key]:
                raise ValueError(f"{what}: {key} must be a non-empty string")
        for key in ("value", "unit"):
            if fields is not None and d[key] not in fields:
                raise ValueError(f"{what}: {key} {d[key]!r} is no field of the spec")
        out.append(
            Conversion(
                d["value"],
                d["unit"],
                d["source"],
                d["target"],
                d["op"],
                float(by),
                places,
                str(d.get("words", "")),
            )
        )
    return tuple(out)
