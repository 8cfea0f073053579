"""The spinner and the keys while the REPL works (work_keys.py): Esc or Ctrl-C ends the work and
says `interrupted`, never the REPL; a question asked meanwhile has the spinner stopped and the key
reader handed back, both back once it is answered."""

from __future__ import annotations

import asyncio
import io

from rich.console import Console

from compact_agent.ui.interrupt_keys import InterruptKeys
from compact_agent.ui.turn_view import TurnView
from compact_agent.ui.work_keys import WorkKeys


def console() -> Console:
    return Console(record=True, width=80, file=io.StringIO(), force_terminal=False)


async def test_a_cancel_ends_the_work_not_the_caller() -> None:
    c = console()
    work = WorkKeys(c)
    work.keys = InterruptKeys(None, lambda: None)
    started = asyncio.Event()

    async def forever() -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    async def press_esc() -> None:
        await started.wait()
        assert work.keys is not None
        work.keys.cancel()  # what the key reader calls on Esc or Ctrl-C

    view = TurnView(c, lambda: 0)
    result, _ = await asyncio.gather(work.interruptible(forever(), view), press_esc())
    assert result is None and "interrupted" in c.export_text()
    assert work.view is None and work.keys is not None
    assert await work.interruptible(asyncio.sleep(0, "done"), TurnView(c, lambda: 0)) == "done"


async def test_a_question_pauses_the_spinner_and_the_keys() -> None:
    c = console()
    work = WorkKeys(c)
    paused: list[bool] = []

    class Keys(InterruptKeys):
        def stop(self) -> None:
            paused.append(True)
            super().stop()

    work.keys = Keys(None, lambda: None)
    view = TurnView(c, lambda: 0)

    async def asks() -> str:
        view.label.doing = "running bash"
        with work.paused():
            assert view.status is None  # no spinner over the question
        return view.label.doing

    assert await work.interruptible(asks(), view, "running bash") == "running bash"
    assert paused  # the key reader handed the terminal back
