"""Parsers of toolkit.py for phones, categories, booleans, placeholders, text and places.

Standard library only, and only modules the sandbox allows: the sandbox child loads this file by
path (after ``_toolkit_data``, before ``toolkit``), before it arms its audit hook, so nothing here
may open files, compile code or read frames at call time.
"""

import difflib as _difflib
import re as _re
import unicodedata as _ud

from ._toolkit_data import COUNTRIES as _COUNTRY_TABLE

# for toolkit.py only
__all__ = [
    "_CACHE",
    "_NOT_FOUND",
    "_PLACEHOLDERS",
    "_bool",
    "_closest",
    "_e164",
    "_email",
    "_lookup",
    "_lower",
    "_name",
    "_place_key",
    "_text_op",
    "_upper",
    "_whitespace",
]

# ---- phones ------------------------------------------------------------------------------------
_EXTENSION = _re.compile(r"[ ,;]*(?:extension|ext|x|#)[ .:]*\d{1,6}$", _re.ASCII | _re.IGNORECASE)
_PHONE_CHARS = _re.compile(r"\+?[0-9 ().\-/]+", _re.ASCII)


def _e164(value, default_country):
    if type(value) is int and value > 0:
        text = str(value)
    elif isinstance(value, str):
        text = " ".join(value.split())
    else:
        return value
    country = str(default_country).strip().lstrip("+")
    text = _EXTENSION.sub("", text[4:] if text[:4].lower() == "tel:" else text)
    if text.startswith(("+", "00")):
        # "+44 (0)20 ...": the trunk zero written after the country code
        text = text.replace("(0)", "")
    if not _PHONE_CHARS.fullmatch(text) or not country.isdigit() or not 1 <= len(country) <= 3:
        return value
    digits = "".join(ch for ch in text if "0" <= ch <= "9")
    if text.startswith("+"):
        full = digits
    elif digits.startswith("00"):
        full = digits[2:]
    elif country == "1" and digits.startswith("011"):
        full = digits[3:]
    elif country == "1":
        full = "1" + (digits[1:] if len(digits) == 11 and digits[0] == "1" else digits)
    else:
        national = digits[1:] if digits.startswith("0") else digits
        full = country + national if len(national) >= 7 else ""
    if not 7 <= len(full) <= 15 or full[0] == "0" or (full[0] == "1" and len(full) != 11):
        return value
    return "+" + full


# ---- categories, booleans, placeholders --------------------------------------------------------
_NOT_FOUND = object()
_CACHE: dict = {}


def _loose_key(text: str) -> str:
    """Case, accents, spaces and punctuation removed: "Pendin g" -> "pending"."""
    decomposed = _ud.normalize("NFKD", text)
    return "".join(ch for ch in decomposed.casefold() if ch.isalnum())


def _abbreviates(key: str, option: str) -> bool:
    """``key`` (a loose key, letters only) is the initials of ``option``'s words ("hr": Human
    Resources), or a prefix or a skeleton of its one word, three letters at least and two fewer
    ("eng": Engineering, "mktg": Marketing; "actve" is a typo of active, not a short form)."""
    words = [w for w in _re.split(r"[^0-9a-z]+", _ud.normalize("NFKD", option).casefold()) if w]
    if len(words) >= 2:
        return key == "".join(w[0] for w in words)
    if len(words) != 1 or len(key) < 3 or len(key) > len(words[0]) - 2 or key[0] != words[0][0]:
        return False
    word, k = words[0], 0
    for ch in word:  # the key's letters in order, in the word
        if k < len(key) and ch == key[k]:
            k += 1
    return k == len(key)


def _closest(value, options: list, cutoff: float):
    for option in options:
        if type(option) is type(value) and option == value:
            return option
    if not isinstance(value, str):
        return _NOT_FOUND
    key = _loose_key(value)
    keyed = [(_loose_key(option), option) for option in options if isinstance(option, str)]
    if not key:
        return _NOT_FOUND
    for option_key, option in keyed:
        if option_key == key:
            return option
    if key.isalpha():  # a short form of exactly one option: its initials, a prefix, a skeleton
        short = {option for option_key, option in keyed if _abbreviates(key, option)}
        if len(short) == 1:
            return short.pop()
        # one-letter codes: "high" is H
        if keyed and all(len(option_key) == 1 for option_key, _ in keyed):
            initial = {option for option_key, option in keyed if option_key == key[0]}
            if len(initial) == 1:
                return initial.pop()
    scored = []
    for option_key, option in keyed:
        matcher = _difflib.SequenceMatcher(None, key, option_key)
        if option_key and matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
            scored.append((matcher.ratio(), option))
    scored = sorted((item for item in scored if item[0] >= cutoff), key=lambda item: -item[0])
    if not scored or (
        len(scored) > 1 and scored[1][0] == scored[0][0] and scored[1][1] != scored[0][1]
    ):
        return _NOT_FOUND  # nothing close enough, or a tie: do not guess
    return scored[0][1]


