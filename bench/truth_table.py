"""A multi-source table with ground truth, for truth discovery (issue 32, point 1).

Entities (products, key ``sku``) are reported by several sources (``feed``), one row per source
and entity, as price comparison sites or merged feeds report them; each row gives the entity's
``price``, ``weight_g``, ``brand`` and ``released``. The sources are not equally reliable:

- ``reliable``: two sources right 95% of the time;
- ``fair``: four sources right 70-80% of the time;
- ``poor``: four sources right 35-50% of the time;
- ``copier``: two sources that copy one poor source 85% of the time (its errors included) and
  are otherwise fair.

A wrong value is most often the entity's *stale* value (last season's price, a previous brand:
one or two per cell, shared by the sources that err), else a random one, so the poor sources
agree on their errors and outvote the reliable ones under a plain majority. Some cells are
blank (no report). Each source reports an entity with its own coverage (40-95%).

``clean.csv`` has the same rows and columns with every cell of an entity holding its true value
(a blank included); ``dirty.csv`` holds what the sources reported. Standard library only, seeded:
the same seed writes the same files.

    python bench/truth_table.py [--out DIR] [--seed N] [--entities N]
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path

__all__ = ["SOURCES", "COLUMNS", "build_table", "write_table", "main"]

COLUMNS = ("row_id", "feed", "sku", "price", "weight_g", "brand", "released")
FIELDS = ("price", "weight_g", "brand", "released")
BRANDS = (
    "Acme",
    "Borealis",
    "Corvid",
    "Dunmore",
    "Elkhorn",
    "Fenwick",
    "Glenmark",
    "Harrow",
    "Ironwood",
    "Juniper",
    "Kestrel",
    "Lindqvist",
)
# name -> (accuracy, coverage, the source it copies or None)
SOURCES = {
    "north": (0.95, 0.55, None),
    "quay": (0.95, 0.45, None),
    "alder": (0.8, 0.9, None),
    "birch": (0.75, 0.85, None),
    "cedar": (0.72, 0.8, None),
    "dune": (0.7, 0.9, None),
    "ember": (0.5, 0.95, None),
    "flint": (0.45, 0.9, None),
    "grove": (0.4, 0.95, None),
    "heath": (0.35, 0.9, None),
    "ivy": (0.75, 0.9, "ember"),
    "jade": (0.75, 0.85, "ember"),
}
COPY_SHARE = 0.85  # a copier copies its source's value this often
STALE_SHARE = 0.75  # a wrong value is the cell's stale one this often
BLANK_SHARE = 0.04  # a report leaves a field blank this often


def _truth(rng: random.Random, i: int) -> dict:
    """An entity's true values and one or two stale values per field."""
    price = rng.randrange(199, 9999) / 100
    weight = rng.randrange(50, 5000)
    year, month, day = rng.randrange(2015, 2025), rng.randrange(1, 13), rng.randrange(1, 29)
    true = {
        "price": f"{price:.2f}",
        "weight_g": str(weight),
        "brand": rng.choice(BRANDS),
        "released": f"{year}-{month:02d}-{day:02d}",
    }
    stale = {
        "price": [f"{price * rng.choice((0.8, 0.9, 1.1, 1.25)):.2f}"],
        "weight_g": [str(weight + rng.choice((-100, -50, 50, 100, 1000)))],
        "brand": [rng.choice([b for b in BRANDS if b != true["brand"]])],
        "released": [f"{year - 1}-{month:02d}-{day:02d}", f"{year}-{day:02d}-{month:02d}"],
    }
    return {"sku": f"SKU-{i:05d}", "true": true, "stale": stale}


def _wrong(rng: random.Random, entity: dict, fld: str) -> str:
    """A false value of ``fld``: the stale one mostly, else a random value of the field."""
    if rng.random() < STALE_SHARE:
        return rng.choice(entity["stale"][fld])
    other = _truth(rng, 0)["true"][fld]
    return other if other != entity["true"][fld] else rng.choice(entity["stale"][fld])


def _report(rng: random.Random, entity: dict, accuracy: float) -> dict:
    """One independent source's values for ``entity``."""
    out = {}
    for fld in FIELDS:
        if rng.random() < BLANK_SHARE:
            out[fld] = ""
        elif rng.random() < accuracy:
            out[fld] = entity["true"][fld]
        else:
            out[fld] = _wrong(rng, entity, fld)
    return out


def build_table(seed: int = 32, entities: int = 400) -> tuple[list[list[str]], list[list[str]]]:
    """(dirty rows, clean rows), each with the header first."""
    rng = random.Random(seed)
    dirty, clean = [list(COLUMNS)], [list(COLUMNS)]
    row_id = 0
    for i in range(entities):
        entity = _truth(rng, i)
        # every source's values, then which of them it publishes: a copier copies its source's
        # values whether or not that source lists the entity
        full: dict[str, dict] = {}
        for name, (accuracy, _, copies) in SOURCES.items():
            own = _report(rng, entity, accuracy)
            if copies:
                own = {f: full[copies][f] if rng.random() < COPY_SHARE else own[f] for f in FIELDS}
            full[name] = own
        reports = {n: r for n, r in full.items() if rng.random() < SOURCES[n][1]}
        if len(reports) < 2:
            continue
        for name in rng.sample(sorted(reports), len(reports)):
            row_id += 1
            row = [str(row_id), name, entity["sku"]]
            dirty.append(row + [reports[name][f] for f in FIELDS])
            clean.append(row + [entity["true"][f] for f in FIELDS])
    return dirty, clean


def write_table(out: Path, seed: int = 32, entities: int = 400) -> tuple[Path, Path]:
    """Write ``dirty.csv`` and ``clean.csv`` under ``out``; their paths."""
    out.mkdir(parents=True, exist_ok=True)
    dirty, clean = build_table(seed, entities)
    paths = out / "dirty.csv", out / "clean.csv"
    for path, rows in zip(paths, (dirty, clean)):
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rows)
    return paths


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="bench/out/truth-table", help="folder (default %(default)s)")
    p.add_argument("--seed", type=int, default=32)
    p.add_argument("--entities", type=int, default=400)
    args = p.parse_args(argv)
    dirty, clean = write_table(Path(args.out), args.seed, args.entities)
    print(f"wrote {dirty} and {clean}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
