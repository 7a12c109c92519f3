"""Issue 46, the sandbox split into a package (judge/sandbox/): the child program is now a script
that imports its own modules from its folder, registered as the package ``_rc_sandbox_child``.
Each test pins what that new surface allows, in the child alone (no AST policy), and what the
policy says before anything runs:

1. the child never imports the real ``recursive_cleaner``: its only ``recursive_cleaner`` modules
   are the toolkit's stub package and the toolkit (test_the_child_holds_no_module_of_the_library);
2. generated code cannot import the child's own modules
   (test_the_childs_own_modules_are_refused_imports);
3. nor store into them to widen what the child allows once it runs
   (test_the_childs_own_modules_refuse_attribute_stores);
4. the child's modules come from the package folder, never from the working directory or a
   search path (test_the_childs_modules_come_from_the_package_folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recursive_cleaner.judge.sandbox import CHILD_PATH, run_in_sandbox
from recursive_cleaner.judge.validation import validate_function

# A module-global gadget chain: object -> os._wrap_close -> the os module's globals (the child
# alone lets it run: the AST policy is what refuses it).
OS_GLOBALS = (
    "[c for c in ().__class__.__mro__[1].__subclasses__() if c.__name__ == '_wrap_close'][0]"
    ".__init__.__globals__"
)
CHILD_MODULES = (
    "_child_freeze",
    "_child_lockdown",
    "_child_main",
    "_child_policy",
    "_child_records",
    "_child_reset",
    "_child_server",
    "_child_setup",
)


def modules_in_the_child() -> list[str]:
    code = f"def clean(r):\n    return sorted({OS_GLOBALS}['sys'].modules)"
    result = run_in_sandbox(code, "clean", [{}])
    assert result.ok, result
    return result.outputs[0]


def test_the_child_holds_no_module_of_the_library():
    names = modules_in_the_child()
    assert [n for n in names if n.split(".")[0] == "recursive_cleaner"] == [
        "recursive_cleaner",
        "recursive_cleaner.toolkit",
    ]
    assert sorted(n for n in names if n.startswith("_rc_sandbox_child")) == [
        "_rc_sandbox_child",
        *(f"_rc_sandbox_child.{m}" for m in CHILD_MODULES),
    ]


@pytest.mark.parametrize(
    "statement",
    [
        "import _rc_sandbox_child._child_policy",
        "from _rc_sandbox_child._child_main import main",
        "import recursive_cleaner.judge.sandbox",
    ],
)
def test_the_childs_own_modules_are_refused_imports(statement):
    code = f"def clean(r):\n    {statement}\n    return r"
    result = run_in_sandbox(code, "clean", [{}])
    assert not result.ok and result.outputs == [None]
    assert result.error.startswith("refused operation: import "), result.error
    ok, message = validate_function(code, [{}], "clean")
    assert not ok and "import of" in message and "safety policy" in message


@pytest.mark.parametrize("name", ["ALLOWED_MODULES", "MAX_OUTPUT_CHARS", "main"])
def test_the_childs_own_modules_refuse_attribute_stores(name):
    modules = f"{OS_GLOBALS}['sys'].modules"
    code = (
        f"def clean(r):\n    m = {modules}['_rc_sandbox_child._child_policy']\n"
        f"    m.{name} = None\n    return r"
    )
    result = run_in_sandbox(code, "clean", [{}])
    assert not result.ok
    assert result.violations == [f"setting the attribute '{name}' of a module"]
    assert result.errors[0].startswith("PermissionError: sandbox: setting the attribute")


def test_the_childs_modules_come_from_the_package_folder(tmp_path, monkeypatch):
    # a look-alike of the child's module in the working directory and on PYTHONPATH is not read
    (tmp_path / "_child_policy.py").write_text("raise SystemExit('planted')\n")
    (tmp_path / "_rc_sandbox_child").mkdir()
    (tmp_path / "_rc_sandbox_child" / "__init__.py").write_text("raise SystemExit('planted')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    modules = f"{OS_GLOBALS}['sys'].modules"
    code = (
        f"def clean(r):\n    mods = {modules}\n"
        "    return [mods[n].__file__ for n in mods if n.startswith('_rc_sandbox_child.')]"
    )
    result = run_in_sandbox(code, "clean", [{}])
    assert result.ok, result
    folder = str(Path(CHILD_PATH).parent)
    assert sorted(Path(f).name for f in result.outputs[0]) == [f"{m}.py" for m in CHILD_MODULES]
    assert all(str(Path(f).parent) == folder for f in result.outputs[0])
