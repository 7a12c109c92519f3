"""Date and time parsing behind the toolkit's to_iso_date, to_iso_datetime, to_time_24h and
to_time_12h.

Each ``_name(value, option)`` parser returns the converted value, or ``value`` itself when it
cannot parse it; the toolkit wraps them in ``_stable`` (total and idempotent). Standard
library only: the sandbox loads this file with the toolkit (``judge.sandbox._child_setup``).
"""

import datetime as _dt
import re as _re

# for toolkit.py only
__all__ = ["_iso_date", "_iso_datetime", "_time_24h", "_time_12h", "_date_order"]

_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_MONTHS = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        start=1,
    )
}
_ORD = r"(?:st|nd|rd|th)?"
_DATES = tuple(
    (kind, _re.compile(pattern, _re.ASCII))
    for kind, pattern in (
        ("ymd", r"(\d{4})([-/.])(\d{1,2})\2(\d{1,2})"),
        ("ymd", r"(\d{4})()(\d{2})(\d{2})"),
        ("aby", r"(\d{1,2})([-/.])(\d{1,2})\2(\d{4}|\d{2})"),
        ("mdy", _MONTH + r"[ /-]*(\d{1,2})" + _ORD + r"(?: ?, ?|[ /-]+)(\d{4}|\d{2})"),
        (
            "dmy",
            r"(\d{1,2})" + _ORD + r"(?: of)?[ /-]*" + _MONTH + r"(?: ?, ?|[ /-]*)(\d{4}|\d{2})",
        ),
        ("ydm", r"(\d{4})[ /-]*" + _MONTH + r"[ /-]*(\d{1,2})" + _ORD),
    )
)
_WEEKDAY = _re.compile(
    r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|[a-z]+day)\.?,? ", _re.ASCII
)
_ZONES = frozenset({"z", "utc", "gmt"})
_TIME = _re.compile(
    r"(\d{1,2})(?::(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)? ?(a\.?m\.?|p\.?m\.?|a|p)? ?"
    r"(z|utc|gmt|[+-]\d{2}(?::?\d{2})?|[ecmp][sd]t|bst|cet|cest|eet|eest|ist|jst|hst|akst|akdt|"
    r"aest|aedt)?",
    _re.ASCII,
)
_TIME_SEP = _re.compile(r"t| at |, ?| ", _re.ASCII)


def _year(text: str) -> int:
    year = int(text)
    return year if len(text) == 4 else year + (2000 if year < 70 else 1900)


def _date_from(kind: str, groups: tuple, dayfirst: bool):
    if kind == "ymd":
        return _dt.date(int(groups[0]), int(groups[2]), int(groups[3]))
    if kind == "aby":
        a, sep, b, year = groups
        # (month, day); dotted dates are European
        first = (b, a) if dayfirst or sep == "." else (a, b)
        for month, day in (first, first[::-1]):
            try:
                return _dt.date(_year(year), int(month), int(day))
            except ValueError:
                pass
        return None
    if kind == "mdy":
        month, day, year = groups
    elif kind == "dmy":
        day, month, year = groups
    else:
        year, month, day = groups
    return _dt.date(_year(year), _MONTHS[month[:3]], int(day))


def _time_from(match) -> tuple:
    """(hour, minute, second, offset "+HH:MM" | "" | None for a named zone) from a _TIME match."""
    hour, minute, second, half, zone = match.groups()
    hour = int(hour)
    if half:
        if not 1 <= hour <= 12:
            raise ValueError("hour")
        hour = hour % 12 + (12 if half[0] == "p" else 0)
    elif minute is None or hour > 23:
        raise ValueError("a bare hour needs am/pm")
    minute, second = int(minute or 0), int(second or 0)
    if minute > 59 or second > 59:
        raise ValueError("minute")
    offset = ""
    if zone in _ZONES:
        offset = "+00:00"
    elif zone and zone[0] in "+-":
        digits = zone[1:].replace(":", "")
        if int(digits[:2]) > 23 or int(digits[2:] or 0) > 59:
            raise ValueError("offset")
        offset = zone[0] + digits[:2] + ":" + (digits[2:] or "00")
    elif zone:
        offset = None
    return hour, minute, second, offset


