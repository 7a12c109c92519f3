"""Unit conversions the goals state across two fields: a number field and the unit field beside it.

"Where the volume unit is gallons, multiply the volume by 3.785, round to 2 decimals and set the
unit to L"; "take the mg/dL number, divide by 18, round to one decimal, and put mmol/L as the unit";
"gallons to litres (x 3.785, 2 decimals) and miles to km (x 1.609, whole numbers)".

The words give only the factor and the rounding: ``multiply … by N``, ``times N``, ``x N``,
``× N``, ``divide … by N``, ``/ N``, ``÷ N``, or ``1 gal = 3.785 L``; ``N decimals`` / ``N dp`` /
``whole numbers``. The data gives the rest:

- the **unit field** is a field whose values are units (no digits: ``mg/dL``, ``gal``, ``km``) and
  hold a unit the sentence names before the factor (after it when none stands before);
- the sentence's two units of that field (spellings of one unit count once: ``litres`` is ``L``)
  are the source and the target; the **source** is the one fewer of the field's rows have (the
  goals convert the exceptions), the one the sentence names first when they tie; a target no row
  has yet counts too, when it is a unit the table knows in the source's dimension or another
  ``a/b`` unit beside an ``a/b`` source;
- the **value field** is the field the unit field's name names (``volume_unit`` -> ``volume``,
  ``odo_unit`` -> ``odometer``), else the column before it; most of its values at source rows
  must be numbers;
- the target is written as most rows of the unit field write it (``L``, not the goals' ``litres``).

A conversion writes nothing in a field the goals leave alone. It becomes one function of the
generated file (``function``): the toolkit's ``convert_unit``, which also writes other spellings of
the target (``ltr``, ``mmol/l``) as the target. ``CleaningSpec.conversions`` keeps each one
(``cleaning_spec.json``: ``"conversions"``), editable like the rest of the spec.
"""

from __future__ import annotations

from .conversion import Conversion, load_conversions
from .reading import read_conversions

__all__ = ["Conversion", "read_conversions", "load_conversions"]
