"""Number parsing behind the toolkit's to_number, to_int, strip_units, words_to_number and to_count.

Each ``_name(value, option)`` parser returns the converted value, or ``value`` itself when it
cannot parse it; the toolkit wraps them in ``_stable`` (total and idempotent). Standard library
only: the sandbox loads this file with the toolkit (``judge.sandbox._child_setup``).
"""

import re as _re

__all__ = [
    "_split_number",
    "without_float_noise",
    "_number",
    "_int",
    "_strip_units",
    "_words",
    "_count",
    "_decimal_mark",
]  # for toolkit.py and _toolkit_units.py only

_CURRENCY = "$€£¥₹₩₽¢₺₪₫฿₴₦₱"
_NUMBER = _re.compile(
    r"(?P<sign>[-+]?) ?(?P<pre>(?:[a-z]{3} ?|[a-z]{1,2}(?=[" + _CURRENCY + r"])|(?:rs|kr|fr)\.? ?)?"
    r"[" + _CURRENCY + r"]?) ?(?P<sign2>[-+]?) ?(?P<num>[0-9][0-9,.' ]*[0-9]|[0-9]|[.,][0-9]+)"
    # "oz. Alumi-Tek": a word's hyphen
    r"(?P<exp>e[-+]?[0-9]+)?(?P<post>(?:[^0-9()+\-]|(?<=[a-z])-(?=[a-z]))*)",
    _re.ASCII | _re.IGNORECASE,
)


# "1.5k", "$2M", "3 million" are not 1.5, 2, 3: such values stay unchanged
_MULTIPLIER = _re.compile(
    r" ?(?:(?:k|bn|mn|mil|mio|mrd|thousand|million|billion|trillion|lakh|crore)s?\b|"
    r"[mb](?: ?(?:[a-z]{3}|[" + _CURRENCY + r"]))?$)",
    _re.IGNORECASE,
)
_DECIMALS = (None, ",", ".")


def _point(num: str, decimal):
    """The decimal mark of a written number ("" for none), or None when ``decimal`` forbids how it
    is written."""
    if decimal is not None:
        return None if num.count(decimal) > 1 else (decimal if decimal in num else "")
    if "," in num and "." in num:
        return "," if num.rfind(",") > num.rfind(".") else "."
    if num.count(",") == 1:
        head, _, tail = num.partition(",")
        return "" if len(tail) == 3 and _re.fullmatch(r"[1-9][0-9]{0,2}", head) else ","
    return "." if num.count(".") == 1 else ""


def _split_number(value, decimal=None, brackets=False):
    """(negative, integer digits, fraction digits, exponent, written number) for a decorated number,
    else None.

    ``decimal`` is the decimal mark ("," or "."; the other marks group thousands), None to read it
    from the number itself ("1,234" is 1234, "14,90" is 14.9). A number in brackets is negative only
    with ``brackets`` (accounting: "(12)" is -12); a hyphen after a letter is no minus sign
    ("ORD-5000" is a code, not -5000).
    """
    if not isinstance(value, str) or decimal not in _DECIMALS:
        return None
    text = " ".join(
        value.replace("\u2212", "-").replace("\u00a0", " ").replace("\u202f", " ").split()
    )
    negative = text.startswith("(") and text.endswith(")")
    if negative and not brackets:
        return None
    match = _NUMBER.fullmatch(text[1:-1].strip() if negative else text)
    if (
        match is None
        or (match["sign"] and match["sign2"])
        or (negative and (match["sign"] or match["sign2"]))
    ):
        return None
    if _MULTIPLIER.match(match["post"]):
        return None
    if match["sign2"] and match["pre"][-1:].isalpha():
        return None  # "ORD-5000", "A-12": a code's hyphen, not a sign
    negative = negative or "-" in (match["sign"], match["sign2"])
    num = match["num"]
    point = _point(num, decimal)
    if point is None:
        return None
    whole, fraction = num.rpartition(point)[::2] if point else (num, "")
    if not fraction.isdigit() and point:
        return None
    marks = {ch for ch in whole if not "0" <= ch <= "9"}
    if len(marks) > 1 or (
        marks and not _re.fullmatch(r"[0-9]{1,3}(?:%s[0-9]{3})+" % _re.escape(marks.pop()), whole)
    ):
        return None
    digits = "".join(ch for ch in whole if "0" <= ch <= "9") or "0"
    return negative, digits, fraction, (match["exp"] or "").lower(), num + (match["exp"] or "")


