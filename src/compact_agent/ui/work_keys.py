"""The terminal while the REPL works (a turn, a `!cmd`): the spinner up, the keys read, Esc or
Ctrl-C stopping that work and never the REPL, and the terminal handed back whole whenever the work
asks the user something (the permission menu), the spinner back once answered.

turn_view.py draws the work and reads its keys (`TurnView`, `InterruptKeys`); this ties them to the
one piece of work running, and to SIGINT, for as long as it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from rich.console import Console

from .approval import nothing
from .turn_view import InterruptKeys, TurnView

T = TypeVar("T")


class WorkKeys:
    """The work running now (`view`: its spinner and lines; None between turns) and the REPL's key
    reader (`keys`: None before the REPL runs, or without a terminal)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.view: TurnView | None = None
        self.keys: InterruptKeys | None = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """While the turn asks the user something: no spinner, the terminal in cooked mode, no key
        reader; the spinner comes back once answered (not when the question cancels the turn)."""
        view = self.view
        doing = view.label.doing if view is not None else ""
        if view is not None:
            view.end()
        with self.keys.paused() if self.keys is not None else nothing():
            yield
        if view is not None and self.view is view:
            view._spin(doing)

    def _say(self, line: str) -> None:
        self.console.print(line, style="dim", markup=False, highlight=False)

    async def wait(self, fut: asyncio.Future[Any], view: TurnView, doing: str) -> None:
        """Wait for `fut` (the session being built) under `view`'s spinner, the keys read as during
        a turn: Esc or Ctrl-C stops the message waiting for it — its turn stops as it starts, and
        says `interrupted` — never the REPL (Ctrl-C there ended the whole REPL, `interrupted`, exit
        130); a Ctrl-D leaves once that is done, as during a turn."""
        loop = asyncio.get_running_loop()
        keys = self.keys or InterruptKeys(None, lambda: None)

        def stop() -> None:
            keys.stop_next = True

        keys.cancel, keys.say = stop, self._say
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, stop)
        view.start(doing)
        keys.start()
        try:
            await asyncio.wait([fut])
        finally:
            view.end()
            keys.stop()
            keys.cancel, keys.say = (lambda: None), (lambda line: None)
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)

    async def interruptible(self, coro: Coroutine[Any, Any, T], view: TurnView, doing: str = "thinking") -> T | None:
        """Run `coro` under `view`'s spinner; Esc or Ctrl-C cancels it (None), never the REPL.
        However it ends (answer, error, interruption) the spinner is stopped before anything else prints."""
        loop = asyncio.get_running_loop()
        self.view = view
        task = asyncio.ensure_future(coro)
        keys = self.keys or InterruptKeys(None, task.cancel)
        keys.cancel = task.cancel
        keys.say = self._say
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, task.cancel)
        view.start(doing)
        keys.start()
        if keys.stop_next:  # stopped while it waited for the session (`wait`)
            keys.stop_next = False
            task.cancel()
        try:
            return await task
        except asyncio.CancelledError:
            view.end()
            if not task.cancelled():
                raise  # the REPL itself is being cancelled
            self.console.print("interrupted", style="yellow")
            return None
        finally:
            view.end()
            keys.stop()
            keys.cancel = lambda: None
            keys.say = lambda line: None
            self.view = None
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)
