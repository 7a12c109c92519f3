"""The goals' examples: ``A -> B``, "A becomes B", "A stays A", each tied to the field whose data
holds A.

Forms (values bare or quoted with ``"…"``, ``“…”`` or ``'…'``; a list ``"a", "b" and "c"`` before
the connecting words gives one pair per input):

- an arrow: ``A -> B``, ``A → B``, ``A => B``;
- words between the two values: "A becomes B", "A, B and C all become D", "A is B", "A are all B",
  "A should be / should become / must be B", "A is turned into / converted to / written as B";
- a verb before them: "convert / change / map / turn / rewrite / replace A to / into / with B",
  "from A to B";
- identity: "A stays A", "A stays (as it is)", "A remains", "A is kept", "keep / leave A as is".

A pair belongs to (1) the field whose sample values hold A exactly (every such field when the
sentence names none of them), else (2) the one field whose values share A's shape (``value_shape``),
the ones the sentence names when several do ("First and last names: "MARIA" becomes "Maria""), or
when it names none of them the one whose values have A's exact shape ("c1998": "c1980", not
"b100000"), else (3) the one field the sentence (or the bullet it stands in) names; otherwise it is
dropped, never guessed. A bare word without digits or signs (``Germany``) counts only as a value
the data holds; a bare value glued to another one (``5 kg``, ``12:00 p.m.``) is not read (quote it);
a value in square brackets (``[1998]``) is one value, brackets kept. Several inputs
written with their output (``"CUST-01024", "1024" are all 1024``) give no identity pair: only
identity words and a single ``A -> A`` do, and those protect A's shape (``spec.kept``).

Everything here is one pass over the text (a regex of bounded tokens, then the token list), so a
hostile goals text is read in linear time.

The tokens and the linking phrases are in ``example_words``.
"""

from __future__ import annotations

from typing import Iterator

from .expectations import Expectation, conforms, is_placeholder, value_shape
from .example_words import (
    BEFORE_LINKS,
    CONVERT_AFTER,
    CONVERT_BEFORE,
    IDENTITY_AFTER,
    KEEP_AFTER,
    KEEP_BEFORE,
    LIST_WORDS,
    Token,
    phrase_at,
    token_sentences,
    value_like,
)
from .mentions import FieldMentions

__all__ = ["goal_examples", "fitting_examples", "MAX_PER_FIELD"]

MAX_PER_FIELD = 12  # examples kept per field: each is run through every candidate function
_MAX_PAIRS = 400  # pairs looked at in one goals text (each is matched against the field names)
_MAX_LIST = 2 * MAX_PER_FIELD  # inputs read before one connector
_WINDOW = 600  # characters either side of a connector read for field names in a long sentence


