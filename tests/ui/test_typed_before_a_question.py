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
        keys = InterruptKeys(inp, lambda: None)
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
        keys = InterruptKeys(inp, lambda: None)
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
        keys = InterruptKeys(inp, lambda: None)
        keys.start()
        try:
            inp.send_text("hello world\r")  # before the question: the loop was busy
            ask = menu_ask(keys, inp, laid_out="and more\r")  # and while its diff is printed
            hand_over = keys.hand_over

            def then_esc() -> bool:  # Esc, typed once the menu has the terminal: its answer
                handed = hand_over()
                inp.send_text("\x1b")
                return handed
            keys.hand_over = then_esc  # type: ignore[method-assign]
            assert ask("bash", "rm -rf build") == "deny"
            # both typed ahead (read in one burst, as one paste: it waits in the next prompt)
            assert keys.typed == "hello world\nand more\n" and keys.take_queued() is None
        finally:
            keys.stop()


async def test_an_esc_typed_before_the_permission_menu_stops_the_turn_unasked() -> None:
    stopped: list[bool] = []
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: stopped.append(True))
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
