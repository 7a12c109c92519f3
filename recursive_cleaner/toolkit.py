CATALOGUE = (
    "Tested helpers: from recursive_cleaner.toolkit import to_iso_date, to_number, closest_value, "
    "...\n"
    "Each returns its input UNCHANGED when it cannot parse it (never raises) and is idempotent: "
    "f(f(x)) == f(x).\n"
    'Use one per field: record["signup"] = to_iso_date(record.get("signup")); record["status"] = '
    'closest_value(record.get("status"), ["active", "churned"])\n'
    'to_iso_date(v, *, dayfirst=False) -> "YYYY-MM-DD" from "2023-04-05T14:30:00Z", "4/5/2023" '
    '(month first unless dayfirst=True or the first number > 12), "12.03.1985" (dotted: day '
    'first), "20230405", "April 5, 2023", "5 Apr 23"\n'
    'to_iso_datetime(v, *, dayfirst=False, form=None) -> "YYYY-MM-DDTHH:MM:SS" (+HH:MM if an '
    'offset is given; a date alone gets T00:00:00) from "4/5/2023 2:30 PM", "2023-04-05 14:30"; '
    'form="%Y-%m-%d %H:%M" writes "2023-04-05 14:30" instead\n'
    'to_time_24h(v) -> "HH:MM" from "2:30 p.m.", "2:30PM", "7:05 a.m.", "14:30:00"\n'
    'to_time_12h(v) -> "2:30 p.m." from "14:30", "2:30PM", "2:30P", "07:05", "12:00noon", and from '
    'text around a time ("6:55 a.m. Dec 02", "12/02/2011 6:55 a.m.", "Thu 20:00")\n'
    'to_e164(v, *, default_country="1") -> "+15551234567" from "(555) 123-4567", "1-555-123-4567", '
    '"+44 20 7946 0123", "00 44 20 7946 0123"; extensions dropped\n'
    "to_number(v, *, integer=False, whole_as_int=False, decimal=None) -> float (int if "
    'integer=True; with whole_as_int=True whole values as int: "12.0 oz" -> 12, "16.9 oz" -> 16.9) '
    'from "$1,234.50", "USD 1,234.50", "1.234,50 €", "5.5%" -> 5.5, "12.0 oz" '
    '-> 12.0, "0.052000000000000005" -> 0.052 (float noise dropped); decimal="," reads "1,234" as '
    '1.234 and "14,90" as 14.9 (decimal="." reads "1,234" as 1234); scaled=True reads "52k" as '
    '52000, accounting=True "(12.50)" as -12.5 (else unchanged); a code ("ORD-5000") stays\n'
    'to_int(v) -> int from "CUST-01024", "cust_1024", "C01024", " 1024 ", "1024.0" (needs exactly '
    "one run of digits)\n"
    'strip_units(v) -> the number\'s text without currency, unit or %: "12.0 oz" -> "12.0", '
    '"$1,234.50" -> "1,234.50"\n'
    'to_count(v) / words_to_number(v) -> int from "twelve", "twenty-one", "one hundred and five", '
    '"a dozen"; to_count also from "12", "3 pcs", "three units", "x4", "4x"\n'
    'to_unit(v, target, *, digits=None) -> float in target ("kg", "g", "lb", "m", "cm", "in", "l", '
    '"ml", "gal", ...) from "500 g", "2 lb", "1,5 kg" (same dimension only; a bare number is '
    "already in target); digits=2 rounds / convert_unit(v, unit, source, target, *, multiply=None, "
    "divide=None, places=None) -> (v, unit) for a number field and its unit field: v converted "
    'where unit spells source ("gal", "US gal"), unit then target; a spelling of target ("ltr") '
    "becomes target\n"
    "to_shape(v, example, label=False) -> v's letters and digits in the example's form: to_shape("
    '"ab 1234", "AB-1234") -> "AB-1234" (same count of letters and digits, else unchanged); '
    'label=True first drops a word of letters the example has none for ("ISBN: 978-…", "c1998")\n'
    "closest_value(v, allowed, *, cutoff=0.6, default=None, aliases=None) -> the allowed spelling "
    'for case/space/punctuation variants, short forms of one entry ("HR": "Human Resources", '
    '"Eng": "Engineering", "high": "H") and typos ("actve", "CHURNED ", "Pendin g"); '
    'aliases={"elevated": "H"} adds spellings; no match: default if given, else v\n'
    "to_bool(v) -> True/False from yes/no, y/n, true/false, t/f, 1/0, on/off (any case)\n"
    'null_if_placeholder(v, extra=()) / is_null_like(v, extra=()) -> None / True for "", "N/A", '
    '"NA", "null", "None", "-", "--", "?", "empty", "unknown", "nan" (any case, any spaces) and '
    "the strings in extra, else v / False (is_null_like: True for None and NaN too)\n"
    "normalize_whitespace(v) -> stripped, inner runs of whitespace collapsed to one space\n"
    'title_case_name(v) -> "  ALICE   SMITH " -> "Alice Smith", "o\'brien" -> "O\'Brien", '
    '"mcdonald" -> "Mcdonald", "McDonald" and "de la Cruz" kept (never reorders)\n'
    "normalize_email(v) -> all whitespace removed, lower case\n"
    "to_lower(v) / to_upper(v) -> stripped, then lower / upper case\n"
    'to_country_code(v) -> ISO 3166 alpha-2 ("US") from "United States", "U.S.A.", "America", '
    '"UK", "Deutschland", "Holland", "DEU", "de"\n'
    'to_country_name(v) -> canonical English name ("United States", "United Kingdom", "Germany") '
    "from any of those\n"
    'to_us_state_code(v) -> "CA" from "California", "Calif.", "ca"; 50 states, DC, PR, GU, VI, AS, '
    "MP\n"
    'to_us_state_name(v) -> "California" from any of those\n'
)
# the module docstring IS the catalogue that goes into the model's prompt (kept under -OO too)
__doc__ = CATALOGUE

