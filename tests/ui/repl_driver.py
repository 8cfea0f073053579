"""Drive the real REPL through prompt_toolkit's pipe input against the fake OpenAI-compatible server."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
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


async def drive(tmp: Path, responder: Callable[[Any], Reply], keys: Iterable[str], *,
                server: FakeOpenAIServer | None = None, answers: str = "", first_message: str | None = None,
                pick_session: bool = False, pipe: list[Any] | None = None, console: Console | None = None,
                ask_stream: Any = None, at_prompt: Callable[[], None] | None = None, keys_answer: bool = False,
                options_for: Any = None, model: str = "fake-model", **opts: Any) -> Run:
    """Type each item of `keys` when the prompt waits (then Ctrl-D); `answers` feeds permission prompts.
    `keys_answer`: no answer stream, the REPL's yes/no questions wait for the next item of `keys`, as
    in a terminal."""
    cwd = tmp / "project"
    cwd.mkdir(exist_ok=True)
    own = server is None
    srv = server or FakeOpenAIServer(responder, model=model).start()
    todo = list(keys)
    console = console or Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    options = SessionOptions(cwd=cwd, model=model, base_url=srv.base_url, api_key="k", home=tmp / "home",
                             **opts)
    try:
        with create_pipe_input() as inp:
            if pipe is not None:
                pipe.append(inp)  # so a responder can press keys while the model works
            def next_keys() -> None:
                if at_prompt is not None:
                    at_prompt()
                inp.send_text(todo.pop(0) if todo else EOF_KEY)
            await run_repl(options, console=console, inp=inp, output=DummyOutput(), before_prompt=next_keys,
                           ask_stream=None if keys_answer else ask_stream or io.StringIO(answers), first_message=first_message, pick_session=pick_session,
                           options_for=options_for)
    finally:
        if own:
            srv.stop()
    return Run(console.export_text(), srv, options, user_messages(srv))
