"""``recursive-cleaner apply --dask [SCHEDULER_ADDRESS]``: apply_dask on a scheduler, or on a
LocalCluster of its own."""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .._extras import require

if TYPE_CHECKING:
    from ..apply.on_dask import DaskApplyResult

__all__ = ["LOCAL_CLUSTER", "apply_on_dask", "quiet_logs"]

LOCAL_CLUSTER = "local"  # --dask without an address


@contextmanager
def quiet_logs(prefix: str = "distributed", level: int = logging.WARNING) -> Iterator[None]:
    """``prefix``'s loggers (the package's and its modules' own levels) at ``level`` at least for
    the duration; their levels restored after."""
    names = [
        name
        for name, logger in logging.root.manager.loggerDict.items()
        if (name == prefix or name.startswith(prefix + ".")) and isinstance(logger, logging.Logger)
    ] or [prefix]
    before = {name: logging.getLogger(name).level for name in names}
    for name, old in before.items():
        if name == prefix or old:
            logging.getLogger(name).setLevel(max(old or 0, level))
    try:
        yield
    finally:
        for name, old in before.items():
            logging.getLogger(name).setLevel(old)


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
    kw = dict(options=options, partition_size=partition_size, on_progress=on_progress)
    distributed = require("distributed", "apply --dask")
    if address != LOCAL_CLUSTER:
        return _on_cluster(distributed, None, address, functions, file, output, **kw)
    # a cluster of our own: its ~35 INFO lines (scheduler, workers, plugins) are not the user's
    with quiet_logs():
        n = workers or (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
        cluster = distributed.LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        )
        try:
            return _on_cluster(distributed, cluster, address, functions, file, output, **kw)
        finally:
            cluster.close()


def _on_cluster(
    distributed: Any, cluster: Any, address: str, functions: str, file: str, output: str, **kw: Any
) -> "DaskApplyResult":
    """apply_dask with a client for ``cluster``, else for ``address``."""
    from ..apply.on_dask import apply_dask

    options, partition_size, on_progress = kw["options"], kw["partition_size"], kw["on_progress"]
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
