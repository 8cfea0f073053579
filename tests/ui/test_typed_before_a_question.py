"""Keys typed while the work ran, still unread when a question comes up (the loop was busy: a tool
call being handled, a diff or a compaction's preview being laid out), are typed ahead for the next
prompt, not an answer to that question. The permission menu took the Enter of "hello world" as "Yes"
and ran a bash command; "yes and then fix the bug" kept a /compact preview and rewrote the session.
An Esc typed then stops the turn, and the question is not asked."""

from __future__ import annotations

import asyncio
import io
import select

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from compact_agent.ui.approval import make_ask, yes_no
from compact_agent.ui.interrupt_keys import InterruptKeys


def no_wait(seconds: float) -> bool:
    """The wait for more typing, none coming (no test sleeps for real)."""
    return False


def unread(inp) -> bool:
    return bool(select.select([inp.fileno()], [], [], 0)[0])


def menu_ask(keys: InterruptKeys, inp, laid_out: str = ""):
    """The permission question as the REPL asks it, with `laid_out` typed while its diff is printed."""
    console = Console(file=io.StringIO(), width=100, force_terminal=True)
    if laid_out:
        print_ = console.print

        sent: list[str] = []

        def printing(*args, **kwargs):  # the keys come while the question is being laid out
            print_(*args, **kwargs)
            if not sent:
                sent.append(laid_out)
                inp.send_text(laid_out)
        console.print = printing  # type: ignore[method-assign]
    return make_ask(console, keys.paused, use_menu=True, inp=inp, output=DummyOutput())


async def test_a_line_typed_before_a_yes_no_waits_for_the_prompt() -> None:
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None, wait=no_wait)
        keys.start()
        try:
            inp.send_text("yes and then fix the bug\r")  # typed while the loop could not read
            with keys.paused() as hand_over:
                assert hand_over() is True
                assert not unread(inp)  # read before the question, not by it
                inp.send_text("n")  # typed once the question is up: its answer
                assert await yes_no("keep this and rewrite the session? [y/N] ", inp, DummyOutput()) is False
            assert keys.reading  # the work's keys are read again
            assert keys.take_queued() == "yes and then fix the bug"  # sent as typed once the prompt is back
        finally:
            keys.stop()


async def test_a_line_typed_while_a_preview_is_laid_out_is_no_answer() -> None:
    """/compact --preview: the command's pause, the preview laid out, then the question's own pause."""
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None, wait=no_wait)
        keys.start()
        try:
            with keys.paused():
                inp.send_text("yes and then fix the bug\r")  # typed while the preview is printed
                with keys.paused() as hand_over:
                    assert hand_over() is True
                    inp.send_text("n")
                    assert await yes_no("keep this? [y/N] ", inp, DummyOutput()) is False
                assert not keys.reading  # the inner pause gives nothing back: the outer one is still up
            assert keys.reading
            assert keys.take_queued() == "yes and then fix the bug"
        finally:
            keys.stop()


async def test_an_enter_typed_before_the_permission_menu_allows_nothing() -> None:
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None, wait=no_wait)
        keys.start()
        try:
            inp.send_text("hello world\r")  # before the question: the loop was busy
            ask = menu_ask(keys, inp, laid_out="and more\r")  # and while its diff is printed
            hand_over = keys.hand_over

            def then_no() -> bool:  # Ctrl-D (just no), typed once the menu has the terminal: its answer
                handed = hand_over()
                inp.send_text("\x04")
                return handed
            keys.hand_over = then_no  # type: ignore[method-assign]
            assert ask("bash", "rm -rf build") == "deny"
            # both typed ahead (read in one burst, as one paste: it waits in the next prompt)
            assert keys.typed == "hello world\nand more\n" and keys.take_queued() is None
        finally:
            keys.stop()


async def test_an_esc_typed_before_the_permission_menu_stops_the_turn_unasked() -> None:
    stopped: list[bool] = []
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: stopped.append(True), wait=no_wait)
        keys.start()
        try:
            inp.send_text("\x1b")  # Esc while the tool call was handled: stop the turn
            ask = menu_ask(keys, inp)
            with pytest.raises(asyncio.CancelledError):  # the turn ends as interrupted
                ask("bash", "rm -rf build")
            assert stopped == [True]
        finally:
            keys.stop()


async def test_a_question_without_keys_read_meanwhile_reads_what_is_typed() -> None:
    """Paused when nothing reads the keys (no work running): what the terminal holds is the answer's,
    typed at the question as it came up."""
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None)
        with keys.paused() as hand_over:
            assert hand_over() is True
            inp.send_text("y")
            assert await yes_no("keep? [y/N] ", inp, DummyOutput()) is True
        assert not keys.reading and keys.take_queued() is None and keys.typed == ""


class Typing:
    """A clock (the REPL's) and the wait for a key, for a person typing on as the question comes up:
    each wait brings the next of `keys` `gap` seconds later, or, with none left, `quiet` seconds pass."""

    def __init__(self, inp, keys: list[str], gap: float = 0.12) -> None:
        self.inp, self.keys, self.gap, self.now = inp, list(keys), gap, 100.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.waits.append(round(seconds, 3))
        if self.keys and self.gap < seconds:
            self.now += self.gap
            self.inp.send_text(self.keys.pop(0))
            return True
        self.now += seconds
        return False


async def test_typing_under_way_as_the_menu_comes_up_does_not_answer_it() -> None:
    """"please" typed at 8 keys a second, the menu coming up after "ple": its `a` chose "Yes, and don't
    ask again", and "ple" was lost. The question waits until the typing stops for SETTLE."""
    with create_pipe_input() as inp:
        typing = Typing(inp, ["a", "s", "e"])
        keys = InterruptKeys(inp, lambda: None, clock=typing, wait=typing.wait)
        keys.start()
        try:
            inp.send_text("p")
            keys.catch_up()
            typing.now += 0.12
            inp.send_text("l")
            keys.catch_up()  # read at 100.12, as the loop reads keys while the turn runs
            typing.now += 0.12
            inp.send_text("e")  # typed as the question was being laid out, unread
            ask = menu_ask(keys, inp)
            hand_over = keys.hand_over

            def then_no() -> bool:
                handed = hand_over()
                inp.send_text("\x04")  # Ctrl-D (just no), once the typing stopped: the menu's answer
                return handed
            keys.hand_over = then_no  # type: ignore[method-assign]
            assert ask("bash", "rm -rf build") == "deny"
            assert keys.typed == "please"  # all of it typed ahead, for the next prompt
            assert typing.waits[-1] == 0.5 and typing.now >= 100.24 + 3 * 0.12 + 0.5 - 0.12
        finally:
            keys.stop()


async def test_a_question_after_a_pause_in_the_typing_does_not_wait() -> None:
    with create_pipe_input() as inp:
        typing = Typing(inp, [])
        keys = InterruptKeys(inp, lambda: None, clock=typing, wait=typing.wait)
        keys.start()
        try:
            inp.send_text("hello")
            keys.catch_up()
            typing.now += 0.6  # the user stopped typing before the question came up
            with keys.paused() as hand_over:
                assert hand_over() is True
            assert typing.waits == [] and keys.typed == "hello"
        finally:
            keys.stop()
