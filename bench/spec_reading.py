"""How the field spec reads every goal text (no model): each field's kind, scope and protection,
and the harm a reading would do.

For each goal text of ``bench/instructions``, ``bench/phrasings`` and ``bench/heldout/goals`` (with
its table's header and the first ``--rows`` rows as the data sample, as ``read_spec`` gets them) one
line: ``field=kind`` per field, ``kind`` ``-`` for none, the field's mark after it: ``*`` written
(in scope, not as_is), ``~`` written only by one of the goals' unit conversions (the library's
``convert_unit`` functions), ``+`` written only by a rule across rows (asked, no format binds it:
"fix the typos", a stated key), ``!`` protected (as_is), nothing out of scope. Then the harm, per text:

- ``writable-protected``: a field the text asks to leave alone (held-out tables: meta.json's
  ``protect``; the benchmark tables: ``bench/phrasings.py``'s ``KEEP`` / ``as_is`` fields) that the
  spec lets the cleaning write (in scope, or a conversion's field);
- ``asked-not-written``: a field the text asks to fix (meta.json's ``fix``; the phrasings' fields
  with an expected kind) that the spec leaves as_is or out of scope, and no conversion writes.

    python bench/spec_reading.py [--data-dir ../shared/bench-data] [--rows 300] > out.txt

The last line: ``spec_reading texts=N writable_protected=N asked_not_written=N``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(ROOT), str(HERE), str(HERE / "heldout")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import make_tables  # noqa: E402
import phrasings  # noqa: E402

GOALS = HERE / "heldout" / "goals"


def _rows(path: Path, n: int) -> tuple[list[str], list[dict]]:
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        rows = [r for _, r in zip(range(n), reader)]
        return list(reader.fieldnames or []), rows


def texts(data_dir: str, tables: Path, n: int) -> list[dict[str, Any]]:
    """Every goal text with its fields, sample, and the fields it protects and asks for."""
    out = []
    for table, names in phrasings.EXPECTED.items():
        data = phrasings.samples(table, data_dir, n)
        for name, expected in names.items():
            protect = {
                f for f, want in expected.items() if want == phrasings.KEEP or want == {"as_is"}
            }
            asked = {f for f, want in expected.items() if want != phrasings.OUT} - protect
            out.append(
                {
                    "label": f"{table}:{name}",
                    "goals": Path(phrasings.goals_path(table, name)).read_text(encoding="utf-8"),
                    "fields": phrasings.FIELDS[table],
                    "samples": data,
                    "protect": protect,
                    "asked": asked,
                }
            )
    for path in sorted(GOALS.glob("*.txt")):
        table, wording = path.stem.split("_", 1)
        folder = tables / table
        if not (folder / "dirty.csv").is_file():
            make_tables.write_table(table, tables)
        fields, rows = _rows(folder / "dirty.csv", n)
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        out.append(
            {
                "label": f"{table}:{wording}",
                "goals": path.read_text(encoding="utf-8"),
                "fields": fields,
                "samples": {f: [r.get(f) for r in rows] for f in fields},
                "protect": set(meta.get("protect", ())),
                "asked": set(meta.get("fix", ())),
            }
        )
    return out


def reading(text: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    """One line of the spec's reading; the protected fields it lets be written; the asked fields it
    leaves alone."""
    from recursive_cleaner.profiling.spec import read_spec

    spec = read_spec(text["goals"], text["fields"], text["samples"])
    converted = {f for c in getattr(spec, "conversions", ()) for f in (c.value, c.unit)}
    rows_frozen = spec.frozen(rows=True)  # what not even a rule across rows may write
    parts = []
    for name in text["fields"]:
        f = spec.fields[name]
        mark = (
            "!"
            if f.kind == "as_is"
            else "*"
            if spec.in_scope(name)
            else "~"
            if name in converted
            else "+"
            if name not in rows_frozen
            else ""
        )
        parts.append(f"{name}={'as_is' if f.kind == 'as_is' else f.kind or '-'}{mark}")
    written = {f for f in text["fields"] if spec.in_scope(f) or f not in rows_frozen} | converted
    harm = sorted(f for f in text["protect"] if f in written)
    missed = sorted(f for f in text["asked"] if f not in written)
    return f"{text['label']:<18} scope={spec.scope} " + " ".join(parts), harm, missed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=phrasings.DATA_DIR)
    p.add_argument("--tables", type=Path, default=make_tables.DEFAULT_OUT)
    p.add_argument("--rows", type=int, default=300)
    args = p.parse_args(argv)
    harms, misses, summary = 0, 0, []
    all_texts = texts(args.data_dir, args.tables, args.rows)
    for text in all_texts:
        line, harm, missed = reading(text)
        print(line)
        harms += len(harm)
        misses += len(missed)
        if harm or missed:
            summary.append(
                f"  {text['label']:<18} writable-protected={','.join(harm) or '-'} "
                f"asked-not-written={','.join(missed) or '-'}"
            )
    print("\nharm:")
    print("\n".join(summary) or "  (none)")
    print(
        f"spec_reading texts={len(all_texts)} writable_protected={harms} asked_not_written={misses}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
