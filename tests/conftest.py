"""Shared test settings: hypothesis never times a test (speed lives in bench/, not in
assertions)."""

import json
import os

import pytest
from hypothesis import HealthCheck, settings

# On CI, build on hypothesis' own "ci" profile (derandomized, so a run can be reproduced); locally,
# explore.
settings.register_profile(
    "recursive_cleaner",
    parent=settings.get_profile("ci" if os.environ.get("CI") else "default"),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("recursive_cleaner")


@pytest.fixture(autouse=True, scope="session")
def _prompt_cache_of_this_session(tmp_path_factory):
    """The local model's on-disk prompt cache starts empty for each test session (and its
    subprocesses)."""
    old = os.environ.get("RECURSIVE_CLEANER_PROMPT_CACHE")
    os.environ["RECURSIVE_CLEANER_PROMPT_CACHE"] = str(tmp_path_factory.mktemp("prompt-cache"))
    yield
    if old is None:
        os.environ.pop("RECURSIVE_CLEANER_PROMPT_CACHE", None)
    else:
        os.environ["RECURSIVE_CLEANER_PROMPT_CACHE"] = old


@pytest.fixture(autouse=True)
def _no_server_address_from_the_environment(monkeypatch):
    """The HTTP backends read OPENAI_BASE_URL / OLLAMA_HOST; a developer's own must not move the
    tests' servers."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A temporary working folder with a small JSONL file (two chunks of 3): the CLI tests' cwd."""
    from tests.cli_helpers import ROWS

    monkeypatch.chdir(tmp_path)
    (tmp_path / "crm.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return tmp_path


@pytest.fixture
def use(monkeypatch):
    """use(backend): the CLI's -b resolves to this backend; the specs asked for are recorded."""
    from recursive_cleaner.ui import cli as cli_module

    def install(backend):
        specs: list[str] = []

        def make(spec):
            specs.append(spec)
            return backend

        monkeypatch.setattr(cli_module, "make_backend", make)
        return specs

    return install


# What a run resolved: pytest prints these in its header, so a CI log shows the versions it passed
# with.
REPORTED_PACKAGES = (
    "click",
    "tenacity",
    "rich",
    "pyarrow",
    "openpyxl",
    "pandas",
    "numpy",
    "dask",
    "distributed",
    "xllamacpp",
    "pypdf",
    "python-docx",
    "matplotlib",
    "hypothesis",
    "pytest",
)


def pytest_report_header(config):
    from importlib.metadata import PackageNotFoundError, version

    def _version(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "absent"

    return "packages: " + ", ".join(f"{name} {_version(name)}" for name in REPORTED_PACKAGES)
