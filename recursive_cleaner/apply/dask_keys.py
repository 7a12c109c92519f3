"""apply_dask's duplicate keys (step 3 of ``dask_fit``): a ``keeps_first`` step's keys per part,
merged in part order into the first part that has each key."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, Iterable

from .dask_spool import CrossRowJob, spooled_records
from ..crossrow.steps import Fitted

__all__ = ["with_owners", "dedup_keys", "dedup_part", "merge_keys", "owners_of"]


class _SeenBefore(set):
    """A ``keeps_first`` step's keys seen in this part, and (``owners``) an earlier part's."""

    def __init__(self, owners: dict, part: int) -> None:
        super().__init__()
        self.owners, self.part = owners, part

    def __contains__(self, key: object) -> bool:
        return set.__contains__(self, key) or self.owners.get(key, self.part) < self.part


def with_owners(fitted: Fitted, owners: dict[int, dict], k: int) -> Fitted:
    """A copy of ``fitted`` for part ``k``: own counters; ``keeps_first`` steps know older keys."""
    copy = dataclasses.replace(fitted, changed=Counter(), dropped=0, dropped_by=Counter(), seen={})
    for j, owner in owners.items():
        copy.seen[j] = _SeenBefore(owner, k)
    return copy


def dedup_keys(
    records: Iterable[Any], fitted: Fitted, owners: dict[int, dict], j: int, k: int
) -> dict:
    """Dedup step ``j``'s keys in part ``k`` (after the steps before it), each -> (k, False);
    ``None``: how many."""
    local = with_owners(fitted, owners, k)
    keys: dict = {}
    keyed = 0
    for record in records:
        if not isinstance(record, dict):
            continue
        out = dict(record)
        if all(local.apply_step(i, out) for i in range(j)):
            key = local.key(j, out)
            if key is not None:
                keyed += 1
                keys.setdefault(key, (k, False))
    keys[None] = keyed  # a key is never None: the slot carries the count
    return keys


def dedup_part(job: CrossRowJob, fitted: Fitted, owners: dict[int, dict], j: int, k: int) -> dict:
    """``dedup_keys`` over part ``k``'s spool (a Dask task)."""
    return dedup_keys(
        (record for _, record in spooled_records(job.path(k, "pass1"))), fitted, owners, j, k
    )


def merge_keys(*parts: dict) -> dict:
    """Keys of consecutive parts, in order: key -> (first part, seen in more than one part)."""
    out: dict = {None: 0}
    for keys in parts:
        for key, value in keys.items():
            if key is None:
                out[None] += value
            elif key in out:
                out[key] = (out[key][0], True)
            else:
                out[key] = value
    return out


def owners_of(merged: dict) -> tuple[dict, int]:
    """(key -> first part, for keys in two or more parts; records the step drops)."""
    keyed = merged.pop(None)
    return {key: first for key, (first, many) in merged.items() if many}, keyed - len(merged)
