"""What the kinds' checks share: value shapes, whitespace, placeholders, code lists, timestamp
forms."""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any

# the toolkit's own test for noise, so a fix by to_number conforms
from ...toolkit import without_float_noise

__all__ = [
    "COUNTRY_CODES",
    "US_STATE_CODES",
    "VALUE_CHARS",
    "value_shape",
    "clean_whitespace",
    "is_placeholder",
    "form_template",
    "real_date",
    "noisy",
    "PLAIN_NUMBER",
]

COUNTRY_CODES = frozenset(
    (
        "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ "
        "BR BS BT BV BW BY "
        "BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH "
        "ER ES ET FI FJ FK FM "
        "FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL "
        "IM IN IO IQ IR IS IT "
        "JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME "
        "MF MG MH MK ML MM MN "
        "MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH "
        "PK PL PM PN PR PS PT "
        "PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC "
        "TD TF TG TH TJ TK TL "
        "TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"
    ).split()
)
US_STATE_CODES = frozenset(
    (
        "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ "
        "NM NY NC ND OH OK "
        "OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI AS MP"
    ).split()
)
_PLACEHOLDERS = frozenset(
    {
        "n/a",
        "na",
        "n.a.",
        "null",
        "none",
        "nil",
        "nan",
        "-",
        "--",
        "?",
        "unknown",
        "missing",
        "empty",
        "not available",
        "tbd",
        "#n/a",
    }
)
PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")

VALUE_CHARS = 40  # a shape is cut to this many characters
_ASCII_CLASSES = str.maketrans(
    {
        **{c: "9" for c in "0123456789"},
        **{c: "A" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
        **{c: "a" for c in "abcdefghijklmnopqrstuvwxyz"},
    }
)
_RUNS = re.compile(r"9+|a+|A+")
_TEMPLATE_OF = {"%Y": "YYYY", "%m": "MM", "%d": "DD", "%H": "HH", "%M": "MM", "%S": "SS"}


def value_shape(value: Any, *, runs: bool = True) -> str:
    """Digits -> 9, letters -> a / A (upper), runs collapsed, other characters kept: "(555)
    123-4567" -> "(9) 9-9"; ``runs=False`` keeps every character's class: "617-555-0143" ->
    "999-999-9999"."""
    if value is None:
        return "<null>"
    for kind, name in (
        (bool, "<bool>"),
        (int, "<int>"),
        (float, "<float>"),
        (dict, "<dict>"),
        ((list, tuple), "<list>"),
    ):
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
    """True when ``text`` has no leading/trailing whitespace, no runs of spaces, no
    tabs/newlines."""
    return text == " ".join(text.split())


def is_placeholder(value: Any) -> bool:
    """A string that stands for a missing value: 'N/A', 'null', 'none', '-', 'unknown', 'empty',
    ..."""
    return isinstance(value, str) and value.strip().casefold() in _PLACEHOLDERS


def form_template(form: str) -> str:
    """ "%Y-%m-%d %H:%M" -> "YYYY-MM-DD HH:MM"."""
    return re.sub(r"%[YmdHMS]", lambda m: _TEMPLATE_OF[m.group()], form)


def real_date(text: str) -> bool:
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def noisy(value: Any) -> bool:
    """A float, or a plain decimal text, that carries floating-point noise (``toolkit.to_number``
    drops it)."""
    if isinstance(value, str):
        if len(value) < 17 or not PLAIN_NUMBER.fullmatch(value.strip()):
            return False
        value = float(value)
    return isinstance(value, float) and math.isfinite(value) and without_float_noise(value) != value