def without_float_noise(number: float) -> float:
    """``number`` at 15 significant digits when that is at least 4 characters shorter
    (0.052000000000000005 -> 0.052).

    Floating-point noise from arithmetic, not precision a writer meant; a value with 16 or 17
    meant digits loses at most two characters at 15 digits and is kept as it is.
    """
    if not isinstance(number, float) or number - number != 0:
        return number
    short = float(f"{number:.15g}")
    return short if len(repr(short)) + 4 <= len(repr(number)) else number


def _number(value, mode, decimal=None, brackets=False):
    integer = mode == "integer"
    if mode == "whole":  # whole values as int, the rest as float
        number = _number(value, "float", decimal, brackets)
        return int(number) if isinstance(number, float) and number.is_integer() else number
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, str))
        or decimal not in _DECIMALS
    ):
        return value
    if isinstance(value, (int, float)):
        number = float(value) if not integer else value
    else:
        parts = _split_number(value, decimal, brackets)
        if parts is None:
            return value
        negative, digits, fraction, exponent, _ = parts
        if integer and not exponent and not fraction.strip("0"):
            return -int(digits) if negative else int(digits)
        number = float(("-" if negative else "") + digits + "." + (fraction or "0") + exponent)
    if integer:
        if isinstance(number, float):
            if not number.is_integer():
                return value
            number = int(number)
        return number
    return without_float_noise(number) if number - number == 0 else value  # not inf or nan


_SCALED = _re.compile(
    r"(?P<body>.*?[0-9])\s*(?P<unit>k|thousand|m|mn|mio|million|bn|billion)s?\.?"
    r"(?P<rest>\s*(?:[a-z]{3}|[" + _CURRENCY + r"])?)\s*",
    _re.IGNORECASE,
)
_MULTIPLIED_BY = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "mio": 1e6,
    "million": 1e6,
    "bn": 1e9,
    "billion": 1e9,
}


def _scaled_number(value, mode, decimal=None, brackets=False):
    """``_number`` that also reads a multiplier after the number: "52k" is 52000, "$1.5M"
    1500000."""
    match = (
        _SCALED.fullmatch(value.strip()) if isinstance(value, str) and len(value) <= 64 else None
    )
    if match is None:
        return _number(value, mode, decimal, brackets)
    number = _number(match["body"] + match["rest"], "float", decimal, brackets)
    if not isinstance(number, float):
        return value
    number = without_float_noise(number * _MULTIPLIED_BY[match["unit"].lower()])
    if mode in ("integer", "whole") and number.is_integer():
        return int(number)
    return value if mode == "integer" else number


def _int(value, _):
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value) if value.is_integer() else value
    if not isinstance(value, str):
        return value
    match = _re.fullmatch(r" *([-+]?)([0-9]+)(?:\.0*)? *", value)
    if match:
        return int(match[1] + match[2])
    grouped = _re.fullmatch(r" *([-+]?)([0-9]{1,3}(?:,[0-9]{3})+)(?:\.0*)? *", value)
    if grouped:  # thousands separators: "379,998" -> 379998
        return int(grouped[1] + grouped[2].replace(",", ""))
    runs = _re.findall(r"[0-9]+", value)
    bracketed = value.strip()[:1] + value.strip()[-1:] == "()"
    if len(runs) != 1 or bracketed or _SIGN_BEFORE.search(value):
        return value  # a sign or accounting brackets around the digits: not an id's one run
    return int(runs[0])


# a minus that is a sign (at the start, after a space, bracket or currency), not a code's hyphen
_SIGN_BEFORE = _re.compile(r"(?:^|[\s(\[$€£¥₹])[-\u2212]\s?[0-9]")


def _strip_units(value, _):
    parts = _split_number(value)
    return value if parts is None else ("-" if parts[0] else "") + parts[4]


# ---- numbers in words, counts ------------------------------------------------------------------
_UNITS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine".split())}
_TEENS = {
    w: n
    for n, w in enumerate(
        "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(),
        start=10,
    )
}
_TENS = {
    w: 10 * n
    for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)
}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_WORD_SPLIT = _re.compile(r"[\s,-]+")
_MAX_WORDS = 12


