"""Backends as plugins: real packages with real dist-info metadata, found by their entry points."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import recursive_cleaner.backends.registry as registry
from recursive_cleaner.backends import (
    BACKENDS,
    ENTRY_POINT_GROUP,
    BackendSetupError,
    LocalBackend,
    MLXBackend,
    OllamaBackend,
    OpenAICompatibleBackend,
    failed_backends,
    get_backend,
    register,
    unregister,
)
from recursive_cleaner.backends.builtin import BUILTINS
from recursive_cleaner.backends.registry import BackendRegistry, FunctionBackend

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = {"local", "openai", "ollama", "mlx"}

# What a plugin's author writes: its module and its packaging metadata; nothing in this library.
ECHO_MODULE = '''"""A backend plugin: ``echo:NAME`` says the data is clean; logs to $ECHO_LOG."""

import os

CLEAN = ("<cleaning_analysis><issues_detected></issues_detected>"
         "<chunk_status>clean</chunk_status></cleaning_analysis>")


class EchoBackend:
    def __init__(self, name, **options):
        self.name, self.options = name, options

    def generate(self, prompt):
        if os.environ.get("ECHO_LOG"):
            with open(os.environ["ECHO_LOG"], "a", encoding="utf-8") as log:
                log.write(f"{self.name} {len(prompt)}\\n")
        return CLEAN


def make_echo(arg, **options):
    return EchoBackend(arg, **options)
'''

ECHO_PYPROJECT = """[project]
name = "echo-backend"
version = "1.0"

