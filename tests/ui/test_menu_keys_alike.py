"""A key means the same at both approval menus: the usual one and the one for a bash line the deny
rules cannot read (`held`: no "always", No first). `n` at the usual menu is "no, and tell the model
what to do instead", but at the held menu it was a plain no, and `i` was "instead" there: a user who
had learned one menu answered the other wrong. Now `n` is "instead" at both (`i` too, at both), and
a plain no is Esc at both (Enter at the held menu, where No is selected)."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.safety.permissions import INSTEAD as TOLD
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text, tool_results, user_messages

from .pty_driver import Terminal

INSTEAD = "what should the model do instead?"


def bash_then_told(req) -> Reply:  # type: ignore[no-untyped-def]
    """The command the last message names (`held`: one the deny rules cannot read); then what its
    result said: the user's instruction, refused, or ran."""
    results = tool_results(req)
    if not results:
        held = message_text(user_messages(req)[-1]).startswith("held")
        return Reply.tools([("bash", {"command": "i=2; echo $((i+1))" if held else "echo plain"})])
    content = str(results[-1]["content"])
    if TOLD in content:
        return Reply.text("DONE: told to " + content.split(TOLD, 1)[1].strip())
    return Reply.text("DONE: " + ("refused" if "permission denied" in content else "ran"))


def menu(term: Terminal, message: str, after: int) -> int:
    """`message` sent, its approval menu drawn whole: the offset after it."""
    start = term.prompt(after)
    term.type(message + "\r")
    shown = term.read_until("Allow bash?", start)
    return term.read_until("ctrl-c stops", shown)


def test_n_is_instead_at_both_menus_and_esc_is_no(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text('deny_bash = ["rm *"]\n')
    with FakeOpenAIServer(bash_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            drawn = menu(term, "held one", 0)
            assert "3. No, and tell the model what to do instead  (n)" in term.text(drawn - 400, drawn)
            asked = term.read_until(INSTEAD, term.type("n"), timeout=20)  # it was a plain no here
            term.type("use printf\r")
            done = term.read_until("DONE: told to use printf", asked)
            drawn = menu(term, "plain one", done)
            asked = term.read_until(INSTEAD, term.type("n"), timeout=20)  # the usual menu, as it was
            term.type("use echo\r")
            done = term.read_until("DONE: told to use echo", asked)
            drawn = menu(term, "plain two", done)
            asked = term.read_until(INSTEAD, term.type("i"), timeout=20)  # the held menu's old key
            term.type("use true\r")
            done = term.read_until("DONE: told to use true", asked)
            drawn = menu(term, "held two", done)
            term.type("\x1b")  # Esc: a plain no, at both menus
            done = term.read_until("DONE: refused", drawn)
            assert INSTEAD not in term.text(drawn, done)
            term.prompt(done)
            assert term.finish() == 0
        finally:
            term.close()
