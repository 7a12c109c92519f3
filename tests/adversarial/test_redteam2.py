"""Issue 28's second red-team pass: hostile goals, spec, state and functions files, and the child's output.

One test per attack, asserting what happens now (the refusal, the one-line error, the bounded
result). The attacks on data files are in ``test_redteam2_data.py``. The table of the pass
(attack, before, now, test) is in the pull request note of issue 28.
"""

from __future__ import annotations

import json
import sys

import pytest

from recursive_cleaner.profiling.instructions import read_goals

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the sandbox is POSIX only")

FIELDS = ["name", "email", "status"]


# ---------------------------------------------------------------------------- hostile goals
# Before: a goals text of one 40,000-character word took 64 s in the parent (a quadratic regex for
# "a | b | c" lists) and 1 MB of short sentences 32 s (each sentence end copied the block before it);
# 100 KB of one word would have taken about 7 minutes. Now both are linear: these return at once.
@pytest.mark.parametrize("goals", ["a" * 100_000, "Lower case. " * 10_000],
                         ids=["one-long-word", "many-sentences"])
def test_goals_with_long_words_or_many_sentences_are_read_in_linear_time(goals):
    readings = read_goals(goals, FIELDS)
    assert set(readings) == set(FIELDS)


def test_a_pipe_list_in_the_goals_is_still_read():
    readings = read_goals("status: active | inactive | banned", FIELDS)
    assert readings["status"].expectation.allowed == ("active", "inactive", "banned")
