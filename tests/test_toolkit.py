"""The cleaning toolkit: every helper parses the documented layouts, is total (never raises, returns
its input unchanged when it cannot parse it) and idempotent, and generated code can import it in
the sandbox (and only it: the package recursive_cleaner itself stays refused)."""

from __future__ import annotations

import ast
import datetime as dt
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recursive_cleaner.judge import sandbox

# where the worker reads its paths
from recursive_cleaner.judge.sandbox import _worker as sandbox_module
from recursive_cleaner import toolkit as tk
from recursive_cleaner.apply.local import apply_file, apply_records
from recursive_cleaner.judge.sandbox import SandboxWorker, run_in_sandbox
from recursive_cleaner.toolkit import (
    closest_value,
    is_null_like,
    normalize_email,
    normalize_whitespace,
    null_if_placeholder,
    strip_units,
    title_case_name,
    to_bool,
    to_country_code,
    to_country_name,
    to_e164,
    to_int,
    to_iso_date,
    to_iso_datetime,
    to_lower,
    to_number,
    to_time_24h,
    to_upper,
    to_us_state_code,
    to_us_state_name,
)
from recursive_cleaner.judge.validation import (
    ALLOWED_IMPORTS,
    check_code_safety,
    validate_function,
    validate_function_detailed,
)

STATUSES = ["active", "pending", "churned"]
PACKAGE = Path(tk.__file__).parent


def table(function, cases, **kwargs):
    for given_value, expected in cases:
        got = function(given_value, **kwargs)
        assert got == expected and type(got) is type(expected), (
            function.__name__,
            given_value,
            got,
            expected,
        )


# ---- dates and times ---------------------------------------------------------------------------
DATES = [
    ("2023-04-05", "2023-04-05"),
    ("2023-04-05T14:30:00Z", "2023-04-05"),
    ("2023-04-05T14:30:00.123+02:00", "2023-04-05"),
    ("2023-04-05 14:30", "2023-04-05"),
    ("2023/04/05", "2023-04-05"),
    ("2023/4/5", "2023-04-05"),
    ("2023.04.05", "2023-04-05"),
    ("4/5/2023", "2023-04-05"),
    ("04-05-2023", "2023-04-05"),
    ("25/12/2023", "2023-12-25"),
    ("12.03.1985", "1985-03-12"),
    ("20230405", "2023-04-05"),
    ("April 5, 2023", "2023-04-05"),
    ("Apr 5 2023", "2023-04-05"),
    ("Apr. 5, 2023", "2023-04-05"),
    ("5 Apr 2023", "2023-04-05"),
    ("5 April, 2023", "2023-04-05"),
    ("12-Mar-1985", "1985-03-12"),
    ("Mar 12, 1985", "1985-03-12"),
    ("12mar1985", "1985-03-12"),
    ("April 5th, 2023", "2023-04-05"),
    ("5th of April 2023", "2023-04-05"),
    ("Sept 5 2023", "2023-09-05"),
    ("2023-Apr-05", "2023-04-05"),
    ("Wednesday, April 5, 2023", "2023-04-05"),
    ("Wed, 05 Apr 2023 14:30:00 +0000", "2023-04-05"),
    ("  4/5/2023  ", "2023-04-05"),
    ("4/5/2023 2:30 PM", "2023-04-05"),
    ("4/5/23", "2023-04-05"),
    ("1/1/69", "2069-01-01"),
    ("1/1/70", "1970-01-01"),
    ("12-Mar-85", "1985-03-12"),
    (dt.date(2023, 4, 5), "2023-04-05"),
    (dt.datetime(2023, 4, 5, 14, 30), "2023-04-05"),
]
NOT_DATES = [
    "2023-02-30",
    "13/13/2023",
    "April 2023",
    "2023",
    "4/5",
    "yesterday",
    "",
    "2023-04-05T25:00",
    "4/5/20231",
    "0000-01-01",
    "12:30",
]


def test_to_iso_date_layouts():
    table(to_iso_date, DATES)


@pytest.mark.parametrize("value", NOT_DATES)
def test_to_iso_date_leaves_what_it_cannot_parse(value):
    assert to_iso_date(value) == value


def test_day_month_ambiguity():
    # a/b/yyyy is month first (US) by default, day first with dayfirst=True ...
    assert to_iso_date("4/5/2023") == "2023-04-05"
    assert to_iso_date("4/5/2023", dayfirst=True) == "2023-05-04"
    assert to_iso_date("04-05-23", dayfirst=True) == "2023-05-04"
    # ... unless only one reading is a date: then that one, whatever dayfirst says
    assert to_iso_date("25/12/2023") == to_iso_date("25/12/2023", dayfirst=True) == "2023-12-25"
    assert to_iso_date("12/25/2023") == to_iso_date("12/25/2023", dayfirst=True) == "2023-12-25"
    # dotted dates are European (day first) either way; ISO and month names are never ambiguous
    assert to_iso_date("12.03.1985") == to_iso_date("12.03.1985", dayfirst=True) == "1985-03-12"
    assert to_iso_date("2023-04-05", dayfirst=True) == "2023-04-05"
    assert to_iso_date("Apr 5 2023", dayfirst=True) == "2023-04-05"


