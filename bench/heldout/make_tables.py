"""Held-out benchmark tables for issue 29: lab results, warehouse stock movements, an HR export,
a fleet's fuel log, a library catalogue, a container terminal's gate log, electricity meter
readings, a veterinary practice's visits, a web shop's returns log.

Standard library only, seeded and deterministic: the same seed writes byte-identical files.
Per table, in ``OUT/<table>/``:

- ``dirty.csv``: what the cleaner is given;
- ``clean.csv``: the ground truth, the same rows and columns in the same order;
- ``meta.json``: the columns the goals ask to leave alone (``protect``: their truth IS their dirty
  value, and each holds values a naive cleaner would "fix": leading zeros, odd case, numbers
  written as text), the columns to fix (``fix``), the other columns (``other``: clean, never
  mentioned as work), the columns whose truth is a number (``numeric``: compared by value), the
  row id column, and the share of dirty cells per fixed column.

Mostly clean: each field to fix is dirty in about 5-15% of its cells. The goal texts the cleaner
reads are in ``bench/heldout/goals/`` (written by hand before any run, never generated).

    python bench/heldout/make_tables.py [--out DIR] [--seed N] [--tables lab,hr]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import json
import random
from pathlib import Path

__all__ = ["TABLES", "ROWS", "SEED", "DEFAULT_OUT", "build_table", "write_table", "main"]

# fleet: session 13; books: session 15 (two fields asked, the rest left alone); containers: a
# container terminal's gate log, with goals written blind (see goals/BLIND.md); meters: an
# electricity network's meter readings, goals written blind (see goals/BLIND_BNEW.md); vet: a
# veterinary practice's visits, goals written blind (see goals/BLINDC.md); returns: an outdoor-gear
# web shop's returns log, goals written blind (see goals/BLINDD.md); each written before its first
# run
TABLES = ("lab", "warehouse", "hr", "fleet", "books", "containers", "meters", "vet", "returns")
ROWS = {
    "lab": 1600,
    "warehouse": 1700,
    "hr": 1500,
    "fleet": 1400,
    "books": 1300,
    "containers": 1500,
    "meters": 1450,
    "vet": 1350,
    "returns": 1400,
}
SEED = 29
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "out" / "heldout" / "tables"

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MONTHS_LONG = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
SMALL_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)


# ---------------------------------------------------------------- shared helpers


def typo(rng: random.Random, word: str) -> str:
    """One keyboard slip: a letter dropped, doubled, or two neighbours swapped (never a no-op)."""
    letters = [i for i, c in enumerate(word) if c.isalpha()]
    for _ in range(20):
        i = rng.choice(letters[1:-1] or letters)
        kind = rng.randrange(3)
        if kind == 0:
            out = word[:i] + word[i + 1 :]
        elif kind == 1:
            out = word[:i] + word[i] + word[i:]
        else:
            if i + 1 >= len(word) or not word[i + 1].isalpha():
                continue
            out = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        if out != word and out.lower() != word.lower():
            return out
    return word[:-1]


def rand_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randrange((end - start).days + 1))


def day_first(rng: random.Random, d: dt.date, *, long_forms: bool = True) -> str:
    """A date as a European export or a person writes it; never month-first with slashes."""
    forms = [
        f"{d.day:02d}/{d.month:02d}/{d.year}",
        f"{d.day:02d}.{d.month:02d}.{d.year}",
        f"{d.day}.{d.month}.{d.year}",
        f"{d.day:02d}-{d.month:02d}-{d.year}",
        f"{d.year}/{d.month:02d}/{d.day:02d}",
    ]
    if long_forms:
        forms += [
            f"{d.day} {MONTHS[d.month - 1]} {d.year}",
            f"{MONTHS_LONG[d.month - 1]} {d.day}, {d.year}",
        ]
    return rng.choice(forms)


def fmt_num(x: float, places: int) -> str:
    """A number as the clean export writes it: rounded, no trailing zeros, '.' as decimal mark."""
    text = f"{x:.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def comma_decimal(text: str) -> str:
    """'1234.5' -> '1.234,5'; '12.5' -> '12,5' (thousands only when there is a decimal part)."""
    whole, _, frac = text.partition(".")
    if len(whole) > 3 and frac:
        groups = []
        while len(whole) > 3:
            groups.insert(0, whole[-3:])
            whole = whole[:-3]
        whole = ".".join([whole] + groups)
    return f"{whole},{frac}" if frac else whole


def dirty_cells(rng: random.Random, n_rows: int, share: float) -> set[int]:
    """Exactly round(share * n_rows) row indexes, chosen at random."""
    return set(rng.sample(range(n_rows), round(share * n_rows)))


# ---------------------------------------------------------------- lab results

ANALYTES = [
    # name, unit, low, high, decimals, ref_low, ref_high
    ("Glucose", "mmol/L", 3.2, 16.0, 1, 3.9, 7.0),
    ("Sodium", "mmol/L", 126, 152, 0, 135, 145),
    ("Potassium", "mmol/L", 2.9, 6.2, 1, 3.5, 5.1),
    ("Creatinine", "umol/L", 40, 320, 0, 60, 110),
    ("Hemoglobin", "g/L", 85, 178, 0, 120, 160),
    ("Cholesterol", "mmol/L", 2.8, 8.4, 1, 0.0, 5.2),
    ("ALT", "U/L", 6, 140, 0, 7, 56),
]
GLUCOSE_FACTOR = 18  # mg/dL = mmol/L * 18 (the factor the goals give)
LAB_COMMENTS = [
    "HEMOLYSED - repeat requested",
    "sample recd late",
    "  QNS",
    "called to ward 4B @ 09:10",
    "lipaemic;  result may be affected",
    "pt fasting",
    "Repeat of 004211",
    "ok per Dr. lee",
    "CLOTTED",
    "non-fasting",
    "re-run on analyser 2",
    "Critical value phoned to RN Smith",
    "label hand-written",
    "see prev. result 12/03",
    "diluted 1:2",
    "tube underfilled",
    "ICU",
    "STAT",
    "added on to 003980",
    "Pt on insulin",
    "spec. rec'd  unlabeled, relabeled",
]


def _lab_flag(value: float, ref_low: float, ref_high: float) -> str:
    if value > ref_high:
        return "H"
    if value < ref_low:
        return "L"
    return "N"


def build_lab(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    cols = ["sample_id", "mrn", "analyte", "result", "unit", "collected_at", "flag", "tech_comment"]
    patients = [f"H{rng.randrange(10**6, 10**7 - 1):07d}" for _ in range(420)]
    sample = rng.randrange(400, 900)
    start = dt.datetime(2024, 2, 1, 6, 0)
    clean, dirty = [], []
    for i in range(n):
        sample += rng.randrange(1, 6)
        name, unit, lo, hi, places, ref_lo, ref_hi = rng.choice(ANALYTES)
        value = round(rng.uniform(lo, hi), places)
        when = start + dt.timedelta(minutes=int(i * 35 + rng.randrange(30)))
        comment = rng.choice(LAB_COMMENTS) if rng.random() < 0.3 else ""
        row = {
            "sample_id": f"{sample:06d}",
            "mrn": rng.choice(patients),
            "analyte": name,
            "result": fmt_num(value, places),
            "unit": unit,
            "collected_at": when.strftime("%Y-%m-%d %H:%M"),
            "flag": _lab_flag(value, ref_lo, ref_hi),
            "tech_comment": comment,
        }
        clean.append(row)
        dirty.append(dict(row))

    # glucose sent by the old analyser in mg/dL: both result and unit to fix
    glucose = [i for i, r in enumerate(clean) if r["analyte"] == "Glucose"]
    for i in rng.sample(glucose, round(0.3 * len(glucose))):
        mmol = float(clean[i]["result"])
        mg = round(mmol * GLUCOSE_FACTOR)
        assert round(mg / GLUCOSE_FACTOR, 1) == mmol, (mg, mmol)
        dirty[i]["result"] = str(mg)
        dirty[i]["unit"] = rng.choice(["mg/dL", "mg/dL", "mg/dl", "MG/DL"])
    # the same unit spelled another way (no conversion)
    for i in dirty_cells(rng, n, 0.05):
        if dirty[i]["unit"] == clean[i]["unit"] and clean[i]["unit"] in ("mmol/L", "umol/L"):
            dirty[i]["unit"] = rng.choice(
                [
                    clean[i]["unit"].lower(),
                    clean[i]["unit"].upper(),
                    clean[i]["unit"].replace("/", " / "),
                ]
            )
    for i in dirty_cells(rng, n, 0.10):
        name = clean[i]["analyte"]
        dirty[i]["analyte"] = (
            rng.choice(
                [
                    name.lower(),
                    name.upper(),
                    f" {name}",
                    f"{name} ",
                    typo(rng, name),
                ]
            )
            if name != "ALT"
            else rng.choice(["alt", " ALT", "A.L.T."])
        )
    for i in dirty_cells(rng, n, 0.10):
        when = dt.datetime.strptime(clean[i]["collected_at"], "%Y-%m-%d %H:%M")
        day = day_first(rng, when.date(), long_forms=False)
        dirty[i]["collected_at"] = rng.choice(
            [
                f"{day} {when:%H:%M}",
                f"{day} {when.hour}:{when.minute:02d}",
                when.strftime("%Y-%m-%dT%H:%M:%S"),
            ]
        )
    for i in dirty_cells(rng, n, 0.10):
        dirty[i]["flag"] = rng.choice(
            {
                "H": ["high", "HIGH", "High", "h"],
                "L": ["low", "LOW", "Low", "l"],
                "N": ["normal", "Normal", "n", "NORMAL"],
            }[clean[i]["flag"]]
        )
    meta = {
        "id": "sample_id",
        "protect": ["sample_id", "tech_comment"],
        "fix": ["analyte", "result", "unit", "collected_at", "flag"],
        "other": ["mrn"],
        "numeric": ["result"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- warehouse stock movements

SUPPLIERS = [
    "Nordic Fasteners AB",
    "Müller Industriebedarf GmbH",
    "Van Dijk Verpakking BV",
    "Ferramenta Rossi S.r.l.",
    "Lindqvist Tools AB",
    "Kowalski Metal Sp. z o.o.",
    "Dupont Emballages SARL",
    "Hansen & Søn A/S",
    "Schneider Kabeltechnik GmbH",
    "Iberplast S.L.",
    "Novak Elektro s.r.o.",
    "Brennan Supplies Ltd",
]
ITEMS = [  # description, kilograms per unit
    ("Hex bolt M8x40 zinc, box/100", 2.35),
    ("Washer M10 DIN125, bag/500", 1.8),
    ("Cable tie 300mm black, bag/100", 0.25),
    ("Stretch film 23my roll", 2.5),
    ("Pallet label 100x150, roll/500", 0.9),
    ("Carton 400x300x200", 0.35),
    ("Wood screw 4x35 TX20, box/200", 0.85),
    ("Hose clamp 20-32mm, box/50", 0.6),
    ("Nylon dowel 8mm, box/100", 0.15),
    ("Safety gloves size 9, pair", 0.08),
    ("PVC tape 19mm red", 0.05),
    ("Cable gland M20, bag/25", 0.4),
    ("Bubble wrap roll 1m", 4.75),
    ("Anchor bolt M12, box/25", 3.2),
    ("Label printer ribbon 110mm", 0.2),
    ("Drill bit HSS 6mm, set/10", 0.12),
    ("Steel shelf 900x400", 12.5),
    ("Pallet wrap netting", 18.0),
]
LB_TO_KG = 0.45359237


def _supplier_slip(rng: random.Random, name: str) -> str:
    words = name.split(" ")
    forms = [
        typo(rng, name),
        name.upper(),
        name.lower(),
        " ".join(words[:-1]) or name,
        name.replace(" ", "  ", 1),
    ]
    if "ü" in name or "ø" in name:
        forms.append(name.replace("ü", "u").replace("ø", "o"))
    return rng.choice([f for f in forms if f != name])


def build_warehouse(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    cols = [
        "mvt_no",
        "booking_date",
        "movement",
        "sku",
        "item",
        "supplier",
        "quantity",
        "gross_weight",
        "unit_price",
        "currency",
        "bin",
    ]
    letters = "ABCDEFGHKLMNPRSTVW"
    skus = []
    while len(skus) < 80:
        sku = f"{rng.choice(letters)}{rng.choice(letters)}-{rng.randrange(1000, 10000)}"
        if sku not in skus:
            skus.append(sku)
    per_sku = {
        sku: {
            "item": item,
            "supplier": rng.choice(SUPPLIERS),
            "kg": kg,
            "price": round(rng.uniform(0.2, 180.0), 2),
            "bin": f"{rng.randrange(0, 2500):05d}",
            "currency": rng.choice(["EUR"] * 6 + ["SEK", "DKK", "eur", "€", "Eur"]),
        }
        for sku, (item, kg) in zip(skus, [rng.choice(ITEMS) for _ in skus])
    }
    day = dt.date(2024, 1, 2)
    clean, dirty = [], []
    for i in range(n):
        if rng.random() < 0.08:
            day += dt.timedelta(days=1 if day.weekday() < 4 else 3)
        sku = rng.choice(skus)
        info = per_sku[sku]
        small = rng.randrange(1, 21)
        qty = rng.choice([small, small, rng.randrange(21, 60 if info["kg"] > 2 else 400)])
        row = {
            "mvt_no": f"SM24-{i + 1:06d}",
            "booking_date": day.isoformat(),
            "movement": rng.choice(["IN", "OUT", "OUT", "OUT", "ADJ"]),
            "sku": sku,
            "item": info["item"],
            "supplier": info["supplier"],
            "quantity": str(qty),
            "gross_weight": fmt_num(info["kg"] * qty, 2),
            "unit_price": f"{info['price']:.2f}",
            "currency": info["currency"] if rng.random() < 0.97 else "EUR",
            "bin": info["bin"],
        }
        clean.append(row)
        dirty.append(dict(row))

    for i in dirty_cells(rng, n, 0.12):
        d = dt.date.fromisoformat(clean[i]["booking_date"])
        dirty[i]["booking_date"] = rng.choice(
            [
                f"{d.day:02d}.{d.month:02d}.{d.year}",
                f"{d.day:02d}.{d.month:02d}.{d.year}",
                f"{d.day}.{d.month}.{d.year}",
                f"{d.day:02d}/{d.month:02d}/{d.year}",
                f"{d.day:02d}-{d.month:02d}-{d.year}",
            ]
        )
    for i in dirty_cells(rng, n, 0.10):
        letters_, digits = clean[i]["sku"].split("-")
        dirty[i]["sku"] = rng.choice(
            [
                f"{letters_.lower()} {digits}",
                f"{letters_}_{digits}",
                f"{letters_} {digits}",
                f"{letters_}{digits}",
                f"{letters_.lower()}-{digits}",
                f"{letters_.lower()}_{digits}",
            ]
        )
    for i in dirty_cells(rng, n, 0.07):
        dirty[i]["supplier"] = _supplier_slip(rng, clean[i]["supplier"])
    for i in dirty_cells(rng, n, 0.10):
        q = int(clean[i]["quantity"])
        forms = [f"{q} pcs", f"{q} pcs", f"x{q}", f"{q}x", f"{q} pc", f"{q} Stk"]
        if q <= 20:
            forms += [SMALL_WORDS[q]] * 3
        dirty[i]["quantity"] = rng.choice(forms)
    for i in dirty_cells(rng, n, 0.12):
        kg_text = clean[i]["gross_weight"]
        kg = float(kg_text)
        forms = []
        if "." in kg_text:
            forms += [comma_decimal(kg_text)] * 3 + [f"{comma_decimal(kg_text)} kg"]
        forms += [f"{kg_text} kg", f"{round(kg * 1000)} g"]
        lb = round(kg / LB_TO_KG, 2)
        if all(round(lb * f, 2) == round(kg, 2) for f in (LB_TO_KG, 0.4536)):
            # in pounds only where the goals' rounded factor gives the same kilograms
            forms += [f"{fmt_num(lb, 2)} lb", f"{fmt_num(lb, 2)} lbs"]
        dirty[i]["gross_weight"] = rng.choice(forms)
    for i in dirty_cells(rng, n, 0.08):
        dirty[i]["unit_price"] = comma_decimal(clean[i]["unit_price"])
    meta = {
        "id": "mvt_no",
        "protect": ["bin", "currency"],
        "fix": ["booking_date", "sku", "supplier", "quantity", "gross_weight", "unit_price"],
        "other": ["mvt_no", "movement", "item"],
        "numeric": ["quantity", "gross_weight", "unit_price"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- HR export

FIRST = [
    "Maria",
    "James",
    "Aisha",
    "Liam",
    "Sofia",
    "Noah",
    "Chen",
    "Olivia",
    "Mateo",
    "Priya",
    "Lucas",
    "Emma",
    "Kwame",
    "Hannah",
    "Diego",
    "Yuki",
    "Fatima",
    "Ethan",
    "Ingrid",
    "Omar",
    "Grace",
    "Tomasz",
    "Leila",
    "Samuel",
    "Anne Marie",
    "Jean-Luc",
    "Mary Kate",
    "Ravi",
    "Zoe",
    "Daniel",
    "Elena",
    "Marcus",
    "Nadia",
    "Peter",
    "Chloe",
    "Andre",
    "Julia",
    "Ben",
]
LAST = [
    "Smith",
    "Garcia",
    "Okafor",
    "Nguyen",
    "Johansson",
    "Patel",
    "Kowalski",
    "Rossi",
    "Müller",
    "Haddad",
    "Tanaka",
    "Brown",
    "Silva",
    "Andersen",
    "Novak",
    "Fischer",
    "Kim",
    "Lopez",
    "Walker",
    "Murphy",
    "Schmidt",
    "Ibrahim",
    "Costa",
    "Moreau",
    "Evans",
    "Smith-Jones",
    "O'Brien",
    "Wright",
    "Chowdhury",
    "Petrov",
]
# right as they are, but a naive title-case would break them
LAST_TRAPS = ["McDonald", "MacLeod", "de la Cruz", "van der Berg", "DiMaggio", "LeBlanc"]
DEPTS = [
    "Finance",
    "Human Resources",
    "Engineering",
    "Sales",
    "Marketing",
    "Operations",
    "Legal",
    "Customer Support",
]
DEPT_SLIPS = {
    "Finance": ["Fin", "FINANCE", "finance", "Finanace"],
    "Human Resources": ["HR", "H.R.", "human resources", "Human Resouces"],
    "Engineering": ["Eng", "Engg", "ENGINEERING", "Enginering"],
    "Sales": ["SALES", "sales", "Saless", " Sales"],
    "Marketing": ["Mktg", "MARKETING", "marketing", "Marketting"],
    "Operations": ["Ops", "OPS", "operations", "Opperations"],
    "Legal": ["LEGAL", "legal", "Legal ", "Leagl"],
    "Customer Support": ["CS", "Cust Support", "customer support", "Customer Suport"],
}
HR_NOTES = [
    "Rehire: NO",
    "on leave from 03/2024",
    "transferred from ops",
    "PT 60%",
    "see HR file 00231",
    "  relocating to Berlin",
    "contract ends 31.12.2025",
    "MANAGER: j. smith",
    "visa renewal due",
    "returned from parental leave",
    "remote - NL",
    "badge #004512 lost",
    "salary review Q3",
    "do NOT contact at home",
    "2nd contract",
]
AREA = ["617", "212", "415", "312", "206", "303", "512", "617", "646", "718"]


def _name_slip(rng: random.Random, name: str) -> str:
    forms = [name.upper(), name.lower(), f" {name}", f"{name} ", f"  {name}"]
    if " " in name:
        forms.append(name.replace(" ", "  "))
    return rng.choice(forms)


def build_hr(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    cols = ["emp_id", "fname", "l_name", "dob", "dept", "hire_dt", "sal", "phone", "notes"]
    ids = sorted(rng.sample(range(100, 40000), n))
    clean, dirty = [], []
    for emp in ids:
        born = rand_date(rng, dt.date(1959, 1, 1), dt.date(2003, 12, 31))
        hired = rand_date(
            rng, max(born.replace(year=born.year + 19), dt.date(2004, 1, 1)), dt.date(2024, 10, 31)
        )
        last = rng.choice(LAST_TRAPS) if rng.random() < 0.04 else rng.choice(LAST)
        row = {
            "emp_id": f"{emp:06d}",
            "fname": rng.choice(FIRST),
            "l_name": last,
            "dob": born.isoformat(),
            "dept": rng.choice(DEPTS),
            "hire_dt": hired.isoformat(),
            "sal": str(rng.randrange(64, 360) * 500),
            "phone": f"{rng.choice(AREA)}-555-{rng.randrange(100, 10000):04d}",
            "notes": rng.choice(HR_NOTES) if rng.random() < 0.3 else "",
        }
        clean.append(row)
        dirty.append(dict(row))

    for col in ("fname", "l_name"):
        for i in dirty_cells(rng, n, 0.10):
            if clean[i][col] in LAST_TRAPS:
                continue  # their right case cannot be guessed back: left right (and a trap)
            dirty[i][col] = _name_slip(rng, clean[i][col])
    for col in ("dob", "hire_dt"):
        for i in dirty_cells(rng, n, 0.10):
            dirty[i][col] = day_first(rng, dt.date.fromisoformat(clean[i][col]))
    for i in dirty_cells(rng, n, 0.10):
        dirty[i]["dept"] = rng.choice(DEPT_SLIPS[clean[i]["dept"]])
    for i in dirty_cells(rng, n, 0.10):
        sal = int(clean[i]["sal"])
        forms = [f"${sal:,}", f"{sal:,}", f"USD {sal:,}", f"${sal}", f"{sal:,} USD"]
        if sal % 1000 == 0:
            forms.append(f"{sal // 1000}k")
        dirty[i]["sal"] = rng.choice(forms)
    for i in dirty_cells(rng, n, 0.10):
        area, mid, last4 = clean[i]["phone"].split("-")
        dirty[i]["phone"] = rng.choice(
            [
                f"({area}) {mid}-{last4}",
                f"{area}.{mid}.{last4}",
                f"{area}{mid}{last4}",
                f"+1 {area} {mid} {last4}",
                f"{area} {mid} {last4}",
                f"1-{area}-{mid}-{last4}",
            ]
        )
    meta = {
        "id": "emp_id",
        "protect": ["emp_id", "notes"],
        "fix": ["fname", "l_name", "dob", "dept", "hire_dt", "sal", "phone"],
        "other": [],
        "numeric": ["sal"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- fleet fuel log (session 13)

PLATE_LETTERS = "ABCDEFGHJKLMNPRSTVWXYZ"
DRIVERS = [
    "R. Tremblay",
    "J. Gagnon",
    "M. Roy",
    "S. Cote",
    "A. Singh",
    "K. Martin",
    "L. Bouchard",
    "D. MacDonald",
    "P. Nguyen",
    "T. Wilson",
    "C. Lavoie",
    "B. Fortin",
    "E. Morin",
]
FLEET_REMARKS = [
    "DEF topped up",
    "  receipt missing",
    "TIRE PRESSURE LOW - reported",
    "paid w/ backup card",
    "reefer unit fuel incl.",
    "Border crossing @ Lacolle",
    "pump 7 slow",
    "split fill 2x",
    "see trip sheet 0042",
    "driver swap at Kingston",
    "CARD DECLINED first try",
    "odo photo sent",
]
FUELS = {
    "Diesel": ["diesel", "DIESEL", "Deisel", " Diesel", "Diesl"],
    "Regular": ["regular", "REGULAR", "Reguler", "Regular "],
    "Premium": ["premium", "PREMIUM", "Premuim", "Prem"],
    "DEF": ["def", "D.E.F.", " DEF", "Def"],
}
GAL_TO_L = 3.785  # the factors the goals give
MI_TO_KM = 1.609


def build_fleet(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    """A trucking fleet's fuel-card log: US stations report gallons, old rigs' odometers miles."""
    cols = [
        "entry_no",
        "fill_date",
        "plate",
        "driver",
        "card_no",
        "fuel_type",
        "volume",
        "volume_unit",
        "odometer",
        "odo_unit",
        "remarks",
    ]
    trucks = []
    while len(trucks) < 60:
        plate = (
            "".join(rng.choice(PLATE_LETTERS) for _ in range(4)) + f"-{rng.randrange(100, 1000)}"
        )
        if plate not in [t["plate"] for t in trucks]:
            trucks.append(
                {
                    "plate": plate,
                    "card": f"{rng.randrange(0, 10**6):08d}",
                    "odo_km": rng.randrange(40_000, 700_000),
                    "miles": rng.random() < 0.1,
                    "fuel": rng.choice(["Diesel"] * 5 + ["Regular", "Premium"]),
                }
            )
    day = dt.date(2024, 1, 2)
    clean, dirty = [], []
    for i in range(n):
        if rng.random() < 0.1:
            day += dt.timedelta(days=1)
        truck = rng.choice(trucks)
        fuel = "DEF" if rng.random() < 0.06 else truck["fuel"]
        us_station = rng.random() < 0.10
        if us_station:
            gal = round(rng.uniform(8.0, 120.0), 2)
            litres = round(gal * GAL_TO_L, 2)
        else:
            litres = round(rng.uniform(30.0, 450.0), 2)
        truck["odo_km"] += rng.randrange(150, 900)
        if truck["miles"]:
            miles = round(truck["odo_km"] / MI_TO_KM)
            odo_km = round(miles * MI_TO_KM)
        else:
            odo_km = truck["odo_km"]
        row = {
            "entry_no": f"{i + 1:05d}",
            "fill_date": day.isoformat(),
            "plate": truck["plate"],
            "driver": rng.choice(DRIVERS),
            "card_no": truck["card"],
            "fuel_type": fuel,
            "volume": fmt_num(litres, 2),
            "volume_unit": "L",
            "odometer": str(odo_km),
            "odo_unit": "km",
            "remarks": rng.choice(FLEET_REMARKS) if rng.random() < 0.25 else "",
        }
        clean.append(row)
        d = dict(row)
        if us_station:
            d["volume"] = fmt_num(gal, 2)
            d["volume_unit"] = rng.choice(["gal", "gal", "US gal", "gallons", "GAL"])
            if rng.random() < 0.7:
                d["fill_date"] = rng.choice(
                    [day.strftime("%m/%d/%Y"), f"{day.month}/{day.day}/{day.year}"]
                )
        elif rng.random() < 0.04:
            d["volume_unit"] = rng.choice(["l", "ltr", "litres", "Litre"])
        if truck["miles"]:
            d["odometer"] = str(miles)
            d["odo_unit"] = rng.choice(["mi", "mi", "miles", "MI"])
        elif rng.random() < 0.03:
            d["odo_unit"] = rng.choice(["KM", "Km", "kms"])
        dirty.append(d)
    for i in dirty_cells(rng, n, 0.10):
        letters_, digits = clean[i]["plate"].split("-")
        dirty[i]["plate"] = rng.choice(
            [
                f"{letters_.lower()}-{digits}",
                f"{letters_}{digits}",
                f"{letters_} {digits}",
                f"{letters_.lower()} {digits}",
            ]
        )
    for i in dirty_cells(rng, n, 0.10):
        dirty[i]["fuel_type"] = rng.choice(FUELS[clean[i]["fuel_type"]])
    meta = {
        "id": "entry_no",
        "protect": ["card_no", "remarks"],
        "fix": ["fill_date", "plate", "fuel_type", "volume", "volume_unit", "odometer", "odo_unit"],
        "other": ["entry_no", "driver"],
        "numeric": ["volume", "odometer"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- library catalogue (session 15)

BOOK_WORDS = [
    "River", "Silent", "Garden", "Winter", "Letters", "House", "Memory", "Empire", "Salt",
    "North", "Glass", "Orchard", "Harbour", "Stone", "Night", "Atlas", "Fire", "Quiet",
]
AUTHORS = [
    ("Okafor", "Chinelo"), ("Lindqvist", "Maja"), ("Barros", "Tiago"), ("Hughes", "Eleanor"),
    ("Tanaka", "Ren"), ("Dubois", "Claire"), ("Novak", "Petr"), ("Ahmed", "Samira"),
    ("Walsh", "Declan"), ("Rossi", "Giulia"), ("Kowalski", "Adam"), ("Mensah", "Kofi"),
]
PUBLISHERS = ["Harbour Press", "Northlight Books", "Quillon & Sons", "Ferrow House", "Pale Hill"]
LANGUAGES = ["eng", "eng", "eng", "English", "fre", "FR", "ger", "spa", "en"]
SHELVES = ["FIC", "FIC", "NF-HIS", "NF-SCI", "REF", "YA", "fic", "Fic.", "nf his"]
BOOK_NOTES = ["", "", "", "donated", "  gift of the Friends", "DAMAGED spine", "2 copies",
              "on order: replacement", "signed by author"]


def _isbn13(rng: random.Random) -> str:
    digits = [9, 7, 8] + [rng.randrange(10) for _ in range(9)]
    check = (10 - sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits)) % 10) % 10
    return "".join(map(str, digits + [check]))


def build_books(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    """A branch library's catalogue export: ISBNs and years to fix, the cataloguers' own fields
    (inconsistent languages, shelf codes, page counts, names) to be left exactly as they are."""
    cols = [
        "record_id", "title", "author", "isbn", "pub_year", "publisher", "language", "pages",
        "shelf", "notes",
    ]
    clean, dirty = [], []
    for i in range(n):
        last, first = rng.choice(AUTHORS)
        title = " ".join(rng.sample(BOOK_WORDS, rng.choice([1, 2, 3])))
        isbn, year = _isbn13(rng), rng.randrange(1952, 2025)
        pages = rng.randrange(90, 900)
        row = {
            "record_id": f"b{100000 + i}",
            "title": rng.choice([f"The {title}", title, title.lower(), title.upper()]),
            "author": rng.choice([f"{last}, {first}", f"{first} {last}", f"{last.upper()}, {first}"]),
            "isbn": isbn,
            "pub_year": str(year),
            "publisher": rng.choice(PUBLISHERS + [typo(rng, rng.choice(PUBLISHERS))]),
            "language": rng.choice(LANGUAGES),
            "pages": rng.choice([str(pages), f"{pages} p.", f"{pages}p", f"xii, {pages} pages"]),
            "shelf": rng.choice(SHELVES),
            "notes": rng.choice(BOOK_NOTES),
        }
        clean.append(row)
        dirty.append(dict(row))
    for i in dirty_cells(rng, n, 0.25):
        d = clean[i]["isbn"]
        dirty[i]["isbn"] = rng.choice(
            [
                f"{d[:3]}-{d[3]}-{d[4:6]}-{d[6:12]}-{d[12]}",
                f"{d[:3]}-{d[3:5]}-{d[5:9]}-{d[9:12]}-{d[12]}",
                f"ISBN {d}",
                f"{d[:3]} {d[3:6]} {d[6:9]} {d[9:]}",
                f"ISBN: {d[:3]}-{d[3:]}",
            ]
        )
    for i in dirty_cells(rng, n, 0.15):
        y = clean[i]["pub_year"]
        dirty[i]["pub_year"] = rng.choice([f"c{y}", f"[{y}]", f"{y}.", f"©{y}", f"c. {y}"])
    meta = {
        "id": "record_id",
        "protect": ["title", "author", "publisher", "language", "pages", "shelf", "notes"],
        "fix": ["isbn", "pub_year"],
        "other": ["record_id"],
        "numeric": ["pub_year"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- container terminal gate log

# carrier as the terminal's master data writes it -> its owner prefixes (ISO 6346, "U" = freight)
CARRIERS = {
    "Maersk": ["MAEU", "MRKU", "MSKU"],
    "MSC": ["MSCU", "MEDU"],
    "Hapag-Lloyd": ["HLXU", "HLBU"],
    "CMA CGM": ["CMAU", "CGMU"],
    "COSCO": ["CSNU", "CBHU"],
    "Evergreen": ["EGHU", "EISU"],
    "ONE": ["ONEU"],
}
CARRIER_SLIPS = {
    "Maersk": ["MAERSK", "maersk", "Maersk Line", "Mærsk", "Maersk "],
    "MSC": ["msc", "M.S.C.", "MSC ", "Mediterranean Shipping Co"],
    "Hapag-Lloyd": ["Hapag Lloyd", "HAPAG-LLOYD", "hapag-lloyd", "Hapag-Loyd", "Hapag"],
    "CMA CGM": ["CMA-CGM", "cma cgm", "CMACGM", "CMA  CGM", "Cma Cgm"],
    "COSCO": ["Cosco", "cosco", "COSCO Shipping", "Cosc0"],
    "Evergreen": ["EVERGREEN", "evergreen", "Evergreen Line", "Evergrean"],
    "ONE": ["one", "O.N.E.", "Ocean Network Express", "ONE "],
}
ISO_TYPES = [  # ISO size-type code, tare range in kg, reefer, max gross in kg
    ("22G1", 2150, 2350, False, 30480),
    ("42G1", 3700, 3900, False, 30480),
    ("45G1", 3800, 4000, False, 30480),
    ("22R1", 2900, 3100, True, 30480),
    ("45R1", 4600, 4850, True, 32500),
]
PORTS = ["NLRTM", "DEHAM", "BEANR", "GBFXT", "ESVLC", "USNYC", "CNSHA", "SGSIN", "BRSSZ", "ZADUR"]
HS_DRY = ["0901.21", "2204.21", "8471.30", "6109.10", "4011.10", "9403.60", "3901.10",
          "1006.30", "0409.00", "7208.51", "8708.99", "4819.10"]
HS_REEFER = ["0303.89", "0806.10", "0803.90", "0201.30", "0207.14", "0805.10", "0810.10",
             "0304.87", "3002.20"]
SETPOINTS = [-25, -23, -20, -18, -18, -18, -0.5, 0, 1, 2, 4, 4, 6, 8, 13, 13.5]
SEAL_PREFIX = {
    "Maersk": "ML-", "MSC": "FX", "Hapag-Lloyd": "HLB", "CMA CGM": "C", "COSCO": "CS",
    "Evergreen": "EMC", "ONE": "ONE",
}
GATE_REMARKS = [
    "  DMG: dent left side panel, photos taken",
    "customs hold - DO NOT release",
    "PTI ok",
    "seal checked vs B/L",
    "Genset attached",
    "reposition empty to DEHAM",
    "VGM recd late",
    "OOG? no - std",
    "door handle bent",
    "driver w/o ID, called dispatch 14:05",
    "re-stowed 2x",
    "HAZ cl. 3 label removed",
    "seal # on paper differs, see email",
    "Temp log printed",
    "X-ray scan req. by customs",
    "TRUCK 02 late",
]
F_PER_C = 9 / 5


def _iso6346(owner: str, serial: int) -> str:
    """Owner code + 6-digit serial + the check digit (ISO 6346; a check of 10 is written 0)."""
    values, v = {}, 10
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        if v % 11 == 0:
            v += 1
        values[ch] = v
        v += 1
    body = f"{owner}{serial:06d}"
    total = sum((values[c] if c.isalpha() else int(c)) * 2**k for k, c in enumerate(body))
    return f"{body}{total % 11 % 10}"


def _seal(rng: random.Random, carrier: str) -> str:
    """Seal numbers as printed on the seals: leading zeros, carriers' own prefixes and casing."""
    digits = rng.choice([6, 7, 7, 8])
    number = f"{rng.randrange(0, 10**digits):0{digits}d}"
    kind = rng.random()
    if kind < 0.45:
        return number if number[0] == "0" else f"00{number[2:]}"
    if kind < 0.9:
        return f"{SEAL_PREFIX[carrier]}{number}"
    return rng.choice([f"{SEAL_PREFIX[carrier].lower()}{number}", f"Tt{number}", f"{number}/A"])


