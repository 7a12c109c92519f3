"""Every ```python block of README.md and docs/*.md runs, or, for a signature, matches the code.

* The blocks of one page run in order in one namespace (like notebook cells), in a fresh
  temp dir that holds a copy of ``test_cases/``, ``data.jsonl`` (60 records of the CRM
  sample) and an identity ``cleaning_functions.py``. Every backend string ("local",
  "ollama:...", "openai:...") gives a FakeBackend that answers "clean", so no model loads
  and no network is used. Tracebacks point at the page's own line numbers.
* A *signature block* — ``Name(params)`` that is not a valid call, like
  ``LocalBackend(model_path=None, *, n_ctx=8192)`` — is checked against ``inspect.signature``
  of ``Name`` (looked up in ``backends`` and ``recursive_cleaner``): same parameters, kinds
  and defaults.
* A block whose first line is ``# doc-test: skip <reason>`` is not run. There may be at most
  ``MAX_SKIPPED`` of them, each with a reason, so the number cannot grow silently.
* A missing optional library (pandas, pyarrow, openpyxl, matplotlib, dask) skips the page locally
  and fails it in CI.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes import CLEAN_REPLY, FakeBackend, toolkit_fixer

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MAX_SKIPPED = 0
SKIP_MARK = "# doc-test: skip"
OPTIONAL = {
    "pandas",
    "pyarrow",
    "openpyxl",
    "matplotlib",
    "numpy",
    "dask",
    "distributed",
    "pypdf",
    "docx",
    "pandera",
}
SIGNATURE_HOMES = (
    "recursive_cleaner.backends",
    "recursive_cleaner",
    "recursive_cleaner.ui.frames",
    "recursive_cleaner.apply.local",
    "recursive_cleaner.toolkit",
)
IDENTITY = (
    '"""Stand-in for a generated file (tests/test_docs.py)."""\n\n\ndef clean_data(record):\n    '
    "return record\n"
)
_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```python[ \t]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)
_SIGNATURE = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\((?P<params>.*)\)\s*$", re.S)


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the first code line
    source: str

    @property
    def skipped(self) -> bool:
        return self.source.lstrip().startswith(SKIP_MARK)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        indent = len(match["indent"])
        body = "".join(line[indent:] for line in match["body"].splitlines(keepends=True))
        found.append(Block(page, text.count("\n", 0, match.start("body")) + 1, body))
    return found


ALL_BLOCKS = [b for page in PAGES for b in blocks(page)]


def signature_of(block: Block) -> tuple[str, str] | None:
    """(name, params) when the block is a signature rather than code."""
    try:
        compile(block.source, block.where, "exec")
        return None
    except SyntaxError:
        match = _SIGNATURE.match(block.source)
        return (match["name"], match["params"]) if match else None


def _described(params: str) -> list[tuple[str, str, object]]:
    """(name, kind, default) of each parameter in a documented signature."""
    args = ast.parse(f"def _doc({params}): pass").body[0].args
    out = []
    positional = args.posonlyargs + args.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(args.defaults)) + list(
        args.defaults
    )
    kinds = ["POSITIONAL_ONLY"] * len(args.posonlyargs) + ["POSITIONAL_OR_KEYWORD"] * len(args.args)
    out += [(a.arg, k, d) for a, k, d in zip(positional, kinds, defaults)]
    if args.vararg:
        out.append((args.vararg.arg, "VAR_POSITIONAL", inspect.Parameter.empty))
    out += [
        (a.arg, "KEYWORD_ONLY", d if d is not None else inspect.Parameter.empty)
        for a, d in zip(args.kwonlyargs, args.kw_defaults)
    ]
    if args.kwarg:
        out.append((args.kwarg.arg, "VAR_KEYWORD", inspect.Parameter.empty))
    return [(n, k, d if d is inspect.Parameter.empty else ast.literal_eval(d)) for n, k, d in out]


def check_signature(block: Block, name: str, params: str) -> None:
    homes = [importlib.import_module(m) for m in SIGNATURE_HOMES]
    target = next((getattr(m, name) for m in homes if hasattr(m, name)), None)
    assert target is not None, f"{block.where}: documented signature of unknown {name}"
    actual = [
        (p.name, p.kind.name, p.default) for p in inspect.signature(target).parameters.values()
    ]
    assert _described(params) == actual, (
        f"{block.where}: the documented signature of {name} is out of date"
    )


@pytest.fixture
def doc_env(tmp_path, monkeypatch):
    """A temp working dir with sample data, no real backends, and a clean import of
    cleaning_functions."""
    import recursive_cleaner.backends as backends

    shutil.copytree(ROOT / "test_cases", tmp_path / "test_cases")
    lines = (
        (ROOT / "test_cases" / "crm_customers.jsonl")
        .read_text(encoding="utf-8")
        .splitlines(keepends=True)
    )
    (tmp_path / "data.jsonl").write_text("".join(lines[:60]), encoding="utf-8")
    (tmp_path / "cleaning_functions.py").write_text(IDENTITY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cleaning_functions", raising=False)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("RECURSIVE_CLEANER_CACHE", str(tmp_path / "model-cache"))
    fakes: list[FakeBackend] = []

    def fake_backend(spec: str, **options) -> FakeBackend:
        fakes.append(FakeBackend(default=CLEAN_REPLY))
        return fakes[-1]

    monkeypatch.setattr(backends, "get_backend", fake_backend)
    yield fakes
    sys.modules.pop("cleaning_functions", None)
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_python_blocks_of_a_page_run(page, doc_env):
    namespace: dict = {"__name__": "__doc_test__"}
    for block in blocks(page):
        if block.skipped:
            continue
        signature = signature_of(block)
        if signature is not None:
            check_signature(block, *signature)
            continue
        sys.modules.pop("cleaning_functions", None)  # a block may have just written a new one
        importlib.invalidate_caches()
        code = compile("\n" * (block.line - 1) + block.source, str(page), "exec")
        try:
            exec(code, namespace)
        except ModuleNotFoundError as exc:
            if (exc.name or "").partition(".")[0] not in OPTIONAL or os.environ.get(
                "CI", ""
            ).lower() == "true":
                raise
            pytest.skip(f"{block.where} needs {exc.name}")


def test_skipped_blocks_are_few_and_explained():
    skipped = [b for b in ALL_BLOCKS if b.skipped]
    for block in skipped:
        reason = block.source.lstrip()[len(SKIP_MARK) :].splitlines()[0].strip(" :—-")
        assert len(reason) >= 10, f"{block.where}: say why the block cannot run"
    assert len(skipped) <= MAX_SKIPPED, [b.where for b in skipped]


def test_the_pages_have_code_to_check():
    assert len(ALL_BLOCKS) >= 20 and len([b for b in ALL_BLOCKS if signature_of(b)]) >= 4
    assert {p.name for p in PAGES} >= {
        "README.md",
        "quickstart.md",
        "backends.md",
        "backend-local.md",
        "backend-ollama.md",
        "backend-openai.md",
        "backend-mlx.md",
        "scaling.md",
        "benchmarks.md",
        "formats.md",
        "notebooks.md",
        "events.md",
        "safety.md",
        "function-contract.md",
    }


README_FIXES = {
    "phone": "to_e164(record.get('phone'))",
    "signup_date": "to_iso_date(record.get('signup_date'))",
    "status": "closest_value(record.get('status'), ['active', 'pending', 'churned'])",
}


def test_the_readme_first_example_cleans_with_clean(doc_env, monkeypatch):
    """The README's first block, with a fake that writes toolkit one-liners: the cleaned values it
    prints."""
    import recursive_cleaner.backends as backends

    first = blocks(ROOT / "README.md")[0]
    assert "recursive_cleaner.clean(" in first.source
    fakes = []
    monkeypatch.setattr(
        backends,
        "get_backend",
        lambda spec, **options: fakes.append(FakeBackend(toolkit_fixer(README_FIXES))) or fakes[-1],
    )
    namespace: dict = {"__name__": "__doc_test__"}
    exec(compile("\n" * (first.line - 1) + first.source, "README.md", "exec"), namespace)
    result = namespace["result"]
    assert sorted(result.functions) == ["fix_phone", "fix_signup_date", "fix_status"]
    assert namespace["cleaned"] == [
        {"phone": "+15551234567", "status": "active", "signup_date": "2023-04-06"}
    ]
    import csv

    with open("crm_clean.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert (
        len(rows) == 300
        and rows[1]["status"] == "churned"
        and rows[1]["signup_date"] == "2019-12-02"
    )
    assert rows[0]["phone"] == "+19765775483"


def test_the_readmes_test_command_is_what_ci_runs():
    """The README's second command is the last line of .ci/run, which fails the run on any pytest
    failure."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert blocks[1].strip() == ci.strip().splitlines()[-1]
    assert "set -euo pipefail" in ci and "--upgrade-strategy eager" in blocks[1]


