"""The permission question in a dumb terminal (TERM=dumb: an editor's shell buffer) is the typed
one, text only, at 40 and at 80 columns: the y/a/n menu was drawn there with escape sequences
(cursor moves, colours, bracketed paste), which such a terminal prints as they are, around a menu
whose arrow keys it cannot send. A `y` allows the call; any other answer is what the model is told
to do instead, as the typed question takes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal


def bash_then_done(req) -> Reply:  # type: ignore[no-untyped-def]
    if not any(m.get("role") == "tool" for m in req.messages[-2:]):
        return Reply.tools([("bash", {"command": "echo RAN-$((40+2))"})])
    tool = [m for m in req.messages if m.get("role") == "tool"][-1]
    return Reply.text("DONE: " + ("refused" if "permission denied" in str(tool.get("content")) else "ran"))


@pytest.mark.parametrize("columns", [40, 80])
def test_a_dumb_terminal_is_asked_in_text_only(tmp_path: Path, columns: int) -> None:
    with FakeOpenAIServer(bash_then_done) as server:
        term = Terminal(tmp_path, server.base_url, cols=columns, env={"TERM": "dumb"})
        try:
            at = term.read_until("› ")
            term.type("run it\r")
            asked = term.read_until("(waiting for approval): ", at)
            term.type("y\r")
            done = term.read_until("DONE: ran", asked)
            assert "allowed once" in term.text(asked, done)
            at = term.read_until("› ", done)
            term.type("again\r")
            asked = term.read_until("(waiting for approval): ", at)
            term.type("use printf instead\r")
            done = term.read_until("DONE: refused", asked)
            assert "declined; the model is told: use" in term.text(asked, done)  # a line, cut at 40
            term.read_until("› ", done)
            term.type("/exit\r")
            assert term.finish() == 0
            assert b"\x1b" not in bytes(term.seen), bytes(term.seen)
            assert "Allow bash?" not in term.text()  # the menu's title
        finally:
            term.close()
