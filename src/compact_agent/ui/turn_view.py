"""What the terminal shows while a turn runs, and the keys that stop it.

A spinner with the elapsed time and the context size says the agent is working (a 15 s command
otherwise looks frozen); each tool call and its outcome get one line as they happen. The spinner
is up only while nothing else is printing: answer text streams in plain, and a rich live region
under a half-written line would tear it.

Esc or Ctrl-C stops the turn. The terminal is in raw mode for the turn so a lone Esc arrives as a
key (Ctrl-C too: raw mode turns off the signal), and back in cooked mode whenever the turn asks
the user something (the permission prompt).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from prompt_toolkit.input import Input
from prompt_toolkit.keys import Keys
from rich.console import Console
from rich.status import Status
from rich.text import Text

from . import tool_lines


class SpinnerLabel:
    """`thinking… 12s · context 8.4k tokens`, recomputed at every refresh of the spinner."""

    def __init__(self, clock: Callable[[], float], tokens: Callable[[], int]) -> None:
        self.clock, self.tokens = clock, tokens
        self.start = clock()
        self.doing = "thinking"

    def text(self) -> str:
        elapsed = int(self.clock() - self.start)
        n = self.tokens()
        size = f" · context {n / 1000:.1f}k tokens" if n else ""
        return f"{self.doing}… {elapsed}s{size} · esc to interrupt"

    def __rich__(self) -> Text:
        return Text(self.text(), style="dim")


class TurnView:
    """Callbacks for `AgentSession.run_turn` that draw the turn on `console`."""

    def __init__(self, console: Console, tokens: Callable[[], int],
                 clock: Callable[[], float] = time.monotonic, spinner: bool = True) -> None:
        self.console = console
        self.label = SpinnerLabel(clock, tokens)
        self.status: Status | None = None
        self.use_spinner = spinner and console.is_terminal
        self.mid_line = False  # answer text ended without a newline

    def start(self, doing: str = "thinking") -> None:
        self._spin(doing)

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None

    def _spin(self, doing: str) -> None:
        self.label.doing = doing
        if self.use_spinner and self.status is None:
            self.status = self.console.status(self.label)
            self.status.start()

    def on_text(self, text: str) -> None:
        self.stop()
        self.console.out(text, end="", highlight=False)
        self.mid_line = not text.endswith("\n")

    def on_tool(self, obj: dict[str, Any]) -> None:
        self.stop()
        if self.mid_line:
            self.console.out("")
            self.mid_line = False
        if obj["type"] == "tool_call":
            self.console.print(tool_lines.call_line(obj), style="bold", highlight=False)
            self._spin(f"running {obj.get('tool', 'tool')}")
        else:
            self.console.print(tool_lines.result_line(obj), style="red" if obj.get("error") else "dim",
                               highlight=False)
            self._spin("thinking")

    def end(self) -> None:
        self.stop()
        if self.mid_line:
            self.console.out("")
            self.mid_line = False


class InterruptKeys:
    """While a turn runs: Esc or Ctrl-C calls `cancel`. `paused()` hands the terminal back."""

    def __init__(self, inp: Input | None, cancel: Callable[[], None]) -> None:
        self.inp, self.cancel = inp, cancel
        self._stack: contextlib.ExitStack | None = None
        self.typed = ""  # what the user typed ahead during the turn: the next prompt starts with it

    def start(self) -> None:
        if self.inp is None or self._stack is not None:
            return
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(self.inp.raw_mode())
            stack.enter_context(self.inp.attach(self._keys))
        except Exception:  # noqa: BLE001 - no usable terminal: Ctrl-C (SIGINT) still works
            stack.close()
            return
        self._stack = stack

    def stop(self) -> None:
        if self._stack is not None:
            self._stack.close()
            self._stack = None

    @contextlib.contextmanager
    def paused(self) -> Any:
        running = self._stack is not None
        self.stop()
        try:
            yield
        finally:
            if running:
                self.start()

    def _keys(self) -> None:
        assert self.inp is not None
        keys = self.inp.read_keys() + self.inp.flush_keys()  # a lone Esc waits for a flush
        if any(k.key in (Keys.Escape, Keys.ControlC) for k in keys):
            self.cancel()
            return
        self.typed += "".join(k.data for k in keys if len(k.data) == 1 and k.data.isprintable())

    def take_typed(self) -> str:
        typed, self.typed = self.typed, ""
        return typed
