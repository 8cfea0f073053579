"""The Enter typed right after a one-key answer goes with it (answer_enter.py). `/rewind N`'s `y`
followed by Enter, as one types at a `[y/N]`, rewound, and the Enter then sent the prompt the rewind
had just put back in the input: the turn undone ran again. After the permission menu's `n`, the Enter
said "just no" to the line asking what the model should do instead."""

from __future__ import annotations

import asyncio
import io

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.typeahead import get_typeahead
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from compact_agent.agent.safety.permissions import Instead
from compact_agent.ui import answer_enter
from compact_agent.ui.approval import make_ask, nothing, yes_no
from tests.fakes.openai_server import Reply

from .repl_driver import Typist, drive

DONE = "rewound; no files to restore; the prompt is back in the input to edit"


async def test_y_and_enter_rewind_and_leave_the_prompt_to_edit(tmp_path, monkeypatch):
    """`y⏎` in one read (a quick typist) and `y`, `⏎` read apart: both rewind, and the prompt given
    back waits in the input, where what is typed next goes on after it. (The question waits for the
    Enter longer than a loaded machine can take to deliver it: the test does not race the timer.)"""
    monkeypatch.setattr(answer_enter, "ENTER_AFTER", 60.0)
    keys = ["first\r", "/rewind 0\r", "y\r", " again\r", "/rewind 0\r", ["y", "\r"], " once more\r"]
    run = await asyncio.wait_for(drive(tmp_path, lambda req: Reply.text("ok"), keys, keys_answer=True), 60)
    assert run.out.count("those turns too [y/N] y\n" + DONE) == 2, run.out
    assert run.prompts == ["first", "first again", "first again once more"]  # none sent again by the Enter


async def test_the_enter_goes_with_the_answer_and_other_keys_go_on() -> None:
    for typed, yes, left in [("y\rhello", True, "hello"), ("n\r", False, ""), ("yx", True, "x"), ("\rmore", False, "more")]:
        with create_pipe_input() as inp:
            inp.send_text(typed)
            assert await yes_no("rewind? [y/N] ", inp, DummyOutput()) is yes
            assert "".join(k.data for k in get_typeahead(inp)) == left, typed  # what the next prompt gets


async def test_an_enter_after_the_menus_n_leaves_the_instruction_to_type() -> None:
    with create_pipe_input() as inp:
        typist = Typist(inp)  # each key read apart, as typed
        typist.type(["n", "\r", "run make check instead\r"])
        console = Console(file=io.StringIO(), width=100)
        ask = make_ask(console, nothing, use_menu=True, inp=inp, output=DummyOutput(), clock=typist)
        assert ask("bash", "rm -rf build") == Instead("run make check instead")


async def test_after_the_menus_y_the_keys_typed_next_are_the_turns() -> None:
    """`y` (and `a`) let the turn go on at once: a key typed next (an Esc that stops the turn) is
    left for the turn's own key reader, not taken by a menu still waiting for an Enter."""
    with create_pipe_input() as inp:
        typist = Typist(inp)
        typist.type(["y", "x"])
        console = Console(file=io.StringIO(), width=100)
        ask = make_ask(console, nothing, use_menu=True, inp=inp, output=DummyOutput(), clock=typist)
        answer = ask("bash", "make check")
        assert answer not in ("deny", "interrupt") and not isinstance(answer, Instead), answer
        assert [k.data for k in get_typeahead(inp)] == []  # nothing read past the answer
