"""The sandbox child's end of the protocol: the per-batch CPU budget and the server that reports the
load and answers each batch frame (see ``_child.py`` for the protocol).

Standard library only (see ``_child.py``); nothing runs on import.
"""

from __future__ import annotations

import json
import os
import resource

__all__ = ["make_cpu_budget", "make_server"]


def make_cpu_budget(cpu_seconds: int, permits: list):
    """before_batch(): move the soft CPU limit to (CPU used so far + cpu_seconds), under a
    permit."""
    import time

    setrlimit, process_time, int_ = resource.setrlimit, time.process_time, int
    cpu, hard = resource.RLIMIT_CPU, resource.RLIM_INFINITY

    def before_batch() -> None:
        permits[3] = 1
        try:
            setrlimit(cpu, (int_(process_time() + 0.5) + cpu_seconds, hard))
        finally:
            permits[3] = 0

    return before_batch


def make_server(read_frame, out_fd: int, nonce: bytes, run_records, before_batch):
    """serve(function, load_error): report the load, then answer each batch frame until input
    ends."""
    write, loads, dumps, join_text, join_bytes = (
        os.write,
        json.loads,
        json.dumps,
        "\n".join,
        b"".join,
    )
    encode, decode, len_, enumerate_, type_, dict_ = (
        str.encode,
        bytes.decode,
        len,
        enumerate,
        type,
        dict,
    )
    unicode_error, parse_errors, strip = UnicodeEncodeError, (ValueError, RecursionError), str.strip
    blank = " \t\r\x0b\x0c"  # what bytes.strip() removes: parsers' test for a blank line
    scan, json_space, not_scanned = (
        json.JSONDecoder().scan_once,
        " \t\r\n",
        (ValueError, RecursionError, StopIteration),
    )

    def send(data: bytes) -> None:
        while data:
            data = data[write(out_fd, data) :]

    def parse_lines(data: bytes) -> tuple:
        """JSONL lines -> (records, line of each record, lines skipped as not UTF-8 / not JSON / not
        an object)."""
        try:
            lines = decode(data, "utf-8").split("\n")
        except ValueError:
            lines = []
            for raw in data.split(b"\n"):
                try:
                    lines.append(decode(raw, "utf-8"))
                except ValueError:
                    lines.append(None)
        records, line_of, skipped = [], [], []
        for offset, line in enumerate_(lines):
            if line is None:
                skipped.append(offset)
                continue
            # the scanner alone is faster; json.loads decides whenever the line is not one whole
            # value
            try:
                value, end = scan(line, 0)
            except not_scanned:
                end = -1
            if end != len_(line) and (end < 0 or strip(line[end:], json_space)):
                try:
                    value = loads(line)
                except parse_errors:
                    if strip(line, blank):  # blank lines are ignored, as parsers does
                        skipped.append(offset)
                    continue
            if type_(value) is dict_:
                records.append(value)
                line_of.append(offset)
            else:
                skipped.append(offset)
        return records, line_of, skipped

    def serve(function, load_error: str | None) -> None:
        send(
            join_bytes((b"\nL ", nonce, b" ", encode(dumps({"error": load_error}), "ascii"), b"\n"))
        )
        while load_error is None:
            frame = read_frame()
            if frame is None:
                return
            before_batch()
            # raw JSONL lines (apply's fast path); else b"J" + a JSON array of records
            if frame[:1] == b"L":
                records, line_of, skipped = parse_lines(frame[1:])
            else:
                records, line_of, skipped = loads(frame[1:]), None, []
            texts, failed, load_error = run_records(function, records)
            if line_of is not None:
                for item in failed:
                    item.append(line_of[item[0]])
            try:
                data = encode(join_text(texts), "utf-8")
            except unicode_error:  # lone surrogates: those records go out as ASCII JSON instead
                for index, text in enumerate_(texts):
                    try:
                        encode(text, "utf-8")
                    except unicode_error:
                        texts[index] = dumps(loads(text))
                data = encode(join_text(texts), "utf-8")
            head = b'{"n":%d,"size":%d,"failed":' % (len_(texts), len_(data)) + encode(
                dumps(failed)
                + ',"skipped":'
                + dumps(skipped)
                + ',"error":'
                + dumps(load_error)
                + "}",
                "ascii",
            )
            send(join_bytes((b"\nR ", nonce, b" ", head, b"\n", data, b"\nE ", nonce, b"\n")))

    return serve
