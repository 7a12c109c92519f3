"""The command line under click's CliRunner: a small CRM file, and one-line error checks (shared by
tests)."""

from __future__ import annotations

import textwrap

from click.testing import CliRunner

from recursive_cleaner.ui.cli import cli

__all__ = ["ROWS", "EMAIL", "runner", "invoke", "one_error_line"]

ROWS = [
    {"id": i, "email": e, "status": "active"}
    for i, e in enumerate(["A@X.COM", "b@x.com", "C@x.com", "d@x.com", "E@X.com", "f@x.com"])
]
EMAIL = textwrap.dedent("""\
    def lower_emails(record):
        record = dict(record)
        record["email"] = str(record.get("email", "")).strip().lower()
        return record""")


def runner() -> CliRunner:
    """A CliRunner that keeps stderr apart on every click."""
    try:
        return CliRunner(mix_stderr=False)  # click 8.1
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


def invoke(*args: str):
    """Run the CLI with ``args``."""
    return runner().invoke(cli, list(args))


def one_error_line(result, code: int = 1) -> str:
    """The run failed with ``code`` and said so in ONE line on stderr (after any progress lines and
    the no-goals warning), no traceback."""
    assert result.exit_code == code, (result.exit_code, result.output, result.stderr)
    said = [line for line in result.stderr.strip().splitlines() if not line.startswith("[")]
    lines = [line for line in said if not line.startswith("warning: no goals given")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ") and "Traceback" not in result.stderr
    return lines[0]
