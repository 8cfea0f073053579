"""A line entered while a resumed session is still being built (`compact-agent -c`, typing at once)
is shown again under the session's last exchanges, which the build prints after it: the screen read
the new line above the old conversation, and then that conversation's answer under it, as if the
line had been asked before it."""

from __future__ import annotations

import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import REPO, Terminal, one_session
from .test_startup import GATE


def plain(text: str) -> str:
    """The terminal's text without its escape sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r", "", text)


def test_a_line_entered_while_the_resumed_session_is_built_comes_after_its_last_exchanges(tmp_path):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(GATE)
    gate = tmp_path / "open"
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        one_session(tmp_path, server.base_url, "the earlier question")
        term = Terminal(tmp_path, server.base_url, "-c", fresh=True,
                        env={"PYTHONPATH": f"{hook}:{REPO / 'src'}", "GATE": str(gate)})
        try:
            banner = term.read_until("/help for commands")
            term.prompt(banner)
            term.read_until("starting…", banner)
            term.type("the new question\r")  # entered before the session is there: it waits for it
            term.read_until("the new question", banner)
            gate.touch()
            old_answer = term.read_until("ANSWERED", banner)  # the resumed session's last exchange
            term.prompt(term.read_until("ANSWERED", old_answer + 1))  # the new line's answer
            assert term.finish() == 0
        finally:
            term.close()
        screen = plain(term.text(banner))
        old = screen.index("the earlier question")
        assert "› the new question" in screen[old:], screen  # said again under the exchange it follows
        assert [r.last_user_text() for r in server.requests] == ["the earlier question", "the new question"]
