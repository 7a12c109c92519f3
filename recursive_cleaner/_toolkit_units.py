"""Units and value shapes behind the toolkit's to_unit, convert_unit and to_shape.

Each ``_name(value, option)`` parser returns the converted value, or ``value`` itself when it
cannot parse it; the toolkit wraps them in ``_stable`` (total and idempotent). Standard library
only: the sandbox loads this file with the toolkit (``judge.sandbox._child_setup``).
"""

import re as _re

from ._toolkit_numbers import _number, without_float_noise

# for the toolkit and the library
__all__ = ["_to_unit", "_convert_unit", "_shape", "UNITS", "_unit", "same_unit", "unit_key"]

# (dimension, size in the dimension's base unit: grams, metres, litres), by every spelling (lower
# case,
# dots and spaces removed); US customary sizes for gallons, pints, quarts and fluid ounces.
_SIZES = (
    ("mass", 0.001, "mg milligram milligrams milligramme milligrammes"),
    ("mass", 1.0, "g gr grs gram grams gramme grammes"),
    ("mass", 1000.0, "kg kgs kilo kilos kilogram kilograms kilogramme kilogrammes"),
    ("mass", 1_000_000.0, "t tonne tonnes"),
    ("mass", 453.59237, "lb lbs pound pounds"),
    ("mass", 28.349523125, "oz ozs ounce ounces"),
    ("length", 0.001, "mm millimeter millimeters millimetre millimetres"),
    ("length", 0.01, "cm centimeter centimeters centimetre centimetres"),
    ("length", 1.0, "m meter meters metre metres"),
    ("length", 1000.0, "km kms kilometer kilometers kilometre kilometres"),
    ("length", 0.0254, 'in inch inches "'),
    ("length", 0.3048, "ft foot feet '"),
    ("length", 0.9144, "yd yds yard yards"),
    ("length", 1609.344, "mi mile miles"),
    ("volume", 0.001, "ml milliliter milliliters millilitre millilitres"),
    ("volume", 0.01, "cl centiliter centiliters centilitre centilitres"),
    ("volume", 0.1, "dl deciliter deciliters decilitre decilitres"),
    ("volume", 1.0, "l ltr ltrs lt liter liters litre litres"),
    ("volume", 3.785411784, "gal gals gallon gallons usgal usgals usgallon usgallons"),
    ("volume", 0.473176473, "pt pint pints"),
    ("volume", 0.946352946, "qt quart quarts"),
    ("volume", 0.0295735295625, "floz fluidounce fluidounces"),
)
UNITS = {name: (dimension, size) for dimension, size, names in _SIZES for name in names.split()}
_AMOUNT = _re.compile(
    r"\s*([-+]?[0-9][0-9.,' ]*?|[-+]?[.,][0-9]+)\s*([a-zA-Z\"'µ][a-zA-Z. \"']{0,24}?)?\s*\.?\s*"
)


def _unit(text):
    """(dimension, size) of a unit's spelling ("kg", "Kilograms", "fl. oz."), or None."""
    if not isinstance(text, str):
        return None
    return UNITS.get(text.lower().replace(".", "").replace(" ", ""))


def unit_key(text):
    """A unit's spelling compared loosely: lower case, spaces and dots removed ("mg / dL" ->
    "mg/dl")."""
    return text.lower().replace(".", "").replace(" ", "") if isinstance(text, str) else None


def same_unit(a, b):
    """``a`` and ``b`` spell the same unit: the same loose spelling ("mmol/l", "mmol/L"), or one
    size of a unit the table knows ("litres", "L"; "US gal", "gallons")."""
    ka, kb = unit_key(a), unit_key(b)
    if not ka or not kb:
        return False
    return ka == kb or (ka in UNITS and UNITS.get(ka) == UNITS.get(kb))


