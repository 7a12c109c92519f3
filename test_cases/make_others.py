"""Regenerate ecommerce_products.csv, healthcare_patients.json and broken_lines.jsonl.

Deterministic (seeded): ``python test_cases/make_others.py`` rewrites the three files next
to this script and prints the line numbers of the planted problems (see README.md).
notes.txt is written by hand and not generated.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def ecommerce(rng: random.Random) -> dict:
    categories = {
        "Electronics": ["Electronics", "electronics", "ELECTRONICS", " Electronics", "Electronic"],
        "Home & Kitchen": ["Home & Kitchen", "home & kitchen", "Home and Kitchen", "HOME & KITCHEN"],
        "Toys": ["Toys", "toys", "TOYS ", "Toys & Games"],
        "Books": ["Books", "books", "BOOKS", "Book"],
        "Garden": ["Garden", "garden", "Outdoor/Garden"],
    }
    nouns = {"Electronics": ["USB-C Cable", "Wireless Mouse", "Bluetooth Speaker", "HDMI Adapter", "Webcam"],
             "Home & Kitchen": ["Chef's Knife", "Kettle", "Cutting Board", "Coffee Grinder", "Toaster"],
             "Toys": ["Puzzle 1000pc", "Toy Robot", "Building Blocks", "Kite"],
             "Books": ["Cookbook", "Mystery Novel", "Atlas", "Poetry Collection"],
             "Garden": ["Hose 15m", "Trowel", "Seed Kit", "Plant Pot"]}
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["sku", "name", "category", "price", "stock", "description"])
    line, problems = 1, {}
    for i in range(200):
        cat = rng.choice(list(categories))
        price = rng.choice([rng.randint(1, 99) + 0.99, rng.randint(100, 1500) + rng.choice([0.0, 0.5, 0.99])])
        price_text = rng.choice([f"${price:,.2f}", f"{price:.2f} USD", f"{price:.2f}", f"USD {price:.2f}",
                                 f" {price:.2f} ", f"{price:.2f}$", f"${price:.0f}" if price > 100 else f"${price}"])
        stock = rng.choice([str(rng.randint(0, 500))] * 6 + ["", "N/A", "out of stock", "12 units"])
        name = rng.choice(nouns[cat]) + rng.choice(["", "", " (2-pack)", " - Blue", " v2"])
        desc = rng.choice(["", "Bestseller", "Ships in 2 days", "New, improved model", 'The "classic" one'])
        sku = rng.choice([f"SKU-{1000 + i}", f"sku{1000 + i}", f"{1000 + i}"])
        row = [sku, name, rng.choice(categories[cat]), price_text, stock, desc]
        if i == 42:
            row[5] = "Great for travel,\nfits in any bag"
            problems["quoted newline+comma (2 physical lines)"] = line + 1
        if i in (77, 151):  # a field missing
            out.write(",".join(row[:5]) + "\r\n")
            problems.setdefault("missing field", []).append(line + 1)
            line += 1
            continue
        if i == 120:  # an extra field
            out.write(",".join(row[:5]) + ",Sale!,extra\r\n")
            problems["extra field"] = line + 1
            line += 1
            continue
        writer.writerow(row)
        line += 1 + row[5].count("\n")
    with open(os.path.join(HERE, "ecommerce_products.csv"), "w", encoding="utf-8", newline="") as f:
        f.write(out.getvalue())
    return problems


def healthcare(rng: random.Random) -> None:
    first = ["Ana", "Ben", "Chloe", "Dmitri", "Elif", "Femi", "Gita", "Hugo", "Ines", "Jonas", "Kemal", "Lena",
             "Mateo", "Nadia", "Omar", "Priya", "Ravi", "Sofia", "Tomás", "Zoë"]
    last = ["Okafor", "Schmidt", "Rossi", "Kowalski", "Tanaka", "Haddad", "Silva", "Novak", "Dubois", "O'Neil"]
    blood = {"A+": ["A+", "a pos", "A positive", "A POS", "a+"], "A-": ["A-", "a neg", "A negative", "A−"],
             "B+": ["B+", "b pos", "B Positive"], "O+": ["O+", "o pos", "0+", "O positive"],
             "O-": ["O-", "o neg", "O negative"], "AB+": ["AB+", "ab pos", "AB positive", "A/B+"]}
    genders = ["M", "male", "Male", "MALE", "m", "F", "female", "Female", "f", "FEMALE", "woman", "Other",
               "non-binary", "unknown", "", None]
    records = []
    for i in range(150):
        y, m, d = rng.randint(1930, 2015), rng.randint(1, 12), rng.randint(1, 28)
        dob = rng.choice([f"{y}-{m:02d}-{d:02d}", f"{m:02d}/{d:02d}/{y}", f"{d:02d}.{m:02d}.{y}",
                          f"{MONTHS[m - 1]} {d}, {y}", f"{y}/{m}/{d}", f"{d}-{MONTHS[m - 1]}-{y}",
                          f"{y}{m:02d}{d:02d}"])
        kg = rng.randint(3, 140) + rng.choice([0, 0.5])
        weight = rng.choice([f"{kg} kg", f"{kg}kg", f"{round(kg * 2.20462)} lbs", f"{round(kg * 2.20462)}lb",
                             kg, str(kg), f"{kg} KG", None])
        record = {
            "patient_id": rng.choice([f"P-{i + 1:04d}", i + 1, f"p{i + 1}"]),
            "name": rng.choice([f"{rng.choice(first)} {rng.choice(last)}",
                                f"{rng.choice(last).upper()}, {rng.choice(first)}"]),
            "date_of_birth": dob,
            "gender": rng.choice(genders),
            "blood_type": rng.choice(rng.choice(list(blood.values()))) if rng.random() > 0.05 else "unknown",
            "weight": weight,
            "allergies": rng.choice([[], ["penicillin"], "penicillin, latex", "none", "N/A", ["peanuts", "Latex"],
                                     None]),
            "contact": {"phone": rng.choice([f"+1 555 01{rng.randint(0, 99):02d}", f"555-01{rng.randint(0, 99):02d}",
                                             None]),
                        "email": rng.choice([None, f"patient{i + 1}@example.org", f" PATIENT{i + 1}@EXAMPLE.ORG"])},
        }
        if rng.random() < 0.1:
            del record["allergies"]
        records.append(record)
    with open(os.path.join(HERE, "healthcare_patients.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(records, f, ensure_ascii=False, indent=2)
        f.write("\n")


def broken_lines(rng: random.Random) -> dict:
    bad = {5: '{"id": 901, "name": "Eve", "email": "eve@example.com", "score": 9', 13: "{'id': 902, 'name': 'Mallory'}",
           19: '{"id": 903, "name": "Peggy", "score": 4,}'}
    lines, rid = [], 1
    for lineno in range(1, 25):
        if lineno in bad:
            lines.append(bad[lineno])
        elif lineno == 9:
            lines.append("")
        else:
            name = rng.choice(["alice", "Bob", "CAROL", "dave ", "Eve", "frank", "Grace"])
            lines.append(json.dumps({"id": rid, "name": name, "email": f"{name.strip().lower()}@example.com",
                                     "score": rng.choice([rng.randint(0, 10), str(rng.randint(0, 10)), None])}))
            rid += 1
    with open(os.path.join(HERE, "broken_lines.jsonl"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    return {"malformed": sorted(bad), "blank": 9, "records": rid - 1}


def main() -> None:
    rng = random.Random(1234)
    print("ecommerce_products.csv problems (line numbers):", ecommerce(rng))
    healthcare(rng)
    print("healthcare_patients.json written")
    print("broken_lines.jsonl:", broken_lines(rng))


if __name__ == "__main__":
    main()
