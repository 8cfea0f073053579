"""A print-mode run ended by SIGTERM or SIGHUP says so in one line before it goes.

A run that fails, or stops at `--max-turns`, ends with the line that says its session is saved and
how to go on with it; one killed by `kill` or a timeout (`timeout 60 compact-agent -p ...`) ended
with nothing on stderr, and a script's log did not say whether the prompt was kept. Nothing needs
saving at that instant — every append is fsynced when it is written — so the handler only says
so and then ends the process by the same signal, with its default action: the parent sees what it
always saw (killed by SIGTERM, 143 in a shell), and nothing else runs (no cleanup that could hang
on a held request). A signal the process was started ignoring (`nohup`) stays ignored.

While the prompt is being saved (`held`) a signal waits for the save to end, so the line says
whether the prompt is in its session, never that it is when its write was cut short.

Nothing here imports pydantic-ai: the command line installs it before anything heavy is loaded.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType

#: How a run whose prompt is in its session says it can go on: the words of print mode's failures.
CONTINUES = "the session is saved: `compact-agent -c -p ...` continues it"

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@dataclass
class _State:
    saved: bool = False  # the prompt is in its session
    holding: bool = False  # the prompt is being saved: a signal waits
    pending: int | None = None  # the signal that came meanwhile


_state = _State()


def say_when_terminated() -> None:
    """From now on SIGTERM and SIGHUP print `compact-agent: terminated (SIGTERM)` — with `;
    CONTINUES` once `prompt_saved` said so — then end the process by that signal."""
    for sig in SIGNALS:
        with contextlib.suppress(ValueError, OSError):  # not the main thread: no handler, as before
            if signal.getsignal(sig) is not signal.SIG_IGN:
                signal.signal(sig, _on_signal)


def prompt_saved(saved: bool) -> None:
    """Whether the run's prompt is in its session (what the line says of it)."""
    _state.saved = saved


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A signal that comes while the prompt is being saved ends the run once the save is over."""
    _state.holding = True
    try:
        yield
    finally:
        _state.holding = False
        if _state.pending is not None:
            _end(_state.pending)


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    if _state.holding:
        _state.pending = signum
        return
    _end(signum)


def _end(signum: int) -> None:
    line = f"compact-agent: terminated ({signal.Signals(signum).name})" + (f"; {CONTINUES}" if _state.saved else "")
    with contextlib.suppress(Exception):  # what is still buffered goes first
        sys.stderr.flush()
    with contextlib.suppress(OSError):  # a terminal that hung up takes nothing: the end is the same
        os.write(2, (line + "\n").encode())
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
