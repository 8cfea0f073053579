"""A bash call the user stopped at its approval question (Ctrl-C: 'ctrl-c stops') never ran its
command, and its result says so to the model, and the REPL's note to the user: both said 'its command,
if it had started, was killed with the processes it started', and neither could tell whether
`git push` had run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .pty_driver import Terminal


def answer(req: Any) -> Reply:
    if req.last_user_text() == "push it":
        return Reply.tools([("bash", {"command": "touch pushed.txt"})])
    return Reply.text("ANSWERED")


def test_a_call_stopped_at_its_approval_tells_the_model_its_command_did_not_run(tmp_path: Path) -> None:
    with FakeOpenAIServer(answer) as server:
        term = Terminal(tmp_path, server.base_url, cols=120, rows=40)
        try:
            at = term.prompt()
            term.type("push it\r")
            asked = term.read_until("Allow bash?", at)
            term.type("\x03")
            at = term.prompt(term.read_until("interrupted", asked))
            said = " ".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.text(asked, at)).split())
            assert "bash was stopped at its approval question and its command did not run" in said, said
            assert "killed" not in said, said
            term.type("go on\r")
            term.prompt(term.read_until("ANSWERED", at))
            assert term.finish() == 0
        finally:
            term.close()
        results = [message_text(m) for m in server.requests[-1].messages if m.get("role") == "tool"]
    assert not (tmp_path / "project" / "pushed.txt").exists()
    assert results == ["[stopped by the user before this call finished: its command did not run (it was waiting "
                       "for approval)]"], results
