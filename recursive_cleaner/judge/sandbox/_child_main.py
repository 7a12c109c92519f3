"""The sandbox child's two programs: ``main`` (the locked-down child, in the order ``_child.py``
describes) and ``serve_batches`` (apply's ``trusted=True``: the same protocol, NO lock-down).

Standard library only (see ``_child.py``); nothing runs on import.
"""

from __future__ import annotations

import builtins
import json
import os
import sys

from ._child_freeze import freeze_modules, guard_helpers, guarded_code, make_store_guard
from ._child_lockdown import lock_down, make_hook, make_import_guard
from ._child_policy import CODE_FILENAME, MAX_OUTPUT_CHARS, MEMORY_EXIT
from ._child_records import make_describer, make_runner
from ._child_reset import make_state_reset
from ._child_server import make_cpu_budget, make_server
from ._child_setup import clear_environment, make_frame_reader, preload, watch_parent

__all__ = ["main", "serve_batches"]


def main() -> None:
    """The locked-down child: the request read, the lock-down, the code loaded, batches answered."""
    request = json.loads(make_frame_reader(0)())
    watch_parent(request.get("watch_fd"))
    code, function_name, nonce = (
        request["code"],
        request["function"],
        request["nonce"].encode("ascii"),
    )
    memory_mb, cpu_seconds = int(request["memory_mb"]), int(request["cpu_seconds"])
    dict_only, toolkit_dir = bool(request.get("dict_only")), request.get("toolkit_dir")
    max_chars = int(request.get("max_output_chars") or MAX_OUTPUT_CHARS)
    del request
    preload(toolkit_dir)
    clear_environment()
    out_fd, in_fd = os.dup(1), os.dup(0)
    null_fd = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null_fd, fd)
    os.close(null_fd)

    # Everything used after arming, bound now: the untrusted code may rewrite module globals.
    write, exit_, exec_, callable_, repr_ = (
        os.write,
        os._exit,
        exec,
        callable,
        repr,
    )
    base_exc, memory_error, memory_exit, filename = (
        BaseException,
        MemoryError,
        MEMORY_EXIT,
        CODE_FILENAME,
    )
    # no compile (the code is compiled before arming), one exec (ours), the peek switch (traceback,
    # functions' defaults), one setrlimit
    permits = [0, 1, 0, 0]
    describe_exception = make_describer(permits, filename)
    memory_text = "memory limit " + str(memory_mb) + " MB exceeded"
    resets: list = [None]  # the state reset, once the code is loaded
    run_records = make_runner(describe_exception, memory_text, dict_only, max_chars, resets)
    serve = make_server(
        make_frame_reader(in_fd),
        out_fd,
        nonce,
        run_records,
        make_cpu_budget(cpu_seconds, permits),
    )

    protected: set = set()  # ids of what every record shares: filled by freeze_modules
    guard, guarded_setattr, guarded_delattr = make_store_guard(protected)
    builtins_ns = dict(vars(builtins))
    builtins_ns["__import__"] = make_import_guard()
    builtins_ns["setattr"], builtins_ns["delattr"] = guarded_setattr, guarded_delattr
    namespace = {"__name__": "cleaning_code", "__builtins__": builtins_ns}
    hook = make_hook(out_fd, permits)
    lock_down(memory_mb, cpu_seconds, max(out_fd, in_fd))
    guard_helpers(guard)
    freeze_modules(protected)
    import decimal

    decimal_template = decimal.getcontext().copy()
    load_error = code_object = function = None
    try:  # compiled before arming (compiling runs nothing): the guard goes in as a constant
        code_object = guarded_code(code, filename, guard)
    except base_exc:
        load_error, is_memory = describe_exception()
        if is_memory:
            load_error = memory_text
    write(out_fd, b"A\n")
    sys.addaudithook(hook)
    del hook

    # ---- armed: from here on the hook refuses anything outside the permits ----
    try:
        try:
            if load_error is None:
                exec_(code_object, namespace)
                function = namespace.get(function_name)
                if function is None:
                    load_error = "NameError: the code does not define a function named " + repr_(
                        function_name
                    )
                elif not callable_(function):
                    load_error = "TypeError: " + repr_(function_name) + " is not a function"
                else:
                    resets[0], load_error = make_state_reset(
                        namespace, protected, permits, decimal_template
                    )
        except base_exc:
            load_error, is_memory = describe_exception()
            if is_memory:
                load_error = memory_text
        serve(function, load_error)
    except memory_error:  # reading, parsing or writing a batch: the parent names the memory limit
        exit_(memory_exit)
    except base_exc:
        exit_(3)
    exit_(0)


def serve_batches(filename: str) -> None:
    """Trusted mode (apply with trusted=True), NOT sandboxed: the protocol on stdin/stdout, the code
    a plain module."""
    import types

    in_fd, out_fd, null_fd = os.dup(0), os.dup(1), os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null_fd, fd)
    read_frame = make_frame_reader(in_fd)
    request = json.loads(read_frame())
    watch_parent(request.get("watch_fd"))
    describe = make_describer([0, 0, 0, 0], filename)
    # the parent starts this process with TRUSTED_ENVIRONMENT only; none of it is shown
    clear_environment()
    module = types.ModuleType("cleaning_functions")
    module.__file__ = filename
    sys.modules[module.__name__] = module
    name, function, error = request["function"], None, None
    try:
        exec(compile(request["code"], filename, "exec", dont_inherit=True), module.__dict__)
        function = module.__dict__.get(name)
        if function is None:
            error = "NameError: the code does not define a function named " + repr(name)
        elif not callable(function):
            error = "TypeError: " + repr(name) + " is not a function"
    except BaseException:
        error = describe()[0]
    os.dup2(null_fd, 2)
    run_records = make_runner(describe, "MemoryError", bool(request.get("dict_only")))
    make_server(read_frame, out_fd, request["nonce"].encode("ascii"), run_records, lambda: None)(
        function, error
    )