def build_containers(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    """A container terminal's gate log (trucks in and out): container numbers, carriers, weights,
    reefer set points and full/empty keyed by clerks or sent by hauliers' systems; seal numbers,
    HS codes and remarks copied from the papers, to be left exactly as they are."""
    cols = [
        "visit_id",
        "gate_time",
        "move",
        "container_no",
        "iso_type",
        "line_operator",
        "fe",
        "gross_kg",
        "reefer_temp",
        "seal_no",
        "hs_code",
        "pod",
        "remarks",
    ]
    boxes = []
    seen = set()
    while len(boxes) < 480:
        carrier = rng.choice(list(CARRIERS) + ["Maersk", "MSC", "MSC", "CMA CGM"])
        number = _iso6346(rng.choice(CARRIERS[carrier]), rng.randrange(0, 10**6))
        if number in seen:
            continue
        seen.add(number)
        iso, tare_lo, tare_hi, reefer, max_gross = rng.choice(ISO_TYPES + ISO_TYPES[:3])
        boxes.append(
            {
                "no": number,
                "carrier": carrier,
                "iso": iso,
                "tare": rng.randrange(tare_lo, tare_hi + 1, 10),
                "reefer": reefer,
                "max": max_gross,
            }
        )
    when = dt.datetime(2024, 5, 6, 5, 30)
    clean, dirty = [], []
    for i in range(n):
        when += dt.timedelta(minutes=rng.randrange(1, 14))
        if when.hour >= 22:
            when = (when + dt.timedelta(days=1)).replace(hour=5, minute=rng.randrange(30, 60))
        if when.weekday() == 6:
            when += dt.timedelta(days=1)
        box = rng.choice(boxes)
        full = rng.random() < 0.7
        if full:
            gross = rng.randrange(box["tare"] + 1500, box["max"] - 400, 10)
            hs = rng.choice(HS_REEFER if box["reefer"] else HS_DRY)
            hs = rng.choice([hs] * 6 + [hs.replace(".", ""), f"{hs}.00"])
            temp = fmt_num(rng.choice(SETPOINTS), 1) if box["reefer"] else ""
            seal = _seal(rng, box["carrier"])
        else:
            gross, hs, temp, seal = box["tare"], "", "", ""
        row = {
            "visit_id": f"GV{240500000 + i * 7 + rng.randrange(7)}",
            "gate_time": when.strftime("%Y-%m-%d %H:%M"),
            "move": rng.choice(["IN", "IN", "OUT"]),
            "container_no": box["no"],
            "iso_type": box["iso"],
            "line_operator": box["carrier"],
            "fe": "F" if full else "E",
            "gross_kg": str(gross),
            "reefer_temp": temp,
            "seal_no": seal,
            "hs_code": hs,
            "pod": rng.choice(PORTS),
            "remarks": rng.choice(GATE_REMARKS) if rng.random() < 0.2 else "",
        }
        clean.append(row)
        dirty.append(dict(row))

    for i in dirty_cells(rng, n, 0.10):
        no = clean[i]["container_no"]
        owner, serial, check = no[:4], no[4:10], no[10]
        dirty[i]["container_no"] = rng.choice(
            [
                no.lower(),
                f"{owner} {serial} {check}",
                f"{owner} {serial}{check}",
                f"{owner}-{serial}-{check}",
                f"{owner}{serial}-{check}",
                f"{owner.lower()} {serial}-{check}",
                f" {no}",
            ]
        )
    for i in dirty_cells(rng, n, 0.10):
        t = dt.datetime.strptime(clean[i]["gate_time"], "%Y-%m-%d %H:%M")
        hour12 = f"{(t.hour - 1) % 12 + 1}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"
        dirty[i]["gate_time"] = rng.choice(
            [
                f"{t:%d/%m/%Y %H:%M}",
                f"{t:%d/%m/%Y %H:%M}",
                f"{t:%d.%m.%Y %H:%M}",
                f"{t.day}.{t.month}.{t.year} {t.hour}:{t.minute:02d}",
                t.strftime("%Y-%m-%dT%H:%M:%S"),
                f"{t.day} {MONTHS[t.month - 1]} {t.year} {t:%H:%M}",
                f"{t:%d/%m/%Y} {hour12}",
                f"{t:%Y%m%d %H%M}",
            ]
        )
    for i in dirty_cells(rng, n, 0.08):
        dirty[i]["line_operator"] = rng.choice(CARRIER_SLIPS[clean[i]["line_operator"]])
    for i in dirty_cells(rng, n, 0.08):
        dirty[i]["fe"] = rng.choice(
            {
                "F": ["Full", "FULL", "full", "f", "FCL", "laden"],
                "E": ["Empty", "EMPTY", "empty", "e", "MT", "MTY"],
            }[clean[i]["fe"]]
        )
    for i in dirty_cells(rng, n, 0.12):
        kg = int(clean[i]["gross_kg"])
        tonnes = fmt_num(kg / 1000, 3)
        dirty[i]["gross_kg"] = rng.choice(
            [
                f"{kg:,}",
                f"{kg:,}",
                f"{kg:,}".replace(",", " "),
                f"{kg} kg",
                f"{kg}KG",
                f"{tonnes} t",
                f"{comma_decimal(tonnes)} t",
                f"{tonnes}t",
            ]
        )
    reefers = [i for i, r in enumerate(clean) if r["reefer_temp"]]
    for i in rng.sample(reefers, round(0.45 * len(reefers))):
        text = clean[i]["reefer_temp"]
        c = float(text)
        plus = "+" if c > 0 else ""
        forms = [
            f"{text} °C",
            f"{text}°C",
            f"{plus}{text}C",
            f"{plus}{text}",
            text.replace("-", "\u2212") if c < 0 else f"+{c:.1f}",
            f"{c:.1f}".replace(".", ","),
        ]
        f_val = round(c * F_PER_C + 32, 1)
        if round((f_val - 32) / F_PER_C, 1) == c:
            forms += [f"{fmt_num(f_val, 1)} °F", f"{fmt_num(f_val, 1)}F"]
        dirty[i]["reefer_temp"] = rng.choice([f for f in forms if f != text])
    meta = {
        "id": "visit_id",
        "protect": ["seal_no", "hs_code", "remarks"],
        "fix": ["gate_time", "container_no", "line_operator", "fe", "gross_kg", "reefer_temp"],
        "other": ["visit_id", "move", "iso_type", "pod"],
        "numeric": ["gross_kg", "reefer_temp"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- electricity meter readings

# meter make as the asset register writes it -> as handhelds, imports and people write it
METER_MAKES = {
    "Landis+Gyr": ["Landis & Gyr", "landis+gyr", "LANDIS+GYR", "Landis Gyr", "L+G", "Landis+Gry"],
    "Elster": ["ELSTER", "elster", "Elster ", "Elstr", "Elster Metering"],
    "Itron": ["ITRON", "itron", " Itron", "Itorn", "Itron Inc."],
    "Secure": ["SECURE", "secure", "Secure Meters", "Secrue", "Secure Ltd"],
    "EDMI": ["edmi", "E.D.M.I.", "Edmi", "EDMI "],
}
TARIFF_SLIPS = {
    "STD": ["std", "Std", "Standard", "STD ", "standard"],
    "E7": ["e7", "E-7", "E 7", "Economy 7", "ECO7", "economy7"],
    "E10": ["e10", "E-10", "Economy 10", "E 10"],
    "TOU": ["tou", "T.O.U.", "Time of Use", "TOU ", "time-of-use"],
}
READ_TYPE_SLIPS = {
    "Actual": ["actual", "ACTUAL", "A", "Act", "act.", "Actual read"],
    "Estimated": ["estimated", "EST", "Est.", "E", "Estimate", "est"],
    "Customer": ["customer", "CUST", "C", "Cust read", "Customer own read", "self-read"],
    "Smart": ["smart", "SMART", "S", "AMR", "Smart (remote)", "remote"],
}
DISTRICTS = [
    "LS6", "LS7", "LS8", "LS11", "LS12", "LS15", "LS17", "LS28", "BD3", "BD9", "WF1", "WF3",
]
INWARD_LETTERS = "ABDEFGHJLNPQRSTUWXYZ"
READER_NOTES = [
    "  DOG - do not enter garden",
    "key w/ neighbour at no.12",
    "meter in cellar,  torch needed",
    "READ THROUGH WINDOW",
    "access code 0451#",
    "new meter fitted 12/01 - old serial 00418822",
    "display faulty, reg 2 only",
    "tenant moved out?  check w/ billing",
    "E7 - day & night regs read",
    "photo taken",
    "MtR box outside, rear of property",
    "re-read reqd - reading < prev",
    "VULNERABLE cust - knock loudly",
    "OK",
]
NOTES_BY_TYPE = {  # notes only some read types get, on top of the readers' general ones
    "Estimated": ["no access - card left", "Est. - meter obscured by boxes", "cupboard locked",
                  "  NO ACCESS x3 - letter sent"],
    "Customer": ["cust. phoned in reading 03/02", "via app, photo attached", "Cust read  (web)"],
}


def _meter_serial(rng: random.Random, make: str) -> str:
    """Serials as printed on the meters' faces: leading zeros, date-like digits, odd casing."""
    if make == "Landis+Gyr":
        return f"00{rng.randrange(10**5, 10**6)}"
    if make == "Elster":
        z = "z" if rng.random() < 0.2 else "Z"
        return f"E{rng.randrange(8, 22):02d}{z}{rng.randrange(0, 10**7):07d}"
    if make == "Itron":  # the build date then a day's sequence: reads like yyyymmdd
        d = rand_date(rng, dt.date(2009, 1, 1), dt.date(2021, 12, 31))
        return f"{d:%Y%m%d}"
    if make == "Secure":
        return f"{rng.randrange(12, 23)}P{rng.randrange(0, 10**7):07d}"
    return f"Mk{rng.choice(['7A', '7C', '10E'])}{rng.randrange(0, 10**6):06d}"


def build_meters(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    """An electricity network's meter-reading export for 2024 (walk routes, customers' own reads,
    smart meters' remote reads): dates, register readings, read types, tariffs and meter makes as
    handhelds and imports wrote them; account numbers, meter serials and the readers' notes as
    printed or typed, to be left exactly as they are."""
    cols = [
        "read_id",
        "account_no",
        "postcode",
        "route",
        "meter_serial",
        "meter_make",
        "tariff",
        "read_date",
        "read_type",
        "reading_kwh",
        "reader_notes",
    ]
    routes = {d: f"RT-{k + 1:02d}" for k, d in enumerate(DISTRICTS)}
    year_start = dt.date(2024, 1, 1)
    pool, accounts, serials = [], set(), set()
    while len(pool) < n * 1.05:
        account = f"{rng.randrange(10**5, 10**8):010d}"
        make = rng.choice(list(METER_MAKES) + ["Landis+Gyr", "Elster", "Elster", "Secure"])
        serial = _meter_serial(rng, make)
        if account in accounts or serial in serials:
            continue
        accounts.add(account)
        serials.add(serial)
        district = rng.choice(DISTRICTS)
        meter = {
            "account_no": account,
            "postcode": f"{district} {rng.randrange(1, 10)}"
            f"{rng.choice(INWARD_LETTERS)}{rng.choice(INWARD_LETTERS)}",
            "route": routes[district],
            "meter_serial": serial,
            "meter_make": make,
            "tariff": rng.choice(["STD"] * 6 + ["E7", "E7", "E10", "TOU"]),
        }
        smart = rng.random() < 0.3
        per_day = rng.uniform(1800, 6500) / 365
        register = rng.randrange(1200, 90000) + (rng.randrange(10) / 10 if smart else 0)
        last = year_start - dt.timedelta(days=rng.randrange(20, 90))
        if smart:
            dates = [year_start.replace(month=m) + dt.timedelta(days=rng.randrange(3))
                     for m in range(1, 13)]
        else:
            dates = [year_start.replace(month=m) + dt.timedelta(days=rng.randrange(45))
                     for m in (2, 5, 8, 11)]
            dates += [rand_date(rng, year_start, dt.date(2024, 12, 20))
                      for _ in range(rng.choice([0, 0, 1, 1, 2]))]
            dates = sorted(set(dates))
        for when in dates:
            register += per_day * (when - last).days * rng.uniform(0.7, 1.3)
            register = round(register, 1) if smart else round(register)
            last = when
            if smart:
                kind = "Smart" if rng.random() < 0.95 else "Estimated"
            else:
                kind = rng.choice(["Actual"] * 14 + ["Estimated"] * 4 + ["Customer"] * 2)
            notes = ""
            if kind != "Smart" and rng.random() < 0.3:
                notes = rng.choice(READER_NOTES + NOTES_BY_TYPE.get(kind, []) * 3)
            pool.append(
                {
                    **meter,
                    "read_date": when.isoformat(),
                    "read_type": kind,
                    "reading_kwh": fmt_num(register, 1),
                    "reader_notes": notes,
                }
            )
    pool.sort(key=lambda r: (r["read_date"], r["route"], r["account_no"]))
    keep = sorted(rng.sample(range(len(pool)), n))
    clean, dirty = [], []
    for i, k in enumerate(keep):
        row = {"read_id": f"MR{2400001 + i}", **pool[k]}
        row = {c: row[c] for c in cols}
        clean.append(row)
        dirty.append(dict(row))

    for i in dirty_cells(rng, n, 0.08):
        dirty[i]["meter_make"] = rng.choice(METER_MAKES[clean[i]["meter_make"]])
    for i in dirty_cells(rng, n, 0.10):
        dirty[i]["tariff"] = rng.choice(TARIFF_SLIPS[clean[i]["tariff"]])
    for i in dirty_cells(rng, n, 0.10):
        d = dt.date.fromisoformat(clean[i]["read_date"])
        dirty[i]["read_date"] = rng.choice(
            [
                day_first(rng, d),
                day_first(rng, d),
                day_first(rng, d, long_forms=False),
                f"{d:%Y-%m-%d}T00:00:00",
                f"{d:%Y%m%d}",
                f"{d.day}-{MONTHS[d.month - 1]}-{d:%y}",
            ]
        )
    for i in dirty_cells(rng, n, 0.10):
        dirty[i]["read_type"] = rng.choice(READ_TYPE_SLIPS[clean[i]["read_type"]])
    for i in dirty_cells(rng, n, 0.12):
        text = clean[i]["reading_kwh"]
        value = float(text)
        grouped = f"{value:,.1f}" if "." in text else f"{int(value):,}"
        mwh = fmt_num(value / 1000, 4)
        assert round(float(mwh) * 1000, 1) == value, (mwh, text)
        forms = [
            grouped,
            grouped,
            grouped.replace(",", " "),
            f"{text} kWh",
            f"{grouped} kWh",
            f"{text}kWh",
            f"{mwh} MWh",
        ]
        if "." in text:
            forms += [comma_decimal(text), comma_decimal(text), f"{comma_decimal(text)} kWh"]
        else:
            forms += [f"{int(value):06d}", f"{int(value):06d}"]
        dirty[i]["reading_kwh"] = rng.choice([f for f in forms if f != text])
    meta = {
        "id": "read_id",
        "protect": ["account_no", "meter_serial", "reader_notes"],
        "fix": ["meter_make", "tariff", "read_date", "read_type", "reading_kwh"],
        "other": ["read_id", "postcode", "route"],
        "numeric": ["reading_kwh"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- veterinary clinic visits

# species as the practice system's picklist writes it -> as receptionists and old imports wrote it
SPECIES_SLIPS = {
    "Dog": ["dog", "DOG", "Canine", "canine", "K9", "Dgo", "dog "],
    "Cat": ["cat", "CAT", "Feline", "feline", "Fel.", "Cta", " Cat"],
    "Rabbit": ["rabbit", "RABBIT", "Rabit", "Bunny", "Lapine"],
    "Guinea Pig": ["guinea pig", "Guinea pig", "G. Pig", "Guinea-pig", "Guniea Pig", "GP"],
    "Ferret": ["ferret", "FERRET", "Ferrit", "Ferret "],
    "Bird": ["bird", "BIRD", "Avian", "Brid", "Budgie"],
}
# sex codes: M / F entire, MN male neutered, FS female spayed
SEX_SLIPS = {
    "M": ["male", "Male", "m", "M (entire)", "Male entire", "M/E"],
    "F": ["female", "Female", "f", "F (entire)", "Female entire", "F/E"],
    "MN": ["mn", "M/N", "Male neutered", "neutered male", "MC", "M(N)", "Male - castrated"],
    "FS": ["fs", "F/S", "Female spayed", "spayed female", "FN", "F(S)", "Female neutered"],
}
VET_SPECIES = [  # species, weight range in kg, decimals, share chipped
    ("Dog", 2.5, 48.0, 1, 0.95),
    ("Cat", 2.6, 7.8, 2, 0.8),
    ("Rabbit", 1.1, 5.5, 2, 0.4),
    ("Guinea Pig", 0.7, 1.3, 3, 0.0),
    ("Ferret", 0.6, 2.0, 3, 0.5),
    ("Bird", 0.03, 0.45, 3, 0.0),
]
PET_NAMES = (
    "Bella Max Luna Charlie Poppy Teddy Milo Daisy Alfie Willow Bear Rosie Ozzy Nala Biscuit "
    "Pepper Mabel Toby Coco Ziggy Hazel Archie Smudge Kiwi Pip Dexter Maisie Buster Sooty Olive"
).split()
VISIT_FEES = {  # visit type -> (lowest fee, highest fee) in GBP; equal ends are a fixed price
    "Consultation": (48.0, 48.0),
    "Vaccination": (62.5, 62.5),
    "Repeat prescription": (18.5, 96.0),
    "Nail clip": (15.0, 15.0),
    "Dental": (285.0, 690.0),
    "Surgery": (340.0, 2450.0),
    "Follow-up": (0.0, 0.0),
}
VISIT_MIX = (  # how often each visit type comes
    ["Consultation"] * 6
    + ["Vaccination"] * 3
    + ["Repeat prescription"] * 2
    + ["Nail clip", "Dental", "Surgery", "Follow-up", "Follow-up"]
)
VET_NOTES = [
    "  BCS 7/9 - diet advice given",
    "wt 12.4kg (prev 13.1)",
    "Rx meloxicam 1.5mg/ml, 0.5ml SID x5/7",
    "owner declined bloods",
    "NPO from midnight",
    "CAUTION - bites!! muzzle",
    "vacc DHP+L4, batch 0042A",
    "lump L flank 2x3cm, FNA sent",
    "recheck 2/52",
    "ref. to Dr Shah (ortho)",
    "ins. claim - PetPlan #00871234",
    "O/E NAD",
    "dental: XS 104, 204",
    "temp 39.4C, ?pyrexia",
    "paid on acct",
    "chip scanned - reads OK",
    "Rabies vacc for travel, PASSPORT no. GB52-0001234",
]


def _microchip(rng: random.Random) -> str:
    """Microchip numbers as the scanners and old paper records give them: 15 digits (now and
    then grouped in threes), an old AVID chip's starred groups, a 10-digit FDX-A code."""
    kind = rng.random()
    if kind < 0.8:
        chip = f"{rng.choice(['985', '900', '956', '826'])}{rng.randrange(0, 10**12):012d}"
        return chip if rng.random() < 0.85 else " ".join(chip[k : k + 3] for k in range(0, 15, 3))
    if kind < 0.92:
        return "AVID*" + "*".join(f"{rng.randrange(0, 1000):03d}" for _ in range(3))
    return f"000{rng.randrange(0, 10**7):07d}"


def _lb_form(kg: float, places: int) -> str | None:
    """The weight in pounds, only where the usual factors (x 0.4536, / 2.2046) give back the same
    kilograms, rounded to the column's places or to two."""
    places = max(places, 2)
    for lb_places in (1, 2):
        lb = round(kg / LB_TO_KG, lb_places)
        if all(round(lb * f, places) == round(kg, places) for f in (LB_TO_KG, 0.4536, 1 / 2.2046)):
            return fmt_num(lb, lb_places)
    return None


def build_vet(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    """A small-animal veterinary practice's visit export for 2024 (two branches merged, one
    weighing in pounds): visit dates, species, sex codes, weights and fees as receptionists and
    the old system wrote them; chart numbers, microchip numbers and the vets' clinical notes as
    keyed, to be left exactly as they are."""
    cols = [
        "visit_id",
        "visit_date",
        "chart_no",
        "pet_name",
        "species",
        "sex",
        "microchip",
        "visit_type",
        "weight_kg",
        "fee",
        "clinical_notes",
    ]
    animals, charts = [], set()
    while len(animals) < 520:
        chart = f"{rng.randrange(1, 60000):06d}"
        if chart in charts:
            continue
        charts.add(chart)
        species, lo, hi, places, chipped = rng.choice(
            VET_SPECIES[:2] * 6 + VET_SPECIES[2:3] * 2 + VET_SPECIES[3:]
        )
        if species in ("Guinea Pig", "Bird"):
            sex = rng.choice(["M", "F"])
        else:
            sex = rng.choice(["MN", "MN", "FS", "FS", "M", "F"])
        animals.append(
            {
                "chart_no": chart,
                "pet_name": rng.choice(PET_NAMES),
                "species": species,
                "sex": sex,
                "microchip": _microchip(rng) if rng.random() < chipped else "",
                "kg": rng.uniform(lo, hi),
                "places": places,
            }
        )
    day = dt.date(2024, 1, 2)
    clean, dirty = [], []
    for i in range(n):
        if rng.random() < 0.2:
            day += dt.timedelta(days=1 if day.weekday() < 5 else 2)
        pet = rng.choice(animals)
        kind = rng.choice(VISIT_MIX)
        lo, hi = VISIT_FEES[kind]
        fee = lo if lo == hi else round(rng.uniform(lo, hi) * 2) / 2
        kg = round(pet["kg"] * rng.uniform(0.96, 1.04), pet["places"])
        notes = ""
        if rng.random() < 0.35:
            notes = rng.choice(VET_NOTES)
        row = {
            "visit_id": f"VV{24000 + i * 3 + rng.randrange(3):06d}",
            "visit_date": day.isoformat(),
            "chart_no": pet["chart_no"],
            "pet_name": pet["pet_name"],
            "species": pet["species"],
            "sex": pet["sex"],
            "microchip": pet["microchip"],
            "visit_type": kind,
            "weight_kg": fmt_num(kg, pet["places"]),
            "fee": f"{fee:.2f}",
            "clinical_notes": notes,
        }
        clean.append(row)
        dirty.append(dict(row))

    for i in dirty_cells(rng, n, 0.10):
        d = dt.date.fromisoformat(clean[i]["visit_date"])
        dirty[i]["visit_date"] = rng.choice(
            [
                day_first(rng, d),
                day_first(rng, d, long_forms=False),
                f"{d.day}-{MONTHS[d.month - 1]}-{d:%y}",
                f"{d:%Y-%m-%d} 00:00:00",
                f"{d:%d/%m/%y}",
            ]
        )
    for i in dirty_cells(rng, n, 0.08):
        dirty[i]["species"] = rng.choice(SPECIES_SLIPS[clean[i]["species"]])
    for i in dirty_cells(rng, n, 0.10):
        dirty[i]["sex"] = rng.choice(SEX_SLIPS[clean[i]["sex"]])
    for i in dirty_cells(rng, n, 0.12):
        text = clean[i]["weight_kg"]
        kg = float(text)
        places = len(text.partition(".")[2])
        forms = [f"{text} kg", f"{text}kg", f"{text} kgs"]
        if "." in text and (places < 3 or kg < 1):  # never '1,058': read as a thousands mark
            forms += [comma_decimal(text), comma_decimal(text)]
        if kg < 2:
            forms += [f"{round(kg * 1000)} g", f"{round(kg * 1000)}g"]
        lb = _lb_form(kg, places)
        if lb is not None:
            forms += [f"{lb} lb", f"{lb} lb", f"{lb}lbs", f"{lb} lbs"]
        dirty[i]["weight_kg"] = rng.choice(forms)
    for i in dirty_cells(rng, n, 0.10):
        text = clean[i]["fee"]
        fee = float(text)
        grouped = f"{fee:,.2f}"
        forms = [f"£{grouped}", f"£{grouped}", f"£ {text}", f"{text} GBP", f"GBP {grouped}"]
        if fee >= 1000:
            forms += [grouped, grouped]
        if fee == int(fee):
            forms += [f"£{int(fee)}"]
        dirty[i]["fee"] = rng.choice([f for f in forms if f != text])
    meta = {
        "id": "visit_id",
        "protect": ["chart_no", "microchip", "clinical_notes"],
        "fix": ["visit_date", "species", "sex", "weight_kg", "fee"],
        "other": ["visit_id", "pet_name", "visit_type"],
        "numeric": ["weight_kg", "fee"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- e-commerce returns log

# product lines: SKU category, product, list price range in USD, parcel weight range in lb, sizes
RETURN_LINES = [
    ("JKT", "Rain jacket", 89, 260, 1.1, 2.6, ["XS", "S", "M", "L", "XL", "XXL"]),
    ("PNT", "Trail pants", 59, 140, 0.8, 1.7, ["XS", "S", "M", "L", "XL"]),
    ("BTS", "Hiking boots", 119, 240, 2.8, 4.9, ["07", "08", "09", "10", "11", "12", "13"]),
    ("TNT", "Backpacking tent", 249, 690, 3.9, 11.5, ["OS"]),
    ("BPK", "Daypack", 49, 180, 1.2, 3.4, ["OS"]),
    ("SLB", "Sleeping bag", 129, 520, 2.1, 5.8, ["R", "LG"]),
    ("GLV", "Fleece gloves", 19, 65, 0.2, 0.6, ["S", "M", "L"]),
    ("HAT", "Sun hat", 22, 48, 0.3, 0.7, ["S", "M", "L"]),
    ("STV", "Camp stove", 39, 160, 0.9, 2.9, ["OS"]),
]
# return reason as the returns system's picklist writes it -> as the web form, agents and the
# marketplace import wrote it
REASON_SLIPS = {
    "Too small": [
        "too small", "TOO SMALL", "Runs small", "Size too small", "Too smal", "Too small ",
    ],
    "Too large": ["too large", "Too big", "Runs large", "TOO LARGE", "Size too big", "Too lage"],
    "Defective": ["defective", "DEFECTIVE", "Faulty", "faulty", "Defect", "Defectve"],
    "Damaged in transit": [
        "damaged in transit", "Arrived damaged", "Shipping damage", "Damaged in shipping",
        "DAMAGED IN TRANSIT", "Damaged in transt",
    ],
    "Wrong item": ["wrong item", "Wrong item sent", "WRONG ITEM", "Incorrect item", "Wrong product",
                   "Wrng item"],
    "Not as described": ["not as described", "NOT AS DESCRIBED", "Not as pictured",
                         "Not as desribed", " Not as described"],
    "Changed mind": ["changed mind", "Changed my mind", "No longer needed", "Unwanted",
                     "CHANGED MIND", "Chnaged mind"],
}
CARRIER_NAME_SLIPS = {
    "UPS": ["ups", " UPS", "UPS ", "U.P.S.", "Ups"],
    "FedEx": ["Fedex", "FEDEX", "fedex", "Fed Ex", "FedEx Ground"],
    "USPS": ["usps", "Usps", "US Postal Service", "USPS ", "U.S.P.S."],
    "Canada Post": ["canada post", "CANADA POST", "CanadaPost", "Canada  Post", "Postes Canada"],
    "DHL": ["dhl", "Dhl", "DHL ", "DHL Express"],
}
INSPECT_NOTES = [
    "  tags on, unworn",
    "NO ORIGINAL BOX",
    "strap torn ~2cm, see photo",
    "smells of smoke - liquidate",
    "ret. label reused;  carrier fee 0.00",
    "wrong item IN box (got BPK-2210-OS)",
    "pkg wt 3.2lb?  check scale",
    "cust. says zip broke after 1 use",
    "Mud on soles!!",
    "refund per mgr ok - J.T.",
    "seal intact",
    "2 of 3 items rec'd",
    "box crushed, item OK",
    "RMA # missing, matched by order",
    "warranty claim 00412",
    "restock fee 15% applied",
]
KG_PER_LB = LB_TO_KG  # lb = kg x 2.2046 or kg / 0.4536 (the factors the goals give)


def _order_ref(rng: random.Random) -> str:
    """Order numbers as each sales channel writes them: the web shop's '#', the old ERP's nine
    digits with leading zeros, the marketplace's three dashed groups."""
    kind = rng.random()
    if kind < 0.6:
        return f"#{rng.randrange(100000, 160000)}"
    if kind < 0.85:
        return f"{rng.randrange(0, 10**7):09d}"
    return f"{rng.randrange(111, 115)}-{rng.randrange(0, 10**7):07d}-{rng.randrange(0, 10**7):07d}"


def _tracking(rng: random.Random, carrier: str) -> str:
    """Tracking numbers as the dock scanner or the label reads them (grouped or not)."""
    if carrier == "UPS":
        body = "".join(rng.choice("0123456789ABCDEFGHJKRVWXY") for _ in range(6))
        digits = f"{rng.randrange(0, 10**10):010d}"
        plain = f"1Z{body}{digits}"
        if rng.random() < 0.3:
            return f"1Z {body[:3]} {body[3:]}{digits[:1]} {digits[1:3]} {digits[3:7]} {digits[7:]}"
        return plain
    if carrier == "FedEx":
        digits = f"{rng.randrange(0, 10**12):012d}"
        return digits if rng.random() < 0.7 else f"{digits[:4]} {digits[4:8]} {digits[8:]}"
    if carrier == "USPS":
        digits = f"{rng.choice(['9400', '9205', '9361'])}{rng.randrange(0, 10**18):018d}"
        if rng.random() < 0.4:
            return " ".join(digits[k : k + 4] for k in range(0, 22, 4))
        return digits
    if carrier == "Canada Post":
        if rng.random() < 0.5:
            return f"LM{rng.randrange(0, 10**9):09d}CA"
        return f"{rng.randrange(0, 10**16):016d}"
    return f"{rng.randrange(0, 10**10):010d}"  # DHL: ten digits, often leading zeros


def _kg_form(lb: float) -> str | None:
    """The weight in kilograms (three places), only where the usual factors (x 2.2046,
    / 0.4536, / 0.45359237) all give back the same pounds to two places."""
    kg = round(lb * KG_PER_LB, 3)
    factors = (2.2046, 1 / 0.4536, 1 / KG_PER_LB)
    if kg > 0 and all(round(kg * f, 2) == round(lb, 2) for f in factors):
        return fmt_num(kg, 3)
    return None


def build_returns(rng: random.Random, n: int) -> tuple[list[str], list[dict], list[dict], dict]:
    """An outdoor-gear web shop's returns log for 2024, as its US returns centre processed them
    (US and Canadian customers, a dock scale in Canada weighing in kilograms): received dates
    (US month-first), SKUs, reasons, carriers, parcel weights and refunds as agents, the web form
    and imports wrote them; order numbers, tracking numbers and the inspectors' notes as keyed or
    scanned, to be left exactly as they are."""
    cols = [
        "return_id",
        "received",
        "order_ref",
        "sku",
        "product",
        "qty",
        "reason",
        "carrier",
        "tracking_no",
        "weight_lb",
        "refund_usd",
        "inspector_notes",
    ]
    catalogue, seen = [], set()
    while len(catalogue) < 90:
        cat, product, p_lo, p_hi, w_lo, w_hi, sizes = rng.choice(RETURN_LINES)
        style = rng.randrange(1000, 10000)
        if (cat, style) in seen:
            continue
        seen.add((cat, style))
        catalogue.append(
            {
                "cat": cat,
                "style": style,
                "product": product,
                "price": rng.randrange(p_lo, p_hi + 1) - 0.01,
                "lb": rng.uniform(w_lo, w_hi),
                "sizes": sizes,
            }
        )
    day = dt.date(2024, 1, 2)
    clean, dirty = [], []
    for i in range(n):
        if rng.random() < 0.17:
            day += dt.timedelta(days=1 if day.weekday() < 4 else 3)
        item = rng.choice(catalogue)
        sku = f"{item['cat']}-{item['style']}-{rng.choice(item['sizes'])}"
        if item["sizes"] != ["OS"] and rng.random() < 0.35:
            reason = rng.choice(["Too small", "Too large"])
        else:
            reason = rng.choice(
                ["Defective"] * 3
                + ["Damaged in transit"] * 2
                + ["Wrong item"] * 2
                + ["Not as described"] * 2
                + ["Changed mind"] * 4
            )
        canada = rng.random() < 0.2
        if canada:
            carrier = rng.choice(["Canada Post"] * 4 + ["UPS", "FedEx", "DHL"])
        else:
            carrier = rng.choice(["USPS"] * 5 + ["UPS"] * 4 + ["FedEx"] * 2 + ["DHL"])
        qty = rng.choice([1] * 12 + [2, 2, 3])
        gross = round(item["price"] * qty, 2)
        if rng.random() < 0.03:
            refund = 0.0
        elif reason == "Changed mind" and rng.random() < 0.5:
            refund = round(gross * 0.85, 2)  # a 15% restocking fee
        else:
            refund = gross
        lb = round(item["lb"] * qty * rng.uniform(0.95, 1.08) + 0.15, 2)
        if rng.random() < 0.2:  # the old dock scale weighs to the quarter pound
            lb = max(0.25, round(lb * 4) / 4)
        row = {
            "return_id": f"RT{240001 + i * 2 + rng.randrange(2)}",
            "received": day.isoformat(),
            "order_ref": _order_ref(rng),
            "sku": sku,
            "product": item["product"],
            "qty": str(qty),
            "reason": reason,
            "carrier": carrier,
            "tracking_no": _tracking(rng, carrier),
            "weight_lb": fmt_num(lb, 2),
            "refund_usd": f"{refund:.2f}",
            "inspector_notes": rng.choice(INSPECT_NOTES) if rng.random() < 0.3 else "",
        }
        clean.append(row)
        dirty.append(dict(row))

    for i in dirty_cells(rng, n, 0.10):
        d = dt.date.fromisoformat(clean[i]["received"])
        stamp = f"{rng.randrange(7, 19):02d}:{rng.randrange(60):02d}"
        dirty[i]["received"] = rng.choice(
            [
                f"{d.month:02d}/{d.day:02d}/{d.year}",
                f"{d.month:02d}/{d.day:02d}/{d.year}",
                f"{d.month}/{d.day}/{d.year}",
                f"{d.month}/{d.day}/{d:%y}",
                f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
                f"{MONTHS_LONG[d.month - 1]} {d.day} {d.year}",
                f"{d.day}-{MONTHS[d.month - 1]}-{d.year}",
                f"{d:%Y-%m-%d} {stamp}",
                f"{d:%Y%m%d}",
            ]
        )
    for i in dirty_cells(rng, n, 0.10):
        cat, style, size = clean[i]["sku"].split("-")
        dirty[i]["sku"] = rng.choice(
            [
                f"{cat}-{style}-{size}".lower(),
                f"{cat} {style} {size}",
                f"{cat}{style}{size}",
                f"{cat}-{style}{size}",
                f"{cat}_{style}_{size}",
                f"{cat.lower()} {style} {size.lower()}",
                f" {cat}-{style}-{size}",
            ]
        )
    for i in dirty_cells(rng, n, 0.09):
        dirty[i]["reason"] = rng.choice(REASON_SLIPS[clean[i]["reason"]])
    for i in dirty_cells(rng, n, 0.08):
        dirty[i]["carrier"] = rng.choice(CARRIER_NAME_SLIPS[clean[i]["carrier"]])
    for i in dirty_cells(rng, n, 0.12):
        text = clean[i]["weight_lb"]
        lb = float(text)
        forms = [f"{text} lb", f"{text} lbs", f"{text}lbs", f"{text}lb"]
        oz = round(lb * 16, 2)
        if lb < 3:
            forms += [f"{fmt_num(oz, 2)} oz", f"{fmt_num(oz, 2)}oz"]
        if oz == int(oz) and lb >= 1:
            whole, rest = divmod(int(oz), 16)
            forms += [f"{whole} lb {rest} oz"] * 2
        kg = _kg_form(lb)
        if kg is not None:
            forms += [f"{kg} kg"] * 3 + [f"{kg}kg"]
        dirty[i]["weight_lb"] = rng.choice(forms)
    for i in dirty_cells(rng, n, 0.10):
        text = clean[i]["refund_usd"]
        value = float(text)
        grouped = f"{value:,.2f}"
        forms = [f"${grouped}", f"${grouped}", f"$ {text}", f"USD {text}", f"{text} USD"]
        if value > 0:
            forms += [f"-{text}", f"-${grouped}", f"({grouped})"]
        if value >= 1000:
            forms += [grouped, grouped]
        if value == int(value):
            forms += [f"${int(value)}"]
        dirty[i]["refund_usd"] = rng.choice([f for f in forms if f != text])
    meta = {
        "id": "return_id",
        "protect": ["order_ref", "tracking_no", "inspector_notes"],
        "fix": ["received", "sku", "reason", "carrier", "weight_lb", "refund_usd"],
        "other": ["return_id", "product", "qty"],
        "numeric": ["weight_lb", "refund_usd"],
    }
    return cols, dirty, clean, meta


# ---------------------------------------------------------------- writing

BUILDERS = {
    "lab": build_lab,
    "warehouse": build_warehouse,
    "hr": build_hr,
    "fleet": build_fleet,
    "books": build_books,
    "containers": build_containers,
    "meters": build_meters,
    "vet": build_vet,
    "returns": build_returns,
}


def build_table(name: str, *, seed: int = SEED, rows: int | None = None):
    """(columns, dirty rows, clean rows, meta) of one table; the same seed gives the same table."""
    rng = random.Random(f"{name}:{seed}")
    cols, dirty, clean, meta = BUILDERS[name](rng, rows or ROWS[name])
    for col in meta["protect"] + meta["other"]:
        assert all(d[col] == c[col] for d, c in zip(dirty, clean)), col
    meta = {"table": name, "seed": seed, "rows": len(clean), "columns": cols, **meta}
    meta["dirty_share"] = {
        col: round(sum(d[col] != c[col] for d, c in zip(dirty, clean)) / len(clean), 4)
        for col in meta["fix"]
    }
    return cols, dirty, clean, meta


def _csv_text(cols: list[str], rows: list[dict]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def write_table(name: str, out: Path, *, seed: int = SEED, rows: int | None = None) -> Path:
    """Write OUT/NAME/{dirty.csv, clean.csv, meta.json}; returns the table's folder."""
    cols, dirty, clean, meta = build_table(name, seed=seed, rows=rows)
    folder = Path(out) / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dirty.csv").write_text(_csv_text(cols, dirty), encoding="utf-8")
    (folder / "clean.csv").write_text(_csv_text(cols, clean), encoding="utf-8")
    (folder / "meta.json").write_text(
        json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument(
        "--rows", type=int, default=None, help="rows per table (default: each's own)"
    )
    args = parser.parse_args(argv)
    for name in [t.strip() for t in args.tables.split(",") if t.strip()]:
        if name not in BUILDERS:
            parser.error(f"unknown table {name!r} (known: {', '.join(TABLES)})")
        folder = write_table(name, args.out, seed=args.seed, rows=args.rows)
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        shares = " ".join(f"{c}={s:.1%}" for c, s in meta["dirty_share"].items())
        print(f"wrote {folder}: {meta['rows']} rows; dirty {shares}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