class _Reader:
    """Reads the pairs of one goals text against the fields' sample values."""

    def __init__(self, text: str, fields: list[str], samples: dict[str, list] | None):
        self.text, self.fields, self.mentions = text, fields, FieldMentions(fields)
        self.values: dict[str, set[str]] = {}
        self.shapes: dict[str, set[str]] = {}
        self.exact: dict[str, set[str]] = {}  # the shapes with every character's class
        for name in fields:
            present = [str(v) for v in (samples or {}).get(name) or [] if v is not None and v != ""]
            self.values[name] = set(present)
            self.shapes[name] = {value_shape(v) for v in present}
            self.exact[name] = {value_shape(v, runs=False) for v in present}
        self.has_data = any(self.values.values())
        self.out: dict[str, list[tuple[str, str]]] = {}
        self.seen = 0
        self.loose: set[str] = set()  # bare inputs after a bare word: tied by the data only

    def in_data(self, value: str) -> bool:
        return any(value in held for held in self.values.values())

    def read(self) -> dict[str, tuple[tuple[str, str], ...]]:
        for toks, start, end, block in token_sentences(self.text):
            if self.seen >= _MAX_PAIRS:
                break
            self.loose.clear()
            for a, b, at in self._pairs(toks):
                self.seen += 1
                if self.seen > _MAX_PAIRS:
                    break
                for name in self._tie(a, b, at, start, end, block):
                    pairs = self.out.setdefault(name, [])
                    if (a, b) not in pairs and len(pairs) < MAX_PER_FIELD:
                        pairs.append((a, b))
        return {name: tuple(pairs) for name, pairs in self.out.items()}

    # ---------------------------------------------------------------- the forms
    def _pairs(self, toks: list[Token]) -> Iterator[tuple[str, str, int]]:
        """(input, output, connector offset) for each form in one sentence (identity: output is the
        input).

        ``floor`` is the last token a connector used: the inputs of the next one are read after it,
        so a sentence is read once whatever it holds.
        """
        i, n, floor = 0, len(toks), -1
        while i < n:
            tok = toks[i]
            if tok.kind == "arrow":
                inputs, b = (
                    self._inputs(toks, i - 1, floor, strict=False),
                    self._output(toks, i + 1, strict=False),
                )
                yield from self._emit(inputs, b, tok.start)
                i = floor = i + 1
                continue
            phrase = phrase_at(toks, i, IDENTITY_AFTER)
            if phrase:
                pair, floor = self._identity(toks, i, phrase, floor)
                if pair is not None:
                    yield pair[0][0], pair[1], pair[2]
                i = max(i + phrase, floor)
                continue
            phrase = phrase_at(toks, i, CONVERT_AFTER)
            if phrase:
                inputs = self._inputs(toks, i - 1, floor, strict=True)
                yield from self._emit(
                    inputs, self._output(toks, i + phrase, strict=True), tok.start
                )
                i = floor = i + phrase
                continue
            if tok.word in CONVERT_BEFORE or tok.word in KEEP_BEFORE:
                found = self._before(toks, i)
                if found is not None:
                    yield from self._emit(*found)
                    i = floor = i + 3
                    continue
            i += 1

    def _emit(self, inputs: list[str], b: str | None, at: int) -> Iterator[tuple[str, str, int]]:
        if b is None or not inputs:
            return
        many = len(inputs) > 1
        for a in inputs:
            # "'CUST-01024', '1024' are all 1024": no identity from a list
            if not (many and a == b):
                yield a, b, at

    def _identity(
        self, toks: list[Token], i: int, phrase: int, floor: int
    ) -> tuple[tuple[list[str], str, int] | None, int]:
        """(the pair of "A stays (as) A" / "A stays as it is", or None; the last token it used)."""
        inputs = self._inputs(toks, i - 1, floor, strict=True)
        j = i + phrase
        if j < len(toks) and toks[j].word == "as":
            j += 1
        after = toks[j] if j < len(toks) else None
        used = i + phrase - 1
        if after is not None and after.kind == "value" and (after.quoted or value_like(after.text)):
            used = j
            if len(inputs) == 1 and after.text != inputs[0]:
                return None, used  # "the price 3 stays 4": not an identity
        if len(inputs) != 1:
            return None, used
        return ([inputs[0]], inputs[0], toks[i].start), used

    def _before(self, toks: list[Token], i: int) -> tuple[list[str], str | None, int] | None:
        """ "convert A to B", "from A to B", "keep A as is": (inputs, output, offset) or None."""
        j = i + 1
        if j + 1 >= len(toks) or not self._input_ok(toks, j, strict=True):
            return None
        a, link = toks[j].text, toks[j + 1]
        if link.kind != "value" or link.quoted:
            return None
        if toks[i].word in KEEP_BEFORE:
            return ([a], a, toks[i].start) if link.word in KEEP_AFTER else None
        if link.word in BEFORE_LINKS:
            return [a], self._output(toks, j + 2, strict=True), toks[i].start
        return None

    def _inputs(self, toks: list[Token], j: int, floor: int, *, strict: bool) -> list[str]:
        """The values before a connector ending at ``j`` (after ``floor``): one, or a list joined by
        ",", "and", "or"."""
        found: list[str] = []
        while j > floor and len(found) < _MAX_LIST and self._input_ok(toks, j, strict=strict):
            text, prev = toks[j].text, toks[j - 1] if j > floor + 1 else None
            if self.mentions.groups(text):
                break  # "emergency_service is 'yes'": a field named, not a value
            if (
                not toks[j].quoted
                and prev is not None
                and prev.kind == "value"
                and not prev.quoted
                and prev.word not in LIST_WORDS
            ):
                joined = prev.text + " " + text
                if self.in_data(joined):  # "ab 1234 -> AB-1234" where the data holds "ab 1234"
                    found.append(joined)
                    break
                self.loose.add(text)  # "like 1234" or "ab 1234"? only the data may tie it
            found.append(text)
            k = j - 1
            while k > floor and (
                (toks[k].kind == "sep" and toks[k].text == ",") or toks[k].word in LIST_WORDS
            ):
                k -= 1
            if k == j - 1:
                break
            j = k
        return found[::-1]

    def _input_ok(self, toks: list[Token], j: int, *, strict: bool) -> bool:
        """Can the token at ``j`` be an example's input (quoted; a value set apart; a word the data
        holds)?"""
        tok = toks[j]
        if tok.kind != "value":
            return False
        if tok.quoted:
            return True
        prev = toks[j - 1] if j > 0 else None
        if (
            prev is not None
            and prev.kind == "value"
            and not prev.quoted
            and not prev.text.islower()
        ):
            return False  # "5 kg -> 5000", "United States -> US": part of a longer value
        if value_like(tok.text):
            return True
        return self.in_data(tok.text) or (not self.has_data and not strict)

    def _output(self, toks: list[Token], j: int, *, strict: bool) -> str | None:
        if j >= len(toks) or toks[j].kind != "value":
            return None
        tok = toks[j]
        if tok.quoted:
            return tok.text
        # "ab -> Xy Zw": the longest run of bare words after it that the data holds
        joined, k = tok.text, j + 1
        while k < len(toks) and k - j <= _MAX_OUTPUT_WORDS and toks[k].kind == "value":
            if toks[k].quoted or toks[k].word in LIST_WORDS:
                break
            joined += " " + toks[k].text
            if self.in_data(joined):
                return joined
            k += 1
        nxt = toks[j + 1] if j + 1 < len(toks) else None
        if nxt is not None and nxt.kind == "value" and not nxt.quoted and value_like(nxt.text):
            return None  # "12:00 p.m.": a longer value, written without quotes
        if strict and not value_like(tok.text) and not self.in_data(tok.text):
            return None  # "is a table": an ordinary word
        return tok.text

    # ---------------------------------------------------------------- the field
    def _tie(self, a: str, b: str, at: int, start: int, end: int, block: int) -> list[str]:
        if not a.strip() or self.mentions.groups(a) or self.mentions.groups(b):
            return []  # "- id -> integer": a heading, not an example
        exact = [f for f in self.fields if a in self.values[f]]
        named = self._named(at, start, end, block)
        if exact:
            return [f for f in exact if f in named] or exact
        alike = self._alike(a, named, start, at)
        # the field whose data holds the output, where the input's shape
        # names another
        right = [
            f
            for f in self.fields
            if len(b) > 2 and any(c.isalnum() for c in a) and b in self.values[f]
        ]
        if right and not set(right) & set(alike):
            return [f for f in right if f in named] or right
        return alike

    def _alike(self, a: str, named: frozenset, start: int, at: int) -> list[str]:
        """The fields an input no data holds belongs to by its shape and the names around it."""
        shape = value_shape(a)
        alike = [f for f in self.fields if shape in self.shapes[f]]
        if len(alike) > 1:
            # every named field of A's shape; none named: the one field with A's exact shape
            # ("c1998": "c1980" in pub_year, not "b100000" in record_id)
            chosen = [f for f in alike if f in named]
            if len(chosen) > 1:  # several named: the one named last before the example
                chosen = self._nearest(chosen, start, at) or chosen
            if not chosen:
                exact_shape = value_shape(a, runs=False)
                chosen = [f for f in alike if exact_shape in self.exact[f]]
            return chosen if len(chosen) == 1 or any(f in named for f in chosen) else []
        if alike:
            return alike
        return list(named) if len(named) == 1 and a not in self.loose else []

    def _nearest(self, chosen: list[str], start: int, at: int) -> list[str]:
        """Of ``chosen``, the fields of the last mention before ``at`` in its sentence that names
        any ("a and b ..., c to ... (x -> y)": c)."""
        lo = max(start, at - _WINDOW)
        for *_, group in reversed(self.mentions.groups(self.text[lo:at])):
            found = [f for f in chosen if f in group]
            if found:
                return found
        return []

    def _named(self, at: int, start: int, end: int, block: int) -> frozenset:
        """The fields the sentence names (read around the connector when it is long), else its
        bullet's heading."""
        lo, hi = max(start, at - _WINDOW), min(end, at + _WINDOW)
        named = frozenset().union(*(g[2] for g in self.mentions.groups(self.text[lo:hi])))
        if named or block >= start:
            return named
        return self.mentions.heading(
            self.text[block : min(start, block + _WINDOW)].lstrip(" \t\n-*•+#0123456789.)")
        )


