"""`compact-agent -p -` on a terminal reads the prompt the user types there, ended by one Ctrl-D as
`cat` ends: the prompt's first bytes were read up to the end of input, and the rest read again,
which a terminal answers only at a second Ctrl-D, so the run sat silent after the first."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal


def test_one_ctrl_d_ends_a_prompt_typed_at_the_terminal(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text(f"ANSWERED {req.last_user_text()}")) as server:
        term = Terminal(tmp_path, server.base_url, "-p", "-")
        try:
            term.type("what is this project\n")
            term.type("\x04")
            term.read_until("ANSWERED what is this project", timeout=20)
            assert term.proc.wait(20) == 0
        finally:
            term.close()