def test_to_iso_datetime():
    table(
        to_iso_datetime,
        [
            ("4/5/2023 2:30 PM", "2023-04-05T14:30:00"),
            ("2023-04-05 14:30", "2023-04-05T14:30:00"),
            ("2023-04-05T14:30:00Z", "2023-04-05T14:30:00+00:00"),
            ("2023-04-05T14:30:00.999-05:00", "2023-04-05T14:30:00-05:00"),
            ("2023-04-05 14:30 +0530", "2023-04-05T14:30:00+05:30"),
            ("April 5, 2023 at 7:05 a.m.", "2023-04-05T07:05:00"),
            ("Wed, 05 Apr 2023 14:30:00 GMT", "2023-04-05T14:30:00+00:00"),
            ("4/5/2023", "2023-04-05T00:00:00"),
            ("2023-04-05T14:30:00+02:00", "2023-04-05T14:30:00+02:00"),
            (dt.date(2023, 4, 5), "2023-04-05T00:00:00"),
            (dt.datetime(2023, 4, 5, 14, 30, 1, 500), "2023-04-05T14:30:01"),
            (
                dt.datetime(2023, 4, 5, 14, 30, tzinfo=dt.timezone(dt.timedelta(hours=2))),
                "2023-04-05T14:30:00+02:00",
            ),
            # a named zone has no fixed offset: unchanged
            ("4/5/2023 2:30 PM EST", "4/5/2023 2:30 PM EST"),
            ("2023-04-05 13:30 PM", "2023-04-05 13:30 PM"),
            ("2023-04-05 14:61", "2023-04-05 14:61"),
        ],
    )
    assert to_iso_datetime("5/4/2023 14:30", dayfirst=True) == "2023-04-05T14:30:00"


def test_to_time_24h():
    table(
        to_time_24h,
        [
            ("2:30 p.m.", "14:30"),
            ("2:30PM", "14:30"),
            ("2:30 pm", "14:30"),
            ("14:30", "14:30"),
            ("7:05 a.m.", "07:05"),
            ("7:05", "07:05"),
            ("12:00 AM", "00:00"),
            ("12:15 pm", "12:15"),
            ("2 PM", "14:00"),
            ("14:30:59", "14:30"),
            ("2023-04-05T14:30:00Z", "14:30"),
            ("4/5/2023 2:30 PM", "14:30"),
            (dt.time(9, 5), "09:05"),
            ("5", "5"),
            ("25:00", "25:00"),
            ("13:00 pm", "13:00 pm"),
            ("noon", "noon"),
            ("2023-04-05", "2023-04-05"),
        ],
    )


# ---- phones ------------------------------------------------------------------------------------
def test_to_e164():
    table(
        to_e164,
        [
            ("(555) 123-4567", "+15551234567"),
            ("555.123.4567", "+15551234567"),
            ("555-123-4567", "+15551234567"),
            ("5551234567", "+15551234567"),
            ("1-555-123-4567", "+15551234567"),
            ("+1 (555) 123-4567", "+15551234567"),
            ("+15551234567", "+15551234567"),
            ("tel:+1-555-123-4567", "+15551234567"),
            ("555-123-4567 x123", "+15551234567"),
            ("(555) 123-4567 ext. 12", "+15551234567"),
            ("555 123 4567, extension 9", "+15551234567"),
            ("555-123-4567 #5", "+15551234567"),
            ("+44 20 7946 0123", "+442079460123"),
            ("+44 (0)20 7946 0123", "+442079460123"),
            ("00 44 20 7946 0123", "+442079460123"),
            ("011 44 20 7946 0123", "+442079460123"),
            (5551234567, "+15551234567"),
            ("12345", "12345"),
            ("123-4567", "123-4567"),
            ("1-800-FLOWERS", "1-800-FLOWERS"),
            ("+1 555 123 456", "+1 555 123 456"),
            ("555-123-45678", "555-123-45678"),
            ("call me", "call me"),
            ("", ""),
        ],
    )
    assert to_e164("020 7946 0123", default_country="44") == "+442079460123"
    assert to_e164("020 7946 0123", default_country="+44") == "+442079460123"
    assert to_e164("+1 555 123 4567", default_country="44") == "+15551234567"
    assert to_e164("555-123-4567", default_country="not a code") == "555-123-4567"


# ---- numbers -----------------------------------------------------------------------------------
NUMBERS = [
    ("$1,234.50", 1234.5),
    ("1234.5 USD", 1234.5),
    ("USD 1,234.50", 1234.5),
    (" $99 ", 99.0),
    ("12.0 oz", 12.0),
    ("5.5%", 5.5),
    ("0.05", 0.05),
    ("1.234,50 €", 1234.5),
    ("(12.50)", "(12.50)"),  # accounting brackets only when asked (accounting=True)
    ("($1,234.50)", "($1,234.50)"),
    ("ORD-5000", "ORD-5000"),  # a code's hyphen is no minus sign
    ("A-12", "A-12"),
    ("-3", -3.0),
    ("1e3", 1000.0),
    ("2.5E-2", 0.025),
    ("-$12.50", -12.5),
    ("$-12.50", -12.5),
    ("\u221212", -12.0),
    ("+7", 7.0),
    ("US$10", 10.0),
    ("€ 5", 5.0),
    ("£3.20", 3.2),
    ("Rs. 500", 500.0),
    ("1,5", 1.5),
    ("0,123", 0.123),
    ("1,234", 1234.0),
    ("12,345,678.9", 12345678.9),
    ("1.234.567", 1234567.0),
    ("1.234.567,89", 1234567.89),
    ("1 234 567,89", 1234567.89),
    ("1\u00a0234,5", 1234.5),
    ("1'234.50", 1234.5),
    (".5", 0.5),
    ("1.234", 1.234),
    ("12 kg", 12.0),
    ("99 per month", 99.0),
    (3, 3.0),
    (2.5, 2.5),
    (-4, -4.0),
]
NOT_NUMBERS = [
    "abc",
    "",
    "CUST-01024",
    "C01024",
    "12-15",
    "1/2",
    "4/5/2023",
    "2023-04-05",
    "12:30",
    "1,2,3",
    "1.2.3",
    "1,23,4",
    "nan",
    "inf",
    "1e999",
    "(-12)",
    "--5",
    "1.5k",
    "5M",
    "2 million",
    "0x1F",
    "#5",
    "N/A",
    "1 2",
]


