"""Run generated cleaning code in a fresh, locked-down child process.

This is the only place in the library that runs generated code, and it never runs it
in the library's own process. A :class:`SandboxWorker` starts ``python -I -S -B`` on
``_child.py`` in a new session, with an empty environment and a fresh empty
working directory (removed afterwards). The child pre-imports the allowed modules,
drops root to ``nobody``, sets rlimits (address space, CPU, file size 0, no core, no
processes, no new file descriptors), replaces process/signal/fd functions of the
loaded modules by refusals and arms a default-deny audit hook before it compiles the code. The
parent enforces the wall-clock timeout by killing the child's process group. The working
directory is removed as soon as the child runs in it, and the child dies with its parent: it
holds the read end of a pipe whose only write end is the parent's, and ends when that pipe
closes (on Linux by the kernel's SIGIO, see ``tie_to_parent``; elsewhere a thread in the child).

The worker loads the code once and then answers batch after batch (one length-prefixed
message each way, results under a per-worker secret token) until its input ends: apply uses
it for whole datasets. :func:`run_in_sandbox` is one worker, one batch. Whatever the code
does, the caller gets a :class:`SandboxResult` or :class:`BatchReply`;
:class:`~recursive_cleaner.errors.SandboxError` means the sandbox itself could not run.

Nothing the child sends is trusted. The parent reads at most ``LINE_BYTES`` for a report line,
a bounded header per batch and at most ``max_reply_mb`` of output, and ``_reply_check`` checks
every reply before anything is parsed; a reply that breaks the protocol fails the batch
("malformed reply") and kills the child, unparsed. Every text from the child is clipped the
moment it is read, so what reaches prompts, state files, reports and the terminal is bounded.

The package by concern (private modules; the public names are this module's):

    _worker        SandboxWorker: start, submit, receive, close; the protocol's steps
    _process       the child's process: started in its session, fed, tied to this one, killed
    _channel       the child's output read: bounded lines, nonce messages, waits on a clock
    _reply_check   what a reply must be before it is parsed
    _result        BatchReply, SandboxResult, the words for a child that died
    _child         the child program (run by path), and its ``_child_*`` modules: see there
"""

from __future__ import annotations

import json
import math
import time

from ._child_policy import (
    ALLOWED_MODULES,
    MAX_DEPTH,
    MAX_OUTPUT_CHARS,
    MESSAGE_CHARS,
    TOOLKIT,
    TRUSTED_ENVIRONMENT,
)
from ._result import BatchReply, SandboxResult, as_result
from ._worker import CHILD_PATH, SandboxWorker

__all__ = [
    "SandboxResult",
    "run_in_sandbox",
    "BatchReply",
    "SandboxWorker",
    "CHILD_PATH",
    "TRUSTED_ENVIRONMENT",
    "ALLOWED_MODULES",
    "TOOLKIT",
    "MAX_DEPTH",
    "MAX_OUTPUT_CHARS",
    "MESSAGE_CHARS",
]


def run_in_sandbox(
    code: str,
    function_name: str,
    records: list,
    *,
    timeout: float = 10.0,
    memory_mb: int = 512,
    cpu_seconds: int | None = None,
) -> SandboxResult:
    """Define `code` as a module in a fresh child process and call function_name(record) on a deep
    copy of each record.

    ``outputs[i]`` is the JSON round-tripped return value for ``records[i]`` (None where
    the function raised) and ``errors[i]`` is None or ``"ExcType: message (line N)"``.
    Any refused operation (see ``violations``), a timeout, the memory or CPU limit, a
    crash or a load error makes ``ok`` False and sets ``error``. The AST policy of
    :func:`recursive_cleaner.judge.validation.check_code_safety` is *not* applied here.
    """
    if not isinstance(code, str) or not isinstance(function_name, str):
        raise TypeError("code and function_name must be str")
    if not 0 < timeout < math.inf:
        raise ValueError(f"timeout must be a positive finite number, got {timeout!r}")
    texts = []
    for index, record in enumerate(records):
        try:
            texts.append(json.dumps(record))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"record {index} is not JSON-serialisable: {exc}") from None
    cpu = int(cpu_seconds) if cpu_seconds is not None else math.ceil(timeout) + 1
    batch = ("[" + ",".join(texts) + "]").encode("ascii")
    started = time.monotonic()
    deadline, timed_out = started + timeout, f"timed out after {float(timeout)}s"
    # One output: up to 4x the largest input and 64K characters more; all of them: 16 MB or 8x the
    # input.
    largest = max(map(len, texts), default=0)
    with SandboxWorker(
        code,
        function_name,
        memory_mb=memory_mb,
        cpu_seconds=cpu,
        max_reply_mb=max(16, 8 * len(batch) >> 20),
        max_output_chars=min(MAX_OUTPUT_CHARS, (64 << 10) + 4 * largest),
    ) as worker:
        reply = worker.start_by(deadline, timed_out)
        if reply.ok:
            worker.send_frame(b"J" + batch, len(texts))
            reply = worker.receive_by(deadline, timed_out)
    return as_result(reply, len(texts), started)
