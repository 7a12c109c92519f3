"""The HTML page's sections on the run itself: the goals and how they were read (the ``plan``
command's table: per field what the goals bind and the clause that binds it), the unmet goals,
the code with each function tied to its field, and the model's calls, tokens and time.
"""

from __future__ import annotations

import inspect

from ...escape import html_text
from .data import INSTRUCTION_CHARS, ReportData, change_text, duration_text
from .html_cells import count_of, cut, number_text

__all__ = ["goals_section", "code_section", "model_section", "CODE_CHARS"]

CODE_CHARS = 20_000  # a function's code shown at most


def goals_section(data: ReportData) -> list[str]:
    """The goals as given, their reading (``plan``'s lines, else the spec's), the unmet goals."""
    goals = data.instructions.strip()
    reading = data.plan or data.spec
    if not goals and not reading and not data.unmet:
        return []
    lines = ['<section id="goals"><h2>Goals and their reading</h2>']
    if goals:
        lines.append(
            f'<pre class="rc-pre rc-goals">{html_text(cut(goals, INSTRUCTION_CHARS))}</pre>'
        )
    if data.plan:
        lines.append(
            "<p>How the goals were read (as <code>recursive-cleaner plan</code> prints it): "
            "per field what the cleaning may write and the clause that binds it.</p>"
        )
        text = "\n".join(cut(line, 2000) for line in data.plan)
        lines.append(f'<pre class="rc-pre rc-plan">{html_text(text)}</pre>')
    elif data.spec:
        items = "".join(f"<li>{html_text(cut(line, 600))}</li>" for line in data.spec)
        lines.append(f"<p>The field spec read from the goals:</p><ul>{items}</ul>")
    if data.unmet:
        items = "".join(
            f"<li><code>{html_text(cut(name, 60))}</code>: {html_text(cut(why, 300))}</li>"
            for name, why in data.unmet.items()
        )
        lines.append(
            "<p>What the goals ask that this run did not do (nothing was written for it):</p>"
            f'<ul class="rc-unmet">{items}</ul>'
        )
    lines.append("</section>")
    return lines


def _doc(fn: dict) -> str:
    doc = inspect.cleandoc(str(fn.get("docstring") or ""))
    return f'<div class="rc-small">{html_text(cut(doc, 600))}</div>' if doc else ""


def code_section(data: ReportData) -> list[str]:
    """Each function with the field it is for, what it fixes, the change it made on the chunk it
    was accepted on, and its code."""
    if data.dry_run or not data.functions:
        return []
    named = [fn for fn in data.functions if fn.get("name")]
    if not named:
        return []
    rows, blocks = [], []
    for i, fn in enumerate(named, 1):
        name, field = str(fn.get("name")), fn.get("field")
        change = change_text(fn.get("issues_before"), fn.get("issues_after"), field)
        rows.append(
            f'<tr class="rc-fn" data-function="{html_text(name)}"><td class="rc-n">{i}</td>'
            f"<td><code>{html_text(cut(name))}</code>{_doc(fn)}</td>"
            f"<td>{'<code>' + html_text(cut(field)) + '</code>' if field else '—'}</td>"
            f"<td>{html_text(cut(fn.get('issue') or '', 300)) or '—'}</td>"
            f"<td>{html_text(change.replace('`', '')) or '—'}</td></tr>"
        )
        code = fn.get("code")
        if isinstance(code, str) and code.strip():
            where = f" — field {cut(field, 60)}" if field else ""
            blocks.append(
                f"<details><summary><code>{html_text(cut(name))}</code>{html_text(where)}"
                f'</summary><pre class="rc-pre rc-code"><code>{html_text(cut(code, CODE_CHARS))}'
                "</code></pre></details>"
            )
    return [
        '<section id="code"><h2>Functions</h2>',
        "<p>In the order <code>clean_data</code> runs them; wrong values before → after on the "
        "chunk each was accepted on.</p>",
        '<table class="rc-functions"><thead><tr><th>#</th><th>Function</th><th>Field</th>'
        "<th>Fixes</th><th>Before → after</th></tr></thead><tbody>",
        *rows,
        "</tbody></table>",
        *blocks,
        "</section>",
    ]


def model_section(data: ReportData) -> list[str]:
    """The model's calls, tokens (prompt, completion, cached), latency and the run's time."""
    llm, lat = data.llm if isinstance(data.llm, dict) else {}, data.latency
    calls = count_of(llm.get("calls"))
    facts = []
    if calls is not None:
        failed = count_of(llm.get("failed_attempts")) or 0
        retried = f" ({failed:,} failed attempts retried)" if failed else ""
        facts.append(("Calls", f"{calls:,}{retried}"))
    prompt, done = count_of(llm.get("prompt_tokens")), count_of(llm.get("completion_tokens"))
    if prompt or done:
        cached = count_of(llm.get("cached_tokens")) or 0
        facts.append(("Tokens", f"{number_text(prompt)} prompt, {number_text(done)} completion"))
        if prompt:
            facts.append(("Prompt cache", f"{cached:,} cached tokens"))
    if data.unusable_replies:
        facts.append(("Unusable replies", f"{data.unusable_replies:,} (asked again)"))
    if isinstance(lat, dict) and any(lat.get(k) for k in ("min_ms", "avg_ms", "max_ms")):
        s = {k: float(lat.get(k) or 0) / 1000 for k in ("min_ms", "avg_ms", "max_ms", "total_ms")}
        facts.append(
            (
                "Latency per call",
                f"min {s['min_ms']:.2f} s, avg {s['avg_ms']:.2f} s, max {s['max_ms']:.2f} s; "
                f"total {s['total_ms']:.1f} s",
            )
        )
    if data.seconds is not None:
        facts.append(("Run time", duration_text(data.seconds)))
    if not facts:
        return []
    body = "".join(f"<tr><th>{k}</th><td>{html_text(v)}</td></tr>" for k, v in facts)
    return [
        '<section id="model"><h2>Model calls and time</h2>',
        f'<table class="rc-model"><tbody>{body}</tbody></table></section>',
    ]
