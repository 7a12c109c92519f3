"""The one scripted fake backend every test shares (after httpx MockTransport and llm's
MockModel)."""

from __future__ import annotations

import select
import types
from typing import Callable, Iterable, Union

Reply = Union[str, BaseException]


class FakeClock:
    """A clock a test moves, no real time passing: ``clock()`` is ``now``; ``timer`` is a progress
    Timer (``timer(interval, tick)`` -> stop) whose ticks fire as ``advance`` moves the clock past
    them, in order."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now
        self.timers: list[list] = []  # [interval, next due, tick]

    def __call__(self) -> float:
        return self.now

    def timer(self, interval: float, tick: Callable[[], None]) -> Callable[[], None]:
        entry = [interval, self.now + interval, tick]
        self.timers.append(entry)

        def stop() -> None:
            if entry in self.timers:
                self.timers.remove(entry)

        return stop

    def advance(self, seconds: float) -> None:
        """Move ``seconds`` on, firing every tick that falls due on the way at its own time."""
        end = self.now + seconds
        while True:
            due = [e for e in self.timers if e[1] <= end]
            if not due:
                break
            entry = min(due, key=lambda e: e[1])
            self.now, entry[1] = entry[1], entry[1] + entry[0]
            entry[2]()
        self.now = end


class FakeChildClock(FakeClock):
    """A FakeClock for a sandbox worker (``SandboxWorker(..., clock=c, wait=c.wait)``): no wait
    sleeps.

    Until ``silent`` is set, a wait returns as soon as the child writes or ends (a real select,
    ``limit`` seconds at most, as a safety net), the clock standing still; once it is set the child
    is taken to answer nothing more (it sleeps or spins), so a wait finds nothing there now and
    moves the clock on by all it was asked for: the deadline passes at once. ``waits`` holds the
    seconds of every wait.
    """

    def __init__(self, now: float = 0.0, *, limit: float = 60.0) -> None:
        super().__init__(now)
        self.silent, self.limit, self.waits = False, limit, []

    def wait(self, fd: int, seconds: float) -> bool:
        self.waits.append(seconds)
        if select.select([fd], [], [], 0 if self.silent else self.limit)[0]:
            return True
        self.advance(seconds)
        return False


class FakeBackend:
    """A scripted LLM backend.

    Built from a list of replies (returned in order; an exception instance is raised
    instead of returned) or from a function ``handler(prompt) -> str``. Every prompt is
    recorded in ``history``. When a list runs out, ``default`` is returned if given,
    else an AssertionError is raised so a test notices an unexpected call. It declares the
    capability ``usage``: ``last_usage`` is ``usage`` (None without it) after every call.
    With ``clock`` (a ``FakeClock``) every call takes ``latency`` seconds of it, the ticks of its
    timers firing on the way (a slow model, no real sleep).
    """

    capabilities = frozenset({"usage"})

    def __init__(
        self,
        replies: Union[Iterable[Reply], Callable[[str], str], None] = None,
        *,
        default: str | None = None,
        usage: dict | None = None,
        clock: FakeClock | None = None,
        latency: float = 0.0,
    ) -> None:
        self.history: list[str] = []
        self.clock, self.latency = clock, latency
        self._handler: Callable[[str], str] | None = None
        self._replies: list[Reply] = []
        if callable(replies):
            self._handler = replies
        elif replies is not None:
            self._replies = list(replies)
        self._default = default
        self._usage = usage
        self.last_usage: dict | None = None

    @property
    def calls(self) -> int:
        return len(self.history)

    def generate(self, prompt: str) -> str:
        self.history.append(prompt)
        self.last_usage = dict(self._usage) if self._usage else None
        if self.clock is not None and self.latency:
            self.clock.advance(self.latency)
        if self._handler is not None:
            return self._handler(prompt)
        if self._replies:
            reply = self._replies.pop(0)
        elif self._default is not None:
            reply = self._default
        else:
            raise AssertionError(
                f"FakeBackend: unexpected call #{len(self.history)}; no scripted reply left"
            )
        if isinstance(reply, BaseException):
            raise reply
        return reply


def make_reply(
    name: str | None = None,
    code: str | None = None,
    *,
    status: str = "needs_more_work",
    docstring: str = "Fixes an issue.",
    issues: Iterable[tuple[str, bool]] = (("An issue", False),),
    fence: bool = True,
) -> str:
    """Build a well-formed model reply in the prompt's XML format."""
    issue_xml = "\n".join(
        f'    <issue id="{i}" solved="{str(solved).lower()}">{text}</issue>'
        for i, (text, solved) in enumerate(issues, 1)
    )
    func = ""
    if name is not None and code is not None:
        body = f"```python\n{code}\n```" if fence else code
        func = (
            "  <function_to_generate>\n"
            f"    <name>{name}</name>\n"
            f"    <docstring>{docstring}</docstring>\n"
            f"    <code>\n{body}\n    </code>\n"
            "  </function_to_generate>\n"
        )
    return (
        "<cleaning_analysis>\n"
        f"  <issues_detected>\n{issue_xml}\n  </issues_detected>\n"
        f"{func}"
        f"  <chunk_status>{status}</chunk_status>\n"
        "</cleaning_analysis>"
    )


