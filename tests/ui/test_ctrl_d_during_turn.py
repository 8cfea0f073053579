"""Ctrl-D pressed while a turn runs was lost: the REPL went on as if it had never been pressed. It
is the REPL's Ctrl-D at an empty prompt, kept for the end of the turn: a line says so at once, the
lines typed ahead with Enter before it are sent first, then the REPL leaves; typing after it keeps
the REPL open (one line says that too), and on a line with text it does nothing, as at the prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from compact_agent.ui.interrupt_keys import LEAVING, STAYING, InterruptKeys
from compact_agent.ui.pastes import Pastes
from compact_agent.ui.typed_ahead import TypedAhead
from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def pressed_during_first(tmp_path: Path, pressed: list[str], then: list[str]) -> Any:
    """The REPL sent "first", then each of `then` at its prompts; while "first" is answered the
    terminal gets `pressed`, each a read of its own."""
    pipe: list[Any] = []

    def answer(req: Any) -> Reply:
        if req.last_user_text() == "first":
            for keys in pressed:
                pipe[0].send_text(keys)
        return Reply.text(f"ANSWER to {req.last_user_text()}")

    return await drive(tmp_path, answer, ["first\r", *then], pipe=pipe)


async def test_ctrl_d_during_a_turn_leaves_once_it_is_over(tmp_path: Path) -> None:
    run = await pressed_during_first(tmp_path, ["\x04"], ["second\r"])
    assert run.prompts == ["first"], run.prompts  # "second", typed at the next prompt, never went
    assert run.out.count(LEAVING) == 1 and "ANSWER to first" in run.out
    assert "resume this session with" in run.out


async def test_lines_typed_ahead_before_ctrl_d_are_sent_first(tmp_path: Path) -> None:
    run = await pressed_during_first(tmp_path, ["next one\r\x04"], ["never\r"])
    assert run.prompts == ["first", "next one"], run.prompts


async def test_typing_after_ctrl_d_keeps_the_repl_open(tmp_path: Path) -> None:
    run = await pressed_during_first(tmp_path, ["\x04", "then"], [" this\r"])
    assert run.prompts == ["first", "then this"], run.prompts
    assert run.out.count(LEAVING) == run.out.count(STAYING)  # none, when both came in one read


def test_each_change_is_said_once() -> None:
    said: list[str] = []
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None)
        keys.say = said.append
        for typed in ("\x04", "\x04", "x", "\x7f", "\x04"):  # Ctrl-D, again, a letter, Backspace, Ctrl-D on "x"
            inp.send_text(typed)
            keys._keys()
    assert said == [LEAVING, STAYING]


def test_ctrl_d_on_a_line_with_text_does_nothing() -> None:
    ahead = TypedAhead(Pastes())
    ahead.read([KeyPress(ch, ch) for ch in "half a line"])
    ahead.read([KeyPress(Keys.ControlD, "\x04")])
    assert not ahead.leaving and ahead.take_typed() == "half a line"


def test_a_key_that_moves_is_no_typing() -> None:
    ahead = TypedAhead(Pastes())
    ahead.read([KeyPress(Keys.ControlD, "\x04"), KeyPress(Keys.Up, "\x1b[A"), KeyPress(Keys.ControlM, "\r")])
    assert ahead.leaving