_TRUE = frozenset({"yes", "y", "true", "t", "1", "on"})
_FALSE = frozenset({"no", "n", "false", "f", "0", "off"})


def _bool(value, _):
    if type(value) in (int, float):
        return True if value == 1 else False if value == 0 else value
    if not isinstance(value, str):
        return value
    key = value.strip().casefold()
    return True if key in _TRUE else False if key in _FALSE else value


_PLACEHOLDERS = frozenset(
    {
        "",
        "n/a",
        "na",
        "n.a.",
        "#n/a",
        "<na>",
        "null",
        "none",
        "nil",
        "nan",
        "nat",
        "-",
        "--",
        "---",
        "?",
        "??",
        "empty",
        "unknown",
        "undefined",
        "missing",
        "not available",
    }
)

# ---- text --------------------------------------------------------------------------------------
_WORD = _re.compile(r"[^\W_]+")


def _text_op(value, operation):
    return operation(value) if isinstance(value, str) else value


def _whitespace(text: str) -> str:
    return " ".join(text.split())


def _capitalize(match) -> str:
    word = match.group()
    # "McDonald", "DeVito" are left as written
    keep = len(word) > 1 and word[0].isupper() and word[1].islower()
    return word if keep else word.capitalize()


def _name(text: str) -> str:
    spaced = " ".join(text.split())
    words = spaced.split(" ")
    # "de la Cruz", "van der Berg": short
    if any(w[:1].isupper() and any(c.islower() for c in w) for w in words):
        return " ".join(
            w if w.isalpha() and w.islower() and len(w) <= 3 else _WORD.sub(_capitalize, w)
            # lower-case particles beside a capitalised name stay as written
            for w in words
        )
    return _WORD.sub(_capitalize, spaced)


def _email(text: str) -> str:
    return "".join(text.split()).lower()


def _lower(text: str) -> str:
    return text.strip().lower()


def _upper(text: str) -> str:
    return text.strip().upper()


# ---- places ------------------------------------------------------------------------------------
_PLACE_DROPPED = _re.compile(r"[.'\u2019\u02bb`]")
_PLACE_SEPARATORS = _re.compile(r"[\W_]+")


def _place_key(text: str) -> str:
    """Accents, case and punctuation ignored; "&" is "and", "St" is "Saint", a leading/trailing
    "the" dropped."""
    text = "".join(ch for ch in _ud.normalize("NFKD", text) if not _ud.combining(ch)).casefold()
    words = _PLACE_SEPARATORS.sub(" ", _PLACE_DROPPED.sub("", text.replace("&", " and "))).split()
    words = ["saint" if word == "st" else word for word in words]
    if words[:1] == ["the"]:
        words = words[1:]
    if words[-1:] == ["the"]:
        words = words[:-1]
    return " ".join(words)


def _index(table: str, name_column: int) -> tuple[dict, dict]:
    """(normalised spelling -> code, code -> canonical name); the first entry to claim a spelling
    keeps it."""
    codes, names = {}, {}
    for line in table.splitlines():
        fields = line.split("|")
        names[fields[0]] = fields[name_column]
        for field in fields:
            codes.setdefault(_place_key(field), fields[0])
    return codes, names


_TABLES: dict = {}  # built on first use: most cleaning code never looks up a place


def _lookup(value, which):
    table, want_name = which
    if not isinstance(value, str):
        return value
    if table not in _TABLES:
        _TABLES[table] = _index(table, 2 if table is _COUNTRY_TABLE else 1)
    codes, names = _TABLES[table]
    code = codes.get(_place_key(value))
    return value if code is None else names[code] if want_name else code
