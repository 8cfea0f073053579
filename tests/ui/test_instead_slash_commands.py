"""A slash command typed where the model is to be told what to do instead of a declined call (after
the menu's `n`, or at the typed question of a dumb terminal) is not words for the model. `/exit` was
sent to it as the user's instruction ("/exit"), and the REPL stayed: it now stops the turn (the call
declined, not run) and the REPL leaves as /exit at the prompt does, exit code 0 and the line saying
how to resume. Any other command is said not to be run there, and the line is asked again."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer

from .pty_driver import Terminal
from .test_approval_instead import asked_what_instead as asked_instead
from .test_approval_instead import bash_then_told

ASKED = "what should the model do instead?"
RESUME = "resume this session with:"


def left(term: Terminal, after: int) -> int:
    """The REPL ended by itself (nothing more typed): its exit code, once it said how to resume."""
    term.read_until(RESUME, after, timeout=30)
    code = term.proc.wait(30)
    term.drain()
    return code


def test_exit_at_the_instead_line_leaves_the_repl(tmp_path: Path) -> None:
    with FakeOpenAIServer(bash_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            asked = asked_instead(term)
            term.type("/exit\r")
            assert left(term, asked) == 0
            after = term.text(asked)
            assert "interrupted" in after and "its command did not run" in after, after
            assert "DONE" not in after and "RAN-42" not in after, after
        finally:
            term.close()
    assert len(server.requests) == 1  # nothing went to the model after the call it asked for


def test_another_command_there_is_not_run_nor_sent(tmp_path: Path) -> None:
    with FakeOpenAIServer(bash_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            asked = asked_instead(term)
            term.type("/compact\r")
            noted = term.read_until("/compact is not run here", asked, timeout=30)
            again = term.read_until(ASKED, noted)  # asked again
            term.type("run make check\r")
            done = term.read_until("DONE: told to run make check", again)
            term.prompt(done)
            assert term.finish() == 0
        finally:
            term.close()
    assert all("/compact" not in str(req.messages) for req in server.requests)


def test_exit_at_the_typed_question_of_a_dumb_terminal_leaves(tmp_path: Path) -> None:
    with FakeOpenAIServer(bash_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=80, env={"TERM": "dumb"})
        try:
            at = term.read_until("› ")
            term.type("run it\r")
            asked = term.read_until("(waiting for approval): ", at)
            term.type("/review\r")
            asked = term.read_until("(waiting for approval): ", term.read_until("/review is not run here", asked))
            term.type("/quit\r")
            assert left(term, asked) == 0
            assert "DONE" not in term.text(asked)
        finally:
            term.close()
    assert len(server.requests) == 1
