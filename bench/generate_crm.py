"""Write a large, deterministic JSONL file of messy CRM-like records (stdlib only).

Each line is one of a few thousand pre-built record variants (names, phones, dates,
countries, amounts and statuses in many spellings) with a running customer id spliced
in, so writing is fast (hundreds of MB/s) and the same arguments give the same bytes.

    python bench/generate_crm.py --size-mb 1024 --out bench/out/crm_1g.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

FIRST = [
    "alice",
    "Bob",
    "CAROL",
    " dave",
    "Eve ",
    "frank",
    "Grace",
    "heidi",
    "IVAN",
    "judy",
    "Mallory",
    "niaj",
]
LAST = [
    "smith",
    "JONES",
    "Brown ",
    " garcia",
    "Miller",
    "davis",
    "RODRIGUEZ",
    "wilson",
    "Lopez",
    "nguyen",
]
PHONES = [
    "({a}) {b}-{c}",
    "{a}-{b}-{c}",
    "{a}.{b}.{c}",
    "{a}{b}{c}",
    "+1 {a} {b} {c}",
    "1-{a}-{b}-{c}",
    "+1 ({a}) {b}-{c}",
]
DATES = [
    "{y}-{m:02d}-{d:02d}",
    "{m:02d}/{d:02d}/{y}",
    "{y}/{m:02d}/{d:02d}",
    "{mon} {d}, {y}",
    "{d} {mon3} {y}",
    "{y}{m:02d}{d:02d}",
    "{y}-{m:02d}-{d:02d}T10:30:00Z",
]
MONTHS = [
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
]
COUNTRIES = [
    "USA",
    "U.S.",
    "United States",
    "us",
    "US",
    "Canada",
    "CA",
    "UK",
    "United Kingdom",
    "DE",
]
STATUSES = [
    "active",
    "actve",
    "Active",
    "pending",
    "Pending ",
    "PENDNG",
    "churned",
    "CHURNED",
    "churnd",
]
AMOUNTS = [
    "${whole:,}.{cents:02d}",
    "{whole}.{cents:02d} USD",
    "{num}",
    "USD {whole:,}.{cents:02d}",
    " ${whole} ",
]
VARIANTS = 4096
MARK = "@@ID@@"


def build_variants(seed: int) -> list[tuple[bytes, bytes]]:
    """(prefix, suffix) byte pairs; a record line is prefix + id + suffix."""
    rng = random.Random(seed)
    out = []
    for _ in range(VARIANTS):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        a, b, c = rng.randint(201, 989), rng.randint(200, 999), rng.randint(0, 9999)
        y, m, d = rng.randint(2015, 2024), rng.randint(1, 12), rng.randint(1, 28)
        whole, cents = rng.randint(0, 25000), rng.choice([0, 50, 99, rng.randint(0, 99)])
        style = rng.random()
        record = {
            "customer_id": MARK,
            "name": f"{first} {last}" if style > 0.2 else f"  {first.upper()}   {last.upper()} ",
            "email": f"{first.strip()}.{last.strip()}@Example.COM".replace(
                "A", "a" if style > 0.5 else "A"
            ),
            "phone": rng.choice(PHONES).format(a=a, b=f"{b:03d}", c=f"{c:04d}")
            if style > 0.05
            else None,
            "status": rng.choice(STATUSES),
            "signup_date": rng.choice(DATES).format(
                y=y, m=m, d=d, mon=MONTHS[m - 1], mon3=MONTHS[m - 1][:3]
            ),
            "country": rng.choice(COUNTRIES),
            "amount": rng.choice(AMOUNTS).format(whole=whole, cents=cents, num=whole + cents / 100),
            "notes": rng.choice(
                ["", "VIP", "called twice; prefers email", "duplicate?", "n/a", "ünïcode ✓"]
            ),
        }
        if style > 0.9:
            record["tags"] = rng.sample(["b2b", "trial", "enterprise", "referral", "newsletter"], 2)
        line = json.dumps(record, ensure_ascii=False)
        prefix, suffix = line.split(json.dumps(MARK))
        id_style = rng.randrange(3)
        if id_style == 1:
            prefix, suffix = prefix + '"', '"' + suffix
        elif id_style == 2:
            prefix, suffix = prefix + '"CUST-', '"' + suffix
        out.append((prefix.encode(), (suffix + "\n").encode()))
    return out


def generate(out_path: str, size_mb: float, seed: int = 7) -> int:
    """Write about ``size_mb`` MiB of JSONL to ``out_path``; return the number of records."""
    target = int(size_mb * 1024 * 1024)
    variants = build_variants(seed)
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    written = count = 0
    batch = 2000
    with open(out_path + ".part", "wb") as f:
        while written < target:
            parts = []
            for i in range(count, count + batch):
                prefix, suffix = variants[(i * 2654435761) % VARIANTS]
                parts.append(prefix + b"%d" % i + suffix)
            block = b"".join(parts)
            if written + len(block) > target:  # trim the last block to whole lines near the target
                cut = block.find(b"\n", target - written) + 1 or len(block)
                count += block.count(b"\n", 0, cut)
                block = block[:cut]
            else:
                count += batch
            f.write(block)
            written += len(block)
    os.replace(out_path + ".part", out_path)
    return count


def ensure_file(path: str, size_mb: float) -> float:
    """Generate ``path`` if it is missing, read it once to warm the page cache, and return its size
    in MB."""
    if not os.path.exists(path):
        print(f"generating {path} ({size_mb:g} MB) ...", flush=True)
        generate(path, size_mb)
    with open(path, "rb") as f:  # every benchmark variant then sees the same conditions
        while f.read(1 << 20):
            pass
    return os.path.getsize(path) / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--size-mb", type=float, default=1024, help="approximate output size in MiB (default 1024)"
    )
    default_out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "crm.jsonl")
    parser.add_argument(
        "--out", default=default_out, help="output path (default bench/out/crm.jsonl)"
    )
    parser.add_argument(
        "--seed", type=int, default=7, help="random seed for the record variants (default 7)"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    count = generate(args.out, args.size_mb, args.seed)
    seconds = time.perf_counter() - start
    size = os.path.getsize(args.out) / 2**20
    print(
        f"wrote {args.out}: {count} records, {size:.1f} MB in {seconds:.2f} s "
        f"({size / seconds:.0f} MB/s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
