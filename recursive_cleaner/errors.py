"""The error tree of recursive_cleaner.

Every error the library raises on purpose derives from ``CleanerError``::

    CleanerError
    ├── ParseError              the model's reply could not be used (carries the reply);
    │                           its message is fed back into the next prompt
    ├── MaxIterationsError      a chunk never reached "clean" within max_iterations
    │                           (carries chunk index, attempts and the last reply)
    ├── OutputValidationError   the combined cleaning_functions.py is not valid Python
    ├── LLMCallError            the backend kept failing after every retry
    │                           (carries attempts and the last exception)
    ├── SandboxError            the sandbox itself could not run (not the code in it)
    ├── DependencyCycleError    generated functions read what each other writes
    │                           (carries the cycle; the output keeps generation order)
    ├── DataLossError           apply: cross-row steps the goals did not ask for would
    │                           drop more records than allowed (carries the counts)
    ├── InputError              a problem with the input file, naming file and line
    │   ├── InputEncodingError  bytes that are not valid in the expected encoding
    │   └── LabelError          corrected rows (``labels=``) that cannot be used: a row
    │                           matching no input row or two, no key to match them by
    ├── PathConflictError       an output path that is the input or another output
    │                           (also a ValueError); nothing is written
    ├── OutputError             a file the library writes is a symlink or not a regular
    │                           file, or its folder is a file (also an OSError)
    └── StateFileError          a state file that cannot be used, or in use by another
                                run (also a ValueError)

A generated function that fails validation is not an exception: validation
returns ``(False, reason)`` and the reason goes back to the model.

Text from outside the library's control (what generated code or its child process reports, a
model's reply) is passed through ``clip_text`` before it is quoted in a message, a prompt, a
state file, a report or on the terminal: cut to a length (``MESSAGE_CHARS`` unless told),
terminal escape sequences removed.
"""

from __future__ import annotations

from .escape import terminal_text

__all__ = [
    "CleanerError",
    "OutputError",
    "ParseError",
    "MaxIterationsError",
    "OutputValidationError",
    "LLMCallError",
    "SandboxError",
    "DependencyCycleError",
    "InputError",
    "InputEncodingError",
    "LabelError",
    "StateFileError",
    "DataLossError",
    "PathConflictError",
    "clip_text",
    "MESSAGE_CHARS",
]

MESSAGE_CHARS = 500
"""The default length ``clip_text`` keeps: one error or refusal quoted from untrusted output."""


def clip_text(text: object, limit: int = MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters (``…`` marks a cut), terminal escapes and control
    characters removed."""
    if not isinstance(text, str):
        try:
            text = str(text)
        except Exception:  # noqa: BLE001 - an object whose str() fails is described by its type
            text = f"<unprintable {type(text).__name__}>"
    if len(text) > limit:
        text = text[: max(0, limit - 1)] + "\u2026"
    return terminal_text(text)


class CleanerError(Exception):
    """Base class of every error raised by recursive_cleaner."""


class ParseError(CleanerError):
    """The model's reply could not be parsed; the message is fed back to the model."""

    def __init__(self, message: str, reply: str = "") -> None:
        super().__init__(message)
        self.reply = reply


class MaxIterationsError(CleanerError):
    """A chunk was not marked clean within ``max_iterations`` attempts."""

    def __init__(
        self, message: str, chunk_index: int = -1, attempts: int = 0, last_reply: str = ""
    ) -> None:
        super().__init__(message)
        self.chunk_index = chunk_index
        self.attempts = attempts
        self.last_reply = last_reply


class OutputValidationError(CleanerError):
    """The generated cleaning_functions.py is not valid Python."""


class LLMCallError(CleanerError):
    """The LLM backend failed on every attempt."""

    def __init__(
        self, message: str, attempts: int = 0, last_error: BaseException | None = None
    ) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.last_error = last_error


class SandboxError(CleanerError):
    """The sandbox could not start or talk to its child process."""


class InputError(CleanerError):
    """The input file cannot be read as the format it claims to be."""

    def __init__(self, message: str, path: str = "", line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


class InputEncodingError(InputError):
    """The input file holds bytes that are not valid in its encoding."""

    def __init__(
        self, message: str, path: str = "", line: int | None = None, byte_offset: int | None = None
    ) -> None:
        super().__init__(message, path, line)
        self.byte_offset = byte_offset


class LabelError(InputError):
    """Corrected rows (``labels=``, ``--labels``) that cannot be used: a label matching no input
    row or two, a column the data lacks, no key column to match them by; ``path`` names the labels
    file and ``line`` the label's row (1-based, the header not counted)."""


class StateFileError(CleanerError, ValueError):
    """A state file that is corrupt, of an unknown version, for another job, or in use by another
    run."""


class PathConflictError(CleanerError, ValueError):
    """Two of a call's files are one file: an output over an input or over another output; nothing
    written."""


class OutputError(CleanerError, OSError):
    """A file the library would write is a symlink, not a regular file, or under a path that is not
    a folder."""


class DependencyCycleError(CleanerError):
    """Generated functions need each other's output; ``cycle`` names them, ``fields`` the fields."""

    def __init__(self, message: str, cycle: list[str], fields: list[str] | None = None) -> None:
        super().__init__(message)
        self.cycle = cycle
        self.fields = fields or []


class DataLossError(CleanerError):
    """Cross-row steps not asked for by the goals would drop more than ``max_drop`` of the records;
    nothing written."""

    def __init__(self, message: str, dropped: int = 0, records: int = 0) -> None:
        super().__init__(message)
        self.dropped = dropped
        self.records = records
