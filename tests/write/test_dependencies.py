"""Generated functions are ordered by the record fields they read and write."""

from __future__ import annotations

import textwrap

import pytest

from recursive_cleaner.write.dependencies import (
    DependencyCycleError,
    FieldAccess,
    field_access,
    order_functions,
)
from recursive_cleaner.errors import CleanerError


def fn(name: str, body: str, param: str = "record") -> dict:
    code = (
        f"def {name}({param}):\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
        + "\n"
    )
    return {"name": name, "code": code, "docstring": ""}


def names(functions: list[dict]) -> list[str]:
    return [f["name"] for f in functions]


def access(body: str, param: str = "record") -> FieldAccess:
    f = fn("f", body, param)
    return field_access(f["code"], "f")


MAKE_DIGITS = fn(
    "normalize_phone",
    '''
    """Digits of the phone number."""
    phone = record.get("phone")
    record["phone_digits"] = re.sub(r"\\D", "", phone or "")
    return record
''',
)
USE_DIGITS = fn(
    "phone_country",
    """
    digits = record["phone_digits"]
    record["country"] = "US" if digits.startswith("1") else "other"
    return record
""",
)


# --- field_access ---------------------------------------------------------------------------------


def test_example_from_the_generator():
    got = field_access(MAKE_DIGITS["code"], "normalize_phone")
    assert got == FieldAccess(reads=frozenset({"phone"}), writes=frozenset({"phone_digits"}))
    assert got.in_place == frozenset()


def test_subscript_get_in_and_not_in_are_reads():
    got = access("""
        a = record["a"]
        b = record.get("b", "")
        if "c" in record and "d" not in record:
            pass
        return record
    """)
    assert got.reads == {"a", "b", "c", "d"} and got.writes == frozenset()


def test_pop_setdefault_and_augmented_assignment_read_and_write():
    got = access("""
        record.pop("old", None)
        record.setdefault("country", "US")
        record["count"] += 1
        return record
    """)
    assert got.reads == {"old", "country", "count"}
    assert got.writes == {"old", "country", "count"}
    assert got.in_place == {"old", "country", "count"}


def test_assignment_del_and_update_are_writes():
    got = access("""
        record["a"] = 1
        del record["b"]
        record.update({"c": 1, "d": 2})
        record.update(e=5)
        return record
    """)
    assert got.writes == {"a", "b", "c", "d", "e"} and got.reads == frozenset()


def test_nested_assignment_updates_the_outer_field():
    got = access("""
        record["address"]["city"] = record["address"]["city"].title()
        return record
    """)
    assert got.in_place == {"address"}


@pytest.mark.parametrize(
    "alias_line",
    [
        "r = record",
        "r = dict(record)",
        "r = record.copy()",
        "r = copy.deepcopy(record)",
        "r = {**record}",
    ],
)
def test_aliases_and_copies_are_followed(alias_line):
    got = access(f"""
        {alias_line}
        s = r
        s["b"] = r.get("a")
        return s
    """)
    assert got == FieldAccess(reads=frozenset({"a"}), writes=frozenset({"b"}))


def test_record_rebound_to_a_copy_of_itself():
    got = access("""
        record = dict(record)
        record["status"] = closest_value(record.get("status"), ["a", "b"])
        return record
    """)
    assert got.in_place == {"status"}


def test_returned_new_dict_writes_its_keys():
    got = access("""
        return {**record, "full_name": record["first"] + " " + record["last"]}
    """)
    assert got == FieldAccess(reads=frozenset({"first", "last"}), writes=frozenset({"full_name"}))
    assert access('out = {**record, "x": 1}\nreturn out').writes == {"x"}
    assert access("return dict(record, y=2)").writes == {"y"}


def test_other_names_and_dynamic_keys_are_ignored():
    got = access("""
        other = {"a": 1}
        other["b"] = 2
        key = "c"
        record[key] = record.get(key)
        for k, v in record.items():
            record[k] = v
        return record
    """)
    assert got == FieldAccess()


