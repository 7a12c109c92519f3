"""``recursive-cleaner plan``: the goals' reading before any model call (issue 42 point 5)."""

from __future__ import annotations

from typing import Any

import click

from .cli_common import SectionedCommand, debug_option, echo, goals_text, need_file

__all__ = ["plan"]


@click.command(cls=SectionedCommand)
@click.argument("file")
@click.option(
    "-i",
    "--instructions",
    "goals",
    required=True,
    metavar="TEXT|@FILE",
    help="The goals, inline or @FILE.",
)
@click.option(
    "-o",
    "--output",
    default="cleaning_functions.py",
    show_default=True,
    metavar="PATH",
    help="Where generate would write the functions: the plan's spec goes beside it, "
    "PATH-STEM.plan.spec.json.",
)
@click.option("--spec", default=None, metavar="PATH", help="Read this field spec instead.")
@click.option(
    "--scope",
    type=click.Choice(["mentioned", "all"]),
    default="mentioned",
    show_default=True,
    help="'all': every field not left alone may be written, guesses from names and data too.",
)
@click.option("--encoding", default=None, metavar="NAME", help="The data file's text encoding.")
@debug_option
def plan(
    file: str, goals: str, output: str, spec: str | None, scope: str, encoding: str | None
) -> None:
    """Print how the goals are read, before any model call.

    For each field: what it will become, the clause that binds it (the evidence) and its examples;
    the fields left as they are and why; the rules across rows; what the goals ask that nothing
    binds. No model is called. The spec is written beside -o, PATH-STEM.plan.spec.json: edit it
    and give it to generate with --spec. FILE is {formats}.
    """
    from ..cleaner import DataCleaner

    need_file(file, "data file")
    if spec:
        need_file(spec, "spec file")
    text = goals_text(goals)

    def no_model(prompt: str) -> str:
        raise RuntimeError("plan makes no model call")

    options: dict[str, Any] = {"output_path": output, "scope": scope, "report_path": None}
    if spec:
        options["spec"] = spec
    if encoding:
        options["encoding"] = encoding
    reading = DataCleaner(no_model, file, instructions=text, **options).plan()
    echo("\n".join(reading.lines()))
    echo(f"spec written to {reading.spec_path}")
