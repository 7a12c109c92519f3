"""The ``words`` cross-row kind: a rare misspelled word inside a field's values becomes the word the
field spells that way many times, in the same place; a rare right word is left alone."""

from __future__ import annotations

import json
from collections import Counter

from recursive_cleaner.apply.cross_row import step_label
from recursive_cleaner.apply.dask_fit import merge_summaries
from recursive_cleaner.apply.local import apply_file
from recursive_cleaner.crossrow.kinds import words as words_module
from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps, fit, summarize
from recursive_cleaner.crossrow.validate import validate_steps
from recursive_cleaner.write.module import render_module

STEP = CrossRowStep("words", fields=("sample", "name"))
TYPOS = {5: "5 pasrengets", 23: "23 passengehs", 40: "40 passenger"}


def rows(n: int = 90) -> list[dict]:
    """Counts of passengers (the word repeats, the numbers vary) and names repeated per customer."""
    names = ("John Baker", "Mary Stone", "Paul Green")
    out = [{"id": k, "sample": f"{k} passengers", "name": names[k % 3]} for k in range(n)]
    for k, typo in TYPOS.items():
        out[k]["sample"] = typo
    out[7]["name"] = "Joan Baker"  # a customer seen once: a name, not a typo of John
    return out


def test_a_misspelled_word_becomes_the_word_the_field_spells_often():
    data = rows()
    fitted = fit([STEP], data)
    out = [fitted.transform(r) for r in data]
    assert out[5]["sample"] == "5 passengers"  # two letters of ten
    assert out[23]["sample"] == "23 passengers"  # one letter
    assert out[40]["sample"] == "40 passenger"  # another length: not a misspelling
    assert fitted.changed == Counter({(0, "sample"): 2})
    assert [o for k, o in enumerate(out) if k not in (5, 23)] == [
        r for k, r in enumerate(data) if k not in (5, 23)
    ]


def test_the_rest_of_the_value_is_kept_character_for_character():
    data = [{"v": f"n={k}, {k} passengers  (est.)"} for k in range(30)]
    data[4]["v"] = "n=4, 4 passengqrs  (est.)"
    out = apply_steps([CrossRowStep("words", fields=("v",))], data)
    assert out[4]["v"] == "n=4, 4 passengers  (est.)"


def test_a_name_seen_once_is_left_alone():
    # "Joan" is one letter from "John", which the field spells 30 times before "Baker"; but at the
    # start of a name John is one first name of three: the place does not say it must be John
    out = apply_steps([STEP], rows())
    assert out[7]["name"] == "Joan Baker"


def test_a_field_whose_words_do_not_repeat_is_left_alone():
    first = ["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Hugo", "Ilaria"]
    data = [{"name": f"{first[k % 9]} {chr(65 + k % 26)}{k:03d}son"} for k in range(200)]
    data += [{"name": "Anna Bxrtolini"}] * 20 + [{"name": "Anna Bertolini"}] * 1
    assert words_module.word_fixes(_counts(data, "name"), 2) == ({}, 0)
    assert apply_steps([CrossRowStep("words", fields=("name",))], data) == data


def test_two_close_words_the_field_spells_often_are_ambiguous():
    data = [{"v": f"{k} card"} for k in range(40)] + [{"v": f"{k} care"} for k in range(40)]
    data.append({"v": "3 carp"})
    assert apply_steps([CrossRowStep("words", fields=("v",))], data)[-1]["v"] == "3 carp"


def test_short_words_case_alone_and_words_out_of_place_are_left_alone():
    data = [{"v": f"{k} red apples"} for k in range(60)]
    data += [{"v": "3 rod apples"}, {"v": "4 red Apples"}, {"v": "apqles 5"}]
    out = apply_steps([CrossRowStep("words", fields=("v",))], data)
    # three letters: too short; a capital: case alone; after nothing and before a number: not
    # where the field writes "apples"
    assert [r["v"] for r in out[-3:]] == ["3 rod apples", "4 red Apples", "apqles 5"]


def test_a_rare_neighbour_says_nothing_but_one_side_must_speak():
    data = [{"v": "acute care unit"} for _ in range(50)] + [{"v": "critical access unit"}] * 10
    data += [{"v": "acutq cyre unit"}, {"v": "cyre"}]
    out = apply_steps([CrossRowStep("words", fields=("v",))], data)
    # "acutq": the start says acute, "cyre" next to it says nothing; "cyre": "unit" says care
    assert out[-2]["v"] == "acute care unit"
    assert out[-1]["v"] == "cyre"  # alone: no word of four letters starts or ends a value here


def test_a_protected_field_is_never_written():
    step = CrossRowStep("words", fields=("sample",), protected=("sample",))
    assert apply_steps([step], rows()) == rows()
    kept, refused = validate_steps(
        [CrossRowStep("words", fields=("sample",))], rows(), protected={"sample"}
    )
    assert kept == [] and "leave as it is" in refused[0][1]


def test_summaries_of_parts_merge_into_the_whole_files_fit(monkeypatch):
    data = rows(300)
    whole = fit([STEP], data)
    parts = [summarize([STEP], data[k : k + 41]) for k in range(0, 300, 41)]
    merged = merge_summaries([STEP], *parts).fitted()
    assert merged.fits == whole.fits and merged.fits[0].by_triple
    assert [merged.transform(r) for r in data] == [whole.transform(r) for r in data]
    # past the cap of distinct (left, word, right): the field is left alone, whole or in parts
    monkeypatch.setattr(words_module, "MAX_TRIPLES", 3)
    whole = fit([STEP], data)
    parts = [summarize([STEP], data[k : k + 41]) for k in range(0, 300, 41)]
    merged = merge_summaries([STEP], *parts).fitted()
    assert merged.fits == whole.fits and not whole.fits[0].by_triple
    assert merged.left_alone == whole.left_alone == Counter({(0, "sample"): 1, (0, "name"): 1})


def test_apply_writes_the_fix_and_its_audit_row(tmp_path):
    step = CrossRowStep("words", fields=("sample",))
    assert step_label(3, step) == "cross_row[3]:words(sample)"
    path = tmp_path / "cleaning_functions.py"
    path.write_text(render_module([], cross_row=[step.to_dict()]))
    assert "# in sample, replace a rare word by the word" in path.read_text()
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows()))
    result = apply_file(
        str(path),
        str(source),
        str(tmp_path / "out.jsonl"),
        workers=1,
        audit_path=str(tmp_path / "audit.jsonl"),
    )
    label = "cross_row[0]:words(sample)"
    assert result.cross_row_changed == {label: {"sample": 2}}
    audit = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [(a["row"], a["old"], a["new"]) for a in audit if a["step"] == label] == [
        (5, "5 pasrengets", "5 passengers"),
        (23, "23 passengehs", "23 passengers"),
    ]


def _counts(records: list[dict], fld: str) -> words_module.WordCounts:
    summary = summarize([CrossRowStep("words", fields=(fld,))], records)
    return summary.counts[0][fld]
