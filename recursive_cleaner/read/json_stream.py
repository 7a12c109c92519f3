"""Streaming reader of one JSON document holding records, decoded block by block.

The document is a top-level array of objects, or a top-level object holding the records
in a list of objects under some key (``{"data": [{...}, ...], "count": 3}``): the first
list whose first element is an object is streamed; other values (scalars, objects, empty
lists, lists of scalars) are parsed and ignored; a second list of objects is an error.
Elements are decoded one at a time with ``JSONDecoder.raw_decode`` over a buffer fed from
an iterator of text blocks, so memory is bounded by the largest record, not the file.
Non-object elements are skipped and reported through ``on_skip(line, reason)``; syntax
errors raise InputError naming line and column.

The reader knows nothing of files or encodings: ``parsers`` opens and decodes the file
and hands over its text blocks.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterator

from ..errors import InputError

__all__ = ["JsonRecordStream", "json_type_name", "dump_json"]

_JSON_TYPE_NAMES = {
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}
_JSON_WS = re.compile(r"[ \t\n\r]*")
_JSON_MARGIN = 64  # a syntax error this close to the buffer end may just be a cut-off token


def json_type_name(value: object) -> str:
    """The JSON name of a decoded value's type ("array", "string", "number", ...)."""
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


class JsonRecordStream:
    """Incremental reader of a top-level JSON array (or wrapper object) of records.

    ``blocks`` yields the document's text in order; ``path`` only names the file in
    errors; ``block_size`` sets how much is read ahead and when the buffer is compacted;
    ``on_skip(line, reason)`` hears of every non-object element (1-based line).
    """

    def __init__(
        self,
        blocks: Iterator[str],
        path: str,
        block_size: int,
        on_skip: Callable[[int, str], None] | None = None,
    ) -> None:
        self.path = path
        self.block_size = block_size
        self.on_skip = on_skip
        self.decoder = json.JSONDecoder()
        self.blocks = blocks
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.base_line = 0  # newlines in text already dropped from buf
        self.base_col = 0  # characters after the last dropped newline
        self.lc_pos = 0  # cache: buf.count("\n", 0, lc_pos) == lc_lines
        self.lc_lines = 0

    # -- buffer
    def _more(self, wanted: int) -> bool:
        """Append blocks until ``wanted`` more chars arrived or EOF; False if nothing came."""
        parts, got = [], 0
        while got < wanted:
            block = next(self.blocks, None)
            if block is None:
                self.eof = True
                break
            parts.append(block)
            got += len(block)
        self.buf += "".join(parts)
        return got > 0

    def _compact(self) -> None:
        if self.pos < self.block_size:
            return
        pos = self.pos
        newline = self.buf.rfind("\n", 0, pos)
        self.base_col = pos - newline - 1 if newline >= 0 else self.base_col + pos
        self._line_at(pos)
        self.base_line += self.lc_lines
        self.lc_pos = self.lc_lines = 0
        self.buf, self.pos = self.buf[pos:], 0

    def _line_at(self, pos: int) -> int:
        if pos < self.lc_pos:
            self.lc_pos = self.lc_lines = 0
        self.lc_lines += self.buf.count("\n", self.lc_pos, pos)
        self.lc_pos = pos
        return self.base_line + self.lc_lines + 1

    def _where(self, pos: int) -> tuple[int, int]:
        newline = self.buf.rfind("\n", 0, pos)
        col = pos - newline if newline >= 0 else self.base_col + pos + 1
        return self._line_at(pos), col

    def _error(self, message: str, pos: int | None = None) -> InputError:
        line, col = self._where(self.pos if pos is None else pos)
        return InputError(f"{self.path}: line {line} column {col}: {message}", self.path, line)

    def _peek(self) -> str:
        """Skip whitespace; the next character, or "" at end of file."""
        while True:
            self.pos = _JSON_WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more(1):
                return ""

    def _expect_more(self, what: str) -> str:
        char = self._peek()
        if not char:
            raise self._error(f"unexpected end of file, expected {what}")
        return char

    def _value(self) -> object:
        """Decode one complete JSON value at pos (reading more as needed)."""
        while True:
            try:
                obj, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                cut_off = exc.pos >= len(self.buf) - _JSON_MARGIN or exc.msg.startswith(
                    "Unterminated string"
                )
                if self.eof or not cut_off:
                    raise self._error(f"invalid JSON: {exc.msg}", exc.pos) from None
                self._more(max(self.block_size, len(self.buf) - self.pos))
                continue
            except RecursionError:
                raise self._error("invalid JSON: nested too deeply") from None
            except ValueError as exc:
                raise self._error(f"invalid JSON: {exc}") from None
            # "1.5e+3" cut after "1.5e" decodes as 1.5
            if end > len(self.buf) - _JSON_MARGIN and not self.eof:
                self._more(max(self.block_size, len(self.buf) - self.pos))
                continue
            self.pos = end
            return obj

    # -- grammar
    def records(self) -> Iterator[dict]:
        """Yield the records (dicts) one at a time; nothing is read before the first ``next``."""
        first = self._peek()
        if not first:
            return
        if first == "[":
            self.pos += 1
            yield from self._array()
        elif first == "{":
            yield from self._wrapper()
        else:
            raise self._error(
                'expected a JSON array of objects ([...]) or an object holding one ({"data": '
                "[...]})"
            )
        if self._peek():
            raise self._error(
                "extra data after the top-level JSON value (is this JSON Lines? use .jsonl)"
            )

    def _array(self) -> Iterator[dict]:
        """Elements after an opening "[" up to and including the closing "]"."""
        first = True
        while True:
            self._compact()
            char = self._expect_more("']' closing the array")
            if char == "]":
                self.pos += 1
                return
            if not first:
                if char != ",":
                    raise self._error(f"expected ',' or ']' after an array element, found {char!r}")
                self.pos += 1
                self._expect_more("an array element")
            first = False
            start = self.pos
            obj = self._value()
            if type(obj) is dict:
                yield obj
            elif self.on_skip is not None:
                self.on_skip(
                    self._line_at(start),
                    f"array element is not an object (got {json_type_name(obj)})",
                )

    def _wrapper(self) -> Iterator[dict]:
        """A top-level object: stream its first list of objects, parse and ignore the rest."""
        self.pos += 1
        records_key: str | None = None
        first = True
        saw_empty_list = False
        while True:
            self._compact()
            char = self._expect_more("'}' closing the top-level object")
            if char == "}":
                self.pos += 1
                break
            if not first:
                if char != ",":
                    raise self._error(
                        f"expected ',' or '}}' in the top-level object, found {char!r}"
                    )
                self.pos += 1
                char = self._expect_more("a key")
            first = False
            if char != '"':
                raise self._error(f"expected a quoted key in the top-level object, found {char!r}")
            key = self._value()
            if self._expect_more("':'") != ":":
                raise self._error("expected ':' after a key")
            self.pos += 1
            if self._expect_more("a value") == "[":
                key_pos = self.pos
                self.pos += 1
                char = self._expect_more("an array element")
                if char == "{":
                    if records_key is not None:
                        raise self._error(
                            "the top-level object holds more than one list of objects "
                            f"({records_key!r}, {key!r}); "
                            "expected a single list of records",
                            key_pos,
                        )
                    records_key = str(key)
                    yield from self._array()
                    continue
                self.pos = key_pos
                saw_empty_list = saw_empty_list or char == "]"
            self._value()
        if records_key is None and not saw_empty_list:
            raise self._error(
                "the top-level JSON object holds no list of records; "
                'expected [ {...}, ... ] or {"data": [ {...}, ... ]}'
            )


def dump_json(value: Any) -> bytes:
    """One JSON text as UTF-8, as the workers write it (ASCII escapes if it holds lone
    surrogates)."""
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value).encode("ascii")
