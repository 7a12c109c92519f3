"""``recursive-cleaner apply --dask [SCHEDULER_ADDRESS]``: apply_dask on a scheduler, or on a
LocalCluster of its own."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

from .._extras import require

if TYPE_CHECKING:
    from ..apply.on_dask import DaskApplyResult

__all__ = ["LOCAL_CLUSTER", "apply_on_dask"]

LOCAL_CLUSTER = "local"  # --dask without an address


def apply_on_dask(
    functions: str,
    file: str,
    output: str,
    address: str,
    workers: int | None,
    partition_size: int,
    *,
    on_progress: Callable[[dict], None] | None = None,
    **options: Any,
) -> "DaskApplyResult":
    """apply_dask with a client for ``address``, or for a LocalCluster of ``workers`` processes (one
    thread each)."""
    from ..apply.on_dask import apply_dask

    distributed = require("distributed", "apply --dask")
    if address == LOCAL_CLUSTER:
        n = workers or (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
        cluster: Any = distributed.LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
    else:
        cluster = None
    try:
        with distributed.Client(
            cluster if cluster is not None else address, set_as_default=False
        ) as client:
            reject = options.pop("reject_path", None)
            return apply_dask(
                functions,
                file,
                output,
                client=client,
                partition_size=partition_size,
                on_progress=on_progress,
                reject_path=reject,
                **options,
            )
    finally:
        if cluster is not None:
            cluster.close()
