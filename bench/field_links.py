"""Which fields each goal text links, with no model: a check of the reader's precision (issue 29, point 3).

For every goal text of ``bench/phrasings.py`` (the tuned texts and the plain ones, with their
tables' real headers and data) it prints the fields the spec reads as mentioned, the protected
ones, the stated keys with their fields, and dedup. ``--cross`` also reads every text against
the other tables' headers and a header of abbreviated names (``fname``, ``qty``, ``dob`` ...):
none of those texts is about those fields, so every field linked there by a word the field's
name only abbreviates is listed for a look (a false link, unless the text really says it).

    python bench/field_links.py                     # one line per goal text
    python bench/field_links.py --json out.json     # the same, machine-readable, to diff two commits
    python bench/field_links.py --cross             # texts against headers they were not written for

The last line: ``field_links texts=N linked=N cross_links=N``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import phrasings  # noqa: E402

ABBREVIATED = [
    "fname",
    "l_name",
    "dob",
    "qty",
    "hire_dt",
    "dept",
    "amt",
    "sal",
    "emp_no",
    "addr",
    "tel",
    "desc",
    "cat",
    "prod_nm",
    "cust_id",
    "st",
    "id",
    "zip5",
    "unitPrice",
    "ctry",
    "cur",
    "pcode",
]
OTHER_HEADERS = {
    "ecommerce": ["sku", "name", "category", "price", "stock", "description"],
    "healthcare": [
        "patient_id",
        "name",
        "date_of_birth",
        "gender",
        "blood_type",
        "weight",
        "allergies",
        "contact",
    ],
}


def reading(goals: str, fields: list[str], check: dict | None) -> dict:
    from recursive_cleaner.profiling.spec import read_spec

    few = {k: v[:3] for k, v in (check or {}).items()}
    spec = read_spec(goals, fields, few, check=check)
    if hasattr(spec, "stated"):
        keys = spec.stated()
    else:  # before the spec kept them: what the cross-row plan read from the goals
        from recursive_cleaner.profiling.row_rules import stated_fields

        keys = {k: stated_fields(goals, fields).get(k, []) for k in spec.keys}
    return {
        "mentioned": sorted(f for f, s in spec.fields.items() if s.mentioned),
        "protected": sorted(spec.protected()),
        "scope": spec.scope,
        "keys": {k: sorted(v) for k, v in keys.items()},
        "dedup": spec.dedup,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=phrasings.DATA_DIR)
    p.add_argument("--json", help="write the readings here")
    p.add_argument(
        "--cross",
        action="store_true",
        help="also read each text against headers it was not written for",
    )
    args = p.parse_args(argv)
    out, linked, cross = {}, 0, []
    for table, names in phrasings.EXPECTED.items():
        data = phrasings.samples(table, args.data_dir)
        for name in names:
            with open(phrasings.goals_path(table, name), encoding="utf-8") as f:
                goals = f.read()
            r = out[f"{table}:{name}"] = reading(goals, phrasings.FIELDS[table], data)
            linked += len(r["mentioned"])
            keys = "; ".join(f"{k} -> {', '.join(v) or 'all'}" for k, v in r["keys"].items()) or "-"
            print(
                f"{table}:{name:<8} mentioned={','.join(r['mentioned']) or '-'} protected="
                f"{','.join(r['protected']) or '-'} keys={keys} dedup={r['dedup']}"
            )
            if args.cross:
                headers = {t: f for t, f in phrasings.FIELDS.items() if t != table} | OTHER_HEADERS
                headers["abbreviated"] = ABBREVIATED
                for other, fields in headers.items():
                    got = reading(goals, fields, None)["mentioned"]
                    plain = _plain_mentions(goals, fields)
                    extra = [f for f in got if f not in plain]
                    # (a text about every field names them all)
                    if extra and len(got) < len(fields):
                        cross.append(f"{table}:{name} vs {other}: {', '.join(extra)}")
    if args.cross:
        print(
            "\nlinked only through an abbreviation or the data, on headers the text was not "
            "written for:"
        )
        print("\n".join(cross) or "(none)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, sort_keys=True)
    print(f"field_links texts={len(out)} linked={linked} cross_links={len(cross)}")
    return 0


def _plain_mentions(goals: str, fields: list[str]) -> set[str]:
    """Fields whose own name (its words, spaced or joined) is written in the goals."""
    import re

    from recursive_cleaner.profiling.mentions import field_tokens

    out = set()
    for f in fields:
        toks = field_tokens(f) or [f.lower()]
        if re.search(
            r"(?<!\w)" + r"[\s_\-]{0,2}".join(map(re.escape, toks)) + r"(?:e?s)?(?!\w)", goals, re.I
        ):
            out.add(f)
    return out


if __name__ == "__main__":
    sys.exit(main())