# Standard library only, and only modules the sandbox allows: the sandbox child loads this file by
# path before it arms its audit hook, so nothing here may open files, compile code or read frames at
# call time. The parsers are in the _toolkit_*.py parts (judge/sandbox/_child_setup.py loads them).

from ._toolkit_dates import _date_order, _iso_date, _iso_datetime, _time_12h, _time_24h
from ._toolkit_data import COUNTRIES as _COUNTRY_TABLE
from ._toolkit_data import US_STATES as _STATE_TABLE
from ._toolkit_numbers import (
    _count,
    _decimal_mark,
    _int,
    _number,
    _scaled_number,
    _strip_units,
    _words,
    without_float_noise,
)
from ._toolkit_units import _convert_unit, _shape, _to_unit, _unit
from ._toolkit_text import (
    _CACHE,
    _NOT_FOUND,
    _PLACEHOLDERS,
    _bool,
    _closest,
    _e164,
    _email,
    _lookup,
    _lower,
    _name,
    _place_key,  # noqa: F401 - read as toolkit._place_key by the tests
    _text_op,
    _upper,
    _whitespace,
)

PRIMITIVES: tuple[str, ...] = tuple(
    "to_iso_date to_iso_datetime to_time_24h to_time_12h to_e164 to_number to_int strip_units "
    "words_to_number to_count to_unit convert_unit to_shape closest_value to_bool "
    "null_if_placeholder is_null_like normalize_whitespace title_case_name normalize_email "
    "to_lower to_upper to_country_code to_country_name to_us_state_code to_us_state_name".split()
)
__all__ = [
    "CATALOGUE",
    "PRIMITIVES",
    "without_float_noise",
    "infer_decimal",
    "infer_dayfirst",
    "unit_dimension",
    *PRIMITIVES,
]


def _stable(parse, value, *args):
    """parse(value, *args) if that result is a fixed point of parse, else value: total and
    idempotent by construction."""
    try:
        result = parse(value, *args)
        if result is value:
            return value
        again = parse(result, *args)
        if type(again) is type(result) and again == result:
            return result
    except Exception:  # noqa: BLE001 (total: a helper never raises)
        pass
    return value


# ---- dates and times (parsers in _toolkit_dates.py) ------------------------------------------
def to_iso_date(value, *, dayfirst: bool = False):
    """ "YYYY-MM-DD" from common date and timestamp layouts; a/b/yyyy is month first unless
    dayfirst=True or only the day-first reading is a date (25/12/2023); a.b.yyyy is day first."""
    return _stable(_iso_date, value, dayfirst)


def to_iso_datetime(value, *, dayfirst: bool = False, form=None):
    """ "YYYY-MM-DDTHH:MM:SS" (+HH:MM when the input has an offset; Z/UTC/GMT give +00:00); a date
    alone gets 00:00:00. ``form`` writes it another ISO way instead: "%Y-%m-%d %H:%M" (a space, no
    seconds), "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M" or "%Y-%m-%dT%H:%M:%S"; a value with what the
    form would lose (an offset, seconds) stays."""
    return _stable(_iso_datetime, value, dayfirst, form)


def to_time_24h(value):
    """ "HH:MM" (24-hour) from a time such as "2:30 p.m." or "14:30:00", or from a date with a
    time."""
    return _stable(_time_24h, value, None)


