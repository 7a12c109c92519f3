"""The words that keep fields as they are beyond one field's reading (profiling/keep_words.py): a
clause about every field not asked for, a change asked, a list a keep clause points back to."""

from __future__ import annotations

import pytest

from recursive_cleaner.profiling.keep_words import asks_change, leaves_rest, listed
from recursive_cleaner.profiling.mentions import FieldMentions


@pytest.mark.parametrize(
    "clause",
    [
        "Leave all other fields alone.",
        "Leave every other field exactly as it is",
        "The remaining columns stay as they are.",
        "Any other column: unchanged.",
        "Nothing else is ours to edit.",
        "Nothing else should be modified",
        "do not touch anything else, thanks",
        "Please make no changes to the other columns.",
        "The others are fine.",
        "Everything else, leave as it is.",
        "Sort the codes out and keep the rest.",
        "the rest of the table stays untouched",
        "Out of scope: every other column.",  # the reader's own "leave it" words keep too
        "All other columns are read-only",
        "No other column is to be altered in any way.",  # session 16's books memo
    ],
)
def test_a_scope_word_for_the_other_fields_with_a_keep_word_leaves_the_rest(clause):
    assert leaves_rest(clause)


@pytest.mark.parametrize(
    "clause",
    [
        "Leave the codes alone, and correct everything else",
        "Upper-case everything else.",
        "Grade must be A, B or C and nothing else",  # the values, not the fields
        "isbn: they want the 13 digits and nothing else.",  # "want" is no "n't"
        "the current amount should be cents and nothing else",
        "drop the prefix but leave the rest of the code alone",  # the rest of a value
        "nearly every other row says the same",
        "Don't trim the codes but do tidy everything else",
        "Everything else needs a look.",
    ],
)
def test_a_change_asked_of_the_other_fields_or_a_scope_word_about_values_is_no_rest(clause):
    assert not leaves_rest(clause)


def test_a_change_is_a_verb_of_cleaning_or_a_target_no_negation_stands_before():
    assert asks_change("Tidy the grades") and asks_change("the colour should be lower case")
    assert asks_change("size: 12 pcs -> 12") and asks_change("don't trim it, but round it")
    assert not asks_change("don't trim the grades") and not asks_change("nothing here to edit")
    assert not asks_change("the notes should be left as typed")


def test_a_list_of_mentions_is_the_fields_a_keep_clause_points_back_to():
    fields = ["colour", "grade", "depot", "remark", "weight"]
    reader = FieldMentions(fields)
    clause = (
        "The colours, grade letters, depot names and remarks are the warehouse's, so keep them."
    )
    groups = reader.groups(clause)
    assert set(listed(clause, groups, len(groups) - 1)[2]) == {"colour", "grade", "depot", "remark"}
    # the weight is asked to change before the list: the list is not read back
    clause = "Round the weight, the grade letters and the remarks: leave those."
    groups = reader.groups(clause)
    assert listed(clause, groups, len(groups) - 1)[2] == {"remark"}
    # a sentence between two mentions is no list
    clause = "Weights come in grams. The remarks are the drivers'; keep them."
    groups = reader.groups(clause)
    assert listed(clause, groups, len(groups) - 1)[2] == {"remark"}


@pytest.mark.parametrize(
    "text",
    [
        "they want the 13 digits",
        "the current amount should be cents",
        "the front label should be upper case",
    ],
)
def test_a_word_ending_in_nt_is_no_negation(text):
    assert asks_change(text)


@pytest.mark.parametrize(
    "text", ["don't fix it", "don’t fix it", "dont fix it", "we cannot fix it", "it isnt fixed"]
)
def test_a_negation_stands_before_the_change(text):
    assert not asks_change(text)
