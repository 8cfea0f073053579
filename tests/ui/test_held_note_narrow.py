"""At a 50-column terminal the note under the menu for a bash line the deny rules cannot read (`a`
pressed there: nothing allowed, and why) is broken between its words. Its middle part, longer than
a line, was left to the window, which cut it at the edge: '…the deny rules cannot read;' filled
the 50th column and the next line began with a space, ' each run is asked'."""

from __future__ import annotations

import re
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

from .pty_driver import Terminal

COLUMNS = 50


def held_then_told(req) -> Reply:  # type: ignore[no-untyped-def]
    """A line the deny rules cannot read (arithmetic on a name); then what its result said."""
    if not tool_results(req):
        return Reply.tools([("bash", {"command": "i=2; echo $((i+1))"})])
    return Reply.text("DONE: " + ("refused" if "permission denied" in str(tool_results(req)[-1]["content"]) else "ran"))


def note_lines(drawn: str) -> list[str]:
    """The lines of the note as last drawn, from its first words to its last: the escape sequences
    left out (a cursor moved to the last column among them), each line as the terminal got it."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn).replace("\r", "")
    text = text[text.rindex("a: nothing allowed"):]
    return text[:text.index("y runs it once") + len("y runs it once")].split("\n")


def test_the_held_note_wraps_between_words_at_50_columns(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text('deny_bash = ["rm *"]\n')
    with FakeOpenAIServer(held_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=COLUMNS, rows=40)
        try:
            start = term.prompt()
            term.type("count\r")
            menu = term.read_until("Allow bash?", start)
            term.read_until("ctrl-c stops", menu)
            pressed = term.type("a")
            noted = term.read_until("y runs it once", pressed)
            lines = note_lines(term.text(pressed, noted + len("y runs it once")))
            assert lines == ["a: nothing allowed", "no “always” for a line the deny rules cannot",
                             "read; each run is asked · y runs it once"], lines
            assert all(len(line) < COLUMNS and not line.startswith(" ") for line in lines), lines
            term.type("\r")  # Enter: no, the menu's default here
            term.prompt(term.read_until("DONE: refused", noted))
            assert term.finish() == 0
        finally:
            term.close()
