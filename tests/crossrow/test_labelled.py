"""The user's corrected rows and a named authority in the cross-row steps (crossrow/labelled.py,
kinds/labels.py, truth.py's known cells): the labelled rows keep their values, their cells fix the
truth of their entity and anchor each source's accuracy, and an authority wins where it reports."""

from __future__ import annotations

import pytest

from recursive_cleaner.crossrow.labelled import label_breaks, label_passes, with_labels
from recursive_cleaner.crossrow.steps import CrossRowStep, apply_steps, fit
from recursive_cleaner.crossrow.xml_form import parse_steps
from recursive_cleaner.profiling.spec import load_spec
from recursive_cleaner.run.review import plan_lines

VOTE = CrossRowStep("majority", key=("item",), fields=("price",), weight_by=("src",))


def echoing(entities: int = 40, wrong: int = 30) -> list[dict]:
    """Three sources per item: ``good`` always right; ``echo1`` and ``echo2`` give the same wrong
    price for the first ``wrong`` items (a bloc), the right one for the rest."""
    rows, n = [], 0
    for i in range(entities):
        for src in ("good", "echo1", "echo2"):
            n += 1
            bad = src != "good" and i < wrong
            rows.append(
                {"id": n, "src": src, "item": f"good-{i}", "price": f"{i}.{5 if bad else 0}"}
            )
    return rows


def right(rows: list[dict]) -> int:
    return sum(r["price"] == f"{r['item'].split('-')[1]}.0" for r in rows)


def labels_for(rows: list[dict], items: range) -> list[dict]:
    """The corrected copies of echo1's rows of ``items``."""
    return [
        {**r, "price": f"{r['item'].split('-')[1]}.0"}
        for r in rows
        if r["src"] == "echo1" and int(r["item"].split("-")[1]) in items
    ]


def test_zero_labels_pick_the_bloc_and_five_labels_flip_the_rest():
    rows = echoing()
    zero = apply_steps([VOTE], rows)
    assert right(zero) == 30  # only the ten items every source agrees on
    labelled = labels_for(rows, range(5))
    steps = with_labels([VOTE], labelled, "id")
    assert [s.kind for s in steps] == ["majority", "labels"]
    fitted = fit(steps, rows)
    out = [fitted.transform(r) for r in rows]
    assert right(out) == len(rows)  # every item, the 25 unlabelled bloc items too
    state = fitted.fits[0]
    assert state.accuracy["good"] > state.accuracy["echo1"]
    unlabelled = [o for o in out if int(o["item"].split("-")[1]) >= 5]
    assert right(unlabelled) == len(unlabelled)


def test_a_labelled_row_keeps_the_users_values_whatever_the_steps_wrote():
    rows = echoing(entities=4, wrong=0)
    label = {**rows[4], "price": "99.9", "src": "good"}  # the user's word, against every source
    out = apply_steps(with_labels([VOTE], [label], "id"), rows)
    assert out[4] == {**rows[4], "price": "99.9", "src": "good"}
    assert all(o["price"] == "99.9" for o in out if o["item"] == "good-1")  # its item's truth
    assert out[0] == rows[0]


def test_a_plain_vote_takes_the_labelled_value_as_its_groups_winner():
    rows = [
        {"id": i, "k": "a" if i < 4 else "b", "v": "x" if i in (1, 2) else "y"} for i in range(8)
    ]
    plain = CrossRowStep("majority", key=("k",), fields=("v",))
    assert {r["v"] for r in apply_steps([plain], rows) if r["k"] == "a"} == {"y", "x"}  # a tie
    steps = with_labels([plain], [{"id": 1, "k": "a", "v": "x"}], "id")
    out = apply_steps(steps, rows)
    assert [r["v"] for r in out if r["k"] == "a"] == ["x"] * 4
    assert [r["v"] for r in out if r["k"] == "b"] == ["y"] * 4


