"""Keys typed while the work ran, still unread when a question comes up (the loop was busy: a tool
call being parsed, a compaction's preview being laid out), are typed ahead for the next prompt, not
an answer to that question. The permission menu took the Enter of "hello world" as "Yes" and ran a
bash command; "yes and then fix the bug" kept a /compact preview and rewrote the session."""

from __future__ import annotations

import select

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from compact_agent.ui.approval import run_menu, yes_no
from compact_agent.ui.interrupt_keys import InterruptKeys


def unread(inp) -> bool:
    return bool(select.select([inp.fileno()], [], [], 0)[0])


async def test_a_line_typed_before_a_yes_no_waits_for_the_prompt() -> None:
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None)
        keys.start()
        try:
            inp.send_text("yes and then fix the bug\r")  # typed while the loop could not read
            with keys.paused():
                assert not unread(inp)  # read before the question, not by it
                inp.send_text("n")  # typed once the question is up: its answer
                assert await yes_no("keep this and rewrite the session? [y/N] ", inp, DummyOutput()) is False
            assert keys.take_queued() == "yes and then fix the bug"  # sent as typed once the prompt is back
        finally:
            keys.stop()


async def test_an_enter_typed_before_the_permission_menu_allows_nothing() -> None:
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None)
        keys.start()
        try:
            inp.send_text("hello world\r")
            with keys.paused():
                inp.send_text("\x1b")  # Esc at the menu: no
                assert run_menu("bash", inp, DummyOutput()) == "deny"
            assert keys.take_queued() == "hello world"
        finally:
            keys.stop()


async def test_a_question_without_keys_read_meanwhile_reads_what_is_typed() -> None:
    """Paused when nothing reads the keys (no work running): what the terminal holds is the answer's,
    typed at the question as it came up (the REPL starts no reader outside work)."""
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None)
        with keys.paused():
            inp.send_text("y")
            assert await yes_no("keep? [y/N] ", inp, DummyOutput()) is True
        assert keys.take_queued() is None and keys.typed == ""