def test_to_number():
    table(to_number, NUMBERS)


@pytest.mark.parametrize("value", NOT_NUMBERS)
def test_to_number_leaves_what_it_cannot_parse(value):
    assert to_number(value) == value
    assert strip_units(value) == value


def test_to_number_integer():
    table(
        to_number,
        [
            ("$1,234", 1234),
            ("12.0 oz", 12),
            ("1e3", 1000),
            ("1,234.00", 1234),
            (7, 7),
            (7.0, 7),
            ("12345678901234567890", 12345678901234567890),
            ("1234.5", "1234.5"),
            (2.5, 2.5),
        ],
        integer=True,
    )


def test_to_int():
    table(
        to_int,
        [
            ("CUST-01024", 1024),
            ("cust_1024", 1024),
            (" 1024 ", 1024),
            ("C01024", 1024),
            ("1024.0", 1024),
            ("1024.", 1024),
            ("-12", -12),
            ("#77", 77),
            (1024, 1024),
            (1024.0, 1024),
            ("1,024", 1024),
            ("379,998", 379998),
            ("1,02", "1,02"),
            ("12.5", "12.5"),
            ("v2-item3", "v2-item3"),
            ("no digits", "no digits"),
            ("", ""),
            (12.5, 12.5),
            ("9" * 5000, "9" * 5000),
        ],
    )


def test_accounting_brackets_are_negative_only_when_asked():
    assert to_number("(12.50)", accounting=True) == -12.5
    assert to_number("($1,234.50)", accounting=True) == -1234.5
    assert to_int("(12)") == "(12)" and to_int("- 5") == "- 5" and to_int("ORD-5000") == 5000


def test_strip_units():
    table(
        strip_units,
        [
            ("12.0 oz", "12.0"),
            ("5.0%", "5.0"),
            ("$1,234.50", "1,234.50"),
            ("1.234,50 €", "1.234,50"),
            ("(12.50)", "(12.50)"),
            ("+5 kg", "5"),
            ("-3 °C", "-3"),
            ("1e3 m/s", "1e3"),
            ("42", "42"),
            (12.0, 12.0),
            ("16.0 oz. Alumi-Tek", "16.0"),  # a hyphen inside a word of the unit text
            ("10-20", "10-20"),
            ("12 - 5", "12 - 5"),  # a range or a sum is not one number
        ],
    )


# ---- categories, booleans, placeholders --------------------------------------------------------
def test_closest_value():
    table(
        closest_value,
        [
            ("active", "active"),
            ("actve", "active"),
            ("Pending ", "pending"),
            ("CHURNED", "churned"),
            ("chruned", "churned"),
            ("Pendin g", "pending"),
            ("  ACTIVE!", "active"),
            ("pénding", "pending"),
            ("zzz", "zzz"),
            ("", ""),
            (None, None),
            (3, 3),
        ],
        allowed=STATUSES,
    )
    assert closest_value("zzz", STATUSES, default="unknown") == "unknown"
    assert closest_value(None, STATUSES, default="unknown") == "unknown"
    assert closest_value("actve", STATUSES, cutoff=0.95) == "actve"
    assert closest_value("In Progress", ["in_progress", "done"]) == "in_progress"
    assert closest_value("Active", {"Active": 1, "Inactive": 0}) == "Active"
    # a single string is one allowed value, not its letters
    assert closest_value("activ", "active") == "active"
    assert closest_value("ab", ["abc", "abd"]) == "ab"  # a tie is not guessed
    assert closest_value(1, [True, 1]) == 1 and closest_value(True, [1, True]) is True
    assert closest_value("x", None) == "x" and closest_value("x", 5, default="d") == "x"


def test_to_bool():
    truthy = ["yes", "Y", "TRUE", "t", "1", "on", " Yes ", 1, 1.0]
    falsy = ["no", "N", "false", "F", "0", "OFF", 0, 0.0]
    assert all(to_bool(v) is True for v in truthy) and all(to_bool(v) is False for v in falsy)
    for value in ["maybe", "", 2, None, "yes please", [1]]:
        assert to_bool(value) == value
    assert to_bool(True) is True and to_bool(False) is False


