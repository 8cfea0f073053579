"""A key an earlier screen left unread is never the answer of the next question.

prompt_toolkit keeps the keys an application read but did not use (its typeahead) for the next
application on the same input. An Enter typed twice at the permission menu, both read at once, left
the second for the next menu, which took it as soon as it was drawn: the next command was allowed
before the user had seen it. The same held for a `[y/N]` question after the REPL's prompt. Now a
question holds those keys aside while it is asked and puts them back, before what it leaves, for
what comes next (answer_enter.typed_before)."""

from __future__ import annotations

import io

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from compact_agent.ui.approval import make_ask, nothing, yes_no


def _left(inp) -> str:
    """The keys left unread on `inp`, left there."""
    keys = get_typeahead(inp)
    store_typeahead(inp, keys)
    return "".join(k.data for k in keys)


def test_a_second_enter_at_one_menu_does_not_allow_the_next_command() -> None:
    with create_pipe_input() as inp:
        inp.send_text("y\r\r")  # yes, and Enter twice, read at once
        ask = make_ask(Console(file=io.StringIO(), width=100), nothing, use_menu=True, inp=inp, output=DummyOutput())
        assert ask("bash", "make check") == "once"
        assert _left(inp) == "\r"  # the second Enter, left for the next screen
        inp.send_text("\x04")  # the user's own answer to the next question: Ctrl-D, no
        assert ask("bash", "rm -rf build") == "deny"
        assert _left(inp) == "\r"  # still there, for the prompt after the turn


async def test_a_key_left_by_the_prompt_does_not_answer_a_yes_no_question() -> None:
    with create_pipe_input() as inp:
        store_typeahead(inp, [KeyPress("y", "y")])  # typed on after `/rewind 2⏎`, read with it
        inp.send_text("n")
        assert await yes_no("Rewind 2 turns? [y/N] ", inp=inp, output=DummyOutput()) is False
        assert _left(inp) == "y"
