"""A paste sent in a real terminal to the fake server: the set-up the paste tests share."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .pty_driver import Terminal
from .repl_driver import pasted


@dataclass
class PastedRun:
    term: Terminal  # closed; its `seen` holds everything the REPL wrote
    shown: int  # where the placeholder appeared in the input
    done: int  # where the answer appeared
    seen: list[str]  # the last user message of each request, as the model got it


def paste_in_terminal(tmp_path: Path, before: str, paste: str, placeholder: str, after: str,
                      answer: str) -> PastedRun:
    """In the REPL on a 100x40 pty: type `before`, paste `paste` as a terminal sends it (in its
    markers, lines ending in CR), wait for its `placeholder` in the input, type `after` and Enter;
    the fake server answers `answer`, then Ctrl-D (exit 0 asserted)."""
    seen: list[str] = []

    def reply(req: Any) -> Reply:
        seen.append(message_text([m for m in req.messages if m.get("role") == "user"][-1]))
        return Reply.text(answer)

    with FakeOpenAIServer(reply) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            at = term.prompt()
            term.type(before)
            term.type(pasted(paste.replace("\n", "\r")))
            shown = term.read_until(placeholder, at)  # in the input line, while it is edited
            term.type(after + "\r")
            done = term.read_until(answer, shown)
            term.prompt(done)
            assert term.finish() == 0
        finally:
            term.close()
    return PastedRun(term, shown, done, seen)