PLACEHOLDERS = [
    "",
    "  ",
    "N/A",
    "n/a",
    "NA",
    "null",
    "NULL",
    "None",
    "-",
    "--",
    "?",
    "empty",
    "unknown",
    "nan",
    "NaN",
    "#N/A",
    "\t",
    " none ",
]


def test_placeholders():
    for value in PLACEHOLDERS:
        assert null_if_placeholder(value) is None and is_null_like(value), value
    for value in ["Alice", "0", 0, False, "nan cy", [], {}]:
        assert null_if_placeholder(value) is value and not is_null_like(value), value
    assert null_if_placeholder(None) is None and is_null_like(float("nan"))
    assert null_if_placeholder("TBD", extra=("tbd", "0000-00-00")) is None
    assert null_if_placeholder("0000-00-00", extra="0000-00-00") is None
    assert null_if_placeholder("TBD") == "TBD" and null_if_placeholder("x", extra=5) == "x"


# ---- text --------------------------------------------------------------------------------------
def test_text_helpers():
    table(normalize_whitespace, [("  a \t b\n c  ", "a b c"), ("", ""), ("x", "x")])
    table(
        title_case_name,
        [
            ("  ALICE   SMITH ", "Alice Smith"),
            ("o'brien", "O'Brien"),
            ("mcdonald", "Mcdonald"),
            ("McDonald", "McDonald"),
            ("mary-jane DE LA CRUZ", "Mary-Jane De La Cruz"),
            ("OKAFOR, Ana", "Okafor, Ana"),
            ("josé ÁLVAREZ", "José Álvarez"),
        ],
    )
    table(
        normalize_email,
        [("  Alice.Smith@Example.COM ", "alice.smith@example.com"), ("bob @ x.org", "bob@x.org")],
    )
    table(to_lower, [("  MiXeD ", "mixed")])
    table(to_upper, [(" ca ", "CA")])


# ---- places ------------------------------------------------------------------------------------
COUNTRY_SPELLINGS = {
    "US": [
        "USA",
        "U.S.",
        "U.S.A.",
        "United States",
        "united states of america",
        "America",
        "us",
        "usa",
        "US of A",
    ],
    "GB": [
        "UK",
        "U.K.",
        "United Kingdom",
        "Great Britain",
        "England",
        "Britain",
        "Scotland",
        "gbr",
        "gb",
    ],
    "DE": ["Germany", "Deutschland", "DEU", "de"],
    "NL": ["Holland", "The Netherlands", "Netherlands", "NLD"],
    "CI": ["Côte d'Ivoire", "Cote d’Ivoire", "COTE D'IVOIRE", "Ivory Coast"],
    "KR": ["South Korea", "Korea, Republic of"],
    "KP": ["North Korea", "DPRK"],
    "CD": ["DR Congo", "Democratic Republic of the Congo", "DRC"],
    "CG": ["Congo"],
    "CZ": ["Czech Republic", "Czechia"],
    "TR": ["Turkey", "Türkiye"],
    "SZ": ["Swaziland"],
    "MM": ["Burma"],
    "KN": ["St. Kitts & Nevis"],
    "VC": ["St Vincent and the Grenadines"],
    "BA": ["Bosnia-Herzegovina"],
    "AE": ["UAE"],
    "RU": ["Russia", "Russian Federation"],
    "VN": ["Viet Nam"],
    "CN": ["People's Republic of China", "PRC"],
}


def test_country_codes_and_names():
    for code, spellings in COUNTRY_SPELLINGS.items():
        for spelling in spellings:
            assert to_country_code(spelling) == code, spelling
            assert to_country_name(spelling) == to_country_name(code), spelling
    assert (
        to_country_name("u.s.a.") == "United States" and to_country_name("uk") == "United Kingdom"
    )
    assert to_country_name("DEU") == "Germany"
    for value in ["Atlantis", "", "U.S.S.R.", None, 1]:
        assert to_country_code(value) == value and to_country_name(value) == value


def table_rows(text: str) -> list[list[str]]:
    return [line.split("|") for line in text.splitlines()]


def test_country_table_is_complete_and_unambiguous():
    rows = table_rows(tk._COUNTRY_TABLE)
    assert (
        len(rows) == 250 and len({r[0] for r in rows}) == 250 and len({r[1] for r in rows}) == 250
    )
    claimed: dict[str, str] = {}
    for row in rows:
        assert row[0].isupper() and len(row[0]) == 2 and row[1].isupper() and len(row[1]) == 3
        for spelling in row:
            key = tk._place_key(spelling)
            assert claimed.setdefault(key, row[0]) == row[0], (
                f"{spelling!r} is claimed by {claimed[key]} and {row[0]}"
            )
        # codes and the canonical name map back to the code; the name is stable
        assert (
            to_country_code(row[0])
            == to_country_code(row[1].lower())
            == to_country_code(row[2])
            == row[0]
        )
        assert to_country_name(row[0]) == to_country_name(row[2]) == row[2]


