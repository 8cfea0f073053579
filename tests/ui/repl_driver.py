"""Drive the real REPL through prompt_toolkit's pipe input against the fake OpenAI-compatible server."""

from __future__ import annotations

import io
import select
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from compact_agent.agent.run.options import SessionOptions
from compact_agent.ui.repl import run_repl
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

EOF_KEY = "\x04"  # Ctrl-D on an empty line leaves the REPL


def pasted(text: str) -> str:
    """`text` as a terminal sends a paste: in bracketed-paste markers (the prompt turns bracketed
    paste on), so the prompt gets it as one paste and inserts it whole. Typed instead, every
    character is a key of its own, and a few thousand words take seconds to type in."""
    return f"\x1b[200~{text}\x1b[201~"


class Typist:
    """Keys typed apart, as a person types them: each chunk of an item a read of the terminal of its
    own, `pause` seconds after the one before by this clock (the REPL's; nothing waits): the next
    chunk is written to the pipe once the REPL has read the one before. Written at once, a person's
    keys would come as a paste does (paste_keys.py). A chunk written comes `pause` later (`due`): it
    is read then, or when the REPL gets to it if that is later (a test moving `now` on while the REPL
    takes keys in), and only once it came is it waiting (`waiting`, asked by paste_keys.py)."""

    def __init__(self, inp: Any, pause: float = 0.2) -> None:
        self.inp, self.pause, self.now = inp, pause, 100.0
        self.held: list[str | float] = []
        self.fresh = False  # a chunk written and not yet read: it comes at `due`
        self.due = self.now
        self.longer = 0.0  # …and this much more (a number before it): the keys read before it come earlier
        read = inp.read_keys

        def read_keys() -> list[Any]:
            if self.fresh:
                self.now = max(self.now, self.due)
                self.fresh = False
            keys = read()
            if self.held and not select.select([inp.fileno()], [], [], 0)[0]:
                self.write(self.held.pop(0))
            return keys

        inp.read_keys = read_keys  # each read of the REPL's, as it is made

    def __call__(self) -> float:
        return self.now

    def waiting(self) -> bool:
        """Keys in the pipe that came by now, not read yet."""
        return (not self.fresh or self.now >= self.due) and bool(select.select([self.inp.fileno()], [], [], 0)[0])

    def type(self, keys: str | Sequence[str | float]) -> None:
        """`keys` at once, or its chunks typed apart; a number among them is a longer pause (seconds)
        before the next chunk."""
        chunks = [keys] if isinstance(keys, str) else list(keys)
        if self.held or self.fresh:  # the last item's keys still coming: these after them
            self.held.extend(chunks)
            return
        self.held.extend(chunks[1:])
        self.write(chunks[0])

    def write(self, chunk: str | float) -> None:
        while not isinstance(chunk, str):
            self.longer += chunk  # in `due`, not `now`: the read before it may not be taken in yet
            chunk = self.held.pop(0)
        self.inp.send_text(chunk)
        self.fresh, self.due, self.longer = True, self.now + self.pause + self.longer, 0.0


@dataclass
class Run:
    out: str
    server: FakeOpenAIServer
    opts: SessionOptions
    prompts: list[str] = field(default_factory=list)  # the user messages the model received, in order


def user_messages(server: FakeOpenAIServer) -> list[str]:
    out = []
    for req in server.requests:
        users = [message_text(m) for m in req.messages if m.get("role") == "user"]
        if users and users[-1] not in out:
            out.append(users[-1])
    return out


async def drive(tmp: Path, responder: Callable[[Any], Reply], keys: Iterable[str | Sequence[str | float]], *,
                server: FakeOpenAIServer | None = None, answers: str = "", first_message: str | None = None,
                pick_session: bool = False, pipe: list[Any] | None = None, console: Console | None = None,
                ask_stream: Any = None, at_prompt: Callable[[], None] | None = None, keys_answer: bool = False,
                options_for: Any = None, model: str = "fake-model", pause: float = 0.2, typed_early: str = "",
                started: float | None = None, **opts: Any) -> Run:
    """Type each item of `keys` when the prompt waits (then Ctrl-D): a string at once, as a paste
    comes, a list of strings typed apart, `pause` seconds apart by the REPL's clock (Typist); `answers` feeds permission prompts.
    `keys_answer`: no answer stream, the REPL's yes/no questions wait for the next item of `keys`, as
    in a terminal. `typed_early`: keys in the terminal before the REPL starts, typed since `started`
    (the REPL's clock: the typist's, at 100.0, when keys are typed apart)."""
    cwd = tmp / "project"
    cwd.mkdir(exist_ok=True)
    own = server is None
    srv = server or FakeOpenAIServer(responder, model=model).start()
    todo = list(keys)
    apart = any(not isinstance(k, str) for k in todo)  # the REPL's clock is the typist's then, else the real one
    console = console or Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    options = SessionOptions(cwd=cwd, model=model, base_url=srv.base_url, api_key="k", home=tmp / "home",
                             **opts)
    try:
        with create_pipe_input() as inp:
            if pipe is not None:
                pipe.append(inp)  # so a responder can press keys while the model works
            typist = Typist(inp, pause)
            if typed_early:
                inp.send_text(typed_early)
            def next_keys() -> None:
                if at_prompt is not None:
                    at_prompt()
                typist.type(todo.pop(0) if todo else EOF_KEY)
            await run_repl(options, console=console, inp=inp, output=DummyOutput(), before_prompt=next_keys,
                           clock=typist if apart else time.monotonic,
                           ask_stream=None if keys_answer else ask_stream or io.StringIO(answers), first_message=first_message, pick_session=pick_session,
                           options_for=options_for, started=started)
    finally:
        if own:
            srv.stop()
    return Run(console.export_text(), srv, options, user_messages(srv))
