"""What a run tells the shell: a finished run's lines, a state file's summary, ``report``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..write.report_html import html_report_path
from .cli_common import PROG, debug_option, echo, need_file, one_line

__all__ = ["print_result", "report", "state_summary"]


def print_result(result: Any, dry_run: bool, source: str | None = None) -> None:
    """The lines of a finished generate / analyze / resume run (exit 1 when it read no records)."""
    llm = result.llm
    if result.chunks_total == 0:  # nothing was learned, whatever was written: no "0 function(s)"
        skipped = result.skipped_records
        echo(
            f"Error: {source or 'the input'} has no records ("
            + (f"all {skipped} lines skipped" if skipped else "an empty file")
            + "): nothing to learn from",
            err=True,
        )
        raise click.exceptions.Exit(1)
    if dry_run:
        from ..run.dry_run import distinct_issues

        issues = distinct_issues(result.issues)  # each chunk reports its own: count each issue once
        fields = sorted({i["field"] for i in issues if i.get("field")})
        echo(
            f"found {len(issues)} issue(s)" + (f" in fields {', '.join(fields)}" if fields else "")
        )
    else:
        echo(
            f"wrote {result.output_path}: {len(result.functions)} function(s) "
            f"{', '.join(result.functions)}".rstrip()
        )
    echo(
        f"chunks {result.chunks_processed}/{result.chunks_total}"
        + (
            f" (resumed after chunk {result.resumed_from_chunk + 1})"
            if result.resumed_from_chunk is not None and result.chunks_processed
            else ""
        )
        + (
            " (every chunk was already done: nothing left to run)"
            if result.resumed_from_chunk is not None and not result.chunks_processed
            else ""
        )
        + (" (stopped early: later chunks taught nothing new)" if result.stopped_early else "")
        + f", skipped input lines {result.skipped_records}, "
        f"LLM calls {llm['calls']}, tokens {llm['prompt_tokens']}+{llm['completion_tokens']}"
        + (f", {result.unusable_replies} unusable replies" if result.unusable_replies else "")
    )
    if result.spec_path:
        echo(f"field spec {result.spec_path} (edit it and pass it back with --spec)")
    unmet = getattr(result, "unmet", None) or {}
    if unmet and not dry_run:
        echo(f"unmet goals ({len(unmet)}): what the goals ask that was not done")
        for name, why in unmet.items():
            echo(f"  {name}: {why}")
    if result.cross_row_sample:
        echo(
            f"cross-row steps: {len(result.cross_row)}; on a sample they keep "
            f"{result.cross_row_sample - result.cross_row_dropped:,} of "
            f"{result.cross_row_sample:,} records"
        )
    if result.improvement is not None:
        echo(str(result.improvement))
    if result.report_path:
        page = html_report_path(result.report_path)
        echo(f"report {result.report_path}" + (f" and {page}" if page else ""))


@click.command()
@click.argument("path", default="cleaning_report.md", required=False)
@debug_option
def report(path: str) -> None:
    """Print a report or a state file's summary.

    PATH is a markdown report (default cleaning_report.md), printed as is, or a state file,
    summarized: progress, functions, model use and the command to carry on.
    """
    need_file(path, "report or state file")
    text = Path(path).read_text(encoding="utf-8")
    if path.lower().endswith(".json") or text.lstrip().startswith("{"):
        from ..write.state import load_state

        echo(state_summary(load_state(path), path))
    else:
        echo(text.rstrip("\n"))


def state_summary(state: dict, path: str) -> str:
    """A few lines about a saved run: data, progress, functions, model use, what to do next."""
    options, llm = state.get("options", {}), state.get("llm", {})
    done, total = state["last_completed_chunk"] + 1, state.get("total_chunks") or 0
    lines = [
        f"state file {path}" + (f" (saved {state['timestamp']})" if state.get("timestamp") else ""),
        f"data       {state['file_path']} (chunk size {state['chunk_size']})",
        f"progress   {done}/{total or '?'} chunks done"
        + (" (dry run)" if options.get("dry_run") else ""),
    ]
    functions = state["functions"]
    lines.append(f"functions  {len(functions)}")
    for f in functions:
        doc = one_line(f.get("docstring", "")).split(". ")[0][:80]
        lines.append(
            f"  {f['name']}"
            + (f" [{f['field']}]" if f.get("field") else "")
            + (f": {doc}" if doc else "")
        )
    lines.append(
        f"rejected   {len(state.get('rejected', []))} candidate(s); "
        f"skipped input lines {state.get('skipped_records', 0)}"
    )
    if state.get("issues"):
        lines.append(f"issues     {len(state['issues'])} found")
    lines.append(
        f"model      {llm.get('calls', 0)} calls, "
        f"{llm.get('prompt_tokens', 0)}+{llm.get('completion_tokens', 0)} tokens"
    )
    if options.get("output_path"):
        lines.append(
            f"output     {options['output_path']}"
            + (f", report {options['report_path']}" if options.get("report_path") else "")
        )
    if not total or done < total:
        lines.append(f"next       {PROG} resume {path} [-b BACKEND]")
    return "\n".join(lines)
