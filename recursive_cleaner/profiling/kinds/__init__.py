"""Field kinds, one class per kind in one registry (issue 29, point 0).

A kind is what a field's values should look like: its name, the toolkit primitive that writes it and
the parameters the data and goals call for (``Kind.candidates``: day-first dates, the decimal mark,
target units, an enumeration's aliases, a shape's example), what conforms (``Kind.conforms``), how
the report, the profile and the prompts describe it (``describe``, ``noun``), where it stands on the
model's draft menu (``menu``) and which wins when one field collects several (``priority``).
``profiling.expectations`` (``KINDS``, ``KIND_PRIMITIVES``, ``KIND_PRIORITY``, ``conforms``,
``Expectation.describe``), the profiler and the draft's menu are read from the registry, never from
tables of their own.

The built-ins are registered here, in the order the spec lists them; a plug-in registers its own
through the same door (``register(MyKind())``).

- ``dates``: date, datetime (ISO 8601, or ``allowed = (form,)``), time, time12;
- ``codes``: phone_e164, email, enum, country_alpha2, us_state, shape;
- ``numbers``: number, integer (``whole_as_int``, ``no_leading_zeros``, ``positive``), bool;
- ``text``: title_case, lower, upper, text, as_is.
"""

from __future__ import annotations

from ._base import REGISTRY, Candidate, Kind, by_priority, get, register
from .codes import CountryAlpha2, Email, Enum, PhoneE164, Shape, UsState
from .dates import Date, DateTime, Time, Time12
from .numbers import Bool, Integer, Number
from .text import AsIs, Lower, TitleCase, Text, Upper

__all__ = ["Kind", "Candidate", "REGISTRY", "register", "get", "by_priority"]

for _kind in (
    Date(),
    DateTime(),
    Time(),
    Time12(),
    PhoneE164(),
    Email(),
    Enum(),
    Number(),
    Integer(),
    CountryAlpha2(),
    UsState(),
    Bool(),
    TitleCase(),
    Lower(),
    Upper(),
    Text(),
    Shape(),
    AsIs(),
):
    register(_kind)
