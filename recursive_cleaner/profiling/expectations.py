"""What format each field should have, and whether a value has it.

``Expectation`` is a field's expected format (a kind from ``KINDS``, its allowed values, and
where it came from). ``conforms`` is the strict check of one value; ``loose_kind`` and
``expectation_from_values`` read a format from the data itself. The instructions are read by
``instructions.infer_expectations``. ``us_state`` and ``country_alpha2`` take
``allowed=("lower",)`` when the codes are wanted in lower case. ``shape`` is read from the goals'
examples (``ab 1234 -> AB-1234``): ``allowed`` holds the example outputs, and a value conforms
when it has the ``value_shape`` of one of them.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass
from typing import Any

from ..toolkit import without_float_noise  # the toolkit's own test for noise, so a fix by to_number conforms

__all__ = ["Expectation", "KINDS", "LOOSE_KINDS", "KIND_PRIORITY", "KIND_PRIMITIVES", "COUNTRY_CODES", "US_STATE_CODES",
           "conforms", "expectation_from_values", "loose_kind", "is_placeholder", "clean_whitespace", "value_shape",
           "VALUE_CHARS"]

KINDS = ("date", "datetime", "time", "time12", "phone_e164", "email", "enum", "number", "integer", "country_alpha2",
         "us_state", "bool", "title_case", "lower", "upper", "text", "shape", "as_is")
KIND_PRIMITIVES = {
    "date": "to_iso_date", "datetime": "to_iso_datetime", "time": "to_time_24h", "time12": "to_time_12h", "phone_e164": "to_e164",
    "email": "normalize_email", "enum": "closest_value", "number": "to_number", "integer": "to_int",
    "country_alpha2": "to_country_code", "us_state": "to_us_state_code", "bool": "to_bool",
    "title_case": "title_case_name", "lower": "to_lower", "upper": "to_upper", "text": "normalize_whitespace",
    "shape": "to_shape",  # allowed: the goals' example outputs; a value conforms when it has the shape of one
    "as_is": "",  # the goals say to leave the field as it is: every value conforms, nothing to fix
}
# When one field collects several kinds, the first in this order wins.
KIND_PRIORITY = ("phone_e164", "datetime", "date", "time12", "time", "email", "country_alpha2", "us_state", "enum", "bool",
             "integer", "number", "title_case", "upper", "lower", "text", "shape", "as_is")

COUNTRY_CODES = frozenset((
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY "
    "BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM "
    "FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT "
    "JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN "
    "MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT "
    "PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL "
    "TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW").split())
US_STATE_CODES = frozenset((
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK "
    "OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI AS MP").split())
_PLACEHOLDERS = frozenset({"n/a", "na", "n.a.", "null", "none", "nil", "nan", "-", "--", "?", "unknown",
                           "missing", "empty", "not available", "tbd", "#n/a"})


@dataclass(frozen=True)
class Expectation:
    """The format one field should have, and why we believe it."""

    kind: str
    allowed: tuple[str, ...] = ()  # enum: allowed spellings as written; us_state/country: ("lower",) for lower
    # case; number/integer: "whole_as_int" (12.0 -> 12), "no_leading_zeros" ("01907" -> 1907)
    source: str = ""  # "instructions" | "field name" | "data"
    primitive: str = ""  # the toolkit primitive that fits

    def describe(self, *, csv_strings: bool = False) -> str:
        """A short noun phrase for the format: 'ISO dates (YYYY-MM-DD)'."""
        if self.kind == "enum":
            shown = ", ".join(repr(a) for a in self.allowed[:8]) + (", ..." if len(self.allowed) > 8 else "")
            return f"one of {shown}"
        lower = self.allowed == ("lower",)
        if self.kind == "datetime" and self.allowed:
            return f"timestamps written as {form_template(self.allowed[0])}"
        return {
            "date": "ISO dates (YYYY-MM-DD)", "datetime": "ISO 8601 timestamps (YYYY-MM-DDTHH:MM:SS)",
            "time": "24-hour times (HH:MM)", "time12": "12-hour times (7:10 a.m., 12:45 p.m.)", "phone_e164": "E.164 phone numbers (+15551234567)",
            "email": "lower-case email addresses without spaces",
            "number": ("plain numbers (12.5)" if csv_strings else "numbers (not text)")
            + (", whole ones without a decimal part (12, not 12.0)" if "whole_as_int" in self.allowed else "")
            + (", without leading zeros" if "no_leading_zeros" in self.allowed else ""),
            "integer": "plain integers" + (" without leading zeros (1907, not 01907)"
                                           if "no_leading_zeros" in self.allowed else ""),
            "bool": "booleans (true/false)",
            "country_alpha2": "ISO 3166-1 alpha-2 country codes" + (" in lower case (us, gb)" if lower
                                                                     else " (US, GB)"),
            "us_state": "two-letter US state codes" + (" in lower case (ca, ny)" if lower else " (CA, NY)"),
            "title_case": "Title Case with single spaces", "lower": "trimmed lower case",
            "upper": "trimmed upper case", "text": "trimmed text with single spaces", "as_is": "left as it is",
            "shape": "the form of the goals' examples (" + ", ".join(repr(a) for a in self.allowed[:3]) + ")",
        }.get(self.kind, self.kind)


_TEMPLATE_OF = {"%Y": "YYYY", "%m": "MM", "%d": "DD", "%H": "HH", "%M": "MM", "%S": "SS"}


def form_template(form: str) -> str:
    """"%Y-%m-%d %H:%M" -> "YYYY-MM-DD HH:MM"."""
    return re.sub(r"%[YmdHMS]", lambda m: _TEMPLATE_OF[m.group()], form)


# ---------------------------------------------------------------- strict checks of one value

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ISO_DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?")
_TIME12 = re.compile(r"(1[0-2]|[1-9]):[0-5]\d [ap]\.m\.")
_E164 = re.compile(r"\+[1-9]\d{7,14}")
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+")
_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")
_PLAIN_INT = re.compile(r"[-+]?\d+")
_LEADING_ZERO = re.compile(r"[-+]?0\d+(?:\.\d*)?")
_WHOLE_WITH_FRACTION = re.compile(r"[-+]?\d+\.0+")


VALUE_CHARS = 40  # a shape is cut to this many characters
_ASCII_CLASSES = str.maketrans({**{c: "9" for c in "0123456789"}, **{c: "A" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
                                **{c: "a" for c in "abcdefghijklmnopqrstuvwxyz"}})
_RUNS = re.compile(r"9+|a+|A+")


def value_shape(value: Any, *, runs: bool = True) -> str:
    """Digits -> 9, letters -> a / A (upper), runs collapsed, other characters kept: "(555) 123-4567" -> "(9) 9-9";
    ``runs=False`` keeps every character's class: "617-555-0143" -> "999-999-9999"."""
    if value is None:
        return "<null>"
    for kind, name in ((bool, "<bool>"), (int, "<int>"), (float, "<float>"), (dict, "<dict>"),
                       ((list, tuple), "<list>")):
        if isinstance(value, kind):
            return name
    text = value if isinstance(value, str) else str(value)
    if text == "":
        return "<empty>"
    if text.isascii():  # the common case, without a Python loop per character
        shape = text.translate(_ASCII_CLASSES)
        shape = _RUNS.sub(lambda m: m.group(0)[0], shape) if runs else shape
        return shape if len(shape) <= VALUE_CHARS else shape[: VALUE_CHARS - 1] + "…"
    out: list[str] = []
    for ch in text:
        cls = "9" if ch.isdecimal() else ("A" if ch.isupper() else "a") if ch.isalpha() else ch
        if not (runs and out and cls in "9aA" and out[-1] == cls):
            out.append(cls)
    shape = "".join(out)
    return shape if len(shape) <= VALUE_CHARS else shape[: VALUE_CHARS - 1] + "…"



