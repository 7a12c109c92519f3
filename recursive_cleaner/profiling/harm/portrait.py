"""What a field's own values say, read by no rule (``Portrait``), and the text helpers the judge
of harm shares: a value's text, its letter words and its digits."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

from ..kinds._values import PLAIN_NUMBER, value_shape

__all__ = [
    "Portrait",
    "portrait",
    "case_of",
    "value_text",
    "blank",
    "folded",
    "words_of",
    "digits_of",
    "inside",
    "plain_number",
    "ZERO_CODE",
]

_WORD = re.compile(r"[^\W\d_]+")
_DIGIT_RUN = re.compile(r"\d+")
ZERO_CODE = re.compile(r"(?<![\d.,])0\d{2,}")
_MIN_SAMPLE = 8  # fewer values than this: no usual shape, no established value, no label


def value_text(value: Any) -> str:
    """A value's text as a file would hold it."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))  # 12.0 is written "12" by a CSV of whole numbers
    return str(value)


def blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def words_of(text: str) -> list[str]:
    return _WORD.findall(folded(text))


def digits_of(text: str) -> str:
    return "".join(_DIGIT_RUN.findall(unicodedata.normalize("NFKC", text)))


def inside(short: str, long: str) -> bool:
    """``short``'s characters appear in ``long`` in order."""
    it = iter(long)
    return all(ch in it for ch in short)


def plain_number(value: Any) -> float | None:
    """The finite number a number or a plain numeric text writes, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = value_text(value).strip()
        if len(text) > 40 or not PLAIN_NUMBER.fullmatch(text):
            return None
        number = float(text)
    return number if number - number == 0 else None  # not inf or nan


@dataclass(frozen=True)
class Portrait:
    """What one field's own values say, read by no rule: the shape most have, the values many rows
    hold, the words that label values, whether it holds codes with leading zeros."""

    count: int = 0
    usual: str | None = None  # the shape most values (more than half) have
    uniform: bool = False  # nearly every value (97%) has the usual shape
    shapes: frozenset[str] = frozenset()  # every shape the values have
    established: frozenset[str] = frozenset()  # values (stripped text) many rows hold
    labels: frozenset[str] = frozenset()  # casefolded words written around many other values
    coded: bool = False  # some values are codes with leading zeros ("01067")
    common: frozenset[str] = frozenset()  # casefolded words many values hold (labels among them)
    case: str = ""  # the case most values with letters write: "upper", "lower" or "mixed"
    prose: bool = False  # free text: half the values or more write three words or more

    @property
    def read(self) -> bool:
        """Enough values to say what the field holds (else the portrait says nothing)."""
        return self.count >= _MIN_SAMPLE

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "usual": self.usual,
            "uniform": self.uniform,
            "established": sorted(self.established)[:50],
            "labels": sorted(self.labels)[:50],
            "coded": self.coded,
            "case": self.case,
            "prose": self.prose,
        }


def portrait(values: Iterable[Any]) -> Portrait:
    """The ``Portrait`` of a field from its values (a sample of them will do)."""
    texts = [value_text(v).strip() for v in values if not blank(v)]
    n = len(texts)
    if n < _MIN_SAMPLE:
        return Portrait(count=n)
    shapes = Counter(value_shape(t) for t in texts)
    shape, top = shapes.most_common(1)[0]
    floor = max(3.0, 0.02 * n)
    established = frozenset(v for v, c in Counter(texts).items() if c >= floor)
    seen: Counter = Counter()
    rests: dict[str, set[str]] = {}
    for t in texts:
        text = folded(t)
        for w in set(words_of(t)):
            seen[w] += 1
            rest = rests.setdefault(w, set())
            if len(rest) < 3:
                rest.add(text.replace(w, "", 1))
    common = frozenset(w for w, c in seen.items() if c >= max(3.0, 0.01 * n))
    labels = frozenset(w for w in common if len(rests[w]) >= 3)
    zero_led = sum(1 for t in texts if ZERO_CODE.search(t))
    return Portrait(
        count=n,
        usual=shape if top * 2 > n else None,
        uniform=top >= 0.97 * n,
        shapes=frozenset(shapes),
        established=established,
        labels=labels,
        coded=zero_led >= 2 and zero_led >= 0.02 * n,
        common=common,
        case=_usual_case(texts),
        prose=sum(1 for t in texts if len(t.split()) >= 3) * 2 >= n,
    )


def case_of(text: str) -> str:
    """How a value writes its letters: "upper", "lower", "mixed", or "" for none."""
    letters = [c for c in text if c.isalpha() and c.lower() != c.upper()]
    if not letters:
        return ""
    if all(c.isupper() for c in letters):
        return "upper"
    return "lower" if all(c.islower() for c in letters) else "mixed"


def _usual_case(texts: list[str]) -> str:
    """The case more than half the values with letters write, or ""."""
    cases = Counter(c for c in map(case_of, texts) if c)
    if not cases:
        return ""
    case, count = cases.most_common(1)[0]
    return case if count * 2 > sum(cases.values()) else ""