def _convert_unit(value, unit, source, target, op, by, places, decimal):
    """(value, unit) converted where ``unit`` spells ``source``; the unit alone set where it spells
    ``target``."""
    if same_unit(unit, target):
        return value, target
    if not same_unit(unit, source):
        return value, unit
    if isinstance(value, bool):
        return value, unit
    number = (
        float(value)
        if isinstance(value, (int, float))
        else _number(value.strip(), "float", decimal)
        if isinstance(value, str) and len(value) <= 64
        else None
    )
    if not isinstance(number, float) or number != number or number in (float("inf"), float("-inf")):
        # nothing to convert: the row keeps its unit, so it still says what it is
        return value, unit
    number = number * by if op == "multiply" else number / by
    if places is None:
        return without_float_noise(number), target
    return (int(round(number)) if places == 0 else round(number, places)), target


def _to_unit(value, option):
    target, digits, decimal = option
    unit = _unit(target)
    if unit is None or not isinstance(value, str) or len(value) > 64:
        return value  # a number is already one in the target unit
    match = _AMOUNT.fullmatch(value)
    if match is None:
        return value
    number = _number(match[1].strip(), "float", decimal)
    if not isinstance(number, float):
        return value
    if match[2]:
        given = _unit(match[2])
        if given is None or given[0] != unit[0]:
            return value  # no unit we know, or another dimension (a length in a weight field)
        number = number * given[1] / unit[1]
    if digits is not None:
        return round(number, digits)
    return without_float_noise(number)


_MAX_SHAPE = 200
_RUN = _re.compile(r"[^\W\d_]+|\d+")  # a run of letters or of digits


def _refines(value: str, example: str) -> bool:
    """Each group of ``example``'s letters or digits is whole groups of ``value``'s, in order
    ("Ab.12.34": "AB-1234")."""
    runs = [len(r) for r in _RUN.findall(value)]
    k = 0
    for size in (len(r) for r in _RUN.findall(example)):
        total = 0
        while total < size and k < len(runs):
            total, k = total + runs[k], k + 1
        if total != size:
            return False
    return k == len(runs)


# a word of letters in front ("ISBN: 978…", "c1998", "c. 1994") or behind ("1998 AD")
_LEAD_LABEL = _re.compile(r"^\s*[^\W\d_]+[\s.:#]*")
_TAIL_LABEL = _re.compile(r"[\s.:#]*[^\W\d_]+\s*$")


def _unlabelled(value, example):
    """``value`` without a word of letters in front or behind where ``example`` has none."""
    alnum = [c for c in example if c.isalnum()]
    if alnum and not alnum[0].isalpha():
        value = _LEAD_LABEL.sub("", value, count=1)
    if alnum and not alnum[-1].isalpha():
        value = _TAIL_LABEL.sub("", value, count=1)
    return value


_MAX_FORMS = 20


def _shape(value, example, label=False):
    """``value``'s letters and digits in the form of ``example``: case and separators from it, slot
    by slot; with ``label``, a word in front or behind that the example has no letters for is
    dropped first ("ISBN: 978-…", "c1998"). ``example`` may be a list of forms (at most 20): the
    one result the forms that fit agree on, else the value unchanged."""
    if isinstance(example, (list, tuple)) and isinstance(value, str):
        found = {_shape(value, one, label) for one in example[:_MAX_FORMS]} - {value}
        return found.pop() if len(found) == 1 else value
    if not isinstance(value, str) or not isinstance(example, str) or len(value) > _MAX_SHAPE:
        return value
    slots = [c for c in example if c.isalnum()]
    if label and len([c for c in value if c.isalnum()]) != len(slots):
        bare = _unlabelled(value, example)
        if bare != value:
            shaped = _shape(bare, example)
            return value if shaped is bare else shaped
    chars = [c for c in value if c.isalnum()]
    if not slots or len(chars) != len(slots):
        return value
    if any(not c.isalnum() for c in value.strip()) and not _refines(value, example):
        # its own groups, of other lengths: "01.02.2024" is no "2024-02-01" read slot by slot
        return value
    out, k = [], 0
    for c in example:
        if not c.isalnum():
            out.append(c)
            continue
        v, k = chars[k], k + 1
        if c.isdigit() != v.isdigit() or c.isalpha() != v.isalpha():
            return value  # a letter where the example has a digit: another kind of code
        out.append(v.upper() if c.isupper() else v.lower() if c.islower() else v)
    return "".join(out)