def clean_whitespace(text: str) -> bool:
    """True when ``text`` has no leading/trailing whitespace, no runs of spaces, no tabs/newlines."""
    return text == " ".join(text.split())


def is_placeholder(value: Any) -> bool:
    """A string that stands for a missing value: 'N/A', 'null', 'none', '-', 'unknown', 'empty', ..."""
    return isinstance(value, str) and value.strip().casefold() in _PLACEHOLDERS


def _real_date(text: str) -> bool:
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _title_word(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return True
    return letters[0].isupper() and not (len(letters) > 1 and all(c.isupper() for c in letters))


def _noisy(value: Any) -> bool:
    """A float, or a plain decimal text, that carries floating-point noise (``toolkit.to_number`` drops it)."""
    if isinstance(value, str):
        if len(value) < 17 or not _PLAIN_NUMBER.fullmatch(value.strip()):
            return False
        value = float(value)
    return isinstance(value, float) and math.isfinite(value) and without_float_noise(value) != value


def conforms(value: Any, exp: Expectation, *, csv_strings: bool = False) -> bool:
    """Strict check of one value against ``exp``; None and "" (missing) always conform.

    With ``csv_strings`` (every value of the data is a string, as in CSV) a plain numeric
    string conforms to number/integer and "true"/"false" to bool.
    """
    if value is None or (isinstance(value, str) and value == ""):
        return True
    kind = exp.kind
    if kind == "as_is":
        return True
    if kind in ("number", "integer"):
        if isinstance(value, bool):
            return False
        if "whole_as_int" in exp.allowed and _WHOLE_WITH_FRACTION.fullmatch(str(value)):
            return False  # 12.0 or "12.0" where the goals want 12
        if "no_leading_zeros" in exp.allowed and isinstance(value, str) and _LEADING_ZERO.fullmatch(value.strip()):
            return False  # "01907" where the goals want 1907
        if _noisy(value):
            return False  # 0.052000000000000005: floating-point noise is not a number's plain form
        if isinstance(value, int) or (kind == "number" and isinstance(value, float) and math.isfinite(value)):
            return True
        pattern = _PLAIN_NUMBER if kind == "number" else _PLAIN_INT
        return csv_strings and isinstance(value, str) and bool(pattern.fullmatch(value))
    if kind == "bool":
        return isinstance(value, bool) or (csv_strings and value in ("true", "false"))
    if kind == "enum":
        return isinstance(value, str) and value in exp.allowed
    if kind == "text":
        return not isinstance(value, str) or clean_whitespace(value)
    if kind == "shape":
        return value_shape(value if isinstance(value, str) else str(value)) in {value_shape(a) for a in exp.allowed}
    if not isinstance(value, str):
        return False
    if kind == "date":
        return bool(_ISO_DATE.fullmatch(value)) and _real_date(value)
    if kind == "datetime":
        if exp.allowed:  # written another ISO way ("%Y-%m-%d %H:%M"): exactly that form
            try:
                return _dt.datetime.strptime(value, exp.allowed[0]).strftime(exp.allowed[0]) == value
            except ValueError:
                return False
        m = _ISO_DATETIME.fullmatch(value)
        return bool(m) and _real_date(m.group(1))
    if kind == "time":
        return bool(_TIME.fullmatch(value))
    if kind == "time12":
        return bool(_TIME12.fullmatch(value))
    if kind == "phone_e164":
        return bool(_E164.fullmatch(value))
    if kind == "email":
        return value == value.lower() and bool(_EMAIL.fullmatch(value))
    if kind in ("country_alpha2", "us_state"):
        codes = COUNTRY_CODES if kind == "country_alpha2" else US_STATE_CODES
        if exp.allowed == ("lower",):
            return value == value.lower() and value.upper() in codes
        return value in codes
    if not clean_whitespace(value):
        return False
    if kind == "lower":
        return value == value.lower()
    if kind == "upper":
        return value == value.upper()
    if kind == "title_case":
        words = value.split(" ")
        capital = any(w[:1].isupper() and any(c.islower() for c in w) for w in words)
        return all(_title_word(w) or (capital and w.isalpha() and w.islower() and len(w) <= 3) for w in words)
    return False


# ---------------------------------------------------------------- what the data itself looks like

_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_LIKE = re.compile("|".join([
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?P<t>[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}:?\d{2})?)?",
    r"\d{1,2}[-/.]\d{1,2}[-/.]\d{2}(?:\d{2})?",
    rf"{_MON}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}",
    rf"\d{{1,2}}(?:st|nd|rd|th)?[\s-]+{_MON}[\s,-]+\d{{2,4}}",
    r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])",
]), re.I)
_TIME_LIKE = re.compile(r"\d{1,2}(?::\d{2}){1,2}\s*(?:[ap]\.?\s?m\.?)?|\d{1,2}\s*[ap]\.?\s?m\.?", re.I)
_PHONE_CHARS = re.compile(r"[\d\s()+.\-/]+")
_NUMBER_LIKE = re.compile(r"(?=.*\d)(?:[$€£¥]|[A-Z]{3}\s)?\s*[-+]?(?:\d{1,3}(?:,\d{3})+|\d*)(?:\.\d+)?\s*"
                          r"(?:[$€£¥%]|[A-Za-z]{1,12}\.?)?", re.I)