# an output of a few words the data holds
_MAX_OUTPUT_WORDS = 4


def goal_examples(
    instructions: str, fields: list[str], samples: dict[str, list] | None = None
) -> dict[str, tuple[tuple[str, str], ...]]:
    """``{field: ((input, output), ...)}``: the examples of the goals, each tied to its field
    (module docstring)."""
    if not instructions or not fields:
        return {}
    return _Reader(instructions, list(fields), samples).read()


def fitting_examples(
    pairs: tuple[tuple[str, str], ...], exp: Expectation | None, samples: list | None = None
) -> tuple[tuple[str, str], ...]:
    """The pairs whose output is a right value of the field: conforms to its format, or (none) its
    data's forms.

    A field left as it is keeps only identity pairs. Without a format, a conversion's output must
    have the shape of a sample value, or its input be one.
    """
    present = [str(v) for v in samples or [] if v is not None and v != ""]
    shapes = {value_shape(v) for v in present}
    out = []
    for a, b in pairs:
        if exp is not None and exp.kind == "as_is":
            keep = a == b
        elif exp is not None:
            keep = conforms(b, exp, csv_strings=True) and not is_placeholder(b)
        else:
            keep = a == b or not present or a in present or value_shape(b) in shapes
        if keep:
            out.append((a, b))
    return tuple(out)