def test_us_states():
    table(
        to_us_state_code,
        [
            ("California", "CA"),
            ("calif.", "CA"),
            ("Calif", "CA"),
            ("ca", "CA"),
            ("CA", "CA"),
            ("N.Y.", "NY"),
            ("new york", "NY"),
            ("W.Va.", "WV"),
            ("Wash.", "WA"),
            ("Washington", "WA"),
            ("Washington, D.C.", "DC"),
            ("District of Columbia", "DC"),
            ("Puerto Rico", "PR"),
            ("Guam", "GU"),
            ("Penna.", "PA"),
            ("Mass", "MA"),
            ("N. Dak.", "ND"),
            ("Hawaiʻi", "HI"),
            ("Texas", "TX"),
            ("Atlantis", "Atlantis"),
            (None, None),
        ],
    )
    table(
        to_us_state_name,
        [("CA", "California"), ("Calif.", "California"), ("dc", "District of Columbia")],
    )
    rows = table_rows(tk._STATE_TABLE)
    assert len(rows) == 56 and len({r[0] for r in rows}) == 56
    claimed: dict[str, str] = {}
    for row in rows:
        for spelling in row:
            assert claimed.setdefault(tk._place_key(spelling), row[0]) == row[0], spelling
        assert to_us_state_code(row[1]) == row[0] and to_us_state_name(row[0]) == row[1]


# ---- totality and idempotence ------------------------------------------------------------------
def one_arg(name: str):
    if name == "closest_value":
        return lambda value: closest_value(value, STATUSES)
    if name == "to_unit":
        return lambda value: tk.to_unit(value, "kg")
    if name == "to_shape":
        return lambda value: tk.to_shape(value, "AB-1234")
    if name == "convert_unit":  # a (value, unit) pair: the second call takes the first one's pair
        return lambda value: (
            tk.convert_unit(*value, "gal", "L", multiply=3.785, places=2)
            if isinstance(value, tuple) and len(value) == 2
            else tk.convert_unit(value, "US gal", "gal", "L", multiply=3.785, places=2)
        )
    return getattr(tk, name)


