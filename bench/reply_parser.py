"""The reply parser on degenerate replies: seconds per parse, the old patterns beside the current parser.

    python bench/reply_parser.py                      # N = 20K, 80K, 320K characters of "<code>" * k
    python bench/reply_parser.py --sizes 20000 --before-max 20000

The old patterns (a lazy ``<code\\b[^>]*>(.*?)</code\\s*>`` search, then the unclosed form) are
quadratic: about 0.6 s at 20K and 12 s at 80K, so by default they run up to ``--before-max``
(80K) only. The current parser reads at most ``MAX_REPLY_CHARS`` and makes one pass. Speed lives
here, never in test assertions (tests/adversarial/test_reply_parser.py counts searches instead).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from recursive_cleaner.errors import ParseError  # noqa: E402
from recursive_cleaner.model.response import parse_response  # noqa: E402

UNITS = ("<code>", "<issue>", "<code ")


def old_tag_text(text: str, name: str) -> str | None:
    """tag_text as it was before the parser was made linear (for the comparison only)."""
    m = re.search(rf"<{name}\b[^>]*>(.*?)</{name}\s*>", text, re.DOTALL | re.IGNORECASE)
    if m:
        return m.group(1)
    m = re.search(rf"<{name}\b[^>]*>(.*)\Z", text, re.DOTALL | re.IGNORECASE)
    return m.group(1) if m else None


def old_parse(text: str) -> None:
    """The old parser's tag lookups on a reply: root, status, function, code, name, issues."""
    for name in ("cleaning_analysis", "chunk_status", "function_to_generate", "code", "name"):
        old_tag_text(text, name)
    list(re.finditer(r"<issue\b([^>]*)>(.*?)</issue\s*>", text, re.DOTALL | re.IGNORECASE))


def new_parse(text: str) -> None:
    try:
        parse_response(text)
    except ParseError:
        pass


def seconds(parse, text: str) -> float:
    start = time.perf_counter()
    parse(text)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 80_000, 320_000])
    parser.add_argument(
        "--before-max", type=int, default=80_000, help="largest N the old patterns are timed on"
    )
    args = parser.parse_args(argv)
    print(f"{'reply':>14} {'N':>9} {'before_s':>10} {'after_s':>10}")
    for unit in UNITS:
        for size in args.sizes:
            text = unit * (size // len(unit))
            before = (
                f"{seconds(old_parse, text):10.3f}"
                if size <= args.before_max
                else f"{'(skipped)':>10}"
            )
            print(f"{unit!r:>14} {size:>9} {before} {seconds(new_parse, text):10.3f}")


if __name__ == "__main__":
    main()