def test_an_authority_from_the_spec_wins_where_it_reports_and_is_shown():
    spec = load_spec(
        {
            "fields": {"item": {}, "src": {}, "price": {}},
            "authority": {"source": "src", "rule": "key_first_part"},
        }
    )
    assert spec.to_dict()["authority"] == {"source": "src", "rule": "key_first_part"}
    assert load_spec(spec.to_dict()).authority == spec.authority
    assert any("authority" in line for line in plan_lines(spec))
    assert any("authority" in line for line in spec.summary())
    rows = echoing()
    (step,) = with_labels([VOTE], authority=spec.authority)
    assert step.authority == ("key_first_part",) and "wins where it reports" in step.describe()
    assert right(apply_steps([step], rows)) == len(rows)
    named = load_spec(
        {"fields": {"src": {}}, "authority": {"source": "src", "rule": "equals", "name": "echo2"}}
    )
    (step,) = with_labels([VOTE], authority=named.authority)
    assert right(apply_steps([step], rows)) == 30  # the bloc's member named wins
    # a plain vote gets the authority's source as its weight
    (plain,) = with_labels(
        [CrossRowStep("majority", key=("item",), fields=("price",))], authority=spec.authority
    )
    assert plain.weight_by == ("src",) and right(apply_steps([plain], rows)) == len(rows)


@pytest.mark.parametrize(
    "entry, why",
    [
        ({"source": "src", "rule": "loudest"}, "authority must be"),
        ({"source": "src", "rule": "equals"}, "needs a name"),
        ({"source": "gate", "rule": "key_first_part"}, "not a field of the spec"),
        ("src", "authority must be"),
    ],
)
def test_an_authority_that_cannot_be_used_is_one_line(entry, why):
    with pytest.raises(ValueError, match=why):
        load_spec({"fields": {"src": {}}, "authority": entry})


def test_label_counts_and_a_step_breaking_a_labelled_cell():
    rows = echoing()
    labelled = [(r, dict(r)) for r in rows if r["src"] == "good"][:6]
    # a vote is anchored by the labels: it keeps every labelled cell, plain or weighted
    plain = CrossRowStep("majority", key=("item",), fields=("price",))
    assert label_breaks([plain], rows, labelled, "id") is None
    assert label_breaks([VOTE], rows, labelled, "id") is None
    assert label_passes([VOTE], rows, labelled, "id") == [(6, 6)]
    assert label_passes([plain], [], [], "id") == [(0, 0)]
    # a rare spelling the user says is right: the vocabulary step would make it the common one
    towns = [{"id": i, "town": "Paris"} for i in range(10)] + [{"id": 10, "town": "Pariss"}]
    vocabulary = CrossRowStep("vocabulary", fields=("town",))
    assert apply_steps([vocabulary], towns)[10]["town"] == "Paris"
    why = label_breaks([vocabulary], towns, [(towns[10], dict(towns[10]))], "id")
    assert why == (
        "it turns town 'Pariss' into 'Paris' on a row the user corrected (the label says 'Pariss')"
    )
    assert label_passes([vocabulary], towns, [(towns[10], dict(towns[10]))], "id") == [(0, 1)]


def test_a_labels_step_round_trips_and_a_hand_edited_one_is_refused():
    step = with_labels([], [{"id": 1, "price": "1.0"}], "id")[0]
    assert CrossRowStep.from_dict(step.to_dict()) == step
    assert "rows" not in VOTE.to_dict() and "authority" not in VOTE.to_dict()
    for bad, why in [
        ({"kind": "labels", "key": ["id"], "rows": [{"id": 1, "price": {"x": 1}}]}, "plain values"),
        ({"kind": "labels", "key": ["id"], "rows": "id"}, "list of records"),
        ({"kind": "majority", "key": ["id"], "fields": ["p"], "rows": [{"id": 1}]}, "holds rows"),
        ({"kind": "majority", "key": ["i"], "fields": ["p"], "authority": ["x"]}, "one of"),
        ({"kind": "majority", "key": ["i"], "fields": ["p"], "authority": ["equals"]}, "name"),
        (
            {"kind": "majority", "key": ["i"], "fields": ["p"], "authority": ["key_first_part"]},
            "one weight_by",
        ),
    ]:
        with pytest.raises(ValueError, match=why):
            CrossRowStep.from_dict(bad)


def test_the_model_cannot_plan_a_labels_step():
    steps, problems = parse_steps('<cross_row_step kind="labels" key="id"/>', ["id", "price"])
    assert steps == [] and "the library's own, not planned" in problems[0]
