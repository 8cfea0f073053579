"""The REPL's own yes/no questions (`/compact --preview`, `/rewind N`) in a dumb terminal (TERM=dumb:
an editor's shell buffer) are typed lines, text only, as the permission question is there: they
were drawn as a prompt_toolkit application, whose cursor moves, colours and bracketed paste such a
terminal prints as they are, around the question. `n`, Ctrl-D and Ctrl-C keep the session, `y`
rewinds it. The prompt rewound to is not put back in the input there, which a dumb terminal does not
show: what was typed next went after it unseen, and `/exit` was sent to the model."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from compact_agent.ui.approval import typed_line
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal


def answer(req) -> Reply:  # type: ignore[no-untyped-def]
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: PREVIEWED-SUMMARY</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 1500)


def test_a_dumb_terminal_is_asked_yes_or_no_in_text_only(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer) as server:
        term = Terminal(tmp_path, server.base_url, cols=80, env={"TERM": "dumb"})
        try:
            at = term.read_until("› ")
            for line in ("first question\r", "second question\r"):
                term.type(line)
                at = term.read_until("› ", term.read_until("ok ok", at))
            term.type("/compact --preview\r")
            asked = term.read_until("keep this and rewrite the session? [y/N] ", term.read_until("PREVIEWED-SUMMARY", at))
            term.type("n\r")
            at = term.read_until("› ", term.read_until("not compacted; nothing was changed", asked))
            for key in ("\x04", "no\r"):  # Ctrl-D, a word other than yes: no
                term.type("/rewind 1\r")
                asked = term.read_until("[y/N] ", at)
                term.type(key)
                at = term.read_until("› ", term.read_until("nothing rewound", asked))
            term.type("/rewind 1\r")
            asked = term.read_until("[y/N] ", at)
            assert "rewind to before “second question”?" in " ".join(term.text(at, asked).split())
            term.type("y\r")
            done = term.read_until("rewound;", asked)
            term.read_until("› ", done)
            said = " ".join(term.text(done).split())
            assert "the prompt is not put back in the input, which a dumb terminal (TERM=dumb) does not show" in said
            term.type("/exit\r")  # not sent after the prompt, unseen in the input (a turn ran instead)
            assert term.finish() == 0
            assert term.text().count("nothing rewound") == 2
            assert term.text().count("keep this and rewrite the session? [y/N]") == 1  # typed, not printed again
            assert b"\x1b" not in bytes(term.seen), bytes(term.seen)
        finally:
            term.close()


class Interrupted:
    """A terminal's line read as Ctrl-C or Ctrl-D ends it: input() raises what it would."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def readline(self) -> str:
        raise self.error


def test_ctrl_c_and_ctrl_d_at_a_typed_question_are_answers() -> None:
    # A test's terminal is not the program's controlling one, so its Ctrl-C sends no signal: the
    # KeyboardInterrupt the signal raises in input() is raised here by the line read.
    console = Console(file=io.StringIO())
    assert typed_line(console, "keep? [y/N] ", Interrupted(KeyboardInterrupt())) is None  # type: ignore[arg-type]
    assert typed_line(console, "keep? [y/N] ", Interrupted(EOFError())) == ""  # type: ignore[arg-type]
    assert typed_line(console, "keep? [y/N] ", io.StringIO("yes\n")) == "yes\n"