CLEAN_REPLY = make_reply(status="clean", issues=(("Everything handled", True),))


class StructuredFakeBackend(FakeBackend):
    """The fake with constrained decoding: ``generate_json(prompt, schema)`` records the schema,
    then replies."""

    capabilities = frozenset({"json", "usage"})

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.schemas: list[dict] = []

    def generate_json(self, prompt: str, schema: dict) -> str:
        self.schemas.append(schema)
        return self.generate(prompt)


class GrammarFakeBackend(FakeBackend):
    """The fake with GBNF-constrained decoding: ``generate_grammar(prompt, grammar)`` records the
    grammar, then replies."""

    capabilities = frozenset({"grammar", "usage"})

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.grammars: list[str | None] = []

    def generate(self, prompt: str) -> str:
        if len(self.grammars) < len(self.history) + 1:
            self.grammars.append(None)  # a plain call
        return super().generate(prompt)

    def generate_grammar(self, prompt: str, grammar: str) -> str:
        self.grammars.append(grammar)
        return super().generate(prompt)


def toolkit_fixer(fixes: dict[str, str]) -> Callable[[str], str]:
    """A handler that answers a focused prompt for a field in ``fixes`` with a toolkit one-liner,
    else "clean".

    ``fixes`` maps a field to an expression over ``record``, e.g. ``{"phone":
    "to_e164(record.get('phone'))"}``; the expression's first name is imported from
    ``recursive_cleaner.toolkit``.
    """
    import re

    def handler(prompt: str) -> str:
        task = re.search(r"named (\w+)\(record\) that fixes the field '([^']+)'", prompt)
        if not task or task.group(2) not in fixes:
            return CLEAN_REPLY
        name, field = task.groups()
        expression = fixes[field]
        code = (
            f"from recursive_cleaner.toolkit import {expression.split('(')[0]}\n\n\n"
            f"def {name}(record):\n    record = dict(record)\n    record[{field!r}] = "
            f"{expression}\n"
            f"    return record\n"
        )
        return make_reply(name, code, issues=((f"{field} formats vary", False),))

    return handler


OK_CHAT = {
    "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 9, "completion_tokens": 1},
}


def fake_xllamacpp(
    replies: list[dict] | None = None, address: str = "http://127.0.0.1:5"
) -> types.ModuleType:
    """A stand-in for the xllamacpp module: its Server returns the scripted dicts in order (else
    OK_CHAT), records each request, and says it listens on ``address``."""
    module = types.ModuleType("xllamacpp")

    class Params:
        def __init__(self) -> None:
            self.model = types.SimpleNamespace(path="")
            self.cpuparams = types.SimpleNamespace(n_threads=-1)
            self.cpuparams_batch = types.SimpleNamespace(n_threads=-1)

    class Server:
        requests: list[dict] = []
        listening_address = address

        def __init__(self, params: Params) -> None:
            self.params = params

        def handle_chat_completions(self, request: dict) -> dict:
            Server.requests.append(request)
            return replies.pop(0) if replies is not None else OK_CHAT

    module.CommonParams = Params  # type: ignore[attr-defined]
    module.Server = Server  # type: ignore[attr-defined]
    return module
