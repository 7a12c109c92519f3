"""The gate holds every function to the goals' examples (judge/gate.py): fed through the accepted
functions, then it."""

from __future__ import annotations

from recursive_cleaner.judge.gate import Gate
from recursive_cleaner.judge.verdict import ChunkView
from recursive_cleaner.model.response import ParsedResponse
from recursive_cleaner.profiling.focus import FieldFocus

GOALS = 'price: a plain number, "1,5 k" -> 1500. name: Title Case.'
ROWS = [
    {"price": p, "name": n}
    for p, n in zip(["1,5 k", "12", "3,50", "7"], ["ann lee", "Bo Wu", "cy ray", "Di Ax"])
]


def _gate() -> Gate:
    focus = FieldFocus()
    focus.learn(GOALS, ["price", "name"], {f: [r[f] for r in ROWS] for f in ("price", "name")})
    assert focus.spec.fields["price"].examples == (("1,5 k", "1500"),)
    return Gate(focus, chunk=ChunkView(list(ROWS), raw=list(ROWS)))


def _fn(name: str, body: str) -> ParsedResponse:
    code = (
        "from recursive_cleaner.toolkit import to_number, title_case_name\n\n\ndef "
        f"{name}(record):\n"
        f"    record = dict(record)\n{body}    return record\n"
    )
    return ParsedResponse(name=name, docstring="", code=code)


PLAIN = _fn("fix_price", "    record['price'] = to_number(record.get('price'))\n")
THOUSANDS = _fn(
    "fix_price",
    "    v = record.get('price')\n"
    "    k = isinstance(v, str) and v.endswith(' k')\n"
    "    record['price'] = to_number(v[:-2]) * 1000 if k else to_number(v)\n",
)


def test_a_function_for_the_field_must_map_each_example():
    gate = _gate()
    target = gate.focus.next(ROWS)
    assert target.field == "price"
    refused = gate.check(PLAIN, ROWS, [], target)
    assert (
        "goals' examples" in refused.problem
        and "'1,5 k' should become '1500', it gives '1,5 k'" in refused.problem
    )
    assert gate.check(THOUSANDS, ROWS, [], target).problem is None


def test_a_function_for_another_field_may_leave_the_example_field_but_not_break_it():
    gate = _gate()
    name = gate.focus.profile(ROWS)["name"]
    titles = _fn("fix_name", "    record['name'] = title_case_name(record.get('name'))\n")
    # price left as it came: not its field
    assert gate.check(titles, ROWS, [], name).problem is None
    spoils = _fn(
        "fix_name",
        "    record['name'] = title_case_name(record.get('name'))\n"
        "    record['price'] = 0 if record.get('price') == '1,5 k' else record.get('price')\n",
    )
    # an open pass
    assert "'1,5 k' should become '1500', it gives 0" in gate.check(spoils, ROWS, [], None).problem


def test_examples_are_fed_through_the_accepted_functions_first():
    gate = _gate()
    accepted = [{"name": "fix_price", "code": THOUSANDS.code, "docstring": "", "field": "price"}]
    view = gate.apply(accepted, ROWS)
    assert view[0]["price"] == 1500.0
    nulls = _fn(
        "fix_price_2",
        "    record['price'] = None if record.get('price') == 'N/A' else record.get('price')\n",
    )
    rows = view + [{"price": "N/A", "name": "Ed Oh"}]
    gate.see(ChunkView(rows, raw=ROWS + [{"price": "N/A", "name": "Ed Oh"}]))
    target = gate.focus.profile(rows)["price"]
    assert gate.check(nulls, rows, accepted, target).problem is None  # 1500 handed on, kept
