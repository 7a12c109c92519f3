"""Where a negation stands in a text of the goals: ``Negations(text).before(at)``, a negation word
before ``at`` in its part of the sentence (a part ends at a comma, a colon, "and", "but", "so",
"then"). A format word a negation stands before asks nothing ("no trimming", "not a number"); a
verb of cleaning likewise (``keep_words``)."""

from __future__ import annotations

import bisect
import re

__all__ = ["Negations", "NEGATION", "PART", "REFUSAL"]

# "don't", "can’t", "dont", "cannot"; never the "nt" that ends "want", "current" or "amount"
NEGATION = re.compile(
    r"\b(?:not|never|no|nothing|none|nobody|neither|nor|without|cannot)\b|\Bn[’']t\b"
    r"|\b(?:do|does|did|is|are|was|were|ca|wo|should|must|need|have|has)nt\b",
    re.I,
)
# a change refused of what the words before it describe: a negation, a change verb, then a word
# pointing back ("... - do not change them")
REFUSAL = re.compile(
    r"(?:\b(?:not|never)|n[’']t|\b(?:do|does|should|must)nt)\s+(?:\w+\s+){0,2}?"
    r"(?:chang|touch|modif|edit|alter|rewrit|reformat|fix|clean|correct|tid[yi]|normali[sz]|"
    r"standardi[sz]|convert|map|unif|mend)\w*\s+(?:any\s+of\s+)?(?:them|those|these|it|this|that)\b",
    re.I,
)
# where a negation stops reaching: a comma, a colon, "and", "but", "so", "then"
PART = re.compile(r"[,:;]|\b(?:and|but|so|then|while|whereas)\b", re.I)


class Negations:
    """Where a negation stands in one text: ``before(at)``, a negation before ``at`` in its part
    of the sentence (the parts and negations found once: asked at every verb of a long text, each
    question read the text from its start)."""

    def __init__(self, text: str) -> None:
        self.cuts = [m.end() for m in PART.finditer(text)]
        found = [m.span() for m in NEGATION.finditer(text)]  # whole words: never overlapping
        self.starts, self.ends = [a for a, _ in found], [b for _, b in found]

    def before(self, at: int) -> bool:
        # the last cut ending at or before ``at`` (a part of "PART" ends before ``at``)
        k = bisect.bisect_right(self.cuts, at) - 1
        cut = self.cuts[k] if k >= 0 else 0
        i = bisect.bisect_left(self.starts, cut)
        return i < len(self.starts) and self.ends[i] <= at

    def nearest(self, at: int) -> tuple[int, int] | None:
        """The span of the negation nearest before ``at`` in its part, or None."""
        k = bisect.bisect_right(self.cuts, at) - 1
        cut = self.cuts[k] if k >= 0 else 0
        i = bisect.bisect_right(self.ends, at) - 1
        return (self.starts[i], self.ends[i]) if i >= 0 and self.starts[i] >= cut else None
