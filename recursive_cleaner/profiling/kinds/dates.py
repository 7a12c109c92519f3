"""Kinds of dates and times: ISO dates, timestamps (ISO 8601, or the one form the goals write), 24-
and 12-hour times."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any

from ... import toolkit
from ...errors import clip_text
from ._base import Candidate, Kind
from ._values import form_template, real_date

__all__ = ["Date", "DateTime", "Time", "Time12", "dayfirst_from_words"]

_DAY_FIRST = re.compile(r"\bday[\s-]*first\b|\bdd\s*[/.\-]\s*mm\b|\bday\s*[/,.]\s*month\b", re.I)
_MONTH_FIRST = re.compile(
    r"\bmonth[\s-]*first\b|\bmm\s*[/.\-]\s*dd\b|\bmonth\s*[/,.]\s*day\b", re.I
)
_ISO_TEMPLATE = re.compile(r"\byyyy\s*[/.\-]\s*mm\s*[/.\-]\s*dd\b", re.I)

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ISO_DATETIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
)
_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?")
_TIME12 = re.compile(r"(1[0-2]|[1-9]):[0-5]\d [ap]\.m\.")


def dayfirst_from_words(words: str) -> bool | None:
    """True when the goals' words about the field say day first ("DD/MM/YYYY"), False for month
    first, else None."""
    words = _ISO_TEMPLATE.sub(" ", words or "")  # the MM-DD of YYYY-MM-DD is no order of the input
    day, month = bool(_DAY_FIRST.search(words)), bool(_MONTH_FIRST.search(words))
    return day if day != month else None


def _date_candidates(
    primitive: str, form: tuple, strings: list[str], words: str
) -> list[Candidate]:
    """Day first or month first: the goals' words, else a value such as 25/03, else month first."""
    order = dayfirst_from_words(words)
    order = toolkit.infer_dayfirst(strings) if order is None else order
    day, plain = (
        Candidate(primitive, kwargs=(("dayfirst", True),) + form),
        Candidate(primitive, kwargs=form),
    )
    if order:
        # the goals say day first: so for the whole file, whatever this chunk holds
        return [day, plain]
    if all(day.run(v) == plain.run(v) for v in strings):
        return [plain]  # no value where the order matters: the plain call
    return [plain, day]


# what writing a date or time may do: month names to digits, parts reordered, a timestamp cut
_DATE_CHANGES = frozenset({"labels", "words", "trimmed", "digits", "converted", "unknown"})


class Date(Kind):
    changes = _DATE_CHANGES
    name, primitive, priority, menu, noun = "date", "to_iso_date", 2, "date (YYYY-MM-DD)", "dates"
    words = "ISO dates (YYYY-MM-DD)"
    regex, regex_exact = _ISO_DATE.pattern, False  # and a real date

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, str) and bool(_ISO_DATE.fullmatch(value)) and real_date(value)

    def candidates(self, allowed, strings, words, examples) -> list[Candidate]:
        return _date_candidates(self.primitive, (), strings, words)


class DateTime(Kind):
    """ISO 8601 timestamps; with ``allowed = (form,)`` exactly that strftime form ("%Y-%m-%d
    %H:%M")."""

    changes = _DATE_CHANGES

    name, primitive, priority = "datetime", "to_iso_datetime", 1
    menu, noun = "datetime (YYYY-MM-DDTHH:MM:SS)", "timestamps"
    regex, regex_exact = _ISO_DATETIME.pattern, False  # and a real date

    def regex_for(self, allowed) -> str:
        return "" if allowed else self.regex  # written another way: strptime's form says it

    def problem(self, allowed) -> str:
        """A form must be one ``strptime`` reads back what ``strftime`` writes with it ("%Y%Y"
        named a group twice: a raw ``re.error`` in every check)."""
        if not allowed:
            return ""
        form = str(allowed[0])
        try:
            probe = _dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=_dt.timezone.utc)
            _dt.datetime.strptime(probe.strftime(form), form)
        except (re.error, ValueError, TypeError, OverflowError) as exc:
            return f"the datetime form {clip_text(repr(form), 80)} cannot be read ({exc})"
        return ""

    def describe(self, allowed, csv_strings=False) -> str:
        if allowed:
            return f"timestamps written as {form_template(allowed[0])}"
        return "ISO 8601 timestamps (YYYY-MM-DDTHH:MM:SS)"

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        if not isinstance(value, str):
            return False
        if allowed:  # written another ISO way ("%Y-%m-%d %H:%M"): exactly that form
            try:
                return _dt.datetime.strptime(value, allowed[0]).strftime(allowed[0]) == value
            except ValueError:
                return False
        m = _ISO_DATETIME.fullmatch(value)
        return bool(m) and real_date(m.group(1))

    def candidates(self, allowed, strings, words, examples) -> list[Candidate]:
        return _date_candidates(
            self.primitive, (("form", allowed[0]),) if allowed else (), strings, words
        )


class Time(Kind):
    changes = _DATE_CHANGES | {"added"}
    name, primitive, priority, menu, noun = (
        "time",
        "to_time_24h",
        4,
        "time (24-hour HH:MM)",
        "times",
    )
    words = "24-hour times (HH:MM)"
    regex = _TIME.pattern

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, str) and bool(_TIME.fullmatch(value))


class Time12(Kind):
    changes = _DATE_CHANGES | {"added"}
    name, primitive, priority, menu = "time12", "to_time_12h", 3, "time12 (7:10 a.m.)"
    words = "12-hour times (7:10 a.m., 12:45 p.m.)"
    regex = _TIME12.pattern

    def conforms(self, value: Any, allowed, csv_strings=False) -> bool:
        return isinstance(value, str) and bool(_TIME12.fullmatch(value))