def _words(value, _=None):
    """The whole number written in English words ("twelve", "twenty-one", "one hundred and five", "a
    dozen")."""
    if not isinstance(value, str) or len(value) > 120:
        return value
    words = [w for w in _WORD_SPLIT.split(value.strip().lower()) if w]
    if not words or len(words) > _MAX_WORDS:
        return value
    if words[0] in ("a", "an") and len(words) > 1:
        words[0] = "one"
    if words[-1] == "dozen":  # "a dozen", "two dozen"
        head = _words(" ".join(words[:-1])) if len(words) > 1 else 1
        return head * 12 if type(head) is int and head > 0 else value
    total, group, last, scale_cap = 0, 0, "", None
    for k, word in enumerate(words):
        if word == "and":  # "one hundred and five", "a thousand and one"
            if last not in ("hundred", "scale") or k == len(words) - 1:
                return value
            last = "and"
            continue
        if word == "zero":
            if len(words) > 1:
                return value
            return 0
        if word in _UNITS:
            if last in ("unit", "teen"):
                return value
            group, last = group + _UNITS[word], "unit"
        elif word in _TEENS or word in _TENS:
            if last in ("unit", "teen", "tens"):
                return value
            group, last = (
                group + _TEENS.get(word, _TENS.get(word, 0)),
                "teen" if word in _TEENS else "tens",
            )
        elif word == "hundred":
            if last != "unit" or group >= 10:
                return value
            group, last = group * 100, "hundred"
        elif word in _SCALES:
            scale = _SCALES[word]
            if group == 0 or (scale_cap is not None and scale >= scale_cap):
                return value
            total, group, last, scale_cap = total + group * scale, 0, "scale", scale
        else:
            return value
    return total + group if last else value


_TIMES = _re.compile(r"(?:[x×]\s*([0-9]+)|([0-9]+)\s*[x×])", _re.IGNORECASE)
_COUNT = _re.compile(
    r"([-+]?[0-9]{1,3}(?:,[0-9]{3})+|[-+]?[0-9]+)(?:\.0+)?(?:\s*([^\W\d_]{1,15}\.?))?"
)


def _count(value, _=None):
    """A whole count from "12", "twelve", "3 pcs", "three units", "x4", "4x" (one unit word at
    most)."""
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value) if value.is_integer() else value
    if not isinstance(value, str) or len(value) > 120:
        return value
    text = " ".join(value.split())
    times = _TIMES.fullmatch(text)
    if times:
        return int(times[1] or times[2])
    match = _COUNT.fullmatch(text)
    if match:
        return int(match[1].replace(",", ""))
    words = text.split(" ")
    for cut in (len(words), len(words) - 1):  # "three", "three pcs"
        if cut >= 1 and (
            cut == len(words) or (words[-1].rstrip(".").isalpha() and len(words[-1]) <= 16)
        ):
            number = _words(" ".join(words[:cut]))
            if type(number) is int:
                return number
    return value


# ---- reading the data --------------------------------------------------------------------------
_COMMA_DECIMAL = _re.compile(
    r"(?<![0-9.,])(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]+),(?:[0-9]{1,2}|[0-9]{4,})(?![0-9.,])"
)
_POINT_DECIMAL = _re.compile(
    r"(?<![0-9.,])(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)\.(?:[0-9]{1,2}|[0-9]{4,})(?![0-9.,])"
)
_BOTH_DECIMAL = _re.compile(r"[0-9]\.[0-9]{3},[0-9]|[0-9],[0-9]{3}\.[0-9]")


def _decimal_mark(values) -> "str | None":
    """ "," when the values write decimals with a comma and never with a point ("14,90",
    "1.234,50"), "." for the reverse, None when they do not say (only "1,234"-like values) or say
    both."""
    comma = point = 0
    for value in values:
        if not isinstance(value, str) or len(value) > 64:
            continue
        both = _BOTH_DECIMAL.search(value)
        if both:
            comma += "," in both.group()[-2:]
            point += "." in both.group()[-2:]
        else:
            comma += bool(_COMMA_DECIMAL.search(value))
            point += bool(_POINT_DECIMAL.search(value))
    if comma and not point:
        return ","
    if point and not comma:
        return "."
    return None
