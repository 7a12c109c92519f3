"""Goals as different users write them: does the field spec read them right, and does the cleaning hold?

For the CRM sample, hospital, beers and flights there are seven goal texts each: the tuned one
(``test_cases/crm_instructions.txt``, ``bench/instructions/*.txt``) and five written plainly, as
other users would, in ``bench/phrasings/``: one line, a paragraph of prose, terse bullets, and two
sets written later as held-out checks of the reader (``ticket``: a request with headings, bold
labels and quotes; ``chat``: a quick lower-case message; ``email``: a note to a colleague,
written in session 7 before its first run). Each has a hand-made expected spec
below, written with the text before its first run (what the text asks, field by field: out of
scope, left as it is either way, the kinds a right reading may give, or an enumeration's exact values).

    python bench/phrasings.py                  # the rule reader's spec against each expected spec (no model)
    python bench/phrasings.py --draft          # also the embedded model's draft (held to a JSON schema), and
                                               # the spec the data settles; --plain: the draft without the schema
    python bench/phrasings.py --run crm:oneline crm:prose hospital:oneline hospital:prose
                                               # the whole cleaning (embedded model) beside the tuned figures

``--run`` generates with the defaults and the phrasing's goals, applies the functions and the
cross-row steps to the whole table (bench/real_model.py for CRM, bench/accuracy.py for the
tables), and prints accuracy (CRM) or F1, and cells broken in fields the goals do not mention.
The last lines are machine-readable:

    phrasing TABLE NAME rules=X draft=X settled=X
    phrasing-run TABLE NAME score=X score_asked=X broken=N broken_unmentioned=N calls=N seconds=X
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

DATA_DIR = os.path.join(os.path.dirname(ROOT), "shared", "bench-data")
OUT = "-"  # out of scope: the text does not ask about the field
KEEP = "keep"  # left as it is, either way: out of scope or read as "as_is"
TEXTY = {None, "lower", "text", "free"}
NUMISH = {None, "lower", "text", "free", "number", "integer"}
TIME12 = {"time12"}
STATUS = ("enum", ("active", "pending", "churned"))
YESNO = ("enum", ("yes", "no"))
# hospital writes its state codes in lower case: they must stay so
STATE_LOWER = ("us_state", ("lower",))
WHOLE = ("number", ("whole_as_int",))  # a number written without ".0" when whole: 12, 16.9

CRM_FIELDS = ["customer_id", "name", "email", "phone", "status", "signup_date", "country", "amount"]
HOSPITAL_FIELDS = [
    "index",
    "provider_number",
    "name",
    "address_1",
    "address_2",
    "address_3",
    "city",
    "state",
    "zip",
    "county",
    "phone",
    "type",
    "owner",
    "emergency_service",
    "condition",
    "measure_code",
    "measure_name",
    "score",
    "sample",
    "state_average",
]
BEERS_FIELDS = [
    "index",
    "id",
    "beer_name",
    "style",
    "ounces",
    "abv",
    "ibu",
    "brewery_id",
    "brewery_name",
    "city",
    "state",
]
FLIGHTS_FIELDS = [
    "tuple_id",
    "src",
    "flight",
    "sched_dep_time",
    "act_dep_time",
    "sched_arr_time",
    "act_arr_time",
]

_CRM_ALL = {
    "customer_id": {"integer"},
    "name": {"title_case"},
    "email": {"email", "lower"},
    "phone": {"phone_e164"},
    "status": STATUS,
    "signup_date": {"date"},
    "country": {"country_alpha2"},
    "amount": {"number"},
}
_HOSPITAL_ALL = {f: TEXTY for f in HOSPITAL_FIELDS} | {
    f: NUMISH for f in ("index", "provider_number", "zip", "phone")
}
_TIMES = {f: TIME12 for f in FLIGHTS_FIELDS[3:]}
_BEERS_NAMES = {"beer_name": {"as_is"}, "style": {"as_is"}, "brewery_name": {"as_is"}}

EXPECTED: dict[str, dict[str, dict[str, Any]]] = {
    "crm": {
        "tuned": dict(_CRM_ALL),
        "oneline": {**_CRM_ALL, "customer_id": OUT, "name": OUT},
        "prose": dict(_CRM_ALL),
        "bullets": dict(_CRM_ALL),
        "ticket": dict(_CRM_ALL),
        "chat": dict(_CRM_ALL),
        "email": dict(_CRM_ALL),
    },
    "hospital": {
        "tuned": {**_HOSPITAL_ALL, "state": STATE_LOWER, "emergency_service": YESNO},
        "oneline": dict(_HOSPITAL_ALL),
        "prose": {**_HOSPITAL_ALL, "state": STATE_LOWER},
        "bullets": {**_HOSPITAL_ALL, "state": STATE_LOWER, "emergency_service": YESNO},
        "ticket": {
            **_HOSPITAL_ALL,
            "state": STATE_LOWER,
            "zip": KEEP,
            "phone": KEEP,
            "provider_number": KEEP,
        },
        "chat": {**_HOSPITAL_ALL, "state": STATE_LOWER, "zip": KEEP, "phone": KEEP},
        "email": {**_HOSPITAL_ALL, "state": TEXTY | {STATE_LOWER}, "zip": KEEP, "phone": KEEP},
    },
    # WHOLE where the text shows 12 for "12.0 oz" (no ".0", "becomes 12", "like 12 or 16")
    "beers": {
        "tuned": {
            "index": NUMISH,
            "id": {"integer", "number"},
            **_BEERS_NAMES,
            "ounces": WHOLE,
            "abv": {"number"},
            "ibu": {"integer", "number"},
            "brewery_id": {"integer", "number"},
            "city": TEXTY,
            "state": {"us_state"},
        },
        "oneline": {
            "index": OUT,
            "id": OUT,
            **_BEERS_NAMES,
            "ounces": {"number"},
            "abv": {"number"},
            "ibu": {"integer"},
            "brewery_id": OUT,
            "city": OUT,
            "state": {"us_state"},
        },
        "prose": {
            "index": OUT,
            "id": OUT,
            **_BEERS_NAMES,
            "ounces": WHOLE,
            "abv": {"number"},
            "ibu": {"integer"},
            "brewery_id": OUT,
            "city": TEXTY,
            "state": {"us_state"},
        },
        "bullets": {
            "index": OUT,
            "id": OUT,
            **_BEERS_NAMES,
            "ounces": WHOLE,
            "abv": {"number"},
            "ibu": {"integer"},
            "brewery_id": OUT,
            "city": TEXTY,
            "state": {"us_state"},
        },
        "ticket": {
            "index": OUT,
            "id": OUT,
            "beer_name": KEEP,
            "style": OUT,
            "brewery_name": KEEP,
            "ounces": {"number"},
            "abv": {"number"},
            "ibu": {"integer"},
            "brewery_id": OUT,
            "city": TEXTY,
            "state": {"us_state"},
        },
        "chat": {
            "index": OUT,
            "id": KEEP,
            "beer_name": KEEP,
            "style": OUT,
            "brewery_name": KEEP,
            "ounces": {"number"},
            "abv": {"number"},
            "ibu": {"integer"},
            "brewery_id": KEEP,
            "city": TEXTY,
            "state": {"us_state"},
        },
        "email": {
            "index": OUT,
            "id": OUT,
            "beer_name": KEEP,
            "style": KEEP,
            "brewery_name": KEEP,
            "ounces": WHOLE,
            "abv": {"number"},
            "ibu": {"integer"},
            "brewery_id": OUT,
            "city": TEXTY,
            "state": {"us_state"},
        },
    },
    "flights": {
        "tuned": {"tuple_id": NUMISH, "src": TEXTY, "flight": TEXTY | {"upper"}, **_TIMES},
        "oneline": {"tuple_id": OUT, "src": OUT, "flight": TEXTY | {"upper"}, **_TIMES},
        "prose": {"tuple_id": OUT, "src": OUT, "flight": TEXTY | {"upper"}, **_TIMES},
        "bullets": {"tuple_id": OUT, "src": OUT, "flight": TEXTY | {"upper"}, **_TIMES},
        # "Nothing else needs changing", "don't touch anything else": the others are left as they
        # are, either way (KEEP, since session 15: out of scope, or read as_is by that clause)
        "ticket": {"tuple_id": KEEP, "src": KEEP, "flight": KEEP, **_TIMES},
        "chat": {"tuple_id": KEEP, "src": KEEP, "flight": KEEP, **_TIMES},
        "email": {"tuple_id": OUT, "src": KEEP, "flight": KEEP, **_TIMES},
    },
}
FIELDS = {
    "crm": CRM_FIELDS,
    "hospital": HOSPITAL_FIELDS,
    "beers": BEERS_FIELDS,
    "flights": FLIGHTS_FIELDS,
}


def goals_path(table: str, name: str) -> str:
    if name == "tuned":
        return (
            os.path.join(ROOT, "test_cases", "crm_instructions.txt")
            if table == "crm"
            else os.path.join(HERE, "instructions", f"{table}.txt")
        )
    return os.path.join(HERE, "phrasings", f"{table}_{name}.txt")


def samples(table: str, data_dir: str, n: int = 200) -> dict[str, list]:
    if table == "crm":
        with open(os.path.join(ROOT, "test_cases", "crm_customers.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f][:n]
    else:
        with open(os.path.join(data_dir, table, "dirty.csv"), encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))[:n]
    return {k: [r.get(k) for r in rows] for k in FIELDS[table]}


def agreement(spec: Any, expected: dict[str, Any]) -> tuple[float, list[str]]:
    """Share of fields where the spec reads what the text asks; and the fields it misreads."""
    wrong = []
    for name, want in expected.items():
        got = spec.fields.get(name)
        in_scope = spec.in_scope(name) or (got is not None and got.kind == "as_is")
        if want == OUT:
            ok = not in_scope
        elif want == KEEP:
            ok = not spec.in_scope(name)
        elif not in_scope:
            ok = False
        elif isinstance(want, tuple):
            ok = got is not None and (got.kind, tuple(got.allowed)) == want
        else:  # a set of kinds, or of exact (kind, allowed) readings
            ok = got is not None and (got.kind in want or (got.kind, tuple(got.allowed)) in want)
        if not ok:
            wrong.append(
                f"{name}={'out' if not in_scope else (got.kind, list(got.allowed)) if got else None}"
            )
    return 1 - len(wrong) / len(expected), wrong


PER_FIELD = """Answer for one field only: {field}. Reply with its kind from the menu (for an enum: "enum: VALUE | VALUE").
"""


def read_specs(
    table: str,
    name: str,
    data_dir: str,
    backend: Any = None,
    plain: bool = False,
    per_field: bool = False,
    cache: str | None = None,
    reuse: bool = False,
) -> dict[str, Any]:
    """The rules' spec, and with a backend the model's draft alone and the spec the data settles.

    The draft is held to the spec's JSON schema where the backend can (``generate_json``), unless
    ``plain``. Each draft is saved under ``cache``; ``reuse`` reads a saved draft instead of asking
    again, so the data's settling can be re-checked without the model.
    """
    from recursive_cleaner.model.capabilities import JSON, capabilities_of
    from recursive_cleaner.model.spec_draft import build_spec_prompt, parse_spec_draft, spec_schema
    from recursive_cleaner.profiling.spec import CleaningSpec, FieldSpec, read_spec

    with open(goals_path(table, name), encoding="utf-8") as f:
        goals = f.read()
    check = samples(table, data_dir)
    few = {k: v[:3] for k, v in check.items()}
    out = {"rules": read_spec(goals, FIELDS[table], few, check=check)}
    cached = (
        os.path.join(
            cache,
            f"{table}-{name}-{'plain' if plain else 'json'}-{'field' if per_field else 'one'}.json",
        )
        if cache
        else None
    )
    if cached and reuse and os.path.exists(cached):
        with open(cached, encoding="utf-8") as f:
            draft = {k: (v[0], tuple(v[1])) for k, v in json.load(f).items()}
    elif backend is None:
        return out
    else:
        structured = not plain and JSON in capabilities_of(backend)
        prompt = build_spec_prompt(goals, check, structured=structured)
        # one short call per field, all after the same prefix (the model's cache reuses it)
        if per_field:
            draft = {}
            for field in FIELDS[table]:
                ask = prompt[: prompt.index("Reply with")] + PER_FIELD.format(field=field)
                reply = (
                    backend.generate_json(ask, spec_schema([field]))
                    if structured
                    else backend.generate(ask + f"\n{field}:")
                )
                draft.update(
                    parse_spec_draft(
                        reply if structured or ":" in reply else f"{field}: {reply}", [field]
                    )
                )
        else:
            reply = (
                backend.generate_json(prompt, spec_schema(FIELDS[table]))
                if structured
                else backend.generate(prompt)
            )
            draft = parse_spec_draft(reply, FIELDS[table])
        if cached:
            os.makedirs(cache, exist_ok=True)
            with open(cached, "w", encoding="utf-8") as f:
                json.dump({k: [v[0], list(v[1])] for k, v in draft.items()}, f, indent=1)
    rules = out["rules"]
    alone = CleaningSpec(scope=rules.scope, keys=rules.keys)
    for field, spec in rules.fields.items():
        kind, allowed = draft.get(field, (None, ()))
        alone.fields[field] = FieldSpec(kind, allowed, spec.mentioned, spec.words, "model")
    out["draft"] = alone
    out["settled"] = read_spec(goals, FIELDS[table], few, check=check, draft=draft)
    return out


def run_one(table: str, name: str, data_dir: str, out_dir: str) -> dict[str, Any]:
    """The whole cleaning with this phrasing (a child process: one model job at a time)."""
    out = os.path.join(out_dir, f"{table}-{name}")
    goals = "@" + goals_path(table, name)
    if table == "crm":
        cmd = [
            sys.executable,
            os.path.join(HERE, "real_model.py"),
            "--instructions",
            goals,
            "--out",
            out,
            "--quiet",
        ]
    else:
        cmd = [
            sys.executable,
            os.path.join(HERE, "accuracy.py"),
            table,
            "--data-dir",
            data_dir,
            "--instructions",
            goals,
            "--out",
            out,
            "--quiet",
        ]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    unmentioned = [f for f, want in EXPECTED[table][name].items() if want == OUT]
    if table == "crm":
        truth = _jsonl(os.path.join(ROOT, "test_cases", "crm_customers.clean.jsonl"))
        dirty = _jsonl(os.path.join(ROOT, "test_cases", "crm_customers.jsonl"))
        cleaned = _jsonl(os.path.join(out, "cleaned.jsonl"))
        broken = _broken(dirty, truth, cleaned, CRM_FIELDS)
        score, calls, seconds = summary["accuracy"], summary["calls"], summary["generation_seconds"]
        asked = [f for f in CRM_FIELDS if f not in unmentioned]
        # the fields the goals ask about
        score_asked = sum(summary["field_accuracy"][f] for f in asked) / len(asked)
    else:
        columns = {c["column"]: c for c in summary.get("per_column", [])}
        broken = {c: columns.get(c, {}).get("broken", 0) for c in FIELDS[table]}
        score, calls, seconds = (
            summary["f1"],
            summary.get("calls", 0),
            summary.get("generation_seconds", 0.0),
        )
        score_asked = score
    return {
        "table": table,
        "name": name,
        "score": score,
        "score_asked": score_asked,
        "broken": sum(broken.values()),
        "broken_unmentioned": sum(broken[f] for f in unmentioned),
        "calls": calls,
        "seconds": seconds,
        "broken_by_field": {k: v for k, v in broken.items() if v},
    }


def _jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _broken(
    dirty: list[dict], truth: list[dict], cleaned: list[dict], fields: list[str]
) -> dict[str, int]:
    sys.path.insert(0, HERE)
    from scoring import values_match

    out = {f: 0 for f in fields}
    for d, t, c in zip(dirty, truth, cleaned):
        for f in fields:
            if values_match(t.get(f), d.get(f)) and not values_match(t.get(f), c.get(f)):
                out[f] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--data-dir",
        default=DATA_DIR,
        help="folder of hospital, beers, flights (default ../shared/bench-data)",
    )
    p.add_argument(
        "--draft",
        action="store_true",
        help="also ask the embedded model to draft each spec (one call each)",
    )
    p.add_argument("--backend", default="local", help="backend for --draft (default local)")
    p.add_argument(
        "--plain", action="store_true", help="--draft without the JSON schema (the line form)"
    )
    p.add_argument(
        "--per-field",
        action="store_true",
        help="--draft with one short call per field, not one for all",
    )
    p.add_argument(
        "--reuse",
        action="store_true",
        help="settle with the drafts saved by an earlier --draft run (no model call; "
        "--plain/--per-field "
        "choose which)",
    )
    p.add_argument(
        "--only", nargs="*", default=[], metavar="TABLE[:NAME]", help="read only these phrasings"
    )
    p.add_argument(
        "--run",
        nargs="*",
        default=[],
        metavar="TABLE:NAME",
        help="whole cleaning runs, e.g. crm:oneline",
    )
    p.add_argument("--out", default=os.path.join(HERE, "out", "phrasings"))
    args = p.parse_args(argv)
    backend = None
    if args.draft:
        from recursive_cleaner.run.setup import resolve_backend

        backend = resolve_backend(args.backend)
    lines = []
    cache = os.path.join(args.out, "drafts")
    print(
        f"{'table':<9} {'phrasing':<8} {'rules':>6} {'draft':>6} {'settled':>8}  misread by the "
        "rules [settled]"
    )
    for table, names in EXPECTED.items():
        for name, expected in names.items():
            if args.only and table not in args.only and f"{table}:{name}" not in args.only:
                continue
            specs = read_specs(
                table, name, args.data_dir, backend, args.plain, args.per_field, cache, args.reuse
            )
            scores = {k: agreement(s, expected) for k, s in specs.items()}
            shown = {k: f"{v[0]:.2f}" for k, v in scores.items()}
            print(
                f"{table:<9} {name:<8} {shown['rules']:>6} {shown.get('draft', '-'):>6} "
                f"{shown.get('settled', '-'):>8}  {', '.join(scores['rules'][1]) or '-'}"
                + (f" [{', '.join(scores['settled'][1]) or '-'}]" if "settled" in scores else ""),
                flush=True,
            )
            lines.append(
                f"phrasing {table} {name} rules={shown['rules']} draft={shown.get('draft', '-')} "
                f"settled={shown.get('settled', '-')}"
            )
    for item in args.run:
        table, _, name = item.partition(":")
        res = run_one(table, name, args.data_dir, args.out)
        print(json.dumps(res), flush=True)
        lines.append(
            f"phrasing-run {table} {name} score={res['score']:.4f} "
            f"score_asked={res['score_asked']:.4f} "
            f"broken={res['broken']} "
            f"broken_unmentioned={res['broken_unmentioned']} calls={res['calls']} "
            f"seconds={res['seconds']:.0f}"
        )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
