"""Close spellings across rows (crossrow/near.py): what a vocabulary step may map, and what it never
does."""

from __future__ import annotations

from collections import Counter

from recursive_cleaner.crossrow.near import closest_spellings


def test_the_same_letters_cased_or_spaced_otherwise_are_the_frequent_spelling():
    counts = Counter(
        {
            "ALT": 40,
            "A.L.T.": 3,
            " ALT": 2,
            "alt": 2,
            "Glucose": 50,
            "GLUCOSE": 4,
            "Gluocse": 1,
            "AB-12": 30,
            "ab 13": 2,
        }
    )
    fixes, _ = closest_spellings(counts, max_distance=2, ratio=3.0)
    assert {k: fixes[k] for k in ("A.L.T.", " ALT", "alt", "GLUCOSE")} == {
        "A.L.T.": "ALT",
        " ALT": "ALT",
        "alt": "ALT",
        "GLUCOSE": "Glucose",
    }
    assert "ab 13" not in fixes  # other digits: another value


def test_a_variant_about_as_frequent_as_the_other_is_left_alone():
    fixes, _ = closest_spellings(
        Counter({"Potassium": 10, "POTASSIUM": 8}), max_distance=2, ratio=3.0
    )
    assert fixes == {}
