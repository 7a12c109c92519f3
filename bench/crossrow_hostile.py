"""The cross-row steps' fit and transform on hostile data: the old pairwise code beside the current one.

    python bench/crossrow_hostile.py                  # every case, old and new
    python bench/crossrow_hostile.py --old-commit 52eab2d --cases long-values many-keys

The old ``crossrow/steps.py`` is read from git (``--old-commit``, default 52eab2d, the last commit
before issue 28's bounded matching) and loaded as a module beside the current package. Each case
builds its records in memory and times ``apply_steps`` (fit, then transform every record):

* ``long-values``: a vocabulary field whose values are 4,000 characters long, each frequent value
  with a rare one-edit variant (the issue: 3.7 s per pair); new: over ``near.MAX_CHARS``, left alone;
* ``near-long-values``: the same at 250 characters (under the cap): the banded distance;
* ``many-keys``: a majority step with ``--keys`` (2,000) keys seen once and as many seen twice, all
  of 10 characters (the issue: 6,000 keys, 37 s); every rare key was compared with every group,
  for every record: quadratic, so 6,000 keys take the old code about 9 times as long as 2,000;
* ``shared-prefix-keys``: 3,000 + 3,000 keys sharing a 200-character prefix, so no cheap
  signature tells them apart: the index finds every group for every key; the work budget
  (``near.MAX_WORK``) bounds it and the keys past it are left alone.

Per case: seconds old / new, the ratio, whether the outputs are equal, and the values left alone
(``Fitted.left_alone``). ``--old-max`` skips the old code on cases expected to take longer.
The last line is machine-readable: ``crossrow_hostile case=ratio ...``.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from recursive_cleaner.crossrow import steps as new_steps  # noqa: E402


def old_module(commit: str) -> types.ModuleType:
    """crossrow/steps.py at ``commit``, loaded as ``rc_old_steps`` (its relative import pointed at
    the package)."""
    source = subprocess.run(
        ["git", "-C", ROOT, "show", f"{commit}:recursive_cleaner/crossrow/steps.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    source = source.replace(
        "from .weights import", "from recursive_cleaner.crossrow.weights import"
    )
    module = types.ModuleType("rc_old_steps")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{commit}:steps.py", "exec"), module.__dict__)
    return module


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
    for k in range(keys):
        full, rare = prefix + _text(rng, 10), prefix + _text(rng, 10)
        name = _text(rng, 8)
        records += [
            {"id": full, "name": name},
            {"id": full, "name": name},
            {"id": rare, "name": _text(rng, 8)},
        ]
    return [{"kind": "majority", "key": ["id"], "fields": ["name"]}], records


CASES = {
    "long-values": lambda: long_values(4000, 2),
    "near-long-values": lambda: long_values(250, 200),
    "many-keys": lambda: many_keys(KEYS[0]),
    "shared-prefix-keys": lambda: many_keys(3000, "p" * 200),
}
KEYS = [2000]


def timed(
    module: types.ModuleType, steps: list[dict], records: list[dict]
) -> tuple[float, list, object]:
    parsed = [module.CrossRowStep.from_dict(s) for s in steps]
    start = time.perf_counter()
    fitted = module.fit(parsed, records)
    out = [r for r in map(fitted.transform, records) if r is not None]
    return time.perf_counter() - start, out, fitted


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-commit", default="52eab2d")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument(
        "--old-max",
        nargs="*",
        default=[],
        choices=list(CASES),
        help="cases on which the old code is NOT run",
    )
    parser.add_argument("--keys", type=int, default=KEYS[0], help="keys of the many-keys case")
    args = parser.parse_args(argv)
    KEYS[0] = args.keys
    old = old_module(args.old_commit)
    print(f"{'case':<20} {'records':>8} {'old_s':>9} {'new_s':>8} {'ratio':>8}  same  left alone")
    ratios = []
    for case in args.cases:
        steps, records = CASES[case]()
        new_s, new_out, fitted = timed(new_steps, steps, records)
        if case in args.old_max:
            old_text, ratio, same = f"{'(skipped)':>9}", "-", "-"
        else:
            old_s, old_out, _ = timed(old, steps, records)
            old_text, ratio, same = (
                f"{old_s:9.2f}",
                f"{old_s / new_s:.0f}",
                "yes" if old_out == new_out else "no",
            )
        left = dict(fitted.left_alone)
        print(
            f"{case:<20} {len(records):>8} {old_text} {new_s:8.3f} {ratio:>8}  {same:<5} "
            f"{left or '-'}"
        )
        ratios.append(f"{case}={ratio}")
    print("crossrow_hostile " + " ".join(ratios))


if __name__ == "__main__":
    main()
