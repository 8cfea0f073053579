"""The terminal while the REPL works (a turn, a `!cmd`): the spinner up, the keys read, Esc or
Ctrl-C stopping that work and never the REPL, and the terminal handed back whole whenever the work
asks the user something (the permission menu), the spinner back once answered.

turn_view.py draws the work and interrupt_keys.py reads its keys (`TurnView`, `InterruptKeys`); this ties them to the
one piece of work running, and to SIGINT, for as long as it runs. A slash command is work too: no
spinner, its keys read as a turn's (a command that asks hands the terminal over while it does), and
Ctrl-C stops it, not the REPL (`command`). Work runs inside work (a turn `/init` runs, the
compaction `/compact` makes): Ctrl-C stops the innermost, and once that is over, the one around it
(`_on_ctrl_c`, `_reading`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

from rich.console import Console

from .approval import LeaveAsked, nothing
from .interrupt_keys import LEAVING, LEAVING_COMMAND, InterruptKeys
from .turn_view import TurnView

T = TypeVar("T")


class WorkKeys:
    """The work running now (`view`: its spinner and lines; None between turns) and the REPL's key
    reader (`keys`: None before the REPL runs, or without a terminal)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.view: TurnView | None = None
        self.keys: InterruptKeys | None = None
        self._stops: list[Callable[[], object]] = []  # what Ctrl-C stops now: the innermost work last

    @contextlib.contextmanager
    def _on_ctrl_c(self, stop: Callable[[], object]) -> Iterator[None]:
        """SIGINT calls `stop` while this lasts (then the work around it, if any, gets it again)."""
        loop = asyncio.get_running_loop()
        self._stops.append(stop)
        if len(self._stops) == 1:
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread: as before
                loop.add_signal_handler(signal.SIGINT, lambda: self._stops[-1]())
        try:
            yield
        finally:
            self._stops.remove(stop)
            if not self._stops:
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(signal.SIGINT)

    @contextlib.contextmanager
    def _reading(self, keys: InterruptKeys, cancel: Callable[[], object], esc: bool = True,
                 leaving: str = LEAVING) -> Iterator[None]:
        """The key reader on while this work runs, Ctrl-C (and Esc, if `esc`) calling `cancel`, a
        Ctrl-D said at once (`leaving`). Work inside work (a turn `/init` runs, the compaction
        `/compact` makes) gives the reader back to the work around it as it found it, still reading."""
        before = keys.cancel, keys.say, keys.esc_stops, keys.leaving_line, keys.reading
        keys.cancel, keys.say, keys.esc_stops, keys.leaving_line = cancel, self._say, esc, leaving
        keys.start()
        try:
            yield
        finally:
            if not before[4]:
                keys.stop()
            keys.cancel, keys.say, keys.esc_stops, keys.leaving_line = before[:4]

    async def command(self, coro: Coroutine[Any, Any, object]) -> None:
        """Run a slash command; Ctrl-C stops it (`interrupted`) where it ended the whole REPL (exit
        130): /diff, /resume, /clear or /memory waiting on the disk or a program they started. It
        runs in the REPL's own task, not one of its own: what a command sets for the commands after
        it (`/model`'s choice for the session `/clear` starts) lives in the task's context.

        The keys are read meanwhile as during a turn (no spinner; Esc does not stop a command): lines
        typed with Enter are sent in order after it, not left unread for the next prompt, which took
        them, come in one read, for a paste and joined them into one line; a Ctrl-D leaves once it
        is over, said at once (it was lost). A command that asks (a yes/no, an editor) hands the
        terminal over while it does (`InterruptKeys.paused`)."""
        task = asyncio.current_task()
        assert task is not None
        stopped: list[bool] = []

        def stop() -> None:
            if not stopped:  # once: a second Ctrl-C would leave the REPL's task cancelled after
                stopped.append(True)
                task.cancel()

        keys = self.keys
        reading = self._reading(keys, stop, esc=False, leaving=LEAVING_COMMAND) if keys is not None else nothing()
        with self._on_ctrl_c(stop), reading:
            try:
                await coro
            except asyncio.CancelledError:
                if not stopped:
                    raise  # the REPL itself is being cancelled
                task.uncancel()
                self.console.print("interrupted", style="yellow")
            finally:
                if keys is not None:
                    keys.catch_up()  # typed while the command kept the loop busy: still lines

    @contextlib.contextmanager
    def paused(self) -> Iterator[Callable[[], bool]]:
        """While the turn asks the user something: no spinner; the question takes the terminal
        (cooked mode, no key reader) by calling what this yields once it is laid out
        (`InterruptKeys.hand_over`: False when keys typed before it stopped the work); the spinner
        comes back once answered (not when the question cancels the turn). `/exit` typed there
        (LeaveAsked) stops the turn, and the REPL's loop then takes it as the next line: it leaves."""
        view = self.view
        doing = view.label.doing if view is not None else ""
        if view is not None:
            view.end()
        try:
            if self.keys is None:
                yield lambda: True
            else:
                with self.keys.paused() as hand_over:
                    yield hand_over
        except LeaveAsked as leave:
            if self.keys is not None:
                self.keys.leave = leave.line
            raise
        if view is not None and self.view is view:
            view._spin(doing)

    def _say(self, line: str) -> None:
        self.console.print(line, style="dim", markup=False, highlight=False)

    async def wait(self, fut: asyncio.Future[Any], view: TurnView, doing: str) -> None:
        """Wait for `fut` (the session being built) under `view`'s spinner, the keys read as during
        a turn: Esc or Ctrl-C stops the message waiting for it — its turn stops as it starts, and
        says `interrupted` — never the REPL (Ctrl-C there ended the whole REPL, `interrupted`, exit
        130); a Ctrl-D leaves once that is done, as during a turn."""
        keys = self.keys or InterruptKeys(None, lambda: None)

        def stop() -> None:
            keys.stop_next = True

        view.start(doing)
        try:
            with self._reading(keys, stop), self._on_ctrl_c(stop):
                await asyncio.wait([fut])
        finally:
            view.end()

    async def interruptible(self, coro: Coroutine[Any, Any, T], view: TurnView, doing: str = "thinking") -> T | None:
        """Run `coro` under `view`'s spinner; Esc or Ctrl-C cancels it (None), never the REPL.
        However it ends (answer, error, interruption) the spinner is stopped before anything else prints."""
        outer = self.view
        self.view = view
        task = asyncio.ensure_future(coro)
        keys = self.keys or InterruptKeys(None, task.cancel)
        view.start(doing)
        if keys.stop_next:  # stopped while it waited for the session (`wait`)
            keys.stop_next = False
            task.cancel()
        try:
            with self._reading(keys, task.cancel), self._on_ctrl_c(task.cancel):
                return await task
        except asyncio.CancelledError:
            view.end()
            if not task.cancelled():
                raise  # the REPL itself is being cancelled
            self.console.print("interrupted", style="yellow")
            return None
        finally:
            view.end()
            self.view = outer