def outside_a_venv(command: str) -> list[str]:
    """The steps of a ``&&`` chain that fail on a current Debian/Ubuntu outside a virtual
    environment (issue 45): a bare ``python`` (there is only ``python3``), or ``pip`` / ``python``
    before a ``python3 -m venv DIR`` made DIR and activated it (PEP 668's
    externally-managed-environment); ``DIR/bin/pip`` / ``DIR/bin/python`` after it are fine."""
    wrong, made, active = [], set(), False
    for step in (s.strip() for s in command.split("&&")):
        words = step.split()
        venv = re.fullmatch(r"python3 -m venv (\S+)", step)
        if venv:
            made.add(venv.group(1).rstrip("/"))
        elif words[:1] in (["."], ["source"]) and len(words) == 2:
            active = active or words[1].rsplit("/bin/activate", 1)[0] in made
        elif words[0] in ("python", "pip", "pip3") and not active:
            wrong.append(step)
        elif words[0] == "python3" and "pip" in words[1:3]:
            wrong.append(step)  # the system interpreter's pip
        elif "/bin/" in words[0] and words[0].split("/bin/")[0] not in made:
            wrong.append(step)
    return wrong


PROPOSED_README = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[local]' && python -m "
    "recursive_cleaner generate test_cases/crm_customers.jsonl -i @test_cases/crm_instructions.txt",
    "sh .ci/browser && python3 -m venv .venv && .venv/bin/pip install -U --upgrade-strategy eager "
    "-e '.[dev]' && .venv/bin/python -m pytest",
)


