"""The library's version (also in pyproject.toml)."""

__all__ = ["__version__"]

__version__ = "0.2.0"
