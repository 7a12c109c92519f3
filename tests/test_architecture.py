"""The package tree is the pipeline: stage subpackages import only the stages below them, and no
module cycles.

Stages, lowest first (CLAUDE.md draws them): the base modules at the top of the package
(errors, types, _extras, _version, options, the toolkit), then read, profiling, model, crossrow,
write, judge, optimizer, run, the loop (cleaner.py), apply, ui; the package's __init__,
__main__, the contract re-exports (schema, validation, context) and the import path of files
written by 0.2.0 (cross_row) sit on top.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "recursive_cleaner"
BASE = {
    "errors",
    "escape",
    "types",
    "_extras",
    "_version",
    "options",
    "option_spec",
    "given_options",
    "option_table",
    "toolkit",
    "_toolkit_data",
    "_toolkit_dates",
    "_toolkit_text",
    "_toolkit_numbers",
    "_toolkit_units",
}
STAGES = [
    "read",
    "profiling",
    "model",
    "crossrow",
    "write",
    "judge",
    "optimizer",
    "run",
    "cleaner",
    "apply",
    "ui",
]
TOP = {"__init__", "__main__", "schema", "validation", "context", "cross_row"}


def _modules() -> dict[str, Path]:
    """Dotted name under recursive_cleaner (``read.parsers``, ``cleaner``, ``apply``) -> file."""
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(PKG).with_suffix("").parts
        name = (
            ".".join(parts[:-1]) if parts[-1] == "__init__" and len(parts) > 1 else ".".join(parts)
        )
        out[name] = path
    out["backends"] = ROOT / "backends" / "__init__.py"
    for path in (ROOT / "backends").glob("*.py"):
        if path.stem != "__init__":
            out[f"backends.{path.stem}"] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules ``name`` imports (anywhere in the file, TYPE_CHECKING blocks
    included)."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    if name == "__init__":
        here = []
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                module = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("recursive_cleaner"):
                module = (
                    node.module[len("recursive_cleaner.") :]
                    if node.module != "recursive_cleaner"
                    else ""
                )
            else:
                continue
            names = [f"{module}.{a.name}" if module else a.name for a in node.names]
            # "from X import sub" imports the module X.sub; "from X import name" imports X (root:
            # __init__)
            targets = names + ([module or "__init__"] if any(n not in known for n in names) else [])
        elif isinstance(node, ast.Import):
            targets = [
                a.name[len("recursive_cleaner.") :]
                for a in node.names
                if a.name.startswith("recursive_cleaner.")
            ]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def _rank(module: str) -> int:
    head = module.split(".")[0]
    if head in BASE or head == "backends":
        return 0
    if head in STAGES:
        return 1 + STAGES.index(head)
    assert head in TOP, (
        f"recursive_cleaner.{module} is in no stage: put it in a stage package or BASE"
    )
    return len(STAGES) + 1


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: _imports(name, path, set(mods)) for name, path in mods.items()}


def test_no_stage_imports_a_stage_above_it():
    upward = []
    for name, deps in _graph().items():
        for dep in deps:
            if _rank(dep) > _rank(name):
                upward.append(f"{name} -> {dep}")
    assert not upward, "imports that point up the stage order:\n" + "\n".join(sorted(upward))


def test_no_import_cycles_between_modules():
    graph = _graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep) :] + [dep])
            elif dep not in state:
                visit(dep, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_backends_is_no_top_level_package_and_knows_nothing_of_the_cleaner():
    import recursive_cleaner.backends as backends

    assert Path(backends.__file__).resolve().parent == ROOT / "backends"
    for name, deps in _graph().items():
        if name.startswith("backends"):
            assert all(d.startswith("backends") for d in deps), (name, deps)


def test_every_stage_folder_is_a_package_the_install_lists():
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in PKG.rglob("__init__.py")}
    # a folder not listed is missing from a wheel
    assert listed == folders | {"recursive_cleaner.backends"}
    assert {p.name for p in PKG.iterdir() if (p / "__init__.py").exists()} == set(STAGES) - {
        "cleaner"
    }


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_a_users_own_backends_package_does_not_shadow_ours(tmp_path):
    """A project with its own backends/ (a common name): the CLI starts and a backend string
    resolves."""
    (tmp_path / "backends").mkdir()
    (tmp_path / "backends" / "__init__.py").write_text("MINE = True\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # the library from this checkout; the user's folder comes first (cwd)
    env["PYTHONPATH"] = str(ROOT)
    helped = subprocess.run(
        [sys.executable, "-m", "recursive_cleaner", "--help"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert helped.returncode == 0 and "generate" in helped.stdout, helped.stderr
    script = textwrap.dedent("""
        import backends
        from recursive_cleaner.run.setup import resolve_backend
        backend = resolve_backend("openai:some-model@http://127.0.0.1:9/v1")
        print(backends.MINE, type(backend).__module__)
    """)
    resolved = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert resolved.returncode == 0, resolved.stderr
    assert resolved.stdout.split() == ["True", "recursive_cleaner.backends.openai_compat"]


def test_no_module_imports_another_modules_private_names():
    """A name shared between modules is in the defining module's __all__ (the toolkit's private
    helpers aside)."""
    found = []
    for path in PKG.rglob("*.py"):
        if path.stem == "toolkit" or path.stem.startswith("_toolkit_"):
            # toolkit.py and its _toolkit_* helpers are loaded together, by path, in the sandbox
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").startswith("recursive_cleaner")
            ):
                found += [
                    f"{path.relative_to(PKG)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert not found, "\n".join(found)


def test_every_module_declares_its_api():
    missing = [
        str(p.relative_to(PKG))
        for p in PKG.rglob("*.py")
        if p.stem != "__main__"
        and "__all__" not in p.read_text(encoding="utf-8")
        and p.read_text(encoding="utf-8").strip().count("\n") > 3
    ]
    assert not missing, missing


PUBLIC_UNDERSCORE = {"_exit", "_replace", "_asdict", "_fields", "_make", "_field_defaults"}
"""Leading-underscore names the standard library documents as public (os._exit, namedtuple's)."""

THIRD_PARTY_PRIVATE = {
    ("apply/frames.py", "_meta"): "dask's DataFrame._meta, the empty frame of its dtypes",
    ("read/formats/table_writers.py", "_writer"): "openpyxl's write-only sheet: its temporary file",
}
"""Another library's private attribute read on purpose, each with why (none of them is ours)."""


def _defined_here(tree: ast.AST) -> set[str]:
    """The names a module defines itself: functions, classes, names and attributes it assigns."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _private_reads(path: Path, root: Path) -> list[str]:
    """``obj._name`` where obj is not self/cls and the module defines no ``_name`` (another's)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    mine, where = _defined_here(tree), path.relative_to(root).as_posix()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__") or name.endswith("_"):
            continue  # public, a dunder, or a protocol name such as _repr_html_
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        if name in mine or name in PUBLIC_UNDERSCORE or (where, name) in THIRD_PARTY_PRIVATE:
            continue
        found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_reads_another_objects_private_attributes():
    """``other._x`` only where the module defines ``_x`` itself (its own class's), not another's."""
    found = [hit for path in sorted(PKG.rglob("*.py")) for hit in _private_reads(path, PKG)]
    for path in sorted((ROOT / "backends").glob("*.py")):
        found += _private_reads(path, ROOT)
    assert not found, "\n".join(found)


def test_the_private_attribute_check_finds_a_read_of_another_modules_private_name(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "class A:\n    def f(self, other):\n        self._mine = other._mine\n"
        "        return (other._theirs, self._x, os._exit, rec._replace(a=1),\n"
        "                obj._repr_html_())\n"
    )
    assert [hit.split(": ", 1)[1] for hit in _private_reads(module, tmp_path)] == ["other._theirs"]


# Whole-library tests that belong to no one module: the docs, the packaging, the style, end to end.
CROSS_CUTTING = {
    "test_api",
    "test_architecture",
    "test_docs",
    "test_packaging",
    "test_style",
    "test_do_no_harm",
    "test_e2e_real_model",
    "test_examples_e2e",
    "test_file_modes",
    "test_first_minutes",
    "test_notebook_example",
}


def test_the_tests_mirror_the_package_tree():
    """tests/<stage>/test_<module>.py: a folder per stage; at the top only the root modules'
    tests."""
    stages = {p.name for p in PKG.iterdir() if (p / "__init__.py").exists()} | {"backends"}
    others = {"adversarial", "bench", "data"}  # attacks on every stage, bench/ scripts, fixtures
    tests = ROOT / "tests"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert folders <= stages | others, folders - stages - others
    roots = {p.stem for p in PKG.glob("*.py")}
    for path in tests.glob("test_*.py"):
        module = path.stem[len("test_") :]
        assert path.stem in CROSS_CUTTING or any(module.startswith(r) for r in roots), path.name
