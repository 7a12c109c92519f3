"""The cross-row work in the parent on hostile data: two library checkouts side by side.

    python bench/crossrow_hostile.py --before ../t43-before                # every case
    python bench/crossrow_hostile.py --before OLD --after NEW --cases truth-copiers enum-check

Each case builds its input in memory and runs it, in a subprocess per checkout (``--before DIR``,
``--after DIR``: a checkout's folder, put first on ``sys.path``; ``--after`` defaults to the
checkout this script sits in), timing what the parent does: for a cross-row case ``fit`` then
``Fitted.transform`` of every record (a step's two passes over the file, as ``apply`` runs them);
for ``enum-check`` ``apply.check.validate``; for ``wide-table`` ``discover_steps``. Seconds are
the child's CPU time (``time.process_time``): on a shared machine, wall time says more about the
neighbours. Cases (issue 28's first four, issue 43's others):

* ``long-values``: a vocabulary field whose values are 4,000 characters long, each frequent value
  with a rare one-edit variant (issue 28: 3.7 s per pair); over ``near.MAX_CHARS``, left alone;
* ``near-long-values``: the same at 250 characters (under the cap): the banded distance;
* ``many-keys``: a majority step with 2,000 keys seen once and as many seen twice (issue 28:
  6,000 keys, 37 s: every rare key against every group);
* ``shared-prefix-keys``: 3,000 + 3,000 keys sharing a 200-character prefix;
* ``long-near-keys``: 3,000 records, 1,500 keys of 250 characters that differ only in their first
  and last characters (twice each) and 1,500 rare ones like them: every distance is a whole band;
* ``one-group``: a majority step over 3,000 records of one key whose fields hold 3,000 distinct
  values (and the key 1,000 spellings): every record looked its group's winner up again;
* ``truth-copiers``: truth discovery (``weight_by``) over 40 keys each reported by 250 sources,
  most of them copying one feed (issue 43: 29 s against 1.3 s for a plain majority); and
  ``truth-copiers-majority``, the same records under a plain majority;
* ``written-keys``: a words step before a majority step writes 225 keys the majority never
  fitted, each close to 1,400 full groups: each is looked up while transforming;
* ``wide-table``: ``discover_steps`` on a planning sample of 2,000 rows and 300 columns of codes:
  every column a key candidate for every other;
* ``enum-check``: ``validate`` of 24,000 records against an enumeration of 24,000 values (issue 43:
  7.3 s: each value looked up in a tuple);
* ``digit-values``: a vocabulary field of 4,000 values of 250 characters that differ only in their
  digits (each a value of its own: ``near.two_values``);
* ``shape-long``: a shape step over 5,000 values of 250 characters sharing their segments.

Per case and checkout: seconds, the outputs' digest (equal or not) and what was left alone
(``Fitted.left_alone``); then the ratio before / after. A case the before checkout has not finished
in ``--timeout`` seconds is shown as more than that. The last line is machine-readable:
``crossrow_hostile case=ratio ...``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _text(rng: random.Random, n: int, alphabet: str = "abcdefghijklmnopqrstuvwxyz") -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _edit(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text))
    return text[:i] + ("#" if text[i] != "#" else "%") + text[i + 1 :]


def long_values(length: int, pairs: int) -> tuple[list[dict], list[dict]]:
    rng, records = random.Random(1), []
    for _ in range(pairs):
        value = _text(rng, length)
        records += [{"v": value}] * 3 + [{"v": _edit(rng, value)}]
    return [{"kind": "vocabulary", "fields": ["v"]}], records


def many_keys(keys: int, prefix: str = "") -> tuple[list[dict], list[dict]]:
    rng, records = random.Random(2), []
    for _ in range(keys):
        full, rare = prefix + _text(rng, 10), prefix + _text(rng, 10)
        name = _text(rng, 8)
        records += [
            {"id": full, "name": name},
            {"id": full, "name": name},
            {"id": rare, "name": _text(rng, 8)},
        ]
    return [{"kind": "majority", "key": ["id"], "fields": ["name"]}], records


def long_near_keys(groups: int = 1000) -> tuple[list[dict], list[dict]]:
    """Keys ``a + M + b`` with one middle ``M`` of 248 characters: no common prefix or suffix to
    cut, and two keys are two edits apart all along the band."""
    rng, records = random.Random(3), []
    middle, ends = _text(rng, 248), "abcdefghijklmnopqrstuvwxyz0123456789"
    pairs = [x + y for x in ends for y in ends]
    rng.shuffle(pairs)
    for k in range(groups):
        full = pairs[k][0] + middle + pairs[k][1]
        rare = pairs[-1 - k][0] + middle + pairs[-1 - k][1]
        records += [{"id": full, "name": f"n{k}"}] * 2 + [{"id": rare, "name": f"n{k}"}]
    return [{"kind": "majority", "key": ["id"], "fields": ["name"]}], records


def one_group(rows: int = 3000) -> tuple[list[dict], list[dict]]:
    records = [
        {
            "id": ("K" if i % 3 else "k") + " " * (i % 1000 // 3 + 1) + "1",
            "a": f"a{i}",
            "b": f"b{i}",
            "c": f"c{i}",
        }
        for i in range(rows)
    ]
    return [{"kind": "majority", "key": ["id"], "fields": ["a", "b", "c"]}], records


def copiers(keys: int = 40, sources: int = 250, weighted: bool = True) -> tuple[list, list]:
    """Each key reported by every source; one feed errs on a third of its cells, 200 sources copy
    it (their own errors sometimes), the rest are independent and mostly right."""
    rng, records = random.Random(4), []
    for k in range(keys):
        truth = {f: f"{f}-{k}" for f in ("price", "size", "brand")}
        feed = {f: (v + "-stale" if rng.random() < 0.35 else v) for f, v in truth.items()}
        for s in range(sources):
            row = {"item": f"it-{k}", "site": f"site{s:03d}"}
            for f, v in truth.items():
                if s < 200:
                    row[f] = feed[f] if rng.random() < 0.9 else f"{v}-{rng.randrange(9)}"
                else:
                    row[f] = v if rng.random() < 0.8 else f"{v}-{rng.randrange(9)}"
            records.append(row)
    step = {"kind": "majority", "key": ["item"], "fields": ["price", "size", "brand"]}
    if weighted:
        step["weight_by"] = ["site"]
    return [step], records


def digit_values(values: int = 4000) -> tuple[list[dict], list[dict]]:
    rng, records = random.Random(5), []
    stem = _text(rng, 242)
    for k in range(values):
        records += [{"v": f"{stem}{k:08d}"}] * (1 + k % 3)
    return [{"kind": "vocabulary", "fields": ["v"]}], records


def shape_long(values: int = 5000) -> tuple[list[dict], list[dict]]:
    rng, records = random.Random(6), []
    stem = _text(rng, 246)
    for k in range(values):
        records += [{"v": f"{stem}{k:04d}"}] * 12
    for k in range(300):
        records.append({"v": f"{stem}{k:03d}x"})
    return [{"kind": "shape", "fields": ["v"]}], records


def written_keys(rare: int = 225) -> tuple[list[dict], list[dict]]:
    """A words step mends a misspelt word of the key ("nxrth 1401" -> "north 1401"), so the
    majority step after it meets 225 keys it never fitted, each close to 1,400 full groups."""
    records = []
    for k in range(1400):
        records += [{"id": f"north {k:04d}", "name": f"n{k}"}] * 2
    for k in range(rare):  # 68 misspellings, each a rare word
        at, letter = 1 + k % 4, "bcdfgjklmpqsvwxz"[k // 4 % 16]
        records.append({"id": f"{'north'[:at]}{letter}{'north'[at + 1 :]} {1400 + k:04d}"})
    steps = [
        {"kind": "words", "fields": ["id"]},
        {"kind": "majority", "key": ["id"], "fields": ["name"]},
    ]
    return steps, records


def wide_table(columns: int = 300, rows: int = 2000) -> tuple[str, list[dict]]:
    """A sample of 2,000 rows and 300 columns of codes, each a possible key of every other."""
    rng = random.Random(7)
    return "discover", [
        {f"c{j:03d}": f"{j}-{rng.randrange(40)}" for j in range(columns)} for _ in range(rows)
    ]


def enum_check(n: int = 24000) -> tuple[dict, list[dict]]:
    allowed = [f"value-{i:05d}" for i in range(n)]
    spec = {"fields": {"status": {"kind": "enum", "allowed": allowed}}}
    return spec, [{"status": allowed[(i * 7919) % n]} for i in range(n)]


CASES: dict[str, Callable[[], tuple[Any, list[dict]]]] = {
    "long-values": lambda: long_values(4000, 2),
    "near-long-values": lambda: long_values(250, 200),
    "many-keys": lambda: many_keys(2000),
    "shared-prefix-keys": lambda: many_keys(3000, "p" * 200),
    "long-near-keys": long_near_keys,
    "one-group": one_group,
    "truth-copiers": copiers,
    "truth-copiers-majority": lambda: copiers(weighted=False),
    "written-keys": written_keys,
    "wide-table": wide_table,
    "enum-check": enum_check,
    "digit-values": digit_values,
    "shape-long": shape_long,
}


def digest(items: Any) -> str:
    text = json.dumps(items, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def run_case(case: str) -> dict:
    """In the child: the case on the library first on ``sys.path``; seconds, digest, left alone."""
    import recursive_cleaner

    setup, records = CASES[case]()
    if case == "enum-check":
        from recursive_cleaner.apply.check import validate

        start = time.process_time()
        check = validate(records, setup)
        seconds = time.process_time() - start
        out, left = [check.checked, check.broken], {}
    elif setup == "discover":
        from collections import Counter

        from recursive_cleaner.crossrow.discover import discover_steps

        start, counted = time.process_time(), Counter()
        try:
            found = discover_steps(records, left_out=counted)
        except TypeError:  # before issue 43: no count of what was left out
            found = discover_steps(records)
        seconds = time.process_time() - start
        out, left = [s.to_dict() for s in found], dict(+counted)
    else:
        from recursive_cleaner.crossrow.steps import CrossRowStep, fit

        steps = [CrossRowStep.from_dict(s) for s in setup]
        start = time.process_time()
        fitted = fit(steps, records)
        out = [r for r in map(fitted.transform, records) if r is not None]
        seconds = time.process_time() - start
        left = {f"{i}:{f}": n for (i, f), n in getattr(fitted, "left_alone", {}).items()}
    return {
        "seconds": seconds,
        "digest": digest(out),
        "left_alone": left,
        "records": len(records),
        "library": os.path.dirname(os.path.dirname(recursive_cleaner.__file__)),
    }


def in_checkout(root: str, case: str, timeout: float) -> dict | None:
    """``run_case`` in a new process with ``root`` first on ``sys.path``; None past ``timeout``."""
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]); "
        "import crossrow_hostile as b; print(json.dumps(b.run_case(sys.argv[3])))"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, os.path.abspath(root), HERE, case],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=HERE,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode:
        raise SystemExit(f"{case} in {root} failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if os.path.realpath(result["library"]) != os.path.realpath(root):
        raise SystemExit(f"{case}: ran {result['library']}, not {root}")
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the old checkout's folder (none: the after side only)")
    parser.add_argument("--after", default=ROOT, help="default: this checkout")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument(
        "--before-skip", nargs="*", default=[], choices=list(CASES), help="not run before"
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per case and side")
    args = parser.parse_args(argv)
    print(f"before: {args.before or '-'}\nafter:  {args.after}")
    print(
        f"{'case':<24} {'records':>8} {'before_s':>9} {'after_s':>8} {'ratio':>7}  same  "
        "left alone (after)"
    )
    ratios = []
    for case in args.cases:
        after = in_checkout(args.after, case, args.timeout)
        before = None
        if args.before and case not in args.before_skip:
            before = in_checkout(args.before, case, args.timeout)
        after_s = f"{after['seconds']:8.3f}" if after else f">{args.timeout:7.0f}"
        if not args.before or case in args.before_skip:
            before_s, ratio, same = f"{'-':>9}", "-", "-"
        elif before is None:
            before_s, same = f">{args.timeout:8.0f}", "-"
            ratio = f">{args.timeout / after['seconds']:.0f}" if after else "-"
        else:
            before_s = f"{before['seconds']:9.3f}"
            ratio = f"{before['seconds'] / after['seconds']:.1f}" if after else "<1"
            same = "yes" if after and before["digest"] == after["digest"] else "no"
        records = (after or before or {}).get("records", "?")
        left = (after or {}).get("left_alone") or "-"
        print(f"{case:<24} {records:>8} {before_s} {after_s} {ratio:>7}  {same:<5} {left}")
        ratios.append(f"{case}={ratio}")
    print("crossrow_hostile " + " ".join(ratios))


if __name__ == "__main__":
    main()
