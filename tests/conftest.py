"""Shared test settings: hypothesis never times a test (speed lives in bench/, not in assertions)."""

import os

import pytest
from hypothesis import HealthCheck, settings

# On CI, build on hypothesis' own "ci" profile (derandomized, so a run can be reproduced); locally, explore.
settings.register_profile(
    "recursive_cleaner",
    parent=settings.get_profile("ci" if os.environ.get("CI") else "default"),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("recursive_cleaner")


@pytest.fixture(autouse=True, scope="session")
def _prompt_cache_of_this_session(tmp_path_factory):
    """The local model's on-disk prompt cache starts empty for each test session (and its subprocesses)."""
    old = os.environ.get("RECURSIVE_CLEANER_PROMPT_CACHE")
    os.environ["RECURSIVE_CLEANER_PROMPT_CACHE"] = str(tmp_path_factory.mktemp("prompt-cache"))
    yield
    if old is None:
        os.environ.pop("RECURSIVE_CLEANER_PROMPT_CACHE", None)
    else:
        os.environ["RECURSIVE_CLEANER_PROMPT_CACHE"] = old


@pytest.fixture(autouse=True)
def _no_server_address_from_the_environment(monkeypatch):
    """The HTTP backends read OPENAI_BASE_URL / OLLAMA_HOST; a developer's own must not move the tests' servers."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


# What a run resolved: pytest prints these in its header, so a CI log shows the versions it passed with.
REPORTED_PACKAGES = ("click", "tenacity", "rich", "pyarrow", "openpyxl", "pandas", "numpy", "dask", "distributed",
                     "xllamacpp", "pypdf", "python-docx", "matplotlib", "hypothesis", "pytest")


def pytest_report_header(config):
    from importlib.metadata import PackageNotFoundError, version

    def _version(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "absent"

    return "packages: " + ", ".join(f"{name} {_version(name)}" for name in REPORTED_PACKAGES)
