"""Second pass (v0.5): tagged docstrings, grouping by the most salient tag, and the optimization
run.

Generated docstrings end with a ``Tags:`` line (``TAGS_INSTRUCTION`` asks for it). After the last
chunk, :func:`optimize_functions` groups the accepted functions by their most informative tag
(:func:`group_by_salience`, IDF over tags) and lets the model consolidate each group
(:func:`~recursive_cleaner.optimizer.consolidation.consolidate_with_agency`); a merge is kept only
if it cleans the sample records exactly as the functions it replaces did.

Integration (``DataCleaner(optimize=False, optimize_threshold=10)``): in ``run.finish.optimize``,
before ``write_functions``, when ``optimize`` and ``optimize_threshold`` functions or more::

    result = optimize_functions(state.functions, ctx.client, records=sample, emit=ctx.emit,
                                timeout=options.sandbox_timeout, mode=options.mode)
    state.functions = list(result)          # result.refused / result.report_lines() for the report
"""

from __future__ import annotations

import ast
import math
import re
import time
from collections import Counter
from typing import Callable

from .consolidation import (
    AgentAssessment,
    ConsolidationResult,
    Emit,
    MergeDecision,
    consolidate_with_agency,
)
from .verify import compare_pipelines, defined_names
from ..model.client import ModelClient, as_client
from ..model.llm import LLMStats
from ..types import LLMBackend

__all__ = [
    "TAGS_INSTRUCTION",
    "extract_tags",
    "tag_idf",
    "group_by_salience",
    "optimize_functions",
    "consolidate_with_agency",
    "AgentAssessment",
    "ConsolidationResult",
    "MergeDecision",
]

TAGS_INSTRUCTION = (
    "End the docstring with a line `Tags: tag1, tag2, tag3`: 2-5 lowercase single-word tags naming "
    "what the function handles (domain terms such as date, phone, email) and what it does "
    "(action terms such as normalize, validate, fix)."
)
"""The sentence the generation prompt adds so every docstring ends with a Tags line."""

MISC_GROUP = "misc"
_TAGS_LINE = re.compile(r"^[\s>*#-]*\**\s*tags?\s*\**\s*[:=]\**(.*)$", re.IGNORECASE | re.MULTILINE)
_TAGS_INLINE = re.compile(r"(?:^|[.;!?]\s+)tags?\s*:(.*)$", re.IGNORECASE | re.MULTILINE)
_GENERIC = frozenset(
    "a an and or of in on to the for from by with fix fixes clean cleanup normalize normalise "
    "normalizes "
    "standardize standardise format formats convert parse validate coerce correct ensure handle "
    "apply make get "
    "set map fill remove strip trim field fields value values data record records entry entries "
    "col column "
    "func function step new old v1 v2 v3".split()
)


def _ordered_tags(docstring: str | None) -> list[str]:
    """Tags in the order written on the last ``Tags:`` line (lowercased, deduplicated)."""
    if not isinstance(docstring, str) or not docstring.strip():
        return []
    found = _TAGS_LINE.findall(docstring) or _TAGS_INLINE.findall(docstring)
    if not found:
        return []
    raw = found[-1].strip().strip("[](){}").strip()
    parts = re.split(r"[,;|]", raw) if re.search(r"[,;|]", raw) else raw.split()
    tags: list[str] = []
    for part in parts:
        tag = re.sub(r"\s+", "_", part.strip().strip("`'\"#*.[](){}").strip().lower())
        if tag and re.search(r"\w", tag) and tag not in tags:
            tags.append(tag)
    return tags


def extract_tags(docstring: str) -> set[str]:
    """Extract tags from docstring. Returns empty set if none."""
    return set(_ordered_tags(docstring))


