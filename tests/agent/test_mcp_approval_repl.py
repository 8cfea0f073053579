"""The REPL asks before a call of an MCP server's tool, as it does before a bash command: the question
names the tool, its server and its arguments; `y` runs it once, and a second call is asked again;
`a` allows the tool for the session. The call ran with no question."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, tool_results
from tests.ui.pty_driver import Terminal

SERVER = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_notes_stdlib.py")


def model(req: ChatRequest) -> Reply:
    results = tool_results(req)
    if not results:
        return Reply.tools([("notes_lookup_note", {"key": "alpha"})])
    return Reply.text("DONE: " + ("ran" if "NOTE[alpha]" in str(results[-1]["content"]) else "refused"))


def plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_the_repl_asks_before_an_mcp_tool_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(f"[mcp_servers.notes]\ncommand = {sys.executable!r}\nargs = [{SERVER!r}]\n")
    with FakeOpenAIServer(model) as server:
        term = Terminal(tmp_path, server.base_url, cols=120, rows=40)
        try:
            answers = {}
            start = term.prompt()
            for turn, (key, said) in enumerate((("y", "ran"), ("n", "refused"), ("a", "ran"))):
                term.type(f"look it up {turn}\r")
                menu = term.read_until("Allow notes_lookup_note?", start)
                term.read_until("3. No, and tell the model what to do instead", menu)
                term.type(key)
                if key == "n":
                    term.read_until("what should the model do instead?", menu)
                    term.type("\r")
                done = term.read_until(f"DONE: {said}", menu)
                answers[key] = plain(term.text(start, done))
                start = term.prompt(done)
            term.type("look it up again\r")  # allowed for the session: no question
            done = term.read_until("DONE: ran", start)
            again = plain(term.text(start, done))
            term.prompt(done)
            assert term.finish() == 0
        finally:
            term.close()
    assert "notes_lookup_note wants to call the tool lookup_note of MCP server notes, with these arguments:" \
        in answers["y"], answers["y"]
    assert '"key": "alpha"' in answers["y"]
    assert "permission denied: the user declined this notes_lookup_note call" in answers["n"], answers["n"]
    assert "Allow" not in again, again
    assert "don't ask again for this tool this session" in answers["a"], answers["a"]  # not "this file"
    assert "allowed for this tool this session" in answers["a"], answers["a"]
