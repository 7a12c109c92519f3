"""Regenerate crm_customers.jsonl (messy) and crm_customers.clean.jsonl (its ground truth).

Deterministic (seeded): ``python test_cases/make_crm.py`` rewrites both files next to
this script. Line N of the clean file is the cleaned form of line N of the messy file.
"""

from __future__ import annotations

import json
import os
import random

SEED = 20240611
UNIQUE = 295
HERE = os.path.dirname(os.path.abspath(__file__))

FIRST = ["Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Isabel", "Jack", "Karen", "Liam",
         "Maria", "Noah", "Olivia", "Paul", "Quinn", "Rosa", "Sam", "Tina", "Umar", "Vera", "Walter", "Yuki", "Zoe"]
LAST = ["Smith", "Johnson", "Brown", "Garcia", "Miller", "Davis", "Martinez", "Wilson", "Anderson", "Taylor",
        "Thomas", "Moore", "Jackson", "Lee", "Harris", "Clark", "Lewis", "Walker", "Young", "King", "Wright"]
DOMAINS = ["example.com", "mail.example.org", "corp.example.net", "example.co.uk"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
STATUS_VARIANTS = {
    "active": ["active", "active", "Active", "ACTIVE", " active", "actve", "activ"],
    "pending": ["pending", "pending", "Pending ", "PENDING", "pendng", "Pendin g"],
    "churned": ["churned", "churned", "CHURNED", "Churned", "churnd", "chruned"],
}
COUNTRY_VARIANTS = {
    "US": ["US", "USA", "U.S.", "United States", "us", "U.S.A.", "united states of america", "Usa"],
    "CA": ["CA", "Canada", "canada", "CAN"],
    "GB": ["GB", "UK", "United Kingdom", "Great Britain"],
}
PHONE_FORMATS = ["({a}) {b}-{c}", "{a}-{b}-{c}", "{a}.{b}.{c}", "{a}{b}{c}", "+1 {a} {b} {c}", "1-{a}-{b}-{c}",
                 "+1 ({a}) {b}-{c}"]
DATE_FORMATS = ["iso", "us_slash", "ymd_slash", "long", "day_mon", "compact", "iso_time"]


def messy_id(rng: random.Random, n: int) -> object:
    return rng.choice([n, str(n), f"CUST-{n:05d}", f"cust_{n}", f" {n} ", f"C{n:05d}"])


def messy_name(rng: random.Random, first: str, last: str) -> str:
    return rng.choice([
        f"{first} {last}", f"{first} {last}", f"  {first} {last}", f"{first}  {last} ",
        f"{first.upper()} {last.upper()}",
        f"{first.lower()} {last.lower()}", f" {first.upper()}   {last} ",
    ])


def messy_email(rng: random.Random, email: str) -> str:
    local, domain = email.split("@")
    return rng.choice([
        email, email, email.upper(), f"{local.title()}@{domain.upper()}", f" {email} ", f"{local} @{domain}",
        f"{local.capitalize()}@{domain}  ",
    ])


def phone(rng: random.Random, country: str) -> tuple[str, str]:
    """(messy, E.164)."""
    if country == "GB":
        rest = f"{rng.randint(0, 9999):04d}"
        return rng.choice([f"+44 20 7946 {rest}", f"+44-20-7946-{rest}", f"+44 (20) 7946 {rest}"]), f"+44207946{rest}"
    a, b, c = rng.randint(201, 989), rng.randint(200, 999), rng.randint(0, 9999)
    messy = rng.choice(PHONE_FORMATS).format(a=a, b=b, c=f"{c:04d}")
    return messy, f"+1{a}{b}{c:04d}"


def date(rng: random.Random) -> tuple[str, str]:
    """(messy, ISO)."""
    y, m, d = rng.randint(2016, 2024), rng.randint(1, 12), rng.randint(1, 28)
    style = rng.choice(DATE_FORMATS)
    messy = {
        "iso": f"{y}-{m:02d}-{d:02d}",
        "us_slash": f"{m}/{d}/{y}",
        "ymd_slash": f"{y}/{m:02d}/{d:02d}",
        "long": f"{MONTHS[m - 1]} {d}, {y}",
        "day_mon": f"{d} {MONTHS[m - 1][:3]} {y}",
        "compact": f"{y}{m:02d}{d:02d}",
        "iso_time": f"{y}-{m:02d}-{d:02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
    }[style]
    return messy, f"{y}-{m:02d}-{d:02d}"


def amount(rng: random.Random) -> tuple[object, float]:
    """(messy, number)."""
    cents = rng.choice([0, 0, 50, 99, rng.randint(0, 99)])
    whole = rng.choice([rng.randint(0, 99), rng.randint(100, 999), rng.randint(1000, 25000)])
    value = round(whole + cents / 100, 2)
    short = f"{value:.2f}".rstrip("0").rstrip(".")  # 1234.5, 99
    messy = rng.choice([
        f"${whole:,}.{cents:02d}", f"{short} USD", value, f"{whole}.{cents:02d}", f"USD {whole:,}.{cents:02d}",
        f" ${short} ", short,
    ])
    return messy, value


def make_pair(rng: random.Random, n: int, used_emails: set[str]) -> tuple[dict, dict]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    email = f"{first.lower()}.{last.lower()}@{rng.choice(DOMAINS)}"
    while email in used_emails:
        email = f"{first.lower()}.{last.lower()}{rng.randint(2, 99)}@{rng.choice(DOMAINS)}"
    used_emails.add(email)
    country = rng.choices(["US", "CA", "GB"], weights=[80, 12, 8])[0]
    status = rng.choices(["active", "pending", "churned"], weights=[55, 25, 20])[0]
    messy_phone, clean_phone = phone(rng, country)
    if rng.random() < 0.03:
        messy_phone, clean_phone = None, None  # unknown phone stays null
    messy_date, clean_date = date(rng)
    messy_amount, clean_amount = amount(rng)
    messy = {
        "customer_id": messy_id(rng, n),
        "name": messy_name(rng, first, last),
        "email": messy_email(rng, email),
        "phone": messy_phone,
        "status": rng.choice(STATUS_VARIANTS[status]),
        "signup_date": messy_date,
        "country": rng.choice(COUNTRY_VARIANTS[country]),
        "amount": messy_amount,
    }
    clean = {
        "customer_id": n,
        "name": f"{first} {last}",
        "email": email,
        "phone": clean_phone,
        "status": status,
        "signup_date": clean_date,
        "country": country,
        "amount": clean_amount,
    }
    return messy, clean


def build(unique: int = UNIQUE, seed: int = SEED) -> tuple[list[dict], list[dict], list[tuple[int, int, str]]]:
    """(messy records, clean records, [(duplicate line, original line, kind)]), lines 1-based.

    ``unique`` distinct customers plus five duplicates; the defaults give the bundled 300-record sample.
    """
    rng = random.Random(seed)
    used: set[str] = set()
    pairs = [make_pair(rng, 1000 + i, used) for i in range(unique)]
    # five duplicates by email: three exact copies, two re-typed with other formatting
    picks = rng.sample(range(unique), 5)
    inserts = []
    for k, src in enumerate(picks):
        messy, clean = pairs[src]
        if k >= 3:
            messy = dict(messy, email=messy["email"].strip().upper(), name=clean["name"].upper())
        kind = "re-typed" if k >= 3 else "exact"
        inserts.append((rng.randint(src + 1, unique), (dict(messy), dict(clean)), (src, kind)))
    rows: list[tuple[dict, dict, tuple | None]] = [(m, c, None) for m, c in pairs]
    for position, (messy, clean), dup in sorted(inserts, key=lambda t: -t[0]):
        rows.insert(position, (messy, clean, dup))
    index = {id(pairs[i][0]): i for i in range(unique)}
    line_of = {index[id(m)]: line for line, (m, _, dup) in enumerate(rows, 1) if dup is None}
    dups = [(line, line_of[dup[0]], dup[1]) for line, (_, _, dup) in enumerate(rows, 1) if dup is not None]
    return [r[0] for r in rows], [r[1] for r in rows], dups


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=UNIQUE + 5,
                        help=f"records to write, five of them duplicates (default {UNIQUE + 5}: the bundled sample)")
    parser.add_argument("--out", default=HERE, help="folder for the two files (default: next to this script)")
    args = parser.parse_args(argv)
    if args.records < 10:
        parser.error("--records must be at least 10")
    messy, clean, dups = build(unique=args.records - 5)
    os.makedirs(args.out, exist_ok=True)
    for name, records in (("crm_customers.jsonl", messy), ("crm_customers.clean.jsonl", clean)):
        with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="\n") as f:
            for record in records:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {len(messy)} records; duplicates (line, original line, kind): {dups}")


if __name__ == "__main__":
    main()
