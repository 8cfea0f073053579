"""Esc or Ctrl-C while a message waits for the session (the REPL's first seconds, `starting…`)
ended the whole REPL (`compact-agent: interrupted`, exit 130). The wait reads the keys as a turn
does: Esc or Ctrl-C stops the message waiting — its turn stops as it starts, `interrupted` — and
the REPL goes on; a prompt coming first (the line was a command) drops the stop."""

from __future__ import annotations

import asyncio
import io
import os
import signal
from collections.abc import Callable

from rich.console import Console

from compact_agent.ui.interrupt_keys import InterruptKeys
from compact_agent.ui.turn_view import TurnView
from compact_agent.ui.work_keys import WorkKeys


def console() -> Console:
    return Console(record=True, width=80, file=io.StringIO(), force_terminal=False)


async def started_after(work: WorkKeys, press: Callable[[], object]) -> None:
    """The session is built after `press` (Esc or Ctrl-C) came while the message waited for it."""
    built: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def press_then_build() -> None:
        await asyncio.sleep(0)
        press()
        for _ in range(1000):  # a signal's handler runs on a later turn of the loop
            if work.keys is not None and work.keys.stop_next:
                break
            await asyncio.sleep(0)
        built.set_result(None)

    await asyncio.gather(work.wait(built, TurnView(work.console, lambda: 0), "starting"), press_then_build())


def esc(work: WorkKeys) -> None:
    """What the key reader calls on Esc or Ctrl-C: the `cancel` of the wait then."""
    assert work.keys is not None
    work.keys.cancel()


async def a_turn(work: WorkKeys) -> tuple[str | None, list[str]]:
    ran: list[str] = []

    async def turn() -> str:
        ran.append("sent")
        return "answer"

    return await work.interruptible(turn(), TurnView(work.console, lambda: 0)), ran


async def test_esc_while_the_session_starts_stops_the_message_not_the_repl() -> None:
    c = console()
    work = WorkKeys(c)
    work.keys = InterruptKeys(None, lambda: None)
    await started_after(work, lambda: esc(work))
    assert await a_turn(work) == (None, [])  # stopped as it started: nothing sent
    assert c.export_text().count("interrupted") == 1
    assert await a_turn(work) == ("answer", ["sent"])  # the next message goes as ever


async def test_ctrl_c_as_a_signal_while_the_session_starts() -> None:
    c = console()
    work = WorkKeys(c)
    work.keys = InterruptKeys(None, lambda: None)
    await started_after(work, lambda: os.kill(os.getpid(), signal.SIGINT))  # no terminal: Ctrl-C is SIGINT
    assert await a_turn(work) == (None, [])
    assert await a_turn(work) == ("answer", ["sent"])


async def test_a_prompt_coming_first_drops_the_stop() -> None:
    work = WorkKeys(console())
    work.keys = InterruptKeys(None, lambda: None)
    await started_after(work, lambda: esc(work))
    work.keys.take_typed()  # the line was a command: the REPL is back at its prompt
    assert await a_turn(work) == ("answer", ["sent"])