def test_record_parameter_name_and_function_choice():
    assert access('row["x"] = 1\nreturn row', param="row").writes == {"x"}
    code = 'def helper(d):\n    d["h"] = 1\n\ndef main(rec):\n    rec["m"] = 1\n    return rec\n'
    assert field_access(code, "main").writes == {"m"}
    assert field_access(code).writes == {"h"}  # no name: the first def
    assert field_access(code, "absent").writes == {"h"}


@pytest.mark.parametrize(
    "code", ["def broken(record:\n    return record", "", "x = 1", "def f():\n    return 1", "\x00"]
)
def test_unparsable_or_functionless_code_means_no_access(code):
    assert field_access(code) == FieldAccess()


# --- order_functions ------------------------------------------------------------------------------


def test_reader_runs_after_the_function_creating_its_field():
    assert names(order_functions([USE_DIGITS, MAKE_DIGITS])) == ["normalize_phone", "phone_country"]
    assert names(order_functions([MAKE_DIGITS, USE_DIGITS])) == ["normalize_phone", "phone_country"]


def test_independent_functions_keep_generation_order():
    functions = [
        fn(f"f{i}", f'record["out{i}"] = record.get("in{i}")\nreturn record') for i in range(5)
    ]
    assert order_functions(functions) == functions


def test_in_place_normalisers_of_one_field_keep_generation_order():
    strip = fn("strip_name", 'record["name"] = record["name"].strip()\nreturn record')
    title = fn("title_name", 'record["name"] = record["name"].title()\nreturn record')
    assert names(order_functions([title, strip])) == ["title_name", "strip_name"]
    assert names(order_functions([strip, title])) == ["strip_name", "title_name"]


def test_consumer_runs_after_in_place_normaliser():
    use = fn("greeting", 'record["greeting"] = "Hi " + record["name"]\nreturn record')
    norm = fn("title_name", 'record["name"] = record["name"].title()\nreturn record')
    assert names(order_functions([use, norm])) == ["title_name", "greeting"]


def test_three_function_chain_reversed_is_sorted():
    a = fn("a", 'record["x"] = record.get("raw")\nreturn record')
    b = fn("b", 'record["y"] = record["x"]\nreturn record')
    c = fn("c", 'return {**record, "z": record.get("y")}')
    assert names(order_functions([c, b, a])) == ["a", "b", "c"]


def test_only_the_dependent_function_moves():
    a = fn("a", 'record["p"] = 1\nreturn record')
    reader = fn("reader", 'record["q"] = record["late"]\nreturn record')
    b = fn("b", 'record["r"] = 1\nreturn record')
    late = fn("late", 'record["late"] = 1\nreturn record')
    assert names(order_functions([a, reader, b, late])) == ["a", "b", "late", "reader"]


def test_unparsable_function_keeps_its_place():
    bad = {"name": "bad", "code": "def bad(record:\n"}
    assert names(order_functions([USE_DIGITS, bad, MAKE_DIGITS])) == [
        "bad",
        "normalize_phone",
        "phone_country",
    ]


def test_empty_list():
    assert order_functions([]) == []


def test_cycle_raises_with_names_and_fields():
    first = fn("first", 'record["y"] = record["x"]\nreturn record')
    second = fn("second", 'record["x"] = record["y"]\nreturn record')
    independent = fn("independent", 'record["z"] = 1\nreturn record')
    with pytest.raises(DependencyCycleError) as info:
        order_functions([independent, first, second])
    err = info.value
    assert isinstance(err, CleanerError)
    assert err.cycle == ["first", "second", "first"]
    assert err.fields == ["x", "y"]
    message = str(err)
    assert (
        "first -> second -> first" in message
        and "x, y" in message
        and "generation order" in message
    )


def test_cycle_is_found_behind_a_blocked_function():
    a = fn("a", 'record["b_in"] = record["c_out"]\nreturn record')
    b = fn("b", 'record["c_in"] = record["b_in"]\nreturn record')
    c = fn("c", 'record["c_out"] = record["c_in"]\nreturn record')
    downstream = fn("downstream", 'record["done"] = record["c_out"]\nreturn record')
    with pytest.raises(DependencyCycleError) as info:
        order_functions([downstream, a, b, c])
    assert info.value.cycle == ["a", "b", "c", "a"]
