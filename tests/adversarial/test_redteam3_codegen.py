"""Issue 43, critical: a name from the data that reaches generated code cannot write code.

Before (main at e9a9118): a field name holding a line break escaped the ``# describe()`` comment
of the cross-row block and wrote top-level code (``os.system(...)``) into
``cleaning_functions.py``; importing the file or ``apply --trusted`` ran it. Sandboxed apply
refused the file, so the planned step was silently lost, and the final render was written although
its own sandbox check had failed. Now every comment goes through ``escape.code_comment``, the
written file is compared statement by statement with what was rendered, a function name is only
ever a Python name its code defines, and a file that fails its own check is never written.
"""

from __future__ import annotations

import ast
import json

import pytest

from recursive_cleaner.errors import OutputValidationError, StateFileError
from recursive_cleaner.escape import code_comment
from recursive_cleaner.profiling.focus import function_name
from recursive_cleaner.write.module import check_structure, render_module, write_output
from recursive_cleaner.write.state import load_state

PAYLOADS = [
    "city\nimport os\nos.system('touch PWNED')\n#",
    "city\r\nimport os; os.system('x')",
    "city\rimport os",
    "city\u2028import os",
    "city\x85import os",
    "city\x0cimport os",
    "city\x00\nimport os",
]

FUNC = {
    "name": "fix_city",
    "docstring": "d",
    "code": "def fix_city(record):\n    return record\n",
}


def _step(field: str) -> dict:
    return {
        "kind": "majority",
        "key": ["id"],
        "fields": [field],
        "min_share": 0.5,
        "min_count": 2,
    }


def _top_level(source: str) -> list[str]:
    tree = ast.parse(source)
    return [type(n).__name__ + ":" + getattr(n, "name", "") for n in tree.body]


@pytest.mark.parametrize("field", PAYLOADS)
def test_field_name_with_line_breaks_stays_inside_its_comment(field):
    source = render_module([FUNC], cross_row=[_step(field)])
    tops = _top_level(source)
    # the docstring, the function, clean_data, CROSS_ROW_STEPS, clean_dataset: nothing else
    assert tops == [
        "Expr:",
        "FunctionDef:fix_city",
        "FunctionDef:clean_data",
        "Assign:",
        "FunctionDef:clean_dataset",
    ], tops
    # the step keeps its real field name, as data
    steps = next(
        ast.literal_eval(n.value) for n in ast.parse(source).body if isinstance(n, ast.Assign)
    )
    assert steps[0]["fields"] == [field]
    check_structure(source, [FUNC], mode="structured", cross_row=[_step(field)])


@pytest.mark.parametrize("field", PAYLOADS)
def test_written_file_holds_no_code_from_a_field_name(tmp_path, field):
    out = tmp_path / "cleaning_functions.py"
    result = write_output([FUNC], str(out), cross_row=[_step(field)], check=lambda s: None)
    assert result.written == ["fix_city"]
    tree = ast.parse(out.read_text())
    assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body)
    assert not any(isinstance(n, ast.Expr) for n in tree.body[1:])


def test_code_comment_is_one_line_whatever_it_is_given():
    for text in PAYLOADS + ["a\n" * 500]:
        line = code_comment(text)
        assert "\n" not in line and "\r" not in line
        assert ast.parse("# " + line).body == []


def test_a_file_failing_its_own_sandbox_check_is_never_written(tmp_path):
    out = tmp_path / "cleaning_functions.py"
    calls = []

    def check(source):
        calls.append(source)
        return "the import failed in the sandbox"

    with pytest.raises(OutputValidationError, match="fails its own check"):
        write_output([FUNC], str(out), check=check, cross_row=[_step("city")])
    assert not out.exists()
    # the same text is checked once, however often the selection asks
    assert len(calls) == len(set(calls))


def test_the_written_file_must_be_what_was_rendered(monkeypatch, tmp_path):
    from recursive_cleaner.write import module

    real = module._cross_row_block
    monkeypatch.setattr(
        module, "_cross_row_block", lambda steps: real(steps) + "\n\nimport os\nos.getcwd()\n"
    )
    out = tmp_path / "cleaning_functions.py"
    with pytest.raises(OutputValidationError, match="other statements"):
        write_output([FUNC], str(out), cross_row=[_step("city")])
    assert not out.exists()


@pytest.mark.parametrize(
    "name", ["fix_city(record)\nimport os\nos.system('x')\n#", "fix city", "", "other_name"]
)
def test_a_function_name_that_is_not_its_defined_python_name_is_left_out(tmp_path, name):
    out = tmp_path / "cleaning_functions.py"
    result = write_output([dict(FUNC, name=name)], str(out))
    assert result.written == []
    assert result.rejected and "not a function its code defines" in result.rejected[0][1]
    assert not any(isinstance(n, ast.Import) for n in ast.parse(out.read_text()).body)


def test_functions_reordered_writers_first_pass_the_structure_check(tmp_path):
    reader = (
        "def flag(record):\n    record = dict(record)\n    record['f'] = record.get('d')\n    "
        "return record\n"
    )
    writer = (
        "def add_d(record):\n    record = dict(record)\n    record['d'] = 1\n    return record\n"
    )
    functions = [{"name": "flag", "code": reader}, {"name": "add_d", "code": writer}]
    out = tmp_path / "cleaning_functions.py"
    result = write_output(functions, str(out))
    assert result.written == ["add_d", "flag"]  # the writer first


def test_render_refuses_a_name_that_is_not_a_python_name():
    with pytest.raises(OutputValidationError, match="is no name"):
        render_module([dict(FUNC, name="x)\nimport os\n#")])


def test_a_state_file_whose_function_name_is_code_is_refused(tmp_path):
    state = {
        "version": "0.2.0",
        "file_path": "data.jsonl",
        "instructions": "",
        "chunk_size": 50,
        "last_completed_chunk": 0,
        "functions": [dict(FUNC, name="fix_city(record)\nimport os\n#")],
    }
    p = tmp_path / "state.json"
    p.write_text(json.dumps(state))
    with pytest.raises(StateFileError, match="functions\\[0\\]'s name is not a Python name"):
        load_state(str(p))
    state["functions"] = [FUNC]
    p.write_text(json.dumps(state))
    assert load_state(str(p))["functions"] == [FUNC]


@pytest.mark.parametrize("field", PAYLOADS + ["²", "ﬁle", "名前", "1st"])
def test_function_names_made_from_field_names_are_python_names(field):
    name = function_name(field, set())
    assert name.isidentifier() and name.startswith("fix_")
    assert ast.parse(f"def {name}(record):\n    return record\n").body[0].name == name