VARIANTS = {
    **{name: one_arg(name) for name in tk.PRIMITIVES if name != "is_null_like"},
    "to_iso_date(dayfirst)": lambda v: to_iso_date(v, dayfirst=True),
    "to_iso_datetime(dayfirst)": lambda v: to_iso_datetime(v, dayfirst=True),
    "to_e164(44)": lambda v: to_e164(v, default_country="44"),
    "to_number(integer)": lambda v: to_number(v, integer=True),
    "to_number(decimal=',')": lambda v: to_number(v, decimal=","),
    "to_number(decimal='.')": lambda v: to_number(v, whole_as_int=True, decimal="."),
    "to_unit(lb, digits)": lambda v: tk.to_unit(v, "lb", digits=2),
    "to_unit(ml, decimal)": lambda v: tk.to_unit(v, "ml", decimal=","),
    "to_shape(a1_b)": lambda v: tk.to_shape(v, "a1_B"),
    "closest_value(default)": lambda v: closest_value(v, STATUSES, default="pending"),
    "null_if_placeholder(extra)": lambda v: null_if_placeholder(v, extra=("tbd",)),
}
PIECES = st.sampled_from(
    list("0123456789 ,.-/:+()$€%'apmtxeTZ")
    + [
        "jan",
        "April",
        "Mar",
        "th",
        " PM",
        "a.m.",
        "USD",
        "ext",
        "00",
        "+1 ",
        "Wed, ",
        "N/A",
        "k",
        "\u00a0",
        "é",
        "ß",
    ]
)
TEXT = st.one_of(st.text(), st.lists(PIECES, max_size=14).map("".join))
VALUES = st.one_of(
    TEXT,
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


@pytest.mark.parametrize("name", sorted(VARIANTS))
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(value=VALUES)
def test_every_helper_is_total_and_idempotent(name, value):
    function = VARIANTS[name]
    once = function(value)
    twice = function(once)
    assert type(twice) is type(once) and twice == once
    if name == "convert_unit":
        once = once[0] if once[1] == "US gal" else value  # no number: the pair comes back unchanged
    if (
        not isinstance(value, (str, int, float))
        and value is not None
        and name != "closest_value(default)"
    ):
        assert once is value  # lists, dicts: always unchanged


@settings(max_examples=200, deadline=None)
@given(value=VALUES)
def test_is_null_like_always_answers_a_bool(value):
    assert is_null_like(value) in (True, False)


NON_TEXT = [None, True, False, [1, 2], {"a": 1}, ("x",), object()]
CONVERTS = {  # the documented conversions of non-text inputs
    ("to_number", 3): 3.0,
    ("to_bool", 1): True,
    ("to_bool", 0): False,
    ("to_e164", 5551234567): "+15551234567",
    ("null_if_placeholder", None): None,
}


@pytest.mark.parametrize("name", [n for n in tk.PRIMITIVES if n != "is_null_like"])
def test_non_text_inputs_come_back_unchanged(name):
    function = one_arg(name)
    if name == "convert_unit":  # a pair: the value comes back as it was, with its unit
        assert all(function(value) == (value, "US gal") for value in NON_TEXT if value is not None)
        assert function(2) == (7.57, "L") and function(None) == (None, "US gal")
        return
    for value in NON_TEXT:
        assert function(value) is value, (name, value)
    for value in (3, 1, 0, 5551234567, 2.5, -7):
        expected = CONVERTS.get((name, value), value)
        if name in ("to_number",) and (name, value) not in CONVERTS:
            expected = float(value)
        got = function(value)
        assert got == expected and type(got) is type(expected), (name, value, got)
    assert math.isnan(to_number(float("nan"))) and to_number(float("inf")) == float("inf")


# ---- the module itself -------------------------------------------------------------------------
def test_catalogue_and_primitives():
    lines = tk.CATALOGUE.strip().splitlines()
    assert len(lines) <= 25 and tk.__doc__ == tk.CATALOGUE
    for name in tk.PRIMITIVES:
        assert any(line.startswith(name + "(") or f" / {name}(" in line for line in lines), name
        assert callable(getattr(tk, name)) and getattr(tk, name).__doc__, name
    # without_float_noise: shared with the profiler (what to_number drops is what the profile
    # flags), not offered
    assert set(tk.__all__) == {
        *tk.PRIMITIVES,
        "CATALOGUE",
        "PRIMITIVES",
        "without_float_noise",
        "infer_decimal",
        "infer_dayfirst",
        "unit_dimension",
    }
    assert len(set(tk.PRIMITIVES)) == len(tk.PRIMITIVES)


def test_docs_show_the_current_catalogue():
    docs = (PACKAGE.parent / "docs" / "toolkit.md").read_text(encoding="utf-8")
    for line in tk.CATALOGUE.splitlines():
        if line.split("(")[0] in tk.PRIMITIVES:
            assert line in docs, f"docs/toolkit.md is missing the catalogue line: {line}"


def test_toolkit_uses_only_modules_the_sandbox_allows():
    for name in (
        "toolkit.py",
        "_toolkit_data.py",
        "_toolkit_dates.py",
        "_toolkit_numbers.py",
        "_toolkit_units.py",
        "_toolkit_text.py",
    ):
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert all(alias.name in sandbox.ALLOWED_MODULES for alias in node.names), name
            elif isinstance(node, ast.ImportFrom):
                assert (
                    node.level == 1
                    and node.module
                    in (
                        "_toolkit_data",
                        "_toolkit_dates",
                        "_toolkit_numbers",
                        "_toolkit_units",
                        "_toolkit_text",
                    )
                ) or (node.level == 0 and node.module in sandbox.ALLOWED_MODULES), (
                    name,
                    node.module,
                )


# ---- in the sandbox ----------------------------------------------------------------------------
ONE_LINER = """
from recursive_cleaner.toolkit import to_iso_date, to_number, closest_value, to_e164

def clean(record):
    return {**record, "signup": to_iso_date(record.get("signup")), "amount": \
to_number(record.get("amount")),
            "status": closest_value(record.get("status"), ["active", "pending", "churned"]), \
"phone": to_e164(record.get("phone"))}
"""
RECORDS = [
    {"signup": "4/5/2023", "amount": "$1,234.50", "status": "actve", "phone": "(555) 123-4567"},
    {
        "signup": "April 5, 2023",
        "amount": "1.234,50 €",
        "status": "CHURNED ",
        "phone": "+44 20 7946 0123",
    },
    {"signup": None, "amount": None, "status": None, "phone": None},
]
EXPECTED = [
    {"signup": "2023-04-05", "amount": 1234.5, "status": "active", "phone": "+15551234567"},
    {"signup": "2023-04-05", "amount": 1234.5, "status": "churned", "phone": "+442079460123"},
    {"signup": None, "amount": None, "status": None, "phone": None},
]


def test_validate_function_accepts_a_toolkit_one_liner_and_its_outputs_are_right():
    assert "recursive_cleaner.toolkit" in ALLOWED_IMPORTS
    report = validate_function_detailed(ONE_LINER, RECORDS, "clean")
    assert report.ok, report.error
    assert report.outputs == EXPECTED and report.changed == 2
    assert validate_function(
        "import recursive_cleaner.toolkit as tk\ndef clean(r):\n    return {'d': "
        "tk.to_iso_date(r['d'])}",
        [{"d": "12.03.1985"}],
        "clean",
    ) == (True, None)


EVERY_HELPER = """
import recursive_cleaner.toolkit as tk

def clean(record):
    value = record["v"]
    out = {}
    for name in tk.PRIMITIVES:
        try:
            args = {"closest_value": (["active", "pending"],), "to_unit": ("kg",), "to_shape": \
("AB-1234",),
                    "convert_unit": ("US gal", "gal", "L")}
            kwargs = {"convert_unit": {"multiply": 3.785, "places": 2}}
            result = getattr(tk, name)(value, *args.get(name, ()), **kwargs.get(name, {}))
        except Exception as exc:
            result = "raised " + repr(exc)
        out[name] = result
    return out
"""


def test_every_helper_runs_under_the_audit_hook():
    values = [
        "4/5/2023 2:30 PM",
        "2023-04-05T14:30:00Z",
        "(555) 123-4567 x12",
        "$1,234.50",
        "CUST-01024",
        "actve",
        "N/A",
        "yes",
        " o'brien ",
        "U.S.A.",
        "Calif.",
        None,
        12,
        2.5,
        True,
        "2 lb",
        "three pcs",
        "ab 1234",
    ]
    # getattr: no AST policy here
    result = run_in_sandbox(EVERY_HELPER, "clean", [{"v": v} for v in values])
    assert result.ok, (result.error, result.violations)
    for value, output in zip(values, result.outputs):
        for name in tk.PRIMITIVES:
            local = one_arg(name)(value)
            assert output[name] == json.loads(json.dumps(local)), (name, value, output[name])


def test_sandbox_worker_batches_use_the_toolkit():
    with SandboxWorker(ONE_LINER, "clean", dict_only=True) as worker:
        assert worker.start().ok
        for _ in range(3):
            result = worker.run_batch(RECORDS)
            assert result.ok and result.outputs == EXPECTED


def test_the_child_finds_the_toolkit_beside_itself_without_a_toolkit_dir(monkeypatch):
    monkeypatch.setattr(sandbox_module, "_TOOLKIT_DIR", None)
    result = run_in_sandbox(ONE_LINER, "clean", RECORDS)
    assert result.ok and result.outputs == EXPECTED


def test_apply_uses_the_toolkit_sandboxed_and_trusted(tmp_path):
    code = ONE_LINER.replace("def clean(", "def clean_data(")
    assert list(apply_records(code, RECORDS, workers=1)) == EXPECTED
    functions, source = tmp_path / "cleaning_functions.py", tmp_path / "in.jsonl"
    functions.write_text(code)
    source.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    outputs = []
    for trusted in (False, True):  # trusted: the installed library's own toolkit, same output
        target = tmp_path / f"out-{trusted}.jsonl"
        apply_file(str(functions), str(source), str(target), workers=1, trusted=trusted)
        outputs.append(target.read_bytes())
    assert (
        outputs[0] == outputs[1]
        and [json.loads(line) for line in outputs[0].splitlines()] == EXPECTED
    )


@pytest.mark.parametrize(
    "code, fragment",
    [
        (
            "import recursive_cleaner\ndef clean(r):\n    return r",
            "import of 'recursive_cleaner' is not allowed",
        ),
        (
            "from recursive_cleaner import toolkit\ndef clean(r):\n    return r",
            "import of 'recursive_cleaner' is not allowed",
        ),
        ("import recursive_cleaner.toolkit\ndef clean(r):\n    return r", "without `as`"),
        (
            "import recursive_cleaner.judge.sandbox as s\ndef clean(r):\n    return r",
            "'recursive_cleaner.judge.sandbox' is not allowed",
        ),
        (
            "from recursive_cleaner._toolkit_data import COUNTRIES\ndef clean(r):\n    return r",
            "is not allowed",
        ),
        (
            "from recursive_cleaner.toolkit import to_date\ndef clean(r):\n    return r",
            "has no `to_date`; its helpers are: to_iso_date",
        ),
    ],
)
def test_the_policy_allows_only_the_toolkit_forms(code, fragment):
    problems = check_code_safety(code)
    assert problems and fragment in problems[0], problems
    ok, message = validate_function(code, [{}], "clean")
    assert not ok and fragment in message


@pytest.mark.parametrize(
    "code, refused_import",
    [
        ("import recursive_cleaner\ndef clean(r):\n    return r", "import recursive_cleaner"),
        ("def clean(r):\n    import recursive_cleaner\n    return r", "import recursive_cleaner"),
        (
            "from recursive_cleaner import toolkit\ndef clean(r):\n    return r",
            "import recursive_cleaner",
        ),
        (
            "def clean(r):\n    import recursive_cleaner._toolkit_data\n    return r",
            "import recursive_cleaner._toolkit_data",
        ),
        (
            "def clean(r):\n    import recursive_cleaner.judge.sandbox\n    return r",
            "import recursive_cleaner.judge.sandbox",
        ),
    ],
)
def test_the_sandbox_refuses_the_package_itself(code, refused_import):
    result = run_in_sandbox(code, "clean", [{}])  # no AST policy here: the child's own guard
    assert not result.ok and refused_import in result.violations, result


def test_the_stub_package_holds_only_the_toolkit():
    code = (
        "import recursive_cleaner.toolkit\n"
        "def clean(r):\n    return {'names': sorted(k for k in dir(recursive_cleaner) if not "
        "k.startswith('_'))}"
    )
    # the AST policy would refuse the un-aliased form; the child need not
    result = run_in_sandbox(code, "clean", [{}])
    assert result.ok and result.outputs == [{"names": ["toolkit"]}], result


def test_to_time_12h():
    from recursive_cleaner.toolkit import to_time_12h

    table(
        to_time_12h,
        [
            ("7:10 a.m.", "7:10 a.m."),
            ("20:00", "8:00 p.m."),
            ("00:15", "12:15 a.m."),
            ("12:00noon", "12:00 p.m."),
            ("2:45P", "2:45 p.m."),
            ("10:34A", "10:34 a.m."),
            ("12/02/2011 6:55 a.m.", "6:55 a.m."),
            ("6:55 a.m. Dec 02", "6:55 a.m."),
            ("7:10aDec 1", "7:10 a.m."),
            ("Thu  20:00", "8:00 p.m."),
            ("8:25 p.m. (Estimated runway)", "8:25 p.m."),
            ("11:25 p.m.&nbsp(Estimated)", "11:25 p.m."),
            ("Not Available", "Not Available"),
            ("", ""),
            ("13:30 p.m.", "13:30 p.m."),
            ("25:00", "25:00"),
            (dt.time(14, 5), "2:05 p.m."),
        ],
    )


def test_to_number_whole_as_int():
    table(
        to_number,
        [
            ("12.0 oz.", 12),
            ("16.9 oz", 16.9),
            ("12.0 OZ.", 12),
            (12.0, 12),
            (12, 12),
            ("12", 12),
            ("$1,234.00", 1234),
            ("0.05%", 0.05),
            ("-3.0", -3),
            ("N/A", "N/A"),
            ("12 pack", 12),
        ],
        whole_as_int=True,
    )
    for value in ("12.0 oz", "16.9 oz", 7.0, "1e3"):
        once = to_number(value, whole_as_int=True)
        assert to_number(once, whole_as_int=True) == once and type(
            to_number(once, whole_as_int=True)
        ) is type(once)


def test_to_number_drops_floating_point_noise_but_keeps_meant_digits():
    table(
        to_number,
        [
            ("0.052000000000000005%", 0.052),
            ("0.30000000000000004", 0.3),
            (0.1 + 0.2, 0.3),
            ("0.057999999999999996", 0.058),
            ("0.12345678901234568", 0.12345678901234568),
            ("1e300", 1e300),
            ("16.9 oz", 16.9),
        ],
    )


def test_closest_value_takes_short_forms_that_fit_one_entry_alone():
    depts = [
        "Finance",
        "Human Resources",
        "Engineering",
        "Sales",
        "Marketing",
        "Customer Support",
        "Legal",
    ]
    table(
        closest_value,
        [
            ("HR", "Human Resources"),
            ("CS", "Customer Support"),
            ("Eng", "Engineering"),
            ("Fin", "Finance"),
            ("Mktg", "Marketing"),
            ("Leg", "Legal"),
            ("Hum", "Hum"),
            ("XY", "XY"),
        ],
        allowed=depts,
    )
    assert closest_value("Mar", ["Marketing", "Maritime"]) == "Mar"  # fits two entries: not guessed
    # a typo, not a short form
    assert closest_value("actve", ["active", "pending"], cutoff=0.95) == "actve"


def test_closest_value_aliases_are_other_spellings_of_entries():
    # an alias of no entry is ignored
    aliases = {"elevated": "H", "reduced": "L", "typical": "N", "odd": "Z"}
    table(
        closest_value,
        [
            ("ELEVATED", "H"),
            ("Elevated", "H"),
            ("h", "H"),
            (" typical ", "N"),
            ("REDUCED", "L"),
            ("odd", "odd"),
            ("x", "x"),
        ],
        allowed=["H", "L", "N"],
        aliases=aliases,
    )
    # without the aliases: nothing close enough
    assert closest_value("elevated", ["H", "L", "N"]) == "elevated"


def test_to_iso_datetime_in_another_iso_form():
    table(
        to_iso_datetime,
        [
            ("03/02/2024 14:05", "2024-02-03 14:05"),
            ("3.2.2024 9:10", "2024-02-03 09:10"),
            ("2024-02-02T18:37:00", "2024-02-02 18:37"),
            ("2024-02-02 18:37", "2024-02-02 18:37"),
            (
                "2024-02-02T18:37:15",
                "2024-02-02T18:37:15",
            ),  # seconds the form would lose: unchanged
            # an offset it would lose: unchanged
            ("2024-02-02T18:37:00+02:00", "2024-02-02T18:37:00+02:00"),
            ("soon", "soon"),
        ],
        dayfirst=True,
        form="%Y-%m-%d %H:%M",
    )
    # a form it does not write
    assert to_iso_datetime("2024-02-02 18:37", form="%d %B") == "2024-02-02 18:37"
    assert to_iso_datetime("2024-02-02 18:37", form="%Y-%m-%dT%H:%M:%S") == "2024-02-02T18:37:00"


def test_to_shape_never_regroups_a_value_with_groups_of_its_own():
    from recursive_cleaner.toolkit import to_shape

    table(
        to_shape,
        [
            ("01.02.2024 19:11", "01.02.2024 19:11"),
            ("6175550143", "617-555-0143"),
            ("(617) 555.0143", "617-555-0143"),
            ("61-75550-143", "61-75550-143"),
        ],
        example="617-555-0143",
    )


def test_closest_value_reads_a_word_as_the_one_letter_code_it_starts():
    table(
        closest_value,
        [("high", "H"), ("LOW", "L"), ("Normal", "N"), ("x", "x")],
        allowed=["H", "L", "N"],
    )
    assert closest_value("yes", ["Y", "N"]) == "Y" and closest_value("maybe", ["Y", "N"]) == "maybe"


def test_to_number_reads_multipliers_only_when_asked():
    table(
        to_number,
        [
            ("52k", 52000.0),
            ("$1.5M", 1500000.0),
            ("3 million", 3000000.0),
            ("12", 12.0),
            ("x4", "x4"),
        ],
        scaled=True,
    )
    table(
        to_number,
        [("52k", 52000), ("$52,000", 52000), ("1.2345k", "1.2345k")],
        scaled=True,
        integer=True,
    )
    assert to_number("52k") == "52k"  # by default a multiplier is no decoration to drop


def test_title_case_name_keeps_particles_beside_a_capitalised_name():
    table(
        title_case_name,
        [
            ("de la Cruz", "de la Cruz"),
            ("van der Berg", "van der Berg"),
            ("jack taylor", "Jack Taylor"),
            (" HENRY   Wilson ", "Henry Wilson"),
            ("anne  marie", "Anne Marie"),
            ("MARIA", "Maria"),
        ],
    )
