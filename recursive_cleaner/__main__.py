"""``python -m recursive_cleaner``: the same command line as ``recursive-cleaner`` (see cli.py)."""

from __future__ import annotations

import sys

from .ui.cli import main

if __name__ == "__main__":
    sys.exit(main())
