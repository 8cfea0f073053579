"""The approval question typed as a line (a dumb terminal, TERM=dumb, or no terminal) takes the
menus' letters with the menus' meanings: `n` and `i` are "No, and tell the model what to do
instead", which asks for that line, and the plain no is Enter alone (the menus' Esc). Typed there,
`n` was a plain no and `i` went to the model as the instruction "i"."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from compact_agent.agent.safety.permissions import INSTEAD, Instead
from compact_agent.ui.approval import make_ask, nothing
from tests.fakes.openai_server import FakeOpenAIServer, tool_results

from .pty_driver import Terminal
from .test_approval_instead import bash_then_told

ASKED = "(waiting for approval): "
INSTEAD_ASKED = "what should the model do instead? (Enter alone: just no) › "


def test_n_and_i_ask_what_to_do_instead_and_enter_is_just_no(tmp_path: Path) -> None:
    with FakeOpenAIServer(bash_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=200, env={"TERM": "dumb"})
        try:
            at = term.read_until("› ")
            term.type("run it\r")
            asked = term.read_until(ASKED, at)
            assert "/ [n]o, or what to do instead / Enter alone: just no (waiting" in term.text(at)
            term.type("n\r")
            instead = term.read_until(INSTEAD_ASKED, asked)
            term.type("run make check\r")
            done = term.read_until("DONE: told to run make check", instead)
            at = term.read_until("› ", done)
            term.type("again\r")
            asked = term.read_until(ASKED, at)
            term.type("i\r")
            instead = term.read_until(INSTEAD_ASKED, asked)
            term.type("\r")  # Enter alone there: a plain no
            done = term.read_until("DONE: refused", instead)
            at = term.read_until("› ", done)
            term.type("once more\r")
            asked = term.read_until(ASKED, at)
            term.type("\r")  # Enter alone at the question: a plain no, nothing more asked
            done = term.read_until("DONE: refused", asked)
            assert "instead?" not in term.text(asked, done)
            term.read_until("› ", done)
            term.type("/exit\r")
            assert term.finish() == 0
        finally:
            term.close()
    told = [str(tool_results(r)[-1]["content"]) for r in server.requests if tool_results(r)]
    assert told[0].endswith(f"{INSTEAD} run make check"), told
    assert [INSTEAD in t for t in told] == [True, False, False], told  # never told "i"


class Typed(io.StringIO):
    """Lines typed at a terminal (a dumb one): read from a pipe, `n` is a plain no
    (test_piped_answers_in_order.py)."""

    def isatty(self) -> bool:
        return True


def test_the_typed_question_for_a_held_line_takes_them_too() -> None:
    why = "the deny rules ('rm *') cannot tell what this line runs"
    console = Console(record=True, file=io.StringIO(), width=200, force_terminal=False)
    ask = make_ask(console, nothing, Typed("n\nuse printf\nI\n\nno\nsay why\n\n"))
    assert ask("bash", "echo $((i+1))", held=why) == Instead("use printf")
    assert ask("bash", "echo $((i+1))", held=why) == "deny"  # `I`, then Enter alone
    assert ask("bash", "echo $((i+1))", held=why) == Instead("say why")  # `no` is the [n]o
    assert ask("bash", "echo $((i+1))", held=why) == "deny"  # Enter alone
    assert console.export_text().count(INSTEAD_ASKED.rstrip()) == 3