_KIND_CHARS = 1000  # longer than any date, time, phone, email or number


def _phone_like(text: str) -> bool:
    if len(text) > 64:  # 7-15 digits and a few separators; never walk a huge text
        return False
    digits = sum(c.isdigit() for c in text)
    if not (7 <= digits <= 15 and _PHONE_CHARS.fullmatch(text)):
        return False
    return any(c in "()+-. " for c in text) or digits in (10, 11)


LOOSE_KINDS = (
    ("email", lambda s: s.count("@") == 1 and "." in s.split("@")[1]),
    ("date", lambda s: bool(_DATE_LIKE.fullmatch(s))),
    ("time", lambda s: bool(_TIME_LIKE.fullmatch(s))),
    ("phone_e164", _phone_like),
    ("number", lambda s: bool(_NUMBER_LIKE.fullmatch(s))),
)


def loose_kind(strings: list[str], *, share: float = 0.6) -> str | None:
    """The kind that at least ``share`` of the strings look like in any layout (dates in any format, ...)."""
    # a value of any kind is short: a long text is read up to _KIND_CHARS (it matches none either way)
    texts = [s[:_KIND_CHARS].strip() for s in strings if isinstance(s, str) and s.strip() and not is_placeholder(s)]
    if not texts:
        return None
    for kind, looks in LOOSE_KINDS:
        hits = [t for t in texts if looks(t)]
        if len(hits) >= share * len(texts):
            if kind == "date":
                timed = sum(1 for t in hits if (m := _DATE_LIKE.fullmatch(t)) and m.group("t"))
                return "datetime" if timed * 2 > len(hits) else "date"
            return kind
    return None


def expectation_from_values(values: list, *, csv_strings: bool = False) -> Expectation | None:
    """An expectation the data proves by itself: its values look like one kind and the canonical form is there.

    The canonical form (ISO date, HH:MM, E.164, lower-case email, plain number) must hold at least
    10% of the values: a tiny canonical minority does not beat the data's own convention.
    """
    strings = [v for v in values if isinstance(v, str) and v.strip() and not is_placeholder(v)]
    if len(strings) < 3 or len(strings) < 0.5 * sum(v is not None and v != "" for v in values):
        return None
    kind = loose_kind(strings)
    if kind is None:
        return None
    exp = Expectation(kind, source="data", primitive=KIND_PRIMITIVES[kind])
    good = sum(conforms(s, exp, csv_strings=csv_strings) for s in strings)
    return exp if good >= max(1.0, 0.1 * len(strings)) else None