def _fallback_from_name(name: str) -> str:
    """Extract domain word from function name ("normalize_phone_format" → "phone")."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(name or ""))
    tokens = [t for t in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if t]
    for token in tokens:
        if token not in _GENERIC and not token.isdigit() and len(token) > 1:
            return token
    return tokens[0] if tokens else MISC_GROUP


def _tags_of(function: dict) -> list[str]:
    """The function's tags (docstring, else the docstring inside its code), else its name's domain
    word."""
    tags = _ordered_tags(function.get("docstring"))
    if not tags:
        try:
            tree = ast.parse(function.get("code") or "")
            defs = [
                n
                for n in tree.body
                if isinstance(n, ast.FunctionDef) and n.name == function.get("name")
            ]
            tags = _ordered_tags(ast.get_docstring(defs[0]) if defs else None)
        except (SyntaxError, ValueError):
            tags = []
    return tags or [_fallback_from_name(function.get("name", ""))]


def tag_idf(functions: list[dict]) -> dict[str, float]:
    """IDF of every tag over ``functions``: ``log(N / doc_freq[tag])`` (name words stand in for
    missing tags)."""
    df = Counter(t for f in functions for t in set(_tags_of(f)))
    return {tag: math.log(len(functions) / count) for tag, count in df.items()}


def group_by_salience(
    functions: list[dict], *, min_size: int = 2, max_size: int = 40
) -> dict[str, list[dict]]:
    """Group functions by their most informative tag (highest IDF ``log(N / doc_freq)``).

    Ties go to the tag written first. Rebalancing: members of groups smaller than ``min_size``
    move to the existing group of their next most salient tag, else group with other such
    functions sharing a tag, else into ``"misc"`` (a lone leftover joins the smallest group);
    groups larger than ``max_size`` are split evenly into ``"<tag> 1/k"`` … ``"<tag> k/k"``.
    Untagged functions use the domain word of their name. Groups are ordered by their first
    member; members keep the input order. Deterministic.
    """
    if min_size < 1 or max_size < min_size:
        raise ValueError(
            f"need 1 <= min_size <= max_size, got min_size={min_size}, max_size={max_size}"
        )
    if not functions:
        return {}
    tag_lists = [_tags_of(f) for f in functions]
    idf = tag_idf(functions)

    def ranked(i: int) -> list[str]:
        return sorted(tag_lists[i], key=lambda t: (-idf[t], tag_lists[i].index(t)))

    groups: dict[str, list[int]] = {}
    for i in range(len(functions)):
        groups.setdefault(ranked(i)[0], []).append(i)
    groups = _rebalance(groups, tag_lists, idf, min_size)
    ordered = sorted(groups.items(), key=lambda item: min(item[1]))
    out: dict[str, list[dict]] = {}
    for label, members in ordered:
        members = sorted(members)
        parts = math.ceil(len(members) / max_size)
        if parts <= 1:
            out[label] = [functions[i] for i in members]
            continue
        size, extra = divmod(len(members), parts)
        start = 0
        for j in range(parts):
            end = start + size + (j < extra)
            out[f"{label} {j + 1}/{parts}"] = [functions[i] for i in members[start:end]]
            start = end
    return out


def _rebalance(
    groups: dict[str, list[int]], tag_lists: list[list[str]], idf: dict[str, float], min_size: int
) -> dict[str, list[int]]:
    """Move the members of too-small groups (see group_by_salience); indices in, indices out."""
    big = {label: list(members) for label, members in groups.items() if len(members) >= min_size}
    small = sorted(i for members in groups.values() if len(members) < min_size for i in members)
    misc = []
    for i in small:
        target = next((t for t in sorted(tag_lists[i], key=lambda t: -idf[t]) if t in big), None)
        if target is None:
            misc.append(i)
        else:
            big[target].append(i)
    # leftovers sharing a tag form a group: the tag most of them share, most salient, written first
    while True:
        counts = Counter(t for i in misc for t in tag_lists[i])
        shared = [t for t, c in counts.items() if c >= min_size]
        if not shared:
            break
        written = {t: sum(tag_lists[i].index(t) for i in misc if t in tag_lists[i]) for t in shared}
        best = min(shared, key=lambda t: (-counts[t], -idf[t], written[t], t))
        big[best] = [i for i in misc if best in tag_lists[i]]
        misc = [i for i in misc if best not in tag_lists[i]]
    if misc:
        if len(misc) >= min_size or not big:
            big.setdefault(MISC_GROUP, []).extend(misc)
        else:
            smallest = min(big, key=lambda label: (len(big[label]), min(big[label])))
            big[smallest].extend(misc)
    return big


def optimize_functions(
    functions: list[dict],
    backend: ModelClient | LLMBackend,
    *,
    records: list | None = None,
    max_rounds: int = 5,
    min_group: int = 2,
    max_group: int = 40,
    emit: Emit | None = None,
    stats: LLMStats | None = None,
    sleep: Callable[[float], None] = time.sleep,
    llm_attempts: int = 3,
    timeout: float = 10.0,
    mode: str = "structured",
    verify_pipeline: bool = True,
) -> ConsolidationResult:
    """Group, let the model consolidate each group, and return the final functions (a
    ConsolidationResult).

    Emits ``optimize_start``, ``optimize_group`` per group, ``optimize_round`` per round and
    ``optimize_complete``. With ``verify_pipeline``, the whole module is finally run on
    ``records`` both ways; while it differs, the merges of the last group that has any are
    undone (each recorded in ``refused``). ``backend``: the run's ModelClient, or a backend with
    ``stats``, ``sleep`` and ``llm_attempts`` as for ``consolidate_with_agency``.
    """
    client = as_client(backend, stats=stats, attempts=llm_attempts, sleep=sleep)
    send = emit or (lambda event_type, **fields: None)
    send("optimize_start", function_count=len(functions))
    result = ConsolidationResult(functions)
    parts: list[tuple[str, ConsolidationResult]] = []
    for label, members in group_by_salience(
        functions, min_size=min_group, max_size=max_group
    ).items():
        send("optimize_group", group=label, count=len(members))
        inside = {id(f) for f in members}
        outside = [f for f in functions if id(f) not in inside]
        outside += [f for _, part in parts for f in part.accepted_functions]
        # originals and merges, so undoing stays safe
        reserved = set().union(*(defined_names(f) for f in outside))
        if len(members) < 2:
            part = ConsolidationResult(members)
            part.stop_reasons[label] = "nothing_to_merge"
        else:
            part = consolidate_with_agency(
                members,
                client,
                max_rounds,
                records=records,
                emit=send,
                group=label,
                reserved_names=reserved,
                timeout=timeout,
                mode=mode,
            )
        parts.append((label, part))
        result.absorb(part)
    final = _assemble(functions, parts)
    if verify_pipeline and records and result.accepted:
        final = _verify_whole(functions, parts, result, records, timeout=timeout, mode=mode)
    result[:] = final
    send(
        "optimize_complete",
        original=len(functions),
        final=len(result),
        merged=len(result.accepted),
        refused=len(result.refused),
        llm_calls=result.calls,
    )
    return result


def _assemble(functions: list[dict], parts: list[tuple[str, ConsolidationResult]]) -> list[dict]:
    """The groups' final functions in pipeline order: a merged function where its first original
    was."""
    position = {id(f): i for i, f in enumerate(functions)}
    by_name: dict[str, int] = {}
    for i, f in enumerate(functions):
        by_name.setdefault(f.get("name", ""), i)
    placed = []
    for _, part in parts:
        for k, f in enumerate(part):
            anchor = position.get(id(f))
            if anchor is None:
                anchor = min(
                    (by_name[n] for n in f.get("merged_from", []) if n in by_name),
                    default=len(functions),
                )
            placed.append((anchor, k, f))
    return [f for _, _, f in sorted(placed, key=lambda item: item[:2])]


def _verify_whole(
    functions: list[dict],
    parts: list[tuple[str, ConsolidationResult]],
    result: ConsolidationResult,
    records: list,
    *,
    timeout: float,
    mode: str,
) -> list[dict]:
    """Undo groups' merges, last group first, until the whole module cleans ``records`` as
    before."""
    parts = list(parts)
    final = _assemble(functions, parts)
    for index in reversed(range(len(parts))):
        problem = compare_pipelines(functions, final, records, timeout=timeout, mode=mode)
        if problem is None:
            return final
        label, part = parts[index]
        if not part.accepted:
            continue
        for decision in part.accepted:
            result.accepted.remove(decision)
            result.refused.append(
                MergeDecision(
                    decision.name,
                    decision.original_names,
                    accepted=False,
                    reason=f"the whole module differs with it: {problem}",
                    round=decision.round,
                    group=label,
                )
            )
        parts[index] = (label, ConsolidationResult(part.inputs))
        final = _assemble(functions, parts)
    return final  # every group's merges undone: the original functions