[project.entry-points."recursive_cleaner.backends"]
echo = "echo_backend:make_echo"
"""


def install(pyproject: Path, site: Path) -> Path:
    """What pip makes of the metadata: ``NAME-VERSION.dist-info/``, METADATA, entry_points.txt."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
        encoding="utf-8",
    )
    lines = []
    for group, points in project.get("entry-points", {}).items():
        lines += [f"[{group}]"] + [f"{name} = {value}" for name, value in points.items()] + [""]
    (dist / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    return dist


def write_plugin(author: Path, site: Path, module: str, source: str, pyproject: str) -> None:
    """The author's two files, then the install: the module and the dist-info on ``site``."""
    author.mkdir(parents=True, exist_ok=True)
    (author / f"{module}.py").write_text(source, encoding="utf-8")
    (author / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    install(author / "pyproject.toml", site)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch):
    """A registry of its own (the process's keeps what other tests saw); plugins forgotten after."""
    fresh = BackendRegistry()
    monkeypatch.setattr(registry, "BACKENDS", fresh)
    before = set(sys.modules)
    yield fresh
    for name in set(sys.modules) - before:
        if name.startswith(("echo_backend", "broken_backend", "thief_backend")):
            del sys.modules[name]


@pytest.fixture
def echo_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    write_plugin(tmp_path / "author", site, "echo_backend", ECHO_MODULE, ECHO_PYPROJECT)
    monkeypatch.syspath_prepend(str(site))
    return site


# --- the built-ins come in through the same door -------------------------------------------


def test_the_installed_distribution_declares_the_built_ins_in_the_group() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["entry-points"][ENTRY_POINT_GROUP]
    assert set(declared) == set(BUILTINS) == BUILT_IN
    assert all(
        value == f"recursive_cleaner.backends.builtin:{BUILTINS[name].__name__}"
        for name, value in declared.items()
    )
    assert BUILT_IN <= set(BACKENDS) and not failed_backends()


def test_a_checkout_that_is_not_installed_still_finds_the_built_ins() -> None:
    bare = BackendRegistry(group="recursive_cleaner.tests.no_such_group")  # no entry point anywhere
    assert sorted(bare) == sorted(BUILT_IN) and not bare.failed()
    assert all("built in" in bare.origins[name] for name in BUILT_IN)
    assert bare["openai"] is BUILTINS["openai"]


def test_the_registry_is_read_only_and_lists_the_registered_names(fresh: BackendRegistry) -> None:
    with pytest.raises(TypeError):
        fresh["x"] = lambda arg, **options: None  # type: ignore[index]
    assert list(fresh) == sorted(BUILT_IN) and len(fresh) == 4 and "local" in repr(fresh)


# --- a third-party plugin --------------------------------------------------------------------


def test_a_plugin_package_on_sys_path_is_found_by_its_prefix(
    fresh: BackendRegistry, echo_site: Path
) -> None:
    backend = get_backend("echo:hi", stop=["```"], max_tokens=9)
    assert type(backend).__name__ == "EchoBackend" and backend.name == "hi"
    assert backend.options == {"stop": ["```"], "max_tokens": 9}  # options reach the factory
    assert "clean" in backend.generate("prompt")
    assert "echo" in fresh
    assert fresh.origins["echo"] == "echo_backend:make_echo from echo-backend 1.0"


def test_a_plugin_installed_after_the_first_lookup_is_found_on_the_next_miss(
    fresh: BackendRegistry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "echo" not in fresh  # the first scan: no plugin yet
    site = tmp_path / "later"
    write_plugin(tmp_path / "author", site, "echo_backend", ECHO_MODULE, ECHO_PYPROJECT)
    monkeypatch.syspath_prepend(str(site))
    assert get_backend("ECHO:x").name == "x"


def test_a_plugin_touches_two_files_its_module_and_its_packaging_metadata(tmp_path: Path) -> None:
    author, site = tmp_path / "author", tmp_path / "site"
    write_plugin(author, site, "echo_backend", ECHO_MODULE, ECHO_PYPROJECT)
    assert sorted(p.name for p in author.iterdir()) == ["echo_backend.py", "pyproject.toml"]
    dist = next(site.glob("*.dist-info"))
    points = (dist / "entry_points.txt").read_text()
    assert points.startswith("[recursive_cleaner.backends]\necho = ")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_the_cli_runs_a_job_with_a_plugin_backend(echo_site: Path, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text('{"id": 1, "status": "active"}\n{"id": 2, "status": "closed"}\n')
    log = tmp_path / "prompts.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(echo_site), str(ROOT)]),
        "ECHO_LOG": str(log),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "recursive_cleaner",
            "generate",
            str(data),
            "-i",
            "status in lower case",
            "-b",
            "echo:cli",
            "-o",
            str(tmp_path / "out" / "cleaning_functions.py"),
            "--call-every-chunk",  # a model call, though nothing is left unexplained (issue 45)
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "LLM calls 1" in done.stdout
    assert log.read_text().split()[0] == "cli"  # the plugin answered the run's model call
    assert (tmp_path / "out" / "cleaning_functions.py").is_file()


# --- broken plugins break nothing else ---------------------------------------------------------

BROKEN_PYPROJECT = """[project]
name = "broken-backend"
version = "0.1"

[project.entry-points."recursive_cleaner.backends"]
broken = "broken_backend:make"
typo = "broken_backend:no_such_factory"
local = "broken_backend:make"
"""


@pytest.fixture
def broken_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    source = '"""A plugin whose import fails."""\nimport no_such_module_anywhere  # noqa: F401\n'
    write_plugin(tmp_path / "author", site, "broken_backend", source, BROKEN_PYPROJECT)
    monkeypatch.syspath_prepend(str(site))
    return site


def test_a_broken_plugin_is_one_line_naming_it_when_asked_for(
    fresh: BackendRegistry, broken_site: Path
) -> None:
    assert isinstance(get_backend("local"), LocalBackend)  # the built-ins untouched, "local" kept
    with pytest.raises(BackendSetupError) as info:
        get_backend("broken:x")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(
        "backend plugin 'broken' (broken_backend:make from broken-backend "
        "0.1) failed to load: ModuleNotFoundError"
    )
    assert info.value.retryable is False
    failed = failed_backends()
    assert {"broken", "typo"} <= set(failed) and "no_such_module_anywhere" in failed["broken"]
    assert any(
        name.startswith("local (") and "taken by recursive_cleaner.backends" in why
        for name, why in failed.items()
    )  # a plugin cannot take a built-in's name
    assert fresh.origins["local"].startswith("recursive_cleaner.backends.builtin:make_local")


def test_an_unknown_prefix_lists_the_registered_names_and_the_failed_ones(
    fresh: BackendRegistry, broken_site: Path
) -> None:
    with pytest.raises(ValueError) as info:
        get_backend("nope:x")
    message = str(info.value)
    assert "known prefixes are local, mlx, ollama, openai; failed to load: broken" in message


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_the_cli_names_a_broken_plugin_in_one_line(broken_site: Path, tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text('{"id": 1}\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(broken_site), str(ROOT)])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "recursive_cleaner",
            "generate",
            str(data),
            "-i",
            "x",
            "-b",
            "broken:x",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "Error: backend plugin 'broken' (broken_backend:make from broken-backend 0.1) failed to "
        "load: ModuleNotFoundError: No module named 'no_such_module_anywhere'"
    ]


# --- in-process registration: the same door -----------------------------------------------------


def test_register_in_process(fresh: BackendRegistry) -> None:
    seen = []

    def make(arg: str, **options):
        seen.append((arg, options))
        return lambda prompt: f"{arg}: {prompt}"

    assert register("mine", make) is make
    backend = get_backend("mine:model@host", stop=["x"])
    assert isinstance(backend, FunctionBackend) and backend.generate("p") == "model@host: p"
    assert seen == [("model@host", {"stop": ["x"]})]
    with pytest.raises(ValueError, match="taken"):
        register("mine", lambda arg, **options: None)
    register("mine", make, replace=True)
    unregister("mine")
    assert "mine" not in fresh


@pytest.mark.parametrize("name", ["", "Mine", "a:b", "a b", "1st", None])
def test_a_backend_name_is_a_plain_lower_case_word(fresh: BackendRegistry, name) -> None:
    with pytest.raises(ValueError, match="lower case"):
        register(name, lambda arg, **options: None)  # type: ignore[arg-type]


def test_a_factory_must_build_a_backend(fresh: BackendRegistry) -> None:
    register("nothing", lambda arg, **options: 42)
    with pytest.raises(TypeError, match="not a backend"):
        get_backend("nothing")
    with pytest.raises(TypeError, match="not callable"):
        register("bad", "not a function")  # type: ignore[arg-type]


def test_unregistering_a_built_in_brings_it_back_on_the_next_scan(fresh: BackendRegistry) -> None:
    unregister("local")
    assert isinstance(get_backend("local"), LocalBackend)


# --- capabilities are declared ------------------------------------------------------------------


def test_the_built_ins_declare_what_they_can_do() -> None:
    assert LocalBackend.capabilities == {"grammar", "json", "usage", "prompt_cache"}
    assert OpenAICompatibleBackend.capabilities == {"grammar", "json", "usage"}
    assert OllamaBackend.capabilities == {"json", "usage"}
    assert MLXBackend.capabilities == {"usage"}
    assert FunctionBackend.capabilities == frozenset()