def _parse_moment(value, dayfirst: bool):
    """(date, time tuple or None) for a date with an optional time after it; None when it is not
    one."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split()).lower()
    text = text[_WEEKDAY.match(text).end() :] if _WEEKDAY.match(text) else text
    for kind, pattern in _DATES:
        match = pattern.match(text)
        if match is None:
            continue
        date = _date_from(kind, match.groups(), dayfirst)
        rest = text[match.end() :]
        if date is None or not rest:
            return None if date is None else (date, None)
        sep = _TIME_SEP.match(rest)
        time = _TIME.fullmatch(rest, sep.end()) if sep else None
        return (date, _time_from(time)) if time else None
    return None


def _iso_date(value, dayfirst):
    if isinstance(value, _dt.datetime):
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    moment = _parse_moment(value, dayfirst)
    return value if moment is None else moment[0].isoformat()


# form= writes
_FORMS = frozenset({"%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"})


def _iso_datetime(value, dayfirst, form=None):
    if form is not None and form not in _FORMS:
        return value  # a form this helper does not write
    if isinstance(value, _dt.datetime) and form is None:
        return value.replace(microsecond=0).isoformat()
    if isinstance(value, _dt.datetime):
        moment = (
            value.date(),
            (value.hour, value.minute, value.second, "" if value.tzinfo is None else None),
        )
    elif isinstance(value, _dt.date):
        moment = (value, None)
    else:
        moment = _parse_moment(value, dayfirst)
    if moment is None:
        return value
    hour, minute, second, offset = moment[1] or (0, 0, 0, "")
    if offset is None or (form is not None and (offset or (second and "%S" not in form))):
        return value  # a named zone such as EST, or what the form would lose (an offset, seconds)
    if form is not None:
        return _dt.datetime.combine(moment[0], _dt.time(hour, minute, second)).strftime(form)
    return "%sT%02d:%02d:%02d%s" % (moment[0].isoformat(), hour, minute, second, offset)


def _time_24h(value, _):
    if isinstance(value, (_dt.datetime, _dt.time)):
        return "%02d:%02d" % (value.hour, value.minute)
    if not isinstance(value, str):
        return value
    text = " ".join(value.split()).lower()
    match = _TIME.fullmatch(text)
    if match:
        return "%02d:%02d" % _time_from(match)[:2]
    moment = _parse_moment(text, False)
    return value if moment is None or moment[1] is None else "%02d:%02d" % moment[1][:2]


_TIME_IN_TEXT = _re.compile(
    r"(?<![\d:])(\d{1,2}):(\d{2})(?::\d{2})?\s*(noon|midnight|a\.?m\.?|p\.?m\.?|a|p)?(?![\d:])",
    _re.ASCII,
)


def _time_12h(value, _):
    hm = None
    strict = _time_24h(value, None)
    if isinstance(strict, str) and strict is not value and len(strict) == 5:
        hm = int(strict[:2]), int(strict[3:])
    elif isinstance(value, str):
        match = _TIME_IN_TEXT.search(value.lower())
        if match:
            hour, minute, mark = (
                int(match.group(1)),
                int(match.group(2)),
                (match.group(3) or "").replace(".", ""),
            )
            if mark in ("p", "pm", "noon") and hour < 12:
                hour += 12
            elif mark in ("a", "am", "midnight") and hour == 12:
                hour = 0
            if hour < 24 and minute < 60 and not (mark and int(match.group(1)) > 12):
                hm = hour, minute
    if hm is None:
        return value
    hour, minute = hm
    return "%d:%02d %s" % (hour % 12 or 12, minute, "a.m." if hour < 12 else "p.m.")


_ABY = _re.compile(r"\s*(\d{1,2})[-/.](\d{1,2})[-/.](?:\d{4}|\d{2})(?!\d)")


def _date_order(values):
    """True when the a/b/yyyy dates are day first (some a > 12), False when month first (some b >
    12), else None."""
    day = month = 0
    for value in values:
        match = _ABY.match(value) if isinstance(value, str) else None
        if match:
            a, b = int(match[1]), int(match[2])
            day += a > 12 and 1 <= b <= 12
            month += b > 12 and 1 <= a <= 12
    if day and not month:
        return True
    if month and not day:
        return False
    return None