def test_the_venv_check_refuses_what_fails_on_debian_and_takes_the_proposed_commands():
    assert outside_a_venv("pip install -e '.[local]' && python -m recursive_cleaner generate x")
    assert outside_a_venv("python -m venv .venv && .venv/bin/pip install -e .")
    assert outside_a_venv("python3 -m venv .venv && pip install -e .")  # made, not activated
    assert outside_a_venv("python3 -m pip install -e .")
    assert [outside_a_venv(c) for c in PROPOSED_README] == [[], []]


def test_the_readmes_commands_run_on_a_current_debian():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    assert [outside_a_venv(b.strip()) for b in blocks[:2]] == [[], []]


def test_the_pages_import_only_what_an_install_provides(tmp_path):
    """A block that imports the repo's folders (``from backends import ...``) runs here but not for
    a user."""
    import subprocess

    modules = set()
    for block in ALL_BLOCKS:
        try:
            tree = ast.parse(block.source)
        except SyntaxError:
            continue  # a signature block
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules.update((a.name.partition(".")[0], block.where) for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add((node.module.partition(".")[0], block.where))
    local = {"cleaning_functions", "dedup_functions"}  # files the pages' own examples write first
    names = sorted({m for m, _ in modules} - local)
    probe = (
        "import importlib.util, sys; print(' '.join(n for n in sys.argv[1:] if "
        "importlib.util.find_spec(n) is None))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe, *names], cwd=tmp_path, capture_output=True, text=True
    )
    missing = set(done.stdout.split())
    assert not missing, sorted(where for m, where in modules if m in missing)