def to_time_12h(value):
    """ "7:10 a.m." / "2:30 p.m." (hour without a leading zero) from any time, or the first time in
    a text."""
    return _stable(_time_12h, value, None)


def to_e164(value, *, default_country: str = "1"):
    """ "+<country><number>" (E.164) from any common layout; extensions are dropped; national
    numbers get default_country."""
    return _stable(_e164, value, default_country)


# ---- numbers, counts, units, shapes (parsers in _toolkit_numbers.py, _toolkit_units.py) -----
def to_number(
    value,
    *,
    integer: bool = False,
    whole_as_int: bool = False,
    decimal=None,
    scaled: bool = False,
    accounting: bool = False,
    absolute: bool = False,
):
    """float from numbers decorated with currency, units, %, grouping, without float noise;
    integer=True: int (only whole values convert); whole_as_int=True: whole values as int, others
    as float; decimal="," or ".": the decimal mark, None: read from each value; scaled=True reads
    "52k" as 52000, accounting=True "(12)" as -12 (else both stay); absolute=True writes the
    amount without its sign ("-$12.50" and "(12.50)" -> 12.5); "ORD-5000" stays."""
    mode = "integer" if integer else "whole" if whole_as_int else "float"
    parse = _scaled_number if scaled else _number
    number = _stable(parse, value, mode, decimal, accounting or absolute)
    if absolute and isinstance(number, (int, float)) and not isinstance(number, bool):
        return -number if number < 0 else number
    return number


def to_int(value):
    """int from an ID or a whole number in text: the one run of digits ("CUST-01024" -> 1024),
    "379,998" -> 379998."""
    return _stable(_int, value, None)


def strip_units(value):
    """The number's text (sign, digits, separators as written) without currency, unit words or %."""
    return _stable(_strip_units, value, None)


def words_to_number(value):
    """int from a whole number written in English words: "twelve", "twenty-one", "one hundred and
    five", "a dozen"."""
    return _stable(_words, value, None)


def to_count(value):
    """int from a count: digits or words with at most one unit word ("12", "twelve", "3 pcs", "three
    units") or a multiplier ("x4", "4x"); fractions stay unchanged."""
    return _stable(_count, value, None)


def to_unit(value, target, *, digits=None, decimal=None):
    """float in the ``target`` unit from an amount with a unit of mass (mg g kg t oz lb), length (mm
    cm m km in ft yd mi) or volume (ml cl dl l fl oz pt qt gal, US sizes); a bare number is taken to
    be in the target unit already; rounded to ``digits`` when given; another dimension or an unknown
    unit stays unchanged."""
    return _stable(_to_unit, value, (target, digits, decimal))


def convert_unit(
    value, unit, source, target, *, multiply=None, divide=None, places=None, decimal=None
):
    """``(value, unit)`` in ``target`` where ``unit`` spells ``source`` (loosely: case, spaces,
    dots, and the spellings of one unit to_unit knows): ``value`` times ``multiply`` or divided by
    ``divide``, rounded to ``places`` (0: an int); where ``unit`` spells ``target``, the unit alone
    is written as ``target``; anything else (another unit, a value that is no number) comes back
    unchanged. Total and idempotent: a converted row's unit is ``target``."""
    if (multiply is None) == (divide is None):
        return value, unit
    op, by = ("multiply", multiply) if multiply is not None else ("divide", divide)
    try:
        if not isinstance(by, (int, float)) or isinstance(by, bool) or by == 0 or by != by:
            return value, unit
        return _convert_unit(value, unit, source, target, op, float(by), places, decimal)
    except Exception:  # noqa: BLE001 (total: a helper never raises)
        return value, unit


def to_shape(value, example, label=False):
    """``value``'s letters and digits in ``example``'s form, slot by slot ("ab 1234", "AB-1234" ->
    "AB-1234"; other counts unchanged); ``label=True`` first drops a word of letters in front or
    behind that the example has none for ("ISBN: 978-…", "c. 1998"). ``example`` may be a list of
    forms ("AB-1234-12", "AB-1234-X"): the one result the forms that fit agree on."""
    return _stable(_shape, value, example, bool(label))


def infer_decimal(values):
    """The decimal mark the values use ("," for "14,90" and "1.234,50"; "." for "3.20"), None when
    unsure or mixed (for the library's choice of parameters: not one of the primitives)."""
    try:
        return _decimal_mark(list(values))
    except Exception:  # noqa: BLE001
        return None


def unit_dimension(name):
    """ "mass", "length" or "volume" for a unit to_unit knows ("kg", "Pounds", "fl oz"), else None
    (for the library)."""
    unit = _unit(name)
    return None if unit is None else unit[0]


def infer_dayfirst(values):
    """True when the values' a/b/yyyy dates are day first (a value like 25/03/2023), False when
    month first (03/25/2023), None when they do not say or say both (for the library: not one of the
    primitives)."""
    try:
        return _date_order(list(values))
    except Exception:  # noqa: BLE001
        return None


def closest_value(value, allowed, *, cutoff: float = 0.6, default=None, aliases=None):
    """The entry of allowed that value spells (exactly, then ignoring
    case/accents/spaces/punctuation, then as its initials, a prefix or a skeleton of three letters
    or more that fits one entry alone: "HR" for "Human Resources", "Eng" for "Engineering", then by
    difflib ratio >= cutoff, never on a tie); no match: default if it is not None, else value
    unchanged. ``aliases`` {spelling: entry} are other spellings of entries, matched the same way
    ({"high": "H"} turns "HIGH" into "H")."""
    try:
        options = [allowed] if isinstance(allowed, str) else list(allowed)
        extra = [
            (a, b) for a, b in dict(aliases or {}).items() if isinstance(a, str) and b in options
        ]
        spellings = options + [a for a, _ in extra if a not in options]
        try:
            key = (
                type(value),
                value,
                tuple(options),
                tuple(map(type, options)),
                cutoff,
                tuple(extra),
            )
            found = _CACHE.get(key, _NOT_FOUND)
        except TypeError:  # unhashable: no cache
            key, found = None, _NOT_FOUND
        if found is _NOT_FOUND:
            found = _closest(value, spellings, float(cutoff))
            if found is not _NOT_FOUND and not any(
                type(o) is type(found) and o == found for o in options
            ):
                found = dict(extra)[found]
            if key is not None:
                if len(_CACHE) >= 4096:
                    _CACHE.clear()
                _CACHE[key] = found
    except Exception:  # noqa: BLE001
        return value
    if found is not _NOT_FOUND:
        return found
    return value if default is None else default


def to_bool(value):
    """True/False from yes/no, y/n, true/false, t/f, 1/0, on/off in any case (and the numbers 1 and
    0)."""
    return _stable(_bool, value, None)


def is_null_like(value, extra=()) -> bool:
    """True for None, a float NaN, a placeholder string (any case, any surrounding spaces) or a
    string in extra."""
    try:
        if value is None or (type(value) is float and value != value):
            return True
        if not isinstance(value, str):
            return False
        key = " ".join(value.split()).casefold()
        extras = (extra,) if isinstance(extra, str) else extra
        return key in _PLACEHOLDERS or any(
            isinstance(e, str) and key == " ".join(e.split()).casefold() for e in extras
        )
    except Exception:  # noqa: BLE001
        return False


def null_if_placeholder(value, extra=()):
    """None when is_null_like(value, extra), else value unchanged."""
    return None if is_null_like(value, extra) else value


def normalize_whitespace(value):
    """Strip, and collapse each inner run of whitespace to one space."""
    return _stable(_text_op, value, _whitespace)


def title_case_name(value):
    """Whitespace normalised, each word capitalised ("o'brien" -> "O'Brien", "mcdonald" ->
    "Mcdonald") unless already written like "McDonald" (capital, small, ...), or a lower-case
    particle of three letters or fewer beside a capitalised word ("de la Cruz", "van der Berg"
    stay); words are never reordered."""
    return _stable(_text_op, value, _name)


def normalize_email(value):
    """All whitespace removed and lower case (no other checks)."""
    return _stable(_text_op, value, _email)


def to_lower(value):
    """Stripped and lower case."""
    return _stable(_text_op, value, _lower)


def to_upper(value):
    """Stripped and upper case."""
    return _stable(_text_op, value, _upper)


def to_country_code(value):
    """ISO 3166-1 alpha-2 code from a country's name, common variant, alpha-3 or alpha-2 code (any
    case)."""
    return _stable(_lookup, value, (_COUNTRY_TABLE, False))


def to_country_name(value):
    """The canonical English name of a country given as for to_country_code."""
    return _stable(_lookup, value, (_COUNTRY_TABLE, True))


def to_us_state_code(value):
    """The USPS two-letter code of a US state, DC or territory from its name, code or (AP-style)
    abbreviation."""
    return _stable(_lookup, value, (_STATE_TABLE, False))


def to_us_state_name(value):
    """The name of a US state, DC or territory given as for to_us_state_code."""
    return _stable(_lookup, value, (_STATE_TABLE, True))
